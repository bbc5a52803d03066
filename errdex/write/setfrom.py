"""Which argument of an entry point fills a field the site's path needs set: the public
function builds the value the site's method runs on with that field taken from one of
its parameters (`Op { mask: mask.cloned(), .. }`; errdex.analyze.fields), so that
argument alone decides whether the site is reached."""

from __future__ import annotations

from errdex.write.pagefacts import PageFacts


def set_from_sentences(f: PageFacts) -> list[str]:
    """"The field `mask` it needs is set from the `mask` argument of `blend_masked`.", one
    sentence per field and parameter, naming every entry point that sets it so."""
    points = f.site_facts.entry_points if f.site_facts is not None else ()
    by: dict[tuple[str, str], list[str]] = {}
    for e in points:
        for pair in e.set_from:
            by.setdefault(pair, []).append(f"`{e.function}`")
    return [f"The field `{field}` it reads is set from the `{param}` argument of "
            + " and of ".join(functions) + "." for (field, param), functions in by.items()]
