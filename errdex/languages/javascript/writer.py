"""The JavaScript (and TypeScript) code of a page's code sections: the call in a
`try`, `if (cond) { throw new Error(..) }`, `function ...Ok(..)` predicates, and
`catch (e) { if (e instanceof X && e.message.includes(..)) .. }` handlers. It writes code
text from the page's facts only; what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from types import MappingProxyType

from errdex.analyze import facts
from errdex.languages.writer import COMPARISONS, BraceReading, BraceWriter, on_value
from errdex.models import Language, Site, SiteKind
from errdex.write.pagefacts import PageFacts

_RAISES = r"(?:throw\b|return\s+Promise\.reject\(|assert(?:\.ok)?\(|invariant\()"
_CHECK = re.compile(rf"\s*(?:}}\s*)?(?:else\s+)?if\s*\(.*\)\s*\{{?.*{_RAISES}")
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`')
_FUNCTION = r"(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*"
_PARAM = re.compile(r"^\s*(?:\.\.\.)?(?:(?:public|private|protected|readonly)\s+)*"
                    r"([A-Za-z_$][\w$]*)")  # fmt: skip


class _Reading(BraceReading):
    """How JavaScript code is read from a snippet (see errdex.write.reading)."""

    check = _CHECK
    strings = _STRINGS

    def defines(self, line: str, name: str) -> bool:
        own = re.escape(name.rsplit(".", 1)[-1])
        return re.search(
            rf"(?:{_FUNCTION}{own}\s*[(<]|^\s*(?:static\s+|async\s+|get\s+|set\s+)*{own}\s*\("
            rf"[^)]*\)\s*(?::[^{{]*)?\{{|\b{own}\s*[=:]\s*(?:async\s+)?(?:function\b|\([^)]*\)"
            rf"\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>))", line) is not None  # fmt: skip

    language = Language.JAVASCRIPT

    def parameter_names(self, params: str) -> list[str]:
        out: list[str] = []
        for part in facts.split_top(params, ",", self.language):
            m = _PARAM.match(part)
            out.append(m.group(1) if m else "_")
        return out

    def public_by_name(self, site: Site) -> bool | None:
        name = (site.function or "").rsplit(".", 1)[-1]
        return (not name.startswith(("_", "#"))) if name else None

    def public_header(self, header: str) -> bool | None:
        text = header.strip()
        if re.match(r"(?:private|protected)\b|#", text):
            return False
        if text.startswith("export"):
            return True
        return None

    def settled_by(self, site: Site) -> int | None:
        # A throw inside a `.then(..)` callback of a chain the function ends with
        # `.catch(..)`: the chain's promise resolves with what the handler returns.
        lines, start = site.snippet.code.splitlines(), site.snippet.start_line
        at = site.line - start
        name = (site.function or "").rsplit(".", 1)[-1]
        if not name or not 0 <= at < len(lines):
            return None
        head = next((i for i in range(at, -1, -1) if self.defines(lines[i], name)), None)
        if head is None or not any(re.match(r"\s*\.then\(", line)
                                   for line in lines[head + 1 : at]):
            return None
        depth = len(lines[head]) - len(lines[head].lstrip())
        for i in range(at + 1, len(lines)):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) <= depth:
                return None  # the function ends before any handler
            if re.match(r"\s*\.catch\(", line):
                rest = []  # the handler, to the function's end: no rethrow, nothing after
                for more in lines[i:]:
                    if more.strip() and len(more) - len(more.lstrip()) <= depth:
                        break
                    rest.append(more)
                later = [r for r in rest[1:] if re.match(r"\s*\.\w", r)]
                said = self.strings.sub('""', "\n".join(rest))
                rethrows = re.search(r"\bthrow\b|\breject\(", said)
                return None if later or rethrows else start + i
        return None

    def doc_of(self, lines: list[str], index: int) -> str | None:
        """The JSDoc block (`/** .. */`) or `//` lines right above the definition."""
        found: list[str] = []
        i = index - 1
        while i >= 0 and self.is_comment(lines[i]):
            found.append(self.comment_text(lines[i]))
            i -= 1
        if i < 0 or not found:
            return None
        prose: list[str] = []
        for line in reversed(found):
            if line.startswith("@") or (not line and prose):
                break
            if line:
                prose.append(line)
        return " ".join(prose).strip() or None

    def exception_class(self, name: str | None) -> str | None:
        return name if name and re.fullmatch(r"(?:[\w$]+\.)*[A-Z][\w$]*", name) else None

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split(".")
        # Arguments not known are a comment: `f(...)` does not parse in this language.
        listed = "/* ... */" if args is None else ", ".join(args)
        if len(parts) > 1 and parts[-1] == "constructor":
            return f"new {'.'.join(parts[:-1])}({listed})"
        # `Class.method` is called on an instance (`pool.get(..)`); the receiver is not
        # among a JavaScript method's parameters, so `is_method` cannot say.
        if len(parts) > 1 and parts[-2][:1].isupper():
            return on_value(parts[-2], parts[-1], listed)
        return f"{function}({listed})"


class ScriptWriter(_Reading, BraceWriter):
    ops: Mapping[str, str] = MappingProxyType({**COMPARISONS, "is": "===", "is_not": "!=="})
    binding = "const "
    copies_fields = False
    indent = "  "
    failure = "throw new Error({plain});"
    receiver = r"\bthis\."
    methods_by_dot = True
    typed = False  # TypeScript: a written function's parameters carry their types

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        name = _camel(stem) + "Ok"
        if self.typed:
            listed = ", ".join(f"{p}: {facts.declared_type(f.site, p) or 'unknown'}"
                               for p in params)  # fmt: skip
            return f"function {name}({listed}): boolean {{\n  return {positive};\n}}"
        return f"function {name}({', '.join(params)}) {{\n  return {positive};\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        name = "is" + _camel(stem)[:1].upper() + _camel(stem)[1:] + "Error"
        param = "err: unknown" if self.typed else "err"
        returns = ": boolean" if self.typed else ""
        return (f"function {name}({param}){returns} {{\n  return {_caught(f, 'err')} && "
                f"err.message.includes({literal});\n}}")

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        if f.site.kind in (SiteKind.LOG, SiteKind.WARN):
            return (f"// nothing is thrown: {call.split('(', 1)[0]} prints this message and "
                    f"carries on;\n// {advice}\n{call};")  # fmt: skip
        settled = self.settled_by(f.site)
        if settled is not None:
            name = call.split("(", 1)[0]
            return (f"// nothing to catch: {name} ends its promise chain with .catch(..) "
                    f"({f.site.path}:{settled}),\n// which takes this error: awaiting "
                    f"{name} never throws it, and the\n// promise resolves with what that "
                    f"handler returns;\n// {advice}\nawait {call};")
        # An async function rejects instead of throwing, and an error handed on may be a
        # rejection too: either is caught by awaiting the call.
        awaited = "await " if f.site.kind is SiteKind.BAIL or _is_async(f) else ""
        return (f"try {{\n  {awaited}{call};\n}} catch (e) {{\n"
                f"  if ({_caught(f, 'e')} && e.message.includes({literal})) {{\n"
                f"    throw new Error({json.dumps(advice)}, {{ cause: e }});\n  }}\n"
                f"  throw e;\n}}")


def _caught(f: PageFacts, name: str) -> str:
    """`e instanceof X` for the error class the site throws (`Error` when it names none)."""
    exception = f.record.exception or f.site.exception or "Error"
    if not re.fullmatch(r"(?:[\w$]+\.)*[A-Z][\w$]*", exception) or " " in exception:
        exception = "Error"
    return f"{name} instanceof {exception}"


def _is_async(f: PageFacts) -> bool:
    """Whether the site's function is written `async` in the snippet."""
    name = re.escape((f.site.function or "").rsplit(".", 1)[-1])
    if not name:
        return False
    return re.search(rf"\basync\s+(?:function\s*\*?\s*)?{name}\s*[(<]"
                     rf"|\b{name}\s*[=:]\s*async\b", f.site.snippet.code) is not None


def _camel(stem: str) -> str:
    words = [w for w in re.split(r"[_\W]+", stem) if w]
    if not words:
        return "call"
    return words[0][:1].lower() + words[0][1:] + "".join(w.capitalize() for w in words[1:])


class TypedWriter(ScriptWriter):
    language = Language.TYPESCRIPT
    typed = True


WRITER = ScriptWriter()
TYPED_WRITER = TypedWriter()
