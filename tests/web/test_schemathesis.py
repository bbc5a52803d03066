"""schemathesis over the app's own OpenAPI spec, against the live server: no generated
request may produce a server error, and every response must match what the spec says
(status codes, content types, JSON schemas)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.web.conftest import Served

CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance")


def test_fuzzing_the_openapi_spec_finds_no_server_error(served: Served, tmp_path: Path) -> None:
    st = Path(sys.executable).with_name("st")
    done = subprocess.run(
        [str(st), "run", served.url + "/openapi.json", "--checks", CHECKS,
         "--max-examples", "25", "--phases", "examples,coverage,fuzzing", "--seed", "7",
         "--generation-database", "none"],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout
