"""Where a guarded value comes from: the nearest assignment before the error in the
function (a struct field set from a config, a local), or a parameter of the function.

It reads the site's snippet, and when given the file's typed bindings (from its
extraction), the type of the value a field
is copied from (`kv_repeat: cfg.kv_repeat` in `fn new(cfg: &Config)` -> `Config.kv_repeat`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

from errdex.analyze.guards import names_in
from errdex.analyze.masking import mask as _mask
from errdex.analyze.masking import split_top
from errdex.extract.structure import TypedBinding
from errdex.languages import spec_for
from errdex.models import Site


@dataclass(frozen=True)
class Origin:
    name: str  # the guarded name ("kv_repeat")
    how: str  # "field" (struct literal / self.x = ...), "local" (let / x = ...), "parameter",
    # "filled" (set to `expression`, then filled in place at `line`: `xs.append(..)`),
    # "item" (each item of the collection `expression`, bound by the loop the check is in)
    expression: str  # what it is set from ("cfg.kv_repeat"), or the parameter's type
    line: int  # line in the file, 0 if unknown
    text: str  # the source line, stripped


_TYPEISH = re.compile(
    r"(?:&\s*(?:'\w+\s+)?(?:mut\s+)?)?(?:[A-Z][\w:]*|[iu](?:8|16|32|64|128|size)|f32|f64|bool"
    r"|str|char|dyn\b.*|impl\b.*)(?:<.*>)?"
)


def short_name(function: str | None) -> str | None:
    if not function:
        return None
    return re.split(r"::|\.", function)[-1]


def _line_of(site: Site, index: int) -> int:
    return site.snippet.start_line + index


def find_origins(site: Site, names: Sequence[str]) -> tuple[Origin, ...]:
    """Where, in the snippet, each guarded name is set: the nearest assignment before the
    error, and the function's parameter list."""
    shown = site.snippet.code.splitlines()
    stop = max(0, min(len(shown), site.line - site.snippet.start_line))
    found: list[Origin] = []
    own = own_function_start(site, shown[:stop])
    blocks = _try_blocks(site, shown) if names else ()
    for name in names:
        lines = _try_bodies_out(shown, blocks, name)
        last = name.split(".")[-1]
        # A field (`self.patch`) is set in another function (`new`): look from the top of
        # the snippet; a local only in its own function (a `left` of the function above
        # is another value).
        field = f"self.{name}" in (site.guard or "")
        start = 0 if field else own
        # read only as the object's field: a local or parameter of that name is another
        # value (`let (_, page_block_size, ..) = ..` beside `self.page_block_size`)
        only_field = field and not re.search(rf"(?<![\w.]){re.escape(name)}\b", site.guard or "")
        floor = _indent(lines[stop]) if stop < len(lines) else 0
        origin = _nearest_assignment(site, lines[start:stop], name, last, start, floor,
                                     own - start, only_field)  # fmt: skip
        if origin:
            found.append(origin)
        param = None if only_field else _parameter(site, lines[: stop + 1], name)
        if param:
            found.append(param)
    return tuple(found)


@dataclass(frozen=True)
class _TryBlock:
    """A `try` the site is not in a handler of: its body (lines `index + 1` to `end`),
    indented `shift` past the `try`, and its handler clauses (to `clauses`)."""

    index: int
    end: int
    clauses: int
    shift: int


def _try_blocks(site: Site, lines: list[str]) -> tuple[_TryBlock, ...]:
    """The snippet's `try` blocks whose body runs on the way to the site, read once for
    every name a check reads (the site in a handler: the body may have stopped
    half-way)."""
    spec = spec_for(site.language)
    if spec.handlers is None:
        return ()
    opener, handler = _tuple_pattern(spec.handlers[0]), _tuple_pattern(spec.handlers[1])
    writer, stop = spec.writer(), site.line - site.snippet.start_line
    out = []
    for index, line in enumerate(lines):
        if not opener.fullmatch(line.strip()):
            continue
        level, end, body = _indent(line), index + 1, 0
        while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > level):
            body = body or (_indent(lines[end]) if lines[end].strip() else 0)
            end += 1
        clauses = end  # the handlers, `else` and `finally` after the body
        while clauses < len(lines) and (
                not (text := lines[clauses].strip()) or _indent(lines[clauses]) > level
                or handler.match(text) or writer.exclusive_branch(text)):
            clauses += 1  # fmt: skip
        if not end <= stop < clauses:
            out.append(_TryBlock(index, end, clauses, body - level))
    return tuple(out)


def _try_bodies_out(lines: list[str], blocks: Sequence[_TryBlock], name: str) -> list[str]:
    """The lines with the body of every `try` moved out to the `try`'s own indentation:
    the body runs on the way to the code after the `try`, so what it assigns (`lineno =
    int(arg)`) is the value the check reads, unlike what a closed `if` assigns. Not when a
    handler assigns `name` too (`except TypeError: n = 0`, then counted): then either may
    be the value."""
    out = lines
    for block in blocks:
        if any(_assigns(text, name) for text in lines[block.end : block.clauses]):
            continue
        out = list(out) if out is lines else out
        for at in range(block.index + 1, block.end):
            if out[at][: block.shift].isspace():
                out[at] = out[at][block.shift :]
    return out


_CONTINUE = re.compile(r"(?:^\s*|[:;{]\s*)continue\s*;?\s*(?:$|[#/}])")  # the next item


def _assigns(line: str, name: str) -> bool:
    return bool(re.search(rf"(?<![\w.]){re.escape(name)}\s*(?:,[^=]*)?(?::[^=]+)?=(?!=)", line))


def own_function_start(site: Site, lines: list[str]) -> int:
    """Index of the line that starts the site's own function in the snippet (0 when not
    shown)."""
    return own_function_line(site, lines) or 0


def shows_own_start(site: Site) -> bool:
    """Whether the snippet shows the line that starts the site's function: else what
    the function did before the snippet (a parameter bound anew) is not known."""
    before = site.snippet.code.splitlines()[: max(0, site.line - site.snippet.start_line)]
    return own_function_line(site, before) is not None


@dataclass(frozen=True)
class Computed:
    """A local a check reads that its function computes from its own arguments."""

    origin: Origin  # the local and where it is computed (`n = _ss(data, mu)[3]`)
    arguments: tuple[str, ...]  # the function's parameters its expression reads


def computed_from_arguments(
    site: Site, guard: str | None, names: Sequence[str], origins: Sequence[Origin],
    params: Sequence[str] | None,
) -> tuple[Computed, ...]:  # fmt: skip
    """The locals the check reads that are computed from the function's parameters alone:
    not from the object's state too (`getattr(self, option)`), not from a parameter the
    function has bound anew before (`cum_weights = list(accumulate(weights))`), and not
    a local that only shares its name with a field the check reads (`self.size`). None
    when the snippet does not show the function's start: a parameter may be bound anew
    above it."""
    if not guard or not origins or not shows_own_start(site):
        return ()
    own = {p for p in params or () if p != "self" and not assigned_before(site, p)}
    roots = {n.split(".")[0] for n in names}
    out: list[Computed] = []
    for origin in origins:
        if origin.how != "local" or origin.name not in roots or origin.name in own \
                or not re.search(rf"(?<![\w.]){re.escape(origin.name)}\b", guard) \
                or re.search(r"\bself\b", origin.expression):  # fmt: skip
            continue
        read = tuple(sorted(set(names_in(origin.expression)) & own))
        if read and all(c.origin.name != origin.name for c in out):
            out.append(Computed(origin, read))
    return tuple(out)


def own_function_line(site: Site, lines: list[str]) -> int | None:
    """Index of the line that starts the site's own function in the snippet, None when
    the snippet does not show it (it starts inside the function)."""
    short = short_name(site.function)
    if not short:
        return None
    starts = _definition_line(spec_for(site.language).function_keyword)
    for index in range(len(lines) - 1, -1, -1):
        if short in lines[index]:
            m = starts.match(lines[index])
            if m and m.group(1) == short:
                return index
    return None


def assigned_before(site: Site, name: str) -> bool:
    """Whether the site's function assigns `name` anywhere before the site, in any block
    (`object = object.__code__` in an `if` above): its value there may not be the one
    passed. Reads the snippet from the function's start (from its top when it starts
    inside the function)."""
    lines = site.snippet.code.splitlines()
    stop = max(0, min(len(lines), site.line - site.snippet.start_line))
    spec = spec_for(site.language)
    local = _local_pattern(spec.local_binding, spec.statement_end)
    for line in lines[own_function_start(site, lines[:stop]) : stop]:
        m = local.match(_blank_strings(line))
        if m and m.group("name") == name:
            return True
    return False


# The patterns below are compiled once, with the name as a group compared afterwards:
# compiling one pattern per guarded name (thousands in a large crate) cost more than
# the rest of the analysis.
_FIELD_REST = re.compile(r"\s*:\s*(?!:)(?P<value>.+?)\s*,?\s*$")  # after `name`: `name: value,`
_ASSIGN_REST = re.compile(r"\s*(?::[^=]+)?=(?!=)\s*(?P<value>.+?);?\s*$")  # after `self.name`


@lru_cache(maxsize=16)
def _definition_line(keyword: str) -> re.Pattern[str]:
    # Modifier words before it (`pub(crate) async fn`, `async def`), a receiver after it
    # (`func (e *T) Name`).
    return re.compile(rf"\s*(?:[a-z]+(?:\([^)]*\))?\s+)*{keyword}\s+(?:\([^)]*\)\s*)?"
                      rf"([A-Za-z_]\w*)(?!\w)")


@lru_cache(maxsize=16)
def _local_pattern(local_binding: str, statement_end: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{local_binding}(?P<name>[A-Za-z_][\w.]*)\s*(?::[^=]+)?=(?!=)"
                      rf"\s*(?P<value>.+?){statement_end}\s*$")  # fmt: skip


@lru_cache(maxsize=16)
def _signature_pattern(keyword: str) -> re.Pattern[str]:
    return re.compile(rf"\b{keyword}\s+([A-Za-z_]\w*)\s*(?:<[^(]*>)?\s*\(")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _after_word(line: str, word: str, rest: re.Pattern[str], dot_ok: bool) -> re.Match[str] | None:
    """The first `word` in `line` not written after a letter, digit or `_` (nor after a
    `.` unless `dot_ok`) and followed by `rest`, as one search of the whole would find."""
    at = line.find(word)
    while at >= 0:
        before = line[at - 1] if at else ""
        if not (before and (_is_word(before) or (before == "." and not dot_ok))):
            m = rest.match(line, at + len(word))
            if m:
                return m
        at = line.find(word, at + 1)
    return None


def _nearest_assignment(
    site: Site, lines: list[str], name: str, last: str, offset: int = 0, floor: int = 0,
    own: int = 0, only_field: bool = False,
) -> Origin | None:  # fmt: skip
    if not any(last in line for line in lines):
        return None
    spec = spec_for(site.language)
    local = _local_pattern(spec.local_binding, spec.statement_end)
    declaration = _declaration(spec.declaration_words)
    # A struct literal sets a field as `name: value,` (only where fields are read through
    # `self`: elsewhere `name: T` is an annotation).
    copied = spec.can("fields_read_through_self")
    # In the site's own function (from line `own` of `lines`), only an assignment in a
    # block still open at the site sets the value it reads: one in a branch that closed
    # before it (the `if` arm of the site's `else`) does not. A field is set elsewhere.
    for index in range(len(lines) - 1, -1, -1):
        line = lines[index]
        if index >= own and line.strip() and not line.lstrip().startswith(
                (spec.comment, ")", "]", "}")):  # fmt: skip
            if _indent(line) > floor:
                continue
            encloses, floor = _indent(line) < floor, _indent(line)
            root = name.split(".")[0]  # `name.ctx`: an item's field
            item = _loop_item(site, line, root, lines[index + 1 :]) \
                if encloses and root != "self" and not only_field else None  # fmt: skip
            if item is not None:  # the loop the check sits in binds it: each item in turn
                return Origin(root, "item", item, _line_of(site, index + offset), line.strip())
        if last not in line or declaration.search(line):
            continue
        code = _blank_strings(line)  # `{x:?}` in a message isn't code
        candidates = [("field", _after_word(code, f"self.{last}", _ASSIGN_REST, True))]
        m = None if only_field else local.match(code)
        candidates.append(("local", m if m and m.group("name") == name else None))
        element = None if only_field else _destructured(site, line, name)
        if element is not None:
            return Origin(name, "local", element, _line_of(site, index + offset), line.strip())
        if copied:
            m = _after_word(code, last, _FIELD_REST, False)
            if m and _TYPEISH.fullmatch(m.group("value").rstrip(",)")):
                m = None
            candidates.append(("field", m))
        for how, m in candidates:
            if m is None:
                continue
            expression = line[m.start("value") : m.end("value")].rstrip(",;").strip()
            rest = _continued(lines, index + 1)
            expression += rest
            # A value that goes on over several lines (`if c {`, `foo(`) can't be
            # quoted from one line: better no origin than half of one.
            if expression and not expression.endswith(("{", "(", "[", "\\", "=>")):
                filled = _filled(site, lines, index + 1, last)
                if filled is not None:  # `duplicates = []`, then appended to in a loop
                    at, text = filled
                    return Origin(name, "filled", expression, _line_of(site, at + offset), text)
                line_number = _line_of(site, index + offset)
                return Origin(name, how, expression, line_number, line.strip() + rest)
    return None


def _filled(site: Site, lines: list[str], start: int, name: str) -> tuple[int, str] | None:
    """(index, statement) of the first line after `start` that fills or changes `name` in
    place by the language's idioms (`duplicates.append(..)`, `x[k] = ..`, `n += 1`): the
    value the check reads is not the one assigned."""
    hooks = spec_for(site.language).before
    if hooks is None or not hooks.fills:
        return None
    fill = _fill_pattern(hooks.fills)
    for index in range(start, len(lines)):
        m = fill.match(lines[index])
        if m and m.group("name") == name and not _in_other_branch(site, lines, index):
            return index, lines[index].strip()
    return None


def _in_other_branch(site: Site, lines: list[str], at: int) -> bool:
    """Whether line `at` sits in a branch the site's own excludes: on the way from it to
    the site (the end of `lines`), a line further out than any before it starts an `else`,
    `elif` or another arm that is still open at the site (tarfile's `n >>= 8` of the
    `elif` before the raising `else`; not an `elif` that ended before the site's `if`)."""
    writer, comment = spec_for(site.language).writer(), spec_for(site.language).comment
    level, excluded = _indent(lines[at]), False
    for line in lines[at + 1 :]:
        if not line.strip() or line.lstrip().startswith(comment) or _indent(line) > level:
            continue
        level = _indent(line)
        excluded = writer.exclusive_branch(line)  # a new statement out there ends the arm
    return excluded


@lru_cache(maxsize=16)
def _fill_pattern(fills: str) -> re.Pattern[str]:
    return re.compile(rf"\s*(?:self\.)?(?P<name>[A-Za-z_]\w*)\s*(?:\.\s*(?:{fills})\s*\(|"
                      rf"\[[^\]]*\]\s*=(?!=)|(?:[-+*/|&]|<<|>>)=)")


_CONTINUATION = (".", "?", "+ ", "- ", "* ", "/ ", "&&", "||")
MAX_CONTINUED = 8


def _continued(lines: list[str], start: int) -> str:
    """The rest of a statement that goes on over the next lines as a method chain or an
    operator (`let tokens = self` then `.tokenizer` then `.encode(prompt)?;`): one line
    alone would say `tokens` is `self`."""
    out = []
    for line in lines[start : start + MAX_CONTINUED]:
        part = line.strip()
        if not part.startswith(_CONTINUATION):
            break
        out.append(part.rstrip(";") if part.startswith((".", "?")) else " " + part.rstrip(";"))
    return "".join(out)


def _loop_item(site: Site, line: str, name: str, body: Sequence[str]) -> str | None:
    """The collection whose items a loop header binds `name` to, as code (`for name in
    [typename] + field_names:` -> `[typename] + field_names`; `for i, x in enumerate(xs)`,
    `x` -> `xs`); None when the line is no such loop, binds something else to `name` (an
    index, a key), or its `body` up to the site skips items (`continue`)."""
    spec = spec_for(site.language)
    if spec.loop_binding is None or name not in line:
        return None
    m = _tuple_pattern(spec.loop_binding).match(_blank_strings(line))
    if m is None:
        return None
    names = [re.sub(r"^(?:&|mut\s+)+", "", n.strip()) for n in m.group("names").split(",")]
    names = [n for n in names if n]
    if name not in names:
        return None
    value = line[m.start("value") : m.end("value")].strip()
    if any(_CONTINUE.search(text) for text in body):
        return None  # `if isinstance(ext, Extension): continue` first: not every item
    for pattern, position, count in spec.loop_items:
        item = re.match(pattern, value)
        if item and len(names) == count:
            return item.group("value").strip() if names.index(name) == position else None
    return value if len(names) == 1 else None


def _destructured(site: Site, line: str, name: str) -> str | None:
    """The element `name` is bound to by a destructuring assignment on this line, as code
    (`let (b, t, c) = x.dims3()?;` binds `t` to `x.dim(1)`; `h, w = img.size`, `w` to
    `img.size[1]`); None when the line binds no such tuple or not `name`. The line is
    read with its strings blanked, and the value quoted as written."""
    spec = spec_for(site.language)
    code = _blank_strings(line)
    if spec.tuple_binding is None or "," not in code:
        return None
    m = _tuple_pattern(spec.tuple_binding).match(code)
    if m is None:
        return None
    names = [re.sub(r"^(?:mut\s+|ref\s+|&)+", "", n.strip()) for n in m.group("names").split(",")]
    if names and not names[-1]:
        names.pop()  # a trailing comma
    if name not in names or any(not re.fullmatch(r"[A-Za-z_]\w*", n) for n in names):
        return None  # a nested pattern, a rest (`*xs`, `..`) or a default: not one element
    index = names.index(name)
    blank, value = m.group("value"), line[m.start("value") : m.end("value")]
    parts = split_top(blank, ",", site.language)
    if len(parts) == len(names):  # `a, b = x, y`: each name takes its own value
        at = 0
        for part in parts[: index + 1]:
            at = blank.index(part, at) + len(part)
        return value[at - len(parts[index]) : at].strip()
    value = value.strip()
    if len(parts) > 1 or value.endswith(("{", "(", "[", "\\", "=>")):
        return None
    for pattern, written in spec.tuple_elements_named:
        named = re.match(pattern, value)
        if named:
            return written.format(value=named.group("value"), index=index)
    return spec.tuple_element.format(value=value, index=index)


@cache
def _tuple_pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@cache
def _declaration(words: tuple[str, ...]) -> re.Pattern[str]:
    """A line that defines something (a function, a type) sets no value of a name on it."""
    return re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b")


def _parameter(site: Site, lines: list[str], name: str) -> Origin | None:
    short = short_name(site.function)
    if not short or "." in name:
        return None
    keyword = spec_for(site.language).function_keyword
    text = "\n".join(lines)
    found = [m for m in _signature_pattern(keyword).finditer(text) if m.group(1) == short]
    m = found[-1] if found else None
    if m is None:
        return None
    masked = _mask(text[m.end() - 1 :], site.language)
    close = masked.find(")")
    if close < 0:
        return None
    params = split_top(text[m.end() : m.end() - 1 + close], ",", site.language)
    for param in params:
        head, _, annotation = param.partition(":")
        head = re.sub(r"^\*+|^mut\s+", "", head.split("=")[0].strip())
        if head == name:
            line = _line_of(site, text[: m.start()].count("\n"))
            return Origin(name, "parameter", annotation.split("=")[0].strip(), line, param)
    return None


def declared_type(site: Site, name: str) -> str | None:
    """The type the snippet declares for `name` (a parameter or a struct field), if any."""
    last = re.escape(name.split(".")[-1])
    spec = spec_for(site.language)
    bare_types = spec.can("optional_type_checking") or spec.can("bare_type_names")
    pattern = spec.declared_type.replace("{root}", last)
    for m in re.finditer(pattern, site.snippet.code):
        text = m.group(1).strip()
        if _TYPEISH.fullmatch(text) or (bare_types and re.fullmatch(r"[*\[\]]*[\w.]+", text)):
            return text
    return None


_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _blank_strings(line: str) -> str:
    """The line with the inside of its string literals blanked, same length."""
    return _STRINGS.sub(lambda m: '"' + "\x01" * (len(m.group(0)) - 2) + '"', line)


_CHAIN_HEAD = re.compile(r"(?:self\.)?([A-Za-z_]\w*)\.([A-Za-z_]\w*)$")


def owner_of(
    origin: Origin, site: Site, typed: Sequence[TypedBinding] | None = None
) -> str | None:
    """`Config.kv_repeat` for a value copied from `cfg.kv_repeat`, when the file declares
    `cfg`'s type before the line that copies it (a parameter `cfg: &Config`, an annotated
    Python parameter or attribute). `typed` is the file's typed bindings as its
    extraction found them; without them, only the site's snippet is read. None when the
    type isn't written down."""
    m = _CHAIN_HEAD.fullmatch(origin.expression.strip())
    if m is None:
        return None
    root, field = m.groups()
    if typed is not None:
        found = [b.type_name for b in typed if b.name == root and b.line <= origin.line]
        type_name = found[-1] if found else None
    else:
        lines = site.snippet.code.splitlines()
        before = "\n".join(lines[: max(0, origin.line - site.snippet.start_line + 1)])
        pattern = spec_for(site.language).typed_binding.replace("{root}", re.escape(root))
        matches = list(re.finditer(pattern, before))
        type_name = next((g for g in matches[-1].groups() if g), None) if matches else None
    if type_name is None:
        return None
    short = re.split(r"::|\.", type_name)[-1]
    return f"{short}.{field}"
