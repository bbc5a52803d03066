"""The `errdex` command: parse arguments, call the library, print. No logic of its own.

Every failure errdex knows of becomes one line on stderr and a non-zero exit (EXIT_HELP
says which): 1 for "nothing matched" or an unknown id, 2 for bad usage or input, 3 for a
database that is missing, locked or broken. Everything printed goes
through `errdex.serve.terminal` (`write`, `json_text`, `error_line`), which makes the control
characters indexed code or pasted text may carry inert.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, BinaryIO, NoReturn, TextIO, cast

from errdex import contract, settings
from errdex.errors import ErrdexError, NotFoundError, StoreError, UsageError
from errdex.explain import batch_lines, read_input, valid_text
from errdex.serve import terminal
from errdex.service import Explainer, MatcherMode
from errdex.store import Store, open_store
from errdex.store.sqlite import WRITE_TIMEOUT

EXIT_STORE = 3  # the database is missing, locked or broken: not "nothing matched" (1)
EXIT_HELP = (
    "exit status: 0 found (explain, scan: a real match), 1 nothing matched or unknown id, "
    "2 bad usage or input (index: a source that could not be indexed), 3 database missing, "
    "locked or broken"
)
# Settings every command takes, before or after its name (`errdex list --db X`).
GLOBAL_SETTINGS = ("db", "lock_wait")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _add_setting(parser: argparse.ArgumentParser, name: str, default: Any = None) -> None:
    setting = settings.BY_NAME[name]
    parser.add_argument(setting.flag, dest=name, default=default,
                        help=f"{setting.help} [env {setting.env}]")


def _version() -> str:
    try:
        return metadata.version("errdex")
    except metadata.PackageNotFoundError:  # run from a tree that was never installed
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="errdex", description="Explain any library's errors from its code.",
                     epilog=EXIT_HELP)
    parser.add_argument("--version", action="version", version=f"errdex {_version()}")
    for name in GLOBAL_SETTINGS:
        _add_setting(parser, name)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    index = commands.add_parser("index", help="index repositories or installed packages")
    index.add_argument("sources", nargs="*", metavar="SOURCE",
                       help="a directory, a git URL[@ref], py:DIST, py:stdlib or "
                       "npm:PKG[@VERSION] (installed in a node_modules)")
    index.add_argument("--from", dest="from_list", metavar="LIST",
                       help="also every source listed in LIST, one a line (# comments)")
    index.add_argument("--deps", action="store_true",
                       help="also every distribution installed in the environment (--python's);"
                       " versions already indexed are skipped")
    index.add_argument("--cargo-lock", metavar="CARGO_LOCK",
                       help="also every crate the lock file pins, from cargo's registry sources "
                       "($CARGO_HOME/registry/src); versions already indexed are skipped")
    index.add_argument("--package-lock", metavar="PACKAGE_LOCK",
                       help="also every package the package-lock.json pins, from the "
                       "node_modules beside it; versions already indexed are skipped")
    index.add_argument("--engine", choices=("local", "ray"), default="local",
                       help="local: one source after the other in this process (default); ray: "
                       "sources built as Ray tasks, stored here as they come")
    index.add_argument("--address", help="--engine ray: the Ray cluster to use (default: start "
                       "a local one with --workers CPUs)")
    index.add_argument("--retries", type=int, default=None,
                       help="--engine ray: times a failed source is tried again (default 2)")
    index.add_argument("--repo", help="repository name owner/name (for permalinks)")
    index.add_argument("--commit", help="the commit the tree is at (for permalinks)")
    index.add_argument("--python", help="interpreter whose environment py: names refer to")
    index.add_argument("--node-modules", metavar="DIR", help="the node_modules directory npm: "
                       "names are installed in (default: the nearest one holding the package, "
                       "from the current directory up)")
    for name in ("cache_dir", "max_file_bytes", "workers"):
        _add_setting(index, name)
    for name in ("file_seconds", "max_file_sites", "max_sites"):  # extraction budgets
        _add_setting(index, name)
    index.add_argument("--llm", action="store_true",
                       help="then rewrite the pages with the model at ERRDEX_LLM_URL")
    index.add_argument("--full", action="store_true",
                       help="parse every file again, even those unchanged since the last "
                       "index (which are otherwise read from the database's cache)")

    analyze = commands.add_parser("analyze", help="write the stored pages again")
    analyze.add_argument("--repo", help="only this repository")
    analyze.add_argument("--llm", action="store_true",
                         help="with the model at ERRDEX_LLM_URL / ERRDEX_LLM_MODEL")

    check = commands.add_parser("check", help="report names in pages that the code lacks")
    check.add_argument("--repo", help="only this repository")
    check.add_argument("--json", action="store_true", help="print JSON")

    explain = commands.add_parser("explain", help="explain an error message, traceback or log")
    explain.add_argument("text", nargs="*",
                         help="the error text (several words are joined), or - for stdin")
    explain.add_argument("--batch", metavar="FILE",
                         help='JSON lines of {"text": ...} (- for stdin); one result per line')
    explain.add_argument("--json", action="store_true", help="print JSON")
    explain.add_argument("--limit", type=int, default=5, help="matches to show (default 5)")
    _add_setting(explain, "max_input_bytes")

    show = commands.add_parser("show", help="show one error by id")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="print the record as JSON")
    show.add_argument("--version", help="the repository's version or commit (default: newest)")

    listing = commands.add_parser("list", help="list indexed errors")
    listing.add_argument("--repo", help="only this repository")
    listing.add_argument("--version", help="this version or commit (default: each newest)")
    listing.add_argument("--json", action="store_true", help="print JSON")

    scan = commands.add_parser("scan", help="report every known error in a log")
    scan.add_argument("file", metavar="FILE", nargs="?",
                      help="a log file (plain or JSON lines); - or none for stdin")
    scan.add_argument("--json", action="store_true", help="print JSON")

    run_cmd = commands.add_parser("run", help="run a Python script; explain what it raises")
    run_cmd.add_argument("script", metavar="SCRIPT", help="the script, run as __main__")
    run_cmd.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")

    serve = commands.add_parser("serve", help="serve the error pages and the JSON API")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--workers", type=int, default=1,
                       help="worker processes serving requests (default 1)")
    for name in ("header_timeout", "body_timeout", "keep_alive_timeout"):
        _add_setting(serve, name)

    export = commands.add_parser("export", help="write the pages as a static site")
    export.add_argument("dir", metavar="DIR", help="the directory to write (created)")

    mcp = commands.add_parser("mcp", help="serve the index to coding agents over MCP (stdio)")
    mcp.add_argument("--http", action="store_true",
                     help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio")
    mcp.add_argument("--host", default="127.0.0.1", help="address for --http")
    mcp.add_argument("--port", type=int, default=8000, help="port for --http (default 8000)")
    for sub in commands.choices.values():
        sub.epilog = EXIT_HELP
        for name in GLOBAL_SETTINGS:
            # After the command's name too; SUPPRESS keeps one given before it.
            _add_setting(sub, name, default=argparse.SUPPRESS)
    return parser


def _dump(data: Any, out: TextIO) -> None:
    out.write(terminal.json_text(data) + "\n")


def _emit(data: Any, out: TextIO, as_json: bool,
          render: Callable[[Any, terminal.Style], str]) -> None:
    if as_json:
        _dump(data, out)
    else:
        style = terminal.Style(terminal.use_color(out))
        terminal.write(render(terminal.clean(data), style), out)


def _say(message: str) -> None:
    """One line on stderr."""
    print(terminal.error_line(message), file=sys.stderr)


def _open_store(
    args: argparse.Namespace, *, create: bool = False, writes: bool = False
) -> Store:
    """Writers wait for another writer's lock as long as the store's WRITE_TIMEOUT;
    readers only --lock-wait seconds, then fail with one line instead of seeming to
    hang."""
    path = settings.database_path(args.db)
    if create or writes:
        return open_store(path, create=create, timeout=WRITE_TIMEOUT)
    wait = settings.resolve("lock_wait", args.lock_wait)
    return open_store(path, create=False, timeout=float(wait or 0))


def _explainer(args: argparse.Namespace, mode: MatcherMode = MatcherMode.PER_TEXT
               ) -> Explainer:
    """The service over the database, opened as a reader (see `_open_store`)."""
    wait = settings.resolve("lock_wait", args.lock_wait)
    return Explainer(settings.database_path(args.db), mode=mode, timeout=float(wait or 0),
                     max_limit=sys.maxsize)  # --limit is the user's to choose


def _index(args: argparse.Namespace, out: TextIO) -> int:
    # Imported here: tree-sitter and the extractors cost `explain` ~100 ms at start-up.
    from errdex.serve.indexing import index_command

    return index_command(args, out)


def _stdin_bytes() -> BinaryIO:
    """Standard input as bytes: decoding is errdex's (with replacement), not the
    locale's. A text stream put in place of stdin (a test, an embedding program) has
    no bytes below it and is read whole."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return cast(BinaryIO, buffer)
    return io.BytesIO(sys.stdin.read().encode("utf-8", "surrogateescape"))


def _input_limit(args: argparse.Namespace) -> int:
    return int(settings.resolve("max_input_bytes", args.max_input_bytes) or 0)


def _read_text(args: argparse.Namespace) -> str:
    if args.text is None or args.text == "-":
        if args.text is None and sys.stdin.isatty():
            raise UsageError("give the error text, or - to read it from standard input")
        return read_input(_stdin_bytes(), _input_limit(args))
    return str(args.text)


def _explain(args: argparse.Namespace, out: TextIO) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.batch is not None and args.text is not None:
        raise UsageError("give either the text or --batch, not both")
    if args.batch is not None:
        return _explain_batch(args, out)
    text = _read_text(args)
    # The on-disk key index loads only the templates the text can match; only a
    # database without one (written by an older errdex) compiles every template. A text
    # that names an indexed version of a library is read in that version.
    with _explainer(args) as explainer:
        result = explainer.explain(text, args.limit)
    _emit(result, out, args.json, terminal.explain_text)
    return _explain_status(result)


def _real_match(result: dict[str, Any]) -> bool:
    """Exit 0 means a real match: an exact one. The closest records of a message no
    template fits (near misses, partial pastes) are shown, flagged not exact, but say
    "nothing matched" to a script."""
    return any(m.get("exact") for m in result["matches"])


def _explain_status(result: dict[str, Any]) -> int:
    if not result["matches"]:
        _say("no known error matches this text")
        return 1
    if not _real_match(result):
        _say("no exact match: the closest records are shown")
        return 1
    return 0


def _explain_batch(args: argparse.Namespace, out: TextIO) -> int:
    """One JSON line out per line in, flushed as it is written: a bad line gets an
    error object and the batch goes on, and what was answered is never lost."""
    try:
        stream = _stdin_bytes() if args.batch == "-" else open(args.batch, "rb")  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot read {args.batch}: {exc.strerror}") from None
    matched = bad = 0
    with stream, _explainer(args, MatcherMode.KEPT) as explainer:
        for line in batch_lines(stream, _input_limit(args)):
            message = line.error
            if line.text is not None:
                try:
                    result = explainer.explain(line.text, args.limit)
                except (ValueError, RecursionError, ErrdexError) as exc:
                    message = exc.message if isinstance(exc, ErrdexError) else str(exc)
                else:
                    matched += _real_match(result)
                    _dump(result, out)
            if message is not None:
                bad += 1
                _dump({"line": line.number, "error": {"message": message}}, out)
            out.flush()
    if bad:
        _say(f"{bad} line(s) of {args.batch} could not be read")
        return 2
    return 0 if matched else 1


def _show(args: argparse.Namespace, out: TextIO) -> int:
    with _explainer(args) as explainer:
        record = explainer.show(args.id, args.version)
        versions = explainer.record_versions(args.id)
    _emit(record, out, args.json, terminal.record_text)
    if not args.json and len(versions) > 1:
        terminal.write(terminal.versions_line(versions), out)
    return 0


def _list(args: argparse.Namespace, out: TextIO) -> int:
    with _explainer(args) as explainer:
        try:
            listed = explainer.listing(args.repo or None, args.version)
        except NotFoundError as exc:  # a repository or version the user named: bad usage
            raise UsageError(exc.message) from None
        snapshots = explainer.versions(args.repo or None)
    rows = [contract.to_json(row) for row in listed]
    if not args.json:
        shown = {row.repo for row in listed}
        by_repo: dict[str, list[str]] = {}
        for snapshot in snapshots:  # each repository's newest first
            by_repo.setdefault(snapshot.repo, []).append(snapshot.ref[:12])
        for repo, refs in by_repo.items():
            if len(refs) > 1 and (repo in shown or args.repo):
                at = args.version or refs[0]
                terminal.write(f"{repo}: versions {', '.join(refs)} (listed: {at})", out)
    _emit(rows, out, args.json, terminal.listing_text)
    return 0


def _serve(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.serve.web.app import serve

    timeouts = {name: int(settings.resolve(name, getattr(args, name)) or 0)
                for name in ("header_timeout", "body_timeout", "keep_alive_timeout")}
    serve(settings.database_path(args.db), args.host, args.port,
          header_timeout=timeouts["header_timeout"], body_timeout=timeouts["body_timeout"],
          keep_alive=timeouts["keep_alive_timeout"], workers=args.workers)
    return 0


def _export(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.serve.export import export_site

    with _explainer(args) as explainer:
        pages = export_site(explainer, args.dir)
    terminal.write(f"wrote {pages} pages to {args.dir}", out)
    return 0


def _mcp(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.serve.mcp import run

    run(settings.database_path(args.db), http=args.http, host=args.host, port=args.port)
    return 0


def _scan(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.match.scan import report_text

    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    with stream, _explainer(args, MatcherMode.KEPT) as explainer:
        report = explainer.scan(stream)
    _emit(report, out, args.json, lambda data, _: report_text(data))
    return 0 if report["records"] else 1


def _run(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.serve.hook import run_script

    if not os.path.isfile(args.script):
        raise UsageError(f"no script at {args.script}")
    return run_script(args.script, list(args.args), args.db)


def _write_pages(store: Store, repo: str | None, use_llm: bool, out: TextIO) -> None:
    from errdex.write.llm import analyze_store, config_from_env

    progress = terminal.Progress(sys.stderr)
    written, stats = analyze_store(store, repo, config_from_env() if use_llm else None,
                                   progress)
    progress.clear()
    terminal.write(f"pages written: {written}", out)
    if stats is not None:
        terminal.write(f"model: asked {stats.asked}, cached {stats.cached}, failed "
                       f"{stats.failed}, sections rejected {stats.rejected_sections}, tokens "
                       f"{stats.prompt_tokens} in / {stats.completion_tokens} out", out)
        for error in stats.errors[:3]:
            _say(f"model endpoint: {error}")


def _analyze(args: argparse.Namespace, out: TextIO) -> int:
    with _open_store(args, writes=True) as store:
        if args.repo and not store.has_repo(args.repo):
            raise UsageError(f"repository {args.repo!r} is not indexed")
        _write_pages(store, args.repo, args.llm, out)
    return 0


def _check(args: argparse.Namespace, out: TextIO) -> int:
    from errdex.analyze.check import check_store

    with _open_store(args) as store:
        if args.repo and not store.has_repo(args.repo):
            raise UsageError(f"repository {args.repo!r} is not indexed")
        report = check_store(store, args.repo)
    if args.json:
        _dump(report, out)
    else:
        for u in report["unknown"]:
            terminal.write(f"{u['id']} {u['writer']} {u['section']}: `{u['name']}` is not in "
                           "the code", out)
        terminal.write(f"{report['records']} records checked, {len(report['unknown'])} "
                       f"unknown names ({report['facts_unknown']} in facts-written pages)", out)
    return 1 if report["unknown"] else 0


# Arguments that are text, not paths: argv that is not UTF-8 reaches Python as surrogate
# escapes, which can't be stored, looked up in SQLite or printed. Paths keep theirs, so
# that a file with such a name still opens.
TEXT_ARGS = ("text", "id", "repo", "commit", "version")


def _valid_text_args(args: argparse.Namespace) -> argparse.Namespace:
    for name in TEXT_ARGS:
        value = getattr(args, name, None)
        if isinstance(value, str):
            setattr(args, name, valid_text(value))
    return args


_BARE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _normalize_args(args: argparse.Namespace) -> argparse.Namespace:
    """What users type, in the shape the commands take: `explain` words joined into one
    text (none: standard input), `scan` with no file reading standard input, and an
    `index` source that is a bare name and no path told to say `py:NAME`."""
    if args.command == "explain":
        words = args.text or []
        args.text = None if not words else " ".join(words)
    if args.command == "scan" and args.file is None:
        if sys.stdin.isatty():
            raise UsageError("give a log file, or pipe the log into `errdex scan`")
        args.file = "-"
    if args.command == "index":
        for source in args.sources:
            _check_source(source)
    return args


def _check_source(source: str) -> None:
    """A bare name that is no path is a mistake for `py:NAME`: said before any work."""
    if _BARE_NAME.fullmatch(source) and not os.path.exists(source):
        raise UsageError(f"no directory {source!r}; for the installed package, give "
                         f"py:{source}")


COMMANDS = {"index": _index, "explain": _explain, "show": _show, "list": _list,
            "serve": _serve, "export": _export, "scan": _scan, "run": _run,
            "analyze": _analyze, "check": _check, "mcp": _mcp}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        args = _valid_text_args(_normalize_args(build_parser().parse_args(argv)))
        return COMMANDS[args.command](args, out)
    except StoreError as exc:
        _say(exc.message)
        return EXIT_STORE
    except ErrdexError as exc:
        _say(exc.message)
        return exc.exit_code
    except KeyboardInterrupt:
        _say("interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug of errdex's own: still one line, unless debugging
        if os.environ.get("ERRDEX_DEBUG"):
            raise
        _say(f"internal error ({type(exc).__name__}: {exc}); set ERRDEX_DEBUG=1 for the "
             "traceback")
        return 70


if __name__ == "__main__":
    sys.exit(main())
