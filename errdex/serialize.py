"""Records to and from the JSON contract (`show --json`, each match's `record`, the API).

The contract is the one shape every consumer reads; the store keeps exactly this JSON,
so what is stored, printed and served can't drift apart.
"""

from __future__ import annotations

import re
from typing import Any

from errdex.factsjson import facts_from_dict, facts_to_dict, status_of
from errdex.models import (
    Defensive,
    ExampleFix,
    Explanation,
    FailureClass,
    Language,
    Location,
    Placeholder,
    Record,
    Related,
    Site,
    SiteKind,
    Snippet,
    Template,
)

_NAMED_HOLE = re.compile(r"\{\{|\}\}|\{([^{}]*)\}")


def template_to_dict(template: Template) -> dict[str, Any]:
    return {
        "message": template.message,
        "template": template.text,
        "placeholders": [
            {"name": p.name, "expression": p.expression, "spec": p.spec}
            for p in template.placeholders
        ],
    }


def template_from_dict(data: dict[str, Any]) -> Template:
    """Rebuild a Template from its named text (`{{`/`}}` are literal braces)."""
    literals = [""]
    for piece in _pieces(data["template"]):
        if piece is None:
            literals.append("")
        else:
            literals[-1] += piece
    placeholders = tuple(
        Placeholder(name=p["name"], expression=p.get("expression", ""), spec=p.get("spec", ""))
        for p in data.get("placeholders", [])
    )
    return Template(message=data["message"], literals=tuple(literals), placeholders=placeholders)


def _pieces(text: str) -> list[str | None]:
    """Literal strings, and None where a hole stands."""
    out: list[str | None] = []
    pos = 0
    for found in _NAMED_HOLE.finditer(text):
        out.append(text[pos : found.start()])
        token = found.group(0)
        out.append("{" if token == "{{" else "}" if token == "}}" else None)
        pos = found.end()
    out.append(text[pos:])
    return out


def site_to_dict(site: Site, url: str | None) -> dict[str, Any]:
    return {
        "path": site.path,
        "line": site.line,
        "end_line": site.end_line,
        "function": site.function,
        "guard": site.guard,
        "snippet": {"start_line": site.snippet.start_line, "code": site.snippet.code},
        "url": url,
        "kind": site.kind.value,
        "exception": site.exception,
        "bound": dict(site.bound),
        "variant": site.variant,
        "variant_fields": list(site.variant_fields),
    }


def _site_from_dict(data: dict[str, Any], language: Language, template: Template) -> Site:
    return Site(
        language=language,
        kind=SiteKind(data["kind"]),
        exception=data.get("exception"),
        template=template,
        path=data["path"],
        line=int(data["line"]),
        end_line=int(data["end_line"]),
        function=data.get("function"),
        guard=data.get("guard"),
        snippet=Snippet(start_line=data["snippet"]["start_line"], code=data["snippet"]["code"]),
        bound=tuple((str(k), str(v)) for k, v in data.get("bound", {}).items()),
        variant=data.get("variant"),
        variant_fields=tuple(data.get("variant_fields", ())),
    )


def explanation_to_dict(explanation: Explanation) -> dict[str, Any]:
    return {
        "summary": explanation.summary,
        "what_it_means": explanation.what_it_means,
        "solutions": list(explanation.solutions),
        "example_fix": {
            "before": explanation.example_fix.before,
            "after": explanation.example_fix.after,
        },
        "defensive": {
            "strategy": explanation.defensive.strategy,
            "validate": explanation.defensive.validate,
            "type_guard": explanation.defensive.type_guard,
            "try_catch": explanation.defensive.try_catch,
        },
        "prevention": list(explanation.prevention),
        "trigger": explanation.trigger,
        "common_situations": list(explanation.common_situations),
        "source": explanation.source,
        "model": explanation.model,
        "notes": list(explanation.notes),
    }


def _explanation_from_dict(data: dict[str, Any]) -> Explanation:
    return Explanation(
        summary=data["summary"],
        what_it_means=data["what_it_means"],
        solutions=tuple(data["solutions"]),
        example_fix=ExampleFix(**data["example_fix"]),
        defensive=Defensive(**data["defensive"]),
        prevention=tuple(data["prevention"]),
        trigger=data["trigger"],
        common_situations=tuple(data["common_situations"]),
        source=data.get("source", "facts"),
        model=data.get("model"),
        notes=tuple(data.get("notes", ())),
    )


def record_to_dict(record: Record) -> dict[str, Any]:
    return {
        "id": record.id,
        "repo": record.repo,
        "commit": record.commit,
        "commit_date": record.commit_date,
        "version": record.version,
        "language": record.language.value,
        "kind": record.kind.value,
        "exception": record.exception,
        **template_to_dict(record.template),
        "sites": [
            site_to_dict(site, url)
            for site, url in zip(record.sites, record.site_urls, strict=True)
        ],
        "explanation": explanation_to_dict(record.explanation) if record.explanation else None,
        "related": [
            {"id": r.id, "message": r.message, "reason": r.reason} for r in record.related
        ],
        "failure_class": (
            {"slug": record.failure_class.slug, "title": record.failure_class.title,
             "by": record.failure_class.by}
            if record.failure_class
            else None
        ),
        "status": status_of(record.facts),
        "facts": facts_to_dict(record.facts),
        "definition": (
            {"path": record.definition.path, "line": record.definition.line,
             "url": record.definition.url}
            if record.definition else None
        ),
    }


def record_from_dict(data: dict[str, Any]) -> Record:
    template = template_from_dict(data)
    language = Language(data["language"])
    sites = tuple(_site_from_dict(s, language, template) for s in data["sites"])
    failure = data.get("failure_class")
    return Record(
        id=data["id"],
        repo=data["repo"],
        commit=data.get("commit"),
        commit_date=data.get("commit_date"),
        version=data.get("version"),
        language=language,
        kind=SiteKind(data["kind"]),
        exception=data.get("exception"),
        template=template,
        sites=sites,
        site_urls=tuple(s.get("url") for s in data["sites"]),
        explanation=(
            _explanation_from_dict(data["explanation"]) if data.get("explanation") else None
        ),
        related=tuple(Related(**r) for r in data.get("related", [])),
        failure_class=FailureClass(**failure) if failure else None,
        facts=facts_from_dict(data.get("facts")),
        definition=Location(**data["definition"]) if data.get("definition") else None,
    )
