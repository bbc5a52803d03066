"""Checks inside a loop over the caller's values, builtin type names in a check, and the
branches of a chain that are (or are not) a way out the caller can pick."""

from __future__ import annotations

from typing import Any

import pytest

from tests.analysis_repos import commit, init
from tests.test_pages import _index, _page

PY_LIB = '''\
_WINDOWS = False


def register(names):
    """Register each name."""
    for name in names:
        if not isinstance(name, str):
            raise TypeError("names must be strings")
    return list(names)


def scale(items, factor):
    out = []
    for index, item in enumerate(items):
        if item < 0:
            raise ValueError("items must not be negative")
        out.append(item * factor)
    return out


def label(text):
    if type(text) is not str:
        raise TypeError("label text must be a str")
    return text.upper()


def lookup(group):
    if isinstance(group, str):
        try:
            import grp_not_installed  # noqa: F401
        except ImportError:
            raise ValueError("group names need the grp module")
        return 1
    elif isinstance(group, int):
        return group
    else:
        raise TypeError("group must be a str or an int")


def spawn(command, flags=0):
    if _WINDOWS:
        if flags < 0:
            raise ValueError("flags must not be negative")
    else:
        if flags != 0:
            raise ValueError("flags are only supported on Windows")
    return command


def guess(filename):
    return None


def unpack(filename, format=None):
    if format is not None:
        try:
            return {"zip": 1}[format]
        except KeyError:
            raise ValueError("unknown archive format")
    else:
        format = guess(filename)
        if format is None:
            raise LookupError("cannot guess the archive format")
    return format


class Name:
    pass


def rename_all(node):
    for name in node.find_all(Name):
        if name.ctx == "store":
            raise ValueError("cannot assign to a name here")
    return node


def rename_loops(node):
    for name in node.find_all(Name):
        if name.ctx == "store" and name.name == "loop":
            raise ValueError("cannot assign to the loop variable")
    return node


def configure(handlers=None, **kwargs):
    if handlers is None:
        if "stream" in kwargs and "filename" in kwargs:
            raise ValueError("stream and filename together")
    else:
        if "stream" in kwargs or "filename" in kwargs:
            raise ValueError("stream or filename given with handlers")
    return kwargs
'''

RUST_LIB = '''\
pub fn volume(dims: &[usize]) -> Result<usize, String> {
    let mut total = 1;
    for &dim in dims.iter() {
        if dim == 0 {
            return Err("a dimension of zero has no volume".to_string());
        }
        total *= dim;
    }
    Ok(total)
}
'''


def _repo(tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], repo: str
          ) -> dict[str, dict[str, Any]]:
    root = tmp_path_factory.mktemp(repo.replace("/", "-")) / "repo"
    init(root)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    commit(root, "first", "2024-01-01T12:00:00+00:00", tag="v1.0")
    return _index(root, repo)


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _repo(tmp_path_factory, {"looped/__init__.py": PY_LIB}, "t/looped")


@pytest.fixture(scope="module")
def rust(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    return _repo(tmp_path_factory, {"Cargo.toml": '[package]\nname = "vol"\nversion = "0.1.0"\n',
                                    "src/lib.rs": RUST_LIB}, "t/vol")


def test_a_check_in_a_loop_over_an_argument_holds_for_every_item(python: Any) -> None:
    page = _page(python, "names must be strings")
    assert page["summary"] == ("`name` must be an instance of `str` for every `name` in "
                               "`names` when calling `looped.register`")
    assert "`name` is each element of `names` in turn (`for name in names:`" in \
        page["what_it_means"]
    assert page["trigger"].startswith("Calling `looped.register` when `name` is not an "
                                      "instance of `str` for some `name` in `names`")
    assert "Trace the values" not in " ".join(page["solutions"])


def test_a_class_a_collection_is_built_with_is_not_a_value_of_the_caller(python: Any) -> None:
    assert _page(python, "cannot assign to a name here")["summary"] == (
        "`name.ctx` must differ from `\"store\"` for every `name` in `node.find_all(Name)` "
        "when calling `looped.rename_all`")


def test_two_fields_of_one_item_quantify_it_once(python: Any) -> None:
    page = _page(python, "cannot assign to the loop variable")
    assert page["summary"].count("for every `name` in `node.find_all(Name)`") == 1
    assert page["trigger"].count("for some `name` in `node.find_all(Name)`") == 1


def test_the_item_of_enumerate_is_an_item_of_the_collection(python: Any) -> None:
    page = _page(python, "items must not be negative")
    assert page["summary"] == ("`item` must be at least 0 for every `item` in `items` when "
                               "calling `looped.scale`")


def test_a_builtin_type_in_a_check_is_not_a_value_to_trace(python: Any) -> None:
    assert _page(python, "label text must be a str")["summary"] == \
        "`type(text)` must be `str` when calling `looped.label`"


def test_a_branch_that_raises_only_inside_a_nested_check_still_passes(python: Any) -> None:
    # The `str` branch raises only when an import fails: a str is still a way to pass.
    assert _page(python, "group must be a str or an int")["summary"] == (
        "`group` must be an instance of `str` or an instance of `int` when calling "
        "`looped.lookup`")


def test_a_branch_on_the_module_s_own_flag_is_not_the_caller_s_way_out(python: Any) -> None:
    page = _page(python, "flags are only supported on Windows")
    assert page["summary"] == ("`flags` must be 0 when calling `looped.spawn` (checked only when "
                               "`_WINDOWS` is falsy)")
    assert "It is reached only when `_WINDOWS` is falsy" in page["what_it_means"]


def test_a_value_set_again_in_the_else_is_not_the_one_its_branches_tested(python: Any) -> None:
    page = _page(python, "cannot guess the archive format")
    assert "not be None or" not in page["summary"]
    assert page["summary"].startswith("`format` must not be None")


def test_a_chained_or_test_is_kept_whole(python: Any) -> None:
    page = _page(python, "stream or filename given with handlers")
    assert page["summary"] == (
        "one of: `handlers` must be None; (all of: `\"stream\"` must not be in `kwargs`; "
        "`\"filename\"` must not be in `kwargs`) when calling `looped.configure`")


def test_a_rust_loop_over_a_slice_names_the_slice(rust: Any) -> None:
    page = _page(rust, "a dimension of zero has no volume")
    assert "`dim` is each element of `dims` in turn (`for &dim in dims.iter() {`" in \
        page["what_it_means"]
    assert page["summary"] == "`dim` must not be 0 for every `dim` in `dims` when calling `volume`"


GO_LIB = '''\
package vol

import "errors"

func Volume(dims []int) (int, error) {
	total := 1
	for _, dim := range dims {
		if dim == 0 {
			return 0, errors.New("a zero dimension has no volume")
		}
		total *= dim
	}
	for i := range dims {
		if i > 8 {
			return 0, errors.New("too many dimensions")
		}
	}
	return total, nil
}
'''


def test_a_go_range_loop_binds_its_second_name_to_the_items(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    records = _repo(tmp_path_factory, {"go.mod": "module example.com/vol\n\ngo 1.21\n",
                                       "vol.go": GO_LIB}, "t/govol")
    said = _page(records, "a zero dimension has no volume")["what_it_means"]
    assert "`dim` is each element of `dims` in turn (`for _, dim := range dims {`" in said
    # a single name is the index, not an item
    assert "each element" not in _page(records, "too many dimensions")["what_it_means"]
