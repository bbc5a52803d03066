"""What a person sees on a terminal versus through a pipe."""

from __future__ import annotations

import io

import pytest

from errdex.models import IndexSummary
from errdex.serve.terminal import Progress, Style, record_text, summary_text, use_color


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_on_a_terminal_and_stays_quiet_in_a_pipe() -> None:
    tty, pipe = _Terminal(), io.StringIO()
    for stream in (tty, pipe):
        progress = Progress(stream)
        progress("parsing files", 3, 3, "12 sites")
        progress.clear()
    assert "parsing files: 3/3 · 12 sites" in tty.getvalue()
    assert pipe.getvalue() == ""


@pytest.mark.parametrize(("env", "tty", "expected"), [
    ({}, True, True), ({}, False, False), ({"NO_COLOR": "1"}, True, False),
    ({"FORCE_COLOR": "1"}, False, True),
])
def test_color_follows_no_color_force_color_and_the_terminal(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], tty: bool, expected: bool
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert use_color(_Terminal() if tty else io.StringIO()) is expected


def test_index_summary_lists_skips_kinds_and_records() -> None:
    summary = IndexSummary(
        repo="acme/lib", commit="0123456789abcdef", files_read=10,
        skipped=(("binary", 1), ("too large", 2)), sites_by_kind=(("bail", 5), ("panic", 1)),
        records=4, dynamic_sites=3, seconds=1.25,
    )
    assert summary_text(summary, Style(color=False)).splitlines() == [
        "acme/lib @ 0123456789",
        "  files read   10",
        "  skipped      binary 1, too large 2",
        "  sites        6 (bail 5, panic 1)",
        "  no literal   3 sites raise a message with no fixed text",
        "  records      4",
        "  time         1.2s",
    ]


def test_the_site_a_traceback_points_at_comes_first_and_is_marked() -> None:
    record = {
        "id": "0123456789abcdef", "repo": "acme/lib", "kind": "raise",
        "exception": "ValueError", "message": "bad value {x}", "explanation": None,
        "sites": [
            {"path": "lib/a.py", "line": 3, "function": "lib.a.f", "guard": None},
            {"path": "lib/b.py", "line": 9, "function": "lib.b.g", "guard": "x < 0"},
        ],
    }
    lines = record_text(record, Style(color=False), full=False, focus=1).splitlines()
    sites = [line for line in lines if "thrown at" in line]
    assert sites == ["  thrown at lib/b.py:9 in lib.b.g (your traceback)",
                     "  thrown at lib/a.py:3 in lib.a.f"]
    plain = record_text(record, Style(color=False), full=False).splitlines()
    assert next(line for line in plain if "thrown at" in line).endswith("lib.a.f")
