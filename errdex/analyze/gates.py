"""The build conditions a site is compiled under: the `#[cfg(..)]`-style gates of its
own file's items around it, and those of the module declarations that bring its file
into the build (`#[cfg(feature = "metal")] pub mod metal_backend;` in `lib.rs` gates
`metal_backend/mod.rs` and every module of that folder; the extractor names the files and
the folder). Read from the structures the extraction emitted (errdex.extract.structure's
`gates` and `gated_files`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from errdex.extract.structure import FileStructure

MAX_CONDITIONS = 4  # the outermost ones: a page says a few, not a nest of ten


class BuildConditions:
    """Who asks `at(path, line)` gets the conditions outermost first, each once."""

    def __init__(self, structures: Mapping[str, FileStructure]) -> None:
        self._structures = structures
        self._folders: dict[str, list[str]] = defaultdict(list)  # file or folder -> its
        for structure in structures.values():
            for place, condition in structure.gated_files:
                self._folders[place.rstrip("/")].append(condition)

    def at(self, path: str, line: int) -> tuple[str, ...]:
        found: list[str] = []
        parts = path.split("/")
        for depth in range(1, len(parts) + 1):  # the outermost folder first
            found += self._folders.get("/".join(parts[:depth]), ())
        structure = self._structures.get(path)
        gates = structure.gates if structure is not None else ()
        found += [g.condition for g in sorted(gates, key=lambda g: (g.line, -g.end_line))
                  if g.line <= line <= g.end_line]
        return tuple(dict.fromkeys(found))[:MAX_CONDITIONS]

