"""Real tracebacks raised at test time by the standard library, matched back the way
pastes of them arrive: the innermost frame decides the site (frames first), a
value-only message is resolved by its frame, a message whose wording changed or whose
end was not pasted still finds its raise, and a log of several tracebacks counts each
error once (not again for the source line each frame quotes)."""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import traceback
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from errdex.contract import record_to_dict
from errdex.match import Matcher, load_matcher
from errdex.match.scan import scan_stream
from errdex.models import Match
from errdex.serve.cli import main
from errdex.store import SQLiteStore


def _raised(case: Callable[[], object]) -> tuple[str, BaseException]:
    try:
        case()
    except Exception as exc:
        return "".join(traceback.format_exception(exc)), exc
    raise AssertionError("the case did not raise")


def _at_raise(store: SQLiteStore, match: Match, exc: BaseException) -> bool:
    """The match's record has a site at the line that raised, and points at it."""
    frame = traceback.extract_tb(exc.__traceback__)[-1]
    sites = record_to_dict(store.record(match.record_id))["sites"]
    shown = sites[match.site_index] if match.site_index is not None else None
    return shown is not None and frame.filename.endswith("/" + shown["path"]) and (
        shown["line"] == frame.lineno)


REGISTRY = """\
_MODELS = {"bert": 1}
_TOKENS = {"cls": 0}


class UnknownName(KeyError):
    pass


def model(name):
    return _MODELS[name] if name in _MODELS else _missing(name)


def _missing(name):
    raise UnknownName(name)


def token(name):
    if name not in _TOKENS:
        raise UnknownName(name)
    return _TOKENS[name]
"""


def test_a_value_only_key_error_is_resolved_by_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `raise UnknownName(name)` of a package (a KeyError), one record: the real
    traceback's frame says which site raised, and nothing else in the text could."""
    package = tmp_path / "src" / "zooreg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(REGISTRY)
    db = str(tmp_path / "db.sqlite")
    assert main(["--db", db, "index", str(tmp_path / "src")]) == 0
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    zooreg = importlib.import_module("zooreg")
    store = SQLiteStore(db, create=False)
    matcher = load_matcher(store)
    for call in (lambda: zooreg.model("llama"), lambda: zooreg.token("sep")):
        text, exc = _raised(call)
        assert text.rstrip().endswith(("zooreg.UnknownName: 'llama'",
                                       "zooreg.UnknownName: 'sep'"))
        top = matcher.match(text)[0]
        assert top.exact and _at_raise(store, top, exc), (text, top)
    # without the traceback the value alone still finds the record, but no one site
    bare = matcher.match("zooreg.UnknownName: 'llama'")[0]
    assert bare.exact and bare.site_index is None


def _bad_zip() -> None:
    zipfile.ZipFile(io.BytesIO(b"not a zip archive"))


def test_the_frame_finds_the_raise_when_the_wording_changed(
    indexed: tuple[SQLiteStore, Matcher],
) -> None:
    """The same traceback as an older or newer version would print it: its last line
    reworded. Text similarity alone would look elsewhere; the frame names the line."""
    store, matcher = indexed
    text, exc = _raised(_bad_zip)
    assert text.rstrip().endswith("zipfile.BadZipFile: File is not a zip file")
    exact = matcher.match(text)[0]
    assert exact.exact and _at_raise(store, exact, exc)
    reworded = text.replace("File is not a zip file", "Not a zip archive (bad magic)")
    top = matcher.match(reworded)[0]
    assert not top.exact and _at_raise(store, top, exc), top
    assert "traceback frame" in top.why or "innermost frame" in top.why


def _failing_command() -> None:
    subprocess.run([sys.executable, "-c", "raise SystemExit(3)"], check=True)


def test_a_message_whose_end_was_not_pasted_finds_its_record(
    indexed: tuple[SQLiteStore, Matcher],
) -> None:
    store, matcher = indexed
    text, _ = _raised(_failing_command)
    last = text.rstrip().splitlines()[-1]
    assert last.startswith("subprocess.CalledProcessError: Command '[") and last.endswith(
        "returned non-zero exit status 3.")
    cut = last.removesuffix(".")  # what a user pasting only the line, less the period, has
    top = matcher.match(cut)[0]
    record = record_to_dict(store.record(top.record_id))
    assert record["exception"] == "CalledProcessError" and not top.exact, record["message"]
    assert record["message"].endswith("returned non-zero exit status %d.")


def test_a_log_of_tracebacks_counts_each_error_once(
    indexed: tuple[SQLiteStore, Matcher],
) -> None:
    store, matcher = indexed
    texts = [_raised(_bad_zip)[0] for _ in range(3)]
    assert all('raise BadZipFile("File is not a zip file")' in t for t in texts)
    report = scan_stream(matcher, io.BytesIO("\n".join(texts).encode()))
    counts = {store.record(r.record_id).template.text: r.count for r in report.ordered()}
    assert counts["File is not a zip file"] == 3
