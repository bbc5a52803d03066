"""The FastAPI app: HTML pages and the JSON API over one store.

Each route calls one data function of `errdex.serve.web.pages` and renders its dict as HTML or
returns it as JSON. Routes are plain functions, which FastAPI runs in its thread pool:
store and matcher work never runs on the event loop, so one costly request cannot stall
the others; each worker thread has its own SQLite connection (`LiveIndex.store`). The
matcher is built at start and rebuilt by a watcher thread after a re-index
(`errdex.serve.web.live`). Every failure becomes `{"error": {"status", "message"}}` under
`/api/` and the problem page elsewhere; nothing internal (a traceback, a path) reaches a client.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from errdex import contract
from errdex.errors import ErrdexError, UsageError
from errdex.serve.web import pages
from errdex.serve.web.limits import MAX_BODY_BYTES, MAX_QUERY_CHARS, RequestLimits
from errdex.serve.web.live import RELOAD_CHECK_SECONDS, LiveIndex
from errdex.serve.web.methods import Methods
from errdex.serve.web.protocol import (
    BODY_TIMEOUT_SECONDS,
    HEADER_TIMEOUT_SECONDS,
    KEEP_ALIVE_SECONDS,
    deadline_protocol,
)
from errdex.serve.web.render import CSP, Links, render
from errdex.store import store_name

STATIC_DIR = Path(__file__).parent / "static"
LINKS = Links()
log = logging.getLogger("errdex.serve.web")

_HEADINGS = {400: "Bad request", 404: "Not found", 405: "Method not allowed",
             408: "Too slow", 413: "Too large", 414: "Address too long", 422: "Bad request",
             503: "Database unavailable"}


class ErrorBody(BaseModel):
    status: int
    message: str


class ErrorEnvelope(BaseModel):
    error: ErrorBody


class MatchRequest(BaseModel):
    text: str = Field(description="an error message, a traceback or a log", min_length=1,
                      max_length=MAX_QUERY_CHARS, pattern=r"\S")
    limit: int = Field(5, ge=1, le=50, description="how many matches to return")


_ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorEnvelope} for code in (400, 404, 413, 414, 422, 503)
}

_FORM = {"requestBody": {"required": False, "content": {"application/x-www-form-urlencoded": {
    "schema": {"type": "object", "properties": {"q": {"type": "string"}}}}}}}

SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}


def _html(template: str, data: dict[str, Any], status: int = 200) -> HTMLResponse:
    return HTMLResponse(render(template, data, LINKS), status_code=status)


def problem(request: Request, status: int, message: str,
            headers: Mapping[str, str] | None = None) -> Response:
    """The one failure shape: the JSON envelope for the API, the problem page else."""
    response: Response
    if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
        response = JSONResponse({"error": {"status": status, "message": message}},
                                status_code=status)
    else:
        data = {"status": status, "heading": _HEADINGS.get(status, "Something went wrong"),
                "message": message}
        response = _html("problem.html", data, status)
    response.headers.update(headers or {})
    return response


def _query(q: str) -> str:
    if len(q) > MAX_QUERY_CHARS:
        raise _TooLarge(f"the text is too long: at most {MAX_QUERY_CHARS:,} characters")
    return q


class _TooLarge(ErrdexError):
    http_status = 413


_VERSION = Query(None, max_length=200,
                 description="a version or commit of the repository (default: the newest)")


def create_app(db_path: str | Path, reload_check: float = RELOAD_CHECK_SECONDS) -> FastAPI:
    """An app over the database at `db_path`, which must exist (a missing or foreign
    file raises StoreError here, before anything is served). While the app runs, the
    database is checked for a re-index every `reload_check` seconds."""
    live = LiveIndex(db_path, reload_check)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        live.start()
        try:
            yield
        finally:
            await run_in_threadpool(live.stop)

    app = FastAPI(
        title="errdex", version="1", summary="Explain a library's errors from its code.",
        docs_url=None, redoc_url=None, lifespan=lifespan,
    )
    app.state.live = live
    app.add_middleware(Methods, routes=app.router.routes)
    app.add_middleware(RequestLimits, max_body=MAX_BODY_BYTES, headers=SECURITY_HEADERS)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.exception_handler(ErrdexError)
    async def _errdex(request: Request, exc: ErrdexError) -> Response:
        return problem(request, exc.http_status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        message = {404: f"nothing at {request.url.path}",
                   405: f"{request.method} is not allowed here"}.get(exc.status_code,
                                                                      str(exc.detail))
        return problem(request, exc.status_code, message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        message = f"{where}: {first.get('msg', 'invalid')}" if where else "invalid request"
        return problem(request, 422, message)

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> Response:
        log.exception("error serving %s", request.url.path)
        return problem(request, 500, "internal error")

    # -- pages --------------------------------------------------------------------------

    def search_data(q: str) -> dict[str, Any]:
        return pages.search_page(live.explainer(), _query(q))

    def error_data(record_id: str, request: Request, version: str | None) -> dict[str, Any]:
        params = list(request.query_params.multi_items())
        return pages.error_page(live.explainer(), record_id, pages.values_from_query(params),
                                pages.site_from_query(params), version)

    @app.get("/", response_class=HTMLResponse, tags=["pages"])
    def home() -> HTMLResponse:
        return _html("home.html", pages.home_page(live.explainer()))

    @app.get("/search", response_class=HTMLResponse, tags=["pages"], responses=_ERRORS)
    def search(q: str = Query("", description="pasted text or words")) -> HTMLResponse:
        return _html("search.html", search_data(q))

    @app.post("/search", response_class=HTMLResponse, tags=["pages"], responses=_ERRORS,
              openapi_extra=_FORM)
    async def search_form(request: Request) -> HTMLResponse:
        # The paste box posts (a log is too long for a URL); parsed by hand, as a plain
        # urlencoded form needs no multipart library.
        body = (await request.body()).decode("utf-8", "replace")
        q = next((v for k, v in parse_qsl(body, keep_blank_values=True) if k == "q"), "")
        return _html("search.html", await run_in_threadpool(search_data, q))

    @app.get("/errors/{record_id}", response_class=HTMLResponse, tags=["pages"],
             responses=_ERRORS)
    def error(record_id: str, request: Request, version: str | None = _VERSION) -> HTMLResponse:
        return _html("error.html", error_data(record_id, request, version))

    @app.get("/repos/{owner}/{name}", response_class=HTMLResponse, tags=["pages"],
             responses=_ERRORS)
    def repo(owner: str, name: str, version: str | None = _VERSION) -> HTMLResponse:
        return _html("repo.html", pages.repo_page(live.explainer(), f"{owner}/{name}",
                                                  version))

    @app.get("/classes/{slug}", response_class=HTMLResponse, tags=["pages"],
             responses=_ERRORS)
    def failure_class(slug: str) -> HTMLResponse:
        return _html("class.html", pages.class_page(live.explainer(), slug))

    # -- JSON ---------------------------------------------------------------------------

    @app.get("/api/errors/{record_id}", tags=["api"], responses=_ERRORS)
    def api_error(record_id: str, request: Request,
                  version: str | None = _VERSION) -> dict[str, Any]:
        """The error page's data, exactly what its HTML renders: `record` is the record
        as `errdex show --json` prints it, at the repository's newest indexed version or
        at `version`; `v.<name>` and `site` parameters bind a paste's values and site as
        on the page."""
        return error_data(record_id, request, version)

    @app.get("/api/errors/{record_id}/versions", tags=["api"], responses=_ERRORS)
    def api_error_versions(record_id: str) -> list[dict[str, Any]]:
        """In which indexed versions of its repository the message is (oldest first):
        `status` current, removed or absent; `changed`: its sites differ from the
        version before that had it."""
        return [contract.to_json(row) for row in live.explainer().record_versions(record_id)]

    @app.get("/api/search", tags=["api"], responses=_ERRORS)
    def api_search(q: str = Query("", description="pasted text or words")) -> dict[str, Any]:
        """The search page's data: `mode` is match, text, none or empty; `terms` are the
        words a text search used (each once, lower-cased, at most the first 32)."""
        return search_data(q)

    @app.post("/api/match", tags=["api"], responses=_ERRORS)
    def api_match(body: MatchRequest) -> dict[str, Any]:
        """The `errdex explain --json` shape for the text."""
        return live.explainer().explain(_query(body.text), body.limit)

    @app.get("/api/repos", tags=["api"], responses=_ERRORS)
    def api_repos() -> list[dict[str, Any]]:
        return live.explainer().repositories()

    @app.get("/api/repos/{owner}/{name}", tags=["api"], responses=_ERRORS)
    def api_repo(owner: str, name: str, version: str | None = _VERSION) -> dict[str, Any]:
        """The repository page's data: its errors (at the newest indexed version, or at
        `version`) grouped by file, and all its indexed versions."""
        return pages.repo_page(live.explainer(), f"{owner}/{name}", version)

    @app.get("/api/classes/{slug}", tags=["api"], responses=_ERRORS)
    def api_class(slug: str) -> dict[str, Any]:
        return pages.class_page(live.explainer(), slug)

    @app.get("/api/health", tags=["api"], responses=_ERRORS)
    def api_health() -> dict[str, Any]:
        """The snapshots served (repo, commit, version, indexed_at, record count), the
        served generation (one more after each reload) and whether a reload runs."""
        return pages.page_json(live.health())

    @app.get("/api/schema", tags=["api"])
    def api_schema() -> dict[str, Any]:
        """The JSON Schema of every response above (`$defs`: Record, ExplainResult,
        SearchPage, ErrorPage, RepoPage, ClassPage, Health, Listing, Repository,
        RecordVersion),
        generated from errdex's dataclasses."""
        return contract.schema()

    return app


def serve(db_path: str | Path, host: str, port: int, *,
          header_timeout: float = HEADER_TIMEOUT_SECONDS,
          body_timeout: float = BODY_TIMEOUT_SECONDS,
          keep_alive: float = KEEP_ALIVE_SECONDS, workers: int = 1) -> None:
    """Run the app with uvicorn until interrupted (the CLI's `serve`). A client that has
    not sent a request's headers within `header_timeout` seconds, or its body within
    `body_timeout`, is disconnected; an idle connection is closed after `keep_alive`.
    With several `workers`, each is a process of its own (`errdex.serve.web.workers`)."""
    import uvicorn

    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535, not {port}")
    for name, value in (("--header-timeout", header_timeout), ("--body-timeout", body_timeout),
                        ("--keep-alive-timeout", keep_alive)):
        if value <= 0:
            raise UsageError(f"{name} must be positive, not {value}")
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, not {workers}")
    if workers > 1:
        from errdex.serve.web.workers import run_workers

        run_workers(db_path, host, port, workers, header_timeout=header_timeout,
                    body_timeout=body_timeout, keep_alive=keep_alive)
        return
    app = create_app(db_path)
    print(f"errdex: serving {store_name(db_path)} at http://{host}:{port}/", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False,
                http=deadline_protocol(header_timeout, body_timeout),
                timeout_keep_alive=int(keep_alive))
