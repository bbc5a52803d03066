"""Python idioms written before a check that change what it tests (errdex.languages.spec's
`BeforeCheck`): a `getattr` in a `try` whose `except AttributeError` holds the check, the
keys a function `del`s or `pop`s from its `**kwargs` before `if kwargs:`, the methods that
fill a list in place, and the size of a `memoryview` of an argument.

Text work on code the extractor captured; it never reads a file."""

from __future__ import annotations

import re

from errdex.languages.spec import BeforeCheck

_TARGET = r"(?:[A-Za-z_][\w.]*\s*=\s*)?"  # `x = ` in front of the expression, if any
_GETATTR = re.compile(
    _TARGET + r"getattr\(\s*(?P<obj>[A-Za-z_][\w.]*)\s*,\s*(?P<name>[^,()]+?)\s*\)")
_STR = r"(?:'[^'\\\n]*'|\"[^\"\\\n]*\")"
_NAME = re.compile(r"[A-Za-z_]\w*")
_OTHER_KEYS = re.compile(r"set\((?P<name>[A-Za-z_]\w*)\)\s*-\s*\{(?P<keys>[^{}]*)\}")


def _classes(caught: str) -> set[str]:
    return {c.strip().split(".")[-1] for c in caught.strip().strip("()").split(",")}


def way_past(statement: str, caught: str) -> str | None:
    """`testMethod = getattr(self, methodName)` raises AttributeError exactly when the
    object has no attribute of that name. (A `KeyError` of `x = table[key]` is left out:
    the table is as often the library's own cache as a value the caller passes.)"""
    classes, text = _classes(caught), statement.strip()
    m = _GETATTR.fullmatch(text)
    if m and "AttributeError" in classes:
        return f"hasattr({m.group('obj')}, {m.group('name')})"
    return None


def restate(guard: str, code: str, whole: bool) -> str | None:
    """`if kwargs:` after `del kwargs['command']` or `kwargs.pop('style', None)` fails
    only for the keys left: `set(kwargs) - {'command', 'style'}`. Code that starts inside
    the function is read only when it starts inside its docstring: then no statement of
    it is left out."""
    name = guard.strip()
    if not _NAME.fullmatch(name) or not (whole or _in_docstring(code)):
        return None
    removed = re.compile(rf"\bdel\s+{name}\[\s*(?P<key>{_STR})\s*\]"
                         rf"|(?<![\w.]){name}\.pop\(\s*(?P<popped>{_STR})")  # fmt: skip
    keys: list[str] = []
    for m in removed.finditer(code):
        key = m.group("key") or m.group("popped")
        if key not in keys:
            keys.append(key)
    return f"set({name}) - {{{', '.join(keys)}}}" if keys else None


def _in_docstring(code: str) -> bool:
    """The code starts inside a triple-quoted string: its first triple quote ends a line,
    closing the docstring the lines before it are the rest of."""
    first = re.search(r'"""|\'\'\'', code)
    return first is not None and code[first.end() :].split("\n", 1)[0].strip() == ""


def predicate(text: str) -> tuple[str, str, str] | None:
    m = _OTHER_KEYS.fullmatch(text.strip())
    return (m.group("name"), "+other_keys", m.group("keys").strip()) if m else None


_SIZED = re.compile(r"(?P<a>[A-Za-z_][\w.]*)\s*\*\s*len\(\s*(?P<v>[A-Za-z_]\w*)\s*\)"
                    r"|len\(\s*(?P<w>[A-Za-z_]\w*)\s*\)\s*\*\s*(?P<b>[A-Za-z_][\w.]*)")


def _viewed(name: str, code: str) -> str | None:
    """What `name` is a `memoryview` of: `with memoryview(buf) as m`, `m = memoryview(buf)`."""
    m = re.search(rf"memoryview\(\s*(?P<of>[A-Za-z_][\w.]*)\s*\)\s*as\s+{name}\b"
                  rf"|(?<![\w.]){name}\s*=\s*memoryview\(\s*(?P<to>[A-Za-z_][\w.]*)\s*\)",
                  code)  # fmt: skip
    return (m.group("of") or m.group("to")) if m else None


def value_kind(expression: str, code: str) -> str | None:
    """`itemsize * len(m)` with `m = memoryview(buf)` and `itemsize = m.itemsize` is the
    byte size of `buf`; `len(m)` alone its length in items, `m.nbytes` its byte size."""
    text = expression.strip()
    m = _SIZED.fullmatch(text)
    if m:
        view, size = m.group("v") or m.group("w"), m.group("a") or m.group("b")
        viewed = _viewed(view, code)
        itemsize = size == f"{view}.itemsize" or re.search(
            rf"(?<![\w.]){re.escape(size)}\s*=\s*{view}\.itemsize\b", code) is not None
        return f"byte size of `{viewed}`" if viewed and itemsize else None
    m = re.fullmatch(r"len\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*)\.nbytes", text)
    viewed = _viewed(m.group(1) or m.group(2), code) if m else None
    if m and viewed:
        return f"length of `{viewed}` in items" if m.group(1) else f"byte size of `{viewed}`"
    return None


BEFORE = BeforeCheck(
    way_past=way_past, restate=restate, predicate=predicate, value_kind=value_kind,
    fills=r"append|appendleft|extend|extendleft|add|insert|update|setdefault",
)
