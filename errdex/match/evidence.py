"""What pasted text says about where an error came from, beyond its message: the
library (and version) its traceback frames or backtrace paths point into, and whether a
frame's path is a record site's path. Used by the matcher to rank records; knows nothing
about matching itself.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Where a path says which library (and version) the code in a frame belongs to.
_LIBRARY_PATH = re.compile(
    r"[\\/](?:site|dist)-packages[\\/](?P<pkg>[A-Za-z_][\w.-]*?)"
    r"(?:-(?P<pkgver>\d[\w.]*?)(?:-py[\d.]+)?\.egg)?[\\/]"
    r"|[\\/](?:lib|Lib)[\\/]python(?P<py>3\.\d+)[\\/](?!site-packages|dist-packages)"
    r"|[\\/]registry[\\/]src[\\/][^\\/\s]+[\\/](?P<crate>[A-Za-z_][\w-]*?)"
    r"-(?P<cratever>\d+\.\d+[\w.+-]*)[\\/]"
    r"|[\\/]node_modules[\\/](?:@[\w.-]+[\\/])?(?P<npm>[\w.-]+)[\\/]"
    # a jar a Java frame or class path names: `[gridlib-1.2.0.jar:1.2.0]`, `.m2/..jar`
    r"|(?<![\w.-])(?P<jar>[A-Za-z][\w.-]*?)-(?P<jarver>\d+(?:\.\d+)+[\w.-]*?)\.jar\b"
)


@lru_cache(maxsize=4096)
def type_tail(name: str | None) -> str | None:
    """`json.decoder.JSONDecodeError` and `Error::Io` compare by their last component."""
    if not name:
        return None
    return re.split(r"[.:]+", name.strip())[-1] or None


def text_libraries(text: str) -> frozenset[tuple[str, str | None]]:
    """(library, version) pairs the frames and backtraces in `text` point into:
    `.../site-packages/packaging/version.py` -> ("packaging", None), `/usr/lib/python3.11/
    json/decoder.py` -> ("cpython", "3.11"), `.../registry/src/index.crates.io-x/
    candle-core-0.8.0/src/lib.rs` -> ("candle_core", "0.8.0"), `node_modules/@scope/
    pkg/lib/x.js` -> ("pkg", None)."""
    if "-packages" not in text and "python3" not in text and "registry" not in text \
            and ".jar" not in text and "node_modules" not in text:
        return _NONE  # what every path the pattern knows has in it
    found: set[tuple[str, str | None]] = set()
    for m in _LIBRARY_PATH.finditer(text):
        if m.group("pkg"):
            name = m.group("pkg").removesuffix(".py")
            found.add((_norm(name), m.group("pkgver")))
        elif m.group("py"):
            found.add(("cpython", m.group("py")))
        elif m.group("crate"):
            found.add((_norm(m.group("crate")), m.group("cratever")))
        elif m.group("npm"):
            found.add((_norm(m.group("npm")), None))
        elif m.group("jar"):
            found.add((_norm(m.group("jar")), m.group("jarver")))
        if len(found) > 64:
            break
    return frozenset(found)


_NONE: frozenset[tuple[str, str | None]] = frozenset()


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def library_rank(repo: str, version: str | None,
                  libraries: frozenset[tuple[str, str | None]]) -> int:
    """0: the text came from this repository at this version; 1: from this repository;
    2: nothing says so. A crate `candle_core` belongs to repository `.../candle`."""
    tail = _norm(repo.rsplit("/", 1)[-1])
    best = 2
    for library, lib_version in libraries:
        if library == tail or library.startswith(tail + "_"):
            if lib_version and version and (
                version == lib_version or version.startswith(lib_version + ".")
            ):
                return 0
            best = 1
    return best


def path_agrees(site: tuple[str, ...], frame: tuple[str, ...]) -> bool:
    """Whole path components: the site's path is a suffix of the frame's, or they share
    at least a directory and the file (`src/packaging/version.py` against
    `.../site-packages/packaging/version.py`)."""
    common = 0
    for a, b in zip(reversed(site), reversed(frame), strict=False):
        if a != b:
            break
        common += 1
    return common > 0 and (common == len(site) or common >= 2)


@lru_cache(maxsize=4096)
def components(path: str) -> tuple[str, ...]:
    return tuple(part for part in path.replace("\\", "/").split("/") if part and part != ".")
