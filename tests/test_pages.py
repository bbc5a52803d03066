"""Pages a user can act on (issue 20), read from real repositories written here and indexed
commit by commit: the summary names the public function the user called, the example fix
changes that call's argument (never the raising helper's locals), the code's own comment
is quoted, invariants and debug-only checks say so, and every cross-reference is verified
(history at the site's own path, tests that expect exactly this message, siblings on the
same path, the exception class a caller can catch, no failure class guessed from words)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.analysis_repos import commit, git, init

LIB_V1 = """\
pub struct Grid {
    cells: Vec<u8>,
}

impl Grid {
    /// Pad the grid with `n` copies of its border. Padding an empty grid is meaningless.
    pub fn pad(&self, dim: usize, n: usize) -> Result<Grid> {
        if dim > 1 {
            bail!("pad: dim must be 0 or 1, got {dim}")
        }
        // a zero-width pad would return the grid itself: reject it so callers notice
        if n == 0 {
            bail!("pad: the pad width must be positive")
        }
        if self.cells.is_empty() {
            bail!("pad: this grid has no cells to copy")
        } else if n > 64 {
            bail!("pad: at most 64 cells of padding")
        }
        Ok(widen(&self.cells, n)?)
    }

    pub fn check(&self) -> Result<()> {
        if self.cells.len() > 4096 {
            bail!("check: the grid is too large to pad")
        }
        Ok(())
    }

    pub fn rows(&self, count: usize) -> Result<usize> {
        debug_assert!(count < 1000, "rows: count {count} is too large");
        Ok(split(count)?)
    }
}

fn split(parts: usize) -> Result<usize> {
    // parts is checked by every caller already; zero here is a bug in this crate
    if parts == 0 {
        bail!("split: zero parts reached the splitter")
    }
    Ok(parts)
}

pub struct Node {
    g: Option<Grid>,
}

impl Node {
    pub fn graph(&self) -> Result<&Grid> {
        self.g.as_ref().ok_or_else(|| Error::Msg("node does not contain a graph".to_string()))
    }
}

pub struct Plain;
pub struct Packed;

impl Plain {
    pub fn dot(&self, n: usize) -> Result<usize> {
        Self::unopt(n)
    }
    fn unopt(n: usize) -> Result<usize> {
        Ok(n)
    }
}

impl Packed {
    pub fn dot(&self, n: usize) -> Result<usize> {
        Self::unopt(n)
    }
    fn unopt(n: usize) -> Result<usize> {
        if n % 4 != 0 {
            bail!("packed dot needs a multiple of four, got {n}")
        }
        Ok(n)
    }
}

fn widen(cells: &[u8], width: usize) -> Result<Grid> {
    if width % 2 == 1 {
        bail!("widen: odd widths cannot be centred")
    }
    Ok(Grid { cells: cells.to_vec() })
}
"""
EXAMPLE = """\
fn main() -> Result<()> {
    let rate = read_rate()?;
    if rate != 16000 {
        bail!("the demo expects a sampling rate of 16000 Hz")
    }
    Ok(())
}
"""
PY_LIB = '''\
"""A tiny config parser."""


class ConfigError(ValueError):
    pass


class Reader:
    def __init__(self, text):
        self.text = text

    def _error(self, msg):
        return ConfigError(msg)

    def section(self, name, retries=3):
        """Read one section by name."""
        if not isinstance(retries, int):
            raise TypeError("retries must be an int")
        if name not in self.text:
            raise self._error(f"no section named {name!r}")
        return self.text[name]


class Cursor:
    def __init__(self, limit):
        if limit <= 0:
            raise ValueError("the cursor limit must be positive")
        self.limit = limit

    def seek(self, pos):
        if pos < 0 or pos > self.limit:
            raise ValueError("the cursor position is out of range")
        return pos


def _token(kind):
    if kind != "word":
        raise ConfigError(f"Expected {kind}")
'''
PY_TEST = '''\
import pytest
from cfgread import Reader


def test_retries():
    with pytest.raises(TypeError, match="retries must be an int"):
        Reader({}).section("a", retries="3")


def test_other():
    with pytest.raises(ValueError, match="Expected"):
        Reader({}).section("Expected section")
'''


def _write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def _index(root: Path, repo: str) -> dict[str, dict[str, Any]]:
    (snapshot,) = resolve(str(root), SourceOptions(repo=repo))
    with SQLiteStore(root.parent / f"{repo.replace('/', '_')}.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {row.message: record_to_dict(store.record(row.id)) for row in store.records(repo)}


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, dict[str, Any]], list[str]]:
    root = tmp_path_factory.mktemp("pages-rust") / "repo"
    init(root)
    _write(root, {"Cargo.toml": '[package]\nname = "grid"\nversion = "0.1.0"\n',
                  "src/lib.rs": LIB_V1, "examples/demo/main.rs": EXAMPLE})
    shas = [commit(root, "grid and a demo", "2024-01-01T12:00:00+00:00")]
    # The demo moves into the wasm worker: the same message at a new path.
    _write(root, {"wasm/worker.rs": EXAMPLE})
    shas.append(commit(root, "wasm worker", "2024-02-01T12:00:00+00:00"))
    (root / "examples/demo/main.rs").unlink()
    shas.append(commit(root, "drop the old demo", "2024-03-01T12:00:00+00:00", tag="v0.5.0"))
    return _index(root, "t/grid"), shas


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("pages-py") / "repo"
    init(root)
    _write(root, {"cfgread/__init__.py": PY_LIB, "tests/test_cfgread.py": PY_TEST})
    commit(root, "reader", "2024-01-01T12:00:00+00:00", tag="v1.0")
    return _index(root, "t/cfg")


def _page(records: dict[str, dict[str, Any]], message: str) -> dict[str, Any]:
    page: dict[str, Any] = records[message]["explanation"]
    return page


def _code(page: dict[str, Any]) -> str:
    d = page["defensive"]
    return "\n".join([page["example_fix"]["before"], page["example_fix"]["after"],
                      d["validate"], d["type_guard"], d["try_catch"]])


def test_fix_changes_the_public_call_s_argument(rust: Any) -> None:
    page = _page(rust[0], "pad: the pad width must be positive")
    assert page["summary"] == "`n` must not be 0 when calling `Grid::pad`"
    assert page["example_fix"]["before"].startswith("grid.pad(dim, 0)?;")
    assert page["example_fix"]["after"].startswith("grid.pad(dim, 1)?;")
    assert "let n" not in _code(page)


def test_a_method_returning_a_unit_result_is_called_on_its_value(rust: Any) -> None:
    # `-> Result<()>`: the parameter list ends at its own `)`
    page = _page(rust[0], "check: the grid is too large to pad")
    assert page["example_fix"]["before"].startswith("grid.check()?;")


def test_the_code_s_comment_and_doc_are_quoted_as_its_words(rust: Any) -> None:
    page = _page(rust[0], "pad: the pad width must be positive")
    assert ("The code's comment just above the check says: \u201ca zero-width pad would return "
            "the grid itself: reject it so callers notice\u201d.") in page["what_it_means"]
    assert ("The doc comment of `pad` says: \u201cPad the grid with `n` copies of its border."
            "\u201d" in page["what_it_means"])


def test_an_internal_helper_is_named_only_where_it_is_thrown(rust: Any) -> None:
    page = _page(rust[0], "widen: odd widths cannot be centred")
    assert "`Grid::pad`" in page["summary"] and "widen" not in page["summary"]
    assert "widen" not in page["trigger"].split(" at ")[0]
    assert "`widen` (internal: you reach it from `Grid::pad`)" in page["what_it_means"]
    assert "widen(" not in page["example_fix"]["before"]
    assert "grid.pad" not in page["example_fix"]["before"] or "Grid::pad" in page["summary"]
    assert "let width" not in _code(page) and "width = " not in _code(page)
    assert not any("where it is set" in s for s in page["solutions"])


def test_an_entry_point_of_another_type_is_not_named(rust: Any) -> None:
    # `Plain::dot` calls its own `Self::unopt`, not `Packed::unopt`
    page = _page(rust[0], "packed dot needs a multiple of four, got {n}")
    assert "`Packed::dot`" in page["summary"] and "Plain" not in page["summary"]


def test_ok_or_else_is_a_missing_value_not_an_unconditional_error(rust: Any) -> None:
    page = _page(rust[0], "node does not contain a graph")
    assert "always" not in page["summary"]
    assert "`self.g.as_ref()`" in page["summary"] and "None" in page["summary"]


def test_an_invariant_says_there_is_nothing_to_change(rust: Any) -> None:
    page = _page(rust[0], "split: zero parts reached the splitter")
    assert "internal invariant" in page["summary"] and "bug" in page["summary"]
    assert page["solutions"][0].startswith("Nothing to change on your side")
    assert "nothing to change in this call" in page["example_fix"]["after"]


def test_a_debug_assert_is_said_to_be_debug_only(rust: Any) -> None:
    page = _page(rust[0], "rows: count {count} is too large")
    assert "(checked in debug builds only)" in page["summary"]
    assert "debug builds only; a release build skips it" in page["what_it_means"]


def test_siblings_are_only_those_on_the_same_path(rust: Any) -> None:
    page = _page(rust[0], "pad: at most 64 cells of padding")
    means = page["what_it_means"]
    assert "has already checked" in means and "pad width must be positive" in means
    # the `if self.cells.is_empty()` arm excludes this `else if`: never "already checked"
    assert "no cells to copy" not in means


def test_history_is_that_of_the_site_s_own_path(rust: Any) -> None:
    records, shas = rust
    record = records["the demo expects a sampling rate of 16000 Hz"]
    history = record["facts"]["history"]
    # introduced at wasm/worker.rs by the second commit; the old demo's removal is not its own
    assert history["introduced_commit"] == shas[1]
    assert history["removed_commit"] is None
    # v0.5.0 is the checkout's oldest tag: it says nothing about the first release
    assert history["introduced_tag"] is None
    text = record["explanation"]["what_it_means"]
    assert f"introduced in commit {shas[1][:10]}" in text
    assert "removed" not in text and "first released" not in text


def test_first_release_is_named_when_an_older_tag_exists(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root)
    _write(root, {"src/lib.rs": "pub fn f() -> Result<()> { Ok(()) }\n"})
    commit(root, "start", "2024-01-01T12:00:00+00:00", tag="v0.1.0")
    _write(root, {"src/lib.rs": EXAMPLE})
    second = commit(root, "rate check", "2024-02-01T12:00:00+00:00")
    git(root, "tag", "v0.2.0")
    history = _index(root, "t/tags")["the demo expects a sampling rate of 16000 Hz"]["facts"][
        "history"]
    assert (history["introduced_commit"], history["introduced_tag"]) == (second, "v0.2.0")


def test_code_moved_to_a_new_file_keeps_its_first_commit(tmp_path: Path) -> None:
    # The check is written in lib.rs, then a later commit moves it into its own file while
    # lib.rs stays (no rename git could follow): the page dates it from its first commit.
    root = tmp_path / "repo"
    init(root)
    rate = EXAMPLE.replace("fn main()", "pub fn check_rate()")
    _write(root, {"src/lib.rs": "pub mod demo;\n" + rate, "src/demo.rs": "pub fn f() {}\n"})
    first = commit(root, "rate check", "2024-01-01T12:00:00+00:00")
    _write(root, {"src/lib.rs": "pub mod demo;\npub mod rate;\n", "src/rate.rs": rate})
    moved = commit(root, "move the rate check to its own file", "2024-02-01T12:00:00+00:00")
    history = _index(root, "t/moved")["the demo expects a sampling rate of 16000 Hz"]["facts"][
        "history"]
    assert history["introduced_commit"] == first
    # the move changed where the message is, not the message
    assert history["changed_commit"] == first and history["removed_commit"] is None
    assert moved != first


def test_history_is_that_of_the_whole_message_not_its_longest_run(tmp_path: Path) -> None:
    # Both messages' longest run is "cannot find ": the second message begins with its own
    # commit, not with the first message's.
    root = tmp_path / "repo"
    init(root)
    one = 'pub fn a(name: &str) -> Result<()> {\n    bail!("cannot find tensor {name} here")\n}\n'
    two = 'pub fn b(name: &str) -> Result<()> {\n    bail!("cannot find {name} in the map")\n}\n'
    _write(root, {"src/lib.rs": one})
    commit(root, "tensors", "2024-01-01T12:00:00+00:00")
    _write(root, {"src/lib.rs": one + two})
    second = commit(root, "the map", "2024-02-01T12:00:00+00:00")
    history = _index(root, "t/runs")["cannot find {name} in the map"]["facts"]["history"]
    assert history["introduced_commit"] == second


def test_python_fix_and_test_are_the_user_s(python: Any) -> None:
    page = _page(python, "retries must be an int")
    assert page["summary"].startswith("`retries` must be an instance of `int` when calling")
    assert page["example_fix"]["before"].startswith('reader.section(retries="1")')
    assert page["example_fix"]["after"].startswith("reader.section(retries=1)")
    assert "tests expect it at tests/test_cfgread.py:6" in page["what_it_means"]


def test_a_constructor_is_called_as_its_class(python: Any) -> None:
    page = _page(python, "the cursor limit must be positive")
    assert page["summary"] == "`limit` must be greater than 0 when calling `cfgread.Cursor`"
    assert page["example_fix"]["before"].startswith("Cursor(limit=0)")
    assert page["example_fix"]["after"].startswith("Cursor(limit=1)")


def test_a_check_mixing_an_argument_and_state_says_which_is_which(python: Any) -> None:
    page = _page(python, "the cursor position is out of range")
    assert ("Of the values it checks, `pos` is the argument of `seek`; `limit` is held by the "
            "object.") in page["what_it_means"]
    assert "computed inside `seek`, not passed by you" not in page["what_it_means"]


def test_a_helper_is_not_caught_as_an_exception_class(python: Any) -> None:
    """`raise self._error(..)`: the helper returns a `ConfigError`, which is caught."""
    page = _page(python, "no section named {name!r}")
    assert "except ConfigError as e:" in page["defensive"]["try_catch"]
    assert "self._error" not in page["defensive"]["try_catch"]
    assert "raise self._error" not in page["defensive"]["validate"]


def test_a_short_template_borrows_no_test_and_no_class(python: Any) -> None:
    record = python["Expected {kind}"]
    assert "tests expect it" not in record["explanation"]["what_it_means"]
    assert "A working example" not in record["explanation"]["trigger"]
    cls = record["failure_class"]
    assert cls is None or cls["by"] == "rules"


PRIVATE_MODULES = {
    "hdr/__init__.py": "from ._base import Header\nfrom .parse import parse\n",
    "hdr/_base.py": '''\
class Header:
    def value(self, key):
        if not key:
            raise KeyError("a header value needs a non-empty key")
        return key
''',
    "hdr/_words.py": '''\
def get_word(value):
    if not value.startswith("=?"):
        raise ValueError("an encoded word must start with =?")
    return value
''',
    "hdr/parse.py": '''\
from ._words import get_word


def parse(value):
    return get_word(value)
''',
    "hdr/tls.py": '''\
__all__ = ["plain"]


def plain():
    return 1


try:
    import ssl
except ImportError:
    pass
else:
    class Secure:
        def connect(self, host):
            if not host:
                raise ValueError("a secure connection needs a host")
            return ssl

    __all__.append("Secure")
''',
    "hdr/opts.py": '''\
__all__ = ["run"]


def run(args):
    return do_long(args)


def do_long(args):
    if not args:
        raise ValueError("option requires an argument after it")
    return args
''',
}


@pytest.fixture(scope="module")
def private(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("pages-private") / "repo"
    init(root)
    _write(root, PRIVATE_MODULES)
    commit(root, "headers", "2024-01-01T12:00:00+00:00")
    return _index(root, "t/hdr")


def test_a_private_module_s_function_is_reached_through_the_public_api(private: Any) -> None:
    # `hdr._words.get_word` has no underscore of its own, but its module has and no package
    # entry re-exports it: the user calls `hdr.parse.parse`.
    page = _page(private, "an encoded word must start with =?")
    assert "`hdr.parse.parse`" in page["summary"] and "get_word`" not in page["summary"]
    assert "You get here from `hdr.parse.parse`" in page["what_it_means"]


def test_a_helper_s_check_on_its_parameter_is_said_on_the_caller_s_argument(private: Any) -> None:
    # `parse(value)` calls `get_word(value)`: the requirement is on what the user passes.
    page = _page(private, "an encoded word must start with =?")
    assert page["summary"] == '`value` must start with `"=?"` when calling `hdr.parse.parse`'
    assert ("`hdr.parse.parse` (hdr/parse.py:4) reaches `get_word` with `value` as "
            "`value`") in page["what_it_means"]
    assert page["trigger"].startswith('Calling `hdr.parse.parse` when `value` does not start')
    assert page["defensive"]["validate"].startswith('if not value.startswith("=?"):')


def test_a_class_a_package_re_exports_from_a_private_module_is_public(private: Any) -> None:
    page = _page(private, "a header value needs a non-empty key")
    assert "`hdr._base.Header.value`" in page["summary"] or "`Header.value`" in page["summary"]
    assert "You get here from" not in page["what_it_means"]


def test_a_name_left_out_of_all_is_not_public(private: Any) -> None:
    page = _page(private, "option requires an argument after it")
    assert "`hdr.opts.run`" in page["summary"] and "do_long`" not in page["summary"]


LIFTED_RUST = """\
pub struct Grid {
    cells: Vec<u8>,
}

impl Grid {
    pub fn resize(&self, width: usize) -> Result<Grid> {
        self.check_width(width * 2)?;
        Ok(Grid { cells: vec![0; width] })
    }

    fn check_width(&self, w: usize) -> Result<()> {
        if w > 64 {
            bail!("the grid is at most 64 cells wide")
        }
        Ok(())
    }
}

pub struct Board;

impl Board {
    pub fn paint(&self, rows: usize) -> Result<()> {
        if rows == 0 {
            bail!("a board needs rows")
        }
        let grid = load();
        grid.fill(rows)
    }
}

pub fn fill(n: usize) -> Result<()> {
    if n % 2 == 1 {
        bail!("fill takes an even count")
    }
    Ok(())
}
"""


def test_a_rust_method_s_check_is_said_at_the_public_method_of_its_type(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root)
    _write(root, {"Cargo.toml": '[package]\nname = "grid"\nversion = "0.1.0"\n',
                  "src/lib.rs": LIFTED_RUST})
    commit(root, "grid", "2024-01-01T12:00:00+00:00")
    records = _index(root, "t/lifted")
    page = _page(records, "the grid is at most 64 cells wide")
    # `resize(width)` calls `self.check_width(width * 2)`: the argument as written
    assert page["summary"] == "`width * 2` must be at most 64 when calling `Grid::resize`"
    assert "with `width * 2` as `w`" in page["what_it_means"]
    # `grid.fill(rows)` is a method call on some value, not the free function `fill`:
    # nothing is said at `Board::paint`
    assert "Board::paint" not in _page(records, "fill takes an even count")["summary"]


CHAINS = {
    "chain/__init__.py": '''\
def normalize(value):
    if isinstance(value, int):
        return value
    elif isinstance(value, str):
        return int(value)
    elif value is None:
        return 0
    else:
        raise TypeError("expected an int, a str or None")


def checked(a):
    if not isinstance(a, int):
        raise TypeError("a must be an int")
    elif a < 0:
        raise ValueError("a must not be negative")
    return a
''',
    "chain/parser.py": '''\
class ParseError(Exception):
    pass


class Meta:
    def _invalid(self, text):
        return ValueError(text)

    def check(self, v):
        if v < 0:
            raise self._invalid("v must not be negative here")


class Parser:
    def fail(self, text):
        raise ParseError(text)

    def expect_end(self, token):
        if token != "end":
            self.fail("the block is never closed with end")
''',
    "Cargo.toml": '[package]\nname = "chain"\nversion = "0.1.0"\n',
    "src/lib.rs": '''\
pub fn width_of(name: Option<&str>) -> Result<u8> {
    let width = match name {
        Some("f16") => 2,
        Some("f32") | None => 4,
        Some("bad") => bail!("bad is reserved"),
        Some(other) => bail!("unsupported dtype {other}"),
    };
    Ok(width)
}
''',
}


@pytest.fixture(scope="module")
def chains(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp("pages-chains") / "repo"
    init(root)
    _write(root, CHAINS)
    commit(root, "chains", "2024-01-01T12:00:00+00:00")
    return _index(root, "t/chains")


def test_an_else_after_branches_that_pass_requires_one_of_them(chains: Any) -> None:
    page = _page(chains, "expected an int, a str or None")
    # not "`value` must be None": the branches before the else are ways to pass
    assert page["summary"] == ("`value` must be an instance of `int` or an instance of `str` or "
                               "None when calling `chain.normalize`")
    assert page["trigger"] == (
        "Calling `chain.normalize` when `value` is not an instance of `int` and is not an "
        "instance of `str` and is not None.")


def test_a_branch_before_that_raises_is_no_way_to_pass(chains: Any) -> None:
    page = _page(chains, "a must not be negative")
    assert page["summary"] == ("`a` must be at least 0 when calling `chain.checked` (checked only "
                               "when `a` is an instance of `int`)")


def test_an_arm_after_other_arms_requires_one_of_those_that_pass(chains: Any) -> None:
    page = _page(chains, "unsupported dtype {other}")
    # not "must be None": `None` is handled, and so is every `Some` before this arm but the
    # one that raises an error of its own
    assert page["summary"] == '`name` must match `Some("f16") | Some("f32") | None` when calling ' \
        '`width_of`'
    assert _page(chains, "bad is reserved")["summary"] == \
        '`name` must not match `Some("bad")` when calling `width_of`'
    assert "It is reached only when `name` is none of `Some(\"f16\")`" in page["what_it_means"]


def test_a_raising_helper_is_not_called_an_exception_class(chains: Any) -> None:
    page = _page(chains, "the block is never closed with end")
    assert ("`fail` is a helper that raises `ParseError` with the text this call "
            "passes it.") in page["what_it_means"]
    assert "exception class" not in page["what_it_means"]


BUILT = """\
pub struct Storage(Vec<u8>);

impl Duplicate for Storage {
    fn dup(&self) -> Result<Storage> {
        bail!("this storage cannot be duplicated")
    }
}

pub fn empty() -> Storage { Storage(vec![]) }
pub fn one() -> Storage { Storage(vec![1]) }
pub fn two() -> Storage { Storage(vec![2]) }
pub fn three() -> Storage { Storage(vec![3]) }

pub struct Relu;

impl Op for Relu {
    fn fwd(&self, x: u8) -> Result<u8> {
        if x > 1 {
            bail!("relu takes a single bit")
        }
        Ok(x)
    }
}

pub fn relu(x: u8) -> Result<u8> {
    apply(Relu {}, x)
}
"""


def test_a_trait_method_is_reached_from_the_op_s_builder_not_a_data_type_s(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root)
    _write(root, {"Cargo.toml": '[package]\nname = "ops"\nversion = "0.1.0"\n',
                  "src/lib.rs": BUILT})
    commit(root, "ops", "2024-01-01T12:00:00+00:00")
    records = _index(root, "t/built")
    # `relu` builds a `Relu` to apply it: its caller
    assert "`relu`" in _page(records, "relu takes a single bit")["summary"]
    # four functions build a `Storage`: none of them is known to duplicate one
    page = _page(records, "this storage cannot be duplicated")
    assert not any(f"`{name}`" in page["summary"] + page["what_it_means"]
                   for name in ("empty", "one", "two", "three"))


def test_a_name_appended_to_all_is_public(private: Any) -> None:
    # `__all__.append("Secure")` under a `try: import ssl ... else:`
    page = _page(private, "a secure connection needs a host")
    assert page["summary"].endswith("when calling `hdr.tls.Secure.connect`"), page["summary"]


def test_an_exception_a_method_builds_is_not_named_by_the_method(chains: Any) -> None:
    """`raise self._invalid(..)` raises the `ValueError` the method returns."""
    record = chains["v must not be negative here"]
    assert record["exception"] == "ValueError" == record["sites"][0]["exception"]


def test_a_crate_visible_function_is_not_the_user_s_call(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root)
    _write(root, {"Cargo.toml": '[package]\nname = "conv"\nversion = "0.1.0"\n', "src/lib.rs": """\
pub fn conv(k: usize) -> Result<()> {
    kernel(k)
}

pub(crate) fn kernel(k: usize) -> Result<()> {
    if k == 0 {
        bail!("the kernel size must be positive")
    }
    Ok(())
}
"""})
    commit(root, "conv", "2024-01-01T12:00:00+00:00")
    page = _page(_index(root, "t/conv"), "the kernel size must be positive")
    assert page["summary"] == "`k` must not be 0 when calling `conv`"


def test_a_guard_that_starts_with_except_is_not_a_handler(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    init(root)
    _write(root, {"src/main/java/x/Alloc.java": """\
package x;

public class Alloc {
    public static void check(String exceptionMessage) {
        if (exceptionMessage != null) {
            throw new AssertionError("the type cannot be made: " + exceptionMessage);
        }
    }
}
"""})
    commit(root, "alloc", "2024-01-01T12:00:00+00:00")
    page = _page(_index(root, "t/alloc"), '"the type cannot be made: " + exceptionMessage')
    # `exceptionMessage != null` is a check, not an `except` clause
    assert page["summary"] == "`exceptionMessage` must equal `null` when calling `Alloc.check`"


def test_arguments_passed_in_another_order_are_substituted_at_once() -> None:
    from errdex.models import EntryPoint, Language
    from errdex.write.lifted import lift

    # `g(a, b)` calls `f(b, a)` for `def f(a, b)`: f's `a > b` is g's `b > a`
    caller = EntryPoint("m.g", "m.py", 1, 1, arguments=("b", "a"), parameters=("a", "b"))
    lifted = lift("a > b", ["a", "b"], ["a", "b"], [caller], "m.g", Language.PYTHON)
    assert lifted is not None and lifted.guard == "b > a"
