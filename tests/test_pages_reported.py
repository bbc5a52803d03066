"""A message logged or warned about inside an `except` is reported, not raised: its page
says so and never tells the user that an error chains a cause they can print (round 7:
20 of the 58 log pages of the standard library said "raises this after catching")."""

from __future__ import annotations

from pathlib import Path

from errdex.contract import record_to_dict
from tests.builders import indexed_records

FILES = {
    "feed/__init__.py": "",
    "feed/load.py": (
        "import logging\n\n"
        "logger = logging.getLogger(__name__)\n\n\n"
        "def load(path):\n"
        "    try:\n"
        "        return open(path).read()\n"
        "    except OSError:\n"
        "        logger.error('load: could not read the feed file %s', path)\n"
        "        return ''\n"
    ),
}


def test_a_log_call_in_a_handler_is_reported_not_raised(tmp_path: Path) -> None:
    (record,) = indexed_records(tmp_path, FILES, "acme/feed")
    page = record_to_dict(record)["explanation"]
    text = str(page)
    assert "logs this after catching `OSError`" in page["summary"], page["summary"]
    assert "not raised to your call" in page["what_it_means"], page["what_it_means"]
    assert "chains it" not in text and "Print the whole error chain" not in text
    assert "look at its cause" not in page["example_fix"]["after"]
