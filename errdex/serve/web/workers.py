"""`errdex serve --workers N`: N uvicorn worker processes behind one listening socket, each
with its own app (its own matcher, watcher and store connections) over the same database.

uvicorn starts each worker by spawning a fresh interpreter and importing the app by name,
so what the app needs travels in one environment variable (WORKER_ENV): the database
(a SQLite path or a PostgreSQL URL) and the request deadlines. The database is opened once
in the parent first, so a missing or unreachable one fails in one line before any worker
starts. Several workers suit PostgreSQL best (every worker's readers and the indexer's
writer are the server's business); over SQLite they share one file's read locks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from errdex.serve.web.protocol import DeadlineH11Protocol
from errdex.store import open_store, store_name

WORKER_ENV = "ERRDEX_SERVE_WORKER"  # internal: set by `run_workers` for its workers


def run_workers(db_path: str | Path, host: str, port: int, workers: int, *,
                header_timeout: float, body_timeout: float, keep_alive: float) -> None:
    """Serve with `workers` processes until interrupted."""
    import uvicorn

    open_store(db_path, create=False).close()  # fail here, in one line, not in N workers
    os.environ[WORKER_ENV] = json.dumps({"db": str(db_path), "header": header_timeout,
                                         "body": body_timeout})
    print(f"errdex: serving {store_name(db_path)} at http://{host}:{port}/ with {workers} "
          "worker processes", flush=True)
    uvicorn.run("errdex.serve.web.workers:worker_app", factory=True, workers=workers,
                host=host, port=port, log_level="warning", server_header=False,
                http=DeadlineH11Protocol, timeout_keep_alive=int(keep_alive))


def worker_app() -> FastAPI:
    """One worker's app (uvicorn's factory, called in the worker process)."""
    from errdex.serve.web.app import create_app

    given: dict[str, Any] = json.loads(os.environ[WORKER_ENV])
    # The worker's own class: uvicorn's config (pickled to the worker) names the protocol
    # class, and these deadlines are this server's.
    DeadlineH11Protocol.header_timeout = float(given["header"])
    DeadlineH11Protocol.body_timeout = float(given["body"])
    return create_app(given["db"])
