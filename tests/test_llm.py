"""The LLM writer against a real OpenAI-compatible HTTP server on 127.0.0.1 that returns
scripted answers: valid sections are stored, sections citing names the code lacks are
rejected (the facts writer's stay, and the record says why), a failing or absent endpoint
never breaks indexing, and answers are cached by facts+model+prompt version."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from errdex.contract import record_to_dict
from errdex.serve.cli import main
from errdex.store import SQLiteStore
from tests.analysis_repos import commit, init, rust_version

GOOD = {
    "summary": "`q` and `k` reach `Attention::check` with different dtypes",
    "what_it_means": "`Attention::check` compares `q.dtype()` with `k.dtype()` and bails "
                     "when they differ.",
    "solutions": ["Convert `k` to the dtype of `q` before calling `Model::forward`."],
    "example_fix": {"before": "attn.check(&q, &k, false)?;",
                    "after": "if q.dtype() == k.dtype() {\n    attn.check(&q, &k, false)?;\n}"},
    "defensive": {"strategy": "validation",
                  "validate": "if q.dtype() != k.dtype() {\n    return Err(e.into());\n}",
                  "type_guard": "fn same_dtype(q: &Tensor, k: &Tensor) -> bool {\n"
                                "    q.dtype() == k.dtype()\n}",
                  "try_catch": "match attn.check(&q, &k, false) {\n    Ok(v) => v,\n"
                               "    Err(e) => return Err(e.into()),\n}"},
    "prevention": ["Build `q` and `k` from tensors of one dtype."],
    "trigger": "Calling `Model::forward` with `q` in f32 and `k` in f16.",
    "common_situations": ["Loading half of the weights in f16"],
}
INVENTED = {**GOOD,
            "summary": "`kv_repeat` in `Config` must be 1",
            "solutions": ["Call `Config::with_kv_repeat_auto` or pass `--kv-repeat-auto`."],
            "prevention": ["Set the `CANDLE_KV_REPEAT` environment variable to 1."]}


class _Scripted(BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        type(self).requests.append(prompt)
        message = json.loads(prompt)["message"]
        assert body["response_format"]["type"] == "json_schema"
        if "MODEL_DIR is not set" in message:
            self.send_response(500)
            self.end_headers()
            return
        if "q and k must have the same dtype" in message:
            content = json.dumps(GOOD)
        elif "only kv-repeat" in message:
            content = json.dumps(INVENTED)
        else:
            content = json.dumps({"summary": 5})  # an object, but not the schema's
        data = json.dumps({"choices": [{"message": {"content": content}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 20}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def server() -> Iterator[str]:
    _Scripted.requests = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Scripted)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    init(root)
    rust_version(root, "v2")
    commit(root, "v2", "2024-02-01T12:00:00+00:00")
    return root


def _env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("ERRDEX_LLM_URL", url)
    monkeypatch.setenv("ERRDEX_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("ERRDEX_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("ERRDEX_LLM_RETRIES", "2")


def _pages(db: Path) -> dict[str, dict[str, Any]]:
    with SQLiteStore(db) as store:
        return {row.message: record_to_dict(store.record(row.id))["explanation"]
                for row in store.records("t/rust")}


def test_valid_answers_stored_invented_names_rejected_failures_fall_back(
    server: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _env(monkeypatch, server)
    db = tmp_path / "db.sqlite"
    assert main(["--db", str(db), "index", str(repo), "--repo", "t/rust", "--llm"]) == 0
    out = capsys.readouterr().out
    assert "tokens 400 in / 80 out" in out  # 4 answered calls; the 500s carry no usage
    pages = _pages(db)

    good = pages["q and k must have the same dtype"]
    assert (good["source"], good["model"], good["notes"]) == ("llm", "scripted-1", [])
    assert good["summary"] == GOOD["summary"]
    assert good["defensive"]["type_guard"] == GOOD["defensive"]["type_guard"]

    invented = pages["only kv-repeat = 1 is supported"]
    assert invented["source"] == "llm"
    assert invented["summary"] == INVENTED["summary"]  # every name in it exists
    assert invented["solutions"] != INVENTED["solutions"]  # the facts writer's instead
    assert invented["solutions"][0] == (
        "Call `Model::forward` with arguments for which `kv_repeat` is 1.")
    assert invented["notes"] == [
        "llm: solutions: names not in the code (`auto`, `with_kv_repeat_auto`); "
        "facts writer used",
        "llm: prevention: names not in the code (`CANDLE_KV_REPEAT`); facts writer used",
    ]

    failed = pages["MODEL_DIR is not set to a directory"]
    assert failed["source"] == "facts"
    assert failed["notes"] == ["llm: endpoint failed (HTTP 500); facts writer used"]
    malformed = pages["q and k last dims must match"]
    assert malformed["source"] == "facts"
    assert "llm: summary: missing or malformed; facts writer used" in malformed["notes"]

    # Nothing the model wrote that survived names anything the code lacks.
    assert main(["--db", str(db), "check"]) == 0


def test_answers_are_cached_by_facts_and_model(
    server: str, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    _env(monkeypatch, server)
    db = tmp_path / "db.sqlite"
    assert main(["--db", str(db), "index", str(repo), "--repo", "t/rust", "--llm"]) == 0
    first = len(_Scripted.requests)
    assert main(["--db", str(db), "analyze", "--repo", "t/rust", "--llm"]) == 0
    # Only the failing endpoint is asked again (3 attempts); answers came from the cache.
    assert len(_Scripted.requests) - first == 3
    assert _pages(db)["q and k must have the same dtype"]["summary"] == GOOD["summary"]
    monkeypatch.setenv("ERRDEX_LLM_MODEL", "another-model")
    assert main(["--db", str(db), "analyze", "--llm"]) == 0
    assert len(_Scripted.requests) - first == 3 + 3 + 4  # a new model asks again
    assert main(["--db", str(db), "analyze"]) == 0  # back to the facts writer
    assert _pages(db)["q and k must have the same dtype"]["source"] == "facts"


def test_an_absent_endpoint_never_breaks_indexing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    _env(monkeypatch, f"http://127.0.0.1:{port}/v1")
    db = tmp_path / "db.sqlite"
    assert main(["--db", str(db), "index", str(repo), "--repo", "t/rust", "--llm"]) == 0
    assert "cannot reach" in capsys.readouterr().err
    assert all(p["source"] == "facts" and p["notes"] for p in _pages(db).values())


def test_llm_needs_its_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("ERRDEX_LLM_URL", raising=False)
    db = tmp_path / "db.sqlite"
    SQLiteStore(db).close()
    assert main(["--db", str(db), "analyze", "--llm"]) == 2
    assert "ERRDEX_LLM_URL" in capsys.readouterr().err
