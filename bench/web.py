"""Throughput and latency of the web app, measured from a second process.

Starts `errdex serve` (uvicorn, one process, 127.0.0.1) over a real indexed database,
then a separate load-generator process opens keep-alive connections and requests each
route for a fixed time. Prints requests/s, p50 and p99 per route, and each route's
throughput as a ratio of the baseline measured in the same run: a static file served by
the same app (`/static/style.css`), which costs the framework and nothing of errdex.

    python bench/web.py [--db PATH] [--seconds 5] [--connections 8]

Without --db it indexes py:stdlib and py:packaging into a temporary database first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


async def _one_connection(host: str, port: int, path: str, deadline: float,
                          latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
    try:
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length:"))
            await reader.readexactly(length)
            if status != 200:
                raise RuntimeError(f"{path} answered {status}")
            latencies.append(time.perf_counter() - start)
    finally:
        writer.close()


async def _load(host: str, port: int, path: str, seconds: float, connections: int
                ) -> dict[str, float]:
    latencies: list[float] = []
    start = time.perf_counter()
    deadline = start + seconds
    await asyncio.gather(*(_one_connection(host, port, path, deadline, latencies)
                           for _ in range(connections)))
    elapsed = time.perf_counter() - start
    latencies.sort()
    return {
        "requests": len(latencies),
        "rps": len(latencies) / elapsed,
        "p50_ms": statistics.median(latencies) * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99) - 1] * 1000,
    }


def client_main(args: argparse.Namespace) -> None:
    """The second process: load each path in turn, print one JSON line per path."""
    for path in args.paths:
        asyncio.run(_load(args.host, args.port, path, 0.5, args.connections))  # warm up
        result = asyncio.run(_load(args.host, args.port, path, args.seconds, args.connections))
        print(json.dumps({"path": path, **result}), flush=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _errdex(db: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-m", "errdex", "--db", str(db), *args],
                          check=True, capture_output=True, text=True).stdout


def _wait(port: int) -> None:
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--client", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--host", default="127.0.0.1", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.client:
        client_main(args)
        return

    with tempfile.TemporaryDirectory() as tmp:
        db = args.db
        if db is None:
            db = Path(tmp) / "bench.sqlite"
            print("indexing py:stdlib py:packaging ...", flush=True)
            _errdex(db, "index", "py:stdlib", "py:packaging")
        # A record with several sites and related errors: a page of realistic weight.
        record = next(r for r in json.loads(_errdex(db, "list", "--json")) if r["site_count"] > 1)
        port = _free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "errdex", "--db", str(db), "serve", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ})
        try:
            _wait(port)
            paths = ["/static/style.css", f"/api/errors/{record['id']}",
                     f"/errors/{record['id']}"]
            client = subprocess.run(
                [sys.executable, __file__, "--client", "--port", str(port), "--seconds",
                 str(args.seconds), "--connections", str(args.connections), *paths],
                check=True, capture_output=True, text=True)
        finally:
            server.terminate()
            server.wait(timeout=10)
    results = [json.loads(line) for line in client.stdout.splitlines()]
    baseline = results[0]["rps"]
    print(f"{os.cpu_count()} cores, 1 server process, {args.connections} keep-alive "
          f"connections from a second process, {args.seconds:g} s per route")
    print(f"{'route':40} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'vs static':>10}")
    for row in results:
        name = row["path"].replace(record["id"], "<id>")
        print(f"{name:40} {row['rps']:8.0f} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f} "
              f"{row['rps'] / baseline:9.2f}x")


if __name__ == "__main__":
    main()
