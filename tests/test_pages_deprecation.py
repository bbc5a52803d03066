"""A deprecation warning every call gives (round 9 and 10 Python reviews: `getName() is
deprecated, get the name attribute instead` was told to "take a path that avoids it"):
the page says the function is deprecated and quotes the message's own advice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.contract import record_to_dict
from tests.builders import indexed_records

WORKER = '''\
import warnings


class Worker:
    def getName(self):
        warnings.warn("getName() is deprecated, get the name attribute instead",
                      DeprecationWarning, stacklevel=2)
        return self.name


def old_log(msg):
    warnings.warn("old_log() is deprecated", DeprecationWarning, stacklevel=2)
    print(msg)


def start(mode):
    if mode == "fork":
        warnings.warn("mode 'fork' is deprecated, use 'spawn'", DeprecationWarning)
    return mode
'''


def _pages(tmp_path: Path) -> dict[str, dict[str, Any]]:
    records = indexed_records(tmp_path, {"wk/__init__.py": WORKER}, "t/wk")
    return {r.template.message.split(" ")[0]: record_to_dict(r)["explanation"]
            for r in records}


def test_a_deprecated_function_is_said_so_with_the_messages_advice(tmp_path: Path) -> None:
    page = _pages(tmp_path)["getName()"]
    assert page["summary"] == "`wk.Worker.getName` is deprecated: every call warns"
    assert page["solutions"][0] == ("Stop calling `wk.Worker.getName`: “get the name "
                                    "attribute instead”, as the message says.")
    assert "path that avoids it" not in page["example_fix"]["after"]
    assert page["trigger"] == "Every call of `wk.Worker.getName`: it is deprecated."


def test_without_advice_the_page_points_at_the_documented_replacement(tmp_path: Path) -> None:
    page = _pages(tmp_path)["old_log()"]
    assert page["solutions"][0].startswith("Stop calling `wk.old_log`: it is deprecated")


def test_a_deprecation_behind_a_check_keeps_its_check(tmp_path: Path) -> None:
    page = _pages(tmp_path)["mode"]  # only `mode == "fork"` warns: not every call
    assert "every call" not in page["summary"], page["summary"]
