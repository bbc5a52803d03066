"""How a user names an exception class the library raises: the module to import it from.

A raise writes the class as its own file sees it: `ParsingError` (defined there),
`TemplateAssertionError` (imported from `.exceptions`), `errors.HeaderParseError` (after
`from email import errors`). User code has none of those names: it needs
`configparser.ParsingError`, `jinja2.TemplateAssertionError`,
`email.errors.HeaderParseError`. The defining module is found among the snapshot's files,
and the shortest package that re-exports the class (its `__init__.py` names it) is taken.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping
from pathlib import PurePosixPath

from errdex.analyze.visibility import named_by, package_entries
from errdex.extract.structure import FileStructure
from errdex.languages.python.strings import module_name
from errdex.models import Language

_BUILTINS = frozenset(dir(builtins))


class Importer:
    """The snapshot's modules, indexed once; `__call__` answers one class at a time."""

    def __init__(self, structures: Mapping[str, FileStructure]) -> None:
        self.entries = package_entries((p, Language.PYTHON, s) for p, s in structures.items()
                                       if p.endswith(".py"))  # fmt: skip
        self.modules: dict[str, str] = {}  # dotted module -> its path
        self.definers: dict[str, list[str]] = {}  # class name -> the modules defining it
        self.factories: dict[str, frozenset[str]] = {}  # path -> the names of its methods
        for path, structure in structures.items():
            if not path.endswith(".py"):
                continue
            self.factories[path] = frozenset(d.name for d in structure.defs if d.owner)
            module = module_name(path)
            if module and module not in self.modules:
                self.modules[module] = path
                for name in structure.types:
                    self.definers.setdefault(name, []).append(module)

    def __call__(self, written: str, path: str) -> str | None:
        """`written` (a class as the raise in `path` names it) as users import it, or None
        when it is a builtin, not a class, or not found in the snapshot."""
        parts = written.split(".")
        name = parts[-1]
        if (len(parts) == 1 and name in _BUILTINS) or not (
                name[:1].isupper() or name in self.definers):  # `re.error` is a class too
            return None
        module = module_name(path)
        package = module if PurePosixPath(path).name == "__init__.py" \
            else module.rpartition(".")[0]  # fmt: skip
        defining = self._qualified(parts[:-1], package) if len(parts) > 1 else None
        if defining is None and len(parts) > 1 and not name[:1].isupper() and not (
                parts[0] not in ("self", "cls") and name in self.factories.get(path, ())):
            # `source.error(..)` of no module: the class only when this file's own method
            # of that name builds it (re's `Tokenizer.error` returning `error(..)`)
            return None
        if defining is None:
            defining = self._definer(name, module, package)
        if defining is None:
            return None
        # the outermost package that re-exports it (`jinja2` for `jinja2.exceptions.X`)
        return f"{named_by(defining, '.', name, self.entries)}.{name}"

    def _qualified(self, prefix: list[str], package: str) -> str | None:
        """The module `alias.` names: a sibling of the file's own package (`from email
        import errors`), else a module of the snapshot by that name."""
        alias = ".".join(prefix)
        sibling = f"{package}.{alias}" if package else alias
        if sibling in self.modules:
            return sibling
        return alias if alias in self.modules else None

    def _definer(self, name: str, module: str, package: str) -> str | None:
        """The module defining class `name`: the file itself, else the one module of the
        snapshot that does, the file's own package first."""
        found = self.definers.get(name, [])
        if module in found:
            return module
        top = package.split(".")[0]
        for pool in ([m for m in found if m.startswith(f"{package}.")] if package else [],
                     [m for m in found if top and m.split(".")[0] == top], found):
            if len(pool) == 1:
                return pool[0]
            if pool:
                return None  # several modules define it: not for errdex to guess which
        return None


def importer(structures: Mapping[str, FileStructure]) -> Callable[[str, str], str | None]:
    return Importer(structures)
