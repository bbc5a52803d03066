"""The public function a user called (issue 20, defect 6): a method of a trait impl is
reached through a value of its type, so the functions that build that value are its
callers, not every function that calls a method of the same name on some other type;
free functions are named by their module, as users write the call."""

from __future__ import annotations

from pathlib import Path

from errdex.models import Record
from tests.builders import indexed_records


def _record(tmp_path: Path, files: dict[str, str], start: str) -> Record:
    """Index `files` (path -> text) as one repository; the record whose message starts so."""
    (record,) = [r for r in indexed_records(tmp_path, files, "t/repo")
                 if r.template.message.startswith(start)]
    return record


OPS = """\
pub trait CustomOp {
    fn fwd(&self, x: usize) -> Result<usize>;
}

pub struct Scale {
    factor: usize,
}

impl CustomOp for Scale {
    fn fwd(&self, x: usize) -> Result<usize> {
        if self.factor == 0 {
            bail!("scale factor must not be zero")
        }
        Ok(x * self.factor)
    }
}

pub struct Shift {
    by: usize,
}

impl CustomOp for Shift {
    fn fwd(&self, x: usize) -> Result<usize> {
        Ok(x + self.by)
    }
}

pub fn apply(op: &dyn CustomOp, x: usize) -> Result<usize> {
    op.fwd(x)
}

pub fn scale(x: usize, factor: usize) -> Result<usize> {
    apply(&Scale { factor }, x)
}

pub fn shift(x: usize, by: usize) -> Result<usize> {
    apply(&Shift { by }, x)
}

pub trait Loader {
    fn load(&self, name: &str) -> Result<usize>;
}

impl Loader for Pool {
    fn load(&self, name: &str) -> Result<usize> {
        if name.is_empty() {
            bail!("pool: no tensor name given")
        }
        Ok(0)
    }
}

pub fn read_file(path: &str) -> Result<usize> {
    let file = std::fs::File::open(path)?;
    file.load(path)
}
"""


def test_a_trait_method_is_reached_from_the_function_that_builds_its_type(
    tmp_path: Path,
) -> None:
    record = _record(tmp_path, {"tensor-ops/src/lib.rs": OPS}, "scale factor")
    assert record.facts is not None and record.explanation is not None
    (site,) = record.facts.sites
    # `apply` calls `op.fwd` for every op: by name it would be the caller, and `shift`
    # (which builds another op) would come with it. The value is built in `scale`.
    assert [e.function for e in site.entry_points] == ["tensor_ops::scale"]
    assert "`tensor_ops::scale`" in record.explanation.summary


def test_a_trait_method_has_no_callers_by_its_shared_name(tmp_path: Path) -> None:
    """`read_file` calls some other `.load`: a trait method's name is shared by every
    impl, so a call by that name is no evidence of reaching this one."""
    record = _record(tmp_path, {"tensor-ops/src/lib.rs": OPS}, "pool: no tensor")
    assert record.facts is not None
    assert record.facts.sites[0].entry_points == ()


KERNELS = """\
pub struct Dense {
    heads: usize,
}

impl Dense {
    fn launch(&self, d: usize) -> Result<usize> {
        Ok(d * self.heads)
    }

    pub fn forward(&self, d: usize) -> Result<usize> {
        self.launch(d)
    }
}

pub struct Ragged {
    offsets: Vec<usize>,
}

impl Ragged {
    fn launch(&self, d: usize) -> Result<usize> {
        if self.offsets.is_empty() {
            bail!("ragged launch needs offsets")
        }
        Ok(d)
    }

    pub fn forward(&self, d: usize) -> Result<usize> {
        self.launch(d)
    }
}
"""


def test_a_call_on_self_reaches_the_callers_own_type_only(tmp_path: Path) -> None:
    """`Dense::forward` calls `self.launch` on a `Dense`, which has its own `launch`:
    it is no way into `Ragged::launch` (the candle review found `FlashAttn::cuda_fwd`
    named as the caller of `FlashAttnVarLen::cuda_fwd_t` on 36 pages)."""
    record = _record(tmp_path, {"kernels/src/lib.rs": KERNELS}, "ragged launch")
    assert record.facts is not None
    assert [e.function for e in record.facts.sites[0].entry_points] == ["Ragged::forward"]


HIDDEN_OP = """\
pub trait Op {
    fn fwd(&self, x: &[f32]) -> Result<Vec<f32>>;
}

struct Narrow(usize);

impl Op for Narrow {
    fn fwd(&self, x: &[f32]) -> Result<Vec<f32>> {
        Ok(x.to_vec())
    }
}

struct Widen(usize);

impl Op for Widen {
    fn fwd(&self, x: &[f32]) -> Result<Vec<f32>> {
        if x.len() < self.0 {
            bail!("widen: the input is shorter than the width")
        }
        Ok(x.to_vec())
    }
}

pub fn widen(x: &[f32]) -> Result<Vec<f32>> { Widen(2).fwd(x) }
pub fn widen_more(x: &[f32]) -> Result<Vec<f32>> { Widen(4).fwd(x) }
pub fn widen_most(x: &[f32]) -> Result<Vec<f32>> { Widen(8).fwd(x) }
pub fn widen_all(x: &[f32]) -> Result<Vec<f32>> { Widen(x.len()).fwd(x) }
"""

OTHER_CRATE = """\
struct Widen(usize);

pub fn elsewhere(x: &[f32]) -> usize { Widen(x.len()).0 }
"""


def test_a_private_type_s_trait_method_is_reached_from_its_file_s_builders(
    tmp_path: Path,
) -> None:
    """`struct Widen` is private: users cannot name it, so its `Op::fwd` is not theirs
    to call; every function of its file that builds one is a way in (four here, more than
    a public type's limit), and a type of the same name in another crate is not."""
    record = _record(tmp_path, {"ops/src/lib.rs": HIDDEN_OP, "other/src/lib.rs": OTHER_CRATE},
                     "widen: the input")
    assert record.facts is not None and record.explanation is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["ops::widen", "ops::widen_more", "ops::widen_most", "ops::widen_all"]
    assert "Widen::fwd" not in record.explanation.summary


PATTERNS = {
    "patterns/__init__.py": (
        "from . import _engine\n\n\n"
        "def compile(pattern):\n"
        "    return _build(pattern)\n\n\n"
        "def _build(pattern):\n"
        "    return _engine.build(pattern)\n"
    ),
    "patterns/_engine.py": (
        "from . import _parser\n\n\n"
        "def build(pattern):\n"
        "    return _parser.parse(pattern)\n"
    ),
    "patterns/_parser.py": (
        "def parse(pattern):\n"
        "    return _group(pattern)\n\n\n"
        "def _group(pattern):\n"
        "    return _flags(pattern)\n\n\n"
        "def _flags(pattern):\n"
        "    if ':' not in pattern:\n"
        "        raise ValueError('flags: missing : after the flags')\n"
        "    return pattern\n"
    ),
    "patterns/config.py": "def parse(text):\n    return text.split('=')\n",  # another `parse`
}


def test_a_private_module_s_function_leads_on_to_what_users_call(tmp_path: Path) -> None:
    """`_parser.parse` is public in its file, but its module is private: users call
    `patterns.compile`, five calls up, through `_engine.build`'s `_parser.parse(..)`,
    although another module defines a `parse` of its own."""
    record = _record(tmp_path, PATTERNS, "flags: missing")
    assert record.facts is not None and record.explanation is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions[0] == "patterns.compile", functions
    assert "patterns.config.parse" not in functions
    assert "`patterns.compile`" in record.explanation.summary


REEXPORTED = {
    "toml/__init__.py": '"""Read TOML documents."""\nfrom ._parser import load, loads\n',
    "toml/_parser.py": (
        "def loads(text):\n"
        "    return scan(text)\n\n\n"
        "def load(handle):\n"
        "    return loads(handle.read())\n\n\n"
        "def scan(text):\n"
        "    if not text:\n"
        "        raise ValueError('scan: the document is empty')\n"
        "    return text\n"
    ),
}


def test_a_function_its_package_re_exports_is_named_by_the_package(tmp_path: Path) -> None:
    """`toml/__init__.py` imports `loads` and `load` from `._parser`: users call
    `toml.loads`, not `toml._parser.loads`, and not the private module's `scan`."""
    record = _record(tmp_path, REEXPORTED, "scan: the document")
    assert record.facts is not None and record.explanation is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["toml.loads", "toml.load"], functions
    assert "`toml.loads`" in record.explanation.summary


WAITING = {
    "sync/barrier.py": (
        "import os\n\n\n"
        "class Barrier:\n"
        "    def __init__(self, cond):\n"
        "        self._cond = cond\n\n"
        "    def wait(self, timeout):\n"
        "        if timeout < 0:\n"
        "            raise ValueError('wait: the timeout must not be negative')\n"
        "        return timeout\n\n"
        "    def pass_through(self):\n"
        "        return self._cond.wait(1)\n\n\n"
        "class Watcher:\n"
        "    def stop(self, fd):\n"
        "        os.wait(fd)\n\n\n"
        "def use(barrier):\n"
        "    return barrier.wait(2)\n"
    ),
    "os.py": "def wait(fd):\n    return fd\n",  # a top-level module, as `import os` names
    "sync/event.py": "class Event:\n    def wait(self):\n        return True\n",  # another `wait`
}


def test_a_call_on_a_module_or_on_a_field_is_not_the_method_s(tmp_path: Path) -> None:
    """`Barrier.wait` shares its name with other types' methods: `os.wait(..)` is a
    module's function and `self._cond.wait(..)` a call on a field, neither the barrier's
    own `wait`; a call on a value of the file (`barrier.wait(2)`) may be."""
    record = _record(tmp_path, WAITING, "wait: the timeout")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["sync.barrier.use"], functions


def test_a_package_s_own_function_is_not_a_re_export_of_a_submodule_s(tmp_path: Path) -> None:
    """`rx/__init__.py` defines `compile` and lists it in `__all__`; `rx._engine.compile`
    is another function, which stays named by its own module."""
    files = {
        "rx/__init__.py": (
            "from . import _engine\n\n__all__ = ['compile']\n\n\n"
            "def compile(pattern):\n    return _engine.compile(pattern)\n"
        ),
        "rx/_engine.py": (
            "def compile(pattern):\n    return _check(pattern)\n\n\n"
            "def _check(pattern):\n"
            "    if not pattern:\n"
            "        raise ValueError('check: the pattern is empty')\n"
            "    return pattern\n"
        ),
    }
    record = _record(tmp_path, files, "check: the pattern")
    assert record.facts is not None
    entries = [(e.function, e.path) for e in record.facts.sites[0].entry_points]
    assert ("rx.compile", "rx/__init__.py") in entries, entries
    assert ("rx.compile", "rx/_engine.py") not in entries, entries


STORED_LAYER = """\
pub trait Module {
    fn forward(&self, xs: usize) -> Result<usize>;
}

struct PatchEmbed {
    patch: usize,
}

impl PatchEmbed {
    fn new(patch: usize) -> Result<Self> {
        Ok(Self { patch })
    }
}

impl Module for PatchEmbed {
    fn forward(&self, xs: usize) -> Result<usize> {
        if xs % self.patch != 0 {
            bail!("patch: the image size is not a multiple of the patch size")
        }
        Ok(xs / self.patch)
    }
}

pub struct Vision {
    patch_embed: PatchEmbed,
}

impl Vision {
    pub fn new(patch: usize) -> Result<Self> {
        let patch_embed = PatchEmbed::new(patch)?;
        Ok(Self { patch_embed })
    }

    pub fn embed(&self, xs: usize) -> Result<usize> {
        self.patch_embed.forward(xs)
    }
}
"""


def test_a_hidden_layer_a_constructor_stores_runs_from_its_owners_methods(
    tmp_path: Path,
) -> None:
    """`Vision::new` builds the private `PatchEmbed` and keeps it: nothing runs its
    `forward` there; `Vision::embed`, which calls it through the field, does (round 7
    candle: `BeitVisionTransformer::new` was said to fail a `PatchEmbed::forward` check)."""
    record = _record(tmp_path, {"vision/src/lib.rs": STORED_LAYER}, "patch: the image")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["Vision::embed"], functions


ANOTHER_TYPE_S_NEW = """\
pub struct Model {
    size: usize,
}

impl Model {
    pub fn new(size: usize) -> Result<Self> {
        if size == 0 {
            bail!("model: the size must not be zero")
        }
        Ok(Self { size })
    }
}

pub fn transcribe(bytes: Vec<u8>) -> Result<usize> {
    let reader = Cursor::new(bytes);
    Ok(reader.len())
}
"""


def test_another_type_s_function_of_the_same_name_is_not_a_call(tmp_path: Path) -> None:
    """`Cursor::new(..)` in the same file calls `Cursor`'s `new`, not `Model::new`
    (round 7 candle: `transcribe_audio` listed as a way into `VoxtralModel::new`)."""
    files = {"model/src/lib.rs": ANOTHER_TYPE_S_NEW,
             "other/src/lib.rs": "pub struct Cursor;\nimpl Cursor {\n    pub fn new() {}\n}\n"}
    record = _record(tmp_path, files, "model: the size")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert "model::transcribe" not in functions and "transcribe" not in functions, functions


def _mlp(model: str, message: str) -> str:
    return (f"pub struct MLP {{\n    size: usize,\n}}\n\nimpl MLP {{\n"
            f"    pub fn new(size: usize) -> Result<Self> {{\n"
            f"        if size == 0 {{\n            bail!(\"{message}\")\n        }}\n"
            f"        Ok(Self {{ size }})\n    }}\n}}\n\n"
            f"pub fn {model}(size: usize) -> Result<MLP> {{\n    MLP::new(size)\n}}\n")


def test_a_type_s_name_in_a_file_with_its_own_type_of_that_name_is_that_one(
    tmp_path: Path,
) -> None:
    """Every model file has its own `MLP`: `MLP::new(..)` in `llama.rs` is llama's, not
    another model's (round 8 review: six other models' constructors crowded out the
    real caller)."""
    files = {f"models/src/{m}.rs": _mlp(m, f"{m}: the size must not be zero")
             for m in ("llama", "mistral", "phi")}
    files["models/src/lib.rs"] = "pub mod llama;\npub mod mistral;\npub mod phi;\n"
    record = _record(tmp_path, files, "llama: the size")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["models::llama::llama"], functions


EXPANDER = {
    "kit/__init__.py": "",
    "kit/_expand.py": (
        "class Expander:\n"
        "    def __init__(self, depth):\n"
        "        if depth < 0:\n"
        "            raise ValueError('expander: the depth is negative')\n"
        "        self.depth = depth\n"
    ),
    "kit/api.py": (
        "from kit import _expand\n\n\n"
        "def expand(text, depth=1):\n"
        "    return _expand.Expander(depth), text\n"
    ),
}


def test_a_class_call_runs_its_init(tmp_path: Path) -> None:
    """`_expand.Expander(depth)` runs `Expander.__init__`: `kit.api.expand` is a way in
    (round 8 review: a class call was no edge, so such checks had no caller)."""
    record = _record(tmp_path, EXPANDER, "expander: the depth")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert functions == ["kit.api.expand"], functions


def test_a_bare_class_call_elsewhere_may_be_another_class_of_that_name(
    tmp_path: Path,
) -> None:
    """`StringIO(text)` after `from io import StringIO` is the C class, not a pure-Python
    `StringIO` like `_pyio.py`'s (round 9 review: 20 false callers on 4 pages)."""
    files = {
        "kit/__init__.py": "",
        "kit/textio.py": (
            "class StringIO:\n"
            "    def __init__(self, initial):\n"
            "        if initial is None:\n"
            "            raise TypeError('pyio: the initial value must be text')\n\n\n"
            "def open_text(initial):\n"
            "    return StringIO(initial)\n"
        ),
        "kit/mail.py": "from io import StringIO\n\n\ndef body(text):\n    return StringIO(text)\n",
    }
    record = _record(tmp_path, files, "pyio: the initial")
    assert record.facts is not None
    functions = [e.function for e in record.facts.sites[0].entry_points]
    assert "kit.mail.body" not in functions, functions
    assert "kit.textio.open_text" in functions, functions


CRATE_PRIVATE = {
    "Cargo.toml": '[package]\nname = "vl"\n',
    "src/lib.rs": (
        "mod vision;\n"
        "pub use vision::Config;\n\n"
        "pub struct Model {\n    vision: vision::Tower,\n}\n\n"
        "impl Model {\n"
        "    pub fn new(cfg: &Config) -> Result<Self> {\n"
        "        let vision = vision::Tower::new(cfg)?;\n"
        "        Ok(Self { vision })\n"
        "    }\n"
        "}\n"
    ),
    "src/vision.rs": (
        "pub struct Config {\n    pub patches: usize,\n}\n\n"
        "pub struct Tower {\n    size: usize,\n}\n\n"
        "impl Tower {\n"
        "    pub fn new(cfg: &Config) -> Result<Self> {\n"
        "        if cfg.patches == 0 {\n"
        '            bail!("a vision tower needs patches")\n'
        "        }\n"
        "        Ok(Self { size: cfg.patches })\n"
        "    }\n"
        "}\n\n"
        "impl Config {\n"
        "    pub fn checked(&self) -> Result<usize> {\n"
        "        if self.patches > 64 {\n"
        '            bail!("too many patches")\n'
        "        }\n"
        "        Ok(self.patches)\n"
        "    }\n"
        "}\n"
    ),
}


def test_a_pub_type_of_a_module_kept_to_its_crate_is_not_what_users_call(
    tmp_path: Path,
) -> None:
    """`mod vision;` has no `pub`: `vision::Tower::new` cannot be named outside the crate
    (E0603), so the page names `Model::new`, which users call; `Config` is re-exported
    (`pub use vision::Config`), so its own method stays theirs."""
    record = _record(tmp_path / "a", CRATE_PRIVATE, "a vision tower")
    assert record.facts is not None and record.explanation is not None
    assert record.facts.sites[0].public is False
    assert "`Model::new`" in record.explanation.summary, record.explanation.summary
    assert "Tower::new" not in record.explanation.summary
    checked = _record(tmp_path / "b", CRATE_PRIVATE, "too many patches")
    assert checked.facts is not None and checked.facts.sites[0].public is True


DEEP = {
    "docs/__init__.py": "from ._reader import loads\n",
    "docs/_reader.py": (
        "def loads(text):\n    return _document(text)\n\n\n"
        "def _document(text):\n    return _section(text)\n\n\n"
        "def _section(text):\n    return _line(text)\n\n\n"
        "def _line(text):\n    return _token(text)\n\n\n"
        "def _token(text):\n"
        "    if text.startswith('\\t'):\n"
        "        raise ValueError('a token cannot start with a tab')\n"
        "    return text\n"
    ),
}


def test_the_search_goes_on_past_the_depth_while_no_public_caller_is_found(
    tmp_path: Path,
) -> None:
    """`docs.loads` is four calls above `_token`: past MAX_DEPTH with no public caller
    found, the search goes on, so the page names what users call, not `_token`."""
    record = _record(tmp_path, DEEP, "a token cannot")
    assert record.explanation is not None
    assert "`docs.loads`" in record.explanation.summary, record.explanation.summary
