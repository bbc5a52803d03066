"""Hostile trees for extraction and indexing: files that crash or stall the parser, blow
up the stored text or the work, or hold literals that cannot be stored.

Every tree also holds `ok.py` (or `src/ok.rs`), an ordinary file with one record whose
message is OK_MESSAGE: the tests assert it is still indexed, i.e. that the hostile file
cost only itself. The sizes are just big enough to show each problem (each case took
from 7 s to minutes, or crashed, before the fix) and run in a few seconds with it.
"""

from __future__ import annotations

from pathlib import Path

from tests.hostile import Case

OK_MESSAGE = "the ordinary file still gets indexed"


def _tree(tmp: Path, name: str, files: dict[str, str]) -> Path:
    root = tmp / name
    root.mkdir(parents=True)
    ok = f'def ok(x):\n    if x:\n        raise ValueError("{OK_MESSAGE}")\n'
    (root / "ok.py").write_text(ok)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8", errors="surrogatepass")
    return root


def nested_ifs(levels: int) -> str:
    """`levels` nested `if` blocks around a raise: at ~520 levels (134 KB at 500) the
    tree-sitter Python parser segfaults; before the fix that took the index down."""
    lines = [" " * i + f"if x{i}:" for i in range(levels)]
    lines.append(" " * levels + 'raise ValueError("deep inside")')
    return "\n".join(lines) + "\n"


def nested_parens(depth: int) -> str:
    """A Rust macro of `depth` nested parentheses: the query's work is quadratic in the
    depth (200 KB took 165 s)."""
    return 'fn f() {\n    bail!("nested {}", ' + "(" * depth + "1" + ")" * depth + ");\n}\n"


def method_chain(calls: int) -> str:
    """A chain of `calls` method calls: no deep brackets, but a tree as deep as the chain
    (20,000 calls: 16 s in the query)."""
    return "fn f() {\n    let x = a" + ".b()" * calls + ";\n}\n"


def long_line(raises: int) -> str:
    """`raises` raises on one line: each site's snippet held the whole line (a 100 KB
    line gave a 227 MB database)."""
    body = "; ".join(f'raise ValueError("long line message {i}")' for i in range(raises))
    return f"def f(x):\n    if x: {body}\n"


def identical_raises(count: int) -> str:
    """`count` raises of one message: related records were found pairwise over the sites
    (8,000 took 30 s)."""
    return "def f(x):\n" + '    if x: raise ValueError("the same message again")\n' * count


def distinct_raises(count: int, start: int = 0) -> str:
    """`count` raises of distinct messages in one function: each page stored every
    sibling (quadratic), and a million of them ran out of memory."""
    return "def f(x):\n" + "".join(
        f'    if x == {i}: raise ValueError("distinct message number {i}")\n'
        for i in range(start, start + count)
    )


BAD_LITERALS = (
    # A lone surrogate: an internal error that stored nothing, before the fix.
    'def a():\n    raise ValueError("lone surrogate \\udcff in a message")\n'
    # A NUL byte, an invalid escape, a surrogate pair written as two escapes.
    'def b():\n    raise ValueError("nul \\x00 byte in a message")\n'
    'def c():\n    raise ValueError("invalid \\q escape in a message")\n'
    'def d():\n    raise ValueError("two halves \\ud83d\\ude00 of a pair")\n'
    # The surrogate itself in the file, as the raw bytes UTF-8 forbids.
    'def e():\n    raise ValueError("raw surrogate \udcff bytes")\n'
)
BAD_RUST_LITERALS = (
    'fn a() { bail!("rust surrogate \\u{d800} escape"); }\n'
    'fn b() { bail!("rust out of range \\u{110000} escape"); }\n'
    'fn c() { bail!("rust nul \\0 and \\x00 escapes"); }\n'
    'fn d() { panic!("rust invalid \\q escape"); }\n'
)


def go_method_chain(calls: int) -> str:
    """The Go form of `method_chain`: a tree as deep as the chain."""
    return "package p\n\nfunc f() {\n\tx := a" + ".b()" * calls + "\n\t_ = x\n}\n"


def go_returns(count: int) -> str:
    """A sentinel returned `count` times: one construction each, cut by the file budget."""
    body = "".join(f"\tif x == {i} {{\n\t\treturn ErrSame\n\t}}\n" for i in range(count))
    return ('package p\n\nimport "errors"\n\nvar ErrSame = errors.New("go: the same error")'
            f"\n\nfunc f(x int) error {{\n{body}\treturn nil\n}}\n")


BAD_GO_LITERALS = (
    'package p\n\nimport "errors"\n\n'
    'func a() error { return errors.New("go surrogate \\ud800 escape") }\n'
    'func b() error { return errors.New("go out of range \\U00110000 escape") }\n'
    'func c() error { return errors.New("go nul \\x00 and \\000 escapes") }\n'
    'func d() error { return errors.New("go invalid \\q escape and \\xZZ") }\n'
)


def js_member_chain(calls: int) -> str:
    """The JavaScript form of `method_chain`, one call a line (as formatters write it, so
    it is not taken for a minified file): a tree as deep as the chain."""
    return "function f() {\n  const x = a" + "\n    .b()" * calls + ";\n  return x;\n}\n"


def js_throws(count: int) -> str:
    """One error class thrown `count` times: a construction each, cut by the file budget."""
    body = "".join(f"  if (x === {i}) throw new SameError(x);\n" for i in range(count))
    return ("class SameError extends Error {\n  constructor(x) { super(`js: the same error "
            f"${{x}}`); }}\n}}\n\nfunction f(x) {{\n{body}}}\n")


def js_nested_templates(depth: int) -> str:
    """Template literals nested `depth` deep (`${`${`..`}`}`)."""
    return "throw new Error(`" + "a ${`\n" * depth + "b" + "`} c" * depth + "`);\n"


def js_minified(functions: int) -> str:
    """A bundle on one line, as a minifier writes it: skipped as a whole."""
    return ";".join(f'function f{i}(a){{if(a>{i})throw new Error("bundled: over {i}")}}'
                    for i in range(functions)) + "\n"  # fmt: skip


BAD_JS_LITERALS = (
    "function a() { throw new Error('js surrogate \\ud800 escape'); }\n"
    "function b() { throw new Error('js out of range \\u{110000} escape'); }\n"
    "function c() { throw new Error(`js nul \\0 and \\x00 escapes`); }\n"
    "function d() { throw new Error('js invalid \\q escape and \\xZZ'); }\n"
)


def java_method_chain(calls: int) -> str:
    """The Java form of `method_chain`: a tree as deep as the chain."""
    return "class P {\n    void f() {\n        var x = a" + ".b()" * calls + ";\n    }\n}\n"


def java_concatenation(parts: int) -> str:
    """A message of `parts` concatenated pieces: one tree as deep as the chain."""
    body = " + ".join(f'"p{i} " + x' for i in range(parts))
    return ("class P {\n    void f(int x) {\n"
            f"        throw new IllegalStateException({body});\n    }}\n}}\n")


def java_throws(count: int) -> str:
    """The same exception thrown `count` times: one site each, cut by the file budget."""
    body = "".join(f"        if (x == {i}) {{\n            throw new IllegalStateException("
                   '"java: the same error");\n        }\n' for i in range(count))
    return f"class P {{\n    void f(int x) {{\n{body}    }}\n}}\n"


BAD_JAVA_LITERALS = (
    "class P {\n"
    '    void a() { throw new IllegalStateException("java surrogate \\uD800 escape"); }\n'
    '    void b() { throw new IllegalStateException("java unicode \\uuuu0041 and \\u0000 nul"); }\n'
    '    void c() { throw new IllegalStateException("java octal \\377 and \\0 escapes"); }\n'
    '    void d() { throw new IllegalStateException("java invalid \\q escape and \\uZZZZ"); }\n'
    "}\n"
)


def cases(tmp: Path) -> list[Case]:
    """Each hostile tree, indexed by the real CLI: it must exit 0 with the hostile file
    skipped or capped (and counted), and the ordinary file indexed."""
    def index(name: str, files: dict[str, str], *flags: str) -> Case:
        root = _tree(tmp, name, files)
        return Case(name=f"index: {name}", argv=("--db", "{db}", "index", *flags, str(root)))

    return [
        index("nested-ifs", {"deep.py": nested_ifs(600)}),
        index("nested-parens", {"src/lib.rs": nested_parens(100_000)}),
        index("method-chain", {"src/lib.rs": method_chain(20_000)}),
        index("long-line", {"long.py": long_line(2_500)}),
        index("identical-raises", {"many.py": identical_raises(8_000)}),
        index("distinct-raises",
              {f"z{i}.py": distinct_raises(1_500, i * 1_500) for i in range(6)},
              "--max-file-sites", "500", "--max-sites", "1200"),
        index("bad-literals", {"bad.py": BAD_LITERALS, "src/bad.rs": BAD_RUST_LITERALS}),
        index("go-method-chain", {"chain.go": go_method_chain(20_000)}),
        index("go-returns", {"many.go": go_returns(8_000)}),
        index("go-bad-literals", {"bad.go": BAD_GO_LITERALS}),
        index("js-member-chain", {"chain.js": js_member_chain(20_000)}),
        index("js-nested-templates", {"deep.js": js_nested_templates(5_000)}),
        index("js-throws", {"many.ts": js_throws(8_000)}),
        index("js-minified", {"lib/app.js": js_minified(2_000)}),
        index("js-bad-literals", {"bad.js": BAD_JS_LITERALS}),
        index("java-method-chain", {"Chain.java": java_method_chain(20_000)}),
        index("java-concatenation", {"Concat.java": java_concatenation(20_000)}),
        index("java-throws", {"Many.java": java_throws(8_000)}),
        index("java-bad-literals", {"Bad.java": BAD_JAVA_LITERALS}),
    ]
