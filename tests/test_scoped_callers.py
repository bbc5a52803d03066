"""Callers are found where a name is in scope, so a page leads from the public function a
user really calls (errdex.analyze.scopes):

- a function defined inside another is called only there; a bare call of a name that
  the caller's own scope binds (a nested function of that name) is not a call of the
  module's function;
- a Rust item with no `pub` is called only from its own module and those inside it;
- `Owner::name(..)` goes to the `Owner` the file imports (`use crate::a::Linear;`);
- an error that a caller several calls up catches (a `try`, a `match` on the result
  with an `Err` arm that carries on) never reaches the user."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records


def _records(tmp_path: Path, files: dict[str, str]) -> dict[str, Record]:
    return {r.template.message: r for r in indexed_records(tmp_path, files, "t/repo")}


def _page(record: Record) -> str:
    e = record.explanation
    return f"{e.summary}\n{e.what_it_means}"


PYTHON = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "def _helper(x):\n"
        "    if x < 0:\n"
        "        raise ValueError('helper: the value is negative')\n"
        "    return x\n"
        "\n"
        "\n"
        "def parse(text):\n"
        "    def _helper(x):\n"
        "        return x\n"
        "    return _helper(text)\n"
        "\n"
        "\n"
        "def load(x):\n"
        "    return _helper(x)\n"
        "\n"
        "\n"
        "def outer(items):\n"
        "    def check(item):\n"
        "        if item is None:\n"
        "            raise ValueError('outer: an item is None')\n"
        "        return item\n"
        "    return [check(i) for i in items]\n"
        "\n"
        "\n"
        "def check(item):\n"
        "    return item\n"
        "\n"
        "\n"
        "def other(x):\n"
        "    return check(x)\n"
        "\n"
        "\n"
        "def _deep(x):\n"
        "    if x not in (1, 2):\n"
        "        raise KeyError('deep: the key is not known')\n"
        "    return x\n"
        "\n"
        "\n"
        "def _one(x):\n"
        "    return _deep(x)\n"
        "\n"
        "\n"
        "def _two(x):\n"
        "    return _one(x)\n"
        "\n"
        "\n"
        "def _three(x):\n"
        "    return _two(x)\n"
        "\n"
        "\n"
        "def find(x):\n"
        "    try:\n"
        "        return _three(x)\n"
        "    except KeyError:\n"
        "        return None\n"
    ),
}


def test_a_bare_call_of_a_nested_function_of_that_name_is_not_a_caller(
        tmp_path: Path) -> None:
    page = _page(_records(tmp_path, PYTHON)["helper: the value is negative"])
    assert "`pkg.core.load`" in page, page
    assert "pkg.core.parse" not in page, page


def test_a_nested_function_is_called_only_by_the_function_it_is_written_in(
        tmp_path: Path) -> None:
    page = _page(_records(tmp_path, PYTHON)["outer: an item is None"])
    assert "`pkg.core.outer`" in page, page
    assert "pkg.core.other" not in page, page


def test_an_error_caught_four_calls_up_never_reaches_the_user(tmp_path: Path) -> None:
    record = _records(tmp_path, PYTHON)["deep: the key is not known"]
    assert record.explanation.summary.startswith("This error never reaches your code"), \
        record.explanation.summary
    assert "pkg/core.py:54" in record.explanation.summary, record.explanation.summary


HANDED = {
    "pkg/__init__.py": "",
    "pkg/tree.py": (
        "def _each(items, fn):\n"
        "    return [fn(i) for i in items]\n"
        "\n"
        "\n"
        "def scale(items, by):\n"
        "    def one(i):\n"
        "        if by == 0:\n"
        "            raise ValueError('scale: the factor is zero')\n"
        "        return i * by\n"
        "    return _each(items, one)\n"
        "\n"
        "\n"
        "def one(x):\n"
        "    return x\n"
        "\n"
        "\n"
        "def unrelated(x):\n"
        "    return one(x)\n"
    ),
}


def test_a_nested_function_handed_to_the_library_runs_for_its_function(
        tmp_path: Path) -> None:
    page = _page(_records(tmp_path, HANDED)["scale: the factor is zero"])
    assert "`pkg.tree.scale`" in page, page
    assert "unrelated" not in page, page


IMPORTED = {
    "pkg/__init__.py": "",
    "pkg/util.py": (
        "def _validate(x):\n"
        "    if not x:\n"
        "        raise ValueError('util: the value is empty')\n"
        "    return x\n"
    ),
    "pkg/other.py": (
        "def _validate(x):\n"
        "    return x\n"
        "\n"
        "\n"
        "def check(x):\n"
        "    return _validate(x)\n"
    ),
    "pkg/api.py": (
        "from .util import _validate\n"
        "\n"
        "\n"
        "def run(x):\n"
        "    return _validate(x)\n"
    ),
}


def test_a_bare_call_of_an_imported_function_is_a_caller_of_the_one_it_imports(
        tmp_path: Path) -> None:
    page = _page(_records(tmp_path, IMPORTED)["util: the value is empty"])
    assert "`pkg.api.run`" in page, page
    assert "pkg.other.check" not in page, page


RUST = {
    "mini/Cargo.toml": "[package]\nname = \"mini\"\nversion = \"0.1.0\"\n",
    "mini/src/lib.rs": "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n",
    "mini/src/a.rs": (
        "pub struct Linear { w: usize }\n"
        "\n"
        "impl Linear {\n"
        "    pub fn new(w: usize) -> Result<Self> {\n"
        "        Ok(Self { w: width(w)? })\n"
        "    }\n"
        "}\n"
        "\n"
        "fn width(w: usize) -> Result<usize> {\n"
        "    if w == 0 {\n"
        "        bail!(\"linear a: the width must not be zero\")\n"
        "    }\n"
        "    Ok(w)\n"
        "}\n"
        "\n"
        "fn shape_of(n: usize) -> Result<usize> {\n"
        "    if n > 4 {\n"
        "        bail!(\"shape: more than four dims\")\n"
        "    }\n"
        "    Ok(n)\n"
        "}\n"
        "\n"
        "pub fn dims(n: usize) -> Result<usize> {\n"
        "    shape_of(n)\n"
        "}\n"
        "\n"
        "fn guess(n: usize) -> Result<usize> {\n"
        "    if n == 3 {\n"
        "        bail!(\"guess: three is not allowed\")\n"
        "    }\n"
        "    Ok(n)\n"
        "}\n"
        "\n"
        "fn middle(n: usize) -> Result<usize> {\n"
        "    let v = guess(n)?;\n"
        "    Ok(v + 1)\n"
        "}\n"
        "\n"
        "pub fn tolerant(n: usize) -> usize {\n"
        "    match middle(n) {\n"
        "        Ok(v) => v,\n"
        "        Err(_) => 0,\n"
        "    }\n"
        "}\n"
    ),
    "mini/src/b.rs": (
        "use crate::a::Linear;\n"
        "\n"
        "pub struct Layer;\n"
        "\n"
        "impl Layer {\n"
        "    pub fn build() -> Result<Linear> {\n"
        "        Linear::new(3)\n"
        "    }\n"
        "}\n"
    ),
    "mini/src/c.rs": (
        "pub struct Linear { w: usize }\n"
        "\n"
        "impl Linear {\n"
        "    pub fn new(w: usize) -> Result<Self> {\n"
        "        Ok(Self { w: odd(w)? })\n"
        "    }\n"
        "}\n"
        "\n"
        "fn odd(w: usize) -> Result<usize> {\n"
        "    if w % 2 == 0 {\n"
        "        bail!(\"linear c: the width must be odd\")\n"
        "    }\n"
        "    Ok(w)\n"
        "}\n"
    ),
    "mini/src/d.rs": (
        "pub fn describe(t: &Thing) -> Result<usize> {\n"
        "    t.shape_of(2)\n"
        "}\n"
    ),
}


def test_owner_calls_go_to_the_owner_the_file_imports(tmp_path: Path) -> None:
    records = _records(tmp_path, RUST)
    imported = _page(records["linear a: the width must not be zero"])
    assert "`Layer::build`" in imported, imported
    other = _page(records["linear c: the width must be odd"])
    assert "`Linear::new`" in other and "Layer::build" not in other, other


def test_an_item_without_pub_is_called_only_from_its_own_module(tmp_path: Path) -> None:
    page = _page(_records(tmp_path, RUST)["shape: more than four dims"])
    assert "`mini::a::dims`" in page, page
    assert "describe" not in page, page


def test_an_error_a_caller_matches_with_an_err_arm_never_reaches_the_user(
        tmp_path: Path) -> None:
    record = _records(tmp_path, RUST)["guess: three is not allowed"]
    assert record.explanation.summary.startswith("This error never reaches your code"), \
        record.explanation.summary
    assert "mini/src/a.rs:42" in record.explanation.summary, record.explanation.summary
