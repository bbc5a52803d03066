"""The structure an extraction emits is what analysis reads: the outline, typed names and
condition paths cross from the worker with the sites, and the facts are found from them
with the library's files gone (nothing is read or parsed again)."""

from __future__ import annotations

import pickle
from pathlib import Path

from errdex.analyze.snapshot import analyze_snapshot
from errdex.extract import resolve_constructions
from errdex.index import build_records, extract_snapshot
from errdex.models import Language, Snapshot, SourceFile

CORE = '''
def _check(n):
    if n > 100:
        return None
    if n < 0:
        raise ValueError("n must not be negative")


def public_api(n):
    return _check(n)
'''


def _snapshot(root: Path) -> Snapshot:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text(CORE)
    return Snapshot(
        repo="local/structure", commit=None, commit_date=None, version=None, root=str(root),
        url_base=None,
        files=(SourceFile("pkg/core.py", str(root / "pkg" / "core.py"), Language.PYTHON),),
    )


def test_analysis_finds_entry_points_from_the_extraction_alone(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "tree")
    extractions, _ = extract_snapshot(snapshot, workers=1)  # in a worker process
    (extraction,) = extractions
    structure = extraction.structure
    assert structure is not None and structure.path == "pkg/core.py"
    assert [d.name for d in structure.defs] == ["_check", "public_api"]
    assert pickle.loads(pickle.dumps(structure)) == structure
    (site,) = extraction.sites
    path = structure.path_at(site.line, site.end_line)
    assert path is not None
    assert [(s.kind, s.condition.kind) for s in path.steps] == [("early_return", "not"),
                                                                 ("if", "test")]  # fmt: skip

    Path(snapshot.files[0].absolute).unlink()  # analysis must not need the file again
    sites = [*extraction.sites, *resolve_constructions(extractions)]
    records = build_records(snapshot, sites)
    analyzed, _, names = analyze_snapshot(snapshot, records, (), {structure.path: structure})
    (record,) = analyzed
    assert record.facts is not None
    (facts,) = record.facts.sites
    assert [e.function for e in facts.entry_points] == ["pkg.core.public_api"]
    # The earlier `return` not taken is part of when the raise is reached, on the page too.
    assert [step.text for step in facts.reached] == ["`n` is at most 100"]
    assert "reached only when `n` is at most 100" in record.explanation.what_it_means
    assert {"_check", "public_api"} <= names
