"""The JSON contract holds what errdex actually serves and prints: every `/api` route of
the web app and `errdex show --json` / `explain --json` / `list --json`, on the fixture
repositories indexed for the golden pages (records with facts, history, removed ones),
validated against the JSON Schema that `/api/schema` publishes, which is generated from
the dataclasses. The schema is strict (no key it does not name, every key it names), so
a field added to the JSON but not to the types, or the other way round, fails here."""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from errdex import contract
from errdex.analyze.classes import CLASSES
from errdex.index import index_snapshot
from errdex.models import Listing, RecordVersion, Repository
from errdex.sections import SECTIONS
from errdex.serve.cli import main
from errdex.serve.web.app import create_app
from errdex.serve.web.views import ClassPage, ErrorPage, Health, RepoPage, SearchPage
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore
from tests.test_golden import REPOSITORIES

# What each route returns, by its path as the app declares it.
ROUTES: dict[str, Any] = {
    "/api/errors/{record_id}": ErrorPage,
    "/api/errors/{record_id}/versions": list[RecordVersion],
    "/api/search": SearchPage,
    "/api/match": contract.ExplainResult,
    "/api/repos": list[Repository],
    "/api/repos/{owner}/{name}": RepoPage,
    "/api/classes/{slug}": ClassPage,
    "/api/health": Health,
    "/api/schema": None,  # checked against the JSON Schema meta-schema
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("contract")
    path = tmp / "errdex.sqlite"
    with SQLiteStore(path) as store:
        for name, build in sorted(REPOSITORIES.items()):
            for root in build(tmp / name):
                (snapshot,) = resolve(str(root), SourceOptions(repo=f"fixtures/{name}"))
                index_snapshot(snapshot, store, workers=1)
    return path


@pytest.fixture(scope="module")
def client(db: Path) -> Iterator[TestClient]:
    with TestClient(create_app(db)) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def listing(db: Path) -> list[Listing]:
    with SQLiteStore(db, create=False) as store:
        return store.records()


@functools.cache
def _validator(tp: Any) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(contract.schema_for(tp))


def _valid(data: Any, tp: Any) -> None:
    error = jsonschema.exceptions.best_match(_validator(tp).iter_errors(data))
    if error is not None:
        raise error


def _escape(text: str) -> str:
    return str(escape(text))


def _get(client: TestClient, path: str, **params: str) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, (path, response.text)
    return response.json()


def test_the_published_schema_is_a_schema_of_every_contract(client: TestClient) -> None:
    published = _get(client, "/api/schema")
    jsonschema.Draft202012Validator.check_schema(published)
    assert published == json.loads(json.dumps(contract.schema()))
    names = set(published["$defs"])
    assert {"Record", "Site", "Explanation", "ExplainResult", "ErrorPage", "SearchPage",
            "RepoPage", "ClassPage", "Health", "Listing", "Repository", "SiteHit",
            "RecordVersion"} <= names
    record = published["$defs"]["Record"]
    assert record["additionalProperties"] is False
    assert {"message", "template", "placeholders", "status", "definition"} <= set(
        record["required"])  # the template's keys are the record's, and its status
    assert "site_urls" not in record["properties"]


def test_every_api_route_is_checked_here(client: TestClient) -> None:
    declared = {getattr(route, "path", "") for route in client.app.routes}  # type: ignore[attr-defined]
    assert {path for path in declared if path.startswith("/api/")} == set(ROUTES)


def test_every_api_response_holds_to_the_schema(client: TestClient,
                                                listing: list[Listing]) -> None:
    assert len(listing) > 20
    for row in listing:
        page = _get(client, f"/api/errors/{row.id}")
        _valid(page, ErrorPage)
        record = page["record"]
        values = {f"v.{p['name']}": "7" for p in record["placeholders"]}
        _valid(_get(client, f"/api/errors/{row.id}", site="1", **values), ErrorPage)
    repos = _get(client, "/api/repos")
    _valid(repos, list[Repository])
    for repo in repos:
        _valid(_get(client, f"/api/repos/{repo['repo']}"), RepoPage)
        for ref in repo["versions"]:
            page = _get(client, f"/api/repos/{repo['repo']}", version=ref)
            _valid(page, RepoPage)
            assert page["repo"]["ref"] == ref
    for slug, _, _ in CLASSES:
        _valid(_get(client, f"/api/classes/{slug}"), ClassPage)
    _valid(_get(client, "/api/health"), Health)
    modes = set()
    for q in ("", listing[0].message, "the flux capacitor overheated", "zzzz qqqq",
              listing[0].message.split()[0]):
        found = _get(client, "/api/search", q=q)
        _valid(found, SearchPage)
        modes.add(found["mode"])
    assert {"empty", "text", "none"} <= modes
    for row in listing[:10]:
        response = client.post("/api/match", json={"text": row.message, "limit": 3})
        assert response.status_code == 200
        _valid(response.json(), contract.ExplainResult)


def test_every_version_of_a_record_holds_to_the_schema(client: TestClient,
                                                       listing: list[Listing]) -> None:
    several = 0
    for row in listing:
        versions = _get(client, f"/api/errors/{row.id}/versions")
        _valid(versions, list[RecordVersion])
        several += len(versions) > 1
        for held in (v for v in versions if v["status"] != "absent"):
            page = _get(client, f"/api/errors/{row.id}", version=held["ref"])
            _valid(page, ErrorPage)
            assert page["version"] == held["ref"] and page["versions"] == versions
    assert several > 0  # the fixtures index some repository at two versions


def test_a_pasted_message_is_a_match_page_in_the_contract(client: TestClient,
                                                           listing: list[Listing]) -> None:
    literal = next(row for row in listing if "{" not in row.message and len(row.message) > 20)
    found = _get(client, "/api/search", q=literal.message)
    assert found["mode"] == "match"
    _valid(found, SearchPage)


def test_show_explain_and_list_json_hold_to_the_schema(
    db: Path, listing: list[Listing], capsys: pytest.CaptureFixture[str]
) -> None:
    for row in listing:
        out = io.StringIO()
        assert main(["--db", str(db), "show", row.id, "--json"], out) == 0
        _valid(json.loads(out.getvalue()), contract.Record)
    for row in listing[:10]:
        out = io.StringIO()
        assert main(["--db", str(db), "explain", row.message, "--json"], out) in (0, 1)
        _valid(json.loads(out.getvalue()), contract.ExplainResult)
    out = io.StringIO()
    assert main(["--db", str(db), "list", "--json"], out) == 0
    _valid(json.loads(out.getvalue()), list[Listing])
    with SQLiteStore(db, create=False) as store:
        versions = [(s.repo, s.ref) for s in store.snapshots()]
    assert len(versions) > len({repo for repo, _ in versions})  # some repository has two
    for repo, ref in versions:
        out = io.StringIO()
        assert main(["--db", str(db), "list", "--repo", repo, "--version", ref, "--json"],
                    out) == 0
        rows = json.loads(out.getvalue())
        _valid(rows, list[Listing])
        out = io.StringIO()
        assert main(["--db", str(db), "show", rows[0]["id"], "--version", ref, "--json"],
                    out) == 0
        _valid(json.loads(out.getvalue()), contract.Record)
    capsys.readouterr()


def test_the_schema_refuses_what_the_contract_does_not_say(
    db: Path, listing: list[Listing]
) -> None:
    with SQLiteStore(db, create=False) as store:
        record = contract.record_to_dict(store.record(listing[0].id))
    _valid(record, contract.Record)
    for broken in ({**record, "surprise": 1}, {k: v for k, v in record.items() if k != "status"},
                   {**record, "status": "deleted"},
                   {**record, "sites": [{**record["sites"][0], "line": "3"}]}):
        with pytest.raises(jsonschema.ValidationError):
            _valid(broken, contract.Record)


def test_records_round_trip_through_the_contract(db: Path, listing: list[Listing]) -> None:
    with SQLiteStore(db, create=False) as store:
        for row in listing:
            record = store.record(row.id)
            assert contract.record_from_dict(contract.record_to_dict(record)) == record
            assert json.loads(store.record_json(row.id)) == contract.record_to_dict(record)


def test_the_error_page_shows_every_declared_section(client: TestClient,
                                                     listing: list[Listing]) -> None:
    page = client.get(f"/errors/{listing[0].id}").text
    data = _get(client, f"/api/errors/{listing[0].id}")
    assert data["record"]["explanation"] is not None
    for section in SECTIONS:
        assert f'id="{section.anchor}"' in page, section.name
        if section.name != "summary":
            assert _escape(section.group or section.title) in page, section.name
        for part in section.parts:
            assert _escape(part.title) in page, part.name
    assert _escape(data["title"]) in page  # the page renders the data /api/errors gives
