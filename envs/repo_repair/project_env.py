"""`ProjectRepairEnv`: RepoRepair in the languages that recipes add (``RepoRepair-v1`` with
``language="go"``, ...), judged in each project's own machine.

A task is a project (`codegym.envs.repo_repair.projects`) with a bug drawn into one source file
(`codegym.envs.repo_repair.syntax_mutations`), kept when it breaks some of the project's tests
and leaves the rest passing, the same in every run (`codegym.envs.repo_repair.project_tasks`).
``mode="patch"`` (or ``"refine"``): the action is a unified diff of the tree. ``mode="agent"``:
the agent works in a machine of the project, as root in its tree, with the test files that
hold the failing tests hidden; ``submit`` grades its changes to the source files.

Either way the grade comes from a fresh machine: the pristine project with the bug, every test
file as the project has it, and the submission's changes to source files only (changes to
tests, build files or anything else are dropped, and said so). Each expected test runs in a
process of its own whose exit status the machine's init reads; a build that fails fails them
all; lines a fix adds that reach for the process's exit, the test framework or the build are
refused as ``HACK`` before anything runs (the language's ``[<language>.integrity]`` patterns).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codegym.envs.repo_repair import patch, project_tasks, syntax_mutations
from codegym.envs.repo_repair import projects as projects_module
from codegym.envs.repo_repair.project_tasks import TreeRun
from codegym.envs.repo_repair.projects import DATA, Project
from codegym.envs.repo_repair.source import unified

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask, TaskFormatError
from codegym.executor import Limits
from codegym.executor.base import MiB
from codegym.executor.layers import LayerStore
from codegym.grade import Diagnostic, Grade, Status, TestOutcome, pass_metrics
from codegym.machine_episode import refuse_to_dump
from codegym.task import Quarantine, Task, TaskSet, TestCase

if TYPE_CHECKING:
    from codegym.harness.mode import HarnessSpec

FAMILY = "repo_repair"
LIMITS = Limits(cpu_s=600.0, wall_s=900.0, memory_bytes=4096 * MiB, processes=256, disk_bytes=1024 * MiB)
AGENT_LIMITS = AgentLimits(max_calls=60, wall_s=1800.0, timeout_s=120.0, max_timeout_s=600.0)


@dataclass(frozen=True)
class Repair:
    """What a task holds (``task.metadata["repair"]``): the project, the tree the agent starts
    from, the tests that judge a fix and the files the harness puts over a submission.

    Attributes:
        project: The project (its machine's recipe).
        start: The task's files over the project's tree, in the agent's view and in the graded
            tree alike (a drawn bug's file).
        graded: The harness's files over a submission's tree when it is graded (a repository
            row's new tests), never in the agent's view.
        hidden: Test files whited out in the agent's view (they hold FAIL_TO_PASS tests).
        fail_to_pass: Tests the bug breaks (each must pass).
        pass_to_pass: Tests it leaves passing (each must still pass).
        where: The file a drawn bug is in ("" for a repository row's).
    """

    project: Project
    start: Mapping[str, bytes]
    graded: Mapping[str, bytes]
    hidden: tuple[str, ...]
    fail_to_pass: tuple[str, ...]
    pass_to_pass: tuple[str, ...]
    where: str = ""


# --- task files -----------------------------------------------------------------------------------


def task_file(project: str) -> Path:
    """Where ``project``'s bundled tasks are: ``data/projects/<project>.json``."""
    return DATA / "projects" / f"{project}.json"


def write_task_file(path: Path, project: Project, ref: project_tasks.Reference,
                    drawn: Sequence[project_tasks.Drawn], symptoms: Sequence[str]) -> None:  # fmt: skip
    """Write a task file: the project's pin, its reference run, and each bug's address (never
    the project's text: it is made again from the Debian package at load)."""
    body = {
        "project": project.name, "language": project.language, "package": project.package,
        "version": project.version, "reference": list(ref.tests), "flaky": list(ref.flaky),
        "tasks": [{"path": d.path, "kind": d.kind, "index": d.index, "line": d.line,
                   "sha256": d.sha256, "fail_to_pass": list(d.fail_to_pass), "pass_to_pass": list(d.pass_to_pass),
                   "symptom": symptom}
                  for d, symptom in zip(drawn, symptoms, strict=True)],
    }  # fmt: skip
    path.write_text(json.dumps(body, indent=1) + "\n")


def bundled_projects(language: str | None = None) -> list[str]:
    """The projects with bundled tasks (of ``language``, when given)."""
    return [
        name
        for name, project in projects_module.projects().items()
        if task_file(name).is_file() and (language is None or project.language == language)
    ]


def load_tasks(names: Sequence[str], store: LayerStore | None = None) -> TaskSet:
    """The bundled tasks of the projects ``names`` (each project's machine is built on first use)."""
    found: list[Task] = []
    for name in names:
        if name not in projects_module.projects():
            raise TaskFormatError(f"no project {name!r}; bundled: {', '.join(bundled_projects())}")
        found += project_tasks_of(projects_module.projects()[name], task_file(name), store)
    return TaskSet(found)


def project_tasks_of(project: Project, path: Path, store: LayerStore | None = None) -> list[Task]:
    """The tasks in ``path`` (a task file of ``project``), each made again from the project's tree."""
    body = json.loads(path.read_text())
    if body.get("project") != project.name or body.get("version") != project.version:
        raise TaskFormatError(f"{path}: made for {body.get('project')} {body.get('version')}, "
                              f"not {project.name} {project.version}; build it again (codegym repo build)")  # fmt: skip
    layers = projects_module.machine_layers(project, store)
    sources = project_tasks.source_files(project, layers)
    tests = project_tasks.test_files(project, layers)
    made = []
    for number, entry in enumerate(body["tasks"]):
        task_id = f"{project.name}/{number:04d}"
        mutant = project_tasks.bug(project, layers, sources, entry["path"], entry["kind"], entry["index"])
        if mutant is not None and entry.get("sha256") not in (None, hashlib.sha256(mutant.text).hexdigest()):
            mutant = None
        text = sources.get(entry["path"])
        if mutant is None or text is None:
            raise TaskFormatError(f"{path}: task {number}'s bug ({entry['path']}, {entry['kind']} {entry['index']}) "
                                  "is not in the project's tree")  # fmt: skip
        f2p, p2p = tuple(entry["fail_to_pass"]), tuple(entry["pass_to_pass"])
        repair = Repair(project, {entry["path"]: mutant.text}, {}, hidden_files(tests, f2p), f2p, p2p, entry["path"])
        reference = unified(entry["path"], mutant.text.decode(), text.decode())
        origin = f"Debian's {project.package} {project.version}" if project.package else f"version {project.version}"
        prompt = statement(f"{project.name} ({project.language}, {origin})", f2p, str(entry.get("symptom", "")))
        made.append(make_task(task_id, repair, prompt, reference, tags=(project.language, project.name, entry["kind"])))
    return made


def hidden_files(tests: Mapping[str, bytes], fail_to_pass: Sequence[str]) -> tuple[str, ...]:
    """The test files that define the tests ``fail_to_pass``: a test file in the test's folder
    that names it (as a word; Go's; a ``Class#method``'s method, Ruby's; ``Suite.Name`` as
    ``TEST(Suite, Name)``, GoogleTest's), else one named after
    it anywhere (a CTest test's program, ``test/suites/api/test_array.c`` for ``test_array``)."""
    hidden = set()
    for test_id in fail_to_pass:
        folder, name = projects_module.split_id(test_id)
        top = name.split("/")[0]
        word = top.rsplit("#", 1)[-1].encode()
        pair = tuple(part.encode() for part in top.split(".")) if re.fullmatch(r"\w+\.\w+", top) else None
        found = {path for path, text in tests.items()
                 if (path.rsplit("/", 1)[0] if "/" in path else ".") == folder
                 and (_names(text, word) or (pair is not None and pair in _pairs(text)))}  # fmt: skip
        named = (top, top.split("::")[0].rsplit("\\", 1)[-1])  # (PHP's Vendor\\FooTest::testBar in FooTest.php)
        named += (top.split("#")[0].rsplit(".", 1)[-1].split("$")[0],)  # (Java's pkg.FooTest$Inner#m: FooTest.java)
        hidden |= found or {path for path in tests if Path(path).stem in named}
        hidden |= {path for path in tests if path.rsplit(".", 1)[0] == folder}  # (a Rust test target's file)
        if " > " in top:  # (a jest test, TypeScript's: src::is.test.ts > its full name, in src/is.test.ts)
            hidden |= {path for path in tests if path == f"{folder}/{top.split(' > ', 1)[0]}".removeprefix("./")}
    return tuple(sorted(hidden))


# What \w matches in a bytes pattern.
WORD_BYTES = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")


def _names(text: bytes, name: bytes) -> bool:
    """Whether ``text`` holds ``name`` as a word (no word character either side; a name may
    end in "(y)")."""
    if re.fullmatch(rb"\w+", name):
        return name in _words(text)
    start = text.find(name)
    while start >= 0:
        end = start + len(name)
        if (start == 0 or text[start - 1] not in WORD_BYTES) and (end == len(text) or text[end] not in WORD_BYTES):
            return True
        start = text.find(name, start + 1)
    return False


@functools.lru_cache(maxsize=4096)
def _words(text: bytes) -> frozenset[bytes]:
    """The words of a test file, read once for all the tasks of a project (a file's bytes keep
    their hash)."""
    return frozenset(re.findall(rb"\w+", text))


@functools.lru_cache(maxsize=4096)
def _pairs(text: bytes) -> frozenset[tuple[bytes, bytes]]:
    """Each two words of a test file with a comma between them, as in GoogleTest's
    ``TEST(Suite, Name)``."""
    return frozenset(re.findall(rb"(?<!\w)(\w+)\s*,\s*(?=(\w+))", text))


def make_task(task_id: str, repair: Repair, prompt: str, reference: str, tags: Sequence[str] = ()) -> Task:
    """A `Task` of the family: its tests are the FAIL_TO_PASS and PASS_TO_PASS ids (all hidden)."""
    tests = tuple(
        TestCase(name=test, code=test, hidden=True, tier=tier)
        for tier, names in (("fail_to_pass", repair.fail_to_pass), ("pass_to_pass", repair.pass_to_pass))
        for test in names
    )
    return Task(id=task_id, family=FAMILY, prompt=prompt, tests=tests, language="diff", tags=tuple(tags),
                reference=reference, metadata={"repair": repair, "project": repair.project.name})  # fmt: skip


def statement(what: str, failing: Sequence[str], symptom: str) -> str:
    """The problem statement of a drawn bug: the failing tests and the first one's output, never the cause."""
    more = f" and {len(failing) - 3} more" if len(failing) > 3 else ""
    shown = ", ".join(f"`{test}`" for test in failing[:3]) + more
    lines = [f"A bug has been introduced into the source of {what}. {len(failing)} of its tests that used to pass "
             f"now fail: {shown}."]  # fmt: skip
    if symptom.strip():
        lines += ["", "The first of them fails with:", "", *(f"    {line}" for line in symptom.strip().splitlines())]
    lines += ["", "Fix the project's source code so that these tests pass again without breaking any other test. "
              "Do not change the tests: they are restored before grading, and the failing ones are not in the "
              "repository."]  # fmt: skip
    return "\n".join(lines)


def repair_of(task: Task) -> Repair:
    repair = task.metadata.get("repair")
    if not isinstance(repair, Repair):
        raise InvalidTask(f"task {task.id} is not a project repair task (it holds no Repair)")
    return repair


# --- grading --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prepared:
    """A submission made ready to judge: the source files it changes, or why it cannot run."""

    files: Mapping[str, bytes]
    error: str | None = None
    hack: str | None = None
    ignored: tuple[str, ...] = ()


@dataclass(frozen=True)
class Judged:
    """What `ProjectRepairEnv.launch` hands `grade`: the prepared submission and its run."""

    prepared: Prepared
    run: TreeRun | None


def prepare(project: Project, tree: Mapping[str, bytes], diff: str) -> Prepared:
    """Apply ``diff`` to the buggy ``tree`` (the files the agent sees), keep its changes to
    source files, and check the lines it adds against the language's integrity patterns."""
    if not diff.strip():
        return Prepared({})
    text_tree = {path: data.decode(errors="replace") for path, data in tree.items()}
    try:
        changed = patch.apply(diff, text_tree)
    except patch.PatchError as e:
        return Prepared({}, error=str(e))
    kept, ignored = {}, []
    for path, text in changed.items():
        if not project_tasks.is_source(project, path) or text is None:
            ignored.append(path)
            continue
        kept[path] = text.encode()
    before = {path: text_tree.get(path, "") for path in kept}
    hack = forbidden(project.language, before, kept) or syntax_mutations.tests_changed(project.language, before, kept)
    return Prepared(kept, hack=hack, ignored=tuple(sorted(ignored)))


@functools.cache
def _patterns(language: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    table = projects_module.language_table(language).get("integrity", {})
    return tuple((reason, re.compile(pattern)) for reason, pattern in table.items())


def forbidden(language: str, before: Mapping[str, str], after: Mapping[str, bytes]) -> str | None:
    """Why the lines a fix adds are refused (the first integrity pattern one matches), or None."""
    for path, data in after.items():
        old = set(before.get(path, "").splitlines())
        for number, line in enumerate(data.decode(errors="replace").splitlines(), 1):
            if line in old:
                continue
            for reason, pattern in _patterns(language):
                if pattern.search(line):
                    return f"{path}:{number}: {reason}: {line.strip()[:200]}"
    return None


def grade_run(repair: Repair, judged: Judged) -> Grade:
    """The grade of a judged submission: a pure function."""
    prepared = judged.prepared
    notes = tuple(Diagnostic(f"ignored: {path} is not a source file (only source changes are graded)", file=path,
                             severity="warning") for path in prepared.ignored)  # fmt: skip
    if prepared.error is not None:
        return Grade(Status.CE, diagnostics=(Diagnostic(prepared.error, file="patch"), *notes),
                     message="the patch does not apply")  # fmt: skip
    if prepared.hack is not None:
        return Grade(Status.HACK, diagnostics=(Diagnostic(prepared.hack, file="patch"), *notes),
                     message=f"refused: {prepared.hack}")  # fmt: skip
    run = judged.run
    assert run is not None
    tests = tuple(
        TestOutcome(name=test, passed=bool(run.passed.get(test)), hidden=True, tier=tier)
        for tier, names in (("fail_to_pass", repair.fail_to_pass), ("pass_to_pass", repair.pass_to_pass))
        for test in names
    )
    metrics = dict(pass_metrics(tests))
    f2p = [t for t in tests if t.tier == "fail_to_pass"]
    p2p = [t for t in tests if t.tier == "pass_to_pass"]
    metrics["fail_to_pass"] = sum(t.passed for t in f2p) / len(f2p) if f2p else 1.0
    metrics["pass_to_pass"] = sum(t.passed for t in p2p) / len(p2p) if p2p else 1.0
    if not run.built:
        return Grade(Status.CE, tests, (Diagnostic(run.build_output[-3000:], file="build"), *notes), metrics,
                     message="the project does not build")  # fmt: skip
    if all(t.passed for t in tests):
        return Grade(Status.OK, tests, notes, metrics,
                     message=f"resolved: {len(f2p)} failing tests now pass, {len(p2p)} kept")  # fmt: skip
    still = [t.name for t in f2p if not t.passed]
    broke = [t.name for t in p2p if not t.passed]
    message = f"{len(still)} of {len(f2p)} failing tests still fail"
    if broke:
        message += f"; {len(broke)} passing tests broke ({broke[0]})"
    return Grade(Status.WA, tests, notes, metrics, message=message)


# --- the env --------------------------------------------------------------------------------------


class ProjectRepairEnv(CodeEnv):
    """Repair a project of any language a recipe adds (``codegym/RepoRepair-v1`` with
    ``language=``); see the module docstring.

    Args:
        tasks: ``"bundled"`` (the bundled projects' tasks of ``language``), or a `TaskSet`.
        language: The language (``"go"``); with ``tasks="bundled"``, picks its projects.
        projects: With ``tasks="bundled"``: the projects to draw from (all of the language's).
        mode: ``"patch"`` (one diff), ``"refine"`` (diffs until resolved) or ``"agent"`` (tools
            in the project's machine; ``submit`` grades its source changes).
        store: The layer store (`codegym.executor.layers.LayerStore`'s default when None).
        limits, on_infra_error, render_mode, agent, on_task_error, quarantine: See `CodeEnv`.

    An agent episode can be snapshot, restored and forked (`codegym.episodes`): the machine's
    changes are copied, a restore or a fork starts a machine over the copy, and ``submit``
    grades the changes of the whole chain; processes are not carried (see
    `codegym.machine_episode`).
    """

    family = FAMILY
    machine_episodes = True

    def __init__(
        self,
        tasks: str | TaskSet = "bundled",
        *,
        language: str = "go",
        projects: Sequence[str] | None = None,
        mode: Mode | Literal["patch"] = "patch",
        store: str | None = None,
        limits: Limits = LIMITS,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        agent: AgentLimits | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        harness: HarnessSpec | str | None = None,
        model: str | None = None,
    ) -> None:
        self.language = language
        self.store = LayerStore(store)
        self._machines: dict[str, tuple[Project, tuple[str, ...]]] = {}
        if isinstance(tasks, TaskSet):
            task_set = tasks
        elif tasks == "bundled":
            names = list(projects) if projects is not None else bundled_projects(language)
            if not names:
                known = sorted({projects_module.projects()[name].language for name in bundled_projects()})
                raise TaskFormatError(f"no bundled projects in {language!r}; languages with tasks: {', '.join(known)}")
            task_set = load_tasks(names, self.store)
        else:
            raise TaskFormatError(f"tasks is 'bundled' or a TaskSet, got {tasks!r}")
        super().__init__(task_set, limits=limits, mode="single" if mode == "patch" else mode,
                         on_infra_error=on_infra_error, render_mode=render_mode, agent=agent or AGENT_LIMITS,
                         on_task_error=on_task_error, quarantine=quarantine, harness=harness,
                         model=model)  # fmt: skip

    # --- the project's machine and tree ---------------------------------------------------------------

    def project(self, task: Task) -> Project:
        return repair_of(task).project

    def layers(self, task: Task) -> tuple[str, ...]:
        """The task's project's machine (built on first use; its layers' keys hashed once per env,
        again only where its top layer left the store)."""
        project = self.project(task)
        known = self._machines.get(project.name)
        if known is not None and known[0] is project and os.path.isdir(known[1][0]):
            return known[1]
        stack = projects_module.machine_layers(project, self.store)
        self._machines[project.name] = (project, stack)
        return stack

    def visible_tree(self, task: Task) -> dict[str, bytes]:
        """The files the agent sees: the project's sources and tests with the task's own files
        (the bug), the hidden test files left out."""
        repair, layers = repair_of(task), self.layers(task)
        tree = {
            **project_tasks.source_files(repair.project, layers),
            **project_tasks.test_files(repair.project, layers),
        }
        tree.update(repair.start)
        for path in repair.hidden:
            tree.pop(path, None)
        return tree

    # --- hooks ----------------------------------------------------------------------------------------

    def render_prompt(self, task: Task) -> str:
        if self.mode == "agent":
            return task.prompt
        listing = sorted(project_tasks.source_files(self.project(task), self.layers(task)))
        return "\n".join([task.prompt, "", "The project's source files:", *(f"- {p}" for p in listing), "",
                          "Answer with a unified diff (git diff) of the source files."])  # fmt: skip

    def check_task(self, task: Task) -> None:
        self.layers(task)

    def check_solutions(self, task: Task) -> str | None:
        """The bug (the empty patch) must fail some FAIL_TO_PASS test and keep every
        PASS_TO_PASS test passing: else the task does not test its fix."""
        repair = repair_of(task)
        run = self.judge(task, "").run
        if run is None or not run.built:
            return "the buggy tree does not build"
        if all(run.passed.get(test) for test in repair.fail_to_pass):
            return "every FAIL_TO_PASS test passes on the bug"
        broke = [test for test in repair.pass_to_pass if not run.passed.get(test)]
        return f"{len(broke)} PASS_TO_PASS tests fail on the bug ({broke[0]})" if broke else None

    def launch(self, task: Task, code: str) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(self.judge(task, code))
        except BaseException as e:
            future.set_exception(e)
        return future

    def judge(self, task: Task, code: str) -> Judged:
        repair = repair_of(task)
        prepared = prepare(repair.project, self.visible_tree(task), code)
        if prepared.error is not None or prepared.hack is not None:
            return Judged(prepared, None)
        files = {**repair.start, **prepared.files, **repair.graded}
        tests = (*repair.fail_to_pass, *repair.pass_to_pass)
        return Judged(prepared, project_tasks.judge(repair.project, self.layers(task), files, tests))

    def grade(self, task: Task, code: str, result: Any) -> Grade:  # type: ignore[override]
        return grade_run(repair_of(task), result)

    # --- agent mode -----------------------------------------------------------------------------------

    def agent_setup(self, task: Task) -> AgentSetup:
        return AgentSetup(files={}, submission="", graded="your changes to the project's source files")

    def episode_prompt(self, task: Task) -> str:
        project = self.project(task)
        return (
            f"{task.prompt}\n\nYou are root in a Debian machine with the project's tree at {project.root} (a git "
            "repository of one commit: `git diff` shows your changes). Run commands with the bash tool; view and "
            "edit files with str_replace_editor (absolute paths). The machine has no network. When you are done, "
            "call submit: your changes to the project's source files are graded in a fresh machine."
        )

    def _open_episode(self, task: Task) -> None:
        from codegym.envs.repo_repair.project_episode import ProjectEpisode

        self._close_episode()
        self.check_task_once(task)
        self._episode = ProjectEpisode(self, task)

    def agent_submission(self, task: Task, episode: AgentEpisode) -> str:
        from codegym.envs.repo_repair.project_episode import ProjectEpisode

        assert isinstance(episode, ProjectEpisode)
        return episode.diff()

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """See `CodeEnv.dump_state`; an agent episode's snapshot is a machine's files on this
        host, not data: it cannot be dumped (`NotImplementedError`)."""
        refuse_to_dump(state, "project")
        return super().dump_state(state)
