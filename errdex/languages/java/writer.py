"""The Java code of a page's code sections: a call as a statement, `if (cond) { throw new
IllegalArgumentException(..); }`, `static boolean ..Ok(..)`, and `catch (XException e)`
handlers that look at `e.getMessage()`. It writes code text from the page's facts only;
what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.languages.writer import BraceReading, BraceWriter, on_value
from errdex.models import Language, Site, SiteKind
from errdex.write.pagefacts import PageFacts

_RAISES = r"(?:throw\s+new\b|throw\s+\w|Objects\.requireNonNull|check(?:Argument|State|NotNull))"
_CHECK = re.compile(rf"\s*(?:}}\s*else\s+)?if\s*\(.*\)\s*\{{?\s*{_RAISES}")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_MODIFIERS = (r"(?:(?:public|protected|private|static|final|abstract|synchronized|native"
              r"|default)\s+)*")
_TYPE = r"[A-Za-z_][\w.]*(?:<[\w.,?\s<>\[\]]*>)?(?:\[\])*"


class _Reading(BraceReading):
    """How Java code is read from a snippet (see errdex.write.reading)."""

    check = _CHECK
    strings = _STRINGS
    branch_words = (*BraceReading.branch_words, "default ->")
    not_definition = ("return ", "throw ", "new ", "else", "if ", "if(")

    def defines(self, line: str, name: str) -> bool:
        if not self.may_define(line, name):
            return False
        pattern = rf"\s*(?:@\w+(?:\([^)]*\))?\s+)*{_MODIFIERS}(?:<[^>]*>\s+)?(?:{_TYPE}\s+)?"
        return re.match(pattern + rf"{re.escape(name)}\s*\(", line) is not None

    def parameter_names(self, params: str) -> list[str]:
        out: list[str] = []
        for part in facts.split_top(params, ",", Language.JAVA):
            words = re.sub(r"@\w+(?:\([^)]*\))?", "", part).replace("...", " ").split()
            out.append(words[-1] if words and words[-1].isidentifier() else "_")
        return out

    def public_by_name(self, site: Site) -> bool | None:
        return None  # Java says it with a modifier, not by the name

    def public_header(self, header: str) -> bool | None:
        words = re.findall(r"\b(public|private|protected)\b", header.split("(", 1)[0])
        if not words:
            return None
        return bool(words[0] == "public")

    def doc_of(self, lines: list[str], index: int) -> str | None:
        """The first paragraph of the Javadoc (`/** .. */`) above the definition, its
        annotations skipped."""
        i = index - 1
        while i >= 0 and lines[i].strip().startswith("@"):
            i -= 1
        if i < 0 or not lines[i].strip().endswith("*/"):
            return None
        found: list[str] = []
        while i >= 0:
            text = lines[i].strip()
            found.append(text)
            if text.startswith("/**"):
                break
            if text.startswith("/*"):
                return None  # a plain block comment, not a Javadoc
            i -= 1
        if i < 0:
            return None
        prose: list[str] = []
        for text in reversed(found):
            words = re.sub(r"^/\*\*|\*/$|^\*", "", text).strip()
            if words.startswith("@") or (not words and prose):
                break
            if words:
                prose.append(re.sub(r"</?p>|\{@(?:code|link)\s+([^}]*)\}", r"\1", words))
        return " ".join(prose).strip() or None

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split(".")
        # Arguments not known are a comment: `f(...)` does not parse in this language.
        listed = "/* ... */" if args is None else ", ".join(args)
        if len(parts) > 1 and parts[-1] == parts[-2]:  # a constructor: `Shape.Shape`
            return f"new {parts[-1]}({listed})"
        # `Type.method`: called on a value of the type (a static method keeps its type:
        # `statement` reads the snippet to tell)
        if len(parts) > 1 and parts[-2][:1].isupper():
            return on_value(parts[-2], parts[-1], listed)
        return f"{function}({listed})"


class JavaWriter(_Reading, BraceWriter):
    binding = "var "
    failure = "throw new IllegalArgumentException({plain});"
    receiver = r"\bthis\."

    def statement(self, f: PageFacts, call: str) -> str:
        return call if call == "..." else f"{_static(f, call)};"

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        typed = ", ".join(f"{facts.declared_type(f.site, p) or 'Object'} {p}" for p in params)
        name = "".join(w.capitalize() for w in stem.split("_"))
        name = name[:1].lower() + name[1:]
        return f"static boolean {name}Ok({typed}) {{\n    return {positive};\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        name = "".join(w.capitalize() for w in stem.split("_"))
        if f.site.kind in (SiteKind.LOG, SiteKind.WARN):  # a log line, not an exception
            return (f"static boolean is{name}Logged(String logLine) {{\n"
                    f"    return logLine.contains({literal});\n}}")
        exc = _caught(f)
        test = f"e instanceof {exc} && e.getMessage() != null && e.getMessage().contains({literal})"
        return f"static boolean is{name}Error(Throwable e) {{\n    return {test};\n}}"

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        stmt = self.statement(f, call)
        if f.site.kind in (SiteKind.LOG, SiteKind.WARN):
            return (f"{stmt} // logs this and goes on: nothing is thrown to catch;\n"
                    f"// look for the message in the log ({advice})")
        exc = _caught(f)
        return (f"try {{\n    {stmt}\n}} catch ({exc} e) {{\n"
                f"    if (e.getMessage() != null && e.getMessage().contains({literal})) {{\n"
                f"        throw new IllegalArgumentException({_java_string(advice)}, e);\n"
                f"    }}\n    throw e;\n}}")  # fmt: skip


def _caught(f: PageFacts) -> str:
    """The exception class a caller catches: the site's, as its short name."""
    exc = f.exc_class or f.record.exception or "RuntimeException"
    return exc.rsplit(".", 1)[-1]


def _static(f: PageFacts, call: str) -> str:
    """`shape.reshape(..)` as `Shape.reshape(..)` when the snippet shows the method is
    `static`: it is called on its class."""
    fn = (f.site.function or "").split(".")
    if len(fn) < 2 or not call.startswith(fn[-2][:1].lower() + fn[-2][1:] + "."):
        return call
    declared = re.search(rf"\bstatic\b[^;{{=]*\b{re.escape(fn[-1])}\s*\(", f.site.snippet.code)
    return f"{fn[-2]}{call[len(fn[-2]):]}" if declared else call


def _java_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


WRITER = JavaWriter()
