"""The optional LLM writer: any OpenAI-compatible chat endpoint (hosted, vLLM, Ollama,
llama.cpp server) rewrites a page's prose from the record's facts and code.

The model's answer is structured (a JSON schema) and checked section by section with
`errdex.analyze.check`: a section naming an identifier, path or option the code doesn't have is
rejected and the facts writer's section stays, and the record keeps why
(`explanation.notes`). Answers are cached by a hash of (facts, model, prompt version),
so re-indexing a new commit only asks about what changed. A failing endpoint never fails
the caller: the record keeps its facts-written page with a note.

Configured by ERRDEX_LLM_URL (the base URL, e.g. http://127.0.0.1:8000/v1),
ERRDEX_LLM_MODEL and ERRDEX_LLM_API_KEY (ERRDEX_LLM_CONCURRENCY, ERRDEX_LLM_RETRIES and
ERRDEX_LLM_BACKOFF tune the calls). Only the standard library talks HTTP here.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from errdex.analyze.check import unknown_names
from errdex.analyze.snapshot import rewrite_with_facts
from errdex.contract import explanation_to_dict, record_to_dict
from errdex.errors import ConfigError
from errdex.models import Defensive, ExampleFix, Explanation, Record
from errdex.sections import Kind, answer_schema, checked_fields
from errdex.store import Store

PROMPT_VERSION = "1"
Progress = Callable[[str, int, int, str], None]

_SYSTEM = (
    "You explain one error of a software library to a developer who hit it. Write ONLY "
    "from the facts and code given: never name a function, method, type, option, flag, "
    "file or environment variable that does not appear in them. Put code names in "
    "backticks. Code fields are short snippets in the library's language. Answer with JSON "
    "matching the schema."
)
SCHEMA: dict[str, Any] = answer_schema()  # the sections, declared in errdex.sections


@dataclass(frozen=True)
class LLMConfig:
    url: str
    model: str
    api_key: str | None = None
    concurrency: int = 4
    retries: int = 3
    timeout: float = 120.0
    backoff: float = 1.0  # seconds before the first retry; doubles each time


def config_from_env(environ: dict[str, str] | None = None) -> LLMConfig:
    env = os.environ if environ is None else environ
    url, model = env.get("ERRDEX_LLM_URL", "").strip(), env.get("ERRDEX_LLM_MODEL", "").strip()
    if not url or not model:
        raise ConfigError("--llm needs ERRDEX_LLM_URL and ERRDEX_LLM_MODEL "
                          "(an OpenAI-compatible endpoint and a model name)")
    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"ERRDEX_LLM_URL must be an http(s) URL, not {url!r}")
    try:
        return LLMConfig(
            url=url, model=model, api_key=env.get("ERRDEX_LLM_API_KEY") or None,
            concurrency=int(env.get("ERRDEX_LLM_CONCURRENCY", "4")),
            retries=int(env.get("ERRDEX_LLM_RETRIES", "3")),
            backoff=float(env.get("ERRDEX_LLM_BACKOFF", "1.0")),
        )
    except ValueError as exc:
        raise ConfigError(f"ERRDEX_LLM_CONCURRENCY, _RETRIES, _BACKOFF: {exc}") from None


@dataclass
class LLMStats:
    asked: int = 0
    cached: int = 0
    failed: int = 0
    rejected_sections: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    errors: list[str] = field(default_factory=list)


class EndpointError(Exception):
    """The endpoint did not give a usable answer (after retries)."""


def _prompt(record: dict[str, Any]) -> str:
    facts = {
        "repo": record["repo"], "language": record["language"], "kind": record["kind"],
        "exception": record["exception"], "message": record["message"],
        "facts": record.get("facts"),
        "sites": [{"path": s["path"], "line": s["line"], "function": s["function"],
                   "guard": s["guard"], "code": s["snippet"]["code"]}
                  for s in record["sites"][:3]],
        "draft": record.get("explanation"),  # the facts writer's page, to improve on
    }  # fmt: skip
    return json.dumps(facts, ensure_ascii=False)


def cache_key(record: dict[str, Any], model: str) -> str:
    text = _prompt(record) + "\x00" + model + "\x00" + PROMPT_VERSION
    return "llm:" + hashlib.sha256(text.encode()).hexdigest()


def _endpoint(url: str) -> str:
    url = url.rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def ask(config: LLMConfig, prompt: str) -> tuple[dict[str, Any], int, int]:
    """(the answer object, prompt tokens, completion tokens); EndpointError when the
    endpoint fails after the retries."""
    body = json.dumps({
        "model": config.model, "temperature": 0,
        "messages": [{"role": "system", "content": _SYSTEM},
                     {"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "explanation", "strict": True, "schema": SCHEMA}},
    }).encode()  # fmt: skip
    headers = {"Content-Type": "application/json"}
    if config.api_key:
        headers["Authorization"] = f"Bearer {config.api_key}"
    delay, last = config.backoff, "no attempt"
    for attempt in range(config.retries + 1):
        if attempt:
            time.sleep(delay)
            delay *= 2
        request = urllib.request.Request(_endpoint(config.url), body, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=config.timeout) as response:
                data = json.loads(response.read())
            content = data["choices"][0]["message"]["content"]
            answer = json.loads(content) if isinstance(content, str) else content
            if not isinstance(answer, dict):
                raise ValueError("the answer is not a JSON object")
            usage = data.get("usage") or {}
            return answer, int(usage.get("prompt_tokens", 0)), int(
                usage.get("completion_tokens", 0))
        except urllib.error.HTTPError as exc:
            last = f"HTTP {exc.code}"
            if exc.code < 500 and exc.code != 429:
                break  # a bad request won't get better by asking again
        except (urllib.error.URLError, OSError, TimeoutError) as exc:
            last = f"cannot reach {config.url}: {getattr(exc, 'reason', exc)}"
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            last = f"unusable answer: {exc}"
    raise EndpointError(last)


def merge(record: dict[str, Any], answer: dict[str, Any], vocabulary: frozenset[str],
          model: str) -> Explanation:
    """The facts page with every section of `answer` that passes the check swapped in."""
    base = explanation_to_dict(_facts_explanation(record))
    merged = json.loads(json.dumps(base))
    notes: list[str] = []
    used = 0
    for text in checked_fields():
        name = text.name
        group, _, key = name.partition(".")
        value = (answer.get(group) or {}).get(key) if key else answer.get(name)
        expected_list = text.kind is Kind.LIST
        if (expected_list and not (isinstance(value, list) and value
                                   and all(isinstance(v, str) for v in value))) or (
                not expected_list and not (isinstance(value, str) and value.strip())):
            notes.append(f"llm: {name}: missing or malformed; facts writer used")
            continue
        trial = json.loads(json.dumps(base))
        if key:
            trial[group][key] = value
        else:
            trial[name] = value
        bad = sorted({u.name for u in unknown_names(record, vocabulary, trial)
                      if u.section == name})  # fmt: skip
        if bad:
            listed = ", ".join(f"`{b}`" for b in bad[:5])
            notes.append(f"llm: {name}: names not in the code ({listed}); facts writer used")
            continue
        if key:
            merged[group][key] = value
        else:
            merged[name] = value
        used += 1
    return Explanation(
        summary=merged["summary"], what_it_means=merged["what_it_means"],
        solutions=tuple(merged["solutions"]),
        example_fix=ExampleFix(**merged["example_fix"]),
        defensive=Defensive(**merged["defensive"]),
        prevention=tuple(merged["prevention"]), trigger=merged["trigger"],
        common_situations=tuple(merged["common_situations"]),
        source="llm" if used else "facts", model=model, notes=tuple(notes),
    )  # fmt: skip


def _facts_explanation(record: dict[str, Any]) -> Explanation:
    from errdex.contract import record_from_dict

    explanation = record_from_dict(record).explanation
    if explanation is None:
        raise ValueError("record has no explanation")
    return replace(explanation, source="facts", model=None, notes=())


def rewrite(
    store: Store, config: LLMConfig, records: Sequence[Record],
    progress: Progress | None = None,
) -> tuple[list[Record], LLMStats]:
    """`records` with their prose rewritten by the model where it passes the check."""
    stats = LLMStats()
    records = rewrite_with_facts(records)
    vocabularies: dict[str, frozenset[str]] = {}
    for record in records:
        if record.repo not in vocabularies:
            vocabularies[record.repo] = store.vocabulary(record.repo)
    dicts = []
    for record in records:
        data = record_to_dict(record)
        dicts.append(data)
    answers: dict[int, dict[str, Any] | str] = {}
    todo: list[int] = []
    for i, data in enumerate(dicts):
        if data.get("explanation") is None or data.get("status") == "removed":
            continue
        cached = store.cache_get(cache_key(data, config.model))
        if cached is not None:
            answers[i] = json.loads(cached)
            stats.cached += 1
        else:
            todo.append(i)

    def one(i: int) -> tuple[int, dict[str, Any] | str, int, int]:
        try:
            answer, p, c = ask(config, _prompt(dicts[i]))
            return i, answer, p, c
        except EndpointError as exc:
            return i, str(exc), 0, 0

    done = 0
    with ThreadPoolExecutor(max_workers=max(1, config.concurrency)) as pool:
        for i, answer, p, c in pool.map(one, todo):
            done += 1
            stats.asked += 1
            stats.prompt_tokens += p
            stats.completion_tokens += c
            answers[i] = answer
            if isinstance(answer, dict):
                store.cache_put(cache_key(dicts[i], config.model), json.dumps(answer))
            else:
                stats.failed += 1
                if answer not in stats.errors:
                    stats.errors.append(answer)
            if progress:
                progress("asking the model", done, len(todo),
                         f"{stats.prompt_tokens + stats.completion_tokens} tokens")
    out = list(records)
    for i, answer in answers.items():
        record = records[i]
        if isinstance(answer, str):
            note = f"llm: endpoint failed ({answer}); facts writer used"
            explanation = replace(_facts_explanation(dicts[i]), notes=(note,))
        else:
            explanation = merge(dicts[i], answer, vocabularies[record.repo], config.model)
            stats.rejected_sections += sum(1 for n in explanation.notes if "names not" in n)
        out[i] = replace(record, explanation=explanation)
    return out, stats


def analyze_store(
    store: Store, repo: str | None, config: LLMConfig | None,
    progress: Progress | None = None,
) -> tuple[int, LLMStats | None]:
    """Rewrite the stored pages of `repo` (every repository when None): with the model
    when `config` is given, else with the facts writer. (records written, model stats)"""
    repos = [repo] if repo else [r.repo for r in store.repos()]
    written, stats = 0, None
    for name in repos:
        records = [store.record(row.id) for row in store.records(name)]
        if config is None:
            new = rewrite_with_facts(records)
        else:
            new, one = rewrite(store, config, records, progress)
            stats = one if stats is None else _add(stats, one)
        store.update_record_data(new)
        written += len(new)
    return written, stats


def _add(a: LLMStats, b: LLMStats) -> LLMStats:
    return LLMStats(a.asked + b.asked, a.cached + b.cached, a.failed + b.failed,
                    a.rejected_sections + b.rejected_sections, a.prompt_tokens + b.prompt_tokens,
                    a.completion_tokens + b.completion_tokens, a.errors + b.errors)
