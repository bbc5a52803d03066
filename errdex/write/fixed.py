"""Parameters the library's own calls fix to a literal, said as such
(errdex.analyze.fixedargs): `name` of packaging's `Tokenizer.expect` is a token name that
each call writes out, never a value the user passes."""

from __future__ import annotations

from collections.abc import Sequence

from errdex.analyze.fixedargs import MAX_VALUES
from errdex.write.pagefacts import PageFacts, fn_name


def fixed_sentence(f: PageFacts, names: Sequence[str]) -> str:
    """"`name` is not a value of yours: every call of `expect` in the code passes it a
    literal (`"IDENTIFIER"`, `"URL"`, `"END"`).", one sentence for the names given."""
    if not names:
        return ""
    said = []
    for name in names:
        values = f.fixed[name]
        more = ", …" if len(values) > MAX_VALUES else ""
        listed = ", ".join(f"`{v}`" for v in values[:MAX_VALUES]) + more
        said.append(f"`{name}` ({listed})")
    one = len(names) == 1
    never = ", so the check cannot fail at this commit" if f.fixed_outcome is False else \
        ", so the check fails whenever this line is reached" if f.fixed_outcome else ""
    return (f"{' and '.join(said)} {'is' if one else 'are'} not "
            f"{'a value' if one else 'values'} of yours: every call of `{fn_name(f)}` in the "
            f"code passes {'it a literal' if one else 'them literals'}{never}.")
