"""`errdex scan`: every known error in a log, with line numbers, counts and first/last
seen; JSON-lines logs; lines split across reads; a line longer than memory allows; a
1 GB log streamed in bounded memory; and the command as a user runs it."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from errdex.match import Matcher
from errdex.match.scan import KEEP_LINES, MAX_LINE, MESSAGE_FIELDS, Scanner, scan_stream
from errdex.serve.cli import main
from tests.test_match import BINARY, DTYPE, KV, entry

SHAPE = entry("shape", "shape mismatch k {k|:?} and v {v|:?}")
LOADING = entry("loading", "cannot load weights from {path}")
INVALID = entry("invalid", "invalid value {value|%d} for option {name|!r}", "ValueError")

LOG = (
    "2024-05-01 10:00:00 INFO app: starting\n"
    "2024-05-01 10:00:01 ERROR app: shape mismatch k [2, 16] and v [2, 32]\n"
    "2024-05-01 10:00:02 INFO app: request 1 served\n"
    '{"time": "2024-05-01T10:00:03", "level": "error", '
    '"msg": "cannot load weights from /m/a.bin"}\n'
    "2024-05-01 10:00:04 WARNING app: invalid value x for option 'n'\n"  # %d rejects x
    "2024-05-01 10:00:05 ERROR app: ValueError: invalid value 7 for option 'n'\n"
    "2024-05-01 10:00:06 ERROR app: shape mismatch k [1] and v [3]\n"
    '{"time": "2024-05-01T10:00:07", "msg": "nothing to see"}\n'
    "{not json, but cannot load weights from /m/b.bin\n"
)


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher([SHAPE, LOADING, INVALID])


def test_reports_each_record_with_lines_counts_and_times(matcher: Matcher) -> None:
    report = scan_stream(matcher, io.BytesIO(LOG.encode()))
    assert report.stats.lines == 9
    shape = report.records["shape"]
    assert (shape.count, shape.first_line, shape.last_line, shape.lines) == (2, 2, 7, [2, 7])
    assert (shape.first_seen, shape.last_seen) == ("2024-05-01 10:00:01", "2024-05-01 10:00:06")
    assert dict(shape.values) == {"k": "[2, 16]", "v": "[2, 32]"}
    loading = report.records["loading"]
    assert (loading.count, loading.lines) == (2, [4, 9])  # a JSON line and a plain one
    assert loading.first_seen == "2024-05-01T10:00:03"
    assert dict(loading.values) == {"path": "/m/a.bin"}
    assert report.records["invalid"].lines == [6]
    assert [r.record_id for r in report.ordered()] == ["shape", "loading", "invalid"]
    assert report.stats.json_lines == 1  # the line without a known error isn't even parsed


def test_the_same_report_whatever_the_read_size(matcher: Matcher) -> None:
    whole = scan_stream(matcher, io.BytesIO(LOG.encode()))
    for block in (1, 7, 64):
        report = scan_stream(matcher, io.BytesIO(LOG.encode()), block=block)
        assert report.stats.lines == whole.stats.lines
        assert {k: (v.count, v.lines) for k, v in report.records.items()} == {
            k: (v.count, v.lines) for k, v in whole.records.items()
        }


def test_a_log_without_a_trailing_newline_still_counts_its_last_line(matcher: Matcher) -> None:
    report = scan_stream(matcher, io.BytesIO(b"ok\ncannot load weights from /x"))
    assert report.stats.lines == 2
    assert report.records["loading"].lines == [2]


def test_a_line_longer_than_max_line_is_matched_in_pieces(matcher: Matcher) -> None:
    scanner = Scanner(matcher)
    scanner.feed_bytes(b"first line\n")
    filler = b"x" * 1000 + b" "
    for _ in range(3 * MAX_LINE // len(filler)):
        scanner.feed_bytes(filler)
    scanner.feed_bytes(b"cannot load weights from /w.bin\nlast line\n")
    report = scanner.finish()
    assert report.stats.lines == 3
    assert report.stats.long_lines == 1
    assert report.records["loading"].lines == [2]


# --- exactness: the scan finds what matching each line on its own finds -------------------

VARIED = [
    SHAPE, LOADING, INVALID, KV, BINARY, DTYPE,
    entry("interrupted", "interrupted"),  # must be the whole message
    entry("unclosed", "unclosed {obj|!r}"),
    entry("unrecognized", "{arg|%r} unrecognized"),
    entry("field", 'unknown field "{name}" in header'),
    entry("range", "index {i|%d} out of range for dimension {d|%d}"),
]
PREFIXES = [
    "", "2024-05-01 10:00:00 ERROR app: ", "ERROR:root:", "[WARN] ", "Error: ", "ValueError: ",
    "  ", "2024-05-01T10:00:00Z INFO worker.pool: ", "candle_core::tensor: ",
]
BODIES = [
    "shape mismatch k [{n}, 2] and v [3]", "cannot load weights from /m/{n}.bin",
    "invalid value {n} for option 'x'", "invalid value x{n} for option 'x'",
    "only kv-repeat = 1 is supported", "interrupted", "interrupted by user {n}",
    "the job was interrupted", "unclosed <socket {n}>", "unclosed", "'--x{n}' unrecognized",
    "flag unrecognized here", 'unknown field "f{n}" in header', "unknown field in header",
    "index {n} out of range for dimension 2", "index x out of range for dimension {n}",
    "for dimension {n} index 3 out of range", "weights cannot load from {n}",
    "request {n} served: shape k and v ok, option kv-repeat = 2, header field unknown",
    "ShapeMismatchBinaryOp {{ lhs: [{n}, 2], rhs: [3], op: \"add\" }}",
    "UnexpectedDType(F16)", "Msg(\"unknown field \\\"g{n}\\\" in header\")",
    "Custom {{ msg: \"interrupted\" }}", "we saw shape mismatch k [1] and v [{n}] today",
    "caf\u00e9 {n}: cannot load weights from /m/caf\u00e9.bin", "tab\tinterrupted",
]


def _varied_log(count: int) -> bytes:
    rng = random.Random(11)
    lines: list[bytes] = []
    for n in range(count):
        body = rng.choice(BODIES).format(n=n)
        kind = rng.random()
        if kind < 0.15:
            key = rng.choice(["msg", "message"])
            fields = {"time": f"2024-05-01T10:00:{n % 60:02d}", key: body}
            line = json.dumps(fields, ensure_ascii=rng.random() < 0.5)
        elif kind < 0.2:
            line = f"thread 'main' panicked at '{body}', src/x.rs:{n}:5"
        else:
            line = rng.choice(PREFIXES) + body
        data = line.encode()
        if rng.random() < 0.05:
            data += b"\r"
        if rng.random() < 0.02:
            data = b"\xff\xfe " + data
        lines.append(data)
    return b"\n".join(lines) + b"\n"


def _line_by_line(matcher: Matcher, log: bytes) -> dict[str, list[int]]:
    """Every line on its own through `match_with_stats(exact_only=True)`, a JSON line's
    message fields joined as a scan joins them."""
    found: dict[str, list[int]] = {}
    for number, raw in enumerate(log.decode("utf-8", "replace").split("\n")[:-1], start=1):
        text = raw
        if raw.lstrip(" \t").startswith("{"):
            try:
                item = json.loads(raw)
            except ValueError:
                item = None
            if isinstance(item, dict):
                text = "\n".join(str(item[k]) for k in MESSAGE_FIELDS if isinstance(
                    item.get(k), str | int))
        if not text.strip():
            continue
        matches, _ = matcher.match_with_stats(text, 1, exact_only=True)
        if matches and matches[0].exact:
            found.setdefault(matches[0].record_id, []).append(number)
    return found


def test_the_scan_finds_exactly_what_matching_each_line_finds() -> None:
    matcher = Matcher(VARIED)
    log = _varied_log(4_000)
    expected = _line_by_line(matcher, log)
    assert len(expected) >= 10  # most templates appear, in many shapes
    for block in (1 << 22, 4096, 97):
        report = scan_stream(matcher, io.BytesIO(log), block=block)
        got = {k: (v.count, v.first_line, v.last_line, v.lines) for k, v in report.records.items()}
        assert got == {
            k: (len(v), v[0], v[-1], v[:KEEP_LINES]) for k, v in expected.items()
        }
    # Most lines were turned away before the matcher: noise sharing words with templates
    # (and a whole-message template inside a longer message) among them.
    assert report.stats.matcher_calls < 0.6 * report.stats.lines


# Logs made to cost a scanner more than linear work or memory: anchors without their tails
# on every line, one long line of them, JSON lines full of escapes, a line holding the
# anchors of thousands of templates.
MANY = [entry(f"m{i}", f"mismatch{i:05d} in {{x}}: expected {{y}}") for i in range(2_000)]
HOSTILE_LOGS = {
    "anchors without tails": lambda n: "".join(  # every line different: no cache
        f"shape mismatch k [{i}] " * 40 + "\n" for i in range(n // 1_000)),
    "one long line": lambda n: "cannot load weights " * (n // 20),
    "escaped json": lambda n: ('{"msg": "\\"cannot load\\" \\u00e9 weights from"}\n') * (n // 47),
    "thousands of anchors": lambda n: (
        " ".join(f"mismatch{i:05d} in" for i in range(2_000)) + "\n") * (n // 36_000),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_LOGS))
def test_hostile_logs_cost_linear_work_and_bounded_memory(name: str) -> None:
    matcher = Matcher([SHAPE, LOADING, INVALID, *MANY])
    make = HOSTILE_LOGS[name]
    small = scan_stream(matcher, io.BytesIO(make(1_000_000).encode()))
    data = make(4_000_000).encode()
    tracemalloc.start()
    try:
        big = scan_stream(matcher, io.BytesIO(data))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert big.stats.bytes == len(data) and not big.records
    assert big.stats.matcher_work <= 4.5 * small.stats.matcher_work + 100_000
    assert big.stats.matcher_work <= 45 * len(data)
    assert big.stats.candidate_lines <= 4.5 * small.stats.candidate_lines + 10
    assert peak <= 60 * (1 << 20)  # a few read blocks and their hits, whatever the log


_ONE_GB_CHILD = """
import json, resource, sys
from errdex.match import Matcher
from errdex.match.scan import scan_stream
from tests.test_scan import INVALID, LOADING, SHAPE

# One line in ten holds a known error (a plain line, or a JSON line), the rest is noise.
LINES = [
    "2024-05-01 10:00:00 INFO app: request %d served in 12 ms, user alice, status ok",
    "2024-05-01 10:00:01 DEBUG db.pool: connection %d returned to the pool after 3 ms",
] * 9 + [
    "2024-05-01 10:00:02 ERROR app: shape mismatch k [%d, 16] and v [2, 32]",
    '{"time": "2024-05-01T10:00:03", "msg": "cannot load weights from /m/%d.bin"}',
]
block = "".join(LINES[i % 20] % (i % 7) + "\\n" for i in range(40_000)).encode()
target = 1 << 30
blocks = -(-target // len(block))


class Generated:
    def __init__(self):
        self.left = blocks

    def read(self, size=-1):
        if not self.left:
            return b""
        self.left -= 1
        return block


matcher = Matcher([SHAPE, LOADING, INVALID])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
report = scan_stream(matcher, Generated())
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({
    "bytes": report.stats.bytes, "lines": report.stats.lines, "blocks": blocks,
    "shape": report.records["shape"].count, "loading": report.records["loading"].count,
    "calls": report.stats.matcher_calls, "candidates": report.stats.candidate_lines,
    "grew_kb": after - before,
}))
"""


def test_a_one_gigabyte_log_streams_in_bounded_memory_and_linear_work() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _ONE_GB_CHILD],
        capture_output=True, text=True, check=True, cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    result = json.loads(done.stdout)
    assert result["bytes"] >= 1 << 30
    assert result["lines"] == 40_000 * result["blocks"]
    assert result["shape"] == result["loading"] == 2_000 * result["blocks"]
    # Only the error lines reach the matcher, and repeats are answered from the cache.
    assert result["candidates"] == 4_000 * result["blocks"]
    assert result["calls"] <= 14
    # Peak memory grows by a few read blocks, not by the size of the log.
    assert result["grew_kb"] < 64 * 1024


# --- the command ---------------------------------------------------------------------------

LIBRARY = """\
def load(path):
    raise FileNotFoundError("no checkpoint file at " + path)


def resize(width, height):
    if width <= 0:
        raise ValueError(f"width must be positive, got {width} (height {height})")
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("scanlib")
    (root / "scanlib").mkdir()
    (root / "scanlib" / "__init__.py").write_text(LIBRARY)
    path = str(root / "errdex.sqlite")
    assert main(["--db", path, "index", str(root), "--repo", "acme/scanlib"]) == 0
    return path


def _log(tmp_path: Path) -> Path:
    log = tmp_path / "app.log"
    log.write_text(
        "2024-05-01 10:00:00 INFO starting\n"
        "2024-05-01 10:00:01 ERROR app: ValueError: width must be positive, got -2 (height 3)\n"
        "2024-05-01 10:00:02 ERROR app: no checkpoint file at /ckpt/1.pt\n"
        "2024-05-01 10:00:03 ERROR app: ValueError: width must be positive, got 0 (height 9)\n"
    )
    return log


def test_scan_command_prints_counts_and_lines(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", db, "scan", str(_log(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert out.startswith("4 lines, 3 with a known error, 2 distinct\n")
    assert "       2  " in out and "width must be positive" in out
    assert "lines 2..4, 2024-05-01 10:00:01 .. 2024-05-01 10:00:03" in out


def test_scan_json_from_stdin(db: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "errdex", "--db", db, "scan", "--json", "-"],
        input=_log(tmp_path).read_bytes(), capture_output=True, check=True,
    )  # fmt: skip
    data = json.loads(done.stdout)
    top = data["records"][0]
    assert (top["count"], top["first_line"], top["last_line"], top["lines"]) == (2, 2, 4, [2, 4])
    assert top["values"] == {"width": "-2", "height": "3"}
    assert top["repo"] == "acme/scanlib"
    assert data["records"][1]["values"] == {"path": "/ckpt/1.pt"}


def test_scan_without_known_errors_exits_1_and_a_missing_file_2(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = tmp_path / "quiet.log"
    quiet.write_text("all good\n")
    assert main(["--db", db, "scan", str(quiet)]) == 1
    assert main(["--db", db, "scan", str(tmp_path / "missing.log")]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"errdex: cannot read {tmp_path / 'missing.log'}: No such file or directory"
    ]
