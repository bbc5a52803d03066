"""The exception hook, driven the way a user meets it: a real script in a real Python
subprocess raising a real error from an indexed library. The traceback must be exactly
what Python alone prints, with errdex's explanation after it, and a broken database must
leave the traceback untouched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from errdex.serve.cli import main

LIBRARY = """\
def resize(width, height):
    if width <= 0:
        raise ValueError(f"width must be positive, got {width} (height {height})")
    return width * height


def load(path):
    try:
        open(path)
    except OSError as exc:
        raise RuntimeError("cannot open the checkpoint at " + path) from exc
"""

SCRIPT = """\
import sys
import hooklib

print("argv", sys.argv[1:])
hooklib.resize(int(sys.argv[1]), 3)
"""

CHAINED = """\
import hooklib

hooklib.load("/nonexistent/ckpt.pt")
"""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hook")
    lib = root / "lib"
    (lib / "hooklib").mkdir(parents=True)
    (lib / "hooklib" / "__init__.py").write_text(LIBRARY)
    db = root / "errdex.sqlite"
    assert main(["--db", str(db), "index", str(lib), "--repo", "acme/hooklib"]) == 0
    (root / "script.py").write_text(SCRIPT)
    (root / "chained.py").write_text(CHAINED)
    (root / "site").mkdir()
    (root / "site" / "sitecustomize.py").write_text(
        "try:\n    import errdex.hook\n    errdex.hook.install_from_env()\n"
        "except Exception:\n    pass\n"
    )
    broken = root / "broken.sqlite"
    broken.write_bytes(b"this is not a database" * 100)
    return {"root": root, "lib": lib, "db": db, "broken": broken}


def _python(world: dict[str, Path], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("ERRDEX_")}
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(world["root"] / "site"), str(world["lib"]), environ.get("PYTHONPATH", "")]
    )
    environ.update(env)
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=environ,
        cwd=world["root"],
    )  # fmt: skip


def _plain(world: dict[str, Path], script: str, *args: str) -> subprocess.CompletedProcess[str]:
    return _python(world, str(world["root"] / script), *args)


def test_run_prints_the_unchanged_traceback_then_the_explanation(
    world: dict[str, Path],
) -> None:
    script = str(world["root"] / "script.py")
    plain = _plain(world, "script.py", "-4")
    assert plain.returncode == 1
    assert plain.stderr.startswith("Traceback (most recent call last):")
    hooked = _python(world, "-m", "errdex", "--db", str(world["db"]), "run", script, "-4")
    assert hooked.returncode == 1
    assert hooked.stdout == "argv ['-4']\n"  # the script saw its own arguments
    assert hooked.stderr.startswith(plain.stderr)
    explanation = hooked.stderr[len(plain.stderr) :]
    assert "errdex: acme/hooklib" in explanation
    assert "width must be positive" in explanation
    assert "thrown at hooklib/__init__.py:3 in hooklib.resize" in explanation
    assert "your values: width = -4, height = 3" in explanation
    assert "errdex show " in explanation


def test_run_passes_a_clean_exit_and_sys_exit_through(world: dict[str, Path]) -> None:
    script = world["root"] / "exits.py"
    script.write_text("import sys\nprint('hi')\nsys.exit(int(sys.argv[1]))\n")
    for code in ("0", "3"):
        done = _python(world, "-m", "errdex", "--db", str(world["db"]), "run", str(script), code)
        assert (done.returncode, done.stdout, done.stderr) == (int(code), "hi\n", "")


def test_the_environment_variable_installs_the_hook_for_any_script(
    world: dict[str, Path],
) -> None:
    plain = _plain(world, "chained.py")
    hooked = _python(world, str(world["root"] / "chained.py"), ERRDEX_HOOK="1",
                     ERRDEX_DB=str(world["db"]))
    assert plain.returncode == hooked.returncode == 1
    assert "The above exception was the direct cause" in plain.stderr
    assert hooked.stderr.startswith(plain.stderr)
    explanation = hooked.stderr[len(plain.stderr) :]
    assert "cannot open the checkpoint at" in explanation
    assert "your values: path = /nonexistent/ckpt.pt" in explanation


def test_without_the_variable_python_is_untouched(world: dict[str, Path]) -> None:
    plain = _plain(world, "chained.py")
    off = _python(world, str(world["root"] / "chained.py"), ERRDEX_HOOK="0",
                  ERRDEX_DB=str(world["db"]))
    assert off.stderr == plain.stderr


@pytest.mark.parametrize("which", ["broken", "missing"])
def test_a_broken_database_leaves_the_traceback_intact(
    world: dict[str, Path], which: str
) -> None:
    db = str(world["broken"] if which == "broken" else world["root"] / "missing.sqlite")
    plain = _plain(world, "script.py", "0")
    for hooked in (
        _python(world, "-m", "errdex", "--db", db, "run", str(world["root"] / "script.py"), "0"),
        _python(world, str(world["root"] / "script.py"), "0", ERRDEX_HOOK="1", ERRDEX_DB=db),
    ):
        assert hooked.returncode == 1
        assert hooked.stderr.startswith(plain.stderr)
        rest = hooked.stderr[len(plain.stderr) :].strip().splitlines()
        assert len(rest) == 1 and rest[0].startswith("errdex: could not explain this error")


def test_importing_the_hook_loads_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c",
         "import sys, errdex.hook; print(sorted(m for m in sys.modules if m.startswith(("
         "'errdex.store', 'errdex.match', 'ahocorasick', 'tree_sitter', 'sqlite3'))))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert done.stdout.strip() == "[]"


def test_run_of_a_missing_script_is_a_usage_error(
    world: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", str(world["db"]), "run", str(world["root"] / "nope.py")]) == 2
    assert capsys.readouterr().err.startswith("errdex: no script at ")
