"""The command line a Rust program declares, and how it is run: the fields of a clap
`#[derive(Parser)]`/`#[derive(Args)]` struct as the flags a user types, and the cargo
command that runs an example, a binary or a build script.

It reads the tree the extractor parsed (no file is read again) and a site's path and
snippet; it decides no page wording (errdex.write.commandline does).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterator

from tree_sitter import Node

from errdex.extract.structure import CommandOption, CommandRead

_DERIVES = re.compile(r"#\[\s*derive\s*\((?P<list>[^)]*)\)\s*\]")
_PARSERS = frozenset({"Parser", "Args", "clap::Parser", "clap::Args"})
_ARG = re.compile(r"#\[\s*(?:arg|clap|structopt)\s*\((?P<body>.*)\)\s*\]\s*$", re.S)
_NOT_FLAGS = re.compile(r"\b(?:flatten|subcommand|skip)\b")  # `#[command(flatten)]`, ...
_LONG = re.compile(r"(?<![\w-])long\s*(?:=\s*\"(?P<name>[^\"]*)\")?")
_SHORT = re.compile(r"(?<![\w-])short\s*(?:=\s*'(?P<name>[^']*)')?")
_DEFAULT = re.compile(r"\bdefault_value(?:_t)?\s*=\s*(?P<value>\"(?:[^\"\\]|\\.)*\"|[^,]+)")
_WEB = frozenset({"wasm_bindgen", "yew", "yew_agent"})  # a program a web page runs
_FEATURE = re.compile(r'^feature\s*=\s*"(?P<name>[^"]+)"$')  # a build condition (build.py)


def command_options(root: Node, source: bytes) -> tuple[CommandOption, ...]:
    """The options of every top-level struct that derives clap's `Parser` or `Args`."""
    return tuple(o for o in _items(root, source) if isinstance(o, CommandOption))


def option_values(root: Node, source: bytes) -> tuple[tuple[str, str], ...]:
    """The values of every top-level enum that derives clap's `ValueEnum`, as (`Enum::
    Variant`, the name the user types: `#[value(name = "x")]`, else the variant in
    kebab-case)."""
    return tuple(v for v in _items(root, source) if isinstance(v, tuple))


_VALUE_NAME = re.compile(r"#\[\s*(?:value|clap)\s*\(.*?\bname\s*=\s*\"(?P<name>[^\"]+)\"", re.S)
_WORDS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def _attributed(body: Node, source: bytes, kind: str) -> Iterator[tuple[Node, list[str]]]:
    """Each child of `body` of type `kind`, with the attributes written above it."""
    attributes: list[str] = []
    for child in body.named_children:
        if child.type == "attribute_item":
            attributes.append(_text(child, source))
        elif child.type == kind:
            yield child, attributes
            attributes = []


def _values(owner: str, body: Node, source: bytes) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for child, given in _attributed(body, source, "enum_variant"):
        name = child.child_by_field_name("name")
        if name is None or any("skip" in a for a in given):
            continue
        variant = _text(name, source)
        named = next((m.group("name") for a in given if (m := _VALUE_NAME.search(a))), None)
        out.append((f"{owner}::{variant}", named or _WORDS.sub("-", variant).lower()))
    return out


def _items(root: Node, source: bytes) -> list[CommandOption | tuple[str, str]]:
    out: list[CommandOption | tuple[str, str]] = []
    attributes: list[str] = []
    for item in root.named_children:
        if item.type == "attribute_item":
            attributes.append(_text(item, source))
            continue
        if item.type in ("line_comment", "block_comment"):
            continue
        derived = {d.strip() for a in attributes for m in _DERIVES.finditer(a)
                   for d in m.group("list").split(",")}  # fmt: skip
        attributes = []
        name = item.child_by_field_name("name")
        body = item.child_by_field_name("body")
        if name is None or body is None:
            continue
        if item.type == "enum_item" and derived & {"ValueEnum", "clap::ValueEnum"}:
            out += _values(_text(name, source), body, source)
        elif item.type == "struct_item" and derived & _PARSERS:
            out += _fields(_text(name, source), body, source)
    return out


def _fields(owner: str, body: Node, source: bytes) -> list[CommandOption]:
    out: list[CommandOption] = []
    for child, given in _attributed(body, source, "field_declaration"):
        name = child.child_by_field_name("name")
        if name is None or any(_NOT_FLAGS.search(a) for a in given):
            continue
        field = _text(name, source)
        args = " , ".join(m.group("body") for a in given if (m := _ARG.match(a)))
        long, short = _LONG.search(args), _SHORT.search(args)
        default = _DEFAULT.search(args)
        flag, positional = f"<{field}>", not long and not short
        if long:
            flag = "--" + (long.group("name") or field.replace("_", "-"))
        elif short:
            flag = "-" + (short.group("name") or field[:1])
        out.append(CommandOption(owner, field, flag, positional,
                                 default.group("value").strip() if default else None,
                                 child.start_point.row + 1))  # fmt: skip
    return out


_LET = re.compile(r"^\s*let\s+(?:mut\s+)?(?P<name>[a-z_]\w*)\s*(?::[^=]+)?=(?!=)\s*"
                  r"(?P<value>[^;]+);\s*$", re.M)


def option_reads(source: bytes, options: tuple[CommandOption, ...]) -> tuple[CommandRead, ...]:
    """The one-line `let`s of the file that parse its command line (`let args =
    Args::parse();`) or whose value reads a field of the options (`args.model_path
    .is_some()`): which parsed value they read, analysis decides."""
    if not options:
        return ()
    reads = _reader({o.field for o in options}, {o.owner for o in options})
    text = source.decode("utf-8", "replace")
    out = []
    for m in _LET.finditer(text):
        if reads(m.group("value")):
            line = text.count("\n", 0, m.start("name")) + 1
            out.append(CommandRead(m.group("name"), m.group("value").strip(), line,
                                   m.group(0).strip()))
    return tuple(out)


# A read of a field (`args.model`) and the parse (`Args::parse()`) of any names: the one
# regex every file shares, where a regex of its own names cost a compilation per file.
_FIELD_READ = re.compile(r"(?<![\w.])[a-z_]\w*\.(\w+)")
_PARSE = re.compile(r"^(\w+)::parse\(\)$")
_NAME = re.compile(r"\w+")


def _reader(fields: set[str], owners: set[str]) -> Callable[[str], bool]:
    """Whether a `let`'s value reads one of `fields` or parses one of `owners`."""
    if not all(_NAME.fullmatch(name) for name in fields | owners):  # `r#type`: its own regex
        either = "|".join(sorted(re.escape(name) for name in fields))
        owned = "|".join(sorted(re.escape(name) for name in owners))
        own = re.compile(rf"(?<![\w.])[a-z_]\w*\.(?:{either})\b|^(?:{owned})::parse\(\)$")
        return lambda value: own.search(value) is not None

    def reads(value: str) -> bool:
        parsed = _PARSE.search(value)
        if parsed is not None and parsed.group(1) in owners:
            return True
        return any(m.group(1) in fields for m in _FIELD_READ.finditer(value))

    return reads


def _text(node: Node, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "replace")


def program(path: str, conditions: tuple[str, ...], names: frozenset[str] = frozenset()
            ) -> tuple[str, str] | None:
    """How the user runs the code at `path` when it is a program of its own: ("run",
    "cargo run --example z_image --") for an example or a binary, ("build", "cargo build -p
    candle-examples --features cuda") for a build script (cargo runs its `main` while
    building the package, with the features its build `conditions` name); None for library
    code, and for a binary built for WebAssembly (its file uses `wasm_bindgen`): a web page's
    script calls its exported functions, not a user's shell."""
    parts = path.split("/")
    if _WEB & names:
        return None
    features = [m.group("name") for c in conditions if (m := _FEATURE.match(c))]
    if parts[-1] == "build.rs":
        package = parts[-2] if len(parts) > 1 else ""
        command = f"cargo build -p {package}" if package else "cargo build"
        if features:
            command += " --features " + ",".join(features)
        return ("build", command)
    for folder, flag in (("examples", "--example"), ("bin", "--bin")):
        if folder not in parts[:-1] or (folder == "bin" and "src" not in parts):
            continue
        at = len(parts) - 1 - parts[::-1].index(folder)
        if folder == "bin" and parts[at - 1] != "src":
            continue
        rest = parts[at + 1:]  # `NAME.rs`, or `NAME/main.rs` and the modules beside it
        if not rest or len(rest) > 2 or (len(rest) == 1) != rest[0].endswith(".rs"):
            continue
        name = posixpath.splitext(rest[0])[0]
        return ("run", f"cargo run {flag} {name} --")
    if parts[-2:] == ["src", "main.rs"] and len(parts) > 2:
        return ("run", f"cargo run -p {parts[-3]} --")
    return None
