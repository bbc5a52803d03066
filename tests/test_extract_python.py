"""The Python extractor: every message form, guards, names, exception classes, odd input,
and real stdlib tracebacks pointing at the sites it finds."""

from __future__ import annotations

import json
import re
import sysconfig
import textwrap
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

from errdex.extract import Rule, load_rules, resolve_constructions
from errdex.languages.python.extractor import PythonExtractor, module_name
from errdex.models import FileExtraction, Language, Site, SiteKind, Template

FIXTURE = Path(__file__).parent / "fixtures" / "python_repo"
RULES = [Rule("warnings.warn", "call", SiteKind.WARN), Rule("warn", "call", SiteKind.WARN)]


def extract(
    code: str | bytes, path: str = "pkg/mod.py", rules: list[Rule] = RULES
) -> FileExtraction:
    source = code if isinstance(code, bytes) else textwrap.dedent(code).encode()
    return PythonExtractor().extract(path, source, rules)


def only_site(code: str) -> Site:
    sites = extract(code).sites
    assert len(sites) == 1, sites
    return sites[0]


def message(expression: str, setup: str = "") -> Template:
    """The template of `raise ValueError(<expression>)` inside a function."""
    body = textwrap.indent(textwrap.dedent(setup), "    ")
    code = f"def f(a, b, c, name, x):\n{body}\n    raise ValueError({expression})\n"
    return only_site(code).template


def holes(template: Template) -> list[tuple[str, str, str]]:
    return [(p.name, p.expression, p.spec) for p in template.placeholders]


# --- the fixture package ---------------------------------------------------------------


def extract_fixture() -> dict[str, FileExtraction]:
    rules = load_rules(Language.PYTHON, str(FIXTURE))
    extractor = PythonExtractor()
    found = {}
    for path in sorted(FIXTURE.rglob("*.py")):
        relative = path.relative_to(FIXTURE).as_posix()
        found[relative] = extractor.extract(relative, path.read_bytes(), rules)
    return found


def row(site: Site) -> dict[str, object]:
    return {
        "path": site.path,
        "line": site.line,
        "kind": site.kind.value,
        "exception": site.exception,
        "template": site.template.text,
        "function": site.function,
        "guard": site.guard,
    }


def sort_key(r: dict[str, object]) -> tuple[str, int, str]:
    return (str(r["path"]), int(str(r["line"])), str(r["template"]))


def test_fixture_matches_expected_sites() -> None:
    extractions = list(extract_fixture().values())
    sites = [s for e in extractions for s in e.sites] + resolve_constructions(extractions)
    got = sorted((row(s) for s in sites), key=sort_key)
    expected = sorted(json.loads((FIXTURE / "expected.json").read_text()), key=sort_key)
    assert got == expected


def test_fixture_definitions_and_dynamic_counts() -> None:
    extractions = extract_fixture()
    errors = extractions["pkg/errors.py"]
    found = {d.name: (d.owner, d.fields, d.template.text, d.line) for d in errors.definitions}
    assert found == {
        "ParseError": ("pkg.errors", ("line", "col"), "bad token at {line}:{col}", 8),
        "LimitError": ("pkg.errors", ("name", "limit"), "{name} exceeds the limit of {limit}", 15),
        "MissingKey": ("pkg.errors", ("key",), "missing key {key}", 20),
        "Timeout": ("pkg.errors", ("seconds", "op"), "{op} timed out after {seconds}s", 28),
        "BadState": ("pkg.errors", ("state",), "bad state: {state}", 36),
        "SubParseError": ("pkg.errors", ("line", "col"), "bad token at {line}:{col}", 41),
    }
    # KeyError(key), ValueError(msg), bare `raise RuntimeError`; a bare re-raise isn't a site
    assert extractions["pkg/parser.py"].dynamic_sites == 3
    assert extractions["pkg/checks.py"].dynamic_sites == 1  # assert without a message


def test_fixture_constructions() -> None:
    extractions = list(extract_fixture().values())
    built = {(c.path, c.line): c for e in extractions for c in e.constructions}
    local = built[("pkg/errors.py", 52)]
    assert (local.type_path, local.field_values, local.raised) == (
        "ParseError",
        (("line", "0"), ("col", "0")),
        False,
    )
    raised = built[("pkg/parser.py", 103)]
    assert raised.type_path == "errors.ParseError"
    assert raised.field_values == (("0", "line"), ("col", "col"))
    assert raised.raised and raised.guard == "col < 0"
    assert raised.function == "pkg.parser.error_classes"
    resolved = {(s.path, s.line): s for s in resolve_constructions(extractions)}
    timeout = resolved[("pkg/parser.py", 113)]
    # The call's arguments bind `__init__`'s parameters; what a caught Timeout carries is
    # what `__init__` sets on it (`self.msg`), not those parameters.
    assert timeout.bound == (("op", '"write"'),)
    assert timeout.variant == "Timeout" and timeout.variant_fields == ("msg",)


def test_rules_from_the_repository_config() -> None:
    rules = load_rules(Language.PYTHON, str(FIXTURE))
    names = [r.name for r in rules]
    assert names[:2] == ["warnings.warn", "warn"]
    assert "self.fail" in names
    builtin = load_rules(Language.PYTHON)
    assert all(r.form in ("call", "method") for r in builtin)
    assert "self.fail" not in [r.name for r in builtin]


# --- message forms ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "text"),
    [
        ('"plain"', "plain"),
        ("'single'", "single"),
        ('"""triple\nquoted"""', "triple\nquoted"),
        (r'"tab\there \"q\" \x41\101\u00e9\U0001F600\N{BULLET}\\"', 'tab\there "q" AAé😀•\\'),
        (r'r"raw \d\n"', r"raw \d\n"),
        (r'b"bytes \x41\u0041"', r"bytes A\u0041"),
        (r'"unknown \q escape"', r"unknown \q escape"),
        ('"line \\\ncontinued"', "line continued"),
        ('"implicit " \'concat\' r" \\d"', r"implicit concat \d"),
        ('("paren"\n     " joined")', "paren joined"),
        ('"{not} a format"', "{{not}} a format"),
        ('u"unicode prefix"', "unicode prefix"),
    ],
)
def test_plain_strings(expression: str, text: str) -> None:
    assert message(expression).text == text


def test_fstring_conversions_specs_and_debug() -> None:
    t = message('f"v {a!r:>10} w {b:{c}.{2}f} n {name=} m {x = !s} {{lit}} {a[0]}"')
    assert t.literals == ("v ", " w ", " n name=", " m x = ", " {lit} ", "")
    assert holes(t) == [
        ("a", "a", "!r:>10"),
        ("b", "b", ":{c}.{2}f"),
        ("name", "name", "!r"),
        ("x", "x", "!s"),
        ("a_0", "a[0]", ""),
    ]
    assert t.text == "v {a} w {b} n name={name} m x = {x} {{lit}} {a_0}"


def test_fstring_raw_and_nested_quotes() -> None:
    t = message(r"""rf'\d {a["k"]} \n'""")
    assert t.literals == ("\\d ", " \\n")
    assert holes(t)[0][1] == 'a["k"]'


def test_percent_with_tuple_single_and_dict() -> None:
    t = message('"%s and %d, %r %-10s %.2f 100%%" % (a, b, c, name, x)')
    assert t.literals == ("", " and ", ", ", " ", " ", " 100%")
    assert [h[1:] for h in holes(t)] == [
        ("a", "%s"),
        ("b", "%d"),
        ("c", "%r"),
        ("name", "%-10s"),
        ("x", "%.2f"),
    ]
    assert message('"bad %r" % a').text == "bad {a}"
    assert message('"bad %r" % (a)').text == "bad {a}"
    t = message('"%(key)s is %(val)d" % {"key": a, "val": len(b)}')
    assert holes(t) == [("key", "a", "%(key)s"), ("val", "len(b)", "%(val)d")]
    t = message('"%s/%s" % pair')
    assert [h[1] for h in holes(t)] == ["pair[0]", "pair[1]"]
    t = message('"width %*d" % (a, b)')
    assert holes(t) == [("b", "b", "%*d")]


def test_str_format_indices_names_attributes() -> None:
    t = message('"{}, {}; {0} {name!r:>4} ({1.attr}) {0[key]}!".format(a, b, name=c)')
    assert t.literals == ("", ", ", "; ", " ", " (", ") ", "!")
    assert [h[1:] for h in holes(t)] == [
        ("a", ""),
        ("b", ""),
        ("a", ""),
        ("c", "!r:>4"),
        ("b.attr", ""),
        ("a[key]", ""),
    ]
    assert holes(t)[3][0] == "name"
    assert message('"{{literal}} {}".format(a)').text == "{{literal}} {a}"
    assert message('"{k}!".format_map(a)').text == "{k}!"
    assert holes(message('"{k}!".format_map(a)')) == [("k", "a['k']", "")]
    # a malformed format string stays literal text
    assert message('"bad } brace {}".format(a)').text == "bad }} brace {{}}"


def test_concatenation_str_repr_and_gettext() -> None:
    assert message('"bad value: " + repr(a)').text == "bad value: {a}"
    assert holes(message('"bad value: " + repr(a)')) == [("a", "a", "!r")]
    assert message('"got " + str(a) + " items"').text == "got {a} items"
    assert message('"n=" + str(len(a))').text == "n={n}"
    assert message('"got: " + str(len(a))').text == "got: {len_a}"
    assert message('_("option %s unknown") % a').text == "option {a} unknown"
    assert message('"x" + str("y")').text == "xy"


def test_local_variable_messages() -> None:
    setup = """
    msg = "first"
    if a:
        msg = f"a is {a}"
    else:
        msg = "not a"
    msg += " (" + str(b) + ")"
    """
    # a name assigned in each branch of an `if`: one site per message it may hold
    code = "def f(a, b):\n" + textwrap.indent(textwrap.dedent(setup), "    ") + (
        "\n    raise ValueError(msg)\n")
    assert [s.template.text for s in extract(code).sites] == ["not a ({b})", "a is {a} ({b})"]
    assert message("msg", 'msg = "one"\nother = "two"').text == "one"
    # the nearest assignment *before* the raise, in the same function
    assert message("msg", 'msg = "early"\ndef g():\n    msg = "nested"\n').text == "early"
    t = message("template % (a, b)", 'template = "%s vs %s"')
    assert t.text == "{a} vs {b}"
    code = """
    def f(msg):
        raise ValueError(msg)
    def g():
        msg = "elsewhere"
    """
    assert extract(code).sites == () and extract(code).dynamic_sites == 1


def test_module_constant_messages() -> None:
    code = """
    _MSG = "bad thing: %s"
    def f(x):
        raise ValueError(_MSG % x)
    def g(_MSG):
        raise ValueError(_MSG)
    """
    extraction = extract(code)
    assert [s.template.text for s in extraction.sites] == ["bad thing: {x}"]
    assert extraction.dynamic_sites == 1  # the parameter shadows the constant


def test_message_keyword_and_later_literal_argument() -> None:
    assert message('message="by keyword"').text == "by keyword"
    assert message('msg="short keyword"').text == "short keyword"
    assert message('a, "second argument"').text == "second argument"


# --- sites: kinds, lines, names, guards ------------------------------------------------


def test_raise_forms_and_exceptions() -> None:
    code = """
    import errors
    def f(e, tb):
        raise errors.ParseError("dotted")
        raise ValueError("chained") from e
        raise RuntimeError("with tb").with_traceback(tb)
        raise \\
            KeyError(
                "multi-line"
            )
        exc = LookupError("held in a variable")
        raise exc
    """
    sites = extract(code).sites
    assert [(s.exception, s.template.text, s.line, s.end_line) for s in sites] == [
        ("errors.ParseError", "dotted", 4, 4),
        ("ValueError", "chained", 5, 5),
        ("RuntimeError", "with tb", 6, 6),
        ("KeyError", "multi-line", 7, 10),
        ("LookupError", "held in a variable", 12, 12),
    ]


def test_dynamic_sites_are_counted_not_emitted() -> None:
    code = """
    def f(key, msg, e):
        raise KeyError(key)
        raise ValueError(msg)
        raise RuntimeError
        raise ValueError(f"{key}")
        assert key
        raise
        raise e
    """
    extraction = extract(code)
    assert extraction.sites == ()
    assert extraction.dynamic_sites == 6


def test_warnings_and_asserts() -> None:
    code = """
    import warnings
    from warnings import warn
    def f(x, log):
        assert x > 0, f"x={x}"
        warnings.warn("old", DeprecationWarning)
        warn("plain")
        warnings.warn(FutureWarning("wrapped"))
        log.warn("a logger, not a warning")
    """
    sites = extract(code).sites
    assert [(s.kind, s.exception, s.template.text, s.guard) for s in sites] == [
        (SiteKind.ASSERT, "AssertionError", "x={x}", "not (x > 0)"),
        (SiteKind.WARN, "DeprecationWarning", "old", None),
        (SiteKind.WARN, "UserWarning", "plain", None),
        (SiteKind.WARN, "FutureWarning", "wrapped", None),
    ]


def test_custom_rules() -> None:
    rules = [
        *RULES,
        Rule("self.fail", "call", SiteKind.RAISE, exception="AssertionError"),
        Rule("check.equal", "call", SiteKind.ASSERT, 2, guard_arg=0, guard_op="=="),
    ]
    code = """
    class T:
        def test(self, a, b):
            self.fail(f"failed with {a}")
            check.equal(a, b, "must match")
            other.fail("not a rule")
    """
    sites = extract(code, rules=rules).sites
    assert [(s.kind, s.exception, s.template.text, s.guard) for s in sites] == [
        (SiteKind.RAISE, "AssertionError", "failed with {a}", None),
        # A rule's comparison is negated as in every language: `a != b`, not `not (a == b)`.
        (SiteKind.ASSERT, None, "must match", "a != b"),
    ]


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("json/decoder.py", "json.decoder"),
        ("pkg/__init__.py", "pkg"),
        ("src/pkg/sub/mod.py", "pkg.sub.mod"),
        ("top.py", "top"),
        ("./a/b.py", "a.b"),
    ],
)
def test_module_names(path: str, module: str) -> None:
    assert module_name(path) == module


def test_function_names() -> None:
    code = """
    raise ValueError("module level")
    class A:
        class B:
            def m(self):
                def inner():
                    raise ValueError("inner")
                lam = lambda: g("x")
        raise ValueError("class body")
    @decorated
    async def coro():
        raise ValueError("async")
    """
    sites = extract(code, path="json/decoder.py").sites
    assert [s.function for s in sites] == [
        "json.decoder",
        "json.decoder.A.B.m.inner",
        "json.decoder.A",
        "json.decoder.coro",
    ]


def guards_of(code: str) -> dict[str, str | None]:
    return {s.template.text: s.guard for s in extract(code).sites}


def test_guards() -> None:
    code = """
    def f(a, b, items, cmd):
        if a > 1:
            raise ValueError("if")
        elif a < -1:
            raise ValueError("elif")
        elif a == 0:
            pass
        else:
            raise ValueError("else")
        if not b:
            pass
        else:
            raise ValueError("plain else")
        for item in items:
            if item is None:
                raise ValueError("in for")
        while b:
            raise ValueError("while")
        try:
            if b:
                raise ValueError("try body")
        except (KeyError, IndexError) as exc:
            raise ValueError("except") from exc
        except* OSError:
            raise ValueError("except star")
        except:
            raise ValueError("bare except")
        match cmd:
            case [x, y] if x > y:
                raise ValueError("case")
        if (a and
                b):
            def nested():
                raise ValueError("function boundary")
        raise ValueError("none")
    """
    assert guards_of(code) == {
        "if": "a > 1",
        "elif": "a < -1",
        "else": "not (a == 0)",
        "plain else": "not (not b)",
        "in for": "item is None",
        "while": None,
        "try body": "b",
        "except": "except (KeyError, IndexError)",
        "except star": "except* OSError",
        "bare except": "except",
        "case": "match cmd: case [x, y] if x > y",
        "function boundary": None,
        "none": None,
    }


def test_assert_guard_ignores_enclosing_if() -> None:
    site = only_site("def f(a):\n    if a:\n        assert a.ok(), 'not ok'\n")
    assert site.guard == "not (a.ok())"


def test_snippet_window_is_clipped() -> None:
    lines = [f"x{i} = {i}" for i in range(1, 51)]
    lines[29] = 'raise ValueError("at thirty")'
    site = only_site("\n".join(lines) + "\n")
    assert site.line == 30
    assert site.snippet.start_line == 15
    code = site.snippet.code.split("\n")
    assert code[0] == "x15 = 15" and code[-1] == "x50 = 50"
    assert len(code) == 36
    top = only_site('raise ValueError("first line")\nx = 1\n')
    assert top.snippet.start_line == 1
    assert top.snippet.code == 'raise ValueError("first line")\nx = 1\n'.rstrip("\n") + "\n"


# --- exception classes -----------------------------------------------------------------


def definitions_of(code: str) -> dict[str, tuple[tuple[str, ...], str]]:
    return {d.name: (d.fields, d.template.text) for d in extract(code).definitions}


def test_message_definitions() -> None:
    code = """
    class Base(Exception):
        pass
    class A(Base):
        def __init__(self, line: int, col: int = 0, *args, key=None, **kw):
            super().__init__(f"bad token at {line}:{col}")
    class B(ValueError):
        def __init__(self, what):
            msg = "cannot use %r" % (what,)
            ValueError.__init__(self, msg)
    class C(Exception):
        def __init__(self, n):
            self.n = n
        def __str__(self):
            if self.n is None:
                return "no n"
            return "n is %d, which is wrong" % self.n
    class D(Exception):
        def __init__(self, reason):
            self.message = f"failed: {reason}"
        def __str__(self):
            return self.message
    class E(Exception):
        def __init__(self, value):
            self.args = ("bad value " + repr(value),)
    class F(A):
        pass
    class Two(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)
    class NotAnError:
        def __str__(self):
            return "just a class"
    """
    assert definitions_of(code) == {
        "A": (("line", "col", "key"), "bad token at {line}:{col}"),
        "B": (("what",), "cannot use {what}"),
        "C": (("n",), "n is {n}, which is wrong"),
        "D": (("reason",), "failed: {reason}"),
        "E": (("value",), "bad value {value}"),
        "F": (("line", "col", "key"), "bad token at {line}:{col}"),
    }


def test_constructions_and_resolution() -> None:
    errors = extract(
        """
        class ParseError(Exception):
            def __init__(self, line, col):
                super().__init__(f"bad token at {line}:{col}")
        class Plain(Exception):
            pass
        """,
        path="pkg/errors.py",
    )
    user = extract(
        """
        from pkg.errors import ParseError, Plain
        def f(tokens):
            if not tokens:
                raise ParseError(1, col=2)
            err = errors.ParseError(3, 4)
            raise Plain(tokens)
        """,
        path="pkg/user.py",
    )
    assert [(c.type_path, c.line, c.raised) for c in user.constructions] == [
        ("ParseError", 5, True),
        ("errors.ParseError", 6, False),
        ("Plain", 7, True),
    ]
    sites = resolve_constructions([errors, user])
    assert [(s.line, s.template.text, s.guard, s.bound) for s in sites] == [
        # arguments known only by position here take the names __init__ gives them
        (5, "bad token at {line}:{col}", "not tokens", (("line", "1"), ("col", "2"))),
        (6, "bad token at {line}:{col}", None, (("line", "3"), ("col", "4"))),
        (7, "{message}", None, ()),  # Plain: no text of its own, found by its type
    ]
    assert (sites[2].exception, sites[2].variant) == ("Plain", "Plain")
    # built-in exceptions never become constructions
    assert extract("raise ValueError(x)\n").constructions == ()


def test_local_class_without_message_never_borrows_one() -> None:
    code = """
    class error(Exception):
        pass
    def f(x):
        raise error(x)
    """
    other = extract(
        """
        class error(Exception):
            def __init__(self, pattern):
                super().__init__(f"bad pattern {pattern}")
        """,
        path="pkg/other.py",
    )
    extraction = extract(code, path="pkg/mod.py")
    (site,) = resolve_constructions([other, extraction])
    assert (site.line, site.template.text, site.exception) == (5, "{message}", "pkg.mod.error")


# --- odd input -------------------------------------------------------------------------


def test_syntax_errors_still_yield_what_parses() -> None:
    code = b'def f(:\n    pass\n\ndef g(x):\n    raise ValueError("still found")\n\nclass (\n'
    sites = extract(code).sites
    assert [(s.line, s.template.text) for s in sites] == [(5, "still found")]


def test_non_utf8_and_garbage_input() -> None:
    latin = b'# coding: latin-1\ndef f():\n    raise ValueError("caf\xe9 ferm\xe9")\n'
    site = extract(latin).sites[0]
    assert site.template.text == "caf\ufffd ferm\ufffd" and site.line == 3
    for garbage in (b"", b"\x00\xff\xfe" * 100, b"raise", b"raise ValueError(", b'f"{', b"\r\n"):
        extract(garbage)  # must not crash
    crlf = b'def f():\r\n    raise ValueError("crlf")\r\n'
    site = extract(crlf).sites[0]
    assert (site.line, site.template.text) == (2, "crlf")
    assert "\r" not in site.snippet.code


# --- real tracebacks from the standard library ------------------------------------------

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def _raise_calendar() -> None:
    import calendar

    calendar.monthrange(2020, 13)


def _raise_configparser() -> None:
    import configparser

    configparser.ConfigParser().read_string("no header")


STDLIB_ERRORS: dict[str, Callable[[], object]] = {
    "fractions": lambda: __import__("fractions").Fraction("x"),
    "ipaddress": lambda: __import__("ipaddress").ip_address("300.1.1.1"),
    "ip_network": lambda: __import__("ipaddress").ip_network("10.0.0.1/24"),
    "textwrap": lambda: textwrap.TextWrapper(width=0).wrap("a"),
    "shlex": lambda: __import__("shlex").split('"'),
    "uuid": lambda: __import__("uuid").UUID("x"),
    "json": lambda: json.loads(""),
    "string": lambda: __import__("string").Template("$").substitute(),
    "statistics": lambda: __import__("statistics").mean([]),
    "getopt": lambda: __import__("getopt").getopt(["-x"], ""),
    "pathlib": lambda: __import__("pathlib").PurePosixPath("a").relative_to("b"),
    "tomllib": lambda: __import__("tomllib").loads("x"),
    "enum": lambda: __import__("enum").Enum("Color", "red green")("blue"),
    "calendar": _raise_calendar,
    "configparser": _raise_configparser,
}


def _pattern(template: Template) -> re.Pattern[str]:
    return re.compile(".*?".join(re.escape(part) for part in template.literals), re.DOTALL)


@pytest.mark.parametrize("case", sorted(STDLIB_ERRORS))
def test_stdlib_traceback_points_at_a_site(case: str) -> None:
    with pytest.raises(Exception) as caught:
        STDLIB_ERRORS[case]()
    frame = traceback.extract_tb(caught.value.__traceback__)[-1]
    file = Path(frame.filename)
    assert file.is_relative_to(STDLIB), frame
    relative = file.relative_to(STDLIB).as_posix()
    extraction = PythonExtractor().extract(relative, file.read_bytes(), load_rules(Language.PYTHON))
    sites = [*extraction.sites, *resolve_constructions([extraction])]
    at_line = [s for s in sites if s.line == frame.lineno]
    assert at_line, f"no site at {relative}:{frame.lineno}"
    text = str(caught.value)
    assert any(_pattern(s.template).search(text) for s in at_line), (
        text,
        [s.template.text for s in at_line],
    )


def test_a_large_stdlib_file() -> None:
    source = (STDLIB / "_pydecimal.py").read_bytes()
    extraction = PythonExtractor().extract("_pydecimal.py", source, load_rules(Language.PYTHON))
    assert len(extraction.sites) > 50


def test_comments_inside_a_condition_stay_out_of_its_guard() -> None:
    """Issue 17: `# type: ignore`, `# fmt: off` written inside a condition split over lines
    are not part of the guard."""
    code = """
    def check(a, b):
        if (a is None  # type: ignore
                or b):  # fmt: off
            raise ValueError("bad a")
        assert (a  # fmt: skip
                > 0), "positive"
    """
    sites = extract(code).sites
    assert [(s.template.text, s.guard) for s in sites] == [
        ("bad a", "(a is None or b)"),
        ("positive", "not ((a > 0))"),
    ]


def test_a_site_carries_the_whole_path_of_conditions_that_leads_to_it() -> None:
    """Besides its guard (the innermost condition), a site's extraction holds every step
    that leads to it: an earlier `assert`, an earlier `if c: raise`, the `except` it is
    in, and every branch before its `else`."""
    code = """
    def check(a, b):
        assert b is not None
        if a == 7:
            raise ValueError("seven is bad")
        try:
            run(a)
        except KeyError:
            if a > 10:  # big
                raise ValueError("too big")
            elif a < 3:
                raise ValueError("too small")
            else:
                raise ValueError("in the middle")
    """
    extraction = extract(code)
    site = next(s for s in extraction.sites if s.template.text == "in the middle")
    assert site.guard == "not (a < 3)"
    assert extraction.structure is not None
    path = extraction.structure.path_at(site.line, site.end_line)
    assert path is not None
    shown = [(step.kind, step.condition.kind, (step.condition.parts or (step.condition,))[0].text)
             for step in path.steps]  # fmt: skip
    assert shown == [
        ("early_exit", "test", "b is not None"),
        ("early_exit", "not", "a == 7"),
        ("except", "raised", "KeyError"),
        ("else", "not", "a > 10"),
        ("else", "not", "a < 3"),
    ]
    # The one statement its `try` ran is what raised the caught class.
    assert path.steps[2].condition.subject == "run(a)"
