"""`index --engine ray`: every source built as Ray tasks, stored by one writer here.

Each source is two tasks on the cluster: one reads it into snapshots (`Source.snapshots`:
a directory, a clone, an installed distribution, as the node it runs on has them), then
one per snapshot builds it (`errdex.index.build_snapshot`) on that same node, against the
previous records of its repository, which this process reads from the store. Built
snapshots come back as they finish (`ray.wait`) and this process alone writes them, so
the store sees one writer whatever the cluster's size.

A source that fails (it can't be read, its task raised, its worker died) is said in one
line and tried again from the start, after the others already queued, at most `retries`
more times; then it is reported failed and the run goes on. Versions of one repository
are built one after the other, in the order they were read, each against the one stored
before it, as `--engine local` builds them in the list's order.
"""

from __future__ import annotations

import importlib
import logging
import re
import socket
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from errdex.analyze.snapshot import previous_records
from errdex.engines import Source
from errdex.errors import ErrdexError, UsageError
from errdex.extract.uncollected import uncollected
from errdex.index import Budgets, Built, build_snapshot, store_built
from errdex.models import IndexSummary, Snapshot
from errdex.store import Store

RETRIES = 2  # a failed source is tried again this many times before it is reported failed
CONNECT_SECONDS = 10.0  # an --address that does not answer this soon is said, not waited on
_HOST_PORT = re.compile(r"(?:ray://)?(?P<host>\[[0-9a-fA-F:]+\]|[^:/\s]+):(?P<port>[0-9]{1,5})")
INSTALL_HINT = "--engine ray needs Ray: pip install 'errdex[ray]'"


def load_ray() -> Any:
    """The `ray` module, or a UsageError that says how to install it."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise UsageError(INSTALL_HINT) from None


def _reachable(address: str) -> None:
    """A HOST:PORT (or ray://HOST:PORT) address that accepts no connection is a UsageError
    in CONNECT_SECONDS: Ray itself would try it again for minutes. Other forms (`auto`)
    are Ray's to find."""
    found = _HOST_PORT.fullmatch(address.strip())
    if found is None:
        return
    host = found["host"].strip("[]")
    try:
        with socket.create_connection((host, int(found["port"])), timeout=CONNECT_SECONDS):
            pass
    except (OSError, ValueError, OverflowError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or "timed out"
        raise UsageError(f"cannot reach a Ray cluster at {address}: {why}") from None


def _read(source: Source) -> tuple[list[Snapshot], str]:
    """Task: the source's snapshots, and the node that has their files."""
    ray = importlib.import_module("ray")
    return source.snapshots(), str(ray.get_runtime_context().get_node_id())


def _build(snapshot: Snapshot, previous: list[Any], budgets: Budgets) -> Built:
    """Task: one snapshot built. Its files are parsed in one child process (the task
    holds one CPU; `errdex.index` never parses in the process that reads the results)."""
    with uncollected():
        return build_snapshot(snapshot, previous, workers=1, budgets=budgets)


def failure_reason(exc: BaseException) -> str:
    """What went wrong, in one line: errdex's own message, else the exception's type and
    the first line of what it says (a task's error comes wrapped with its traceback)."""
    cause = getattr(exc, "cause", None)
    if isinstance(cause, BaseException):
        exc = cause
    if isinstance(exc, ErrdexError):
        return exc.message
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


@dataclass
class _Task:
    source: int  # its index in the sources
    attempt: int
    snapshot: Snapshot | None = None  # None: the task that reads the source


@dataclass
class Report:
    """What the run did: sources stored whole, and those that finally failed."""

    stored: int = 0
    failed: list[str] | None = None


class _Driver:
    def __init__(
        self, ray: Any, sources: Sequence[Source], store: Store, budgets: Budgets,
        slots: int, retries: int, on_stored: Callable[[IndexSummary], None],
        say: Callable[[str], None], progress: Callable[[str], None],
    ) -> None:  # fmt: skip
        self.ray, self.sources, self.store, self.budgets = ray, sources, store, budgets
        self.slots, self.retries = slots, retries
        self.on_stored, self.say, self.progress = on_stored, say, progress
        options = {"num_cpus": 1, "max_retries": 0}  # retries are this driver's, said
        self.read_task = ray.remote(**options)(_read)
        self.build_task = ray.remote(**options)(_build)
        self.queue: deque[int] = deque(range(len(sources)))
        self.attempts = [0] * len(sources)
        self.left = [0] * len(sources)  # snapshots of a source not yet stored
        self.active: set[int] = set()
        self.running: dict[Any, _Task] = {}
        self.building: set[str] = set()  # repositories with a build running
        self.waiting: dict[str, list[tuple[int, int, Snapshot, str]]] = {}
        self.report = Report(failed=[])

    def run(self) -> Report:
        while self.queue or self.running or self.waiting:
            while self.queue and len(self.active) < self.slots:
                self._read(self.queue.popleft())
            if not self.running:
                break  # only waiting builds whose sources failed: nothing left to run
            ready, _ = self.ray.wait(list(self.running), num_returns=1)
            for ref in ready:
                self._take(ref, self.running.pop(ref))
        return self.report

    def _read(self, source: int) -> None:
        self.attempts[source] += 1
        self.active.add(source)
        ref = self.read_task.remote(self.sources[source])
        self.running[ref] = _Task(source, self.attempts[source])

    def _take(self, ref: Any, task: _Task) -> None:
        try:
            value = self.ray.get(ref)
        except Exception as exc:  # the task raised, its worker died, its node left
            if task.snapshot is not None:
                self._done_building(task.snapshot.repo)
            self._failed(task, failure_reason(exc))
            return
        stale = task.attempt != self.attempts[task.source] or task.source not in self.active
        if stale:  # an attempt given up already
            if task.snapshot is not None:
                self._done_building(task.snapshot.repo)
            return
        if task.snapshot is None:
            snapshots, node = value
            self.left[task.source] = len(snapshots)
            for snapshot in snapshots:
                self.waiting.setdefault(snapshot.repo, []).append(
                    (task.source, task.attempt, snapshot, node))
                self._start(snapshot.repo)
            if not snapshots:
                self._finished(task.source)
            return
        self.on_stored(store_built(self.store, value))
        self._done_building(task.snapshot.repo)  # the next version compares with this one
        self.left[task.source] -= 1
        if self.left[task.source] == 0:
            self._finished(task.source)

    def _start(self, repo: str) -> None:
        """Build the repository's next snapshot (the first source's) unless one of its
        versions is being built: the next is compared with what that one stores."""
        waiting = self.waiting.get(repo, [])
        waiting[:] = [w for w in waiting if w[1] == self.attempts[w[0]] and w[0] in self.active]
        if not waiting:
            self.waiting.pop(repo, None)
            return
        if repo in self.building:
            return
        waiting.sort(key=lambda w: w[0])
        source, attempt, snapshot, node = waiting.pop(0)
        if not waiting:
            self.waiting.pop(repo, None)
        previous = previous_records(self.store, snapshot)
        strategies = importlib.import_module("ray.util.scheduling_strategies")
        on_node = strategies.NodeAffinitySchedulingStrategy(node_id=node, soft=False)
        ref = self.build_task.options(scheduling_strategy=on_node).remote(
            snapshot, previous, self.budgets)
        self.running[ref] = _Task(source, attempt, snapshot)
        self.building.add(repo)

    def _done_building(self, repo: str) -> None:
        self.building.discard(repo)
        self._start(repo)

    def _finished(self, source: int) -> None:
        self.active.discard(source)
        self.report.stored += 1
        self._progress()

    def _failed(self, task: _Task, reason: str) -> None:
        if task.attempt != self.attempts[task.source] or task.source not in self.active:
            return  # another snapshot of this attempt failed first: said already
        label = self.sources[task.source].label
        self.active.discard(task.source)
        for repo in list(self.waiting):
            self._start(repo)  # drops this attempt's waiting builds
        if task.attempt <= self.retries:
            self.say(f"{label}: attempt {task.attempt} of {self.retries + 1} failed: "
                     f"{reason}; trying again")
            self.queue.append(task.source)  # after the others: it never holds them up
        else:
            self.say(f"{label}: failed after {task.attempt} attempts: {reason}")
            assert self.report.failed is not None
            self.report.failed.append(label)
            self._progress()

    def _progress(self) -> None:
        failed = len(self.report.failed or [])
        building = sum(1 for t in self.running.values() if t.snapshot is not None)
        self.progress(f"ray: {self.report.stored + failed}/{len(self.sources)} sources done "
                      f"({self.report.stored} stored, {failed} failed), {building} building")


def index_on_ray(
    sources: Sequence[Source], store: Store, *, address: str | None = None,
    workers: int = 0, budgets: Budgets | None = None, retries: int = RETRIES,
    on_stored: Callable[[IndexSummary], None] = lambda summary: None,
    say: Callable[[str], None] = lambda line: None,
    progress: Callable[[str], None] = lambda line: None,
) -> Report:  # fmt: skip
    """Build `sources` on the Ray cluster at `address` (None: a local one started for this
    run, with `workers` CPUs, default every core; or the one this process is connected
    to already) and store each as it comes. Twice `workers` sources (default: the
    cluster's CPUs) are in flight at a time, so that no CPU waits while this process
    stores a result; the cluster's CPUs bound how many are built at once."""
    ray = load_ray()
    connected_here = not ray.is_initialized()
    if connected_here and address is not None:
        _reachable(address)
    if connected_here:
        local = {"num_cpus": workers} if address is None and workers else {}
        try:
            ray.init(address=address, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.ERROR, **local)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"at {address}" if address else "on this machine"
            raise UsageError(f"cannot start or reach a Ray cluster {where}: "
                             f"{failure_reason(exc)}") from None
    try:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        slots = max(workers or cpus, 1) * 2  # one more in each slot: no CPU waits for this one
        driver = _Driver(ray, sources, store, budgets or Budgets(), slots, retries,
                         on_stored, say, progress)
        return driver.run()
    finally:
        if connected_here:
            ray.shutdown()
