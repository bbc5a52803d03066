"""A private function whose every call sits in a `try` whose handler catches what it
raises and carries on never shows its error to a user (round-7 Python review, defect 2:
jinja2's `except (nodes.Impossible, Exception)` around `_output_child_to_const`): its
page says where the library catches it, not which argument to change. A caller that
raises again, or one call that nothing catches, keeps the page as it was."""

from __future__ import annotations

from pathlib import Path

from tests.test_dispatch_prefix import _record

CAUGHT = {
    "gen/__init__.py": "",
    "gen/nodes.py": (
        "class Impossible(Exception):\n"
        "    pass\n"
    ),
    "gen/compiler.py": (
        "from gen import nodes\n"
        "\n"
        "\n"
        "def _as_const(node):\n"
        "    if node.dynamic:\n"
        "        raise nodes.Impossible('the node is not a constant')\n"
        "    return node.value\n"
        "\n"
        "\n"
        "def _fold(node):\n"
        "    if node.frozen:\n"
        "        raise ValueError('a frozen node cannot be folded')\n"
        "    return node\n"
        "\n"
        "\n"
        "def render(nodes_):\n"
        "    out = []\n"
        "    for node in nodes_:\n"
        "        try:\n"
        "            out.append(_as_const(node))\n"
        "        except (nodes.Impossible, TypeError):\n"
        "            out.append(node)\n"
        "        try:\n"
        "            _fold(node)\n"
        "        except Exception as e:\n"
        "            raise RuntimeError('cannot fold') from e\n"
        "    return out\n"
        "\n"
        "\n"
        "def quick(node):\n"
        "    try:\n"
        "        return _as_const(node)\n"
        "    except Exception:\n"
        "        return None\n"
    ),
}


def test_an_error_every_caller_catches_is_said_to_be_caught_there(tmp_path: Path) -> None:
    record = _record(tmp_path, CAUGHT, "the node is not a constant")
    text = f"{record.explanation.summary} {record.explanation.what_it_means}"
    assert record.explanation.summary.startswith("This error never reaches your code"), text
    assert "gen/compiler.py:21" in text and "gen/compiler.py:33" in text, text
    assert "Trace the values" not in " ".join(record.explanation.solutions), \
        record.explanation.solutions
    assert not any("fail the check" in s for s in record.explanation.common_situations), \
        record.explanation.common_situations


def test_an_error_a_caller_raises_again_is_not_said_to_be_caught(tmp_path: Path) -> None:
    record = _record(tmp_path, CAUGHT, "a frozen node cannot")
    assert "never reaches" not in record.explanation.summary, record.explanation.summary
    assert "`gen.compiler.render`" in record.explanation.summary, record.explanation.summary


def test_an_error_one_caller_does_not_catch_is_not_said_to_be_caught(tmp_path: Path) -> None:
    files = dict(CAUGHT)
    files["gen/compiler.py"] += "\n\ndef value(node):\n    return _as_const(node)\n"
    record = _record(tmp_path, files, "the node is not a constant")
    assert "never reaches" not in record.explanation.summary, record.explanation.summary


def test_a_base_class_call_on_self_that_a_subclass_overrides_is_caught_there(
        tmp_path: Path) -> None:
    files = {
        "gen/__init__.py": "",
        "gen/compiler.py": (
            "class Impossible(Exception):\n"
            "    pass\n"
            "\n"
            "\n"
            "class Generator:\n"
            "    def output(self, nodes):\n"
            "        for node in nodes:\n"
            "            try:\n"
            "                self._const(node)\n"
            "            except (Impossible, Exception):\n"
            "                # not a constant: rendered at runtime\n"
            "                continue\n"
            "\n"
            "    def _const(self, node):\n"
            "        return node\n"
        ),
        "gen/native.py": (
            "from gen.compiler import Generator, Impossible\n"
            "\n"
            "\n"
            "class NativeGenerator(Generator):\n"
            "    def _const(self, node):\n"
            "        if node is None:\n"
            "            raise Impossible('no native constant for this node')\n"
            "        return node\n"
        ),
    }
    record = _record(tmp_path, files, "no native constant")
    assert record.explanation.summary.startswith("This error never reaches your code"), \
        record.explanation.summary
    assert "gen/compiler.py:10" in record.explanation.summary, record.explanation.summary


def test_an_error_of_a_function_also_handed_on_as_a_value_is_not_said_to_be_caught(
        tmp_path: Path) -> None:
    files = dict(CAUGHT)
    files["gen/compiler.py"] += (
        "\n\ndef later(node, run):\n    return run(functools.partial(_as_const, node))\n")
    record = _record(tmp_path, files, "the node is not a constant")
    assert "never reaches" not in record.explanation.summary, record.explanation.summary
