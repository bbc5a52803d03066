"""The Rust code of a page's code sections: calls with `?`, `if ... { return Err(..) }`,
`fn ..._ok(..) -> bool` and `match`/`catch_unwind` handlers. It writes code text from the
page's facts only; what the page says is decided in `errdex.write.snippets`."""

from __future__ import annotations

import re

from errdex.analyze import facts
from errdex.extract.constructions import same_type
from errdex.languages.rust import conversions
from errdex.languages.writer import BraceReading, BraceWriter, Wrapping
from errdex.models import Language, Site, SiteKind
from errdex.write import reading
from errdex.write.pagefacts import PageFacts, quote

_RAISES = r"(?:bail!|Err\(|panic!|unreachable!|todo!|unimplemented!|return\s+Err)"
_CHECK = re.compile(
    rf"\s*(?:}}\s*else\s+)?if\b.*\{{.*{_RAISES}|\s*(?:[\w:]+::)?(?:debug_)?assert(?:_eq|_ne)?!"
    rf"|\s*(?:[\w:]+::)?ensure!|.*=>\s*(?:\{{\s*)?(?:[\w:]+::)?{_RAISES}"
)
_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')


class _Reading(BraceReading):
    """How Rust code is read from a snippet (see errdex.write.reading)."""

    check = _CHECK
    strings = _STRINGS
    branch_words = ("} else", "else")
    comment_starts = ("//",)

    def comment_text(self, line: str) -> str:
        return re.sub(r"^\s*//[/!]?\s?", "", line).strip()

    def exclusive_branch(self, line: str) -> bool:
        return super().exclusive_branch(line) or "=>" in self.strings.sub('""', line)

    def defines(self, line: str, name: str) -> bool:
        if name not in line:  # most lines: no regex to build (23,000 calls on candle)
            return False
        return re.search(rf"\bfn\s+{re.escape(name)}\s*[<(]", line) is not None

    def parameter_names(self, params: str) -> list[str]:
        out = []
        for part in facts.split_top(params, ",", Language.RUST):
            part = part.strip()
            if not part:
                continue
            if re.fullmatch(r"&?\s*(?:'\w+\s+)?(?:mut\s+)?self(?:\s*:.*)?", part):
                out.append("self")
                continue
            m = re.match(r"(?:mut\s+)?([A-Za-z_]\w*)\s*:", part)
            out.append(m.group(1) if m else "_")
        return out

    def public_by_name(self, site: Site) -> bool | None:
        return None

    def public_header(self, header: str) -> bool | None:
        if re.match(r"\s*pub\s*\(", header):
            return False  # pub(crate), pub(super): not for users
        if re.match(r"\s*pub\b", header):
            return True
        if not header[:1].isspace() and "self" not in header:
            return False  # a free function of the module without `pub`
        return None  # a method without `pub` may still be public through a trait

    def gives_error(self, header: str, function: str, exception: str | None) -> bool:
        returned = re.search(r"\)\s*->\s*(?P<type>[^{;]+?)\s*(?:\{|\bwhere\b|;|$)", header)
        if returned is None or not exception:
            return False
        kind = returned.group("type").strip()
        error = re.sub(r"<.*", "", exception).split("::")
        owner = error[:-1] or error  # `Error` of the variant `Error::WithPath`
        if kind == "Self":  # a method of the error type that builds one
            parts = function.split("::")
            return len(parts) > 1 and re.sub(r"<.*", "", parts[-2]) == owner[-1]
        return re.sub(r"<.*", "", kind).split("::")[-1] == owner[-1]

    def doc_of(self, lines: list[str], index: int) -> str | None:
        found: list[str] = []
        i = index - 1
        while i >= 0 and lines[i].lstrip().startswith("#["):
            i -= 1
        while i >= 0 and lines[i].lstrip().startswith("///"):
            found.append(lines[i].lstrip()[3:].strip())
            i -= 1
        if i < 0:
            return None  # the doc starts above the snippet: its first words are not shown
        prose: list[str] = []
        for line in reversed(found):
            if line.startswith("```") or (not line and prose):
                break  # the summary paragraph ends at a blank line or an example
            prose.append(line)
        return " ".join(prose).strip() or None

    def user_call(self, function: str, args: list[str] | None, is_method: bool | None) -> str:
        parts = function.split("::")
        listed = "..." if args is None else ", ".join(args)
        if is_method and len(parts) > 1:
            owner = re.sub(r"<.*", "", parts[-2])
            value = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_",
                           owner).lower() or "value"
            if not re.fullmatch(r"[A-Za-z_]\w*", owner):
                return f"{function}({listed})"  # no plain name for its value: call it by path
            if "".join(p.capitalize() for p in value.split("_")) != owner and any(
                    len(word) == 1 for word in value.split("_")):  # an acronym's letters
                value = value.replace("_", "")  # `LLaVA` -> `llava`, not `l_la_va`
            return f"{value}.{parts[-1]}({listed})"  # `Qwen3VLModel` -> `qwen3_vl_model`
        return f"{function}({listed})"


class RustWriter(_Reading, BraceWriter):
    binding = "let "
    parenthesized = False
    failure = "return Err({plain}.into());"

    def call(self, f: PageFacts) -> str:
        fn = f.site.function
        return f"{fn}(...)" if fn else "..."

    def statement(self, f: PageFacts, call: str) -> str:
        if call == "...":
            return call
        returns = f.site.kind in (SiteKind.BAIL, SiteKind.CONTEXT, SiteKind.ERROR_ENUM,
                                  SiteKind.RAISE)
        return f"{call}?;" if returns and not _returns_nothing(f) else f"{call};"

    def caller_value(self, expression: str, text: str) -> str:
        # `let shape = shape.into()`: the same argument in the type the function wants
        value = re.sub(r"^([A-Za-z_]\w*)\.(?:into|as_ref|borrow|to_owned)\(\)$", r"\1",
                       expression.strip())
        if value.endswith(")") and value not in text and re.search(r"\)\?", text):
            # a part of what a fallible call gave (`let (_, hq, _) = q.dims3()?` read as
            # `q.dim(1)`): asked for on its own, it is fallible too
            return f"{value}?"
        return value

    def checkable(self, f: PageFacts, guard: str) -> bool:
        """A lifted `matches!` of a whole argument against another type's variants
        (`matches!(&*weights, Storage::Cuda(c))`, `(xs, cos, sin)` against `CpuStorage`'s
        `BF16(..)`) tests what the site's function took out of the argument (its storage),
        not the `&Tensor` the caller holds: no caller's code."""
        if f.lifted is None:
            return True
        for m in re.finditer(r"\bmatches!\(", guard):
            inner = _call_arguments(guard, m.end())
            parts = facts.split_top(inner, ",", Language.RUST) if inner is not None else []
            if len(parts) < 2:
                continue
            subject, pattern = parts[0].strip(), ",".join(parts[1:])
            whole = re.fullmatch(r"[(&*\s]*[A-Za-z_]\w*(?:[\s,&*]+[A-Za-z_]\w*)*[)\s]*", subject)
            variants = set(re.findall(r"(?<![\w:])((?:\w+::)*[A-Z]\w*)\s*\(", pattern))
            if whole and variants - {"Some", "Ok", "Err"}:
                return False
        return True

    def caller_code(self, f: PageFacts, code: str) -> str:
        for origin in f.origins:  # a Rust struct field is copied once
            if origin.how == "field" and re.fullmatch(r"[\w.]+", origin.expression):
                code = re.sub(rf"\bself\.{re.escape(origin.name)}\b", origin.expression, code)
        return code  # what is left of `self` is the receiver: the writer names it

    def predicate_body(self, positive: str) -> str:
        return facts.strip_self(positive)

    def predicate(self, f: PageFacts, stem: str, positive: str, params: list[str]) -> str:
        params = [p for p in params if p != "self"]
        owner = (f.site.function or "").split("::")
        own = re.sub(r"<.*", "", owner[-2]) if len(owner) > 1 else None
        receiver = re.sub(r"(?<!^)(?=[A-Z])", "_", own).lower() if own else None

        def typed_one(p: str) -> str:
            if p == receiver and own:
                return f"{p}: &{own}"
            declared = facts.declared_type(f.site, p) or "..."
            if own:  # a free function has no `Self`: the type it stands for in the impl
                declared = re.sub(r"\bSelf\b", own, declared)
            return f"{p}: {declared}"

        typed = ", ".join(typed_one(p) for p in params)
        if re.search(r"\bself\.", positive):
            typed = ", ".join(["&self", typed]) if typed else "&self"
        if re.search(r"\)\?", facts._STRING.sub('""', positive)):
            # a `?` in the check (`q.dim(1)?`): the check itself can fail, so it returns a
            # Result the caller propagates (`Option`'s `.ok()` would compare or do
            # arithmetic on `Option`s, which does not compile or tests something else)
            return f"fn {stem}_ok({typed}) -> Result<bool> {{\n    Ok({positive})\n}}"
        return f"fn {stem}_ok({typed}) -> bool {{\n    {positive}\n}}"

    def error_test(self, f: PageFacts, stem: str, literal: str) -> str:
        if _to_javascript(f):
            return (f"// {_JS_NOTE.format(error=_js_error(f))}: tell it there, by its message\n"
                    f"function is_{stem}_error(e) {{\n"
                    f"  return e instanceof Error && e.message.includes({literal});\n}}")
        return (f"fn is_{stem}_error(e: &dyn std::error::Error) -> bool {{\n"
                f"    e.to_string().contains({literal})\n}}")  # fmt: skip

    def try_catch(self, f: PageFacts, call: str, literal: str, advice: str) -> str:
        if _to_javascript(f):  # no Display to read in Rust: JavaScript catches it
            return (f"// {_JS_NOTE.format(error=_js_error(f))}\ntry {{\n"
                    f"  ...; // your JavaScript call that runs {f.site.function or call}\n"
                    f"}} catch (e) {{\n"
                    f"  if (!(e instanceof Error) || !e.message.includes({literal})) throw e;\n"
                    f"  // {advice}\n}}")
        if _returns_nothing(f) and f.site.kind not in (SiteKind.PANIC, SiteKind.ASSERT,
                                                        SiteKind.EXPECT):
            return (f"// `{f.site.function}` returns no Result: nothing comes back from this "
                    f"call to match;\n// the error is a value it hands on itself (see what it "
                    f"means)\n{call};")
        if f.site.kind in (SiteKind.PANIC, SiteKind.ASSERT, SiteKind.EXPECT):
            # A panic's payload is a `String` when its message is formatted, a `&str` when
            # it is a literal (`todo!("..")`): one downcast alone misses the other. The
            # closure borrows the call's arguments (`&mut [f32]` is not `UnwindSafe`):
            # `AssertUnwindSafe` lets any call compile, as the std docs advise.
            return (f"match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {call})) "
                    f"{{\n    Ok(v) => v,\n"
                    f"    Err(p) => {{\n"
                    f"        let text = p.downcast_ref::<String>().map(String::as_str)\n"
                    f"            .or_else(|| p.downcast_ref::<&str>().copied())"
                    f".unwrap_or_default();\n"
                    f"        if !text.contains({literal}) {{\n"
                    f"            std::panic::resume_unwind(p);\n        }}\n"
                    f"        panic!({quote(advice + ': {}')}, text)\n    }}\n}}")  # fmt: skip
        # By its text, not its variant: the library may return the variant boxed in another
        # (a backtrace or context wrapper), where a pattern on the variant would not match.
        note = ""
        if f.site.kind is SiteKind.ERROR_ENUM and f.site.exception:
            note = (f"// the error is `{f.site.exception}`, possibly wrapped (backtrace, "
                    "context): match its text\n")
        arm = f"Err(e) if e.to_string().contains({literal})"
        return (f"{note}match {call} {{\n    Ok(v) => v,\n    {arm} => {{\n"
                f"        return Err(format!(\"{_format_literal(advice)}: {{e}}\").into());\n"
                f"    }}\n    Err(e) => return Err(e.into()),\n}}")  # fmt: skip


    def passed_through(self, exception: str, wrapped: str, module: str,
                       declared: str) -> Wrapping | None:
        crate = module.split("::")[0]
        variant = f"{crate}::{exception}" if crate else exception
        how = (f"a `?` on a `Result<_, {wrapped}>` in a function that returns the "
               f"library's `Result` (or `{variant.rsplit('::', 1)[0]}::from(e)`, `e.into()`)"
               if "#[from]" in declared.replace(" ", "")
               else f"building `{variant}(..)` from a `{wrapped}` (no `?` converts one)")
        # `produce`: whatever call of the user's gives the wrapped error (no name invented)
        owner = variant.rsplit("::", 1)[0]
        returned = f"{crate}::Result<T>" if crate else f"Result<T, {owner}>"
        header = f"fn load<T>(produce: impl FnOnce() -> Result<T, {wrapped}>) -> {returned} {{\n"
        before = (f"{header}    let v = produce()?; // becomes {exception}\n"
                  "    Ok(v)\n}")
        after = (f"{header}    match produce() {{\n        Ok(v) => Ok(v),\n"
                 f"        Err(e) => {{\n            // the {wrapped} itself: handle it here, "
                 f"or\n            Err(e.into()) // as {exception}\n        }}\n    }}\n}}")
        guard = (f"fn is_{_snake(wrapped)}(e: &{owner}) -> bool {{\n"
                 f"    matches!(e, {variant}(_))\n}}")
        catch = (f"fn run<T>(call: impl FnOnce() -> Result<T, {owner}>) -> Result<T, {owner}> "
                 f"{{\n    match call() {{\n        Ok(v) => Ok(v),\n"
                 f"        Err({variant}(e)) => {{\n"
                 f"            // e: {wrapped}, whose message the page shows\n"
                 f"            Err({variant}(e))\n        }}\n"
                 "        Err(e) => Err(e),\n    }\n}")
        known = conversions.known_errors()
        producers = tuple(call for call, error in known.items()
                          if same_type(wrapped, error))
        whole = any(same_type(wrapped, error) for error in conversions.complete())
        return Wrapping(how=how, before=before, after=after, type_guard=guard, try_catch=catch,
                        producers=producers, complete=whole and "#[from]" in declared)


_JS_NOTE = ("`{error}` has no text to read in Rust (no Display); the wasm-bindgen glue "
            "throws it in JavaScript as an Error")


def _js_error(f: PageFacts) -> str:
    found = re.search(r"\bJs(?:Error|Value)\b", " ".join(
        (f.site.exception or "", f.record.exception or "", _header(f) or "")))
    return found.group(0) if found else "JsError"


def _to_javascript(f: PageFacts) -> bool:
    """The error is wasm-bindgen's `JsError`/`JsValue`: it has no `Display` (no
    `to_string()`, not a `std::error::Error`), and reaches users as a JavaScript throw."""
    raised = f.site.exception or f.record.exception or ""
    if re.search(r"\bJs(?:Error|Value)\b", raised):
        return True
    returned = re.search(r"->\s*Result<[^{]*\bJs(?:Error|Value)\b", _header(f) or "")
    return returned is not None and f.site.exception is None and f.lifted is None \
        and bool(f.public)  # fmt: skip


def _header(f: PageFacts) -> str | None:
    return reading.signature(f.site) if f.site.function else None


def _returns_nothing(f: PageFacts) -> bool:
    """The user's call is of the site's function, whose whole header shows it returns
    `()` (`fn handle_input(&mut self, msg, id) {`): `?` and `match` on it do not compile."""
    if f.lifted is not None or f.public is False or f.users[1:]:
        return False  # (a trait's hook, `Worker::handle_input`, is public by its trait)
    header = _header(f)
    return header is not None and header.rstrip().endswith("{") and "->" not in header


def _call_arguments(code: str, start: int) -> str | None:
    """The text from `start` (just after an opening parenthesis) to its closing one."""
    depth = 1
    for i in range(start, len(code)):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return code[start:i]
    return None


def _snake(path: str) -> str:
    """`std::string::FromUtf8Error` as a name: `from_utf8_error`."""
    last = re.sub(r"<.*", "", path).split("::")[-1]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", last).lower() or "error"


def _format_literal(text: str) -> str:
    """Text made safe inside a Rust `format!("...")`: quotes, backslashes and braces."""
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("{", "{{").replace("}", "}}")


WRITER = RustWriter()
