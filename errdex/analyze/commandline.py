"""How the user runs the program a site is in, and which of its command-line flags the
check reads: `args.model_path` of `fn run(args: Args)` (or of `let args = Args::parse();`)
is the `--model-path` the user types, and a local set from it (`let use_local =
args.model_path.is_some();`) says whether that flag was given.

It reads the site, its file's extracted structure (the options a parser type declares,
the locals set from them, the typed parameters) and the language's tables; it writes no
page text (errdex.write.commandline does).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.extract.structure import CommandOption, FileStructure, OutlineDef
from errdex.languages import spec_for
from errdex.models import CommandFlag, Language, PathStep, Program, Site


def program_facts(
    site: Site, file: FileStructure | None, own: OutlineDef | None,
    reached: Sequence[PathStep] = (), origins: Sequence[str] = (),
) -> Program | None:  # fmt: skip
    """The program the site is in and the flags its check reads (in the guard, on its
    path, in the values the guard's locals are set from); None for a library's code
    whose function reads no parsed command line."""
    spec = spec_for(site.language)
    conditions = tuple(dict.fromkeys(
        g.condition for g in (file.gates if file is not None else ())
        if g.line <= site.line <= g.end_line))  # fmt: skip
    names = file.identifiers if file is not None else frozenset()
    run = spec.program(site.path, conditions, names) if spec.program is not None else None
    parsed = parsed_name(site, file, own)
    if run is None and parsed is None:
        return None
    texts = [site.guard or "", *(step.text for step in reached), *origins]
    flags = _flags(site, file, own, parsed, texts) if parsed else ()
    kind, command = run if run is not None else ("run", "")
    values = tuple((code, typed) for code, typed in (file.option_values if file else ())
                   if flags and any(re.search(rf"(?<![\w:]){re.escape(code)}\b", t)
                                    for t in texts))  # fmt: skip
    return Program(kind, command, parsed, flags, values)


def parsed_name(site: Site, file: FileStructure | None, own: OutlineDef | None) -> str | None:
    """The name the site's function holds its parsed command line in: bound by the
    language's parse call above the site, or a parameter typed as a type of the file that
    declares options (`fn run(args: Args)`, `args: &Args`)."""
    pattern = spec_for(site.language).cli_arguments
    if pattern is not None:
        before = site.snippet.code.splitlines()[: max(site.line - site.snippet.start_line, 0)]
        for line in reversed(before):
            m = re.search(pattern, line)
            if m:
                return m.group("name")
    if file is None or own is None or not file.options:
        return None
    if pattern is not None:  # bound above the snippet, in the function
        for read in file.reads:
            if own.line <= read.line < site.line and re.search(pattern, read.text):
                return read.name
    if not own.params:
        return None
    owners = {o.owner for o in file.options if o.owner}
    header_end = own.line + 5  # a parameter list spans the definition's first lines
    for binding in file.typed:
        if binding.name in own.params and binding.type_name.split("::")[-1] in owners \
                and own.line <= binding.line <= header_end:  # fmt: skip
            return binding.name
    return None


def _flags(
    site: Site, file: FileStructure | None, own: OutlineDef | None, parsed: str,
    texts: Sequence[str],
) -> tuple[CommandFlag, ...]:  # fmt: skip
    spec = spec_for(site.language)
    field = re.compile(rf"(?<![\w.]){re.escape(parsed)}\.([A-Za-z_]\w*)")
    options = file.options if file is not None else ()
    out: dict[str, CommandFlag] = {}
    for text in texts:
        for m in field.finditer(text):
            out.setdefault(m.group(1), _flag(m.group(1), options))
    start = own.line if own is not None else 0
    for read in file.reads if file is not None else ():
        said = re.compile(rf"(?<![\w.]){re.escape(read.name)}\b")
        got = field.search(read.expression)
        if got is None or not start <= read.line < site.line \
                or not any(said.search(t) for t in texts):  # fmt: skip
            continue
        base = _flag(got.group(1), options)
        rest = read.expression[got.end():]
        if spec.cli_accessors:
            rest = re.sub(rf"^{spec.cli_accessors}", "", rest)
        if rest and not any(re.fullmatch(p, rest) for p, _ in spec.cli_presence):
            continue  # a value computed from the flag, not the flag or its presence
        out[read.name] = CommandFlag(base.field, base.flag, base.default, read.name,
                                     read.expression)  # fmt: skip
    return tuple(out.values())


def _flag(name: str, options: Sequence[CommandOption]) -> CommandFlag:
    """The flag a field is written as: as its option declares it, else the parser's
    default long name (the field, `_` read as `-`)."""
    option = next((o for o in options if o.field == name), None)
    if option is None:
        return CommandFlag(name, "--" + name.replace("_", "-"))
    return CommandFlag(name, option.flag, option.default)


def presence(flag: CommandFlag, language: Language) -> bool | None:
    """Whether the local `flag.value` is true exactly when the flag was given (False:
    when it was not); None when the local holds the flag's value itself."""
    if flag.expression is None:
        return None
    for pattern, given in spec_for(language).cli_presence:
        if re.search(rf"{pattern}\s*$", flag.expression):
            return given
    return None
