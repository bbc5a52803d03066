"""When a site is reached (issue 20, defect 5): the page keeps the whole path, not only the
innermost condition. Enclosing branches, a catch-all arm after the arms it falls through,
and earlier returns the function did not take are facts of the site, in words, and the
page says them; an unsupported case guarded by a value says which values are handled,
not that no value helps. Indexed from small repositories written here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

RUST = """\
pub enum DType { F16, F32, I64 }

pub fn attention(q: &Tensor, paged: bool, block: usize) -> Result<Tensor> {
    if paged {
        if block > 64 {
            bail!("paged attention takes blocks of at most 64, got {block}")
        }
    }
    match q.dtype() {
        DType::F16 | DType::F32 => Ok(q.clone()),
        other => bail!("attention is not supported for {other:?}"),
    }
}

pub fn rows(dims: &[usize]) -> Result<usize> {
    let (b, k) = match dims {
        [b, m, k] => (b * m, *k),
        [b, k] => (*b, *k),
        _ => bail!("unexpected shape in rows {dims:?}"),
    };
    Ok(b * k)
}

pub fn upload(device: &Device) -> Result<usize> {
    match device {
        Device::Cpu => Ok(0),
        Device::Cuda(ordinal) => Ok(*ordinal),
        Device::Metal(_) => bail!("upload is not supported on metal"),
    }
}

pub fn weights(json: &Value) -> usize {
    let map = match json.get("weight_map") {
        Some(Value::Object(map)) => map,
        Some(_) => panic!("`weight map` is not a map"),
        None => panic!("`weight map` not found"),
    };
    map.len()
}
"""

PYTHON = """\
def read_u8(data, at):
    if len(data) == 8:
        return data[0]
    raise ValueError(f"not enough data in stream to read u8 at {at}")


def configure(cfg, incremental):
    if incremental:
        if "root" not in cfg:
            raise ValueError("unable to configure the root logger")
    return cfg


def configure_root(cfg):
    if not cfg:
        raise ValueError("unable to configure the root logger")
    return cfg


def mode_of(kind):
    if kind == "a":
        return 1
    elif kind == "b":
        raise KeyError("mode b is reserved")
    else:
        raise ValueError(f"unknown mode {kind!r}")


def restore(state):
    if isinstance(state, tuple):
        if len(state) == 6:
            return state
        if len(state) == 2:
            _, slots = state
            if isinstance(slots, dict):
                return slots
    if isinstance(state, dict):
        return state
    raise TypeError(f"cannot restore from {state!r}")


def payload(message, i):
    if message.multipart:
        if i is None:
            return message.parts
        else:
            return message.parts[i]
    if i is not None:
        raise TypeError("expected a list of parts")
    return message.body


def serve(host=None, port=None, sock=None, ssl=None):
    if ssl is not None and not isinstance(ssl, dict):
        raise TypeError("ssl must be a dict or None")
    if host is not None or port is not None:
        if sock is not None:
            raise ValueError("host and sock can not be specified at the same time")
    return host


def configure_logging(kwargs, handlers=None):
    if handlers is None:
        if "stream" in kwargs and "filename" in kwargs:
            raise ValueError("stream and filename together")
    else:
        if "stream" in kwargs or "filename" in kwargs:
            raise ValueError("stream or filename with handlers")
    return kwargs


def loads(s):
    if isinstance(s, str):
        if s.startswith("\\ufeff"):
            raise ValueError("unexpected BOM")
    else:
        if not isinstance(s, bytes):
            raise TypeError("the JSON object must be str or bytes")
        s = s.decode("utf-8-sig")
    return s


def scan(items, key):
    if key:
        for item in items:
            if item == key:
                return item
    raise LookupError(f"no item for {key}")
"""


def _index(root: Path, files: dict[str, str]) -> dict[str, dict[str, Any]]:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/reached"))
    with SQLiteStore(root.parent / "reached.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {row.message: record_to_dict(store.record(row.id)) for row in store.records()}


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("reached") / "repo"
    return _index(root, {"src/lib.rs": RUST, "pkg/stream.py": PYTHON})


def _reached(page: dict[str, Any]) -> list[str]:
    return [step["text"] for step in page["facts"]["sites"][0]["reached"]]


def _page(pages: dict[str, dict[str, Any]], start: str) -> dict[str, Any]:
    (page,) = [p for message, p in pages.items() if message.startswith(start)]
    return page


def test_an_enclosing_branch_is_kept_with_the_innermost_check(pages: dict[str, Any]) -> None:
    page = _page(pages, "paged attention")
    assert _reached(page) == ["`paged` is true"]
    assert page["facts"]["sites"][0]["requirement"] == "`block` must be at most 64"
    assert "reached only when `paged` is true" in page["explanation"]["what_it_means"]


def test_a_catch_all_arm_names_the_cases_the_code_handles(pages: dict[str, Any]) -> None:
    page = _page(pages, "attention is not supported")
    explanation = page["explanation"]
    # The guard is the arms before it, so the page says which dtypes do work, and does
    # not claim that no value of the user's would help.
    assert "`q.dtype()` must match `DType::F16 | DType::F32`" in explanation["summary"]
    solutions = " ".join(explanation["solutions"])
    assert "DType::F16" in solutions and "will not make this path work" not in solutions


def test_arms_binding_other_names_are_joined_as_a_pattern_that_compiles(
    pages: dict[str, Any],
) -> None:
    # `[b, m, k] | [b, k]` does not compile (E0408: `m` is not bound in every alternative)
    page = _page(pages, "unexpected shape in rows")
    assert page["facts"]["sites"][0]["guard"] == "!matches!(dims, [_, _, _] | [_, _])"
    assert "matches!(dims, [_, _, _] | [_, _])" in page["explanation"]["defensive"]["validate"]


def test_a_path_of_one_site_is_said_as_that_sites_own(pages: dict[str, Any]) -> None:
    # two places raise it; only the first is behind `incremental`
    meaning = _page(pages, "unable to configure the root")["explanation"]["what_it_means"]
    assert "At pkg/stream.py:" in meaning and "it is reached only when `incremental`" in meaning
    assert "It is reached only when" not in meaning, meaning


def test_an_earlier_return_not_taken_is_part_of_the_path(pages: dict[str, Any]) -> None:
    page = _page(pages, "not enough data")
    assert page["facts"]["sites"][0]["guard"] is None
    assert _reached(page) == ["`len(data)` is not 8"]
    meaning = page["explanation"]["what_it_means"]
    assert "no condition in front of it decides" not in meaning
    # The return not taken is the site's check: the page states it as the requirement.
    assert "To pass, `len(data)` must be 8" in meaning


def test_an_else_after_a_branch_says_what_the_branches_before_it_left(
    pages: dict[str, Any],
) -> None:
    page = _page(pages, "unknown mode")
    # `kind == "a"` returned and `kind == "b"` raised: both are behind this `else`; the
    # second is the site's own guard (negated), the first a step of the path.
    assert _reached(page) == ['`kind` differs from `"a"`']


def test_an_enclosing_if_is_offered_as_a_way_out_but_an_else_is_not(
    pages: dict[str, Any],
) -> None:
    paged = " ".join(_page(pages, "paged attention")["explanation"]["solutions"])
    assert "Or give it inputs that do not reach the check: it runs only when `paged` is true." \
        in paged
    # Before this `else`, `kind == "b"` raises an error of its own: no way out there.
    mode = " ".join(_page(pages, "unknown mode")["explanation"]["solutions"])
    assert "do not reach the check" not in mode


def _line(text: str) -> int:
    (line,) = [n for n, code in enumerate(PYTHON.splitlines(), 1) if code == text]
    return line


def test_returns_nested_in_earlier_branches_are_each_a_way_past_the_site(
    pages: dict[str, Any],
) -> None:
    page = _page(pages, "cannot restore")
    six, two = _line("            return state"), _line("                return slots")
    mapping = _line("    if isinstance(state, dict):")  # a plain early return: its `if`
    assert _reached(page) == [
        f"it did not return at line {six} (it does when `state` is an instance of `tuple` "
        "and `len(state)` is 6)",
        f"it did not return at line {two} (it does when `state` is an instance of `tuple` "
        "and `len(state)` is 2 and `slots` is an instance of `dict`)",
        "`state` is not an instance of `dict`",
    ]
    explanation = page["explanation"]
    assert "no condition in front of it decides" not in explanation["what_it_means"]
    assert f"takes none of its earlier returns (lines {six}, {two} and {mapping})" \
        in explanation["summary"]
    assert (f"it returns at line {six} when `state` is an instance of `tuple` and `len(state)` "
            f"is 6; at line {two} when") in explanation["solutions"][0]


def test_a_branch_that_returns_on_every_way_is_said_as_its_condition(
    pages: dict[str, Any],
) -> None:
    assert _reached(_page(pages, "expected a list of parts")) == ["`message.multipart` is falsy"]


def test_a_return_inside_a_loop_is_no_way_past_that_the_page_claims(
    pages: dict[str, Any],
) -> None:
    # Whether the loop returns depends on the items: no condition in words says it.
    assert not any("return" in text for text in _reached(_page(pages, "no item for")))


def test_a_later_check_under_its_own_branch_is_said_with_that_branch(
    pages: dict[str, Any],
) -> None:
    # `sock` must be None only when a host or a port is given: not on every call
    solutions = " ".join(_page(pages, "ssl must be a dict")["explanation"]["solutions"])
    assert ("goes on to check: `sock` must be None when `host` is not None or `port` is not "
            'None ("host and sock can not be specified at the same time")') in solutions
    site = _page(pages, "ssl must be a dict")["facts"]["sites"][0]
    assert [s["when"] for s in site["siblings"]] == [
        ["one of these holds: `host` is not None; `port` is not None"]]


def test_an_arm_whose_one_other_case_raises_too_offers_only_the_arms_before_it(
    pages: dict[str, Any],
) -> None:
    # `Some(_)` leaves only `None`, and `None =>` panics as well: no way out there
    summary = _page(pages, "`weight map` is not a map")["explanation"]["summary"]
    assert summary.endswith('`json.get("weight_map")` must match `Some(Value::Object(map))` '
                            "when calling `weights`"), summary


def test_a_branch_whose_else_raises_is_no_way_out_and_its_check_is_apart(
    pages: dict[str, Any],
) -> None:
    # Passing `handlers` skips this check only to fail the other one (basicConfig)
    page = _page(pages, "stream and filename together")
    solutions = " ".join(page["explanation"]["solutions"])
    assert "do not reach the check" not in solutions, solutions
    assert "with handlers" not in solutions  # not "goes on to check": the other branch
    (other,) = page["facts"]["sites"][0]["siblings"]
    assert (other["message"], other["position"]) == ("stream or filename with handlers", "apart")


def test_a_branch_whose_else_rejects_other_inputs_stays_a_way_out(
    pages: dict[str, Any],
) -> None:
    # bytes skip the BOM check and pass the `else` (json.loads): that way out is real
    solutions = " ".join(_page(pages, "unexpected BOM")["explanation"]["solutions"])
    assert ("Or give it inputs that do not reach the check: it runs only when `s` is an "
            "instance of `str`.") in solutions, solutions


def test_arms_before_a_catch_all_are_joined_without_their_bindings(
    pages: dict[str, Any],
) -> None:
    # `Device::Cpu | Device::Cuda(ordinal)` is E0408: `ordinal` is not bound in every arm
    explanation = _page(pages, "upload is not supported")["explanation"]
    assert "`device` must match `Device::Cpu | Device::Cuda(_)`" in explanation["summary"], \
        explanation["summary"]
    assert "Device::Cuda(ordinal)" not in explanation["defensive"]["validate"]
