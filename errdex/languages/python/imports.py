"""What a Python file's top-level imports bind: `from .decoder import JSONDecoder as D`
in `json/__init__.py` binds `D` to `json.decoder.JSONDecoder`, `import re._parser as
_parser` binds `_parser` to `re._parser`. A call through such a name (`_parser.parse(..)`,
`D.decode(..)`) or of it (`loads(..)`) goes to what it names (errdex.analyze.scopes)."""

from __future__ import annotations

import re

from errdex.languages.python.strings import module_name

_FROM = re.compile(r"^from\s+(?P<module>\.*[\w.]*)\s+import\s+(?P<names>.+)$", re.DOTALL)
_IMPORT = re.compile(r"^import\s+(?P<names>.+)$", re.DOTALL)
_ALIASED = re.compile(r"^(?P<path>[\w.]+)(?:\s+as\s+(?P<name>\w+))?$")
MAX_BOUND = 64  # names one statement binds that are kept


def import_paths(text: str, path: str) -> tuple[tuple[str, str], ...]:
    """The names an import statement binds, each with the dotted path it names."""
    text = " ".join(re.sub(r"#[^\n]*", "", text).replace("\\\n", " ").split())
    out: list[tuple[str, str]] = []
    if found := _FROM.match(text):
        module = _absolute(found.group("module"), path)
        if not module:
            return ()
        for part in found.group("names").strip("() ").split(","):
            aliased = _ALIASED.match(part.strip())
            if aliased and aliased.group("path") != "*" and "." not in aliased.group("path"):
                name = aliased.group("path")
                out.append((aliased.group("name") or name, f"{module}.{name}"))
    elif found := _IMPORT.match(text):
        for part in found.group("names").split(","):
            aliased = _ALIASED.match(part.strip())
            if aliased and (aliased.group("name") or "." not in aliased.group("path")):
                out.append((aliased.group("name") or aliased.group("path"),
                            aliased.group("path")))  # fmt: skip
    return tuple(out[:MAX_BOUND])


def _absolute(module: str, path: str) -> str:
    """A module as written after `from`, from the root: a relative one (`.decoder`,
    `..util`) read against the file's package; "" when it climbs out of it."""
    dots = len(module) - len(module.lstrip("."))
    if not dots:
        return module
    own = module_name(path)
    package = own if path.endswith("__init__.py") else own.rpartition(".")[0]
    parts = package.split(".") if package else []
    if dots - 1 >= len(parts) and dots > 1:
        return ""
    parts = parts[:len(parts) - (dots - 1)]
    rest = module[dots:]
    return ".".join([*parts, *([rest] if rest else [])])
