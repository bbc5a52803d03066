"""A public function that catches each error of its checks, keeps it and raises them all
together in an `ExceptionGroup` hands its caller the group, not the error (packaging's
`Metadata.from_raw`, through its `_ErrorCollector`): the page says so, and its snippets
catch the group (`except*`), since `except BadField` would not."""

from __future__ import annotations

from pathlib import Path

from tests.test_dispatch_prefix import _record

GROUPED = {
    "meta/__init__.py": "",
    "meta/errors.py": (
        "class Collector:\n"
        "    def __init__(self):\n"
        "        self.errors = []\n"
        "\n"
        "    def keep(self, error):\n"
        "        self.errors.append(error)\n"
        "\n"
        "    def finish(self, msg):\n"
        "        if self.errors:\n"
        "            raise ExceptionGroup(msg, self.errors)\n"
    ),
    "meta/core.py": (
        "from meta.errors import Collector\n"
        "\n"
        "\n"
        "class BadField(ValueError):\n"
        "    pass\n"
        "\n"
        "\n"
        "def _check(key, value):\n"
        "    if not value:\n"
        "        raise BadField(f'{key} is a required field')\n"
        "\n"
        "\n"
        "def load(data):\n"
        "    collector = Collector()\n"
        "    for key, value in data.items():\n"
        "        try:\n"
        "            _check(key, value)\n"
        "        except BadField as exc:\n"
        "            collector.keep(exc)\n"
        "    collector.finish('invalid fields')\n"
        "    return data\n"
        "\n"
        "\n"
        "def _size(n):\n"
        "    if n < 0:\n"
        "        raise BadField('size must not be negative')\n"
        "\n"
        "\n"
        "def check_all(sizes):\n"
        "    errors = []\n"
        "    for n in sizes:\n"
        "        try:\n"
        "            _size(n)\n"
        "        except BadField as e:\n"
        "            errors.append(e)\n"
        "    if errors:\n"
        "        raise ExceptionGroup('bad sizes', errors)\n"
    ),
}


def test_a_collected_error_is_said_to_arrive_in_the_group(tmp_path: Path) -> None:
    record = _record(tmp_path, GROUPED, "{key} is a required field")
    text = record.explanation.what_it_means
    assert "Through `meta.core.load` it arrives inside an `ExceptionGroup` (\u201cinvalid fields" \
        in text  # fmt: skip
    catch = record.explanation.defensive.try_catch
    assert "except* BadField as eg:" in catch
    assert "except BadField as e:" not in catch
    assert "isinstance(e, BaseExceptionGroup)" in record.explanation.defensive.type_guard


def test_a_list_raised_in_a_group_is_followed_too(tmp_path: Path) -> None:
    record = _record(tmp_path, GROUPED, "size must not be negative")
    assert "arrives inside an `ExceptionGroup` (\u201cbad sizes\u201d)" \
        in record.explanation.what_it_means  # fmt: skip
    assert "except* BadField as eg:" in record.explanation.defensive.try_catch
