"""The Go code of a page's code sections: calls that check `err`, `if cond { return
fmt.Errorf(..) }`, `func ...Ok(..) bool`, and `errors.Is`/`strings.Contains` or
`recover()` handlers. It writes code text from the page's facts only; what the page says
is decided in `errdex.write.snippets`."""

from __future__ import annotations

import json
import re

from errdex.analyze import facts
from errdex.languages.writer import BraceReading, BraceWriter, on_value
from errdex.models import Language, Site, SiteKind
from errdex.write.pagefacts import PageFacts

_RAISES = r"(?:return\b.*(?:errors\.New|fmt\.Errorf|Err\w*|&\w+\{)|panic\(|log\.(?:Fatal|Panic))"
_CHECK = re.compile(rf"\s*(?:}}\s*else\s+)?if\b.*\{{.*{_RAISES}")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|`[^`]*`')


class _Reading(BraceReading):
    """How Go code is read from a snippet (see errdex.write.reading)."""

    check = _CHECK
    strings = _STRINGS
    comment_starts = ("//",)

    def comment_text(self, line: str) -> str:
        return re.sub(r"^\s*//\s?", "", line).strip()

    def defines(self, line: str, name: str) -> bool:
        if name not in line:  # no regex to build for most lines
            return False
        return re.search(rf"\bfunc\s+(?:\([^)]*\)\s*)?{re.escape(name)}\s*[\[(]", line) is not None

    def parameter_names(self, params: str) -> list[str]:
        out: list[str] = []
        for part in facts.split_top(params, ",", Language.GO):
            words = part.strip().split()
            out.append(words[0] if words and words[0].isidentifier() else "_")
        return out

    def public_by_name(self, site: Site) -> bool | None:
        name = re.split(r"\.", site.function or "")[-1]
        return name[:1].isupper() if name else None

    def public_header(self, header: str) -> bool | None:
        m = re.match(r"\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)", header)
        return m.group(1)[:1].isupper() if m else None

    def doc_of(self, lines: list[str], index: int) -> str | None:
        found: list[str] = []
        i = index - 1
        while i >= 0 and lines[i].lstrip().startswith("//"):
            found.append(lines[i].lstrip()[2:].strip())
            i -= 1
        if i < 0 or not found:
            return None
        prose: list[str] = []
        for line in reversed(found):
            if not line and prose:
                break
            prose.append(line)
        return " ".join(prose).strip() or None

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split(".")
        listed = "..." if args is None else ", ".join(args)
        # `Type.Method` is a method (a package is lower case): it is called on a value.
        if is_method is not False and len(parts) > 1 and parts[-2][:1].isupper():
            return on_value(parts[-2], parts[-1], listed)
        return f"{function}({listed})"


class GoWriter(_Reading, BraceWriter):
    statement_end = ""
    parenthesized = False
    failure = "return errors.New({plain})"
    methods_by_dot = True

    def statement(self, f: PageFacts, call: str) -> str:
        """The call with its error checked, taking as many values as it returns when the
        page knows (the site's own function); a panic leaves no error to check."""
        if call == "..." or f.site.kind in (SiteKind.PANIC, SiteKind.ASSERT):
            return call
        head = _checked(f, call)
        return f"{head} {{\n    return err\n}}" if head else f"{call} // check the error it returns"

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        typed = ", ".join(f"{p} {facts.declared_type(f.site, p) or 'any'}" for p in params)
        name = "".join(w.capitalize() for w in stem.split("_"))
        return f"func {name[:1].lower() + name[1:]}Ok({typed}) bool {{\n    return {positive}\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        name = "".join(w.capitalize() for w in stem.split("_"))
        if f.site.kind is SiteKind.PANIC:  # a recovered value, not an error
            return (f"func is{name}Panic(r any) bool {{\n"
                    f"    return r != nil && strings.Contains(fmt.Sprint(r), {literal})\n}}")
        test = f"err != nil && strings.Contains(err.Error(), {literal})"
        return f"func is{name}Error(err error) bool {{\n    return {test}\n}}"

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        if f.site.kind is SiteKind.PANIC:
            return ("defer func() {\n    if r := recover(); r != nil && strings.Contains("
                    f"fmt.Sprint(r), {literal}) {{\n        log.Printf(\"%s: %v\", "
                    f"{json.dumps(advice)}, r)\n    }}\n}}()\n{call}")  # fmt: skip
        # By its text: the error may come wrapped (`fmt.Errorf("..: %w", err)`), which
        # `strings.Contains` on `err.Error()` still sees.
        head = _checked(f, call) or f"if err := {call} /* and its other results */; err != nil"
        return (f"{head} {{\n"
                f"    if strings.Contains(err.Error(), {literal}) {{\n"
                f"        return fmt.Errorf(\"{_format_literal(advice)}: %w\", err)\n    }}\n"
                f"    return err\n}}")  # fmt: skip


def _checked(f: PageFacts, call: str) -> str | None:
    """`if err := call; err != nil` taking as many values as the call returns, when the
    page knows it (a call of the site's own function); None when it does not."""
    name = (f.site.function or "").rsplit(".", 1)[-1]
    own = (bool(name) and f".{name}(" in f".{call}") or call.startswith(f"{name}(")
    results = f.site_facts.results if own and f.site_facts is not None else None
    if results == 1:
        return f"if err := {call}; err != nil"
    if results is not None and results > 1:
        return f"if {', '.join(['_'] * (results - 1))}, err := {call}; err != nil"
    return None


def _format_literal(text: str) -> str:
    """Text made safe inside a Go format string: quotes, backslashes and `%`."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("%", "%%")


WRITER = GoWriter()
