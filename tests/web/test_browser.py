"""The pages driven in a real headless Chromium (Debian's `chromium`, through Playwright):
a user's walk from a pasted error to its page, a related error and its JSON, on the live
server and on the exported site opened from disk; markup in indexed messages and in
pastes stays text; no page scrolls sideways at phone width. Screenshots go to
`artifacts/` for a human to look at."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.conftest import ARTIFACTS, Served

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--no-first-run", "--disable-sync"]
SECTIONS = ("summary", "message", "meaning", "source", "solutions", "example-fix",
            "defensive", "prevention", "when", "failure-class", "related", "analysis")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium "
                                "(.ci/run installs it)")

if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, sync_playwright


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport=DESKTOP)
    opened = context.new_page()
    opened.dialogs = []  # type: ignore[attr-defined]
    opened.on("dialog", lambda d: (opened.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
    yield opened
    context.close()


def _real_traceback() -> str:
    """A real InvalidVersion traceback, raised by the installed packaging."""
    done = subprocess.run(
        [sys.executable, "-c", "from packaging.version import Version; Version('not a version')"],
        capture_output=True, text=True, check=False)
    assert "InvalidVersion" in done.stderr
    return done.stderr


def _shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _fits_phone(page: Page, name: str) -> None:
    page.set_viewport_size(PHONE)
    _shot(page, name + "-phone")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{name} scrolls sideways by {overflow}px at 390px"
    page.set_viewport_size(DESKTOP)


def _walk(page: Page, home: str, label: str) -> None:
    page.goto(home)
    assert page.locator("main h1").count() == 1
    assert page.get_by_label("Paste an error, a traceback or a log").count() == 1
    _shot(page, f"{label}-home")
    _fits_phone(page, f"{label}-home")

    page.get_by_label("Paste an error, a traceback or a log").fill(_real_traceback())
    page.get_by_role("button", name="Explain").click()
    page.wait_for_load_state()
    first = page.locator("ol.results li a").first
    assert "not a version" in first.inner_text()
    assert page.locator("ol.results mark.value").count() >= 1
    _shot(page, f"{label}-search")
    _fits_phone(page, f"{label}-search")

    first.click()
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith('What causes "')
    for section in SECTIONS:
        assert page.locator(f"#{section}").inner_text().strip(), f"#{section} is empty"
    values = page.locator("#your-values")
    assert values.is_visible() and "not a version" in values.inner_text()
    assert "not a version" in page.locator("#message mark.value").inner_text()
    assert "Thrown at packaging/version.py:" in page.locator("#source").inner_text()
    assert page.locator("#source .snippet .hll").count() >= 1
    assert page.locator("#source .linenos").count() >= 1
    report = page.get_by_role("link", name="Report an issue").get_attribute("href") or ""
    assert report.startswith("https://github.com/") and "title=" in report
    _shot(page, f"{label}-error")
    _fits_phone(page, f"{label}-error")

    title = page.locator("h1").inner_text()
    page.locator("#related a").first.click()
    page.wait_for_load_state()
    title_of_related = page.locator("h1").inner_text()
    assert title_of_related != title
    record_id = page.url.split("/")[-1].split(".")[0].split("?")[0]
    page.locator("#json-link").click()
    page.wait_for_load_state()
    data = json.loads(page.locator("body").inner_text())  # the page's own data
    assert data["record"]["id"] == record_id and data["record"]["sites"]
    assert data["title"] == title_of_related
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_paste_to_page_to_related_to_json_on_the_server(page: Page, served: Served) -> None:
    _walk(page, served.url + "/", "server")


def test_the_same_walk_on_the_exported_site_from_disk(page: Page, served: Served) -> None:
    _walk(page, (served.site / "index.html").as_uri(), "export")


def _check_markup_stays_text(page: Page, search_home: str, error_url: str) -> None:
    page.goto(search_home)
    paste = "ValueError: widget width must be positive, got <img src=x onerror=alert(1)>"
    page.get_by_label("Paste an error, a traceback or a log").fill(paste)
    page.get_by_role("button", name="Explain").click()
    page.wait_for_load_state()
    assert page.locator("main img").count() == 0
    assert "<img src=x onerror=alert(1)>" in page.locator("ol.results").inner_text()
    page.locator("ol.results li a").first.click()
    page.wait_for_load_state()
    assert page.locator("main img").count() == 0
    assert "<img src=x onerror=alert(1)>" in page.locator("#your-values").inner_text()
    page.goto(error_url)
    assert page.locator("main script").count() == 0
    assert "<script>alert(1)</script>" in page.locator("#message").inner_text()
    assert page.dialogs == []  # type: ignore[attr-defined]


def _script_record(served: Served) -> str:
    import httpx

    found = httpx.get(served.url + "/api/search", params={"q": "refusing render"}).json()
    return str(found["results"][0]["id"])


def test_markup_in_messages_and_pastes_stays_text_on_the_server(
    page: Page, served: Served
) -> None:
    record_id = _script_record(served)
    _check_markup_stays_text(page, served.url + "/", f"{served.url}/errors/{record_id}")


def test_markup_in_messages_and_pastes_stays_text_on_the_export(
    page: Page, served: Served
) -> None:
    record_id = _script_record(served)
    _check_markup_stays_text(page, (served.site / "index.html").as_uri(),
                             (served.site / "errors" / f"{record_id}.html").as_uri())


def test_nothing_found_says_so_and_offers_the_closest(page: Page, served: Served) -> None:
    page.goto(served.url + "/")
    page.get_by_label("Paste an error, a traceback or a log").fill("widget frobnicator jammed")
    page.get_by_role("button", name="Explain").click()
    page.wait_for_load_state()
    assert "No indexed error matches this text" in page.locator("#search-results").inner_text()
    assert page.locator("ol.results li").count() >= 1
