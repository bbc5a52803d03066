"""Checks that cannot fail at this commit are said to be so (issue 20, defect 8): an
earlier check that lets through only constants every one of which passes the later check,
and a `debug_assert` in the library's own code. A page must not tell the user which
arguments make such a check fail; a record with other places that can fail leads with
those."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

KERNELS = """\
pub fn fused(q: &Tensor) -> Result<Tensor> {
    let head = q.dim(3)?;
    if !(head == 64 || head == 128 || head == 256) {
        bail!("fused: only head sizes 64, 128 and 256 are supported, got {head}")
    }
    if head % 8 != 0 {
        bail!("head size must be a multiple of 8, got {head}")
    }
    Ok(q.clone())
}

pub fn plain(q: &Tensor) -> Result<Tensor> {
    let head = q.dim(3)?;
    if head % 8 != 0 {
        bail!("head size must be a multiple of 8, got {head}")
    }
    Ok(q.clone())
}

pub fn strict(q: &Tensor) -> Result<Tensor> {
    let head = q.dim(3)?;
    if !(head == 64 || head == 100) {
        bail!("strict: head must be 64 or 100, got {head}")
    }
    if head % 8 != 0 {
        bail!("strict: a head of {head} is not a multiple of 8")
    }
    Ok(q.clone())
}

pub fn only_fused(q: &Tensor) -> Result<Tensor> {
    let head = q.dim(3)?;
    if head != 64 {
        bail!("only_fused: head must be 64, got {head}")
    }
    if head > 128 {
        bail!("only_fused: a head of {head} is too large")
    }
    Ok(q.clone())
}

pub(crate) fn dot(n: usize, xs: &[f32]) -> f32 {
    debug_assert!(n % 32 == 0, "dot: {n} is not divisible by 32");
    xs.iter().take(n).sum()
}

pub fn total(xs: &[f32]) -> f32 {
    dot(xs.len() / 32 * 32, xs)
}
"""


def _records(tmp_path: Path) -> dict[str, dict[str, Any]]:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "lib.rs").write_text(KERNELS)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/kernels"))
    with SQLiteStore(tmp_path / "k.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {row.message: record_to_dict(store.record(row.id)) for row in store.records()}


def _page(records: dict[str, dict[str, Any]], start: str) -> dict[str, Any]:
    (found,) = [r for message, r in records.items() if message.startswith(start)]
    return found


def test_a_check_an_earlier_one_makes_pass_leads_with_the_place_that_can_fail(
    tmp_path: Path,
) -> None:
    record = _page(_records(tmp_path), "head size must be")
    page = record["explanation"]
    # Two places: in `fused` only 64, 128 or 256 get there, all multiples of 8.
    assert page["summary"].startswith("`q.dim(3)` must be a multiple of 8 when calling `plain`")
    assert ("the check that raises at line 4 before it lets through only `64`, `128`, `256` "
            "for `head`, and each of those passes it") in page["what_it_means"]


def test_a_check_no_value_can_fail_is_a_bug_to_report(tmp_path: Path) -> None:
    records = _records(tmp_path)
    page = _page(records, "only_fused: a head")["explanation"]
    assert page["summary"].startswith("This check cannot fail at this commit")
    assert page["solutions"][0].startswith("Nothing to change on your side")
    # 100 gets past the first check of `strict` and fails the second: it can fail.
    strict = _page(records, "strict: a head")["explanation"]
    assert "cannot fail" not in strict["summary"]


def test_a_debug_assert_in_the_library_s_own_code_is_an_invariant(tmp_path: Path) -> None:
    page = _page(_records(tmp_path), "dot: {n}")["explanation"]
    assert "hit a debug-only assertion in the library's own code" in page["summary"]
    assert "Change `n`" not in " ".join(page["solutions"])
    assert page["solutions"][0].startswith("Nothing to change on your side")
