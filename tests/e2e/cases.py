"""Real errors, raised for real by pure-Python code that is on every machine: the standard
library and the packages errdex's own tests install (packaging, via pytest).

Each case is a callable that must raise; the end-to-end test checks that errdex, having
indexed that code, explains the printed exception with the record of the raising line.
"""

from __future__ import annotations

import argparse
import base64
import calendar
import collections
import configparser
import dataclasses
import enum
import fractions
import functools
import getopt
import gzip
import io
import ipaddress
import logging
import optparse
import pathlib
import plistlib
import random
import shlex
import statistics
import string
import tarfile
import textwrap
import threading
import tomllib
import typing
import urllib.parse
import uuid
import wave
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import packaging.markers
import packaging.requirements
import packaging.specifiers
import packaging.utils
import packaging.version


class _Color(enum.Enum):
    RED = 1


def _config(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read_string(text)
    return parser


def _mutable_default() -> None:
    @dataclasses.dataclass
    class _C:
        x: list[int] = []  # noqa: RUF008


def _non_default_after_default() -> None:
    exec(  # builds the class the way a user's module would
        "import dataclasses\n@dataclasses.dataclass\nclass C:\n    a: int = 1\n    b: int\n"
    )


def _no_ordering() -> None:
    @functools.total_ordering
    class _C:
        pass


def _argparse_conflict() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-x")
    parser.add_argument("-x")


def _join_unstarted() -> None:
    threading.Thread(target=print).join()


CASES: dict[str, Callable[[], object]] = {
    "fraction literal": lambda: fractions.Fraction("x"),
    "fraction zero": lambda: fractions.Fraction(1, 0),
    "ip address": lambda: ipaddress.ip_address("300.1.1.1"),
    "ip network host bits": lambda: ipaddress.ip_network("10.0.0.1/24"),
    "ipv4 octets": lambda: ipaddress.IPv4Address("1.2.3"),
    "ipv4 netmask": lambda: ipaddress.IPv4Network("1.2.3.4/33"),
    "ipv6 address": lambda: ipaddress.IPv6Address("1:2"),
    "uuid hex": lambda: uuid.UUID("x"),
    "uuid no args": lambda: uuid.UUID(),
    "shlex quote": lambda: shlex.split('"abc'),
    "shlex escape": lambda: shlex.split("abc\\"),
    "textwrap width": lambda: textwrap.TextWrapper(width=0).wrap("a b"),
    "textwrap placeholder": lambda: textwrap.shorten("hello world", width=2),
    "base32 padding": lambda: base64.b32decode("A"),
    "base85 char": lambda: base64.b85decode(b"~~~~~"),
    "calendar month": lambda: calendar.monthrange(2020, 13),
    "calendar weekday": lambda: calendar.setfirstweekday(9),
    "config duplicate section": lambda: _config("[a]\nb = 1\n[a]\n"),
    "config no section": lambda: _config("[a]\n").get("x", "y"),
    "config no option": lambda: _config("[a]\n").get("a", "y"),
    "config no header": lambda: _config("x = 1\n"),
    "config interpolation": lambda: _config("[a]\nb = %(c)s\n").get("a", "b"),
    "template placeholder": lambda: string.Template("$").substitute(),
    "mean empty": lambda: statistics.mean([]),
    "stdev one": lambda: statistics.stdev([1.0]),
    "harmonic negative": lambda: statistics.harmonic_mean([-1.0]),
    "quantiles n": lambda: statistics.quantiles([1.0, 2.0], n=0),
    "url ipv6": lambda: urllib.parse.urlsplit("http://[::1"),
    "zip not zip": lambda: zipfile.ZipFile(io.BytesIO(b"not a zip file")),
    "gzip not gzip": lambda: gzip.decompress(b"xxxxxxxxxxxx"),
    "path relative_to": lambda: pathlib.PurePosixPath("a").relative_to("b"),
    "path suffix": lambda: pathlib.PurePosixPath("a").with_suffix("x"),
    "path empty name": lambda: pathlib.PurePosixPath("").with_name("x"),
    "random sample": lambda: random.sample([1], 2),
    "random weights": lambda: random.choices([1], [1, 2]),
    "random randrange": lambda: random.randrange(0),
    "enum value": lambda: _Color(5),
    "total ordering": _no_ordering,
    "dataclass mutable default": _mutable_default,
    "dataclass non-default": _non_default_after_default,
    "dataclass fields": lambda: dataclasses.fields(1),  # type: ignore[call-overload]
    "namedtuple duplicate": lambda: collections.namedtuple("P", "a a"),
    "namedtuple keyword": lambda: collections.namedtuple("P", "def"),
    "namedtuple underscore": lambda: collections.namedtuple("P", "_a"),
    "logging level": lambda: logging.Logger("x").setLevel("NOPE"),
    "logging style": lambda: logging.Formatter(style="x"),  # type: ignore[arg-type]
    "argparse conflict": _argparse_conflict,
    "getopt unknown": lambda: getopt.getopt(["-x"], ""),
    "optparse short": lambda: optparse.OptionParser().add_option("x"),
    "plist invalid": lambda: plistlib.loads(b"not a plist"),
    "wave riff": lambda: wave.open(io.BytesIO(b"not a wave file at all")),  # noqa: SIM115
    "tar read": lambda: tarfile.open(fileobj=io.BytesIO(b"x" * 600), mode="r:"),  # noqa: SIM115
    "toml equals": lambda: tomllib.loads("x"),
    "toml overwrite": lambda: tomllib.loads("a = 1\na = 2\n"),
    "semaphore negative": lambda: threading.Semaphore(-1),
    "thread join": _join_unstarted,
    "executor workers": lambda: ThreadPoolExecutor(max_workers=0),
    "typing optional": lambda: typing.Optional[1, 2],  # type: ignore[misc]  # noqa: UP045
    "version invalid": lambda: packaging.version.Version("not-a-version"),
    "specifier invalid": lambda: packaging.specifiers.Specifier("=>1"),
    "wheel filename": lambda: packaging.utils.parse_wheel_filename("foo.tar.gz"),
    "sdist filename": lambda: packaging.utils.parse_sdist_filename("foo.whl"),
    "marker invalid": lambda: packaging.markers.Marker("python_version >"),
    "requirement invalid": lambda: packaging.requirements.Requirement("name["),
}
