"""The reports test runners write, read into each test's outcome.

A language whose runner runs many tests in one process (its recipe's ``batch``) names the
format of the report it writes (``report``): JUnit XML (PHPUnit's: a method's data sets are
one test), ``go test -json`` events, Rust libtest's JSON lines or its log file, or TAP. Each parser gives test
name -> passed: a test passes only where every entry the report has for it passed (a
skipped, ignored or errored one did not), so an extra "passed" line can never outvote a
failure; a test the report does not name is not in the result (the harness runs it on its
own).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from xml.etree import ElementTree

Outcomes = dict[str, bool]


def parse(report_format: str, text: str, name: str = "{name}") -> Outcomes:
    """``text`` (a report in ``report_format``) as test name -> passed; ``name`` makes a
    JUnit test case's name from its ``{classname}`` and ``{name}``.

    Raises:
        KeyError: ``report_format`` is not one of `FORMATS`.
    """
    outcomes: Outcomes = {}
    for test, passed in FORMATS[report_format](text, name):
        outcomes[test] = outcomes.get(test, True) and passed
    return outcomes


_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


def _junit(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """JUnit XML: every ``testcase``; one with a ``failure``, ``error`` or ``skipped`` child
    did not pass."""
    for case in _junit_cases(text):
        test = name.format(classname=case.get("classname", ""), name=case.get("name", ""))
        yield test, not any(child.tag in ("failure", "error", "skipped") for child in case)


_DATA_SET = re.compile(r" with data set .*\Z", re.DOTALL)


def _phpunit_junit(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """PHPUnit's JUnit XML: a test case is ``<class>::<method>`` (its ``class`` attribute,
    the PHP class, and its name less a data set's `` with data set ...``: each data set is
    one entry of its method's test); a ``warning`` child did not pass either."""
    del name
    for case in _junit_cases(text):
        test = f"{case.get('class', '')}::{_DATA_SET.sub('', case.get('name', ''))}"
        yield test, not any(child.tag in ("failure", "error", "skipped", "warning") for child in case)


def _junit_cases(text: str) -> Iterator[ElementTree.Element]:
    """Every ``testcase`` of JUnit XML. Several documents one after the other (a runner's
    reports, concatenated) are read each in turn; one that does not parse, or declares a
    document type (entities a hostile report could expand without end), adds nothing."""
    for document in re.split(r"(?=<\?xml\b)", text):
        if not document.strip() or _DECLARATION.search(document):
            continue
        try:
            root = ElementTree.fromstring(document.strip())
        except ElementTree.ParseError:
            continue
        yield from root.iter("testcase")


def _json_lines(text: str) -> Iterator[dict[str, object]]:
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def _go_json(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """``go test -json`` (``go tool test2json``) events: a top-level test's ``pass`` or
    ``fail`` (``skip`` did not pass); subtests (``TestX/case``) are their parent's part."""
    del name
    for event in _json_lines(text):
        test, action = event.get("Test"), event.get("Action")
        if isinstance(test, str) and "/" not in test and action in ("pass", "fail", "skip"):
            yield test, action == "pass"


def _libtest_json(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """Rust libtest's JSON lines (``--format json``): a test's ``ok``, ``failed``,
    ``ignored`` or ``timeout`` event (only ``ok`` passed)."""
    del name
    for event in _json_lines(text):
        test, outcome = event.get("name"), event.get("event")
        if event.get("type") == "test" and isinstance(test, str) and outcome in ("ok", "failed", "ignored", "timeout"):
            yield test, outcome == "ok"


def _libtest_log(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """Rust libtest's log file (``--logfile PATH``): a line ``ok NAME``, ``failed NAME`` or
    ``ignored NAME`` per test, written by the runner alone as each test ends (what a test
    prints never goes there; a test that hangs is not in it)."""
    del name
    for line in text.splitlines():
        outcome, _, test = line.partition(" ")
        if outcome in ("ok", "failed", "ignored") and test:
            yield test, outcome == "ok"


_TAP_LINE = re.compile(r"^(not )?ok\b\s*\d*\s*(?:-\s*)?(.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$", re.IGNORECASE)


def _tap(text: str, name: str) -> Iterator[tuple[str, bool]]:
    """TAP's top-level test lines, ``ok N - name`` or ``not ok N - name``; one with a
    ``# SKIP`` or ``# TODO`` directive did not pass."""
    del name
    for line in text.splitlines():
        match = _TAP_LINE.match(line)
        if match and match.group(2):
            yield match.group(2), match.group(1) is None and match.group(3) is None


def bailed_out(report_format: str, text: str) -> str | None:
    """Why the runner ran no test, where its report begins by saying so (TAP's ``Bail out!``:
    the sources do not compile, as a runner found before any of the tree's code ran), else None."""
    if report_format == "tap" and text.startswith("Bail out!"):
        return text[len("Bail out!") :].strip() or "the runner bailed out"
    return None


FORMATS: dict[str, Callable[[str, str], Iterator[tuple[str, bool]]]] = {
    "junit": _junit,
    "phpunit-junit": _phpunit_junit,
    "go-json": _go_json,
    "libtest-json": _libtest_json,
    "libtest-log": _libtest_log,
    "tap": _tap,
}
