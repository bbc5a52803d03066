"""The matcher at scale and under attack: a 10 MB one-line paste, lines written to make a
backtracking matcher blow up, and thousands of templates. Linear time is asserted by
counting the matcher's work (MatchStats) and bounding peak memory, never by the clock;
a quadratic path here would also simply never finish."""

from __future__ import annotations

import random
import tracemalloc
from collections.abc import Callable

import pytest

from errdex.match import MatchEntry, Matcher
from errdex.match.evidence import text_libraries
from tests.test_match import BINARY, DTYPE, INVALID, KV, LOADING, SHAPE, entry, tpl


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher([SHAPE, KV, BINARY, DTYPE, LOADING, INVALID])


def _peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_ten_megabyte_single_line_paste(matcher: Matcher) -> None:
    noise = "tensor([0.1250, 0.2500, -1.0000, 3.1416], dtype=float32) "
    text = "ValueError: " + noise * (10_000_000 // len(noise)) + "cannot load weights from /w.bin"
    assert len(text) > 10_000_000
    found: list[object] = []
    peak = _peak(lambda: found.append(matcher.match_with_stats(text, 5)))
    matches, stats = found[0]  # type: ignore[misc]
    assert [(m.record_id, m.values) for m in matches] == [("loading", (("path", "/w.bin"),))]
    assert stats.work <= 2 * len(text)
    assert peak <= 8 * len(text)  # a few copies of the text, nothing per character


# Each makes some naive matcher do quadratic (or exponential) work: many anchor
# occurrences with no closing literal, nested Debug openers, unclosed strings, endless
# prefixes and traceback frames, a cause list that never ends.
HOSTILE: dict[str, Callable[[int], str]] = {
    "anchors without their tail": lambda n: "shape mismatch k [1] " * (n // 21),
    "one anchor, huge hole": lambda n: "shape mismatch k " + "[1, " * (n // 4),
    "nested debug openers": lambda n: "Error: " + "Msg(Foo { a: [" * (n // 15),
    "unclosed debug string": lambda n: 'Error: Msg("' + '\\"' * (n // 2),
    "endless prefixes": lambda n: "ERROR: " * (n // 7) + "x",
    "dotted type name": lambda n: "a." * (n // 2) + "ValueError: x",
    "old panic quote": lambda n: "thread 'main' panicked at '" + "'" * n,
    "frames only": lambda n: '  File "a.py", line 1, in f\n' * (n // 28),
    "causes without end": lambda n: "Error: x\n\nCaused by:\n" + "    0: y\n" * (n // 9),
    "many short lines": lambda n: "ValueError: invalid value 1 for option\n" * (n // 39),
    "spaces then x": lambda n: " " * n + "x",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_lines_cost_linear_work_and_memory(matcher: Matcher, name: str) -> None:
    make = HOSTILE[name]
    small, big = make(100_000), make(400_000)
    _, small_stats = matcher.match_with_stats(small, 5)
    found: list[object] = []
    peak = _peak(lambda: found.append(matcher.match_with_stats(big, 5)))
    _, big_stats = found[0]  # type: ignore[misc]
    assert big_stats.work <= 45 * len(big) + 2_000_000
    # Four times the text costs at most about four times the work (+ a constant).
    assert big_stats.work <= 4.5 * small_stats.work + 100_000
    assert peak <= 40 * len(big) + 40_000_000  # a Debug value is parsed up to 200k chars


WORDS = (
    "tensor shape dtype device index buffer stride layout kernel weight bias cache token "
    "batch layer head rank axis block chunk frame field column stream socket header "
    "record schema option config module symbol quant scale offset window"
).split()


def _templates(count: int) -> list[MatchEntry]:
    rng = random.Random(7)
    out = []
    for i in range(count):
        a, b, c = rng.sample(WORDS, 3)
        text = f"{a} {b} mismatch{i} for {{x|:?}}: expected {c} {{y}}, got {{z}}"
        out.append(entry(f"t{i}", text))
    return out


def test_candidates_stay_few_among_thousands_of_similar_templates() -> None:
    entries = _templates(20_000)
    matcher = Matcher(entries)
    rng = random.Random(3)
    for i in rng.sample(range(20_000), 50):
        literals = entries[i].template.literals
        text = f"{literals[0]}[2, 3]{literals[1]}cpu{literals[2]}cuda:0"
        matches, stats = matcher.match_with_stats(text, 3)
        assert matches[0].record_id == f"t{i}"
        assert dict(matches[0].values) == {"x": "[2, 3]", "y": "cpu", "z": "cuda:0"}
        assert stats.verifications <= 4



def test_templates_sharing_their_only_long_fragment_are_not_all_verified() -> None:
    """A hundred templates are `<word> {} is not divisible by {}`: one anchor for all of
    them. Only those whose other word is in the message are verified, the right one is
    found with its values, and one that shares the word only inside a longer one still
    matches as before (the word is looked for as a substring)."""
    words = [w + s for w in WORDS for s in ("", "s", "ed")][:100]
    crowd = [entry(f"d{i}", f"{word} {{n}} is not divisible by {{d}}")
             for i, word in enumerate(words)]
    matcher = Matcher(crowd)
    for i in (0, 37, 99):
        matches, stats = matcher.match_with_stats(f"{words[i]} 7 is not divisible by 3", 3)
        assert (matches[0].record_id, dict(matches[0].values)) == (f"d{i}", {"n": "7", "d": "3"})
        assert stats.verifications <= 6
    matches = matcher.match(f"un{words[5]} 12 is not divisible by 5")
    assert matches[0].record_id == "d5" and matches[0].exact

# --- ranking: the library and version the traceback came from ---------------------------


def _twin(record_id: str, repo: str, version: str | None) -> MatchEntry:
    return MatchEntry(record_id, repo, "ValueError", tpl("bad header {name|!r}"), (),
                      version=version)  # fmt: skip


def test_a_site_packages_frame_prefers_that_library() -> None:
    matcher = Matcher([_twin("alpha", "acme/alpha", "1.0"), _twin("beta", "acme/beta", "2.0")])
    text = (
        "Traceback (most recent call last):\n"
        '  File "/srv/app/main.py", line 3, in <module>\n'
        '  File "/srv/venv/lib/python3.11/site-packages/beta/core.py", line 9, in parse\n'
        "ValueError: bad header 'x-id'\n"
    )
    matches = matcher.match(text)
    assert [m.record_id for m in matches] == ["beta", "alpha"]
    assert "traceback comes from acme/beta" in matches[0].why
    plain = matcher.match("ValueError: bad header 'x-id'")
    assert [m.record_id for m in plain] == ["alpha", "beta"]  # nothing to prefer: by order


def test_the_version_in_a_path_prefers_that_release() -> None:
    old = _twin("old", "python/cpython", "3.9.18")
    new = _twin("new", "python/cpython", "3.11.7")
    text = (
        '  File "/usr/lib/python3.11/email/header.py", line 5, in parse\n'
        "ValueError: bad header 'x'\n"
    )
    assert Matcher([old, new]).match(text)[0].record_id == "new"
    assert Matcher([new, old]).match(text)[0].record_id == "new"
    crate = (
        "   3: candle_core::tensor::Tensor::narrow\n"
        "             at /home/u/.cargo/registry/src/index.crates.io-6f17d22bba15001f/"
        "candle-core-0.8.0/src/tensor.rs:12:5\n"
    )
    assert text_libraries(crate) == {("candle_core", "0.8.0")}
    assert text_libraries(text) == {("cpython", "3.11")}
