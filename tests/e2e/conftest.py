"""One index of the real corpus (the standard library and packaging) for every
end-to-end module: indexing it once per session keeps the suite quick."""

from __future__ import annotations

import pytest

from errdex.match import Matcher, load_matcher
from errdex.serve.cli import main
from errdex.store import SQLiteStore


@pytest.fixture(scope="session")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[SQLiteStore, Matcher]:
    db = tmp_path_factory.mktemp("e2e") / "errdex.sqlite"
    assert main(["--db", str(db), "index", "py:stdlib", "py:packaging"]) == 0
    store = SQLiteStore(db, create=False)
    return store, load_matcher(store)
