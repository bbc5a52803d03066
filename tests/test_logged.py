"""Logged messages are errors users paste too: Python's `log.warning(fmt, *args)` /
`logger.error` / `.exception` / `.critical` (the format filled by the arguments after
it, `%` style) and Rust's `log`/`tracing` `warn!`/`error!` are sites, and a log line
with its timestamp, level and logger name finds its record through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

POOL = '''\
import logging

log = logging.getLogger(__name__)


def urlopen(url, retries, err):
    if retries:
        log.warning("Retrying (%r) after connection broken by '%r': %s", retries, err, url)
    log.debug("not an error %s", url)
    logging.error(f"pool for {url} is closed")
'''

NET = """\
pub fn connect(addr: &str, tries: usize) {
    if tries > 3 {
        log::error!("giving up on {addr} after {tries} tries");
    }
    tracing::warn!("slow connect to {}", addr);
}
"""


def _errdex(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    errdex = Path(sys.executable).parent / "errdex"
    return subprocess.run([str(errdex), *args], input=stdin, capture_output=True, text=True,
                          check=False)  # fmt: skip


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("logged") / "repo"
    (root / "pool").mkdir(parents=True)
    (root / "pool" / "conn.py").write_text(POOL)
    (root / "net" / "src").mkdir(parents=True)
    (root / "net" / "src" / "lib.rs").write_text(NET)
    path = str(root.parent / "logged.sqlite")
    done = _errdex("--db", path, "index", str(root), "--repo", "t/logged")
    assert done.returncode == 0, done.stderr
    return path


def test_logged_messages_are_records(db: str) -> None:
    listed = json.loads(_errdex("--db", db, "list", "--json").stdout)
    kinds = {row["message"]: row["kind"] for row in listed}
    assert kinds == {
        "Retrying (%r) after connection broken by '%r': %s": "warn",
        "pool for {url} is closed": "log",
        "giving up on {addr} after {tries} tries": "log",
        "slow connect to {}": "warn",
    }  # `log.debug` is not an error


@pytest.mark.parametrize(("line", "message"), [
    ("2024-05-01 10:00:00,123 WARNING pool.conn Retrying (Retry(total=2, connect=None)) after "
     "connection broken by 'NewConnectionError(\"refused\")': /v1/items",
     "Retrying (%r) after connection broken by '%r': %s"),
    ("[2024-05-01T10:00:00Z ERROR net] giving up on 10.0.0.1:80 after 4 tries",
     "giving up on {addr} after {tries} tries"),
])
def test_a_log_line_finds_its_record(db: str, line: str, message: str) -> None:
    done = _errdex("--db", db, "explain", "--json", "-", stdin=line + "\n")
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["matches"][0]
    assert first["record"]["message"] == message
