"""`npm:NAME[@VERSION]` and `index --package-lock package-lock.json`: packages npm (or
yarn, pnpm) installed in a `node_modules` directory. errdex reads what was installed; it
never runs npm, never fetches a package, and never runs a package's scripts.

A package is stored as the repository `npm/NAME` (`@scope/NAME` keeps its scope as the
owner) at the version its `package.json` says: one name per package, as the packages of
one monorepo (`@babel/core`, `@babel/parser`) share a repository URL. Like an installed
Python distribution, it gets no permalinks: its files are what was published (often
built from other files), at paths that need not exist at any commit of the repository,
and a wrong link is worse than none.

What is read is the package's own source: its nested `node_modules`, `dist/` and `build/`
bundles, minified files and `*.d.ts` declarations are skipped as in any tree, but for a
package that ships nothing but its build, whose `dist/` is then read.
"""

from __future__ import annotations

import json
import re
import stat
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from errdex.errors import SourceError, UsageError
from errdex.models import Snapshot, SourceFile
from errdex.source.listing import read_listing
from errdex.source.resolve import SKIPPED_DIRS, SourceOptions, collect_files, walk_files

PREFIX = "npm:"
# A package name as npm allows it (old packages may hold capitals): one folder, or a scope
# and one folder. Never `.`/`..` nor a separator beyond the scope's.
_PART = r"[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,213}"
NAME = re.compile(rf"(?:@{_PART}/)?{_PART}")
VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+_-]{0,255}")
MAX_MANIFEST_BYTES = 1_000_000  # a package.json; the largest published are a few 100 KB
MAX_LOCK_BYTES = 100_000_000  # a package-lock.json of 10k packages is ~10 MB
NODE_MODULES = "node_modules"
HIDDEN_LOCK = ".package-lock.json"  # npm 7+ keeps the tree it installed in node_modules/
BUILD_DIRS = frozenset({"dist", "build"})  # read only when a package has nothing else
NO_SOURCES = "no source files to read (none but minified files, type declarations or data)"


@dataclass(frozen=True)
class Locked:
    """One package a lock file pins: its name, version and where npm installs it
    (`node_modules/a/node_modules/@s/b`, relative to the lock's directory)."""

    name: str
    version: str
    key: str
    optional: bool = False

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def repo(self) -> str:
        return repo_name(self.name)


def repo_name(name: str) -> str:
    """The repository a package is stored as: `@scope/name` as it is, else `npm/name`."""
    return name if name.startswith("@") else f"npm/{name}"


def split_spec(text: str) -> tuple[str, str | None]:
    """`lodash@4.17.21` -> ("lodash", "4.17.21"); `@babel/core` -> ("@babel/core", None)."""
    head, sep, version = text.rpartition("@")
    if sep and head:
        return head, version
    return text, None


# -- one installed package ---------------------------------------------------------------


def package_snapshot(spec: str, options: SourceOptions) -> Snapshot:
    """`npm:NAME` or `npm:NAME@VERSION`: the package installed in the nearest
    `node_modules` holding it, from the current directory up (or in `--node-modules`),
    and with a version, only when that is the version installed."""
    name, version = split_spec(spec.strip())
    if not name:
        raise SourceError("npm: needs a package name, e.g. npm:lodash or npm:@scope/name")
    if not NAME.fullmatch(name):
        raise SourceError(f"npm:{name}: not a package name")
    if version is not None and not VERSION.fullmatch(version):
        raise SourceError(f"npm:{spec}: give the version after @, e.g. npm:{name}@1.0.0")
    if options.commit:
        raise SourceError(f"--commit does not apply to npm:{name}: an installed package is "
                          "pinned by its version")
    found = find_package(name, options.node_modules)
    if found is None:
        where = (f"in {options.node_modules}" if options.node_modules
                 else f"in any node_modules from {Path.cwd()} up")
        raise SourceError(f"no installed npm package named {name!r} {where} (run `npm install` "
                          "first, or name the directory with --node-modules)")
    base, directory = found
    root = package_root(directory, base)  # before anything in it is read
    found_name, found_version = read_manifest(root)
    if version is not None and found_version != version:
        raise SourceError(f"npm:{name}@{version}: {directory} holds {name} {found_version}, "
                          f"not {version}")
    files, skipped = source_files(root, options.max_file_bytes)
    if not files:
        raise SourceError(f"npm:{found_name}@{found_version}: {NO_SOURCES}")
    return Snapshot(repo=options.repo or repo_name(found_name), commit=None, commit_date=None,
                    version=found_version, root=str(root), url_base=None, files=files,
                    skipped=skipped)


def source_files(
    root: Path, max_bytes: int
) -> tuple[tuple[SourceFile, ...], tuple[tuple[str, int], ...]]:
    """The files of the package at `root` that are read, and those skipped by reason: its
    source, not its builds; but a package that publishes nothing but its build (compiled
    TypeScript in `dist/`, a third of those npm itself installs) has its build read, as
    that is the code that runs and that stack traces name (minified files and
    declarations are still skipped)."""
    for skip in (SKIPPED_DIRS, SKIPPED_DIRS - BUILD_DIRS):
        walked: Counter[str] = Counter()
        relatives = list(walk_files(root, skip, walked))
        files, skipped = collect_files(root, relatives, max_bytes, walked)
        if files:
            break
    return files, skipped


def find_package(name: str, node_modules: str | None = None) -> tuple[Path, Path] | None:
    """(the node_modules directory, the package's directory in it) of installed package
    `name`: in `node_modules` when given, else in the nearest `node_modules` from the
    current directory up (as Node resolves it)."""
    if node_modules is not None:
        bases = [Path(node_modules).expanduser()]
    else:
        here = Path.cwd()
        bases = [d / NODE_MODULES for d in (here, *here.parents)]
    for base in bases:
        candidate = base / name
        if (candidate / "package.json").is_file():
            return base.absolute(), candidate.absolute()
    return None


def package_root(directory: Path, node_modules: Path) -> Path:
    """The real directory of a package: through a link that stays in its `node_modules`
    (pnpm's, into `node_modules/.pnpm/`), never through one out of it (a workspace's, or
    one planted to make errdex read another tree)."""
    root = directory.resolve()
    try:
        root.relative_to(node_modules.resolve())
    except ValueError:
        raise SourceError(f"{directory} is a link out of {node_modules} (to {root}): index "
                          "that directory instead") from None
    return root


def read_manifest(directory: Path) -> tuple[str, str]:
    """The name and version a package's `package.json` gives (a SourceError if it can't
    be read or lacks them)."""
    path = directory / "package.json"
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"{path} is not a regular file")
        if info.st_size > MAX_MANIFEST_BYTES:
            raise SourceError(f"{path} is larger than {MAX_MANIFEST_BYTES} bytes")
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise SourceError(f"cannot read {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise SourceError(f"{path} is not JSON") from None
    fields = data if isinstance(data, dict) else {}
    name, version = fields.get("name"), fields.get("version")
    if not (isinstance(name, str) and NAME.fullmatch(name)
            and isinstance(version, str) and VERSION.fullmatch(version)):
        raise SourceError(f"{path} names no package name and version")
    return name, version


def pinned(spec: str, options: SourceOptions) -> SourceOptions:
    """`options` with the `node_modules` that `spec` (`npm:NAME`) is found in from here,
    for an engine that resolves it in another process and directory; unchanged otherwise."""
    if not spec.startswith(PREFIX) or options.node_modules is not None:
        return options
    name, _ = split_spec(spec[len(PREFIX):].strip())
    found = find_package(name) if NAME.fullmatch(name) else None
    return options if found is None else replace(options, node_modules=str(found[0]))


# -- package-lock.json -------------------------------------------------------------------


def read_lock(path: str) -> tuple[list[Locked], list[tuple[str, str]]]:
    """The installed packages `path` pins, in its order, once each (name and version),
    and (package, why) for each one that is not installed from the registry (the project,
    a workspace package, a link, a git or file dependency). A file that can't be read or
    isn't a lock file is bad input: a UsageError."""
    data = read_listing(path, MAX_LOCK_BYTES, "a package-lock.json")
    try:
        lock = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UsageError(f"{path} is not a package-lock.json (not JSON: {exc})") from None
    if not isinstance(lock, dict):
        raise UsageError(f"{path} is not a package-lock.json (not a JSON object)")
    packages = lock.get("packages")
    if isinstance(packages, dict):  # lockfileVersion 2 and 3
        entries = list(packages.items())
    elif isinstance(lock.get("dependencies"), dict):  # lockfileVersion 1
        entries = list(_v1_entries(lock["dependencies"]))
    else:
        raise UsageError(f"{path} is not a package-lock.json (no \"packages\" or "
                         "\"dependencies\" map)")
    found: list[Locked] = []
    elsewhere: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()
    linked = {str(e.get("resolved")) for _, e in entries if isinstance(e, dict) and e.get("link")}
    for key, entry in entries:
        fields = entry if isinstance(entry, dict) else {}
        key = str(key)
        installed = key.startswith(f"{NODE_MODULES}/") or f"/{NODE_MODULES}/" in key
        name = fields.get("name") or (key.rsplit(f"{NODE_MODULES}/", 1)[-1] if installed
                                      else key)
        version = fields.get("version")
        shown = f"{name}@{version}" if isinstance(version, str) else str(name)
        if not installed:  # the project, a workspace package, a `file:` dependency's source
            if key == "":
                elsewhere.append((shown or "the project", "the project itself: index its "
                                  "directory instead"))
            elif key not in linked:  # a link to it is said already
                elsewhere.append((shown, "not installed in node_modules: index its "
                                  "directory instead"))
            continue
        if fields.get("link"):
            elsewhere.append((str(name), f"a link to {fields.get('resolved')!s}: index that "
                              "directory instead"))
            continue
        folder = key.rsplit(f"{NODE_MODULES}/", 1)[-1]
        if not (_below(key) and NAME.fullmatch(folder)
                and isinstance(name, str) and NAME.fullmatch(name)):
            raise UsageError(f"{path} is not a package-lock.json (a package without a plain "
                             f"name or place: {key!r})")
        if not (isinstance(version, str) and VERSION.fullmatch(version)):
            elsewhere.append((shown, "not from a registry (a git, file or URL dependency): "
                              "index its directory instead"))
            continue
        if (name, version) not in seen:
            seen.add((name, version))
            found.append(Locked(name, version, key, bool(fields.get("optional"))))
    return found, elsewhere


def _v1_entries(dependencies: dict[str, object]) -> Iterator[tuple[str, object]]:
    """lockfileVersion 1's nested `dependencies` as version 2's `node_modules/..` keys."""
    stack = [(f"{NODE_MODULES}/", dependencies)]
    while stack:
        prefix, level = stack.pop()
        for name, entry in level.items():
            key = prefix + str(name)
            yield key, entry
            nested = entry.get("dependencies") if isinstance(entry, dict) else None
            if isinstance(nested, dict):
                stack.append((f"{key}/{NODE_MODULES}/", nested))


def _below(key: str) -> bool:
    """An installed package's key that stays below the lock's directory."""
    return (not key.startswith("/") and "\\" not in key and ":" not in key
            and all(part not in ("", ".", "..") for part in key.split("/")))


def project_directory(lock: str) -> Path:
    """The directory a lock's keys are relative to: the lock's own, but for the hidden
    lock npm keeps in `node_modules/.package-lock.json`, whose keys start at the project."""
    where = Path(lock).absolute()
    if where.name == HIDDEN_LOCK and where.parent.name == NODE_MODULES:
        return where.parent.parent
    return where.resolve().parent


def locked_directory(lock: str, package: Locked) -> tuple[str, str]:
    """(the node_modules directory, the name in it) where `package` of `lock` is installed."""
    prefix, _, folder = package.key.rpartition(f"{NODE_MODULES}/")
    return str(project_directory(lock) / prefix / NODE_MODULES), folder


def lock_problem(lock: str, package: Locked, max_bytes: int) -> str | None:
    """Why `package` of `lock` can't be indexed from the node_modules beside the lock
    (not installed, at another version, a link out, no source), or None."""
    node_modules, folder = locked_directory(lock, package)
    directory = Path(node_modules) / folder
    if not (directory / "package.json").is_file():
        optional = "an optional dependency, " if package.optional else ""
        return f"{optional}not installed in node_modules (run `npm ci` beside the lock file first)"
    try:
        root = package_root(directory, project_directory(lock) / NODE_MODULES)
        installed = read_manifest(root)[1]
    except SourceError as exc:
        return exc.message
    if installed != package.version:
        return (f"node_modules holds {installed}, not the locked version (run `npm ci` beside "
                "the lock file first)")
    files, _ = source_files(root, max_bytes)
    return None if files else NO_SOURCES
