"""Go, read from its own folder (issue 18): the error-making calls with printf templates,
sentinel errors found where they are returned, error types with an `Error() string`
method found where they are built, the conditions that lead to each (`if err != nil`
style early exits, `switch` cases), Go code on the pages, and a real panic with its
goroutine frames matched back to its record. The fixture is tests/fixtures/go_repo."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from errdex.contract import record_to_dict
from errdex.extract import extractor_for, load_rules
from errdex.index import index_snapshot
from errdex.models import Language, SiteKind
from errdex.source.resolve import SourceOptions, resolve
from errdex.store import SQLiteStore

FIXTURE = Path(__file__).parent / "fixtures" / "go_repo"
SHAPE = FIXTURE / "tensor" / "shape.go"


def _extract(source: bytes, path: str = "pkg/x.go") -> Any:
    return extractor_for(Language.GO).extract(path, source, load_rules(Language.GO))


def test_calls_give_printf_templates_guards_and_functions() -> None:
    found = _extract(SHAPE.read_bytes(), "tensor/shape.go")
    sites = {s.template.text: s for s in found.sites}
    wrap = sites["reshape: rank {rank} over 8: {ErrEmpty}"]
    assert wrap.kind is SiteKind.BAIL and wrap.function == "Reshape" and wrap.guard == "rank > 8"
    assert [p.spec for p in wrap.template.placeholders] == ["%d", "%w"]
    method = sites["pool: buffer of {n} bytes over the pool size {size}"]
    assert method.function == "Pool.Get" and method.guard == "n > p.size"
    unsupported = sites["tensor: unsupported rank {rank}"]
    assert unsupported.kind is SiteKind.PANIC
    assert unsupported.guard == "!(rank == 1 || rank == 2)"  # `default:` after `case 1, 2:`
    fatal = sites["tensor: size must be positive, got {n}"]
    assert fatal.exception == "log.Fatal"
    # A sentinel's declaration is not where it leaves: its returns are.
    assert "tensor: empty input" not in sites


def test_sentinels_and_error_types_are_definitions_built_where_returned() -> None:
    found = _extract(SHAPE.read_bytes(), "tensor/shape.go")
    definitions = {d.name: d for d in found.definitions}
    assert definitions["ErrEmpty"].template.text == "tensor: empty input"
    assert definitions["DimError"].fields == ("Op", "Want", "Got")
    assert definitions["DimError"].template.text == "{Op}: want rank {Want}, got {Got}"
    built = {(c.type_path, c.line) for c in found.constructions}
    assert ("ErrEmpty", 34) in built and ("DimError", 51) in built


def test_escapes_raw_strings_and_concatenation() -> None:
    source = b'''package p

import "errors"

func f(name string) error {
	if name == "" {
		return errors.New("empty \\"name\\"\\t!")
	}
	if len(name) > 9 {
		return errors.New(`raw \\n stays`)
	}
	return errors.New("bad name " + name + " given")
}
'''
    texts = [s.template.text for s in _extract(source).sites]
    assert texts == ['empty "name"\t!', "raw \\n stays", "bad name {name} given"]


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, dict[str, Any]]]:
    tmp = tmp_path_factory.mktemp("go")
    root = tmp / "repo"
    shutil.copytree(FIXTURE, root)
    (snapshot,) = resolve(str(root), SourceOptions(repo="t/gridlib"))
    db = tmp / "go.sqlite"
    with SQLiteStore(db) as store:
        index_snapshot(snapshot, store, workers=1)
        records = {r.message: record_to_dict(store.record(r.id)) for r in store.records()}
    return db, records


def test_go_pages_speak_go(pages: tuple[Path, dict[str, dict[str, Any]]]) -> None:
    _, records = pages
    page = records["reshape: rank %d over 8: %w"]
    # an earlier return for a negative first value: the check runs only past it
    assert page["explanation"]["summary"] == ("`rank` must be at most 8 when calling `Reshape` "
                                              "(checked only when `xs[0]` is at least 0)")
    fix = page["explanation"]["example_fix"]["after"]
    assert fix.startswith("if _, err := Reshape(xs, 8, strict); err != nil {")
    sentinel = records["tensor: empty input"]
    assert sentinel["kind"] == "error-enum" and sentinel["definition"]["line"] == 10
    assert [s["line"] for s in sentinel["sites"]] == [34]
    # The earlier `return nil, nil` is part of the path to the error type's site.
    dim = records["%s: want rank %d, got %d"]
    assert "`xs[0]` is at least 0" in dim["explanation"]["what_it_means"]


def test_a_go_panic_with_goroutine_frames_finds_its_record(
    pages: tuple[Path, dict[str, dict[str, Any]]],
) -> None:
    db, records = pages
    paste = ("panic: tensor: unsupported rank 5\n\ngoroutine 1 [running]:\n"
             "example.com/gridlib/tensor.Reshape({0xc000012345, 0x3, 0x3}, 0x5, 0x1)\n"
             "\t/home/u/go/pkg/mod/example.com/gridlib@v1.2.0/tensor/shape.go:48 +0x1d\n"
             "main.main()\n\t/home/u/app/main.go:9 +0x25\nexit status 2\n")  # fmt: skip
    errdex = Path(sys.executable).parent / "errdex"
    done = subprocess.run([str(errdex), "--db", str(db), "explain", "--json", "-"],
                          input=paste, capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = records["\"tensor: unsupported rank \" + fmt.Sprint(rank)"]["id"]
    first = json.loads(done.stdout)["matches"][0]
    assert first["id"] == expected


def test_an_escape_past_the_last_code_point_keeps_the_file_s_other_sites() -> None:
    """`\\UFFFFFFFF` names no character: it stays as written, and the file's other errors
    are still found (it used to fail the whole file's extraction)."""
    source = (
        b'package p\n\nimport "errors"\n\n'
        b'func A() error { return errors.New("bad \\UFFFFFFFF rune") }\n\n'
        b'func B() error { return errors.New("plain failure") }\n'
    )
    found = extractor_for(Language.GO).extract("p/p.go", source, load_rules(Language.GO))
    texts = {s.template.text for s in found.sites}
    assert "plain failure" in texts
    assert any(t.startswith("bad ") for t in texts)
