"""Extraction: source files in, error sites out.

Each language's folder (`errdex/languages/<name>/extractor.py`) holds an `Extractor`;
this module holds what they share. What counts as raising an error (macros, methods,
helper functions) is data: the built-in rules in `errdex/languages/<name>/rules.toml`,
extended by a repository's own `errdex.toml` through the same loader. This package never
runs code from the indexed tree.
"""

from __future__ import annotations

import re
import time
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from tree_sitter import Node, Parser, Tree

from errdex.errors import ConfigError
from errdex.extract.structure import FileStructure
from errdex.languages import spec_for
from errdex.models import (
    Construction,
    FileExtraction,
    Helper,
    Language,
    MessageDefinition,
    Placeholder,
    Site,
    SiteKind,
    Snippet,
    Template,
)


@dataclass(frozen=True)
class Rule:
    """One error-raising name of a language.

    `form` says how it is written: "macro" (`bail!(...)`), "method" (`x.expect(...)`) or
    "call" (`Error::msg(...)`, `warnings.warn(...)`, `self.fail(...)`). `name` is matched
    against the last path segment for macros and methods, and against the full dotted
    or `::` path (or its last segments) for calls.
    """

    name: str
    form: str
    kind: SiteKind
    message_arg: int = 0  # which argument holds the message (format string first)
    guard_arg: int | None = None  # the argument that must hold (`ensure!(cond, ...)`)
    guard_op: str | None = None  # `assert_eq!`: "==" joins arguments 0 and 1
    exception: str | None = None  # the exception/error type it produces, if fixed
    format_args: bool = False  # the arguments after the message fill its format (logging's
    # `log.warning("retrying %s after %r", url, err)`), not a separate category
    # A discovered helper's (errdex.extract.helpers): the argument counts of its calls
    # (() any), and what only the language's reader knows of it, as its rules.toml writes it.
    arities: tuple[int, ...] = ()
    details: tuple[tuple[str, str | int | bool], ...] = ()
    receiver: str | None = None  # a method's: a regex its object must match (`(?i)log`)


class Extractor(Protocol):
    @property
    def language(self) -> Language: ...

    @property
    def extensions(self) -> tuple[str, ...]: ...

    def extract(
        self, path: str, source: bytes, rules: Sequence[Rule], seconds: float = ...
    ) -> FileExtraction:
        """Parse one file once and return everything it holds; OverBudget if parsing
        takes over `seconds` or the tree is deeper than MAX_TREE_DEPTH."""
        ...


_FORMS = {"macro", "method", "call"}
SNIPPET_BEFORE = 15  # lines of code shown before a site
SNIPPET_AFTER = 20  # and after its last line


# Every text stored per site is bounded, so the database grows with the number of sites,
# never with the length of a line: one 100 KB line must not be stored once per site.
SNIPPET_LINE_CHARS = 240  # a longer line of a snippet is cut and ends in CUT_MARK
SNIPPET_CHARS = 6_000  # a snippet's whole code, after its lines are cut
MESSAGE_CHARS = 2_000  # a message template, as written and as its literal parts
EXPRESSION_CHARS = 200  # a placeholder's expression, a bound value, a field name
GUARD_CHARS = 500  # the condition that leads to a site
NAME_CHARS = 200  # a function, exception, type or variant name, a path
MAX_PLACEHOLDERS = 64  # holes of one template; the rest of the message stays literal text
CUT_MARK = "\u2026"  # "…": shows where stored text was cut
MAX_NESTING = 200  # brackets or indentation levels in one file (CPython's own limits)
MAX_TREE_DEPTH = 1_000  # syntax tree depth: queries cost depth x nodes beyond it


class OverBudget(Exception):
    """A file needs more work than a budget allows; it is skipped with `reason`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


TOO_DEEP = "too deeply nested"


def cut(text: str, limit: int) -> str:
    """`text` made safe to store: lone surrogates (from `"\\udcff"`) and NUL bytes become
    U+FFFD, and text over `limit` characters is cut and ends in CUT_MARK."""
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # UTF-16 joins a pair written as two escapes and makes each lone half one U+FFFD.
        text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text if len(text) <= limit else text[: limit - 1] + CUT_MARK


class SourceLines:
    """A file's lines, split once (and only if a site needs them), for snippets."""

    def __init__(self, source: bytes) -> None:
        self._source = source
        self._lines: list[str] | None = None
        self._text = ""  # the decoded file, when every line shows as it is written
        self._starts: list[int] = []  # where each line starts in `_text`
        self._cut: dict[int, str] = {}  # line index -> the line as snippets show it
        self._snippets: dict[tuple[int, int], Snippet] = {}

    def snippet(self, line: int, end_line: int | None = None) -> Snippet:
        """The lines around a site, each cut to SNIPPET_LINE_CHARS and all of them to
        SNIPPET_CHARS: a long line costs a bounded amount per site."""
        if self._lines is None:
            self._split()
        assert self._lines is not None
        start = max(1, line - SNIPPET_BEFORE)
        end = min(len(self._lines), (end_line or line) + SNIPPET_AFTER)
        made = self._snippets.get((start, end))
        if made is None:  # the sites and constructions of one region share it
            if self._starts:  # every line shows as written: the region is one slice
                code = self._text[self._starts[start - 1] : self._starts[end] - 1]
            else:
                code = "\n".join(self._line(i) for i in range(start - 1, end))
            made = self._snippets[start, end] = Snippet(start, cut(code, SNIPPET_CHARS))
        return made

    def _split(self) -> None:
        text = self._source.decode("utf-8", "replace")
        self._lines = text.split("\n")
        if "\r" in text or "\x00" in text or max(map(len, self._lines)) > SNIPPET_LINE_CHARS:
            return  # some line is shown changed: line by line
        self._text = text + "\n"
        self._starts = [0]
        for shown in self._lines:
            self._starts.append(self._starts[-1] + len(shown) + 1)

    def _line(self, index: int) -> str:
        shown = self._cut.get(index)
        if shown is None:
            assert self._lines is not None
            shown = self._cut[index] = cut(self._lines[index].rstrip("\r"), SNIPPET_LINE_CHARS)
        return shown


def nesting_problem(language: Language, source: bytes) -> str | None:
    """Why a file must not be parsed at all, found by a linear scan before the parser
    sees it: deeper bracket or indentation nesting than MAX_NESTING crashes
    tree-sitter-python (a segfault at ~520 nested blocks) and makes queries quadratic.
    Real code stays far below: CPython refuses 200 nested brackets or 100 indents."""
    depth = deepest = 0
    for char in source.translate(None, _NOT_BRACKETS):
        depth = depth + 1 if char in _OPENERS else max(depth - 1, 0)
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        return TOO_DEEP
    blocks_by_indent = spec_for(language).can("indentation_blocks")
    if blocks_by_indent and _indent_levels(source) > MAX_NESTING // 2:
        return TOO_DEEP
    return None


_BRACKETS = b"()[]{}"
_OPENERS = frozenset(b"([{")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _BRACKETS)


def _indent_levels(source: bytes) -> int:
    """The most indentation levels open at once (blank lines don't count)."""
    stack = [0]
    deepest = 0
    for raw in source.split(b"\n"):
        text = raw.rstrip()
        if not text:
            continue
        width = len(raw) - len(raw.lstrip(b" \t"))
        while width < stack[-1]:
            stack.pop()
        if width > stack[-1]:
            stack.append(width)
            deepest = max(deepest, len(stack) - 1)
    return deepest


PARSE_SECONDS = 30.0  # a parse taking longer is stopped by tree-sitter itself
OVER_TIME = "over the time budget"
_READ_CHUNK = 1 << 16


def parse_within(parser: Parser, source: bytes, seconds: float = PARSE_SECONDS) -> Tree:
    """`source` parsed, or OverBudget if it takes over `seconds`: tree-sitter asks its
    progress callback between steps (only when it reads through a callback), and stops
    when told to. The parser is reset so its next file starts fresh."""
    deadline = time.monotonic() + seconds

    def read(offset: int, _point: object) -> bytes:
        return source[offset : offset + _READ_CHUNK]

    def stop(_offset: int, _has_error: bool) -> bool:
        return time.monotonic() > deadline

    try:
        tree = parser.parse(read, progress_callback=stop)
    except ValueError:  # "Parsing failed": the callback said stop
        parser.reset()
        raise OverBudget(OVER_TIME) from None
    # A tree read through a callback keeps no source, so every text a query predicate
    # (`#match?`, `#any-of?`) reads goes back through the callback: 5x the query's time on
    # candle. Parsing the same bytes again over the finished tree reuses its nodes (no
    # edits; about 5% of the first parse on candle) and the tree then holds its source.
    # Nodes made in error recovery are not reused, so a parse that already took a good
    # part of the budget is not repeated: that file keeps the slower tree.
    if time.monotonic() < deadline - 0.75 * seconds:
        return parser.parse(source, old_tree=tree)
    return tree


def parse_file(parser: Parser, source: bytes, seconds: float = PARSE_SECONDS) -> Tree:
    """`source` parsed within its time budget and checked for depth (OverBudget if
    either is exceeded): every extractor's one parse of a file."""
    tree = parse_within(parser, source, seconds)
    check_depth(tree.root_node)
    return tree


def check_depth(root: Node) -> None:
    """Raise OverBudget if the tree is deeper than MAX_TREE_DEPTH (a chain of 20,000
    `.b()` calls has no deep brackets but a tree 40,000 deep, and the query's work grows
    with depth times nodes). A subtree of n nodes is at most n deep, so only the few
    subtrees big enough to pass the limit are walked: in real code, the files' top
    items, not their 2 million nodes."""
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise OverBudget(TOO_DEEP)
        for child in node.children:
            if depth + 1 + child.descendant_count > MAX_TREE_DEPTH:
                stack.append((child, depth + 1))


def parse_rules(entries: Iterable[Mapping[str, Any]], origin: str) -> list[Rule]:
    rules: list[Rule] = []
    for i, entry in enumerate(entries):
        try:
            form = str(entry["form"])
            if form not in _FORMS:
                raise ValueError(f"form must be one of {sorted(_FORMS)}")
            guard_arg = entry.get("guard_arg")
            rules.append(
                Rule(
                    name=str(entry["name"]),
                    form=form,
                    kind=SiteKind(entry.get("kind", "raise")),
                    message_arg=int(entry.get("message_arg", 0)),
                    guard_arg=None if guard_arg is None else int(guard_arg),
                    guard_op=entry.get("guard_op"),
                    exception=entry.get("exception"),
                    format_args=bool(entry.get("format_args", False)),
                    receiver=_receiver(entry.get("receiver"), origin),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise ConfigError(f"{origin}: rule {i + 1} is invalid: {exc}") from None
    return rules


def _receiver(pattern: object, origin: str) -> str | None:
    """A method rule's receiver regex, checked to compile (a bad one is the config's error)."""
    if pattern is None:
        return None
    try:
        re.compile(str(pattern))
    except re.error as exc:
        raise ConfigError(f"{origin}: receiver {pattern!r} is not a regex: {exc}") from None
    return str(pattern)


CONFIG_NAME = "errdex.toml"
MAX_CONFIG_BYTES = 1_000_000  # a repository's errdex.toml; rules are a few lines each
MAX_CONFIG_RULES = 1_000  # rules per language in it: every call site is tried against each
# The fields of a rule in errdex.toml, and the type each must have.
_RULE_FIELDS: dict[str, type] = {"name": str, "form": str, "kind": str, "message_arg": int,
                                 "guard_arg": int, "guard_op": str, "exception": str,
                                 "format_args": bool, "receiver": str}
_REQUIRED = ("name", "form")
MAX_ARGUMENT = 64  # the highest argument position a rule may name


def load_rules(language: Language, repo_root: str | None = None) -> list[Rule]:
    """Built-in rules for `language`, then the `[[<language>.rules]]` of the
    repository's `errdex.toml` (if `repo_root` has one)."""
    text = spec_for(language).rules_text()
    rules = parse_rules(tomllib.loads(text).get("rules", []), f"built-in {language} rules")
    if repo_root is not None:
        config = Path(repo_root) / CONFIG_NAME
        data = _read_config(config, Path(repo_root))
        if data is not None:
            entries = _config_rules(data, language, str(config))
            rules.extend(parse_rules(entries, str(config)))
    return rules


def _read_config(config: Path, root: Path) -> dict[str, Any] | None:
    """The parsed errdex.toml, or None when there is none to read: only a regular file
    inside the tree is read (a link, or a FIFO that would block, is not). Anything wrong
    with it is one `ConfigError` naming the file."""
    try:
        if config.is_symlink() or not config.is_file():
            return None
        if not config.resolve().is_relative_to(root.resolve()):
            return None  # a parent directory links out of the tree
        with config.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{config}: cannot be read: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{config}: larger than {MAX_CONFIG_BYTES} bytes; "
                          "an errdex.toml holds a few rules")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{config}: not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{config}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{config}: not valid TOML: nested too deeply") from None


def _config_rules(data: dict[str, Any], language: Language, origin: str) -> list[dict[str, Any]]:
    """The rule tables of `language` in errdex.toml, each checked field by field, so a
    mistake is named (`rule 2: 'message_arg' must be an integer`) and none slips through
    as a wrong type."""
    known = sorted(lang.value for lang in Language)
    for key, value in data.items():
        if key not in known:
            raise ConfigError(f"{origin}: unknown section [{key}] (expected one of "
                              f"{', '.join(known)})")
        if not isinstance(value, dict):
            raise ConfigError(f"{origin}: [{key}] must be a table")
        extra = sorted(set(value) - {"rules"})
        if extra:
            raise ConfigError(f"{origin}: [{key}] has unknown key {extra[0]!r} "
                              "(only 'rules')")
    entries = data.get(language.value, {}).get("rules", [])
    where = f"{origin}: {language.value}.rules"
    if not isinstance(entries, list):
        raise ConfigError(f"{where} must be an array of tables ([[{language.value}.rules]])")
    if len(entries) > MAX_CONFIG_RULES:
        raise ConfigError(f"{where} has {len(entries)} rules; at most {MAX_CONFIG_RULES}")
    for number, entry in enumerate(entries, 1):
        _check_rule(entry, f"{where}: rule {number}")
    return entries


def _check_rule(entry: object, where: str) -> None:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a table, not {type(entry).__name__}")
    for name in _REQUIRED:
        if name not in entry:
            raise ConfigError(f"{where} has no {name!r}")
    for name, value in entry.items():
        wanted = _RULE_FIELDS.get(name)
        if wanted is None:
            raise ConfigError(f"{where} has unknown field {name!r} "
                              f"(known: {', '.join(_RULE_FIELDS)})")
        if wanted is int:
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigError(f"{where}: {name!r} must be an integer")
            if not 0 <= value <= MAX_ARGUMENT:
                raise ConfigError(f"{where}: {name!r} must be between 0 and {MAX_ARGUMENT}")
        elif not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{where}: {name!r} must be a non-empty string")
    if entry["form"] not in _FORMS:
        raise ConfigError(f"{where}: form {entry['form']!r} is not one of {sorted(_FORMS)}")
    kinds = [kind.value for kind in SiteKind]
    if entry.get("kind", "raise") not in kinds:
        raise ConfigError(f"{where}: kind {entry['kind']!r} is not one of {kinds}")


def extractor_for(language: Language) -> Extractor:
    return spec_for(language).extractor()


def warm_up(language: Language, rules: Sequence[Rule]) -> None:
    """Build the language's parser and queries in this process, from an empty file
    (errdex's own input, not the library's), so that the worker processes forked from it
    start with them: each built them again, 0.1-0.2 s a worker, 13 workers on candle."""
    extractor_for(language).extract("", b"", rules, PARSE_SECONDS)


# -- bounding what one file gives -------------------------------------------------------


def bounded(extraction: FileExtraction, max_items: int) -> tuple[FileExtraction, int]:
    """`extraction` with every stored text cut to its limit and made storable, and at most
    `max_items` sites, definitions and constructions each (the first in source order);
    also how many were dropped. Runs on every file, so no extractor path can leak an
    unbounded or unencodable string into the store."""
    parts = (extraction.sites, extraction.definitions, extraction.constructions)
    dropped = sum(max(len(items) - max_items, 0) for items in parts)
    return FileExtraction(
        sites=tuple(_bounded_site(s) for s in extraction.sites[:max_items]),
        definitions=tuple(_bounded_definition(d) for d in extraction.definitions[:max_items]),
        constructions=tuple(
            _bounded_construction(c) for c in extraction.constructions[:max_items]
        ),
        dynamic_sites=extraction.dynamic_sites,
        helpers=tuple(h for h in extraction.helpers[:max_items] if _storable_helper(h)),
        structure=_bounded_structure(extraction.structure, 2 * max_items),
    ), dropped


def _storable_helper(helper: Helper) -> bool:
    """A helper is a rule of its name: one whose name or texts are over their limits (or
    could not be stored) is left out, not cut into another name."""
    texts = [helper.name, helper.path, helper.exception or "",
             *(str(v) for _, v in helper.details)]
    return len(helper.name) <= NAME_CHARS and len(helper.exception or "") <= NAME_CHARS and \
        all(len(t) <= MESSAGE_CHARS and cut(t, MESSAGE_CHARS) == t for t in texts)


def _bounded_structure(structure: FileStructure | None, max_paths: int) -> FileStructure | None:
    """At most `max_paths` condition paths (one per site or construction kept); their
    steps and texts are bounded where they are made (errdex.extract.structure)."""
    if structure is None or len(structure.paths) <= max_paths:
        return structure
    return replace(structure, paths=structure.paths[:max_paths])


def _opt(text: str | None, limit: int) -> str | None:
    return None if text is None else cut(text, limit)


def _pairs(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((cut(k, EXPRESSION_CHARS), cut(v, EXPRESSION_CHARS))
                 for k, v in pairs[:MAX_PLACEHOLDERS])  # fmt: skip


def bounded_template(template: Template) -> Template:
    """At most MAX_PLACEHOLDERS holes and MESSAGE_CHARS of literal text in all; what is cut
    ends in CUT_MARK."""
    holes = template.placeholders[:MAX_PLACEHOLDERS]
    literals = list(template.literals[: len(holes) + 1])
    if len(holes) < len(template.placeholders):
        literals[-1] += CUT_MARK
    budget = MESSAGE_CHARS
    for i, part in enumerate(literals):
        literals[i] = cut(part, max(budget, 1))
        budget = max(budget - len(literals[i]), 0)
    return Template(
        message=cut(template.message, MESSAGE_CHARS),
        literals=tuple(literals),
        placeholders=tuple(
            Placeholder(cut(h.name, NAME_CHARS), cut(h.expression, EXPRESSION_CHARS),
                        cut(h.spec, EXPRESSION_CHARS))
            for h in holes
        ),
    )


def _snippet(snippet: Snippet) -> Snippet:
    return Snippet(start_line=snippet.start_line, code=cut(snippet.code, SNIPPET_CHARS))


def _bounded_site(site: Site) -> Site:
    return replace(
        site,
        exception=_opt(site.exception, NAME_CHARS),
        template=bounded_template(site.template),
        path=cut(site.path, NAME_CHARS * 5),
        function=_opt(site.function, NAME_CHARS),
        guard=_opt(site.guard, GUARD_CHARS),
        snippet=_snippet(site.snippet),
        bound=_pairs(site.bound),
        variant=_opt(site.variant, NAME_CHARS),
        variant_fields=tuple(cut(f, NAME_CHARS) for f in site.variant_fields[:MAX_PLACEHOLDERS]),
    )


def _bounded_definition(definition: MessageDefinition) -> MessageDefinition:
    return replace(
        definition,
        name=cut(definition.name, NAME_CHARS),
        owner=_opt(definition.owner, NAME_CHARS),
        template=bounded_template(definition.template),
        fields=tuple(cut(f, NAME_CHARS) for f in definition.fields[:MAX_PLACEHOLDERS]),
        path=cut(definition.path, NAME_CHARS * 5),
        exception=_opt(definition.exception, NAME_CHARS),
    )


def _bounded_construction(built: Construction) -> Construction:
    return replace(
        built,
        type_path=cut(built.type_path, NAME_CHARS),
        path=cut(built.path, NAME_CHARS * 5),
        function=_opt(built.function, NAME_CHARS),
        guard=_opt(built.guard, GUARD_CHARS),
        snippet=_snippet(built.snippet),
        field_values=_pairs(built.field_values),
        payloads=tuple((cut(name, NAME_CHARS), bounded_template(text))
                       for name, text in built.payloads[:MAX_PLACEHOLDERS]),
    )


# Resolution reads the bounding above (a construction's inlined text is bounded too).
from errdex.extract.constructions import resolve_constructions as resolve_constructions  # noqa: E402
