"""How a page says that its check is on a file or a model the call reads
(`errdex.analyze.inputs`): the input is malformed, truncated or of a version or variant
the code does not read, or a node of a model is of a kind the reader does not handle;
not an argument to change.
"""

from __future__ import annotations

import re

from errdex.analyze.inputs import ReadInput
from errdex.write.pagefacts import PageFacts, loc, shows_values


def on_input(f: PageFacts) -> ReadInput | None:
    """The file or model a check fails on, when the page explains such a check: not an
    invariant, a wrapped failure, a check on the object's own state, or a requirement on
    the user's own arguments."""
    read = f.read_input
    if read is None or f.invariant or f.state_only or f.receiver_only or (
            f.req and f.user_terms):
        return None
    # A check that names an argument ("cannot find tensor with name '{name}'", the inputs
    # given to a model) is on that argument, not on what was read.
    params = set(f.params or ()) - {"self", "cls"}
    if any(re.search(rf"(?<![\w.]){re.escape(p)}\b", f.guard or "") for p in params):
        return None
    if _shows_an_argument(f, params):
        return None
    # An error raised with no check of its own is the input's only when an arm picked the
    # part it is on (a raise that ends every read, as a pickle's STOP, is no failure).
    picked = f.nature == "always" and (read.parts or read.unhandled)
    return read if f.nature == "guarded" or picked else None


def _shows_an_argument(f: PageFacts, params: set[str]) -> bool:
    """The message shows an item of an argument the loop before the site walks ("no array
    for {name}" inside `for name in names`): what was asked for is missing, the file may
    be whole. (Not an item of a part of it: `for node in graph.node` walks the model.)"""
    holes = {h.name for h in f.record.template.placeholders} | {
        (h.expression or "").split(".")[0] for h in f.record.template.placeholders}
    before = f.site.snippet.code.splitlines()[: max(f.site.line - f.site.snippet.start_line, 0)]
    return any(re.search(rf"\bfor\s+\(?{re.escape(h)}\b[^\n]*\bin\s+&?{re.escape(p)}"
                         r"(?:\.iter\(\))?\s*[:{]", line)
               for line in before for h in holes if h for p in params)  # fmt: skip


def article(word: str) -> str:
    """The article a name is said with: "a" GGUF file, "an" ONNX model."""
    return "an" if word.strip("`")[:1].lower() in ("a", "e", "i", "o") else "a"


def a(name: str) -> str:
    """"a GGUF file", "an ONNX model"."""
    return f"{article(name)} {name}"


def _nodes(read: ReadInput) -> str:
    return " or ".join(f"`{p}`" for p in read.parts[:3])


def input_said(read: ReadInput) -> str:
    """The input as a page names it: "the GGUF file it reads", "a `Pad` node of your ONNX
    model"."""
    if read.parts:
        return f"{a(_nodes(read))} {read.kind.part} of your {read.kind.name}"
    if read.unhandled:
        return f"a {read.kind.part} of your {read.kind.name}"
    return f"the {read.kind.name} it reads"


def summary(f: PageFacts, tail: str) -> str | None:
    """The page's summary when its check is on a file or a model the call reads."""
    if (read := on_input(f)) is None:
        return None
    if read.unhandled:
        return f"Your {read.kind.name} has a {read.kind.part} of a type {f.entry} does not " \
            f"support{tail}"  # fmt: skip
    if f.guard:
        need = f": {f.req}" if f.req else ""
        return f"Calling {f.entry} fails a check on {input_said(read)}{need}" \
            f"{shows_values(f, 'checked')}{tail}"  # fmt: skip
    return None


def solution(f: PageFacts, read: ReadInput) -> str:
    """What to do when the check is on the file or model the call reads."""
    kind, here, project = read.kind, loc(f.site), f.record.repo.split("/")[-1]
    if read.unhandled:
        reader = f"{project}'s {kind.reader}" if kind.reader else f.entry
        return (f"Your {kind.name} has a {kind.part} of a type {reader} does not support at "
                f"this commit (the message names it): export the model without it (with "
                f"other operations, or another version of the format), or ask for it in "
                f"{f.record.repo}.")
    if read.parts:
        return (f"{f.entry} rejects {input_said(read)}: the check at {here} is on that "
                f"{kind.part}'s attributes or inputs"
                f"{f' (it accepts one for which {f.holds})' if f.holds else ''}"
                f"{shows_values(f)}. Export the model so "
                f"that the {kind.part} takes a form this code handles, or check the inputs "
                "you feed it.")
    reads = f" (it reads one for which {f.holds})" if f.holds else ""
    return (f"The check at {here} is on the content {f.entry} read from the {kind.name}: the "
            f"{kind.name} is malformed, truncated, or of a version or variant this code does "
            f"not read{reads}{shows_values(f)}. Check that it is complete (fetch or write it "
            f"again) and that {f.record.repo} reads its format at this version.")


def trigger(f: PageFacts) -> str:
    """When it happens, for a check on a file or a model the call reads."""
    read = on_input(f)
    if read is None:
        raise ValueError("the trigger of a page whose check is on no input")
    kind = read.kind
    if read.unhandled:
        return (f"Calling {f.entry} on {a(kind.name)} with a {kind.part} of a type it has no "
                f"case for ({loc(f.site)}).")
    if read.parts:
        return (f"Calling {f.entry} on {a(kind.name)} with {a(_nodes(read))} {kind.part} that "
                f"fails the check at {loc(f.site)} (its attributes, or the inputs it is "
                "given).")
    return (f"Calling {f.entry} on {a(kind.name)} that fails the check at {loc(f.site)}: one "
            "that is malformed, truncated, or of a version or variant the code does not read.")
