"""The C code of a page's code sections: validate before calling (`if (cond) {
fprintf(stderr, ..); return -1; }`), `static bool ..._ok(..)`, and checking what a call
returns (`if (result == NULL && PyErr_ExceptionMatches(PyExc_ValueError))` for an
exception set through the Python C API). A process that aborts has nothing to catch: the
page says so. It writes code text from the page's facts only; what the page says is
decided in `errdex.write.snippets`. C++ (`languages/cpp/writer.py`) reads code the same
way and catches what is thrown."""

from __future__ import annotations

import json
import re

from errdex.analyze import facts
from errdex.languages.writer import BraceReading, BraceWriter
from errdex.models import Language, Site, SiteKind
from errdex.write.pagefacts import PageFacts

_RAISES = (r"(?:PyErr_\w+|throw\b|abort\s*\(|exit\s*\(|assert\s*\(|CV_Assert|CV_Error"
           r"|TORCH_CHECK\w*|CHECK\w*|fprintf\s*\(\s*stderr|return\s+(?:NULL|-1|nullptr)\b)")
_CHECK = re.compile(rf"\s*(?:}}\s*else\s+)?if\s*\(.*\)\s*\{{?\s*{_RAISES}")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_SPECIFIERS = (r"(?:(?:static|inline|extern|const|constexpr|virtual|explicit|unsigned|signed"
               r"|struct|enum|PyAPI_FUNC|Py_LOCAL_INLINE|template\s*<[^>]*>)\s+)*")
_TYPE = r"[A-Za-z_][\w:]*(?:<[^;{}()]*>)?(?:\s*[*&]+\s*|\s+)"
_ABORTS = (SiteKind.PANIC, SiteKind.ASSERT)


class CReading(BraceReading):
    """How C (and C++) code is read from a snippet (see errdex.write.reading)."""

    check = _CHECK
    strings = _STRINGS
    not_definition = ("return ", "throw ", "else", "if ", "if(", "#", "case ", "delete ")

    def defines(self, line: str, name: str) -> bool:
        if not self.may_define(line, name):
            return False
        text = line.strip()
        short = re.escape(name.rsplit("::", 1)[-1])
        pattern = rf"\s*{_SPECIFIERS}(?:{_TYPE})?(?:[\w:~]*::)?\**{short}\s*\("
        return re.match(pattern, line) is not None or (re.match(rf"\s*{short}\s*\(", line) \
            is not None and not text.endswith(")"))  # K&R style: the type on the line above

    def parameter_names(self, params: str) -> list[str]:
        out: list[str] = []
        for part in facts.split_top(params, ",", Language.C):
            words = re.findall(r"[A-Za-z_]\w*", part.split("=", 1)[0].split("[", 1)[0])
            out.append(words[-1] if words and words[-1] != "void" else "_")
        return [] if out == ["_"] and params.strip() in ("", "void") else out

    def public_by_name(self, site: Site) -> bool | None:
        return None  # `static` says it, not the name

    def public_header(self, header: str) -> bool | None:
        head = header.split("(", 1)[0]
        if re.search(r"\bstatic\b", head):
            return False
        return None

    def doc_of(self, lines: list[str], index: int) -> str | None:
        """The comment just above the definition (`/** .. */`, `/* .. */` or `//`
        lines), its first paragraph."""
        i = index - 1
        if i < 0:
            return None
        found: list[str] = []
        if lines[i].strip().endswith("*/"):
            while i >= 0:
                found.append(lines[i].strip())
                if lines[i].strip().startswith("/*"):
                    break
                i -= 1
            if i < 0:
                return None
        else:
            while i >= 0 and lines[i].lstrip().startswith("//"):
                found.append(lines[i].strip())
                i -= 1
        prose: list[str] = []
        for text in reversed(found):
            words = re.sub(r"^/\*+|\*+/$|^\*|^//+", "", text).strip()
            if words.startswith(("@", "\\")) or (not words and prose):
                break
            if words:
                prose.append(words)
        return " ".join(prose).strip() or None

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        listed = "/* ... */" if args is None else ", ".join(args)
        return f"{function}({listed})"


class CWriter(CReading, BraceWriter):
    failure = 'fprintf(stderr, "%s\\n", {plain});\n    return -1;'
    receiver = r"\b(?:self|this)\s*->\s*"

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        typed = ", ".join(f"{spaced(facts.declared_type(f.site, p) or 'long')}{p}"
                          for p in params) or "void"  # fmt: skip
        return f"static bool {stem}_ok({typed}) {{\n    return {positive};\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        if f.site.kind is SiteKind.RAISE:  # a Python exception set by the C API
            exc = _python_class(f)
            return (f"static int is_{stem}_error(void) {{\n"
                    f"    return PyErr_ExceptionMatches({exc});\n}}")
        return (f"static bool is_{stem}_message(const char *line) {{\n"
                f"    return strstr(line, {literal}) != NULL;\n}}")

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        stmt = self.statement(f, call)
        if f.site.kind in _ABORTS:
            return (f"{stmt} // prints this and aborts: there is nothing to catch;\n"
                    f"// check the condition before the call ({advice})")
        if f.site.kind in (SiteKind.LOG, SiteKind.WARN):
            return f"{stmt} // prints this and goes on: look for it in stderr ({advice})"
        if f.site.kind is SiteKind.RAISE:
            exc = _python_class(f)
            return (f"PyObject *result = {call};\n"
                    f"if (result == NULL && PyErr_ExceptionMatches({exc})) {{\n"
                    f"    PyErr_SetString({exc}, {json.dumps(advice)});\n"
                    f"    return NULL;\n}}")  # fmt: skip
        return (f"if ({call} != 0) {{\n    fprintf(stderr, \"%s\\n\", {json.dumps(advice)});\n"
                f"    return -1;\n}}")  # fmt: skip


def _python_class(f: PageFacts) -> str:
    """The exception a C extension sets, as C names it (`PyExc_ValueError`)."""
    exc = f.exc_class or f.record.exception or "Exception"
    return exc if exc.startswith("PyExc_") or not exc.isidentifier() else f"PyExc_{exc}"


def spaced(type_text: str) -> str:
    """A type before a name: `int `, `const std::string& `, but `char *` (the star
    written against the name stays there)."""
    return type_text if re.search(r"\s[*&]+$", type_text) else f"{type_text} "


WRITER = CWriter()
