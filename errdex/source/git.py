"""The one way errdex runs `git`: every git process errdex starts is started here.

A tree errdex indexes is untrusted, and so is its `.git`: a repository's own config can
make git run programs (`core.fsmonitor`, `core.pager`, `gpg.program` with
`log.showSignature`, `diff.<driver>.textconv`, `filter.<driver>.*`, `diff.external`,
`core.sshCommand`, credential helpers, `include.path` pulling in any of these, ...), and
so can hooks. Rather than deny-list those keys (a list that is never complete), git
never reads that config at all: a local checkout is read through a scratch git
directory errdex writes itself (`HEAD` as the commit errdex read from the files, the
tags, `shallow`), with the checkout's objects and index named by `GIT_OBJECT_DIRECTORY`
and `GIT_INDEX_FILE`. Git reads those as data only. The checkout's config is parsed, if
at all, by `git config --file --no-includes`, which only reads.

Every process that reads a tree errdex did not make also ignores the system and user
config (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL`); a clone or fetch of a URL the user
named keeps them, for the user's credentials and URL rewrites. Every process is told
where its repository is (never discovered from the working directory), may use only
the plain transports (no `ext::`, no `fd::`), never prompts, never pages, runs no hooks
and has a time limit. Git's own first error line
becomes the one-line error the user sees.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from errdex.errors import SourceError

LOCAL_TIMEOUT = 120.0  # seconds: a command that reads a local repository
NETWORK_TIMEOUT = 600.0  # seconds: clone and fetch
MAX_CAUSE_CHARS = 300  # git's error line, as shown to the user
MAX_SMALL_FILE = 1_000_000  # HEAD, a loose ref, `.git` (a gitdir file), commondir, config
MAX_REFS_FILE = 64_000_000  # packed-refs, shallow
MAX_TAGS = 100_000  # tags copied into the scratch directory (for the history's releases)
MAX_REF_DEPTH = 5  # symbolic refs followed from HEAD
CACHE_SUBDIR = "git"  # where, under errdex's cache directory, git URLs are cloned
ALLOWED_PROTOCOLS = "file:git:http:https:ssh"  # `ext::` would run a command

# Belt and braces: errdex's own repositories and its scratch directories have no such
# config, and an indexed tree's system and user configs are not read; these hold even so.
_OVERRIDES = (
    "core.hooksPath=/dev/null", "core.fsmonitor=false", "core.pager=cat",
    "log.showSignature=false", "protocol.ext.allow=never", "submodule.recurse=false",
)
# Credentials come from the user's own config, read only for the URLs the user names.
_NO_CREDENTIALS = ("credential.helper=", "core.askPass=")
# The user's own ssh setup is trusted; every other GIT_* variable is dropped, so that an
# inherited GIT_DIR, GIT_CONFIG_COUNT or GIT_EXTERNAL_DIFF can't redirect or run anything.
_KEPT_FROM_USER = frozenset({"GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT"})
_SHA = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_UNSAFE_REF_NAME = re.compile(r"(^|/)\.|\.\.|[\x00-\x20\x7f~^:?*\[\\]|\.lock$|/$|@\{")
_SHA256_CONFIG = "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n"
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


class GitFailed(SourceError):
    """A git command ended with an error; `cause` is git's own first error line."""

    def __init__(self, command: str, cause: str) -> None:
        super().__init__(f"git {command} failed: {cause}")
        self.command = command
        self.cause = cause


def cause(stderr: bytes) -> str:
    """Git's first `fatal:`/`error:` line (else its last line), printable and short: the
    reason a user can act on, never the generic advice git prints after it."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    chosen = next((line for line in lines if line.startswith(("fatal:", "error:"))),
                  lines[-1] if lines else "no error message")
    return printable(re.sub(r"^(fatal|error):\s*", "", chosen))


def printable(text: str) -> str:
    """One short line with no control characters (a remote's text could move the cursor
    or clear the terminal)."""
    text = _CONTROL.sub("?", text)
    return text if len(text) <= MAX_CAUSE_CHARS else text[: MAX_CAUSE_CHARS - 1] + "…"


@dataclass(frozen=True)
class Git:
    """How to run git on one repository, named explicitly (never discovered).

    `git_dir` None is for `clone` only: it then runs in `cwd`, a fresh empty directory,
    with discovery stopped there. `user_config` is for the repositories errdex makes from
    a URL the user named (clone, fetch): there the user's own git config applies (their
    credential helpers, `url.<base>.insteadOf`, proxies), as in their own shell; a tree
    errdex only reads never gets it.
    """

    cwd: Path
    git_dir: Path | None = None
    work_tree: Path | None = None
    objects: Path | None = None
    index: Path | None = None
    user_config: bool = False

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("GIT_") or k in _KEPT_FROM_USER}
        if not self.user_config:
            env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_SYSTEM=os.devnull,
                       GIT_CONFIG_GLOBAL=os.devnull)
        env.update(
            GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true",
            GIT_PAGER="cat", PAGER="cat", GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS,
            GIT_NO_REPLACE_OBJECTS="1", GIT_OPTIONAL_LOCKS="0",
            GIT_NO_LAZY_FETCH="1", LC_ALL="C", LANGUAGE="C",
            GIT_CEILING_DIRECTORIES=str(self.cwd.resolve().parent),
        )
        if not env.get("GIT_SSH_COMMAND") and not env.get("GIT_SSH"):
            # ssh asks on the terminal (a host key, a passphrase) even without stdin.
            env["GIT_SSH_COMMAND"] = "ssh -o BatchMode=yes"
        for name, path in (("GIT_DIR", self.git_dir), ("GIT_WORK_TREE", self.work_tree),
                           ("GIT_OBJECT_DIRECTORY", self.objects),
                           ("GIT_INDEX_FILE", self.index)):
            if path is not None:
                env[name] = str(path)
        return env

    def command(self, args: Sequence[str]) -> list[str]:
        items = _OVERRIDES if self.user_config else (*_OVERRIDES, *_NO_CREDENTIALS)
        overrides = [part for item in items for part in ("-c", item)]
        return ["git", "--no-pager", *overrides, *args]

    def run(self, *args: str, timeout: float = LOCAL_TIMEOUT, stdin: bytes | None = None) -> bytes:
        """Its standard output; a `GitFailed` with git's cause when it fails."""
        try:
            done = subprocess.run(self.command(args), cwd=self.cwd, env=self.environment(),
                                  input=stdin, capture_output=True, timeout=timeout, check=False,
                                  stdin=None if stdin is not None else subprocess.DEVNULL)
        except FileNotFoundError:
            raise SourceError("git is not installed, and it is needed for this source") from None
        except subprocess.TimeoutExpired:
            raise GitFailed(args[0], f"no answer within {timeout:.0f}s") from None
        if done.returncode != 0:
            raise GitFailed(args[0], cause(done.stderr))
        return done.stdout

    def popen(self, *args: str) -> subprocess.Popen[bytes]:
        """A streaming command (the history's `git log -p`); the caller reads and ends it."""
        return subprocess.Popen(self.command(args), cwd=self.cwd, env=self.environment(),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)


# -- repositories errdex makes (git URLs) -------------------------------------------------


def own(work_tree: Path) -> Git:
    """A repository errdex created at `work_tree` (a clone, or an `init` to fetch into)."""
    return Git(cwd=work_tree, git_dir=work_tree / ".git", work_tree=work_tree, user_config=True)


def clone(url: str, target: Path, *, branch: str | None = None, depth: int | None = 1) -> None:
    """Clone `url` into the empty directory `target`: no hooks or templates, no
    submodules, only plain transports; the URL and the branch can't pass for options."""
    args = ["clone", "--quiet", "--template=", "--no-recurse-submodules"]
    if depth is not None:
        args.append(f"--depth={depth}")
    if branch is not None:
        args.append(f"--branch={branch}")
    scratch = Path(tempfile.mkdtemp(prefix="errdex-clone-"))
    try:
        Git(cwd=scratch, user_config=True).run(*args, "--", url, str(target),
                                               timeout=NETWORK_TIMEOUT)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def init(work_tree: Path, url: str) -> Git:
    """An empty repository of errdex's own at `work_tree`, with `url` as origin."""
    git = own(work_tree)
    git.run("init", "--quiet", "--template=")
    git.run("remote", "add", "origin", "--", url)
    return git


def commits_named(git: Git, prefix: str) -> list[str]:
    """Every commit whose full id starts with the hex `prefix` (`URL@<short sha>`)."""
    listed = git.run("rev-parse", f"--disambiguate={prefix.lower()}").split()
    if not listed:
        return []
    checked = git.run("cat-file", "--batch-check=%(objecttype) %(objectname)",
                      stdin=b"\n".join(listed) + b"\n")
    return sorted({line.split()[1].decode() for line in checked.splitlines()
                   if line.startswith(b"commit ")})


# -- local checkouts (untrusted) ------------------------------------------------------------


def read_file(path: Path, limit: int = MAX_SMALL_FILE) -> bytes | None:
    """A regular file's bytes, or None: never through a link as its last part, never
    waiting on a FIFO or device, never more than `limit` bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            data = handle.read(limit + 1)
        except OSError:
            return None
    return data if len(data) <= limit else None


@dataclass(frozen=True)
class Checkout:
    """A git checkout errdex did not make, read as files: its work tree, the git
    directory holding HEAD and the index, and the common one holding objects and refs."""

    root: Path
    git_dir: Path
    common_dir: Path
    head: str | None  # the commit HEAD names; None for an unborn or unreadable HEAD

    @contextmanager
    def session(self) -> Iterator[Git]:
        """Git on this checkout's objects and index, configured by errdex alone."""
        if self.head is None:
            raise SourceError(f"{self.root}: its HEAD names no commit")
        scratch = Path(tempfile.mkdtemp(prefix="errdex-git-"))
        try:
            (scratch / "refs").mkdir()
            (scratch / "objects").mkdir()
            (scratch / "HEAD").write_text(self.head + "\n")
            if len(self.head) == 64:
                (scratch / "config").write_text(_SHA256_CONFIG)
            shallow = read_file(self.common_dir / "shallow", MAX_REFS_FILE)
            if shallow:
                (scratch / "shallow").write_bytes(shallow)  # a shallow clone's history ends there
            tags = self.tags()
            if tags:
                (scratch / "packed-refs").write_text(
                    "".join(f"{sha} {name}\n" for name, sha in sorted(tags.items())))
            index = self.git_dir / "index"
            yield Git(cwd=scratch, git_dir=scratch, work_tree=self.root,
                      objects=self.common_dir / "objects",
                      index=index if _is_regular(index) else None)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def tags(self) -> dict[str, str]:
        """refs/tags/* -> commit or tag object, from the loose refs and packed-refs."""
        found: dict[str, str] = {}
        packed = read_file(self.common_dir / "packed-refs", MAX_REFS_FILE) or b""
        for line in packed.splitlines():
            sha, _, name = line.partition(b" ")
            if name.startswith(b"refs/tags/") and _SHA.fullmatch(sha):
                _add_ref(found, name.decode("utf-8", "replace"), sha.decode())
        top = self.common_dir / "refs" / "tags"
        for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
            dirnames.sort()
            for filename in sorted(filenames):
                path = Path(dirpath) / filename
                data = (read_file(path) or b"").strip()
                if _SHA.fullmatch(data):
                    ref = "refs/" + path.relative_to(top.parent).as_posix()
                    _add_ref(found, ref, data.decode())
            if len(found) >= MAX_TAGS:
                break
        return dict(list(found.items())[:MAX_TAGS])

    def tracked_files(self, git: Git) -> list[bytes]:
        """The index's paths as git stores them (bytes: a name need not be UTF-8); the
        commit's tree when the index can't be read."""
        listed = None
        if git.index is not None:
            try:
                listed = git.run("ls-files", "-z")
            except GitFailed:
                listed = None  # e.g. a split index, whose shared part is not copied
        if listed is None:
            listed = git.run("ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD")
        return [path for path in listed.split(b"\0") if path]

    def tag_at_head(self, git: Git) -> str | None:
        """The tag naming HEAD's commit (the highest version when several do), or None:
        a checkout at a release is indexed as that version."""
        try:
            out = git.run("tag", "--points-at", "HEAD", "--sort=-version:refname")
        except GitFailed:
            return None
        names = out.decode("utf-8", "replace").split()
        return names[0] if names else None

    def commit_date(self, git: Git) -> str | None:
        out = git.run("log", "-1", "--no-show-signature", "--format=%cI", "HEAD")
        return out.decode("utf-8", "replace").strip() or None

    def origin_url(self, git: Git) -> str | None:
        """`remote.origin.url` of the checkout's config, parsed by git without its
        includes (a copy is parsed: the file itself may be a FIFO or huge)."""
        data = read_file(self.common_dir / "config")
        if not data or git.git_dir is None:
            return None
        copy = git.git_dir / "checkout.config"
        copy.write_bytes(data)
        try:
            out = git.run("config", "--file", str(copy), "--no-includes", "--get",
                          "remote.origin.url")
        except GitFailed:
            return None
        return out.decode("utf-8", "replace").strip() or None


def _is_regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except OSError:
        return False


def _add_ref(found: dict[str, str], name: str, sha: str) -> None:
    if len(found) < MAX_TAGS and not _UNSAFE_REF_NAME.search(name[len("refs/"):]):
        found[name] = sha


def find_checkout(root: Path) -> Checkout | None:
    """The checkout whose work tree is `root` (its `.git` a directory, or a file naming
    one, as worktrees and submodules have); None when `root` has no `.git` of its own.
    A `.git` that is a symbolic link is not followed."""
    dot = root / ".git"
    if dot.is_symlink() or not dot.exists():
        return None
    if dot.is_dir():
        git_dir = dot
    else:
        data = read_file(dot) or b""
        text = data.decode("utf-8", "replace").strip()
        if not text.startswith("gitdir:"):
            return None
        git_dir = (root / text[len("gitdir:"):].strip()).resolve()
        if not git_dir.is_dir():
            return None
    common_dir = git_dir
    named = (read_file(git_dir / "commondir") or b"").decode("utf-8", "replace").strip()
    if named:
        common_dir = (git_dir / named).resolve()
    return Checkout(root=root, git_dir=git_dir, common_dir=common_dir,
                    head=_resolve_ref(git_dir, common_dir, "HEAD"))


def _resolve_ref(git_dir: Path, common_dir: Path, name: str) -> str | None:
    """The object a ref names, reading HEAD, loose refs and packed-refs as files."""
    for _ in range(MAX_REF_DEPTH):
        if name != "HEAD" and (not name.startswith("refs/")
                               or _UNSAFE_REF_NAME.search(name[len("refs/"):])):
            return None
        base = git_dir if name == "HEAD" else common_dir
        data = (read_file(base / name) or b"").strip()
        if not data and name != "HEAD":
            data = _packed(common_dir, name) or b""
        if _SHA.fullmatch(data):
            return data.decode()
        if not data.startswith(b"ref:"):
            return None
        name = data[4:].strip().decode("utf-8", "replace")
    return None


def _packed(common_dir: Path, name: str) -> bytes | None:
    wanted = name.encode()
    for line in (read_file(common_dir / "packed-refs", MAX_REFS_FILE) or b"").splitlines():
        sha, _, ref = line.partition(b" ")
        if ref == wanted and _SHA.fullmatch(sha):
            return sha
    return None
