"""`index --cargo-lock Cargo.lock`: the crates a lock file pins, found where cargo unpacked
them (`$CARGO_HOME/registry/src/<registry>/<name>-<version>/`, CARGO_HOME defaulting to
~/.cargo). errdex reads what cargo downloaded already; it never fetches a crate.

A crate is stored as the repository `crates/<name>` at its locked version: one name per
crate, as several crates of one workspace (serde, serde_derive) share a repository URL.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import UsageError
from errdex.source.listing import read_listing

REGISTRY_SOURCES = ("registry+", "sparse+")  # crates.io and alternate registries
MAX_LOCK_BYTES = 20_000_000  # a lock file of 100k crates is a few MB


@dataclass(frozen=True)
class Crate:
    name: str
    version: str

    @property
    def repo(self) -> str:
        return f"crates/{self.name}"

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


def cargo_home() -> Path:
    return Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")


def read_lock(path: str) -> tuple[list[Crate], list[tuple[str, str]]]:
    """The registry crates `path` pins, in its order, and (crate, why) for each package
    it lists that no registry holds (a workspace member, a git or path dependency).
    A lock file that can't be read or isn't one is bad input: a UsageError."""
    data = read_listing(path, MAX_LOCK_BYTES, "a Cargo.lock")
    try:
        lock = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path} is not a Cargo.lock (not TOML: {exc})") from None
    packages = lock.get("package")
    if not isinstance(packages, list):
        raise UsageError(f"{path} is not a Cargo.lock (no [[package]] tables)")
    crates: list[Crate] = []
    elsewhere: list[tuple[str, str]] = []
    seen: set[Crate] = set()
    for package in packages:
        fields = package if isinstance(package, dict) else {}
        name, version = fields.get("name"), fields.get("version")
        if not (isinstance(name, str) and isinstance(version, str)
                and _plain(name) and _plain(version)):
            raise UsageError(f"{path} is not a Cargo.lock (a package without a plain name "
                             "and version)")
        crate = Crate(name, version)
        source = fields.get("source")
        if not (isinstance(source, str) and source.startswith(REGISTRY_SOURCES)):
            elsewhere.append((str(crate), "not from a registry (a workspace member, git or "
                              "path dependency): index its directory instead"))
        elif crate not in seen:
            seen.add(crate)
            crates.append(crate)
    return crates, elsewhere


def _plain(text: str) -> bool:
    """A crate name or version that names one directory: no separator, no `..`."""
    return (bool(text) and "/" not in text and "\\" not in text
            and text not in (".", "..") and text.isprintable())


def crate_directory(crate: Crate, home: Path | None = None) -> Path | None:
    """Where cargo unpacked `crate` (the first registry holding it, by name), or None."""
    src = (home or cargo_home()) / "registry" / "src"
    try:
        registries = sorted(p for p in src.iterdir() if p.is_dir())
    except OSError:
        return None
    for registry in registries:
        candidate = registry / f"{crate.name}-{crate.version}"
        if candidate.is_dir():
            return candidate
    return None
