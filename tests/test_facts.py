"""Facts read from guards and snippets: the requirement a guard implies, the names it reads,
where a value comes from. Expected strings are exact: they are what a page shows."""

from __future__ import annotations

import pytest

from errdex.analyze.facts import (
    find_origins,
    guarded_names,
    known_names,
    receiver,
    requirement,
    stable_literal,
)
from errdex.models import (
    Language,
    Placeholder,
    Record,
    SiteKind,
    Template,
    record_id,
)
from tests.builders import P, R, make_site

RUST_CASES = [
    ("self.kv_repeat != 1", "`kv_repeat` must be 1"),
    ("!(a.len() == b.len())", "`a.len()` must equal `b.len()`"),
    (
        "q_l.dim(D::Minus1)? != k_l.dim(D::Minus1)?",
        "`q_l` and `k_l` must have the same last dimension",
    ),
    (
        "v.dim(D::Minus(3))? != k.dim(D::Minus(3))?",
        "`v` and `k` must have the same third-to-last dimension",
    ),
    ("a.dims()[0] != b.dims()[0]", "`a` and `b` must have the same dimension 0"),
    ("a.dtype() != b.dtype()", "`a` and `b` must have the same dtype"),
    ("!matches!(xs.dtype(), DType::F32)", "`xs.dtype()` must match `DType::F32`"),
    ("matches!(mode, Mode::Paged)", "`mode` must not match `Mode::Paged`"),
    ("matches!(kind, 4)", "`kind` must not be 4"),
    ("!matches!(n, 1 | 2)", "`n` must be one of 1, 2"),
    ("a < 0 || a >= n", "`a` must be at least 0 and less than `n`"),
    ("x.is_empty() && y > 3", "one of: `x` must not be empty; `y` must be at most 3"),
    ("q % k != 0", "`q` must be a multiple of `k`"),
    ("!t.is_contiguous()", "`t` must be contiguous"),
    ("xs.is_empty()", "`xs` must not be empty"),
    ("!path.exists()", "`path` must exist"),
    ("let Some(x) = self.page_block_size else", "`page_block_size` must be set (not None)"),
    ("!paged", "`paged` must be true"),
    ("self.training", "`training` must be false"),
    ("0 > n", "`n` must be at least 0"),
    ("n > self.max_len", "`n` must be at most `max_len`"),
    ("idx >= dims.len()", "`idx` must be less than `dims.len()`"),
    ("rank <= 1", "`rank` must be greater than 1"),
    ("!self.map.contains_key(&name)", "`map` must contain the key `name`"),
    ("self.shape() != rhs.shape()", "`self` and `rhs` must have the same shape"),
    ("(a != b) || (c != d)", "all of: `a` must equal `b`; `c` must equal `d`"),
    ("dtype == DType::U8", "`dtype` must differ from `DType::U8`"),
    ("scale == 0.0", "`scale` must not be 0.0"),
    ("opt.is_none()", "`opt` must not be None"),
]
PYTHON_CASES = [
    ("x.shape[-1] != y.shape[-1]", "`x` and `y` must have the same last dimension"),
    ("not isinstance(x, int)", "`x` must be an instance of `int`"),
    ("isinstance(x, (int, float))", "`x` must not be an instance of `int` or `float`"),
    ("x is None", "`x` must not be None"),
    ("x is not None", "`x` must be None"),
    ("n < 0", "`n` must be at least 0"),
    ("key not in self._map", "`key` must be in `self._map`"),
    ("key in seen", "`key` must not be in `seen`"),
    ("not 0 <= i < n", "`i` must be at least 0 and less than `n`"),
    ("mode not in ('r', 'w')", "`mode` must be one of `'r'`, `'w'`"),
    ("not hasattr(obj, 'read')", "`obj` must have an attribute `read`"),
    ("not os.path.exists(path)", "`path` must exist"),
    ("not callable(func)", "`func` must be callable"),
    ("len(shape) != 3", "`len(shape)` must be 3"),
    ("not name.startswith('_')", "`name` must start with `'_'`"),
    ("x is None or y is None", "all of: `x` must not be None; `y` must not be None"),
    ("a and b", "one of: `a` must be falsy; `b` must be falsy"),
    ("not name", "`name` must be truthy (not None, empty or zero)"),
    ("not (lo <= hi)", "`lo` must be at most `hi`"),
    ("match cmd: case 'quit'", "`cmd` must not be `'quit'`"),
    ("parameters == ()", "`parameters` must not be empty"),
    ("name != ''", "`name` must be empty"),
]


@pytest.mark.parametrize(("guard", "expected"), RUST_CASES)
def test_requirement_rust(guard: str, expected: str) -> None:
    assert requirement(guard, R) == expected


@pytest.mark.parametrize(("guard", "expected"), PYTHON_CASES)
def test_requirement_python(guard: str, expected: str) -> None:
    assert requirement(guard, P) == expected


@pytest.mark.parametrize(
    ("guard", "language"),
    [
        ("foo bar baz", P),
        ("x = 3", P),
        ("", R),
        ("a if b else c", P),
        ("{ let x = 1; x }", R),
        ("except KeyError", P),
        ("match cmd: case _", P),
        ("'literal'", P),
    ],
)
def test_requirement_unparseable_is_none(guard: str, language: Language) -> None:
    assert requirement(guard, language) is None


@pytest.mark.parametrize(
    ("guard", "language", "expected"),
    [
        ("self.kv_repeat != 1", R, ("kv_repeat",)),
        ("q_l.dim(D::Minus1)? != k_l.dim(D::Minus1)?", R, ("q_l", "k_l")),
        ("not isinstance(x, int)", P, ("x",)),
        ("key not in self._map", P, ("key", "_map")),
        ("!matches!(xs.dtype(), DType::F32)", R, ("xs",)),
        ("self.cfg.n_heads % n_kv != 0", R, ("cfg.n_heads", "n_kv")),
        ("not hasattr(obj, 'read')", P, ("obj",)),
    ],
)
def test_guarded_names(guard: str, language: Language, expected: tuple[str, ...]) -> None:
    assert guarded_names(guard, language) == expected


CONSTRUCTOR = """\
        Ok(Self {
            kv_repeat: cfg.kv_repeat,
            num_heads: cfg.num_heads,
        })
    }

    pub fn forward(&mut self, xs: &Tensor, mask: Option<&Tensor>) -> Result<Tensor> {
        if self.kv_repeat != 1 {
            candle::bail!("only kv-repeat = 1 is supported")
        }"""


def test_origin_of_a_struct_field_and_a_parameter() -> None:
    site = make_site(
        "self.kv_repeat != 1", snippet=CONSTRUCTOR, start=10, line=18, function="A::forward"
    )
    origins = find_origins(site, ("kv_repeat", "xs"))
    assert [(o.name, o.how, o.expression, o.line) for o in origins] == [
        ("kv_repeat", "field", "cfg.kv_repeat", 11),
        ("xs", "parameter", "&Tensor", 16),
    ]


def test_struct_definitions_are_not_origins() -> None:
    snippet = 'pub struct A {\n    kv_repeat: usize,\n}\nfn f(&self) {\n    bail!("x")\n}'
    site = make_site("self.kv_repeat != 1", snippet=snippet, line=5, function="A::f")
    assert find_origins(site, ("kv_repeat",)) == ()


def test_python_attribute_and_parameter_origins() -> None:
    snippet = (
        "def __init__(self, limit):\n    self.limit = limit * 2\n\n"
        "def take(self, n):\n    if n > self.limit:\n        raise ValueError('too many')\n"
    )
    site = make_site("n > self.limit", language=P, snippet=snippet, line=6, function="m.C.take")
    found = {(o.name, o.how, o.expression) for o in find_origins(site, ("n", "limit"))}
    assert found == {("limit", "field", "limit * 2"), ("n", "parameter", "")}


def test_receiver_of_expect_on_a_continued_line() -> None:
    snippet = '    let file = std::fs::File::open(path)\n        .expect("failed to open");'
    site = make_site(None, kind=SiteKind.EXPECT, snippet=snippet, start=20, line=21)
    assert receiver(site, "expect") == "std::fs::File::open(path)"


def test_stable_literal_is_the_longest_literal_run() -> None:
    holes = (Placeholder("k", "k_l.shape()", ":?"), Placeholder("v", "v_l.shape()", ":?"))
    template = Template(
        "shape mismatch k {:?} and v {:?}", ("shape mismatch k ", " and v ", ""), holes
    )
    site = make_site()
    record = Record(
        record_id("r", template), "r", None, None, None, R, SiteKind.BAIL, None, template,
        (site,), (None,),
    )  # fmt: skip
    assert stable_literal(record) == "shape mismatch k"
    assert {"shape", "mismatch", "f", "src", "lib", "rs"} <= known_names(record)
