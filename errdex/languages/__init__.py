"""The registry of languages errdex reads: each `Language` maps to the folder whose
`SPEC` (a `LanguageSpec`) holds everything errdex knows about it.

Adding a language is its folder (`languages/<name>/{__init__.py, queries.scm,
rules.toml}`) and one line in `_FOLDERS` (with its `Language` member). Nothing here
knows any one language's tables; shared modules reach them only through `spec_for`.
"""

from __future__ import annotations

import importlib
from functools import cache

from errdex.languages.spec import CAPABILITIES, LanguageSpec
from errdex.models import Language

_FOLDERS: dict[Language, str] = {
    Language.RUST: "errdex.languages.rust",
    Language.PYTHON: "errdex.languages.python",
    Language.GO: "errdex.languages.go",
    Language.JAVASCRIPT: "errdex.languages.javascript",
    Language.TYPESCRIPT: "errdex.languages.typescript",
    Language.TSX: "errdex.languages.tsx",
    Language.JAVA: "errdex.languages.java",
    Language.C: "errdex.languages.c",
    Language.CPP: "errdex.languages.cpp",
}

__all__ = ["CAPABILITIES", "LanguageSpec", "all_specs", "spec_for"]


@cache
def spec_for(language: Language) -> LanguageSpec:
    """The spec of `language`; KeyError names a language with no folder."""
    spec = importlib.import_module(_FOLDERS[language]).SPEC
    if not isinstance(spec, LanguageSpec) or spec.language is not language:
        raise TypeError(f"{_FOLDERS[language]}.SPEC is not the spec of {language}")
    return spec


def all_specs() -> tuple[LanguageSpec, ...]:
    return tuple(spec_for(language) for language in _FOLDERS)


def languages_that(capability: str) -> frozenset[str]:
    """The names (`Language` values) of the registered languages that have `capability`:
    for code that holds a language as a stored string and must not name one."""
    return frozenset(spec.language.value for spec in all_specs() if spec.can(capability))
