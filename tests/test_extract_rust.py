"""The Rust extractor: the fixture crate against its expected sites, the format parser,
robustness, and (when a checkout is present) candle's seed sites."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errdex.extract import OverBudget, Rule, load_rules, resolve_constructions
from errdex.extract.structure import Condition
from errdex.extract.templates import Hole, build_template
from errdex.languages.rust.extractor import RustExtractor, literal_value, parse_format, unescape
from errdex.models import FileExtraction, Language, Site, SiteKind

FIXTURE = Path(__file__).parent / "fixtures" / "rust_repo"
CANDLE = Path("/work/candle")


@pytest.fixture(scope="module")
def rules() -> list[Rule]:
    return load_rules(Language.RUST)


def _extract_tree(root: Path, rules: list[Rule]) -> list[tuple[str, FileExtraction]]:
    extractor = RustExtractor()
    out = []
    for file in sorted(root.rglob("*.rs")):
        rel = file.relative_to(root).as_posix()
        out.append((rel, extractor.extract(rel, file.read_bytes(), rules)))
    return out


def _site_dict(site: Site) -> dict[str, object]:
    return {
        "path": site.path,
        "line": site.line,
        "end_line": site.end_line,
        "kind": site.kind.value,
        "template": site.template.text,
        "placeholders": [[p.name, p.expression, p.spec] for p in site.template.placeholders],
        "function": site.function,
        "guard": site.guard,
        "exception": site.exception,
        "bound": [list(pair) for pair in site.bound],
    }


def _extract_one(source: str, rules: list[Rule], path: str = "src/x.rs") -> FileExtraction:
    return RustExtractor().extract(path, source.encode(), rules)


# --------------------------------------------------------------------------------------
# The fixture crate


def test_fixture_matches_expected(rules: list[Rule]) -> None:
    expected = json.loads((FIXTURE / "expected.json").read_text(encoding="utf-8"))
    extracted = _extract_tree(FIXTURE, rules)
    extractions = [e for _, e in extracted]
    sites = [s for e in extractions for s in e.sites] + resolve_constructions(extractions)
    sites.sort(key=lambda s: (s.path, s.line, s.template.text))
    assert [_site_dict(s) for s in sites] == expected["sites"]
    definitions = [
        {
            "path": d.path,
            "line": d.line,
            "owner": d.owner,
            "name": d.name,
            "template": d.template.text,
            "fields": list(d.fields),
        }
        for e in extractions
        for d in e.definitions
    ]
    assert definitions == expected["definitions"]
    dynamic = {path: e.dynamic_sites for path, e in extracted if e.dynamic_sites}
    assert dynamic == expected["dynamic_sites"]


def test_fixture_sites_are_well_formed(rules: list[Rule]) -> None:
    for path, extraction in _extract_tree(FIXTURE, rules):
        lines = (FIXTURE / path).read_bytes().split(b"\n")
        for site in extraction.sites:
            assert site.language is Language.RUST
            assert site.path == path
            assert 1 <= site.line <= site.end_line <= len(lines)
            assert site.snippet.start_line == max(1, site.line - 15)
            n = len(site.snippet.code.split("\n"))
            assert site.snippet.start_line + n - 1 == min(len(lines), site.line + 20)
        for built in extraction.constructions:
            assert built.language is Language.RUST


def test_test_modules_are_skipped(rules: list[Rule]) -> None:
    extraction = RustExtractor().extract(
        "src/ops.rs", (FIXTURE / "src" / "ops.rs").read_bytes(), rules
    )
    texts = {s.template.text for s in extraction.sites}
    assert "not a library error" not in texts
    assert "should fail" not in texts
    assert "test only" not in texts


# --------------------------------------------------------------------------------------
# The format parser


def _holes(pieces: list[str | Hole]) -> list[Hole]:
    return [p for p in pieces if isinstance(p, Hole)]


def test_format_positional_and_debug() -> None:
    pieces = parse_format("shape mismatch k {:?} and v {:?}", ["k_l.shape()", "v_l.shape()"])
    assert pieces == [
        "shape mismatch k ",
        Hole("k_l.shape()", ":?"),
        " and v ",
        Hole("v_l.shape()", ":?"),
    ]
    template = build_template("shape mismatch k {:?} and v {:?}", pieces)
    assert template.text == "shape mismatch k {k} and v {v}"


def test_format_pretty_debug_and_explicit_index() -> None:
    pieces = parse_format("{1} then {0:#?} then {}", ["a", "b"])
    assert _holes(pieces) == [Hole("b", ""), Hole("a", ":#?"), Hole("a", "")]


def test_format_named_and_implicit_capture() -> None:
    pieces = parse_format("{name:?} and {kv_repeat}", [], {"name": "self.name()"})
    assert _holes(pieces) == [
        Hole("self.name()", ":?", name="name"),
        Hole("kv_repeat", "", name="kv_repeat"),
    ]


@pytest.mark.parametrize(
    "spec",
    [":>8.3", ":08b", ":<5", ":^10", ":+", ":#x", ":#010x", ":e", ":*^7", ":.3", ":10.3e"],
)
def test_format_specs_are_kept(spec: str) -> None:
    pieces = parse_format("v=" + "{" + spec + "}", ["x"])
    assert pieces == ["v=", Hole("x", spec)]


def test_format_precision_star_takes_two_arguments() -> None:
    assert _holes(parse_format("{:.*} {}", ["3", "value", "next"])) == [
        Hole("value", ":.*"),
        Hole("next", ""),
    ]
    # A named value with `.*` still reads the precision from the next positional.
    assert _holes(parse_format("{x:.*} {}", ["3", "after"])) == [
        Hole("x", ":.*", name="x"),
        Hole("after", ""),
    ]


def test_format_width_parameter_does_not_consume() -> None:
    assert _holes(parse_format("{:1$} {}", ["a", "5"])) == [Hole("a", ":1$"), Hole("5", "")]
    assert _holes(parse_format("{:width$}", ["a"], {"width": "8"})) == [Hole("a", ":width$")]


def test_format_escaped_braces() -> None:
    assert parse_format("{{literal}} {} }}{{", ["x"]) == ["{literal} ", Hole("x", ""), " }{"]
    template = build_template("{{a}} {}", parse_format("{{a}} {}", ["x"]))
    assert template.literals == ("{a} ", "")
    assert template.text == "{{a}} {x}"


def test_format_fill_brace_and_missing_arguments() -> None:
    assert _holes(parse_format("{:}>5}", ["x"])) == [Hole("x", ":}>5")]
    assert _holes(parse_format("{} {}", ["only"])) == [Hole("only", ""), Hole("", "")]
    assert parse_format("unclosed {brace", []) == ["unclosed {brace"]


def test_format_thiserror_fields() -> None:
    pieces = parse_format("dtype {0:?} for op {1} ({})", [".len"], numbered_fields=True)
    assert _holes(pieces) == [Hole("0", ":?", name="0"), Hole("1", "", name="1"), Hole(".len")]
    assert build_template("", pieces).text == "dtype {dtype} for op {op} ({len})"


def test_unescape() -> None:
    assert unescape(r"a\nb\tc\\d\"e\'f\0") == "a\nb\tc\\d\"e'f\0"
    assert unescape(r"\x41\u{1F600}\u{2192}") == "A\U0001f600\u2192"
    assert unescape("one \\\n        two") == "one two"
    assert unescape("one \\\r\n  two") == "one two"
    assert unescape("trailing \\") == "trailing \\"


def test_literal_value() -> None:
    assert literal_value('"a\\nb"') == "a\nb"
    assert literal_value('r"a\\nb"') == "a\\nb"
    assert literal_value('r#"say "hi""#') == 'say "hi"'
    assert literal_value('r##"x"#y"##') == 'x"#y'
    assert literal_value('b"bytes"') == "bytes"
    assert literal_value("ident") is None


# --------------------------------------------------------------------------------------
# Single constructs


def test_macro_paths_and_function_names(rules: list[Rule]) -> None:
    source = """
impl<T: Clone> Foo<T> {
    fn a(&self) -> Result<()> { candle::bail!("from a") }
}
impl std::fmt::Display for crate::Bar<u8> {
    fn b(&self) { crate::bail!("from b"); }
}
trait Tr { fn c(&self) -> Result<()> { anyhow::bail!("from c") } }
fn outer() { fn inner() { bail!("from inner") } }
static S: () = { panic!("module level") };
"""
    sites = _extract_one(source, rules).sites
    assert [(s.template.text, s.function) for s in sites] == [
        ("from a", "Foo::a"),
        ("from b", "Bar::b"),
        ("from c", "Tr::c"),
        ("from inner", "outer::inner"),
        ("module level", None),
    ]


def test_guards(rules: list[Rule]) -> None:
    source = """
fn f(x: Option<u8>, y: u8) -> Result<()> {
    if y > 3 { bail!("big") } else { bail!("small") }
    if let Some(v) = x { bail!("has {v}") } else { bail!("none") }
    let Some(z) = x else { bail!("let else") };
    match x {
        Some(n) if n > 2 => bail!("guarded arm"),
        Some(1) => bail!("one"),
        _ => bail!("rest"),
    }
    ensure!(y != 0, "ensure");
    assert_eq!(y, 1, "eq");
    assert_ne!(y, 2, "ne");
    debug_assert!(y < 9, "dbg");
    bail!("unguarded")
}
"""
    sites = _extract_one(source, rules).sites
    assert [(s.template.text, s.guard) for s in sites] == [
        ("big", "y > 3"),
        ("small", "!(y > 3)"),
        ("has {v}", "matches!(x, Some(v))"),
        ("none", "!matches!(x, Some(v))"),
        ("let else", "!matches!(x, Some(z))"),
        ("guarded arm", "matches!(x, Some(n) if n > 2)"),
        ("one", "matches!(x, Some(1))"),
        ("rest", "!matches!(x, Some(1))"),
        ("ensure", "!(y != 0)"),
        ("eq", "y != 1"),
        ("ne", "y == 2"),
        ("dbg", "!(y < 9)"),
        ("unguarded", None),
    ]
    assert {s.kind for s in sites} == {SiteKind.BAIL, SiteKind.ASSERT}


def test_turbofish_commas_do_not_split_arguments(rules: list[Rule]) -> None:
    source = """
fn f() {
    assert_eq!(a, f::<N, Vec<u8>>(), "first {}", g::<A, B>(x));
    assert_eq!(approx(r, 4), correct::<N, D>());
}
"""
    extraction = _extract_one(source, rules)
    assert [(s.template.text, s.guard) for s in extraction.sites] == [
        ("first {first}", "a != f::<N, Vec<u8>>()")
    ]
    assert extraction.sites[0].template.placeholders[0].expression == "g::<A, B>(x)"
    assert extraction.dynamic_sites == 0


def test_err_wraps_text_only(rules: list[Rule]) -> None:
    source = """
fn f(e: E) -> Result<(), String> {
    if a { return Err(e); }
    if b { return Err(anyhow!("inner {}", 1)); }
    if c { return Err(String::from("from string")); }
    Err(format!("formatted {e}").into())
}
"""
    extraction = _extract_one(source, rules)
    assert [s.template.text for s in extraction.sites] == [
        "inner {inner}",
        "from string",
        "formatted {e}",
    ]
    assert extraction.dynamic_sites == 0


def test_dynamic_messages_are_counted(rules: list[Rule]) -> None:
    source = """
fn f(e: E, m: String) -> Result<()> {
    x.expect(&m);
    x.context(e);
    Error::msg(e);
    panic!("{}", m);
    bail!(e)
}
"""
    extraction = _extract_one(source, rules)
    assert extraction.sites == ()
    assert extraction.dynamic_sites == 5


def test_constructions(rules: list[Rule]) -> None:
    source = """
impl Error {
    fn a() -> Self { Self::Unit }
}
fn f() -> Result<()> {
    let e = Error::Shape { lhs: a.shape(), op: "add" };
    let t = crate::Error::Tuple(1, "two");
    let b = Bare { x };
    Err(Error::NoValue)?;
    match x { Error::InPattern => {} }
    let ok = Some(3);
    Ok(())
}
"""
    built = _extract_one(source, rules).constructions
    assert [(c.type_path, c.field_values, c.function) for c in built] == [
        ("Error::Unit", (), "Error::a"),
        ("Error::Shape", (("lhs", "a.shape()"), ("op", '"add"')), "f"),
        ("crate::Error::Tuple", (("0", "1"), ("1", '"two"')), "f"),
        ("Bare", (("x", "x"),), "f"),
        ("Error::NoValue", (), "f"),
    ]


def test_error_attribute_on_struct_and_transparent(rules: list[Rule]) -> None:
    source = """
#[derive(Debug, Error)]
#[error("bad header: {reason}")]
pub struct HeaderError { reason: String }

#[derive(Debug, Error)]
enum E {
    #[error(transparent)]
    Io(std::io::Error),
    #[error("{0}")]
    Wrapped(String),
    #[error(concat!("joined ", "text {0}"))]
    Joined(u8),
}
"""
    definitions = _extract_one(source, rules).definitions
    assert [(d.owner, d.name, d.template.text, d.fields) for d in definitions] == [
        (None, "HeaderError", "bad header: {reason}", ("reason",)),
        # A transparent variant passes another error's text through: its one hole.
        ("E", "Io", "{source}", ("0",)),
        # Printing one field: text passed for it is the message (errdex.extract.compose).
        ("E", "Wrapped", "{message}", ("0",)),
        ("E", "Joined", "joined text {text}", ("0",)),
    ]
    assert definitions[1].template.placeholders[0].expression == "std::io::Error"


def test_broken_and_odd_input_never_raises(rules: list[Rule]) -> None:
    extractor = RustExtractor()
    for source in [
        b"",
        b"\xff\xfe\x00garbage",
        b"fn f( { bail!(",
        b'fn f() { bail!("\xff\xfe {}", x) }',
        b"macro_rules! m { () => { bail!() } }",
        b'fn f() { panic!(r#"unterminated) }',
        b"fn f() { x.expect() ; Err() ; Error::msg() }",
    ]:
        result = extractor.extract("src/odd.rs", source, rules)
        assert isinstance(result, FileExtraction)
    # Nesting this deep is refused with a reason the index counts, not a crash or a hang.
    with pytest.raises(OverBudget, match="too deeply nested"):
        extractor.extract("src/odd.rs", ("fn f() { " + "(" * 3000 + ")" * 3000 + " }").encode(),
                          rules)
    result = extractor.extract("src/odd.rs", b'fn f() { bail!("\xff\xfe {}", x) }', rules)
    assert [s.template.text for s in result.sites] == ["\ufffd\ufffd {x}"]


def test_custom_rules(rules: list[Rule]) -> None:
    extra = [
        Rule(name="fail", form="macro", kind=SiteKind.BAIL, exception="MyError"),
        Rule(name="Status::invalid", form="call", kind=SiteKind.BAIL),
        Rule(name="or_fail", form="method", kind=SiteKind.EXPECT),
    ]
    source = """
fn f() {
    my::fail!("custom {}", 1);
    grpc::Status::invalid("bad request");
    x.or_fail("custom method");
}
"""
    sites = _extract_one(source, [*rules, *extra]).sites
    assert [(s.template.text, s.exception, s.kind) for s in sites] == [
        ("custom {custom}", "MyError", SiteKind.BAIL),
        ("bad request", None, SiteKind.BAIL),
        ("custom method", None, SiteKind.EXPECT),
    ]


# --------------------------------------------------------------------------------------
# candle


@pytest.mark.skipif(not CANDLE.is_dir(), reason="no candle checkout at /work/candle")
def test_candle_seed_sites(rules: list[Rule]) -> None:
    extractor = RustExtractor()

    def sites_of(rel: str) -> list[Site]:
        return list(extractor.extract(rel, (CANDLE / rel).read_bytes(), rules).sites)

    mimi = "candle-transformers/src/models/mimi/transformer.rs"
    found = [s for s in sites_of(mimi) if s.template.text == "only kv-repeat = 1 is supported"]
    assert [s.line for s in found] == [151, 280]
    assert {s.guard for s in found} == {"self.kv_repeat != 1"}
    assert all(s.kind is SiteKind.BAIL and s.exception is None for s in found)
    assert found[0].function == "StreamingMultiheadAttention::forward"

    ops = "candle-nn/src/ops.rs"
    (dims,) = [s for s in sites_of(ops) if s.template.text == "`k` and `v` head dims must match"]
    assert dims.line == 1065

    flash = "candle-flash-attn/src/lib.rs"
    (shape,) = [s for s in sites_of(flash) if s.line == 563]
    assert shape.template.text == "shape mismatch k {k} and v {v}"
    assert [(p.name, p.expression, p.spec) for p in shape.template.placeholders] == [
        ("k", "k_l.shape()", ":?"),
        ("v", "v_l.shape()", ":?"),
    ]


@pytest.mark.skipif(not CANDLE.is_dir(), reason="no candle checkout at /work/candle")
def test_candle_error_enum_resolves(rules: list[Rule]) -> None:
    extracted = _extract_tree(CANDLE / "candle-core" / "src", rules)
    extractions = [e for _, e in extracted]
    names = {d.name for e in extractions for d in e.definitions}
    assert {"ShapeMismatchBinaryOp", "UnexpectedDType", "DimOutOfRange"} <= names
    # `#[error("{0}")]` has no text of its own: only constructions passing text give sites.
    assert all(d.template.literal_chars == 0 for e in extractions for d in e.definitions
               if d.name == "Msg")
    resolved = resolve_constructions(extractions)
    assert all(s.template.literal_chars for s in resolved if s.variant == "Msg")
    shape = [s for s in resolved if s.variant == "ShapeMismatchBinaryOp"]
    assert shape
    assert all(s.exception == "Error::ShapeMismatchBinaryOp" for s in shape)
    assert any(dict(s.bound).get("op", "").startswith('"') for s in shape)


def test_comments_inside_a_condition_stay_out_of_its_guard(rules: list[Rule]) -> None:
    """Issue 17: a `// why` or `/* note */` written inside a condition is not part of it."""
    source = """
fn check(a: usize, b: usize) -> Result<()> {
    if a > 2 // the limit
        && b == 0 /* empty */ {
        bail!("too big: {a}");
    }
    ensure!(a != 3 /* three is reserved */, "three is reserved");
    assert_eq!(a, // left
               b, "a and b differ");
    Ok(())
}
"""
    sites = _extract_one(source, rules).sites
    assert [(s.template.text, s.guard) for s in sites] == [
        ("too big: {a}", "a > 2 && b == 0"),
        ("three is reserved", "!(a != 3)"),
        ("a and b differ", "a != b"),
    ]


def test_a_site_carries_the_whole_path_of_conditions_that_leads_to_it(
    rules: list[Rule],
) -> None:
    """Besides its guard (the innermost condition), a site's extraction holds every step
    that leads to it: earlier `?` and `ensure!`, earlier `if c { bail!() }`, `let .. else`,
    the arms before its `match` arm, and the `if` it is in the `else` of."""
    source = """
fn check(a: usize, t: &Tensor) -> Result<()> {
    let dims = t.dims()?;
    ensure!(a > 0, "a must be positive");
    if a == 7 { bail!("seven is bad") }
    let Some(x) = t.first() else { bail!("empty") };
    match t.dtype() {
        DType::F32 => {}
        other => {
            if a > 10 {
                bail!("too big")
            } else {
                bail!("in the middle")
            }
        }
    }
}
"""
    extraction = _extract_one(source, rules)
    site = next(s for s in extraction.sites if s.template.text == "in the middle")
    assert site.guard == "!(a > 10)"
    assert extraction.structure is not None
    path = extraction.structure.path_at(site.line, site.end_line)
    assert path is not None
    shown = [(step.kind, _shown(step.condition)) for step in path.steps]
    assert shown == [
        ("try", "t.dims()"),
        ("early_exit", "a > 0"),
        ("early_exit", "not a == 7"),
        ("early_exit", "t.first() matches Some(x)"),
        ("arm", "not t.dtype() matches DType::F32"),
        ("else", "not a > 10"),
    ]


def _shown(condition: Condition) -> str:
    if condition.kind == "not":
        return "not " + _shown(condition.parts[0])
    if condition.kind == "matches":
        return f"{condition.subject} matches {condition.text}"
    if condition.kind == "all":
        return " and ".join(_shown(part) for part in condition.parts)
    return condition.text


def test_an_error_built_in_a_fallback_is_guarded_by_its_receiver(rules: list[Rule]) -> None:
    """`x.ok_or_else(|| anyhow!(..))?` fails when `x` is None, whatever `if` it sits in:
    that is its guard (and the last step of its path), not the enclosing `if flag`."""
    found = _extract_one(
        """fn load(map: &HashMap<String, usize>, name: &str, flag: bool) -> Result<usize> {
    if flag {
        let v = map.get(name).ok_or_else(|| anyhow!("no tensor named {name}"))?;
        let w = parse(name)
            .map_err(|e| anyhow!("bad name {name}: {e}"))?;
        let z = map.get("x").ok_or(anyhow!("no x in the map"))?;
        return Ok(*v + w + z);
    }
    Ok(0)
}
""",
        rules,
    )
    guards = {s.template.text: s.guard for s in found.sites}
    assert guards == {"no tensor named {name}": "map.get(name).is_none()",
                      "bad name {name}: {e}": "parse(name).is_err()",
                      "no x in the map": 'map.get("x").is_none()'}  # fmt: skip
    assert found.structure is not None
    path = found.structure.path_at(3, 3)
    assert path is not None and [s.kind for s in path.steps] == ["if", "if"]
    assert path.steps[-1].condition == Condition("test", "map.get(name).is_none()")
