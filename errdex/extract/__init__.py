"""Extraction: source files in, error sites out.

One module per language (`rust.py`, `python.py`), each exposing an `Extractor`. What
counts as raising an error (macros, methods, helper functions) is data: the built-in
rules in `errdex/rules/<language>.toml`, extended by a repository's own `errdex.toml`
through the same loader. This package never runs code from the indexed tree.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from errdex.errors import ConfigError
from errdex.models import (
    Construction,
    FileExtraction,
    Language,
    MessageDefinition,
    Placeholder,
    Site,
    SiteKind,
    Snippet,
    Template,
)


@dataclass(frozen=True)
class Rule:
    """One error-raising name of a language.

    `form` says how it is written: "macro" (`bail!(...)`), "method" (`x.expect(...)`) or
    "call" (`Error::msg(...)`, `warnings.warn(...)`, `self.fail(...)`). `name` is matched
    against the last path segment for macros and methods, and against the full dotted
    or `::` path (or its last segments) for calls.
    """

    name: str
    form: str
    kind: SiteKind
    message_arg: int = 0  # which argument holds the message (format string first)
    guard_arg: int | None = None  # the argument that must hold (`ensure!(cond, ...)`)
    guard_op: str | None = None  # `assert_eq!`: "==" joins arguments 0 and 1
    exception: str | None = None  # the exception/error type it produces, if fixed


class Extractor(Protocol):
    @property
    def language(self) -> Language: ...

    @property
    def extensions(self) -> tuple[str, ...]: ...

    def extract(self, path: str, source: bytes, rules: Sequence[Rule]) -> FileExtraction:
        """Parse one file once and return everything it holds."""
        ...


_FORMS = {"macro", "method", "call"}
SNIPPET_BEFORE = 15  # lines of code shown before a site
SNIPPET_AFTER = 20  # and after its last line


class SourceLines:
    """A file's lines, split once (and only if a site needs them), for snippets."""

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._lines: list[str] | None = None

    def snippet(self, line: int, end_line: int | None = None) -> Snippet:
        if self._lines is None:
            self._lines = self._source.decode("utf-8", "replace").split("\n")
        start = max(1, line - SNIPPET_BEFORE)
        end = min(len(self._lines), (end_line or line) + SNIPPET_AFTER)
        code = "\n".join(text.rstrip("\r") for text in self._lines[start - 1 : end])
        return Snippet(start_line=start, code=code)


def parse_rules(entries: Iterable[Mapping[str, Any]], origin: str) -> list[Rule]:
    rules: list[Rule] = []
    for i, entry in enumerate(entries):
        try:
            form = str(entry["form"])
            if form not in _FORMS:
                raise ValueError(f"form must be one of {sorted(_FORMS)}")
            guard_arg = entry.get("guard_arg")
            rules.append(
                Rule(
                    name=str(entry["name"]),
                    form=form,
                    kind=SiteKind(entry.get("kind", "raise")),
                    message_arg=int(entry.get("message_arg", 0)),
                    guard_arg=None if guard_arg is None else int(guard_arg),
                    guard_op=entry.get("guard_op"),
                    exception=entry.get("exception"),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"{origin}: rule {i + 1} is invalid: {exc}") from None
    return rules


CONFIG_NAME = "errdex.toml"
MAX_CONFIG_BYTES = 1_000_000  # a repository's errdex.toml; rules are a few lines each
MAX_CONFIG_RULES = 1_000  # rules per language in it: every call site is tried against each
# The fields of a rule in errdex.toml, and the type each must have.
_RULE_FIELDS: dict[str, type] = {"name": str, "form": str, "kind": str, "message_arg": int,
                                 "guard_arg": int, "guard_op": str, "exception": str}
_REQUIRED = ("name", "form")
MAX_ARGUMENT = 64  # the highest argument position a rule may name


def load_rules(language: Language, repo_root: str | None = None) -> list[Rule]:
    """Built-in rules for `language`, then the `[[<language>.rules]]` of the
    repository's `errdex.toml` (if `repo_root` has one)."""
    text = resources.files("errdex").joinpath("rules", f"{language.value}.toml").read_text()
    rules = parse_rules(tomllib.loads(text).get("rules", []), f"built-in {language} rules")
    if repo_root is not None:
        config = Path(repo_root) / CONFIG_NAME
        data = _read_config(config, Path(repo_root))
        if data is not None:
            entries = _config_rules(data, language, str(config))
            rules.extend(parse_rules(entries, str(config)))
    return rules


def _read_config(config: Path, root: Path) -> dict[str, Any] | None:
    """The parsed errdex.toml, or None when there is none to read: only a regular file
    inside the tree is read (a link, or a FIFO that would block, is not). Anything wrong
    with it is one `ConfigError` naming the file."""
    try:
        if config.is_symlink() or not config.is_file():
            return None
        if not config.resolve().is_relative_to(root.resolve()):
            return None  # a parent directory links out of the tree
        with config.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{config}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{config}: larger than {MAX_CONFIG_BYTES} bytes; "
                          "an errdex.toml holds a few rules")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{config}: not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{config}: not valid TOML: nested too deeply") from None


def _config_rules(data: dict[str, Any], language: Language, origin: str) -> list[dict[str, Any]]:
    """The rule tables of `language` in errdex.toml, each checked field by field, so a
    mistake is named (`rule 2: 'message_arg' must be an integer`) and none slips through
    as a wrong type."""
    known = sorted(lang.value for lang in Language)
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{origin}: unknown section [{key}] (expected one of "
                              f"{', '.join(known)})")
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: [{key}] must be a table")
        extra = sorted(set(value) - {"rules"})
        if extra:
            raise ConfigError(f"{origin}: [{key}] has unknown key {extra[0]!r} "
                              "(only 'rules')")
    entries = data.get(language.value, {}).get("rules", [])
    where = f"{origin}: {language.value}.rules"
    if not isinstance(entries, list):
        raise ConfigError(f"{where} must be an array of tables ([[{language.value}.rules]])")
    if len(entries) > MAX_CONFIG_RULES:
        raise ConfigError(f"{where} has {len(entries)} rules; at most {MAX_CONFIG_RULES}")
    for number, entry in enumerate(entries, 1):
        _check_rule(entry, f"{where}: rule {number}")
    return entries


def _check_rule(entry: object, where: str) -> None:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table, not {type(entry).__name__}")
    for name in _REQUIRED:
        if name not in entry:
            raise ConfigError(f"{where} has no {name!r}")
    for name, value in entry.items():
        wanted = _RULE_FIELDS.get(name)
        if wanted is None:
            raise ConfigError(f"{where} has unknown field {name!r} "
                              f"(known: {', '.join(_RULE_FIELDS)})")
        if wanted is int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{where}: {name!r} must be an integer")
            if not 0 <= value <= MAX_ARGUMENT:
                raise ConfigError(f"{where}: {name!r} must be between 0 and {MAX_ARGUMENT}")
        elif not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {name!r} must be a non-empty string")
    if entry["form"] not in _FORMS:
        raise ConfigError(f"{where}: form {entry['form']!r} is not one of {sorted(_FORMS)}")
    kinds = [kind.value for kind in SiteKind]
    if entry.get("kind", "raise") not in kinds:
        raise ConfigError(f"{where}: kind {entry['kind']!r} is not one of {kinds}")


def extractor_for(language: Language) -> Extractor:
    if language is Language.RUST:
        from errdex.extract.rust import RustExtractor

        return RustExtractor()
    from errdex.extract.python import PythonExtractor

    return PythonExtractor()


def _common_prefix_len(a: str, b: str) -> int:
    parts_a, parts_b = a.split("/"), b.split("/")
    n = 0
    for x, y in zip(parts_a, parts_b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _last_segments(type_path: str) -> tuple[str | None, str]:
    parts = [p for p in type_path.replace("::", ".").split(".") if p]
    name = parts[-1] if parts else type_path
    owner = parts[-2] if len(parts) > 1 else None
    return owner, name


def resolve_constructions(extractions: Sequence[FileExtraction]) -> list[Site]:
    """Turn constructions of types that own a message into sites of that message.

    A construction `Error::Foo {..}` resolves to the definition named `Foo` whose owner
    is `Error` when the path names an owner; among several, the one defined nearest in
    the tree (longest shared directory prefix) wins, so each crate's `Error` stays its own.
    """
    by_name: dict[str, list[MessageDefinition]] = {}
    for extraction in extractions:
        for definition in extraction.definitions:
            by_name.setdefault(definition.name, []).append(definition)
    sites: list[Site] = []
    for extraction in extractions:
        for built in extraction.constructions:
            owner, name = _last_segments(built.type_path)
            candidates = [
                d
                for d in (by_name.get(name, []) if built.resolvable else [])
                if d.language is built.language
                and (owner is None or d.owner is None or d.owner == owner
                     or built.language is Language.PYTHON)
            ]
            if candidates:
                best = max(candidates, key=lambda d: _common_prefix_len(d.path, built.path))
                sites.append(_defined_site(built, best))
            elif built.raised and not built.message_given:
                sites.append(_typed_site(built, name))
    return sites


def _site_at(built: Construction, **what: Any) -> Site:
    """A site where `built` stands; `what` says what is raised there."""
    return Site(language=built.language, path=built.path, line=built.line,
                end_line=built.end_line, function=built.function, guard=built.guard,
                snippet=built.snippet, **what)


def _typed_site(built: Construction, name: str) -> Site:
    """A raise of a library's own exception type whose message is made at run time: no
    text to match, but the type still names it (`configparser.DuplicateSectionError:`)."""
    arguments = ", ".join(value for _, value in built.field_values)
    # A class of this very file is named as Python prints it: `configparser.Error`.
    module = built.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return _site_at(
        built,
        kind=SiteKind.RAISE,
        exception=built.type_path if built.resolvable else f"{module}.{name}",
        template=Template(
            message=f"{name}: {{message}}",
            literals=("", ""),
            placeholders=(Placeholder("message", f"{name}({arguments})"),),
        ),
        variant=name,
    )


def _defined_site(built: Construction, definition: MessageDefinition) -> Site:
    fields = definition.fields
    bound = tuple(
        # A construction elsewhere knows arguments only by position; the definition
        # knows their names.
        (fields[int(name)] if name.isdigit() and int(name) < len(fields) else name, value)
        for name, value in built.field_values
        if _is_literal(value)
    )
    rust = definition.language is Language.RUST
    return _site_at(
        built,
        kind=SiteKind.ERROR_ENUM if rust else SiteKind.RAISE,
        exception=f"{definition.owner}::{definition.name}"
        if rust and definition.owner else definition.name,
        template=definition.template,
        bound=bound,
        variant=definition.name,
        variant_fields=fields,
    )


def _is_literal(expression: str) -> bool:
    text = expression.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return True
    return text.replace("_", "").replace(".", "", 1).lstrip("-").isdigit()
