"""Related errors: same function first, then same file (nearest lines), then similar
messages; never the record itself."""

from __future__ import annotations

from errdex.analyze.related import find_related
from errdex.models import Record
from tests import builders


def make_record(message: str, path: str, line: int, function: str | None) -> Record:
    return builders.make_record(message, path=path, line=line, function=function)


def test_order_is_function_then_file_then_text() -> None:
    me = make_record("paged cache shape mismatch for k", "a.rs", 50, "Attn::forward")
    same_fn = make_record("query heads must divide kv heads", "a.rs", 60, "Attn::forward")
    near_in_file = make_record("window must be positive", "a.rs", 90, "Attn::new")
    far_in_file = make_record("bad rope config", "a.rs", 400, "Rope::new")
    similar = make_record("paged cache shape mismatch for v", "b.rs", 10, "Other::run")
    unrelated = make_record("cannot open socket", "c.rs", 10, "Net::dial")
    records = [unrelated, similar, far_in_file, near_in_file, same_fn, me]
    related = find_related(records)[me.id]
    assert [r.id for r in related] == [same_fn.id, near_in_file.id, far_in_file.id, similar.id]
    assert [r.reason for r in related] == [
        "same function: Attn::forward",
        "same file: a.rs",
        "same file: a.rs",
        "similar message",
    ]
    assert related[0].message == "query heads must divide kv heads"


def test_never_itself_and_limit_holds() -> None:
    records = [make_record(f"error number {i} in loader", "x.rs", i, "load") for i in range(12)]
    out = find_related(records, limit=5)
    for record in records:
        assert len(out[record.id]) == 5
        assert record.id not in {r.id for r in out[record.id]}
        assert len({r.id for r in out[record.id]}) == 5


def test_text_needs_a_shared_word() -> None:
    a = make_record("tokenizer vocabulary missing", "a.py", 1, None)
    b = make_record("disk quota exceeded", "b.py", 1, None)
    assert find_related([a, b]) == {a.id: (), b.id: ()}


def test_twenty_thousand_records() -> None:
    words = [f"w{i}" for i in range(3000)]
    records = [
        make_record(
            " ".join(words[(i * k * 7919) % 3000] for k in range(1, 7)) + f" n{i}",
            f"src/m{i // 500}.rs",
            i % 500,
            None,
        )
        for i in range(20_000)
    ]
    out = find_related(records, limit=5)
    assert len(out) == 20_000
    assert all(len(found) <= 5 and r.id not in {x.id for x in found}
               for r, found in ((r, out[r.id]) for r in records))
