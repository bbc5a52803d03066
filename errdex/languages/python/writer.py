"""The Python code of a page's code sections: calls with keyword arguments,
`if ...: raise`, `def ..._ok(..) -> bool` and `try`/`except` handlers. It writes code
text from the page's facts only; what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import ast
import builtins
import re
import sys

from errdex.analyze import facts
from errdex.extract.structure import ASYNC_ITERATED, AWAITED, ITERATED
from errdex.languages.python.strings import module_name
from errdex.languages.writer import COMPARISONS, Wrapping, method_receiver
from errdex.models import Language, Site, SiteKind
from errdex.write.grouped import call_group
from errdex.write.pagefacts import PageFacts, quote

_CHECK = re.compile(r"\s*(?:(?:el)?if\b.*:\s*(?:raise|warnings\.warn)\b|assert\b)")
_DOC_QUOTES = ('"""', "'''")
# The code users write that runs a special method, `{}` the object: nobody calls
# `named_node_map.__setitem__(...)`, they write `named_node_map[...] = ...`.
_SYNTAX = {
    "__call__": "{}(...)", "__getitem__": "{}[...]", "__setitem__": "{}[...] = ...",
    "__delitem__": "del {}[...]", "__contains__": "... in {}", "__len__": "len({})",
    "__iter__": "iter({})", "__next__": "next({})", "__bool__": "bool({})",
    "__str__": "str({})", "__repr__": "repr({})", "__hash__": "hash({})",
    "__int__": "int({})", "__float__": "float({})", "__index__": "operator.index({})",
    "__format__": "format({}, ...)", "__fspath__": "os.fspath({})",
    "__getattr__": "{}.attribute", "__setattr__": "{}.attribute = ...",
    "__delattr__": "del {}.attribute",
    "__get__": "instance.attribute", "__set__": "instance.attribute = ...",  # descriptors
    "__delete__": "del instance.attribute",
    "__reduce__": "pickle.dumps({})", "__reduce_ex__": "pickle.dumps({})",
    "__getstate__": "pickle.dumps({})", "__copy__": "copy.copy({})",
    "__deepcopy__": "copy.deepcopy({})",
    "__eq__": "{} == ...", "__ne__": "{} != ...", "__lt__": "{} < ...", "__le__": "{} <= ...",
    "__gt__": "{} > ...", "__ge__": "{} >= ...", "__add__": "{} + ...", "__sub__": "{} - ...",
    "__mul__": "{} * ...", "__truediv__": "{} / ...", "__floordiv__": "{} // ...",
    "__mod__": "{} % ...", "__pow__": "{} ** ...", "__and__": "{} & ...", "__or__": "{} | ...",
    "__xor__": "{} ^ ...", "__neg__": "-{}", "__abs__": "abs({})",
    "__matmul__": "{} @ ...", "__lshift__": "{} << ...", "__rshift__": "{} >> ...",
    "__invert__": "~{}", "__pos__": "+{}", "__iadd__": "{} += ...", "__isub__": "{} -= ...",
    "__enter__": "with {}: ...", "__exit__": "with {}: ...",
    "__aenter__": "async with {}: ...", "__aexit__": "async with {}: ...",
    "__aiter__": "async for item in {}: ...", "__anext__": "await anext({})",
    "__await__": "await {}", "__round__": "round({}, ...)", "__reversed__": "reversed({})",
    "__ceil__": "math.ceil({})", "__floor__": "math.floor({})", "__trunc__": "math.trunc({})",
    "__bytes__": "bytes({})", "__complex__": "complex({})", "__dir__": "dir({})",
    "__length_hint__": "operator.length_hint({})", "__missing__": "{}[...]",
    "__getattribute__": "{}.attribute", "__setstate__": "pickle.loads(pickle.dumps({}))",
    "__del__": "del {}",
}
# Special methods run on the class itself, `{}` the class: `Generic[...]`, `class X(Base)`.
_CLASS_SYNTAX = {
    "__init__": "{}(...)", "__new__": "{}(...)", "__class_getitem__": "{}[...]",
    "__init_subclass__": "class Subclass({}): ...",
    "__prepare__": "class Example(metaclass={}): ...",
    "__set_name__": "class Example: attribute = {}(...)",
    "__instancecheck__": "isinstance(..., {})", "__subclasscheck__": "issubclass(..., {})",
}
# Capitals then lower case: `HTTPResponse` is HTTP + Response, `URLopener` URL + opener;
# which, the name alone cannot tell, so such a class keeps its name (`URLopener(...)`).
_ACRONYM_THEN_WORD = re.compile(r"[A-Z]{3,}[a-z]")
_NAMED = re.compile(r"name=(['\"])(\w+)\1")  # `name='Quoter'`: the attribute it is asked for
# A module's own special functions (PEP 562), `{}` the module: `urllib.parse.Quoter`.
_MODULE_SYNTAX = {"__getattr__": "{}.attribute", "__dir__": "dir({})"}


# The calls `_SYNTAX` writes, read back: the value a special method runs on.
_SPECIAL_CALLS = tuple(
    re.compile(re.escape(form).replace(r"\{\}", r"([a-z_]\w*)"))
    for form in dict.fromkeys(_SYNTAX.values()) if form != "{}(...)")


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


class _Reading:
    """How Python code is read from a snippet (see errdex.write.reading)."""

    def is_comment(self, line: str) -> bool:
        return line.lstrip().startswith("#")

    def comment_text(self, line: str) -> str:
        return re.sub(r"^\s*#+\s?", "", line).strip()

    def opens_check(self, line: str) -> bool:
        return _CHECK.match(line) is not None

    def exclusive_branch(self, line: str) -> bool:
        return re.match(r"\s*(elif|else|except|finally|case)\b", line) is not None

    def defines(self, line: str, name: str) -> bool:
        if name not in line:  # no regex to build for most lines
            return False
        return re.match(rf"\s*(?:async\s+)?def\s+{re.escape(name)}\s*\(", line) is not None

    def parameter_names(self, params: str) -> list[str]:
        out = []
        for part in facts.split_top(params, ",", Language.PYTHON):
            name = re.split(r"[:=]", part.strip(), maxsplit=1)[0].strip().lstrip("*")
            if name and name != "/" and re.fullmatch(r"[A-Za-z_]\w*", name):
                out.append(name)
        return out

    def public_by_name(self, site: Site) -> bool | None:
        module = re.sub(r"(/__init__)?\.py$", "", site.path).split("/")
        parts = [*module, *(site.function or "").split(".")]
        return not any(_private(p) for p in parts if p)

    def public_header(self, header: str) -> bool | None:
        return None

    writes_own_call = True

    def gives_error(self, header: str, function: str, exception: str | None) -> bool:
        return False  # a call of it is written the same whatever it returns

    def settled_by(self, site: Site) -> int | None:
        return None

    def doc_of(self, lines: list[str], index: int) -> str | None:
        i = index
        while i < len(lines) and not lines[i].rstrip().endswith(":"):
            i += 1  # a header over several lines
        body = [line.strip() for line in lines[i + 1 : i + 12]]
        opening = body[0].lstrip("rbu") if body else ""
        quote = next((q for q in _DOC_QUOTES if opening.startswith(q)), None)
        if quote is None:
            return None
        text = opening[3:]
        if quote in text:
            return text.split(quote, 1)[0].strip() or None
        for line in body[1:]:
            if quote in line:
                text += " " + line.split(quote, 1)[0]
                break
            if not line or line.startswith(">>>"):
                break  # the summary paragraph ends at the first blank line or example
            text += " " + line
        return " ".join(text.split()) or None

    def exception_class(self, name: str | None) -> str | None:
        if not name:
            return None
        last = name.split(".")[-1]
        return name if last[:1].isupper() else None  # `self._invalid`, `source.error`

    def arguments(self, params: list[str], values: dict[str, str]) -> list[str] | None:
        named = [f"{p}={values[p]}" for p in params if p in values]
        return named or None  # the other arguments are the caller's own: left as `...`

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split(".")
        if is_method is None:  # an entry point: a method when its owner is a class
            special = parts[-1] in _SYNTAX or parts[-1] in _CLASS_SYNTAX  # `date.__hash__`
            is_method = len(parts) > 1 and (parts[-2][:1].isupper() or special)
        listed = "..." if args is None else ", ".join(args)
        if _private(parts[-1]) or (not is_method and parts[-1].startswith("__")
                                   and parts[-1] not in _MODULE_SYNTAX):
            return _users_own(function)
        if is_method and len(parts) > 1:
            if parts[-1] == "__init__":
                return f"{parts[-2]}({listed})"
            return _method_call(parts[-2], parts[-1], listed, function)
        if parts[-1] in _MODULE_SYNTAX and len(parts) > 1:
            return _module_call(".".join(parts[:-1]), parts[-1], args)
        return f"{parts[-1]}({listed})"


def _method_call(owner: str, name: str, listed: str, function: str) -> str:
    """A method called on a value of its class, named after the class (`bucket.write(..)`,
    `http_response.read(..)`), or a special method run the way users run it. A private
    class is no value users hold by that name: `unpickler.load(..)` would send them to
    the public `pickle.Unpickler`, another class."""
    if _private(owner):
        return _users_own(function)
    if name in _CLASS_SYNTAX:
        return _CLASS_SYNTAX[name].format(owner)
    value = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", owner).lower()
    if not owner[:1].isupper() or "_" in owner or _ACRONYM_THEN_WORD.search(owner):
        value = f"{owner}(...)"  # `FTP_TLS`, `date`, `URLopener`: no plain name for a value
    if name == "__del__" and value.endswith(")"):
        return value  # a temporary, collected as soon as it is made
    if name in _SYNTAX:  # `m.__setitem__(..)` is what `m[key] = value` runs
        return _SYNTAX[name].format(value)
    return f"{value}.{name}({listed})"


def _private_module(path: str) -> bool:
    """`packaging/_elffile.py`, `_pydecimal.py`: users import none of its names (a name
    outside `__all__` of a public module, `urllib.parse.splituser`, they still can)."""
    return any(_private(part) for part in re.sub(r"\.py$", "", path).split("/"))


def _users_own(function: str) -> str:
    """No public function is known to reach `function`: the call is the user's own, into
    its module; `_parse(...)` or `__enter__(...)` is nothing a user writes."""
    return f"...  # your call that reaches {function}"


def _module_call(module: str, name: str, args: list[str] | None) -> str:
    """A module's special function as users reach it: its `__getattr__(name)` by reading
    the attribute (`urllib.parse.Quoter` when the check names it)."""
    if name == "__getattr__":
        named = (_NAMED.fullmatch(a) for a in args or ())
        literal = next((m for m in named if m is not None), None)
        if literal is not None:
            return f"{module}.{literal.group(2)}"
    return _MODULE_SYNTAX[name].format(module)


class PythonWriter(_Reading):
    ops = COMPARISONS | {"is": "is", "is_not": "is not", "in": "in", "not_in": "not in"}
    comment = "#"
    inline_comment = "  #"
    statement_end = ""
    binding = ""
    keyword_arguments = True
    copies_fields = False

    def negate(self, guard: str, *, bare: bool) -> str:
        return f"not {guard.strip()}" if bare else f"not ({guard})"

    def call(self, f: PageFacts) -> str:
        fn = f.site.function
        if not fn:
            module = re.sub(r"(/__init__)?\.py$", "", f.site.path).replace("/", ".")
            return f"import {module}"
        parts = fn.split(".")
        params = {o.name for o in f.origins if o.how == "parameter"}
        args = ", ".join(f"{p}=..." for p in sorted(params)) or "..."
        module = re.sub(r"(/__init__)?\.py$", "", f.site.path).replace("/", ".")
        name = parts[-1]
        if re.search(rf"def\s+{re.escape(name)}\s*\(\s*(self|cls)\b", f.site.snippet.code):
            owner = parts[-2] if len(parts) > 1 else None
            if owner is not None and name in _CLASS_SYNTAX and not _private(owner):
                return _CLASS_SYNTAX[name].format(owner)
            if owner is not None and not _private(name) and name not in _CLASS_SYNTAX:
                return _method_call(owner, name, args, fn)
        elif name in _MODULE_SYNTAX:  # the attribute its check names (`name == 'Quoter'`)
            asked = re.search(rf"\b{re.escape((f.params or ('name',))[0])}\s*==\s*(['\"]\w+['\"])",
                              f.site.guard or "")
            return _module_call(".".join(parts[:-1]) or module, name,
                                [f"name={asked.group(1)}"] if asked else None)
        if _private(name) or name.startswith("__") or _private_module(f.site.path):
            return _users_own(fn)  # a name in a private module (`_elffile`)
        return f"{name}({args})"

    def statement(self, f: PageFacts, call: str) -> str:
        return _iterated(f, call)

    def accessed(self, f: PageFacts, call: str) -> str:
        """A property's method as the attribute users read (`package_wheel.filename`),
        assign (`thread.daemon = ...`) or delete: calling it fails with a TypeError."""
        name, code = (f.site.function or "").split(".")[-1], f.site.snippet.code
        before = len("\n".join(code.splitlines()[: f.site.line - f.site.snippet.start_line]))
        m = None  # the last definition of the name above the site: a setter after its getter
        for found in re.finditer(rf"^\s*@(?:functools\.)?(?:(property|cached_property)|"
                                 rf"{re.escape(name)}\.(setter|deleter))\s*\n\s*def\s+"
                                 rf"{re.escape(name)}\s*\(", code, re.M):  # fmt: skip
            m = found if found.end() <= before else m
        called = re.fullmatch(rf"(.+)\.{re.escape(name)}\((.*)\)", call, re.S)
        if m is None or called is None:
            return call
        value = called.group(1)
        return {"setter": f"{value}.{name} = ...", "deleter": f"del {value}.{name}"}.get(
            m.group(2) or "", f"{value}.{name}")

    def caller_code(self, f: PageFacts, code: str) -> str:
        return code

    def receiver_of(self, call: str) -> str | None:
        found = method_receiver(call)
        if found is not None:
            return found
        for form in _SPECIAL_CALLS:  # `round(decimal, ...)` runs `decimal.__round__`
            m = form.fullmatch(call)
            if m:
                return m.group(1)
        return None

    def caller_value(self, expression: str, text: str) -> str:
        try:  # an "assignment" read from a docstring's prose is no expression
            ast.parse(expression.strip(), mode="eval")
        except SyntaxError:
            return ""
        return expression.strip()

    def checkable(self, f: PageFacts, guard: str) -> bool:
        return True

    def if_block(self, condition: str, body: str) -> str:
        return f"if {condition}:\n    {body}"

    def validate(self, f: PageFacts, guard: str, plain: str, stmt: str) -> str:
        own = self._site_class(f) if not (f.site.variant or f.site.kind is SiteKind.WARN) \
            else None  # fmt: skip
        imports, names = _imported(f, [own] if own else [], _globals_in(f, guard, stmt))
        exc = names[0] if names else "ValueError"
        return f"{imports}if {guard}:\n    raise {exc}({plain})\n{stmt}"

    def _site_class(self, f: PageFacts) -> str | None:
        """The class the explained site raises (`TypeError` at enum.py, though the
        record's other sites assert), else the record's."""
        written = f.site.exception
        if written and (self.exception_class(written) or written in f.imported):
            return written
        return f.exc_class

    def predicate_body(self, positive: str) -> str:
        return positive

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        imports, _ = _imported(f, [], _globals_in(f, positive, ", ".join(params)))
        return f"{imports}def {stem}_ok({', '.join(params)}) -> bool:\n    return {positive}"

    def _caught(self, f: PageFacts) -> tuple[str, str | None]:
        """The imports the class to catch needs, and the class, or a tuple of them when
        the record's sites raise several (`DirectUrlValidationError` at one,
        `PylockValidationError` at another)."""
        written = {n for s in f.record.sites if (n := self.exception_class(s.exception))}
        one = [c] if (c := self._site_class(f)) else []
        imports, names = _imported(f, sorted(written) if len(written) > 1 else one)
        return imports, f"({', '.join(names)})" if len(names) > 1 else next(iter(names), None)

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        imports, caught = self._caught(f)
        exc = caught or "Exception"
        group = call_group(f)
        inside = "" if group is None else (
            f"    if isinstance(e, BaseExceptionGroup):  # {group.function} raises it in a group\n"
            f"        return any(is_{stem}_error(x) for x in e.exceptions)\n")  # fmt: skip
        return (f"{imports}def is_{stem}_error(e: BaseException) -> bool:\n{inside}"
                f"    return isinstance(e, {exc}) and {literal} in str(e)")  # fmt: skip

    def passed_through(self, exception: str, wrapped: str, module: str,
                       declared: str) -> Wrapping | None:
        return None  # an exception chains its cause (`raise X from e`): no wrapper type

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        run = _iterated(f, call)
        return _awaited(self._try_catch(f, run, literal, advice), run)

    def _try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        imports, caught = self._caught(f)
        exc = caught or ("AssertionError" if f.site.kind is SiteKind.ASSERT else "Exception")
        if f.site.kind in (SiteKind.WARN, SiteKind.LOG) and not f.site.exception:
            return (f"# a log record, not an exception: there is nothing to catch around\n"
                    f"{call}\n# to notice it, read the library's log records (pytest's caplog,"
                    f"\n# or a logging.Handler on its logger) for {literal}")  # fmt: skip
        if f.site.kind is SiteKind.WARN:
            return (f"import warnings\nwith warnings.catch_warnings():\n"
                    f"    warnings.simplefilter(\"error\")\n    try:\n        {call}\n"
                    f"    except Warning as e:\n        if {literal} not in str(e):\n"
                    f"            raise\n        ...  # {advice}")  # fmt: skip
        group = call_group(f)
        if group is not None:  # the entry raises it inside a group: `except*` (3.11+)
            return (f"{imports}try:\n    {call}\nexcept* {exc} as eg:  # Python 3.11+: "
                    f"{group.function} raises it in a group ({group.group})\n"
                    f"    found = [e for e in eg.exceptions if {literal} in str(e)]\n"
                    f"    if not found:\n        raise\n"
                    f"    raise RuntimeError({quote(advice)}) from found[0]")  # fmt: skip
        check = "" if f.site.variant else f"    if {literal} not in str(e):\n        raise\n"
        return (f"{imports}try:\n    {call}\nexcept {exc} as e:\n{check}"
                f"    raise RuntimeError({quote(advice)}) from e")  # fmt: skip


_PLAIN_CALL = re.compile(r"(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*\(.*\)", re.DOTALL)


def _iterated(f: PageFacts, call: str) -> str:
    """The call run to its end when the function it calls gives a coroutine or a
    generator: calling one only builds it, and its checks run as it is awaited or
    iterated (`list(net.subnets(-1))`, `await template.render_async()`)."""
    if not _PLAIN_CALL.fullmatch(call):
        return call  # not a call (an import, a `with`), or one written as syntax
    lazy = _lazy_of(f, call)
    if lazy == ITERATED:
        return f"list({call})"
    if lazy == AWAITED:
        return f"await {call}"
    if lazy == ASYNC_ITERATED:
        return f"[item async for item in {call}]"
    return call


def _lazy_of(f: PageFacts, call: str) -> str:
    """How the function `call` names runs (OutlineDef.lazy): the site's own, or the entry
    point's of that name, as the index read its definition."""
    name = call.split("(", 1)[0].rsplit(".", 1)[-1]
    sf = f.site_facts
    if sf is None:
        return ""
    if (f.site.function or "").rsplit(".", 1)[-1] == name and f.lifted is None:
        return sf.lazy
    entries = [f.lifted.entry] if f.lifted is not None else list(sf.entry_points)
    return next((e.lazy for e in entries if e.function.rsplit(".", 1)[-1] == name), "")


def _awaited(code: str, call: str) -> str:
    """`code` inside an `async def`, when its call is awaited (`async with`, `await`, an
    `async for`): at module level that is a SyntaxError."""
    if not call.startswith(("async ", "await ")) and " async for " not in call:
        return code
    lines = code.split("\n")
    at = next(i for i, line in enumerate(lines) if not line.startswith(("from ", "import ")))
    body = "\n".join(f"    {line}" if line else line for line in lines[at:])
    return "\n".join([*lines[:at], "async def main() -> None:", body])


def _imported(f: PageFacts, written: list[str], named: tuple[str, ...] = ()) -> tuple[
        str, list[str]]:
    """The `from M import C` lines the classes `written` (and the names `named` a check
    reads) need in user code, and each class as the code then names it. A class the
    analysis did not place is imported from the module of a site that raises it (the raise
    names it there: `LZMAError` of lzma.py's `from _lzma import *`), else left as written."""
    modules: dict[str, list[str]] = {}
    names, plain = [], []
    for name in [*written, *named]:
        module, _, short = f.imported.get(name, "").rpartition(".")
        root = name.split(".")[0]
        if not module and root in _STDLIB and root.islower() and name in named:
            plain.append(root)  # `ssl.SSLContext`: the module itself, `import ssl`
            continue
        if not module and root not in _BUILTINS:
            module, short = _module_of(f, name), root
        if module:
            modules.setdefault(module, []).append(short)
        names.append(short if module and name in f.imported else name)
    lines = "".join(f"import {m}\n" for m in dict.fromkeys(plain))
    lines += "".join(f"from {m} import {', '.join(dict.fromkeys(c))}\n" for m, c in modules.items())
    return lines, names[: len(written)]


_STDLIB = frozenset(sys.stdlib_module_names)


_BUILTINS = frozenset(dir(builtins))
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _module_of(f: PageFacts, name: str) -> str:
    """The module users import `name` from: that of the first site raising it (of the
    public caller a lifted check is written for), "" when its path is no module name."""
    path = next((s.path for s in f.record.sites if s.exception == name), None)
    if path is None:
        path = f.lifted.entry.path if f.lifted is not None else f.site.path
    module = module_name(path)
    return module if _MODULE.fullmatch(module) else ""


def _globals_in(f: PageFacts, code: str, held: str) -> tuple[str, ...]:
    """The module's names a check reads (`SpecifierSet` of `isinstance(spec,
    SpecifierSet)`, `coroutines` of `coroutines.iscoroutine(cb)`), which a caller imports:
    not builtins, not the call's arguments (nor the names in `held`, the call or the check's
    parameters), not names the check binds itself (a comprehension's, a lambda's)."""
    try:
        tree = ast.parse(code.strip(), mode="eval")
    except SyntaxError:
        return ()
    bound = {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda) for a in n.args.args}
    bound |= {t.id for n in ast.walk(tree) if isinstance(n, ast.comprehension)
              for t in ast.walk(n.target) if isinstance(t, ast.Name)}  # fmt: skip
    own = set(f.params or ()) | set(re.findall(r"[A-Za-z_]\w*", held)) | bound
    read = [n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    return tuple(dict.fromkeys(n for n in read if n not in _BUILTINS and n not in own))


WRITER = PythonWriter()
