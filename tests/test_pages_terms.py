"""Pages that say a check in the caller's terms when the code reads a part of an argument
through a local (issue 20, defect 3): `let (b, heads, d) = q.dims3()?` binds `heads` to
`q.dim(1)`, `h, w = image.shape` binds `w` to `image.shape[1]`, so "`heads` must be a
multiple of `kv_heads`" is said as "`q.dim(1)` must be a multiple of `k.dim(1)`"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from errdex.contract import record_to_dict
from errdex.index import index_snapshot
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

ATTENTION = """\
pub fn grouped_attention(q: &Tensor, k: &Tensor) -> Result<Tensor> {
    let (_total, heads, _dim) = q.dims3()?;
    let (_, kv_heads, _) = k.dims3()?;
    if heads != kv_heads {
        if heads % kv_heads != 0 {
            bail!("grouped attention: {heads} heads do not divide into {kv_heads}")
        }
    }
    Ok(q.clone())
}

pub struct Session {
    vocab: Vocab,
}

impl Session {
    pub fn run(&self, prompt: &str) -> Result<usize> {
        let tokens = self
            .vocab
            .encode(prompt)?;
        if tokens.is_empty() {
            bail!("run: the prompt encodes to no tokens")
        }
        Ok(tokens.len())
    }
}

pub fn pair(point: (usize, usize)) -> Result<usize> {
    let (x, y) = point;
    if y == 0 {
        bail!("pair: the second coordinate must not be zero")
    }
    Ok(x / y)
}
"""

IMAGES = '''\
def crop(image, size):
    """Cut the top-left corner of `image`."""
    height, width = image.shape
    if width < size:
        raise ValueError(f"crop: the image is narrower than {size}")
    return image


def swap(a, b):
    low, high = b, a
    if low > high:
        raise ValueError("swap: the bounds are in the wrong order")
    return low


def strip_junk(text):
    rest, junk = re.subn(r"^[=\\s;]*", "", text)
    if junk > 0:
        raise ValueError("strip_junk: junk before the value")
    return rest
'''


def _index(root: Path, repo: str, files: dict[str, str]) -> dict[str, dict[str, Any]]:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (snapshot,) = resolve(str(root), SourceOptions(repo=repo))
    with SQLiteStore(root.parent / "pages.sqlite") as store:
        index_snapshot(snapshot, store, workers=1)
        return {row.message: record_to_dict(store.record(row.id)) for row in store.records(repo)}


def _explanation(records: dict[str, dict[str, Any]], start: str) -> dict[str, Any]:
    (found,) = [r for message, r in records.items() if message.startswith(start)]
    page: dict[str, Any] = found["explanation"]
    return page


def test_a_destructured_dimension_is_said_as_the_argument_s(tmp_path: Path) -> None:
    records = _index(tmp_path / "repo", "t/attn", {"src/lib.rs": ATTENTION})
    page = _explanation(records, "grouped attention")
    assert page["summary"].startswith(
        "`q.dim(1)` must be a multiple of `k.dim(1)` when calling `grouped_attention`")
    # The enclosing `if` is said in the same terms, as a way not to reach the check.
    assert "it runs only when `q.dim(1)` differs from `k.dim(1)`" in " ".join(page["solutions"])


def test_a_destructured_tuple_element_is_said_as_the_argument_s(tmp_path: Path) -> None:
    records = _index(tmp_path / "repo", "t/pair", {"src/lib.rs": ATTENTION})
    page = _explanation(records, "pair: the second")
    assert page["summary"].startswith("`point.1` must not be 0 when calling `pair`")


def test_python_unpacking_is_said_as_the_argument_s(tmp_path: Path) -> None:
    records = _index(tmp_path / "repo", "t/img", {"imgcut/__init__.py": IMAGES})
    crop = _explanation(records, "crop: the image")
    assert crop["summary"].startswith(
        "`image.shape[1]` must be at least `size` when calling `imgcut.crop`")
    # `low, high = b, a`: each name takes its own value, not an element of a tuple.
    swap = _explanation(records, "swap: the bounds")
    assert swap["summary"].startswith("`b` must be at most `a` when calling `imgcut.swap`")
    # The strings of the value are quoted as written, not as the blanks that read them.
    junk = records["strip_junk: junk before the value"]["facts"]["sites"][0]["origins"]
    assert junk and all("\x01" not in o["expression"] for o in junk), junk
    assert junk[0]["expression"].startswith('re.subn(r"^[=\\s;]*"'), junk


def test_a_statement_over_several_lines_is_read_to_its_end(tmp_path: Path) -> None:
    """`let tokens = self` goes on as `.vocab.encode(prompt)?`: one line alone said
    "`tokens` is computed as `self`" (the round-4 candle review, 11 pages)."""
    records = _index(tmp_path / "repo", "t/run", {"src/lib.rs": ATTENTION})
    page = _explanation(records, "run: the prompt")
    assert "`tokens` is computed as `self.vocab.encode(prompt)?`" in page["what_it_means"]
    assert "`self` must" not in page["summary"]


ADDRESSES = '''\
class ParseError(ValueError):
    pass


def parse_v4(text):
    if text.count(".") != 3:
        raise ParseError(text)
    return text


def parse_v6(text):
    if ":" not in text:
        raise ParseError(text)
    return text


def parse_any(text):
    """Parse an IPv4 or an IPv6 address."""
    try:
        return parse_v4(text)
    except (ParseError, TypeError):
        pass

    try:
        return parse_v6(text)
    except ParseError:
        pass

    raise ValueError(f"{text!r} is neither an IPv4 nor an IPv6 address")
'''


def test_returns_tried_before_a_raise_are_ways_out(tmp_path: Path) -> None:
    """`try: return parse_v4(text) / except ..: pass`: the raise after such blocks is
    reached only when each tried return raised (the Python review: ip_interface said
    "no condition in front of it decides")."""
    records = _index(tmp_path / "repo", "t/addr", {"addr/__init__.py": ADDRESSES})
    page = _explanation(records, "{text!r} is neither")
    assert ("It is reached only when `parse_v4(text)` raised `ParseError` or `TypeError` "
            "and `parse_v6(text)` raised `ParseError`.") in page["what_it_means"]
    assert "no condition in front of it decides" not in page["what_it_means"]


CLIENT = '''\
class Client:
    def __init__(self):
        self.features = {}

    def hello(self, reply):
        self.features = dict(line.split(" ", 1) for line in reply)

    def has_feature(self, name):
        return name in self.features

    def login(self, user):
        if not self.has_feature("auth"):
            raise RuntimeError("AUTH is not offered by the server")
        return user
'''


def test_a_check_on_the_object_s_own_method_is_its_state_not_an_argument(
    tmp_path: Path,
) -> None:
    """`not self.has_feature("auth")` asks the object, with its argument kept (the
    Python review: smtplib's login said "`self` must have extn" and "call it with
    arguments for which ...")."""
    records = _index(tmp_path / "repo", "t/client", {"client/__init__.py": CLIENT})
    page = _explanation(records, "AUTH is not offered")
    assert page["summary"].startswith(
        '`self.has_feature("auth")` must be true when calling `client.Client.login`')
    assert page["solutions"][0].startswith(
        "Call `client.Client.login` on an object for which `self.has_feature(\"auth\")` is "
        "true: the object's state decides")


PACKED = '''\
class ReadError(Exception):
    pass


def decompress(name):
    with open(name, "rb") as f:
        return f.read()


def open_packed(name, mode="r"):
    try:
        data = decompress(name)
    except (ValueError, EOFError) as e:
        if mode == "r":
            raise ReadError("not a packed file") from e
        raise
    return data
'''


def test_a_check_inside_a_handler_selects_the_message_the_caught_error_is_the_cause(
    tmp_path: Path,
) -> None:
    """The Python review: tarfile's xzopen said "`mode` must differ from 'r'" for a raise
    inside `except (LZMAError, EOFError)`, a fix that overwrites the archive."""
    records = _index(tmp_path / "repo", "t/packed", {"packed/__init__.py": PACKED})
    page = _explanation(records, "not a packed file")
    assert page["summary"].startswith(
        "`packed.open_packed` raises this after catching `(ValueError, EOFError)`")
    assert "it raises this message only when `mode == \"r\"` holds" in page["what_it_means"]
    assert "must differ" not in " ".join([page["summary"], *page["solutions"]])


FACTORIES = '''\
class DecodeError(ValueError):
    pass


def located(src, pos, msg) -> DecodeError:
    """Return a `DecodeError` whose message ends with where it happened."""
    return DecodeError(f"{msg} (at {pos})")


class Validator:
    def _invalid(self, msg):
        return DecodeError(msg)

    def check(self, value):
        if not value:
            raise self._invalid("the value is empty")
        return value


def load(src):
    if not src.strip():
        raise located(src, 0, "Invalid statement")
    return src
'''


def test_a_function_that_builds_the_exception_names_the_type_raised(tmp_path: Path) -> None:
    """`raise located(src, pos, "..")` and `raise self._invalid("..")` raise the
    `DecodeError` those functions return (the Python review: 41 packaging records were
    headed `raise self._invalid_metadata`, and tomllib's `suffixed_err` 22 stdlib ones)."""
    records = _index(tmp_path / "repo", "t/fact", {"fact/__init__.py": FACTORIES})
    for message in ("Invalid statement", "the value is empty"):
        record = records[next(m for m in records if m.startswith(message))]
        assert record["exception"] == "DecodeError", message
        assert "except DecodeError" in record["explanation"]["defensive"]["try_catch"]


NOT_FOUND = '''\
class NotFound(LookupError):
    def __init__(self, names=(), message=None):
        if message is None:
            message = f"none of the templates given were found: {', '.join(names)}"
        super().__init__(message)


def select(names):
    if not names:
        raise NotFound(message="Tried to select from an empty list of templates.")
    raise NotFound(names)
'''


def test_a_message_passed_over_a_class_s_default_text_is_the_site_s_only_message(
    tmp_path: Path,
) -> None:
    """`NotFound(message="..")` shows the text given, not the default the class builds when
    none is (the Python review: Jinja's empty-list raise was a site of 'none of the
    templates given were found')."""
    records = _index(tmp_path / "repo", "t/nf", {"nf/__init__.py": NOT_FOUND})
    default = records[next(m for m in records if m.startswith("none of the templates"))]
    assert [s["line"] for s in default["sites"]] == [11]
    given = records["Tried to select from an empty list of templates."]
    assert [s["line"] for s in given["sites"]] == [10]


LOGGED = '''\
import logging

logger = logging.getLogger(__name__)


def load(path, strict=False):
    if not path.endswith(".cfg"):
        logger.warning("load: %s does not look like a config file", path)
    return path
'''


def test_a_logged_warning_is_not_caught_as_a_python_warning(tmp_path: Path) -> None:
    """`logger.warning(..)` writes a log record: no `warnings.catch_warnings` sees it (the
    Python review: 20 stdlib records)."""
    records = _index(tmp_path / "repo", "t/logged", {"logged/__init__.py": LOGGED})
    page = _explanation(records, "load: %s does not")
    assert "catch_warnings" not in page["defensive"]["try_catch"]
    assert "nothing to catch" in page["defensive"]["try_catch"]
    assert not any("warnings into errors" in p for p in page["prevention"])


SWALLOWED = '''\
def lookup(obj, key):
    try:
        value = obj.__dict__[key]
        if value is None:
            raise KeyError("lookup: the attribute is unset")
    except Exception:
        pass
    return None


def fetch(obj, key):
    try:
        if key not in obj:
            raise KeyError("fetch: no such key")
    except KeyError:
        raise
    return obj[key]


class Environment:
    def compile(self, source):
        try:
            if not source.endswith("}}"):
                raise SyntaxError("compile: chunk after expression")
        except SyntaxError:
            self.handle_exception(source)
        return source

    def handle_exception(self, source):
        raise RuntimeError(f"in {source}")
'''


def test_a_raise_its_own_handler_catches_never_reaches_a_caller(tmp_path: Path) -> None:
    """`raise KeyError(..)` inside `try: .. except Exception: pass` (the round-5 Python
    review: inspect's __dict__ raise, caught two lines later); a handler that raises
    again lets it out."""
    records = _index(tmp_path / "repo", "t/sw", {"sw/__init__.py": SWALLOWED})
    page = _explanation(records, "lookup: the attribute")
    assert page["summary"].startswith("This error never leaves `sw.lookup`")
    assert page["solutions"][0].startswith("Nothing to change on your side")
    fetch = _explanation(records, "fetch: no such key")
    assert "never leaves" not in fetch["summary"]
    # a handler that hands it to a helper that raises (Jinja's `handle_exception`)
    handed = _explanation(records, "compile: chunk after")
    assert "never leaves" not in handed["summary"]
    assert "Nothing to change on your side" not in handed["solutions"][0]


EXAMPLE_MAIN = """\
use clap::Parser;

#[derive(Parser)]
struct Args {
    #[arg(long)]
    max_tokens: usize,
}

fn main() -> Result<()> {
    let args = Args::parse();
    if args.max_tokens == 0 {
        bail!("max tokens must be positive")
    }
    Ok(())
}
"""

SCRIPT = '''\
import argparse


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    if args.jobs < 1:
        raise ValueError("at least one job is needed")
'''


def test_a_check_on_the_parsed_command_line_is_said_as_its_flags(tmp_path: Path) -> None:
    """`args.max_tokens` of `let args = Args::parse()` is the `--max-tokens` flag (issue 20:
    CLI entry points mapped to their flags; the candle review: an example's `--dtype`)."""
    records = _index(tmp_path / "rs", "t/cli", {"examples/gen/main.rs": EXAMPLE_MAIN})
    page = _explanation(records, "max tokens must be positive")
    assert page["summary"].startswith(
        "`--max-tokens` must not be 0 when running `cargo run --example gen --`")
    assert page["solutions"][0] == ("Run `cargo run --example gen --` with command-line flags "
                                    "for which `--max-tokens` is not 0.")
    records = _index(tmp_path / "py", "t/script", {"tool/cli.py": SCRIPT})
    page = _explanation(records, "at least one job")
    assert page["summary"].startswith("`--jobs` must be at least 1")


EXPECTED = """\
pub struct Model {
    extra: Option<Vec<u32>>,
}

impl Model {
    pub fn forward(&self, tokens: Option<&[u32]>) -> usize {
        if let Some(extra) = &self.extra {
            let ids = tokens.expect("forward: extra embeddings need token ids");
            return ids.len() + extra.len();
        }
        0
    }
}
"""


def test_an_expect_inside_a_branch_blames_the_value_not_the_branch(tmp_path: Path) -> None:
    """`tokens.expect(..)` inside `if let Some(extra) = &self.extra`: `tokens` was None;
    the branch only leads there (the round-4 and round-5 candle reviews: rwkv's
    `token_ids` blamed on `self.deep_embed` being Some)."""
    records = _index(tmp_path / "repo", "t/exp", {"src/lib.rs": EXPECTED})
    page = _explanation(records, "forward: extra embeddings")
    assert "`tokens`" in page["summary"] and "is None or an Err" in page["summary"]
    assert "It gets there only when" in page["what_it_means"]
