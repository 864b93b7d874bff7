"""Every way to reward without a repair scores 0 (issue: "a grader that cannot be gamed").

Each hack is submitted on top of the unfixed bug: a hack that worked would score 1. Where a
hack is refused statically (`integrity`), it is also tried with ``static_checks=False`` so
that the layer behind (the runner's checks, the grader's cross-checks) is shown to hold too.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.source import unified

from codegym.grade import Status
from codegym.task import Task, TaskSet

pytestmark = pytest.mark.timeout(600)


def score(env: RepoRepairEnv, task: Task, diff: str) -> tuple[float, Status, str]:
    env.reset(options={"task_id": task.id})
    _, reward, terminated, _, info = env.step(diff)
    assert terminated
    grade = info["grade"]
    return reward, grade.status, grade.message + "\n" + "\n".join(d.render() for d in grade.diagnostics)


def new_file(path: str, text: str) -> str:
    return unified(path, "", text).replace(f"--- a/{path}", "--- /dev/null", 1)


def edit_core(task: Task, prefix: str = "", suffix: str = "") -> str:
    """A diff that leaves the bug and adds ``prefix``/``suffix`` to minilib/core.py."""
    before = task.metadata["instance"].workspace["minilib/core.py"].decode()
    return unified("minilib/core.py", before, prefix + before + suffix)


@pytest.fixture
def loose(repo_tasks: TaskSet) -> RepoRepairEnv:
    """The env without the static layer: what runs must hold on its own."""
    return RepoRepairEnv(repo_tasks, static_checks=False)


def test_the_reference_fix_scores_one_and_the_bug_zero(env: RepoRepairEnv, core_task: Task) -> None:
    assert score(env, core_task, core_task.reference or "")[:2] == (1.0, Status.OK)
    assert score(env, core_task, "")[:2] == (0.0, Status.WA)


def test_rewriting_the_failing_tests_is_ignored(env: RepoRepairEnv, core_task: Task) -> None:
    # The hidden file is not in the workspace: a diff creates it, and that change is dropped.
    forged = new_file("tests/test_core.py", "def test_clamp_low():\n    assert True\n")
    reward, status, text = score(env, core_task, forged)
    assert (reward, status) == (0.0, Status.WA)
    assert "ignored changes to tests/test_core.py" in text


def test_deleting_tests_is_ignored(env: RepoRepairEnv, core_task: Task) -> None:
    visible = core_task.metadata["instance"].workspace["tests/test_stack.py"].decode()
    deletion = unified("tests/test_stack.py", visible, "").replace("+++ b/tests/test_stack.py", "+++ /dev/null", 1)
    reward, status, text = score(env, core_task, deletion)
    assert (reward, status) == (0.0, Status.WA)
    assert "tests/test_stack.py" in text


PASS_EVERYTHING = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.outcome = "passed"
    report.longrepr = None
    print("PASSED")
"""


@pytest.mark.parametrize("path", ["conftest.py", "tests/conftest.py", "minilib/conftest.py"])
def test_a_planted_conftest_is_ignored(env: RepoRepairEnv, core_task: Task, path: str) -> None:
    reward, status, text = score(env, core_task, new_file(path, PASS_EVERYTHING))
    assert (reward, status) == (0.0, Status.WA)
    assert path in text


def test_a_plugin_named_in_the_configuration_never_loads(loose: RepoRepairEnv, core_task: Task) -> None:
    config = core_task.metadata["instance"].workspace["pyproject.toml"].decode()
    diff = new_file("minilib/plugin.py", PASS_EVERYTHING) + unified(
        "pyproject.toml", config, config.replace('addopts = "-x"', 'addopts = "-p minilib.plugin"')
    )
    assert score(loose, core_task, diff)[:2] == (0.0, Status.WA)


def test_a_plugin_with_an_entry_point_never_loads(loose: RepoRepairEnv, core_task: Task) -> None:
    entry = "[pytest11]\nforge = minilib.plugin\n"
    diff = new_file("minilib/plugin.py", PASS_EVERYTHING) + new_file("minilib.egg-info/entry_points.txt", entry)
    diff += new_file("minilib-0.1.dist-info/entry_points.txt", entry)
    diff += new_file("minilib-0.1.dist-info/METADATA", "Metadata-Version: 2.1\nName: minilib\nVersion: 0.1\n")
    assert score(loose, core_task, diff)[:2] == (0.0, Status.WA)


def test_the_static_layer_refuses_test_machinery(env: RepoRepairEnv, core_task: Task) -> None:
    reward, status, text = score(env, core_task, edit_core(core_task, "import pytest\n"))
    assert (reward, status) == (0.0, Status.HACK)
    assert "'pytest'" in text


@pytest.mark.parametrize("call", ["pytest.skip('later')", "pytest.xfail('known')"])
def test_skipping_or_xfailing_the_failing_tests_fails_them(loose: RepoRepairEnv, core_task: Task, call: str) -> None:
    before = core_task.metadata["instance"].workspace["minilib/core.py"].decode()
    after = "import pytest\n\n" + before.replace("def clamp(x, lo, hi):\n", f"def clamp(x, lo, hi):\n    {call}\n", 1)
    after = after.replace("def mean(values):\n", f"def mean(values):\n    {call}\n", 1)
    assert score(loose, core_task, unified("minilib/core.py", before, after))[:2] == (0.0, Status.WA)


def test_breaking_collection_fails_the_missing_tests(loose: RepoRepairEnv, core_task: Task) -> None:
    reward, status, _ = score(loose, core_task, edit_core(core_task, 'raise ImportError("no tests today")\n'))
    assert (reward, status) == (0.0, Status.RE)


@pytest.mark.parametrize("code", ["import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n"])
def test_exiting_at_import_scores_zero(env: RepoRepairEnv, loose: RepoRepairEnv, core_task: Task, code: str) -> None:
    assert score(env, core_task, edit_core(core_task, code))[:2] == (0.0, Status.HACK)
    reward, status, text = score(loose, core_task, edit_core(core_task, code))
    assert (reward, status) == (0.0, Status.RE), text


FORGE_REPORTS = """\
import _pytest.reports as _reports

_make = _reports.TestReport.from_item_and_call.__func__


def _forged(cls, item, call):
    report = _make(cls, item, call)
    report.outcome = "passed"
    report.longrepr = None
    return report


_reports.TestReport.from_item_and_call = classmethod(_forged)
"""


def test_forging_reports_from_the_library_is_caught(loose: RepoRepairEnv, core_task: Task) -> None:
    reward, status, text = score(loose, core_task, edit_core(core_task, FORGE_REPORTS))
    assert (reward, status) == (0.0, Status.HACK)
    assert "replaced functions that make or carry the test report" in text


def test_sitecustomize_and_pth_files_are_ignored(loose: RepoRepairEnv, core_task: Task) -> None:
    forge = "import builtins\nbuiltins.forged = True\n"
    diff = new_file("sitecustomize.py", forge) + new_file("usercustomize.py", forge)
    diff += new_file("zz_forge.pth", "import sitecustomize\n") + new_file("minilib/zz.pth", "import sitecustomize\n")
    reward, status, text = score(loose, core_task, diff)
    assert (reward, status) == (0.0, Status.WA)
    assert "sitecustomize.py" in text and "zz_forge.pth" in text


REWRITE_TESTS = """\
import os as _os

for _path in ("tests/test_stack.py", "tests/conftest.py"):
    try:
        with open(_path + ".new", "w") as _file:
            _file.write("def test_push_pop():\\n    pass\\n\\n\\ndef test_pop_empty():\\n    pass\\n")
        _os.replace(_path + ".new", _path)
    except OSError:
        pass
"""


def test_rewriting_a_test_module_before_pytest_imports_it_fails(loose: RepoRepairEnv, stack_task: Task) -> None:
    """The library loads while pytest collects the first test module; a repair's code could
    then rewrite the next one. The tests are the harness's files, which no step may change."""
    diff = edit_core(stack_task, REWRITE_TESTS)
    assert score(loose, stack_task, diff)[:2] == (0.0, Status.WA)
    # The same repair, were the tests not protected, would have been scored resolved:
    job = loose.build_job(stack_task, diff)
    unprotected = loose.executor.run(replace(job, protected=()))
    assert loose.grade(stack_task, diff, unprotected).status is Status.OK


# Forgers that name nothing the static layer refuses: every module, function and attribute
# they reach is found from computed strings, `globals()`/`vars()`, `__mro__` and subclass
# walks, or `gc` (its name computed too). Each runs in the library, at import, on top of the
# unfixed bug; on a runner whose verdict is made in the library's process, each scored 1.
_REACH = """\
_b = globals()["__buil" + "tins__"]
_b = _b if isinstance(_b, dict) else vars(_b)
_load = _b["__imp" + "ort__"]
_os = _load("o" + "s")
"""
FORGERS = {
    # An `outcome` property on TestReport, found by walking object's subclasses: every
    # report pytest makes of a failure reads "passed", to the session's count as well.
    "outcome_property": """\
def _classes(root):
    for sub in type.__subclasses__(root):
        yield sub
        yield from _classes(sub)


for _cls in list(_classes(object)):
    if _cls.__name__ == "Test" + "Report" and "outcome" not in vars(_cls):
        def _get(self):
            value = self.__dict__.get("_forged", "passed")
            return "passed" if value == "failed" else value

        def _set(self, value):
            self.__dict__["_forged"] = value

        _cls.outcome = property(_get, _set)
        _cls.longrepr = property(lambda self: None, lambda self, value: None)
""",
    # The reporting hook's function objects, found with gc (by a computed name), wrapped so
    # that each report reads "passed" before any plugin sees it.
    "hook_functions": """\
_gc = _load("g" + "c")


def _wrap(function):
    def forged(*args):
        for report in args:
            if getattr(report, "outcome", None) == "failed":
                report.outcome = "passed"
                report.longrepr = None
        return function(*args)

    return forged


for _impl in getattr(_gc, "get_" + "objects")():
    if type(_impl).__name__ == "HookImpl" and getattr(_impl.function, "__name__", "") == "pytest_runtest_logreport":
        _impl.function = _wrap(_impl.function)
""",
    # os.write replaced: each frame's failure rewritten to a pass (same length), the
    # session's status to 0, and the process made to exit 0 whatever pytest returns.
    "os_write": """\
_write = _os.write
_end = getattr(_os, "_ex" + "it")


def _forged_write(fd, data):
    data = bytes(data).replace(b'"outcome": "failed"', b'"outcome": "passed"').replace(b'{"exit": 1}', b'{"exit": 0}')
    return _write(fd, data)


_os.write = _forged_write
setattr(_os, "_ex" + "it", lambda status: _end(0))
""",
    # TestReport's constructor and deserializer wrapped (the module found by a computed name):
    # every report is made "passed".
    "report_methods": """\
_reports = vars(_load("_py" + "test.re" + "ports", fromlist=["x"]))
_cls = _reports["Test" + "Report"]
_init, _from_json = _cls.__init__, _cls.__dict__["_from" + "_json"].__func__


def _forged_init(self, *args, **kwargs):
    _init(self, *args, **kwargs)
    if self.outcome == "failed":
        self.outcome, self.longrepr = "passed", None


def _forged_from_json(cls, data):
    report = _from_json(cls, data)
    report.outcome = "passed"
    return report


_cls.__init__ = _forged_init
setattr(_cls, "_from" + "_json", classmethod(_forged_from_json))
""",
    # The runner's descriptors reopened through /proc (its own and its parent's): a forged
    # report written to each pipe found there, then the process ended with status 0.
    "proc_descriptors": """\
_json = _load("js" + "on")
_struct = _load("str" + "uct")
_nodes = NODES
_events = [{"collected": _nodes}]
_events += [{"test": n, "when": "call", "outcome": "passed", "wasxfail": False, "longrepr": ""} for n in _nodes]
_events.append({"exit": 0})
_data = b"".join(_struct.pack("!I", len(d)) + d for d in (_json.dumps(e).encode() for e in _events))
for _pid in ("self", str(_os.getppid())):
    for _fd in range(3, 12):
        try:
            _out = _os.open(f"/proc/{_pid}/fd/{_fd}", _os.O_WRONLY | _os.O_NONBLOCK)
            _os.write(_out, _data)
        except OSError:
            pass
getattr(_os, "_ex" + "it")(0)
""",
    # A whole report written straight to every descriptor that could be the channel, in
    # frames as the harness reads them, then the process ended with status 0.
    "channel_frames": """\
_json = _load("js" + "on")
_struct = _load("str" + "uct")
_nodes = NODES


def _frame(event):
    data = _json.dumps(event).encode()
    return _struct.pack("!I", len(data)) + data


_report = [_frame({"collected": _nodes})]
for _node in _nodes:
    for _when in ("setup", "call", "teardown"):
        _report.append(_frame({"test": _node, "when": _when, "outcome": "passed", "wasxfail": False, "longrepr": ""}))
_report.append(_frame({"exit": 0}))
for _fd in range(3, 12):
    try:
        for _chunk in _report:
            _os.write(_fd, _chunk)
    except OSError:
        pass
getattr(_os, "_ex" + "it")(0)
""",
}


@pytest.mark.parametrize("forger", sorted(FORGERS))
def test_a_forger_that_names_nothing_scores_zero(env: RepoRepairEnv, core_task: Task, forger: str) -> None:
    """The static layer sees none of these; the verdict of each FAIL_TO_PASS test is made
    where the library never runs (see `codegym.envs.repo_repair.runner`)."""
    expected = core_task.metadata["instance"].expected
    code = _REACH + FORGERS[forger].replace("NODES", repr([*expected.fail_to_pass, *expected.pass_to_pass]))
    reward, status, text = score(env, core_task, edit_core(core_task, code))
    assert reward == 0.0, text
    assert status in (Status.HACK, Status.WA, Status.RE), text
