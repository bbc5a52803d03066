"""A page's words for code that is a program of its own (an example, a binary, a build
script): the flags the user types instead of the fields the check reads (`args.model_path`
-> `--model-path`, `use_local` is true -> `--model-path` is given), and the command that
runs it instead of the program's own functions (`run`, a build script's `main`).

It reads the `Program` fact (errdex.analyze.commandline) and writes short phrases and the
shell lines of the code sections; it never reads files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from errdex.analyze.commandline import presence
from errdex.analyze.facts import Origin
from errdex.languages import spec_for
from errdex.models import ExampleFix, Language, Program

BUILD = "build"


def under_flags(program: Program | None, origins: Sequence[Origin], language: Language
                ) -> dict[str, str]:
    """The guard's locals that are a path built from a flag's value and literal parts
    (`let path = model_path.join("vae").join("w.safetensors")`, `model_path` holding
    `--model-path`), each said as a file under that flag."""
    spec = spec_for(language)
    if program is None or program.parsed is None or not spec.path_segment:
        return {}
    roots = {f.value: f.flag for f in program.flags if f.value and presence(f, language) is None}
    roots |= {f"{program.parsed}.{f.field}": f.flag for f in program.flags}
    out = {}
    for origin in origins:
        if origin.how != "local":
            continue
        m = re.match(r"(?P<root>[A-Za-z_][\w.]*?)(?P<rest>(?:\.\w+\([^()]*\))*)$",
                     origin.expression)
        if m is None or m.group("root") not in roots:
            continue
        rest = re.sub(rf"^{spec.cli_accessors}", "", m.group("rest"))
        parts = re.findall(spec.path_segment, rest)
        if parts and re.fullmatch(rf"(?:{spec.path_segment})+", rest):
            out[origin.name] = f"the file `{'/'.join(parts)}` under `{roots[m.group('root')]}`"
    return out


def reads_flags(program: Program | None, guard: str | None,
                paths: dict[str, str] | None = None) -> str | None:
    """The parsed command line's name when the guard reads one of its flags (a field, a
    local set from one, or a path under one)."""
    if program is None or program.parsed is None or not guard:
        return None
    if any(re.search(rf"(?<![\w.]){re.escape(name)}\b", guard) for name in paths or {}):
        return program.parsed
    if re.search(rf"(?<![\w.]){re.escape(program.parsed)}\.\w", guard):
        return program.parsed
    if any(f.value and re.search(rf"(?<![\w.]){re.escape(f.value)}\b", guard)
           for f in program.flags):  # fmt: skip
        return program.parsed
    return None


def as_flags(text: str | None, program: Program | None, language: Language,
             paths: dict[str, str] | None = None) -> str | None:
    """`text` with the parsed command line's fields written as the flags a user types:
    "`args.max_tokens.as_deref()`" -> "`--max-tokens`", "`use_local` is true" ->
    "`--model-path` is given"."""
    if text is None or program is None or program.parsed is None:
        return text
    spec = spec_for(language)
    for name, file in (paths or {}).items():  # `path` -> the file `vae/w` under `--model-path`
        text = text.replace(f"`{name}`", file)
    flags = {f.field: f.flag for f in program.flags}
    for flag in program.flags:
        given = presence(flag, language)
        if flag.value is None or given is None:
            continue
        name = re.escape(flag.value)
        phrase = {True: f"`{flag.flag}` is given", False: f"`{flag.flag}` is not given"}
        text = re.sub(rf"`{name}` is true", phrase[given], text)
        text = re.sub(rf"`{name}` is false|`!{name}` is true", phrase[not given], text)
    accessors = spec.cli_accessors or ""
    field = re.compile(rf"(?<![\w.]){re.escape(program.parsed)}\.(\w+){accessors}")
    held = {f.value: f.field for f in program.flags
            if f.value and presence(f, language) is None}  # locals that hold a flag's value
    if held:
        local = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, held)) + r")\b(?!\s*\()")
        text = re.sub(r"`[^`]+`", lambda span: local.sub(
            lambda m: f"{program.parsed}.{held[m.group(1)]}", span.group(0)), text)

    def flag_of(m: re.Match[str]) -> str:
        return flags.get(m.group(1)) or "--" + m.group(1).replace("_", "-")

    def in_span(span: re.Match[str]) -> str:
        code = span.group(0)
        said = field.sub(flag_of, code)
        if re.fullmatch(r"`&?<\w+>`", said):
            return f"the positional argument {said.replace('&', '')}"
        if said == code or re.fullmatch(r"`&?--?[\w-]+`", said):
            return said
        # more code than the flag (`args.height.is_multiple_of(a)`): the code, and its flags
        named = ", ".join(f"`{flag_of(m)}`" for m in field.finditer(code))
        return f"{code} ({named})"

    text = re.sub(r"`[^`]+`", in_span, text)
    for code, typed in program.values:  # `Which::Mistral7bV01` is typed `7b-v0.1`
        text = re.sub(rf"(?<![\w:]){re.escape(code)}\b", typed, text)
    text = re.sub(r"`&(--?[\w-]+|<\w+>)`", r"`\1`", text)
    for pattern, replacement in spec.cli_phrases:
        text = re.sub(pattern, replacement, text)
    return text


def defaults(program: Program | None, text: str | None) -> str:
    """" (`--model` defaults to `turbo`)" for the flags `text` names that have a default."""
    if program is None or not text:
        return ""
    said = [f"`{f.flag}` defaults to `{f.default.strip(chr(34))}`" for f in program.flags
            if f.default and f"`{f.flag}`" in text]  # fmt: skip
    return f" ({'; '.join(dict.fromkeys(said))})" if said else ""


def flag_steps(steps: Sequence[str]) -> list[str]:
    """The steps of a path that are about a flag (what the user chose on the command
    line), as said."""
    def split(step: str) -> list[str]:  # each part holds; not inside a code span
        parts = re.split(r"; (?:and )?| and ", step)
        return parts if all(p.count("`") % 2 == 0 for p in parts) else [step]

    parts = (p for s in steps for p in split(s))
    return list(dict.fromkeys(p for p in parts if re.search(r"`(?:--?[\w-]+|<\w+>)`", p)))


def entry(program: Program) -> str:
    """What the user ran, in backticks."""
    return f"`{program.command}`" if program.command else "the program"


def runs(program: Program) -> str:
    """"Running `cargo run --example z_image --`", "Building with `cargo build -p x`"."""
    if program.kind == BUILD:
        return f"Building with `{program.command}`"
    return f"Running {entry(program)}"


def where(program: Program, path: str) -> str:
    """How the user reaches the program's own functions."""
    if program.kind == BUILD:
        return (f" (the build script {path}: cargo runs its `main` while building the "
                "package, nobody calls it)")
    return f" (the program's own code: you reach it by running {entry(program)})"


def example_fix(program: Program, message: str, holds: str | None) -> ExampleFix:
    """Shell lines: the command that fails, and what to change in it."""
    command = program.command if program.kind == BUILD else f"{program.command} ..."
    if program.kind == BUILD:
        after = ("# the build script fails, not a call of yours: give it what it needs\n"
                 f"# (see the solutions)\n{command}")
        if " --features " in command:
            after += ("\n# or, if you do not need what the feature adds, build without it:\n"
                      + command.split(" --features ")[0])
    elif holds:
        plain = holds.replace("`", "")
        after = f"# run it with command-line flags for which {plain}\n{command}"
    else:
        after = ("# the check reads the flags and files you give it (see what it means):\n"
                 f"# change those\n{command}")
    return ExampleFix(before=f"{command}  # fails: {message}", after=after)


def shell_check(program: Program, literal: str, advice: str) -> str:
    """What a script that runs the program can do: test its exit status and its output;
    no code of the user's calls the program's functions."""
    command = program.command if program.kind == BUILD else f"{program.command} ..."
    return (f"# {command.split(' --')[0]} exits with an error and prints the message;\n"
            "# in a script:\n"
            f"if ! {command} 2> err.txt; then\n"
            f"    grep -qF {literal} err.txt && echo {_shell_quote(advice)} >&2\n"
            "fi")


# The shell a program's code sections are written in (errdex.analyze.check reads them so):
# its comment marker and the words of the commands they write.
SHELL_COMMENT = "#"
SHELL_WORDS = frozenset("if then fi else exit echo grep qF err txt cargo run build "
                        "example bin p features python m".split())


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
