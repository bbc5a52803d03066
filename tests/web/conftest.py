"""One indexed database, one live server and one exported site per test session.

The database holds a small repository written here (`acme/widgets`, with a message that
contains `<script>`) and the installed `packaging` distribution. The server is the real
`errdex serve` in a subprocess on 127.0.0.1; the export is the real `errdex export`.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

WIDGETS = '''\
class Widget:
    max_height = 100

    def resize(self, width, height):
        if width <= 0:
            raise ValueError(f"widget width must be positive, got {width}")
        if height > self.max_height:
            raise ValueError(f"widget height {height} exceeds the maximum {self.max_height}")
        self.size = (width, height)

    def render(self, tag):
        if tag == "script":
            raise ValueError("refusing to render <script>alert(1)</script> tags in a widget")
        return tag
'''

COMMIT = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c"
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


@dataclass(frozen=True)
class Served:
    db: Path
    url: str
    site: Path


def _errdex(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "errdex", *args], capture_output=True,
                          text=True, timeout=300, check=False)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@pytest.fixture(scope="session")
def web_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("web")
    repo = root / "widgets"
    (repo / "widgets").mkdir(parents=True)
    (repo / "widgets" / "__init__.py").write_text("")
    (repo / "widgets" / "core.py").write_text(WIDGETS)
    db = root / "errdex.sqlite"
    widgets = ("index", str(repo), "--repo", "acme/widgets", "--commit", COMMIT)
    for args in (widgets, ("index", "py:packaging")):
        done = _errdex("--db", str(db), *args)
        assert done.returncode == 0, done.stderr
    return db


@pytest.fixture(scope="session")
def served(web_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "errdex", "--db", str(web_db), "serve", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            if proc.poll() is not None:
                raise RuntimeError(f"errdex serve exited: {proc.stderr.read()!r}")  # type: ignore[union-attr]
            try:
                httpx.get(url + "/api/repos", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.1)
        site = tmp_path_factory.mktemp("export") / "site"
        done = _errdex("--db", str(web_db), "export", str(site))
        assert done.returncode == 0, done.stderr
        yield Served(db=web_db, url=url, site=site)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
