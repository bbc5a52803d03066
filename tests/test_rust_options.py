"""The `let`s of a Rust program that read its parsed command line
(`errdex.languages.rust.options.option_reads`)."""

from __future__ import annotations

from errdex.languages.rust import options
from errdex.languages.rust.extractor import _PARSER

SOURCE = b"""\
#[derive(Parser)]
struct Args {
    #[arg(long)]
    model_path: Option<String>,
    #[arg(long)]
    r#type: String,
    #[arg(short)]
    n: usize,
}

fn main() {
    let args = Args::parse();
    let other = MyArgs::parse();
    let has_model = args.model_path.is_some();
    let kind = args.r#type.clone();
    let deep = cfg.args.n;
    let count = args.n + 1;
    let nothing = args.model_paths;
}
"""


def _reads(source: bytes) -> list[tuple[str, int]]:
    tree = _PARSER.parse(source)
    declared = options.command_options(tree.root_node, source)
    return [(r.name, r.line) for r in options.option_reads(source, declared)]


def test_lets_reading_the_parsed_options() -> None:
    assert _reads(SOURCE) == [("args", 12), ("has_model", 14), ("kind", 15), ("count", 17)]


def test_plain_names_read_the_same() -> None:
    plain = SOURCE.replace(b"r#type", b"kind_of")
    assert _reads(plain) == [("args", 12), ("has_model", 14), ("kind", 15), ("count", 17)]
