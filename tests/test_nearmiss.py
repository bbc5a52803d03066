"""Near misses (errdex.match.near): which templates a message from a nearby version finds,
with what score, whatever the size of the word-pair table."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import pytest

from errdex.match.near import NearIndex, literal_words, near_detail

# Templates as their literal texts, holes between them.
TEMPLATES: list[tuple[str, ...]] = [
    ("the attention mask must be broadcastable to the scores shape ", ""),
    ("tokenizer vocabulary file is missing from the repository",),
    ("the attention mask must be a boolean tensor",),
    ("failed to open the safetensors file ", " for the model"),
    ("cannot broadcast the scores to the mask shape",),
    ("unsupported dtype for conv ", ""),
    ("expected the query and key to have the same dtype, got ", " and ", ""),
]

# Every pair in one slot or two, a few hundred slots, and the table a real index gets.
TABLES = [1, 2, 300, 0]


def best(index: NearIndex, message: str) -> int | None:
    """The template a user is shown first: the highest score, then the word order."""
    found, _ = index.nearest(message)
    return max(found, key=lambda f: (f[1], f[3]))[0] if found else None


def scores(index: NearIndex, message: str) -> dict[int, float]:
    return {i: score for i, score, _, _ in index.nearest(message)[0]}


@pytest.mark.parametrize("slots", TABLES)
def test_a_near_miss_is_found_however_small_the_pair_table(slots: int) -> None:
    """With every pair colliding into one or two slots, the pairs a message shares with
    its template still find it, and the other pairs of the slot bring nothing more than
    a table of a thousand slots does."""
    index = NearIndex(TEMPLATES, slots=slots)
    message = "the attention mask should be broadcastable to the logits shape [2, 3]"
    assert best(index, message) == 0
    assert scores(index, message) == scores(NearIndex(TEMPLATES), message)
    changed = "failed to open the safetensors archive /tmp/m.bin for the model"
    assert best(index, changed) == 3


@pytest.mark.parametrize("slots", TABLES)
def test_an_unrelated_message_finds_nothing(slots: int) -> None:
    index = NearIndex(TEMPLATES, slots=slots)
    assert index.nearest("purple elephants dance quietly under the moonlight tonight")[0] == []
    # Every word of a template, in an order keeping none of its pairs: words alone
    # don't make a near miss, however many pairs the slot of each pair holds.
    reversed_words = "repository the from missing is file vocabulary tokenizer"
    assert index.nearest(reversed_words)[0] == []
    assert index.nearest("the attention")[0] == []  # too few words to say anything


def test_the_score_is_the_idf_weighted_share_of_the_template_words_the_message_has() -> None:
    index = NearIndex(TEMPLATES)
    words = [literal_words(t) for t in TEMPLATES]
    df = {w: sum(w in ws for ws in words) for w in set().union(*words)}

    def idf(word: str) -> float:
        return math.log(1 + len(TEMPLATES) / df[word])

    message = "the attention mask must be broadcastable to the logits shape (2, 3)"
    kept = words[0] - {"scores"}
    expected = sum(map(idf, kept)) / sum(map(idf, words[0]))
    assert scores(index, message)[0] == pytest.approx(expected)
    [(_, score, counted, _)] = [f for f in index.nearest(message)[0] if f[0] == 0]
    assert counted == (len(kept), len(words[0]))
    assert near_detail(counted, score).startswith(
        f"approximate: {len(kept)} of {len(words[0])} template words")

    # Every word of the template, and more: the whole of its wording.
    whole = "the attention mask must be broadcastable to the scores shape [2, 3] here"
    assert scores(index, whole)[0] == 1.0


def test_a_changed_rare_word_costs_more_than_a_changed_common_one() -> None:
    index = NearIndex(TEMPLATES)
    rare_changed = "failed to open the weights file /m.bin for the model"
    common_changed = "failed at open the safetensors file /m.bin for the model"  # `to`
    assert best(index, rare_changed) == best(index, common_changed) == 3
    assert scores(index, rare_changed)[3] < scores(index, common_changed)[3] < 1.0


def test_a_short_template_is_found_by_the_one_pair_a_changed_word_leaves_it() -> None:
    """`unsupported dtype for conv` has three pairs; a changed `for` leaves it only
    `unsupported dtype`, which is enough for a template that short."""
    index = NearIndex(TEMPLATES)
    assert best(index, "unsupported dtype in conv F16") == 5


def test_templates_of_the_same_words_are_told_apart_by_word_order() -> None:
    literals = [("shape mismatch q ", " and k ", ""), ("shape mismatch k ", " and v ", "")]
    index = NearIndex(literals)
    found = {i: (score, order) for i, score, _, order in index.nearest(
        "shape mismatch k [4, 16] and value [4, 32] from the cache")[0]}
    assert found[0][0] == found[1][0]  # the same words, so the same score
    assert found[1][1] > found[0][1]  # `k .. and` kept in order: the second one
    assert best(index, "shape mismatch k [4, 16] and value [4, 32]") == 1


def test_lookups_are_the_same_in_every_process() -> None:
    """Not a word of the index depends on str's per-process hash, so a benchmark (or a
    user) sees the same results, and the same work, in every run."""
    script = (
        "from tests.test_nearmiss import TEMPLATES\n"
        "from errdex.match.near import NearIndex\n"
        "index = NearIndex(TEMPLATES * 40, slots=64)\n"
        "for message in ('the attention mask should be broadcastable to the scores shape x',"
        " 'failed to open the weights file /m.bin for the model',"
        " 'expected the query and value to have the same dtype, got F16 and F32'):\n"
        "    print(index.nearest(message))\n"
    )
    runs = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, check=True, cwd=os.path.dirname(os.path.dirname(
                                  os.path.abspath(__file__))))
        runs.append(done.stdout)
    assert runs[0] == runs[1]
    assert all(not line.startswith("([]") for line in runs[0].splitlines())  # found some
