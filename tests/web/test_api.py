"""The live server over real HTTP: the JSON API's shapes and failures, the pages'
escaping and security headers, and the CLI's `serve`/`export` edges."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import httpx
import pytest

from errdex.serve.cli import EXIT_STORE
from tests.web.conftest import COMMIT, Served, _errdex

INVALID_VERSION = "packaging.version.InvalidVersion: Invalid version: 'not a version'"


def _show(db: Path, record_id: str) -> dict[str, object]:
    done = _errdex("--db", str(db), "show", record_id, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def _match(served: Served, text: str) -> dict[str, object]:
    response = httpx.post(served.url + "/api/match", json={"text": text})
    assert response.status_code == 200, response.text
    data: dict[str, object] = response.json()
    return data


def _widget_id(served: Served, words: str) -> str:
    found = httpx.get(served.url + "/api/search", params={"q": words}).json()
    assert found["results"], found
    return str(found["results"][0]["id"])


def test_match_returns_the_explain_json_shape_and_the_record_as_show_prints_it(
    served: Served,
) -> None:
    result = _match(served, INVALID_VERSION)
    assert result["input"] == INVALID_VERSION
    first = result["matches"][0]  # type: ignore[index]
    assert first["exact"] and first["values"]
    assert first["record"] == _show(served.db, first["id"])
    api = httpx.get(f"{served.url}/api/errors/{first['id']}")
    assert api.headers["content-type"].startswith("application/json")
    page = api.json()  # the error page's data: the record as show prints it, and the page's
    assert page["record"] == _show(served.db, first["id"])
    assert page["title"].startswith('What causes "') and page["values"] == {}
    bound = httpx.get(f"{served.url}/api/errors/{first['id']}",
                      params={f"v.{k}": v for k, v in first["values"].items()}).json()
    assert bound["values"] == first["values"]
    assert [s["text"] for s in bound["segments"] if s["bound"]] == list(first["values"].values())


def test_search_tells_a_paste_from_words_from_nothing(served: Served) -> None:
    def search(q: str) -> dict[str, object]:
        data: dict[str, object] = httpx.get(served.url + "/api/search", params={"q": q}).json()
        return data

    pasted = search("ValueError: widget width must be positive, got -3")
    assert pasted["mode"] == "match"
    assert pasted["results"][0]["values"] == {"width": "-3"}  # type: ignore[index]
    assert search("exceeds maximum")["mode"] == "text"
    nothing = search("the flux capacitor overheated")
    assert nothing["mode"] == "none" and nothing["results"] == []


def test_repos_and_pages_of_repos_and_classes(served: Served) -> None:
    repos = {r["repo"]: r for r in httpx.get(served.url + "/api/repos").json()}
    assert repos["acme/widgets"]["records"] == 3
    page = httpx.get(served.url + "/api/repos/acme/widgets").json()
    assert page["total"] == 3 and page["files"][0]["path"] == "widgets/core.py"
    assert page["counts"] == {"raise": 3}
    html = httpx.get(served.url + "/repos/acme/widgets").text
    assert "widgets/core.py" in html and "3 raise" in html
    slug = _show(served.db, _widget_id(served, "widget width"))["failure_class"]["slug"]  # type: ignore[index]
    assert httpx.get(f"{served.url}/classes/{slug}").status_code == 200
    assert _widget_id(served, "widget width") in httpx.get(f"{served.url}/api/classes/{slug}").text


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/api/errors/0000000000000000", None, 404),
        ("GET", "/api/repos/nobody/nothing", None, 404),
        ("GET", "/api/classes/no-such-class", None, 404),
        ("GET", "/api/nowhere", None, 404),
        ("POST", "/api/match", {"text": "   "}, 422),
        ("POST", "/api/match", {"texte": "x"}, 422),
        ("POST", "/api/match", {"text": "x", "limit": 0}, 422),
        ("POST", "/api/match", "not json", 422),
        ("POST", "/api/match", {"text": "x" * 1_100_000}, 413),
        ("DELETE", "/api/repos", None, 405),
    ],
)
def test_every_api_failure_is_one_envelope_with_the_right_status(
    served: Served, method: str, path: str, body: object, status: int
) -> None:
    kwargs = {"content": body} if isinstance(body, str) else {"json": body}
    response = httpx.request(method, served.url + path, **kwargs)  # type: ignore[arg-type]
    assert response.status_code == status
    error = response.json()["error"]
    assert error["status"] == status and error["message"]
    assert "Traceback" not in response.text


def test_an_overlong_address_is_refused(served: Served) -> None:
    response = httpx.get(served.url + "/api/search", params={"q": "x" * 20_000})
    assert response.status_code == 414
    assert response.json()["error"]["status"] == 414


def test_a_missing_page_helps(served: Served) -> None:
    response = httpx.get(served.url + "/errors/0000000000000000")
    assert response.status_code == 404
    assert "text/html" in response.headers["content-type"]
    assert "paste it here" in response.text and 'name="q"' in response.text
    unknown_repo = httpx.get(served.url + "/repos/nobody/nothing")
    assert unknown_repo.status_code == 404 and "acme/widgets" in unknown_repo.text


def test_pages_carry_a_strict_content_security_policy(served: Served) -> None:
    for path in ("/", "/search?q=x", f"/errors/{_widget_id(served, 'widget width')}"):
        response = httpx.get(served.url + path)
        policy = response.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "unsafe" not in policy
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "<script" not in response.text and "style=" not in response.text


def test_indexed_and_pasted_markup_is_escaped(served: Served) -> None:
    record_id = _widget_id(served, "refusing render")
    page = httpx.get(f"{served.url}/errors/{record_id}").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page
    paste = "ValueError: widget width must be positive, got <img src=x onerror=alert(1)>"
    results = httpx.post(served.url + "/search", data={"q": paste}).text
    assert "&lt;img src=x onerror=alert(1)&gt;" in results
    assert not re.search(r"<img\b", results)


def test_a_site_links_to_github_pinned_to_the_commit(served: Served) -> None:
    page = httpx.get(f"{served.url}/errors/{_widget_id(served, 'widget width')}").text
    assert "View on GitHub (pinned to 1f2e3d4c5b)" in page
    assert f"https://github.com/acme/widgets/blob/{COMMIT}/widgets/core.py#L6" in page
    assert "acme/widgets</a>@1f2e3d4c5b" in page


def test_serve_without_a_database_fails_in_one_line(tmp_path: Path) -> None:
    done = _errdex("--db", str(tmp_path / "none.sqlite"), "serve", "--port", "1")
    assert done.returncode == EXIT_STORE
    assert done.stderr.count("\n") == 1 and "errdex index" in done.stderr


def test_export_refuses_a_directory_that_is_not_an_export(web_db: Path, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    done = _errdex("--db", str(web_db), "export", str(tmp_path))
    assert done.returncode == 2 and "not an errdex export" in done.stderr
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_export_writes_every_page_with_relative_links_and_the_json(served: Served) -> None:
    site = served.site
    listed = json.loads(_errdex("--db", str(served.db), "list", "--json").stdout)
    with httpx.Client(base_url=served.url) as client:
        for row in listed:
            assert (site / "errors" / f"{row['id']}.html").is_file()
            exported = json.loads((site / "api" / "errors" / f"{row['id']}.json").read_text())
            assert exported == client.get(f"/api/errors/{row['id']}").json()
    for page in site.rglob("*.html"):
        links = re.findall(r'(?:href|src|action)="([^"]*)"', page.read_text())
        local = [link for link in links if not link.startswith("https://")]
        assert all(not link.startswith("/") for link in local), (page, local)
    assert (site / "repos" / "acme" / "widgets.html").is_file()
    assert (site / "static" / "search-index.js").read_text().startswith("window.ERRDEX_INDEX")


def test_the_wheel_ships_the_templates_and_static_files(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                    "-w", str(tmp_path), str(root)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("errdex-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("templates/error.html", "templates/base.html", "static/style.css",
                 "static/search.js", "static/pygments.css"):
        assert f"errdex/serve/web/{name}" in names


def test_a_traceback_leads_to_the_site_it_was_raised_at(served: Served) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from packaging.version import Version; Version('not a version')"],
        capture_output=True, text=True, check=False,
    )
    frame_line = int(re.findall(r'version\.py", line (\d+)', done.stderr)[-1])
    results = httpx.post(served.url + "/search", data={"q": done.stderr}).text
    link = re.search(r'href="(/errors/[0-9a-f]{16}\?[^"]*site=\d+[^"]*)"', results)
    assert link is not None, "the result links to the site the traceback points at"
    page = httpx.get(served.url + html.unescape(link.group(1))).text
    focus = page.split('id="your-site"', 1)[1].split("</section>", 1)[0]
    assert f"packaging/version.py:{frame_line}" in focus
    assert "(your traceback)" in page
    # Without the frame, the same page names no site of its own.
    plain = httpx.get(served.url + html.unescape(link.group(1)).split("?")[0]).text
    assert 'id="your-site"' not in plain
