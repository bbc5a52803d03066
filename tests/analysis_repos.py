"""Git repositories built from the analysis fixtures, commit by commit, in a temporary
directory: the history facts need real commits, tags and dates."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures"
RUST_VERSIONS = ("v1", "v2", "v3")


def git(root: Path, *args: str, date: str = "2024-01-01T12:00:00+00:00") -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout.strip()


def init(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")


def commit(root: Path, message: str, date: str, tag: str | None = None) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, date=date)
    if tag:
        git(root, "tag", tag)
    return git(root, "rev-parse", "HEAD")


def rust_version(root: Path, version: str) -> None:
    """Put version `version` of the Rust fixture's sources into the work tree."""
    shutil.rmtree(root / "src", ignore_errors=True)
    shutil.copytree(FIXTURES / "analysis_rust" / version / "src", root / "src")
    if version != "v1":
        shutil.copytree(FIXTURES / "analysis_rust" / "tests", root / "tests", dirs_exist_ok=True)


def python_repo(root: Path) -> str:
    init(root)
    shutil.copytree(FIXTURES / "analysis_python", root, dirs_exist_ok=True)
    return commit(root, "loader", "2024-03-01T10:00:00+00:00", tag="py-1.0")
