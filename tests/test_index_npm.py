"""`errdex index npm:PKG` and `--package-lock package-lock.json` as a user drives them:
node_modules trees of small packages of our own (each throwing errors that name it), found
from the current directory up or in `--node-modules`; lock files (versions 1 and 3) that
pin them; and what is refused in one line with exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.index_lists import npm_lock, npm_package, run, stored


def explained(db: str, text: str) -> dict[str, Any]:
    code, out = run("--db", db, "explain", "--json", "--limit", "1", text)
    assert code == 0, out
    [match] = json.loads(out)["matches"]
    record: dict[str, Any] = match["record"]
    return record


def messages(db: str) -> set[str]:
    return {record["message"] for records, _ in stored(db).values()
            for record in records.values()}


def test_an_installed_package_is_found_from_the_current_directory_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "app"
    npm_package(project / "node_modules", "tinyqueue", "2.1.0")
    npm_package(project / "node_modules", "@acme/shape", "0.4.2", typed=True)
    deeper = project / "src" / "routes"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    db = str(tmp_path / "npm.sqlite")
    code, out = run("--db", db, "index", "npm:tinyqueue", "npm:@acme/shape")
    assert code == 0, capsys.readouterr().err
    assert "npm/tinyqueue" in out and "@acme/shape" in out
    assert sorted(stored(db)) == [("@acme/shape", "0.4.2"), ("npm/tinyqueue", "2.1.0")]
    # The package's own source only: not its bundle, minified copy or declarations.
    assert messages(db) == {
        "`tinyqueue 2.1.0 is full: ${queue.length} items of ${queue.limit}`",
        "`@acme/shape 0.4.2 needs at least one dimension, got ${dims.length}`"}
    record = explained(db, "RangeError: tinyqueue 2.1.0 is full: 8 items of 8\n"
                       "    at push (/srv/app/node_modules/tinyqueue/lib/index.js:3:11)\n")
    assert (record["repo"], record["version"]) == ("npm/tinyqueue", "2.1.0")
    assert record["sites"][0]["path"] == "lib/index.js"
    # Published files need not be at any commit of the repository: no permalink.
    assert record["sites"][0]["url"] is None
    record = explained(db, "Error: @acme/shape 0.4.2 needs at least one dimension, got 0")
    assert (record["repo"], record["sites"][0]["path"]) == ("@acme/shape", "src/check.ts")


def test_node_modules_names_where_to_look_and_a_version_must_be_the_installed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    node_modules = tmp_path / "elsewhere" / "node_modules"
    npm_package(node_modules, "tinyqueue", "2.1.0")
    monkeypatch.chdir(tmp_path)  # no node_modules here or above
    db = str(tmp_path / "npm.sqlite")
    assert run("--db", db, "index", "npm:tinyqueue")[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: no installed npm package named 'tinyqueue' in any node_modules from "
        f"{tmp_path} up (run `npm install` first, or name the directory with --node-modules)\n")
    assert run("--db", db, "index", "npm:tinyqueue@3.0.0", "--node-modules",
               str(node_modules))[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: npm:tinyqueue@3.0.0: {node_modules / 'tinyqueue'} holds tinyqueue 2.1.0, "
        "not 3.0.0\n")
    assert run("--db", db, "index", "npm:../etc", "--node-modules", str(node_modules))[0] == 2
    assert capsys.readouterr().err == "errdex: npm:../etc: not a package name\n"
    assert not Path(db).exists() or stored(db) == {}
    code, _ = run("--db", db, "index", "npm:tinyqueue@2.1.0", "--node-modules",
                  str(node_modules))
    assert code == 0, capsys.readouterr().err
    assert sorted(stored(db)) == [("npm/tinyqueue", "2.1.0")]


def test_a_package_that_ships_only_its_build_has_its_build_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "node_modules" / "builtonly"
    (root / "dist" / "esm").mkdir(parents=True)
    (root / "package.json").write_text('{"name": "builtonly", "version": "5.0.0"}')
    (root / "dist" / "esm" / "walk.js").write_text(
        "export function walk(opts) {\n  if (!opts) {\n"
        "    throw new TypeError('builtonly walk options required');\n  }\n}\n")
    (root / "dist" / "esm" / "walk.d.ts").write_text("export declare function walk(o: {}): void;\n")
    (root / "dist" / "builtonly.min.js").write_text('throw new Error("builtonly minified")\n')
    db = str(tmp_path / "npm.sqlite")
    assert run("--db", db, "index", "npm:builtonly", "--node-modules",
               str(tmp_path / "node_modules"))[0] == 0, capsys.readouterr().err
    assert messages(db) == {"builtonly walk options required"}
    record = explained(db, "TypeError: builtonly walk options required\n    at walk "
                       "(/srv/app/node_modules/builtonly/dist/esm/walk.js:3:11)")
    assert record["sites"][0]["path"] == "dist/esm/walk.js"


def test_a_package_with_nothing_but_bundles_and_declarations_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "node_modules" / "@types" / "thing"
    root.mkdir(parents=True)
    (root / "package.json").write_text('{"name": "@types/thing", "version": "1.0.0"}')
    (root / "index.d.ts").write_text("export declare const x: number;\n")
    db = str(tmp_path / "npm.sqlite")
    assert run("--db", db, "index", "npm:@types/thing", "--node-modules",
               str(tmp_path / "node_modules"))[0] == 2
    assert capsys.readouterr().err == (
        "errdex: npm:@types/thing@1.0.0: no source files to read (none but minified files, "
        "type declarations or data)\n")


def test_package_lock_indexes_each_installed_package_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "app"
    modules = project / "node_modules"
    npm_package(modules, "tinyqueue", "2.1.0")
    npm_package(modules / "tinyqueue" / "node_modules", "tinyqueue", "1.0.0")  # an older copy
    npm_package(modules, "@acme/shape", "0.4.2", typed=True)
    npm_package(modules, "drifted", "1.1.0")  # the lock says 1.0.0
    lock = npm_lock(project, {
        "node_modules/tinyqueue": {"version": "2.1.0"},
        "node_modules/tinyqueue/node_modules/tinyqueue": {"version": "1.0.0"},
        "node_modules/@acme/shape": {"version": "0.4.2", "dev": True},
        "node_modules/drifted": {"version": "1.0.0"},
        "node_modules/gone": {"version": "3.0.0"},
        "node_modules/fsevents": {"version": "2.3.3", "optional": True},
        "node_modules/mylib": {"resolved": "packages/mylib", "link": True},
        "packages/mylib": {"name": "mylib", "version": "0.1.0"},
    })
    db = str(tmp_path / "lock.sqlite")
    code, _ = run("--db", db, "index", "--package-lock", str(lock))
    assert code == 0
    err = capsys.readouterr().err.splitlines()
    assert sorted(stored(db)) == [("@acme/shape", "0.4.2"), ("npm/tinyqueue", "1.0.0"),
                                  ("npm/tinyqueue", "2.1.0")]
    assert err == [
        "errdex: skipped app@1.0.0: the project itself: index its directory instead",
        "errdex: skipped mylib: a link to packages/mylib: index that directory instead",
        "errdex: skipped drifted@1.0.0: node_modules holds 1.1.0, not the locked version "
        "(run `npm ci` beside the lock file first)",
        "errdex: skipped gone@3.0.0: not installed in node_modules (run `npm ci` beside the "
        "lock file first)",
        "errdex: skipped fsevents@2.3.3: an optional dependency, not installed in node_modules "
        "(run `npm ci` beside the lock file first)",
    ]
    # Each copy answers for its own version's message.
    record = explained(db, "RangeError: tinyqueue 1.0.0 is full: 3 items of 3")
    assert (record["repo"], record["version"]) == ("npm/tinyqueue", "1.0.0")
    # Again: every package is stored at its locked version, so none is read again.
    assert run("--db", db, "index", "--package-lock", str(lock))[0] == 0
    err = capsys.readouterr().err
    for name in ("tinyqueue@2.1.0", "tinyqueue@1.0.0", "@acme/shape@0.4.2"):
        assert f"errdex: skipped {name}: already indexed\n" in err


def test_the_hidden_lock_npm_keeps_in_node_modules_is_read_from_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modules = tmp_path / "app" / "node_modules"
    npm_package(modules, "tinyqueue", "2.1.0")
    hidden = modules / ".package-lock.json"  # its keys start at app/, not app/node_modules/
    hidden.write_text(json.dumps({"name": "app", "lockfileVersion": 3, "packages": {
        "node_modules/tinyqueue": {"version": "2.1.0"}}}))
    db = str(tmp_path / "hidden.sqlite")
    assert run("--db", db, "index", "--package-lock", str(hidden))[0] == 0
    assert capsys.readouterr().err == ""
    assert sorted(stored(db)) == [("npm/tinyqueue", "2.1.0")]


def test_a_version_1_lock_reads_its_nested_dependencies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    modules = tmp_path / "node_modules"
    npm_package(modules, "tinyqueue", "2.1.0")
    npm_package(modules / "tinyqueue" / "node_modules", "ringlet", "0.9.0")
    lock = tmp_path / "package-lock.json"
    lock.write_text(json.dumps({"name": "app", "lockfileVersion": 1, "dependencies": {
        "tinyqueue": {"version": "2.1.0", "dependencies": {"ringlet": {"version": "0.9.0"}}},
        "fromgit": {"version": "github:acme/fromgit#0123abc"}}}))
    db = str(tmp_path / "v1.sqlite")
    assert run("--db", db, "index", "--package-lock", str(lock))[0] == 0
    assert capsys.readouterr().err == (
        "errdex: skipped fromgit@github:acme/fromgit#0123abc: not from a registry (a git, "
        "file or URL dependency): index its directory instead\n")
    assert sorted(stored(db)) == [("npm/ringlet", "0.9.0"), ("npm/tinyqueue", "2.1.0")]
    record = explained(db, "ringlet 0.9.0 is full: 1 items of 1")
    assert record["repo"] == "npm/ringlet"


@pytest.mark.parametrize(("text", "said"), [
    ('{"packages": ', "is not a package-lock.json (not JSON: "),
    ("[1, 2]", "is not a package-lock.json (not a JSON object)"),
    ('{"name": "app", "lockfileVersion": 3}',
     'is not a package-lock.json (no "packages" or "dependencies" map)'),
    ('{"packages": {"node_modules/../../etc": {"version": "1.0.0"}}}',
     "is not a package-lock.json (a package without a plain name or place: "
     "'node_modules/../../etc')"),
])
def test_a_lock_file_that_is_not_one_is_one_line_and_exit_2_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, said: str
) -> None:
    db = tmp_path / "x.sqlite"
    bad = tmp_path / "package-lock.json"
    bad.write_text(text)
    assert run("--db", str(db), "index", "--package-lock", str(bad))[0] == 2
    err = capsys.readouterr().err
    assert err.startswith(f"errdex: {bad} {said}") and err.count("\n") == 1
    assert not db.exists()


def test_a_missing_lock_file_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "x.sqlite"
    missing = tmp_path / "package-lock.json"
    assert run("--db", str(db), "index", "--package-lock", str(missing))[0] == 2
    assert capsys.readouterr().err == f"errdex: cannot read {missing}: No such file or directory\n"
    assert not db.exists()


def test_a_pnpm_tree_is_read_through_its_links_and_its_paths_pick_the_version(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """pnpm links `node_modules/NAME` into its store `node_modules/.pnpm/NAME@VERSION/`;
    a stack trace through that store names the version, whose record then answers."""
    message = "throw new RangeError(`ringbuf is full: ${n} items`);"
    old = tmp_path / "old" / "node_modules"
    store = old / ".pnpm" / "ringbuf@1.0.0" / "node_modules" / "ringbuf"
    (store / "lib").mkdir(parents=True)
    (store / "package.json").write_text('{"name": "ringbuf", "version": "1.0.0"}')
    (store / "lib" / "index.js").write_text(f"function push(n) {{\n  {message}\n}}\n")
    (old / "ringbuf").symlink_to(store)
    new = tmp_path / "new" / "node_modules" / "ringbuf"
    (new / "lib").mkdir(parents=True)
    (new / "package.json").write_text('{"name": "ringbuf", "version": "2.0.0"}')
    (new / "lib" / "index.js").write_text(
        f"// moved down\n\nfunction push(n) {{\n  if (n > 8) {{\n    {message}\n  }}\n}}\n")
    db = str(tmp_path / "pnpm.sqlite")
    for where in (old, new.parent):
        code, _ = run("--db", db, "index", "npm:ringbuf", "--node-modules", str(where))
        assert code == 0, capsys.readouterr().err
    assert sorted(stored(db)) == [("npm/ringbuf", "1.0.0"), ("npm/ringbuf", "2.0.0")]
    paste = ("RangeError: ringbuf is full: 9 items\n    at push (/srv/app/node_modules/.pnpm/"
             "ringbuf@1.0.0/node_modules/ringbuf/lib/index.js:2:9)\n")
    record = explained(db, paste)
    assert (record["version"], record["sites"][0]["line"]) == ("1.0.0", 2)
    record = explained(db, "RangeError: ringbuf is full: 9 items")
    assert (record["version"], record["sites"][0]["line"]) == ("2.0.0", 5)


def test_a_package_that_links_out_of_node_modules_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A `node_modules/NAME` link to elsewhere (a workspace's, or one planted in a cloned
    project) is refused: named, one line and exit 2; in a lock, one skipped line."""
    outside = npm_package(tmp_path / "secret", "planted", "1.0.0")
    project = tmp_path / "app"
    (project / "node_modules").mkdir(parents=True)
    (project / "node_modules" / "planted").symlink_to(outside)
    db = tmp_path / "x.sqlite"
    link = project / "node_modules" / "planted"
    assert run("--db", str(db), "index", "npm:planted", "--node-modules",
               str(project / "node_modules"))[0] == 2
    assert capsys.readouterr().err == (
        f"errdex: {link} is a link out of {project / 'node_modules'} (to {outside}): index "
        "that directory instead\n")
    lock = npm_lock(project, {"node_modules/planted": {"version": "1.0.0"}})
    assert run("--db", str(db), "index", "--package-lock", str(lock))[0] == 0
    assert f"errdex: skipped planted@1.0.0: {link} is a link out of" in capsys.readouterr().err
    assert stored(str(db)) == {}
