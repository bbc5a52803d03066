"""The page's sections are declared once (`errdex.sections`) and every reader follows
that declaration: the writers' type, the model's answer schema, the checker, the
terminal and the error page."""

from __future__ import annotations

import dataclasses
import typing

from errdex.analyze.check import sections as checked_texts
from errdex.contract import explanation_to_dict
from errdex.models import Defensive, ExampleFix, Explanation
from errdex.sections import BY_NAME, SECTIONS, Kind, answer_schema, checked_fields
from errdex.serve import terminal
from errdex.serve.web.render import environment
from errdex.write.llm import SCHEMA

META = ("source", "model", "notes")  # who wrote the page, not a section of it


def _explanation() -> Explanation:
    return Explanation(
        summary="S `alpha`", what_it_means="M", solutions=("one", "two"),
        example_fix=ExampleFix("before()", "after()"),
        defensive=Defensive("plan", "validate()", "guard()", "catch()"),
        prevention=("p",), trigger="T", common_situations=("c1",))


def test_the_explanation_type_has_exactly_the_declared_sections_in_page_order() -> None:
    names = [f.name for f in dataclasses.fields(Explanation) if f.name not in META]
    assert names == [section.name for section in SECTIONS]
    hints = typing.get_type_hints(Explanation)
    for section in SECTIONS:
        if section.parts:
            part_type = hints[section.name]
            assert [f.name for f in dataclasses.fields(part_type)] == [
                p.name for p in section.parts]
        elif section.kind is Kind.LIST:
            assert hints[section.name] == tuple[str, ...], section.name
        else:
            assert hints[section.name] is str, section.name


def test_the_model_is_asked_for_every_section() -> None:
    assert answer_schema() == SCHEMA
    assert SCHEMA["required"] == [section.name for section in SECTIONS]
    assert SCHEMA["properties"]["defensive"]["required"] == [
        "strategy", "validate", "type_guard", "try_catch"]


def test_the_checker_reads_every_checked_text() -> None:
    seen = {name for name, _, _ in checked_texts(_explanation())}
    assert seen == {f.name for f in checked_fields()}
    assert "defensive.strategy" not in seen  # declared unchecked
    code = {name for name, _, is_code in checked_texts(_explanation()) if is_code}
    assert code == {"example_fix.before", "example_fix.after", "defensive.validate",
                    "defensive.type_guard", "defensive.try_catch"}


def test_the_terminal_and_the_page_print_the_declared_titles() -> None:
    explanation = explanation_to_dict(_explanation())
    record = {"message": "m", "repo": "o/r", "kind": "raise", "exception": None, "id": "x",
              "sites": [], "explanation": explanation}
    text = terminal.record_text(record, terminal.Style(False))
    for name in ("what_it_means", "solutions", "example_fix", "prevention"):
        assert BY_NAME[name].title in text.splitlines(), name
    assert BY_NAME["trigger"].group in text.splitlines()
    source = environment().loader.get_source(environment(), "error.html")[0]  # type: ignore[union-attr]
    for literal in ("What it means", "Solutions", "Example fix", "Defensive patterns",
                    "Prevention", "When it happens"):
        assert literal not in source, literal  # titles come from the declaration
