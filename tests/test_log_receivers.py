"""A logging method is a log site only on a logger or on the object's own method
(round-8 Python review: 17 of 58 "log" pages were `parser.error(..)`, which exits):
`logger.error(..)` is logged; `parser.error(..)` exits with the usage and the message
(SystemExit); `store.error(..)` of some other object is neither."""

from __future__ import annotations

from pathlib import Path

from errdex.models import SiteKind
from tests.builders import indexed_records

CODE = '''\
import argparse
import logging

logger = logging.getLogger(__name__)


class Collector:
    def error(self, exc):
        self.errors.append(exc)


def check(store, name):
    if not name:
        store.error(ValueError("the name is empty"))


def run(path):
    try:
        open(path)
    except OSError:
        logger.error("cannot open %s", path)


def main(argv):
    parser = argparse.ArgumentParser()
    args = parser.parse_args(argv)
    if not args.paths:
        parser.error("give at least one path")
'''


def test_only_a_logger_logs_and_a_parser_exits(tmp_path: Path) -> None:
    records = {r.template.message: r for r in indexed_records(
        tmp_path, {"tool/__init__.py": CODE}, "t/tool")}
    assert records["cannot open %s"].sites[0].kind is SiteKind.LOG
    exits = records["give at least one path"]
    assert (exits.sites[0].kind, exits.exception) == (SiteKind.RAISE, "SystemExit")
    assert not any(r.sites[0].kind is SiteKind.LOG for m, r in records.items()
                   if "name is empty" in m)


COLLECTED = '''\
def resolve(groups, name, errors):
    if name not in groups:
        errors.error(LookupError(f"Dependency group '{name}' not found"))
'''


def test_an_error_collector_keeps_the_exception_it_is_given(tmp_path: Path) -> None:
    """packaging's `errors.error(LookupError(..))`, raised later in an ExceptionGroup."""
    (record,) = indexed_records(tmp_path, {"deps/__init__.py": COLLECTED}, "t/deps")
    assert (record.sites[0].kind, record.exception) == (SiteKind.RAISE, "LookupError")
    assert record.template.message == "Dependency group '{name}' not found"
