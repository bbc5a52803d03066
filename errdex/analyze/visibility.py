"""Which definitions are a repository's public API, where that takes more than one file:
a module named as private (`_base.py`, `_core/`, by the language's `private_prefix`)
offers only what a package entry (`__init__.py`) of a module that is not private names,
such as `concurrent.futures._base.Future`; the rest of it is internal, whatever its own
names say (`email._header_value_parser.get_encoded_word`).

The outline already decided each file's own rules (a leading `_`, `pub`, `__all__`);
this only takes public away from what a private module does not re-export. And by what
package users name a definition a package entry re-exports (`tomllib.loads`), for the
call graph's names and the exception classes a page imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import PurePosixPath

from errdex.extract.structure import FileStructure
from errdex.languages import spec_for
from errdex.models import Language


def is_private_module(path: str, prefix: str) -> bool:
    """A file under a folder, or of a name, that starts with `prefix` (dunders aside)."""
    parts = PurePosixPath(path).with_suffix("").parts
    return any(p.startswith(prefix) and not (p.startswith("__") and p.endswith("__"))
               for p in parts)  # fmt: skip


def public_api(
    files: Iterable[tuple[str, Language]], structures: Mapping[str, FileStructure]
) -> dict[str, FileStructure]:
    """`structures` with the definitions of private modules that no package entry names
    made internal."""
    out = _crate_private(dict(structures))
    by_language: dict[Language, list[str]] = {}
    for path, language in files:
        if path in structures:
            by_language.setdefault(language, []).append(path)
    for language, paths in by_language.items():
        outline = spec_for(language).outline
        prefix, entry = outline.private_prefix, outline.package_entry
        if not prefix or not entry:
            continue
        private = [p for p in paths if is_private_module(p, prefix)]
        if not private:
            continue
        named: set[str] = set()  # what the public package entries name (import lists)
        for path in paths:
            if PurePosixPath(path).name == entry and not is_private_module(path, prefix):
                named |= structures[path].identifiers
        for path in private:
            structure = out[path]
            defs = tuple(replace(d, public=False) if d.public and (d.owner or d.name) not in
                         named else d for d in structure.defs)  # fmt: skip
            if defs != structure.defs:
                out[path] = replace(structure, defs=defs)
    return out


def _crate_private(structures: dict[str, FileStructure]) -> dict[str, FileStructure]:
    """`structures` with the public definitions of modules kept to their crate (a file
    another declares as such, and every file under its folder) made internal, unless a
    re-export of the repository names them or their type (`pub use tensor::Tensor` keeps
    the `Tensor` methods a private `tensor_cat.rs` defines). Trait methods are left (a
    value of the type reaches them), and so is what a mark exposes (`#[pymethods]`)."""
    hidden = {f for s in structures.values() for f in s.hidden_modules}
    if not hidden:
        return structures
    folders = tuple(f.removesuffix("mod.rs") if f.endswith("/mod.rs") else
                    f.removesuffix(".rs") + "/" for f in hidden)  # fmt: skip
    named = frozenset().union(*(s.reexported for s in structures.values()))
    for path, structure in structures.items():
        if path not in hidden and not path.startswith(folders):
            continue
        defs = tuple(replace(d, public=False) if d.public and not d.in_trait and not d.exposed
                     and not ({d.owner, d.name} & named) else d
                     for d in structure.defs)  # fmt: skip
        if defs != structure.defs:
            structures[path] = replace(structure, defs=defs)
    return structures


def package_entries(
    files: Iterable[tuple[str, Language, FileStructure]],
) -> dict[str, frozenset[str]]:
    """Each package entry's module (`tomllib` of `tomllib/__init__.py`) -> the names in it."""
    out = {}
    for path, language, structure in files:
        spec = spec_for(language)
        if spec.outline.package_entry and path.rsplit("/", 1)[-1] == spec.outline.package_entry:
            # What it defines itself is its own (`re.compile`), not a submodule's it imports.
            own = {d.name for d in structure.defs if d.owner is None} | structure.types
            out[spec.module_path(path)] = structure.imported - own
    return out


def named_by(
    module: str, separator: str, name: str, entries: Mapping[str, frozenset[str]]
) -> str:
    """The outermost package above `module` whose entry names `name` (`tomllib` re-exports
    `tomllib._parser.loads`), else `module` itself."""
    parts = module.split(separator)
    for end in range(1, len(parts)):
        package = separator.join(parts[:end])
        if name in entries.get(package, frozenset()):
            return package
    return module
