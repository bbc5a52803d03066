"""An error that passes on another call's failure (issue 20, round 11: "Api error: {e}",
"exception calling callback"): the page names the call that failed and how, says the
error it carries is the cause, and claims "no argument of this call goes into it" only
when none does. Indexed from small repositories written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

CLIENT = '''\
class Client:
    def connect(self, host, port):
        try:
            port = int(port)
        except ValueError:
            raise OSError("nonnumeric port")
        return host, port

    def attach(self, logger, name):
        try:
            logger.add(self.handlers[name])
        except KeyError:
            raise ValueError("no handler %r" % name)

    def notify(self):
        for listener in self._listeners:
            try:
                listener(self)
            except Exception:
                LOGGER.exception("listener failed for %r", self)


def download(name):
    try:
        fetch_index()
    except ConnectionError as exc:
        raise RuntimeError(f"index unreachable: {exc}") from exc
'''

LOADER = """\
pub fn load(name: &str) -> Result<Vec<u8>> {
    let api = Api::new().map_err(|e| Error::Msg(format!("Api error: {e}")))?;
    api.get(name)
}

pub struct Generator {
    tokens: Vec<u32>,
}

impl Generator {
    pub fn next_token(&self) -> Result<u32> {
        let last = self.tokens.last().context("no tokens to continue from")?;
        Ok(*last + 1)
    }
}

pub struct PoolerConfig {
    pub hidden_size: Option<usize>,
}

pub fn pooler(config: &PoolerConfig) -> Result<usize> {
    let size = config.hidden_size.context("config.hidden_size is required")?;
    Ok(size)
}
"""


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("passed") / "repo"
    for path, text in {"net/client.py": CLIENT, "hub/src/lib.rs": LOADER}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/passed"))
    with SQLiteStore(root.parent / "passed.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {r.message: record_to_dict(store.record(r.id)) for r in store.records()}


def _solution(page: dict[str, Any]) -> str:
    return str(page["explanation"]["solutions"][0])


def test_a_conversion_of_the_argument_is_about_that_argument(pages: dict[str, Any]) -> None:
    page = pages["nonnumeric port"]
    said = _solution(page)
    assert said.startswith("When `port = int(port)` raises `ValueError` inside "
                           "`net.client.Client.connect`")
    assert "It works on your `port` argument" in said
    assert "no argument of this call" not in said  # it is this call's argument
    assert "`port = int(port)` raised `ValueError`" in page["explanation"]["what_it_means"]
    assert "give port a value it accepts" in page["explanation"]["example_fix"]["after"]


def test_a_method_of_an_argument_given_other_values_is_not_blamed_on_it(
        pages: dict[str, Any]) -> None:
    """`logger.add(self.handlers[name])`: the handler lookup may fail as well as `logger`;
    the page does not say the failure is about `logger` (round 12 review, logging's
    "Unable to add handler")."""
    said = _solution(pages["no handler %r"])
    assert "When `logger.add(self.handlers[name])` raises `KeyError`" in said
    assert "It works on" not in said and "no argument of this call" not in said
    assert "Read the error it carries" in said


def test_a_failure_no_argument_goes_into_says_so(pages: dict[str, Any]) -> None:
    said = _solution(pages["index unreachable: {exc}"])
    assert "When `fetch_index()` raises `ConnectionError`" in said
    assert "Read the error it carries" in said and "no argument of this call goes into it" in said
    said = _solution(pages["Api error: {e}"])
    assert said.startswith("When `Api::new()` returns an Err inside `load`")
    assert "passes that failure on as this error" in said
    after = pages["Api error: {e}"]["explanation"]["example_fix"]["after"]
    assert "a check inside this call" not in after and "Api::new() returns an Err" in after


def test_an_optional_value_that_was_none_carries_no_error(pages: dict[str, Any]) -> None:
    page = pages["no tokens to continue from"]
    said = _solution(page)
    assert said.startswith("When `self.tokens.last()` returns None")
    assert "Read the error it carries" not in said  # a None carries none
    assert "Look at what `self.tokens.last()` reads and why it had no value" in said
    assert "returns None" in page["explanation"]["summary"]


def test_an_absent_field_is_read_not_called_and_wraps_no_error(pages: dict[str, Any]) -> None:
    page = pages["config.hidden_size is required"]["explanation"]
    assert "reads `config.hidden_size`; when that is None, it returns an error with this " \
        "message." in page["what_it_means"], page["what_it_means"]
    assert "wraps the underlying error" not in page["what_it_means"]
    assert _solution(pages["config.hidden_size is required"]).endswith(
        "It works on your `config` argument: set its `hidden_size`."), page["solutions"]


def test_a_logged_failure_points_at_the_caught_exception(pages: dict[str, Any]) -> None:
    page = pages["listener failed for %r"]
    said = _solution(page)
    assert "When `listener(self)` raises `Exception`" in said
    assert "logs this message about it" in said and "passes that failure on" not in said
    assert "the exception it caught (if the log records it)" in said
    assert page["explanation"]["example_fix"]["before"].split("#")[1].strip().startswith(
        "logged:")


LICENSES = '''\
def canonical(expression):
    if not expression:
        raise ValueError(f"invalid expression: {expression!r}")
    tokens = expression.split()
    if tokens[-1] == "with":
        raise ValueError(f"invalid expression: {expression!r}")
    if "t" in expression:
        if "b" in expression:
            raise ValueError(f"invalid expression: {expression!r}")
    return " ".join(tokens)
'''


def test_a_message_of_several_conditions_scopes_its_fix_to_one_place(tmp_path: Path) -> None:
    """One message, three checks: the fix written for the first is said of that place, and
    what the others check follows (round 11 packaging #7), each under its own branch."""
    root = tmp_path / "repo"
    (root / "lic").mkdir(parents=True)
    (root / "lic" / "names.py").write_text(LICENSES)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/lic"))
    with SQLiteStore(tmp_path / "lic.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        (record,) = [store.record(r.id) for r in store.records()]
    assert record is not None and record.explanation is not None
    first, *rest = record.explanation.solutions
    assert first.startswith("At lic/names.py:3 (one of 3 places): call `lic.names.canonical`")
    # a place under a branch says it (bz2's `"b"` check holds only with a `"t"` mode)
    assert rest[-1] == ("The other places have checks of their own (see what it means): at "
                        'lic/names.py:6, `tokens[-1]` must differ from `"with"`; at '
                        'lic/names.py:9, `"b"` must not be in `expression` when `"t"` is in '
                        "`expression`.")


TAGS = '''\
import sys


def cache_path(path):
    tag = sys.implementation.cache_tag
    if tag is None:
        raise NotImplementedError("no cache tag")
    return path + tag


def source_path(path):
    if sys.implementation.cache_tag is None:
        raise NotImplementedError("no cache tag")
    return path
'''


def test_the_same_check_written_through_a_local_is_not_another_check(tmp_path: Path) -> None:
    """`tag = sys.implementation.cache_tag; if tag is None` and `if
    sys.implementation.cache_tag is None` check one thing: no "checks of their own"
    (round 12 review, importlib's cache_tag)."""
    root = tmp_path / "repo"
    (root / "cache").mkdir(parents=True)
    (root / "cache" / "tags.py").write_text(TAGS)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/tags"))
    with SQLiteStore(tmp_path / "tags.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        (record,) = [store.record(r.id) for r in store.records()]
    assert record is not None and record.explanation is not None
    said = " ".join(record.explanation.solutions)
    assert "checks of their own" not in said and "(one of 2 places)" not in said
