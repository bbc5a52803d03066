"""`RecordFacts` to and from the `facts` key of the JSON contract (`errdex.serialize`).

Kept apart so the contract module only gains one key; the shapes are the dataclasses'
own fields, so the JSON says exactly what the prose was written from.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from errdex.models import (
    EntryPoint,
    History,
    OriginFact,
    RecordFacts,
    SiblingCheck,
    SiteFacts,
    TestRef,
)


def facts_to_dict(facts: RecordFacts | None) -> dict[str, Any] | None:
    return None if facts is None else asdict(facts)


def facts_from_dict(data: dict[str, Any] | None) -> RecordFacts | None:
    if not data:
        return None
    sites = tuple(
        SiteFacts(
            path=s["path"], line=int(s["line"]), function=s.get("function"),
            guard=s.get("guard"), requirement=s.get("requirement"),
            origins=tuple(OriginFact(**o) for o in s.get("origins", ())),
            siblings=tuple(SiblingCheck(**c) for c in s.get("siblings", ())),
            entry_points=tuple(EntryPoint(**e) for e in s.get("entry_points", ())),
        )
        for s in data.get("sites", ())
    )  # fmt: skip
    history = data.get("history")
    return RecordFacts(
        sites=sites,
        tests=tuple(TestRef(**t) for t in data.get("tests", ())),
        history=History(**history) if history else None,
    )


def status_of(facts: RecordFacts | None) -> str:
    """"removed" for a record kept after its message left the code, else "current"."""
    return "removed" if facts and facts.history and facts.history.removed else "current"
