"""Failure classes: the family an error belongs to, read from its message, type, guard and
raising line; None when nothing fits."""

from __future__ import annotations

import pytest

from errdex.analyze.classes import CLASSES, background, classify
from errdex.models import Language, Record, SiteKind
from tests import builders


def make_record(
    message: str,
    exception: str | None = None,
    guard: str | None = None,
    line_text: str = "",
    language: Language = Language.PYTHON,
) -> Record:
    return builders.make_record(
        message, guard, language=language, kind=SiteKind.RAISE, exception=exception,
        snippet=line_text, path="m.py",
    )


@pytest.mark.parametrize(
    ("message", "exception", "guard", "line", "slug"),
    [
        ("shape mismatch k {:?} and v {:?}", None, None, "", "shape-mismatch"),
        ("`k` and `v` head dims must match", None, None, "", "shape-mismatch"),
        ("lhs and rhs", "Error::ShapeMismatchBinaryOp", None, "", "shape-mismatch"),
        ("unexpected dtype {:?}, expected f32", None, None, "", "dtype-mismatch"),
        ("tensors are on different devices", None, None, "", "device-mismatch"),
        ("index {} out of range for length {}", None, None, "", "index-out-of-range"),
        ("input rank ({}) must be >= weight rank ({})", None, None, "", "rank-dimension"),
        ("cannot find tensor {name}", None, None, "", "missing-key"),
        ("{}", "KeyError", None, "", "missing-key"),
        ("config file {} does not exist", None, None, "", "missing-file"),
        ("only kv-repeat = 1 is supported", None, None, "", "unsupported-operation"),
        ("no cuda support for {op:?}", None, None, 'unimplemented!("no cuda")', "not-implemented"),
        ("subclasses override this", "NotImplementedError", None, "", "not-implemented"),
        ("invalid JSON at line {}", None, None, "", "parse-error"),
        ("count must be an int", "TypeError", "not isinstance(count, int)", "", "type-error"),
        ("request timed out after {}s", None, None, "", "timeout"),
        ("permission denied writing {}", None, None, "", "permission"),
        ("connection refused by {host}", None, None, "", "network"),
        ("lock poisoned", None, None, "", "concurrency"),
        ("file was written by version {}", None, None, "", "version-compatibility"),
        ("loss is NaN", None, None, "", "numerical"),
        ("reader is already closed", None, None, "", "invalid-state"),
        ("n_heads must be positive", "ValueError", None, "", "invalid-argument"),
        ("bad state", None, None, 'unreachable!("bad state")', "internal-invariant"),
        ("unexpected pid {} - this shouldn't happen", None, None, "", "internal-invariant"),
        ("unknown option {} in [tool.x]", None, None, "", "invalid-configuration"),
        ("please install scipy: pip install scipy", "ImportError", None, "", "missing-dependency"),
        ("x", None, "self.kv_repeat != cfg.kv_repeat", "", "invalid-configuration"),
    ],
)
def test_classify(
    message: str, exception: str | None, guard: str | None, line: str, slug: str
) -> None:
    found = classify(make_record(message, exception, guard, line))
    assert found is not None and found.slug == slug


@pytest.mark.parametrize("message", ["oops", "{}"])
def test_neutral_messages_have_no_class(message: str) -> None:
    assert classify(make_record(message, "RuntimeError")) is None


@pytest.mark.parametrize(("message", "slug"), [
    ("the model weights ran out of memory on the card", "resource-exhaustion"),
    ("the candle crate has not been built with cuda support", "missing-dependency"),
    ("Metal index_select requires contiguous ids", "memory-layout"),
    ("a and y have different lengths {a_len} <> {y_len}", "shape-mismatch"),
])
def test_every_message_with_words_gets_a_class(message: str, slug: str) -> None:
    found = classify(make_record(message, None))
    assert found is not None and found.slug == slug


def test_no_class_is_guessed_from_shared_words() -> None:
    # "number" and "layers" appear in class descriptions; no rule fits, so no class.
    assert classify(make_record("something went wrong", "RuntimeError")) is None
    assert classify(make_record(
        "The number of encoder hidden states {} is not equal to the number of linear layers {}",
        None)) is None
    # "lock file" is a file, not a mutex
    assert classify(make_record(
        "Provided environment does not satisfy any of the environments specified in the lock "
        "file", None)) is None
    ruled = classify(make_record("shape mismatch in add", None))
    assert ruled is not None and ruled.by == "rules"


@pytest.mark.parametrize("message", [
    "Octet {} (> 255) not permitted",  # a value the parser rejects (ipaddress)
    "host/device copies are not permitted while capturing",  # a state rule
    "attribute '__dict__' is read-only",  # an object's attribute
])
def test_rejected_values_and_read_only_objects_are_not_permission_errors(message: str) -> None:
    found = classify(make_record(message, "ValueError"))
    assert found is None or found.slug != "permission", found


def test_the_systems_own_permission_words_are_permission_errors() -> None:
    for message in ("[Errno 1] Operation not permitted: {}", "{} is on a read-only file system"):
        found = classify(make_record(message, "OSError"))
        assert found is not None and found.slug == "permission", (message, found)


def test_the_taxonomy_is_complete_and_documented() -> None:
    slugs = [slug for slug, _, _ in CLASSES]
    assert len(slugs) == len(set(slugs)) >= 20
    assert {"shape-mismatch", "missing-key", "not-implemented", "internal-invariant"} <= set(slugs)
    for slug, title, text in CLASSES:
        assert title and len(text) > 80 and background(slug) == text


def test_the_error_type_outweighs_words_and_words_outweigh_the_guard() -> None:
    make_record = builders.make_record
    deprecated = make_record("urllib.parse.splitnport() is deprecated, use urlparse()",
                             language=Language.PYTHON, exception="DeprecationWarning")
    found = classify(deprecated)
    assert found is not None and found.slug == "version-compatibility"  # not "parse-error"
    unsupported = make_record("unsupported sdpa type {other:?}",
                              "!matches!(q.dtype(), DType::BF16 | DType::F32)")
    found = classify(unsupported)
    assert found is not None and found.slug == "unsupported-operation"  # not dtype-mismatch


def test_words_inside_other_words_do_not_pick_a_class() -> None:
    """`Pylock` is no lock, "unexpected state" says nothing of an expected argument."""
    pylock = builders.make_record("Missing required value: {key}", language=Language.PYTHON,
                                  exception="PylockValidationError")
    found = classify(pylock)
    assert found is None or found.slug != "concurrency"
    state = builders.make_record("Future in unexpected state", language=Language.PYTHON,
                                 exception="InvalidStateError")
    found = classify(state)
    assert found is None or found.slug != "invalid-argument"
