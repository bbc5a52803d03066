"""Rendering details a reader sees: snippet numbering and highlighting, prose code spans."""

from __future__ import annotations

from errdex.serve.web.render import code_spans, highlight_snippet

TAIL_OF_DOCSTRING = '''\
        Raises: ValueError if it's wrong.
        """
        if strict:
            raise ValueError("bad")
'''


def test_a_snippet_that_starts_inside_a_docstring_is_still_highlighted_as_code() -> None:
    html = str(highlight_snippet(TAIL_OF_DOCSTRING, "python", 40, 43))
    assert '<span class="hll">' in html
    marked = html.split('<span class="hll">')[1].split("\n")[0]
    assert '<span class="k">raise</span>' in marked
    assert ">40<" in html and ">43<" in html


def test_code_spans_escape_and_mark_identifiers() -> None:
    assert str(code_spans("`a<b>` must be <i>")) == "<code>a&lt;b&gt;</code> must be &lt;i&gt;"
    assert str(code_spans("one ` tick <x>")) == "one ` tick &lt;x&gt;"
