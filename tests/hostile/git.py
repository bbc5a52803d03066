"""Hostile sources for git and the other sources: checkouts whose `.git` tries to make git
run a program, refs and URLs that try to pass for options, Python modules planted where an
interpreter might import them, names that are not UTF-8, and broken `errdex.toml` files.

Every builder makes real files (real git repositories, via the `git` on PATH with the
machine's own git config ignored) under the directory it is given. `cases(tmp)` returns
them as `Case`s; `tests/test_safety_git.py` asserts each in detail.
"""

from __future__ import annotations

import os
import pty
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.hostile import Case

# Messages of the planted library; the first is added in the first commit, the second in
# the second, so the history pass has something to find.
FIRST_MESSAGE = "the cache size must be a positive number"
SECOND_MESSAGE = "the retry count must not be negative"
THIRD_MESSAGE = "the timeout must be given in whole seconds"
CUSTOM_MESSAGE = "only a custom rule finds this message"
DATE = "2024-01-0{day}T12:00:00+00:00"
CONFIG_FILE = "errdex.toml"

_GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def git(repo: Path, *args: str, stdin: bytes | None = None, day: int = 1,
        tty: bool = False) -> bytes:
    """Plain git, as a user would run it in that repository (its config is honoured):
    what the builders use, and what the tests use to prove a planted hazard is live.
    `tty`: its output goes to a terminal (a pseudo-terminal), as a pager needs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(_GIT_ENV, GIT_AUTHOR_DATE=DATE.format(day=day),
               GIT_COMMITTER_DATE=DATE.format(day=day))
    command = ["git", "-C", str(repo), "-c", "init.defaultBranch=main",
               "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", *args]
    if tty:
        leader, follower = pty.openpty()
        try:
            subprocess.run(command, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
                           env=env, timeout=60, check=True)
        finally:
            os.close(follower)
            os.close(leader)
        return b""
    done = subprocess.run(command, input=stdin, capture_output=True, env=env, timeout=60,
                          check=True)
    return done.stdout


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for relative, content in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    return root


def library_repo(root: Path) -> list[str]:
    """A small Python library with three commits (a message added in each) and a tag on
    the first; the commits' full ids, oldest first."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet")
    shas = []
    body = ""
    for day, message in enumerate((FIRST_MESSAGE, SECOND_MESSAGE, THIRD_MESSAGE), 1):
        body += f"def check_{day}(v):\n    if not v:\n        raise ValueError({message!r})\n"
        write(root, {"lib/core.py": body})
        git(root, "add", "-A")
        git(root, "commit", "--quiet", "-m", f"add message {day}", day=day)
        shas.append(git(root, "rev-parse", "HEAD").decode().strip())
        if day == 1:
            git(root, "tag", "v1")
    return shas


def many_commits(root: Path, count: int) -> list[str]:
    """A repository of `count` commits (one `git fast-import`: fast), deterministic, so
    some of their ids share their first four hex digits; the ids, oldest first."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "--quiet")
    stream = []
    for number in range(1, count + 1):
        body = f"raise ValueError('message number {number}')\n".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"committer t <t@example.invalid> {1704110400 + number} +0000\n".encode())
        stream.append(b"data 1\nc\n")
        stream.append(f"M 100644 inline lib/m{number % 7}.py\ndata {len(body)}\n".encode())
        stream.append(body + b"\n")
    git(root, "fast-import", "--quiet", stdin=b"".join(stream))
    git(root, "reset", "--quiet", "--hard", "main")
    return git(root, "rev-list", "--reverse", "main").decode().split()


def marker_script(path: Path, marker: Path) -> Path:
    """An executable that leaves `marker` behind, then passes its first argument's file
    through (so it also works as a textconv)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    marker.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat \"$1\" 2>/dev/null\nexit 0\n")
    path.chmod(0o755)
    return path


@dataclass(frozen=True)
class Hazard:
    """One way a checkout's `.git` makes git run a program: `plant` puts it in a
    repository; `trigger` is a plain git command that does run it (None when errdex's
    commands have no plain-git counterpart that would), to prove it is live."""

    name: str
    plant: Callable[[Path, Path], None]  # (repository, script that leaves the marker)
    trigger: tuple[str, ...] | None
    trigger_stdin: bytes | None = None
    trigger_tty: bool = False  # the trigger's output must be a terminal (a pager)


def _config(repo: Path, *pairs: str) -> None:
    for pair in pairs:
        key, _, value = pair.partition("=")
        git(repo, "config", key, value)


def _commit_attributes(repo: Path, line: str) -> None:
    write(repo, {".gitattributes": line + "\n"})
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "--quiet", "-m", "attributes", day=4)


def _plant_fsmonitor(repo: Path, script: Path) -> None:
    _config(repo, f"core.fsmonitor={script}")


def _plant_hooks(repo: Path, script: Path) -> None:
    names = ("post-checkout", "post-index-change", "reference-transaction", "pre-commit",
             "post-merge", "pre-auto-gc", "post-rewrite", "fsmonitor-watchman", "pre-push",
             "push-to-checkout", "post-update", "pre-receive", "pre-upload-pack")
    # In .git/hooks, and in a second directory that core.hooksPath names.
    for hooks in (repo / ".git" / "hooks", repo / "elsewhere-hooks"):
        hooks.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy(script, hooks / name)
            (hooks / name).chmod(0o755)
    _config(repo, f"core.hooksPath={repo / 'elsewhere-hooks'}")


def _plant_signature(repo: Path, script: Path) -> None:
    """A signed HEAD (a `gpgsig` header written by hand: no gpg needed), a program to
    check it, and `log.showSignature` so that every `git log` asks."""
    raw = git(repo, "cat-file", "commit", "HEAD")
    head, _, message = raw.partition(b"\n\n")
    signature = (b"gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n"
                 b" -----END PGP SIGNATURE-----")
    signed = head + b"\n" + signature + b"\n\n" + message
    sha = git(repo, "hash-object", "-t", "commit", "-w", "--stdin", stdin=signed).strip()
    git(repo, "update-ref", "HEAD", sha.decode())
    _config(repo, f"gpg.program={script}", "log.showSignature=true",
            f"gpg.ssh.program={script}", f"gpg.x509.program={script}")


def _plant_textconv(repo: Path, script: Path) -> None:
    _commit_attributes(repo, "*.py diff=hostile")
    _config(repo, f"diff.hostile.textconv={script}", f"diff.hostile.command={script}")


def _plant_filter(repo: Path, script: Path) -> None:
    _commit_attributes(repo, "*.py filter=hostile")
    _config(repo, f"filter.hostile.clean={script}", f"filter.hostile.smudge={script}",
            "filter.hostile.required=true")


def _plant_external_diff(repo: Path, script: Path) -> None:
    _config(repo, f"diff.external={script}")


def _plant_pager(repo: Path, script: Path) -> None:
    _config(repo, f"core.pager={script}", f"pager.log={script}", "pager.ls-files=true")


def _plant_credential(repo: Path, script: Path) -> None:
    _config(repo, f"credential.helper=!{script}", f"core.askPass={script}")


def _plant_ssh(repo: Path, script: Path) -> None:
    _config(repo, f"core.sshCommand={script}", f"core.gitProxy={script}",
            f"core.alternateRefsCommand={script}", f"uploadpack.packObjectsHook={script}",
            "protocol.ext.allow=always", "remote.origin.url=ext::sh -c true",
            f"remote.origin.uploadpack={script}", f"remote.origin.receivepack={script}")


def _plant_include(repo: Path, script: Path) -> None:
    """The hazard lives in another file that the repository's config includes."""
    included = repo / "included.config"
    included.write_text(f"[core]\n\tfsmonitor = {script}\n[log]\n\tshowSignature = true\n"
                        f"[gpg]\n\tprogram = {script}\n")
    _config(repo, f"include.path={included}", f"includeIf.gitdir:/.path={included}")


HAZARDS = (
    Hazard("fsmonitor", _plant_fsmonitor, ("ls-files",)),
    Hazard("hooks", _plant_hooks, ("checkout", "--quiet", "--detach")),
    Hazard("signature", _plant_signature, ("log", "-1")),
    Hazard("textconv", _plant_textconv, ("log", "-p", "-1", "HEAD~1")),
    Hazard("filter", _plant_filter, ("cat-file", "--filters", "HEAD:lib/core.py")),
    Hazard("external-diff", _plant_external_diff, ("diff", "HEAD~1", "HEAD")),
    Hazard("pager", _plant_pager, ("log", "-1"), trigger_tty=True),
    Hazard("credential", _plant_credential, ("credential", "fill"),
           b"protocol=https\nhost=example.invalid\n\n"),
    Hazard("ssh", _plant_ssh, ("ls-remote", "ssh://example.invalid/x")),
    Hazard("include", _plant_include, ("ls-files",)),
)


def hostile_checkout(root: Path, hazard: Hazard, markers: Path) -> Path:
    """A real library repository with history and `hazard` planted; its marker."""
    library_repo(root)
    marker = markers / hazard.name
    hazard.plant(root, marker_script(markers / f"{hazard.name}.sh", marker))
    marker.unlink(missing_ok=True)  # planting may commit, and so trip the hazards before it
    return marker


def everything_checkout(root: Path, markers: Path) -> list[Path]:
    """One repository with every hazard planted at once (each with its own marker)."""
    library_repo(root)
    found = []
    for hazard in HAZARDS:
        marker = markers / hazard.name
        hazard.plant(root, marker_script(markers / f"{hazard.name}.sh", marker))
        found.append(marker)
    for marker in found:
        marker.unlink(missing_ok=True)  # planting may commit, and so trip the hazards before it
    return found


def executable_tree(root: Path, markers: Path) -> list[Path]:
    """Files that run code when a build, a test run or an interpreter starts: setup.py,
    conftest.py, build.rs, sitecustomize.py, usercustomize.py, a .pth file, a package
    `__init__.py`, each leaving its own marker if it ever ran."""
    found = []

    def python(name: str) -> str:
        marker = markers / name.replace("/", "_")
        found.append(marker)
        return (f"open({str(marker)!r}, 'w').close()\n"
                f"raise ValueError('the {name.replace('/', ' ')} file was imported')\n")

    build = markers / "build.rs"
    found.append(build)
    write(root, {
        "setup.py": python("setup.py"),
        "conftest.py": python("conftest.py"),
        "lib/conftest.py": python("lib/conftest.py"),
        "sitecustomize.py": python("sitecustomize.py"),
        "usercustomize.py": python("usercustomize.py"),
        "lib/__init__.py": python("lib/__init__.py"),
        "lib/core.py": f"def check(v):\n    if v:\n        raise ValueError({FIRST_MESSAGE!r})\n",
        "hostile.pth": f"import os; open({str(markers / 'hostile.pth')!r}, 'w').close()\n",
        "build.rs": f'fn main() {{ std::fs::write("{build}", "").unwrap(); '
                    'panic!("the build script ran at all"); }\n',
        "Cargo.toml": '[package]\nname = "hostile"\nversion = "0.1.0"\nbuild = "build.rs"\n',
    })
    found.append(markers / "hostile.pth")
    return found


def planted_json(where: Path, marker: Path) -> Path:
    """A `json.py` that leaves `marker` when imported (and then breaks `json.dumps`)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\n"
                                   "def dumps(*a, **k):\n    return 'planted'\n")
    return where


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def non_utf8_tree(root: Path) -> Path:
    """A tree with one good file and files whose names (or whose directory's name) are
    not UTF-8."""
    root.mkdir(parents=True, exist_ok=True)
    write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n"})
    base = os.fsencode(root)
    for name in (b"lib/bad\xff.py", b"lib/d\xfe\xfe/x.py"):
        path = base + b"/" + name
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(b"raise ValueError('a message in a file with a bad name')\n")
    return root


def non_utf8_checkout(root: Path) -> Path:
    non_utf8_tree(root)
    git(root, "init", "--quiet")
    git(root, "add", "-A")
    git(root, "commit", "--quiet", "-m", "names")
    return root


def special_files_tree(root: Path) -> Path:
    """FIFOs and a socket named like source and test files: opening a FIFO would wait
    forever (the source walk and the test-file reader both used to open them)."""
    write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n"})
    os.mkfifo(root / "lib" / "pipe.py")
    (root / "tests").mkdir()
    os.mkfifo(root / "tests" / "test_pipe.py")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(root / "lib" / "sock.py"))
    return root


def deep_tree(root: Path, depth: int) -> Path:
    """A file `depth` directories down (made one level at a time: no path too long)."""
    root.mkdir(parents=True, exist_ok=True)
    write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n"})
    here = os.open(root, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=here)
            below = os.open("d", os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = below
        fd = os.open("deep.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(fd, b"raise ValueError('a message far down the tree')\n")
        os.close(fd)
    finally:
        os.close(here)
    return root


def remove_deep_tree(root: Path) -> None:
    """Remove a tree made by `deep_tree` bottom-up, one level at a time: shutil.rmtree
    (and so pytest's own clean-up of old temporary directories) recurses per level."""
    if not root.exists():
        return
    fds = [os.open(root, os.O_RDONLY)]
    try:
        while True:
            try:
                fds.append(os.open("d", os.O_RDONLY, dir_fd=fds[-1]))
            except FileNotFoundError:
                break
        for level in range(len(fds) - 1, -1, -1):
            for name in os.listdir(fds[level]):
                if name == "d":
                    continue
                if level == 0:
                    shutil.rmtree(root / name)  # the shallow rest of the tree
                else:
                    os.unlink(name, dir_fd=fds[level])
            if level:
                os.close(fds.pop())
                os.rmdir("d", dir_fd=fds[-1])
    finally:
        for fd in fds:
            os.close(fd)
    os.rmdir(root)


# Broken errdex.toml files: (name, content, a word the one-line error must contain).
BAD_CONFIGS: tuple[tuple[str, bytes, str], ...] = (
    ("not-toml", b"this is = = not toml\n", "not valid TOML"),
    ("top-level-not-table", b"python = 3\n", "[python] must be a table"),
    ("unknown-section", b"[golang]\nrules = []\n", "unknown section [golang]"),
    ("unknown-key", b"[python]\nrulez = []\n", "unknown key 'rulez'"),
    ("rules-not-list", b'[python]\nrules = "raise"\n', "must be an array of tables"),
    ("rule-not-table", b"[python]\nrules = [1, 2]\n", "rule 1 must be a table"),
    ("missing-name", b'[[python.rules]]\nform = "call"\n', "has no 'name'"),
    ("extra-field", b'[[python.rules]]\nname = "x"\nform = "call"\ncolour = "red"\n',
     "unknown field 'colour'"),
    ("name-not-string", b'[[python.rules]]\nname = 3\nform = "call"\n',
     "'name' must be a non-empty string"),
    ("arg-not-int", b'[[python.rules]]\nname = "x"\nform = "call"\nmessage_arg = "1"\n',
     "'message_arg' must be an integer"),
    ("arg-bool", b'[[python.rules]]\nname = "x"\nform = "call"\nmessage_arg = true\n',
     "'message_arg' must be an integer"),
    ("arg-huge", b'[[python.rules]]\nname = "x"\nform = "call"\nguard_arg = 99999999999\n',
     "'guard_arg' must be between 0 and"),
    ("unknown-form", b'[[python.rules]]\nname = "x"\nform = "spell"\n', "form 'spell'"),
    ("unknown-kind", b'[[python.rules]]\nname = "x"\nform = "call"\nkind = "explode"\n',
     "kind 'explode'"),
    ("not-utf8", b'[[python.rules]]\nname = "\xff\xfe"\nform = "call"\n', "not UTF-8"),
    ("huge", b"# padding\n" * 120_000, "larger than"),
    ("nested", b"x = " + b"[" * 50_000, "nested too deeply"),
    ("too-many-rules", b'[[python.rules]]\nname = "x"\nform = "call"\n' * 1_500,
     "at most"),
)


def config_tree(root: Path, config: bytes) -> Path:
    return write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n",
                        CONFIG_FILE: config})


def linked_config_tree(root: Path, outside: Path) -> Path:
    """A tree whose errdex.toml links to a file out of it; that file adds a rule that
    would find CUSTOM_MESSAGE, so reading it shows in the records."""
    write(outside, {CONFIG_FILE: '[[python.rules]]\nname = "complain"\nform = "call"\n'
                                 'kind = "raise"\n'})
    write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n"
                                f"complain({CUSTOM_MESSAGE!r})\n"})
    (root / CONFIG_FILE).symlink_to(outside / CONFIG_FILE)
    return root


def fifo_config_tree(root: Path) -> Path:
    """An errdex.toml that is a FIFO: reading it would wait forever."""
    write(root, {"lib/core.py": f"raise ValueError({FIRST_MESSAGE!r})\n"})
    os.mkfifo(root / CONFIG_FILE)
    return root


def _index(*sources: str, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    return ("--db", "{db}", "index", *extra, *sources)


def injection_cases(tmp: Path) -> list[Case]:
    """Refs and URLs that try to pass for git options or commands (item 3)."""
    markers = tmp / "markers"
    markers.mkdir(parents=True, exist_ok=True)
    cache = _cache_env(tmp)
    library = tmp / "injection-library"
    library_repo(library)
    url = f"file://{library}"
    inject = markers / "injected"
    with_marker = {**cache, "ERRDEX_M": str(inject)}
    return [
        Case("ref-upload-pack", _index(f"{url}@--upload-pack=touch {inject}"),
             markers=(inject,), exits=(2,), env=cache),
        Case("ref-upload-pack-no-slash", _index(f"{url}@--upload-pack=touch${{IFS}}$ERRDEX_M"),
             markers=(inject,), exits=(2,), env=with_marker),
        Case("ref-dash", _index(f"{url}@-b"), markers=(inject,), exits=(2,), env=cache),
        Case("url-ext", _index(f"ext::sh -c touch% {inject}"), markers=(inject,), exits=(2,),
             env=cache),
        Case("url-dash", ("--db", "{db}", "index", "--", f"--upload-pack=touch {inject}"),
             markers=(inject,), exits=(2,), env=cache),
        # ssh would run a ProxyCommand through a shell: ${IFS} and $ERRDEX_M expand there.
        Case("url-ssh-dash-host", _index("ssh://-oProxyCommand=touch${IFS}$ERRDEX_M/x"),
             markers=(inject,), exits=(2,), env=with_marker),
        Case("url-scp-dash-host", _index("git@-oProxyCommand=touch${IFS}$ERRDEX_M:x"),
             markers=(inject,), exits=(2,), env=with_marker),
    ]


def _cache_env(tmp: Path) -> dict[str, str]:
    """Clones go under `tmp`; 127.0.0.1 is never reached through a proxy."""
    return {"ERRDEX_CACHE_DIR": str(tmp / "cache"), "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost"}


def cases(tmp: Path) -> list[Case]:
    """Every hostile input of this area, built under `tmp`."""
    tmp.mkdir(parents=True, exist_ok=True)
    markers = tmp / "markers"
    markers.mkdir(exist_ok=True)
    cache = _cache_env(tmp)
    out: list[Case] = []
    # 1. a checkout's .git never makes git run anything (each hazard, then all at once,
    # then all in the source of a file:// clone).
    for hazard in HAZARDS:
        repo = tmp / f"checkout-{hazard.name}"
        marker = hostile_checkout(repo, hazard, markers)
        out.append(Case(f"git-{hazard.name}", _index(str(repo)), markers=(marker,)))
    every = tmp / "checkout-everything"
    planted = everything_checkout(every, tmp / "markers-everything")
    out.append(Case("git-everything", _index(str(every)), markers=tuple(planted)))
    source = tmp / "source-everything"
    planted = everything_checkout(source, tmp / "markers-source")
    out.append(Case("git-url-everything", _index(f"file://{source}"), markers=tuple(planted),
                    env=cache))
    # 2. --python: a json.py planted in the temporary directory is never imported.
    planted_dir = planted_json(tmp / "planted-tmp", markers / "json-imported")
    python_env = {"TMPDIR": str(planted_dir)}
    out.append(Case("python-dist-isolated",
                    _index("py:packaging", extra=("--python", sys.executable)),
                    markers=(markers / "json-imported",), env=python_env))
    # errdex resolves every source before indexing any: the stdlib's interpreter is asked,
    # then the bad second source ends the run quickly (indexing the stdlib takes long).
    out.append(Case("python-stdlib-isolated",
                    _index("py:stdlib", "py:", extra=("--python", sys.executable)),
                    markers=(markers / "json-imported",), exits=(2,), env=python_env))
    # 3. files that run code elsewhere, as a directory and as a checkout with hooks;
    # refs and URLs that try to be options or commands.
    tree = tmp / "executable-tree"
    found = executable_tree(tree, markers / "tree")
    out.append(Case("tree-runs-nothing", _index(str(tree)), markers=tuple(found)))
    checkout = tmp / "executable-checkout"
    found = executable_tree(checkout, markers / "tree-checkout")
    git(checkout, "init", "--quiet")
    git(checkout, "add", "-A")
    git(checkout, "commit", "--quiet", "-m", "files")
    hook_marker = markers / "tree-checkout" / "hook"
    _plant_hooks(checkout, marker_script(markers / "tree-hook.sh", hook_marker))
    out.append(Case("checkout-runs-nothing", _index(str(checkout)),
                    markers=(*found, hook_marker)))
    out += injection_cases(tmp)
    library = tmp / "library"
    shas = library_repo(library)
    url = f"file://{library}"
    # 4. URL@<short sha>: the commit it names, or a one-line refusal.
    out += [
        Case("short-sha", _index(f"{url}@{shas[0][:9]}"), env=cache),
        Case("short-sha-missing", _index(f"{url}@{'0' * 9}"), exits=(2,), env=cache),
    ]
    # 5. git's own cause, for a refused connection and a missing ref.
    refused = f"http://127.0.0.1:{closed_port()}/x.git"
    out += [
        Case("refused", _index(refused), exits=(2,), env=cache),
        Case("refused-ref", _index(f"{refused}@v1"), exits=(2,), env=cache),
        Case("refused-sha", _index(f"{refused}@{shas[0][:9]}"), exits=(2,), env=cache),
        Case("missing-ref", _index(f"{url}@nope"), exits=(2,), env=cache),
    ]
    # 6. names that are not UTF-8.
    out.append(Case("names-not-utf8-dir", _index(str(non_utf8_tree(tmp / "bad-names")))))
    out.append(Case("names-not-utf8-git", _index(str(non_utf8_checkout(tmp / "bad-names-git")))))
    out.append(Case("special-files", _index(str(special_files_tree(tmp / "special-files")))))
    # 7. errdex.toml: broken shapes, a link out of the tree, a FIFO.
    for name, content, _ in BAD_CONFIGS:
        root = config_tree(tmp / f"config-{name}", content)
        out.append(Case(f"config-{name}", _index(str(root)), exits=(2,)))
    linked = linked_config_tree(tmp / "config-linked", tmp / "config-outside")
    out.append(Case("config-symlink", _index(str(linked))))
    out.append(Case("config-fifo", _index(str(fifo_config_tree(tmp / "config-fifo")))))
    return out
