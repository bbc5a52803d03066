"""Explanations written from facts: every section filled, the real names used, and no name
that the record (or its siblings) doesn't contain."""

from __future__ import annotations

import re
from dataclasses import astuple

import pytest

from errdex.analyze.facts import known_names
from errdex.models import (
    Explanation,
    Record,
    Site,
    SiteKind,
    Snippet,
    Template,
)
from errdex.write.prose import write_explanation
from tests.builders import P, R, make_record

KV_SNIPPET = """\
            rope: rope.clone(),
            kv_repeat: cfg.kv_repeat,
            num_heads: cfg.num_heads,
        })
    }

    pub fn forward(&mut self, xs: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        let _enter = self.span.enter();
        if self.kv_repeat != 1 {
            candle::bail!("only kv-repeat = 1 is supported")
        }"""
KV = make_record(
    "only kv-repeat = 1 is supported",
    "self.kv_repeat != 1",
    function="StreamingMultiheadAttention::forward",
    snippet=KV_SNIPPET,
    start=142,
    line=151,
    path="candle-transformers/src/models/mimi/transformer.rs",
)
PY_SNIPPET = """\
class Packer:
    def pack(self, count, items=None):
        if not isinstance(count, int):
            raise TypeError(f"count must be an int, got {type(count).__name__}")
"""
PY_TYPE = make_record(
    "count must be an int, got {}",
    "not isinstance(count, int)",
    language=P,
    kind=SiteKind.RAISE,
    function="mypkg.packer.Packer.pack",
    snippet=PY_SNIPPET,
    line=4,
    path="mypkg/packer.py",
    exception="TypeError",
    holes=[("arg0", "type(count).__name__")],
)
PANIC_SNIPPET = """\
    fn dispatch(&self, op: Op) -> Result<()> {
        match op {
            Op::Add => self.add(),
            _ => unimplemented!("no cuda support for {op:?}"),
        }"""
PANIC = make_record(
    "no cuda support for {op:?}",
    kind=SiteKind.PANIC,
    function="CudaBackend::dispatch",
    snippet=PANIC_SNIPPET,
    start=10,
    line=13,
    holes=[("op", "op")],
)
ENUM_SNIPPET = """\
    fn add(&self, rhs: &Self) -> Result<Self> {
        if self.shape() != rhs.shape() {
            let (lhs, rhs) = (self.shape().clone(), rhs.shape().clone());
            return Err(Error::ShapeMismatchBinaryOp { lhs, rhs, op: "add" });
        }"""
ENUM = make_record(
    "shape mismatch in {op}, lhs: {lhs:?}, rhs: {rhs:?}",
    "self.shape() != rhs.shape()",
    kind=SiteKind.ERROR_ENUM,
    function="Tensor::add",
    snippet=ENUM_SNIPPET,
    start=10,
    line=12,
    exception="Error::ShapeMismatchBinaryOp",
    holes=[("op", "op"), ("lhs", "lhs"), ("rhs", "rhs")],
    variant="ShapeMismatchBinaryOp",
    fields=("lhs", "rhs", "op"),
)
_SECOND = Site(
    R, SiteKind.BAIL, None, Template.literal("unexpected rank"), "src/conv.rs", 40, 40,
    "conv2d", "x.rank() != 4", Snippet(39, "if x.rank() != 4 {\n    bail!(\"unexpected rank\")"),
)  # fmt: skip
MULTI = make_record(
    "unexpected rank",
    "x.rank() != 3",
    function="conv1d",
    path="src/conv.rs",
    line=20,
    start=19,
    snippet='    if x.rank() != 3 {\n        bail!("unexpected rank")',
    more_sites=[_SECOND],
)
EXPECT = make_record(
    "failed to open weights",
    kind=SiteKind.EXPECT,
    function="load",
    snippet='    let file = std::fs::File::open(path)\n        .expect("failed to open weights");',
    start=20,
    line=21,
)
WARN = make_record(
    "lazy loading is slow",
    "self.lazy",
    language=P,
    kind=SiteKind.WARN,
    function="pkg.io.Reader.read",
    snippet="def read(self):\n    if self.lazy:\n        warnings.warn('lazy loading is slow')",
    line=3,
    path="pkg/io.py",
    exception="UserWarning",
)
PARSE = make_record(
    "bad token at line {line}",
    "tok not in TOKENS",
    language=P,
    kind=SiteKind.RAISE,
    function="pkg.lexer.lex",
    snippet="def lex(text):\n    for tok in text.split():\n        if tok not in TOKENS:\n"
    "            raise ParseError(line=1)",
    line=4,
    path="pkg/lexer.py",
    exception="ParseError",
    holes=[("line", "line")],
    variant="ParseError",
    fields=("line",),
)
HANDLER = make_record(
    "cannot read config",
    "except KeyError",
    language=P,
    kind=SiteKind.RAISE,
    function="pkg.cfg.load",
    snippet="def load(d):\n    try:\n        return d['x']\n    except KeyError:\n"
    "        raise ValueError('cannot read config')",
    line=5,
    path="pkg/cfg.py",
    exception="ValueError",
)
ALL = [KV, PY_TYPE, PANIC, ENUM, MULTI, EXPECT, WARN, PARSE, HANDLER]


def _text_fields(e: Explanation) -> list[str]:
    return [e.summary, e.what_it_means, *e.solutions, *e.prevention, e.trigger,
            *e.common_situations]  # fmt: skip


def _code_fields(e: Explanation) -> list[str]:
    d = e.defensive
    return [e.example_fix.before, e.example_fix.after, d.validate, d.type_guard, d.try_catch]


# Words the code snippets may use although no record holds them: the languages' own.
_RUST_WORDS = """let fn if return Err Ok match into e v p s std panic catch_unwind downcast_ref
String is_some_and contains resume_unwind to_string format bool error Error dyn ok self Self mut
map as_str or_else copied unwrap_or_default text str AssertUnwindSafe"""
_PYTHON_WORDS = """and if raise try except as e from str in not is None isinstance def return bool
BaseException Exception RuntimeError ValueError AssertionError import warnings with
catch_warnings simplefilter Warning self"""
_VOCABULARY = {
    R: set(_RUST_WORDS.split()),
    P: set(_PYTHON_WORDS.split()),
}  # fmt: skip


def _identifiers(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]\w*", text))


@pytest.mark.parametrize("record", ALL, ids=lambda r: r.template.message[:20])
def test_every_field_is_filled(record: Record) -> None:
    e = write_explanation(record)
    for value in astuple(e.example_fix) + astuple(e.defensive):
        assert value.strip()
    for value in _text_fields(e):
        assert value.strip()
    assert e.solutions and e.prevention and e.common_situations
    assert e.source == "facts"


@pytest.mark.parametrize("record", ALL, ids=lambda r: r.template.message[:20])
def test_no_invented_names(record: Record) -> None:
    siblings = [r for r in ALL if r is not record][:2]
    e = write_explanation(record, siblings)
    known = known_names(record, siblings)
    prose = " ".join(_text_fields(e))
    cited = set().union(*(_identifiers(span) for span in re.findall(r"`([^`]+)`", prose)))
    assert cited <= known, cited - known
    code = "\n".join(_code_fields(e))
    code = re.sub(r"(//|#).*", "", code)  # comments are prose, checked below
    code = re.sub(r'"(?:\\.|[^"\\])*"', '""', code)  # messages and advice are quoted text
    unknown = _identifiers(code) - known - _VOCABULARY[record.language]
    # The type guard is the one name the code defines: a known name plus a fixed affix.
    lowered = {k.lower() for k in known}
    defined = {n for n in unknown if re.sub(r"^is_|_ok$|_error$", "", n) in lowered}
    # The caller's value of a known type: `streaming_multihead_attention` for the receiver.
    defined |= {n for n in unknown if "".join(p.capitalize() for p in n.split("_")) in known}
    assert not unknown - defined, unknown - defined


def test_guarded_rust_bail_reads_like_the_seed() -> None:
    e = write_explanation(KV)
    assert e.summary == "`kv_repeat` must be 1 when calling `StreamingMultiheadAttention::forward`"
    assert "`StreamingMultiheadAttention::forward` checks `self.kv_repeat != 1`" in e.what_it_means
    assert "returns an Err" in e.what_it_means
    assert "`kv_repeat` is copied from `cfg.kv_repeat`" in e.what_it_means
    assert any("`cfg.kv_repeat` is 1" in s for s in e.solutions)
    assert e.example_fix.before.startswith("cfg.kv_repeat = 2;")
    assert e.example_fix.after.startswith("cfg.kv_repeat = 1;")
    assert e.defensive.strategy == "validation"
    assert e.defensive.validate.startswith("if cfg.kv_repeat != 1 {\n    return Err(")
    assert "streaming_multihead_attention.forward(xs, mask)?;" in e.defensive.validate
    assert "kv_repeat == 1" in e.defensive.type_guard
    assert '.contains("only kv-repeat = 1 is supported")' in e.defensive.try_catch
    assert "anything other than 1" in e.trigger


def test_python_isinstance_raise() -> None:
    e = write_explanation(PY_TYPE)
    assert e.summary.startswith("`count` must be an instance of `int`")
    assert "raises `TypeError`" in e.what_it_means
    assert "`count` is a parameter of `pack`" in e.what_it_means
    assert "fills in `type(count).__name__` when" in e.what_it_means  # no invented `{arg0}`
    assert e.example_fix.before.startswith('packer.pack(count="1")')
    assert e.example_fix.after.startswith("packer.pack(count=1)")
    assert e.defensive.strategy == "type check"
    assert "return isinstance(count, int)" in e.defensive.type_guard
    assert "except TypeError as e:" in e.defensive.try_catch
    assert '"count must be an int, got" not in str(e)' in e.defensive.try_catch


def test_unguarded_panic_is_honest() -> None:
    e = write_explanation(PANIC)
    assert e.summary == "`CudaBackend::dispatch` does not implement this case"
    assert "must" not in e.summary
    assert "has not been implemented" in e.what_it_means and "panics" in e.what_it_means
    # Nothing the caller passes selects another path here: the page says so, and says
    # what to do instead (the message's own words, another supported case).
    assert any("no condition in front of it selects another path" in s for s in e.solutions)
    assert e.defensive.strategy == "catch and translate"
    assert "std::panic::catch_unwind" in e.defensive.try_catch
    assert "unimplemented branch" in e.trigger


def test_error_enum_names_the_variant_and_its_fields() -> None:
    e = write_explanation(ENUM)
    assert "returns the error `Error::ShapeMismatchBinaryOp`" in e.what_it_means
    assert "It carries `lhs`, `rhs`, `op`." in e.what_it_means
    # matched by its text: the variant may come back boxed in a backtrace wrapper
    assert "Err(e) if e.to_string().contains(" in e.defensive.try_catch
    assert "`Error::ShapeMismatchBinaryOp`, possibly wrapped" in e.defensive.try_catch
    # `fn add` has no `pub`: not known to be what the user calls, so no requirement on it
    assert e.summary.startswith("Calling `Tensor::add` fails a check")


def test_multi_site_record_mentions_every_place() -> None:
    e = write_explanation(MULTI)
    assert "raised at 2 places" in e.what_it_means
    assert "src/conv.rs:20" in e.what_it_means and "src/conv.rs:40" in e.what_it_means
    assert "`conv2d` (src/conv.rs:40)" in e.trigger
    # the two sites check different conditions: the summary states neither as "the" rule
    assert e.summary.startswith("This message is raised at 2 places in 2 functions, each "
                                "under its own condition")


SIBLING_SNIPPET = """\
pub fn f(a: usize, b: usize, x: &[u8], c: i64) -> Result<()> {
    if a != b { bail!("first") }
    if x.len() > 4 {
        bail!("too long")
    } else if x.is_empty() {
        bail!("second")
    }
    if c < 0 { bail!("third") }
    Ok(())
}"""


def _sibling(message: str, guard: str, line: int) -> Record:
    return make_record(message, guard, line=line, snippet=SIBLING_SNIPPET)


def test_siblings_before_and_after_are_only_those_on_the_path() -> None:
    first, other_arm = _sibling("first", "a != b", 2), _sibling("too long", "x.len() > 4", 4)
    this, third = _sibling("second", "x.is_empty()", 6), _sibling("third", "c < 0", 8)
    e = write_explanation(this, [first, other_arm, third])
    assert 'already checked: `a` must equal `b` ("first")' in e.what_it_means
    # the `if x.len() > 4` arm excludes this one: it is not "already checked" on this path
    assert "too long" not in e.what_it_means and "too long" not in " ".join(e.solutions)
    assert any('goes on to check: `c` must be at least 0 ("third")' in s for s in e.solutions)
    long = write_explanation(other_arm, [first, this, third])
    assert "second" not in long.what_it_means


def test_expect_warn_and_exception_class_phrasing() -> None:
    expect = write_explanation(EXPECT)
    assert expect.summary == (
        "Calling `load` failed: `std::fs::File::open(path)`, inside it, returns None or an Err")
    warn = write_explanation(WARN)
    assert "emits this warning and carries on" in warn.what_it_means
    assert "warnings.catch_warnings()" in warn.defensive.try_catch
    parse = write_explanation(PARSE)
    assert "`ParseError` is an exception class that builds this message itself" in (
        parse.what_it_means
    )
    assert "except ParseError as e:" in parse.defensive.try_catch
    handler = write_explanation(HANDLER)
    assert handler.summary == "`pkg.cfg.load` raises this after catching `KeyError`"
    assert "the caught exception is the real cause" in handler.what_it_means
    assert handler.trigger.startswith("`KeyError` raised inside the try block of `pkg.cfg.load`")
