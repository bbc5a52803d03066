"""The `errdex` command: parse arguments, call the library, print. No logic of its own.

Every failure errdex knows of becomes one line on stderr and a non-zero exit: 1 for
"nothing found" or a failing store, 2 for bad usage or input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TextIO

from errdex import settings, terminal
from errdex.errors import ErrdexError, UsageError
from errdex.explain import explain_text, load_matcher
from errdex.indexer import index_snapshot
from errdex.source import SourceOptions, resolve
from errdex.store import SQLiteStore


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def _add_setting(parser: argparse.ArgumentParser, name: str) -> None:
    setting = settings.BY_NAME[name]
    parser.add_argument(setting.flag, dest=name, default=None,
                        help=f"{setting.help} [env {setting.env}]")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="errdex", description="Explain any library's errors from its code.")
    _add_setting(parser, "db")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    index = commands.add_parser("index", help="index repositories or installed packages")
    index.add_argument("sources", nargs="+", metavar="SOURCE",
                       help="a directory, a git URL[@ref], py:DIST or py:stdlib")
    index.add_argument("--repo", help="repository name owner/name (for permalinks)")
    index.add_argument("--commit", help="the commit the tree is at (for permalinks)")
    index.add_argument("--python", help="interpreter whose environment py: names refer to")
    for name in ("cache_dir", "max_file_bytes", "workers"):
        _add_setting(index, name)

    explain = commands.add_parser("explain", help="explain an error message, traceback or log")
    explain.add_argument("text", nargs="?", help="the error text, or - for standard input")
    explain.add_argument("--batch", metavar="FILE",
                         help='JSON lines of {"text": ...} (- for stdin); one result per line')
    explain.add_argument("--json", action="store_true", help="print JSON")
    explain.add_argument("--limit", type=int, default=5, help="matches to show (default 5)")

    show = commands.add_parser("show", help="show one error by id")
    show.add_argument("id")
    show.add_argument("--json", action="store_true", help="print the record as JSON")

    listing = commands.add_parser("list", help="list indexed errors")
    listing.add_argument("--repo", help="only this repository")
    listing.add_argument("--json", action="store_true", help="print JSON")
    return parser


def _dump(data: Any, out: TextIO) -> None:
    out.write(json.dumps(data, ensure_ascii=False) + "\n")


def _emit(data: Any, out: TextIO, as_json: bool,
          render: Callable[[Any, terminal.Style], str]) -> None:
    if as_json:
        _dump(data, out)
    else:
        terminal.write(render(data, terminal.Style(terminal.use_color(out))), out)


def _open_store(args: argparse.Namespace, *, create: bool = False) -> SQLiteStore:
    return SQLiteStore(settings.database_path(args.db), create=create)


def _index(args: argparse.Namespace, out: TextIO) -> int:
    if len(args.sources) > 1 and (args.repo or args.commit):
        raise UsageError("--repo and --commit name one source: give one source with them")
    cache_dir = settings.resolve("cache_dir", args.cache_dir)
    options = SourceOptions(
        repo=args.repo, commit=args.commit, python=args.python,
        cache_dir=str(cache_dir) if cache_dir else None,
        max_file_bytes=int(settings.resolve("max_file_bytes", args.max_file_bytes) or 0),
    )
    # Resolve every source first: a bad one fails the call before anything is written.
    snapshots = [snapshot for spec in args.sources for snapshot in resolve(spec, options)]
    style = terminal.Style(terminal.use_color(out))
    progress = terminal.Progress(sys.stderr)
    workers = int(settings.resolve("workers", args.workers) or 0)
    with _open_store(args, create=True) as store:
        for snapshot in snapshots:
            summary = index_snapshot(snapshot, store, workers=workers, progress=progress)
            progress.clear()
            terminal.write(terminal.summary_text(summary, style), out)
    return 0


def _read_text(args: argparse.Namespace) -> str:
    if args.text is None or args.text == "-":
        if args.text is None and sys.stdin.isatty():
            raise UsageError("give the error text, or - to read it from standard input")
        return sys.stdin.read()
    return str(args.text)


def _explain(args: argparse.Namespace, out: TextIO) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    if args.batch is not None and args.text is not None:
        raise UsageError("give either the text or --batch, not both")
    if args.batch is not None:
        return _explain_batch(args, out)
    text = _read_text(args)
    with _open_store(args) as store:
        result = explain_text(store, load_matcher(store), text, args.limit)
    _emit(result, out, args.json, terminal.explain_text)
    if not result["matches"]:
        print("errdex: no known error matches this text", file=sys.stderr)
        return 1
    return 0


def _explain_batch(args: argparse.Namespace, out: TextIO) -> int:
    try:
        stream = sys.stdin if args.batch == "-" else open(args.batch, encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot read {args.batch}: {exc.strerror}") from None
    matched = bad = 0
    with stream, _open_store(args) as store:
        matcher = load_matcher(store)
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                text = item["text"] if isinstance(item, dict) else None
                if not isinstance(text, str):
                    raise ValueError('each line must be an object with a string "text"')
                result = explain_text(store, matcher, text, args.limit)
            except (ValueError, ErrdexError) as exc:
                bad += 1
                message = exc.message if isinstance(exc, ErrdexError) else str(exc)
                _dump({"line": number, "error": {"message": message}}, out)
                continue
            matched += bool(result["matches"])
            _dump(result, out)
    if bad:
        print(f"errdex: {bad} line(s) of {args.batch} could not be read", file=sys.stderr)
        return 2
    return 0 if matched else 1


def _show(args: argparse.Namespace, out: TextIO) -> int:
    with _open_store(args) as store:
        record = store.record_dict(args.id)
    _emit(record, out, args.json, terminal.record_text)
    return 0


def _list(args: argparse.Namespace, out: TextIO) -> int:
    with _open_store(args) as store:
        if args.repo and not store.has_repo(args.repo):
            known = ", ".join(r["repo"] for r in store.repos()) or "none"
            raise UsageError(f"repository {args.repo!r} is not indexed (indexed: {known})")
        rows = store.records(args.repo)
    _emit(rows, out, args.json, terminal.listing_text)
    return 0


COMMANDS = {"index": _index, "explain": _explain, "show": _show, "list": _list}


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        args = build_parser().parse_args(argv)
        return COMMANDS[args.command](args, out)
    except ErrdexError as exc:
        print(f"errdex: {exc.message}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("errdex: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
