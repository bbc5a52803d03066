"""What a person sees on a terminal versus through a pipe."""

from __future__ import annotations

import io

import pytest

from errdex.models import IndexSummary
from errdex.terminal import Progress, Style, summary_text, use_color


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
