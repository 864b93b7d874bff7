"""The reports a runner writes, read into outcomes: JUnit XML, ``go test -json``, Rust libtest
JSON and TAP, as those runners lay them out. A test passes only where every entry for it
passed, skips do not pass, and a hostile report (entities, garbage) adds nothing."""

from __future__ import annotations

import pytest
from codegym.envs.repo_repair import reports

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="jansson" tests="4" failures="1" errors="0" skipped="1">
    <testcase name="test_array" classname="test_array" time="0.01" status="run"/>
    <testcase name="valid__real-exponent" classname="valid__real-exponent" status="run">
      <failure message="Failed">exit 1</failure>
    </testcase>
    <testcase name="test_load" classname="test_load" status="notrun"><skipped message="Disabled"/></testcase>
    <testcase name="test_dump" classname="test_dump"><error type="Crash"/></testcase>
  </testsuite>
</testsuites>
"""

VINTAGE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Vintage" tests="2"><testcase name="testSha256" classname="org.x.DigestUtilsTest"/>
<testcase name="testMd5" classname="org.x.DigestUtilsTest"/></testsuite>
<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="JUnit Jupiter" tests="1"><testcase name="testMd5" classname="org.x.DigestUtilsTest">
<failure message="expected"/></testcase></testsuite>
"""


def test_junit_reads_each_case_and_a_failure_error_or_skip_does_not_pass() -> None:
    assert reports.parse("junit", JUNIT) == {
        "test_array": True,
        "valid__real-exponent": False,
        "test_load": False,
        "test_dump": False,
    }


def test_junit_documents_one_after_another_and_a_name_made_of_class_and_method() -> None:
    found = reports.parse("junit", VINTAGE, "{classname}#{name}")
    assert found == {"org.x.DigestUtilsTest#testSha256": True, "org.x.DigestUtilsTest#testMd5": False}


def test_a_junit_report_with_entities_or_that_does_not_parse_adds_nothing() -> None:
    laughs = (
        '<?xml version="1.0"?><!DOCTYPE t [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>'
        '<testsuite><testcase name="x&b;"/></testsuite>'
    )
    assert reports.parse("junit", laughs) == {}
    assert reports.parse("junit", "<testsuite><testcase name='x'") == {}
    assert reports.parse("junit", '<testsuite><testcase name="c"><system-out><![CDATA[<!x>]]></system-out>'
                         "</testcase></testsuite>") == {"c": True}  # fmt: skip


def test_go_events_give_top_level_tests_and_a_skip_does_not_pass() -> None:
    events = "\n".join([
        '{"Action":"run","Test":"TestDiff"}',
        '{"Action":"output","Test":"TestDiff","Output":"--- PASS: TestOther (0.00s)\\n"}',
        '{"Action":"pass","Test":"TestDiff/case_1"}',
        '{"Action":"fail","Test":"TestDiff/case_2"}',
        '{"Action":"fail","Test":"TestDiff"}',
        '{"Action":"pass","Test":"TestAdd"}',
        '{"Action":"skip","Test":"TestSlow"}',
        "not json",
        '{"Action":"pass"}',
    ])  # fmt: skip
    assert reports.parse("go-json", events) == {"TestDiff": False, "TestAdd": True, "TestSlow": False}


def test_libtest_json_events_and_an_ignored_test_does_not_pass() -> None:
    lines = "\n".join([
        '{ "type": "suite", "event": "started", "test_count": 3 }',
        '{ "type": "test", "event": "started", "name": "tests::a" }',
        '{ "type": "test", "name": "tests::a", "event": "ok" }',
        '{ "type": "test", "name": "tests::b", "event": "failed", "stdout": "panicked" }',
        '{ "type": "test", "name": "tests::c", "event": "ignored" }',
        '{ "type": "suite", "event": "failed", "passed": 1, "failed": 1 }',
    ])  # fmt: skip
    assert reports.parse("libtest-json", lines) == {"tests::a": True, "tests::b": False, "tests::c": False}


def test_tap_lines_with_directives_and_a_name_holding_a_hash() -> None:
    tap = "TAP version 13\nok 1 - flag boolean\nnot ok 2 - flag string\nok 3 - slow one # SKIP no net\n"
    tap += "ok 4 - later # todo soon\nok 5 C#method\n# ok 6 - in a comment\n  ok 7 - an assertion\n1..5\n"
    assert reports.parse("tap", tap) == {
        "flag boolean": True,
        "flag string": False,
        "slow one": False,
        "later": False,
        "C#method": True,
    }


def test_a_pass_cannot_outvote_a_failure_of_the_same_test() -> None:
    tap = "not ok 1 - x\nok 2 - x\nok 3 - x\n"
    assert reports.parse("tap", tap) == {"x": False}


def test_an_unknown_format_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        reports.parse("nunit", "")


def test_a_tap_report_that_bails_out_says_why_and_no_other_does() -> None:
    bailed = "Bail out! the sources do not compile\nlib/set.rb:3: syntax error\n"
    assert reports.bailed_out("tap", bailed) == "the sources do not compile\nlib/set.rb:3: syntax error"
    assert reports.parse("tap", bailed) == {}
    # (only a report's first line can say it: a test's name, or a later line, never does)
    assert reports.bailed_out("tap", "ok - a\nBail out! later\n") is None
    assert reports.bailed_out("junit", bailed) is None
