"""`TerminalEnv`: terminal tasks in the Harbor format, in a machine of their own, graded out of reach.

A task is an instruction, an environment (a Dockerfile built offline into layers, see
`codegym.envs.terminal.build`), hidden tests and an oracle solution. Each episode gets a
fresh machine over the task's layers (`codegym.executor.rootbox.RootBox`): its own root file
system (writes go to a per-episode layer), pid, ipc, uts and network namespaces (loopback
only), root inside mapped to an unprivileged uid. The verdict comes from the task's tests
run in another, fresh box over a sanitized copy of the episode's files
(`codegym.envs.terminal.verifier`), reported test by test over the harness's channel
(`codegym.envs.terminal.grader`).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from codegym.envs.terminal import grader, machine, offline, steps, verifier
from codegym.envs.terminal.build import Environment, build_environment
from codegym.envs.terminal.grader import Outcome
from codegym.envs.terminal.report import assess
from codegym.envs.terminal.steps import Stage, stages
from codegym.envs.terminal.tasks import TaskSource, load, terminal_of

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup
from codegym.core import CodeEnv, InfraPolicy, Mode, TaskPolicy
from codegym.error import InvalidTask, SandboxError
from codegym.executor import Limits, RunResult
from codegym.executor.base import MiB
from codegym.executor.layers import BuildFailed, LayerStore
from codegym.executor.rootbox import (
    BoxSpec,
    CommandResult,
    Isolation,
    RootBox,
    box_isolation,
    remove_tree,
    run_root,
)  # fmt: skip
from codegym.grade import Diagnostic, Grade
from codegym.machine_episode import copy_changes, refuse_to_dump
from codegym.requirements import Requirements, Tool
from codegym.task import Quarantine, Task

if TYPE_CHECKING:
    from codegym.harness.mode import HarnessSpec

Background = Literal["keep", "kill"]
# What a step's `Limits` mean here: the box's memory and processes (time comes from the task).
LIMITS = Limits(cpu_s=600.0, wall_s=600.0, memory_bytes=2048 * MiB, processes=512, output_bytes=1 * MiB,
                file_size_bytes=1024 * MiB, disk_bytes=1024 * MiB)  # fmt: skip
AGENT_LIMITS = AgentLimits(timeout_s=60.0, max_timeout_s=600.0, max_calls=100, wall_s=3600.0)
SINGLE_OUTPUT_BYTES = 16_000


@dataclass(frozen=True)
class Judged:
    """What `TerminalEnv.grade` reads: the verifier's outcome, the tests the pristine files
    define, and (single mode) the submitted script's own run.

    Attributes:
        outcome: The verifier's run, as the grader reads it.
        expected: The tests the pristine run defines.
        script: The submitted script's run in the episode's box (single and refine modes).
        removed: What the verifier took back from the agent's files.
        steps: A multi-step task's steps judged so far, by name (``outcome`` is then None).
        step_names: All its steps, in order.
        strategy: Its ``multi_step_reward_strategy``.
    """

    outcome: Outcome | None
    expected: grader.Expected
    script: CommandResult | None = None
    removed: tuple[str, ...] = ()
    steps: tuple[tuple[str, Judged], ...] = ()
    step_names: tuple[str, ...] = ()
    strategy: str | None = None


@dataclass(frozen=True)
class VerifierSetup:
    """What a stage's verifier runs on: the verifier's own layers (uv, the tests' wheels: the
    offline form of a uv preamble; none for most tasks), put over the agent's files, and the
    tests with their script rewritten to run offline."""

    layers: tuple[str, ...]
    tests: Mapping[str, bytes]
    notes: tuple[str, ...] = ()


class TerminalEnv(CodeEnv):
    """Do a task in a terminal (``codegym/Terminal-v0``).

    Args:
        tasks: ``"bundled"`` (codegym's own tasks), a Harbor or Terminal-Bench 1 task folder
            or a folder of them, rows, `TerminalTask` objects or a `TaskSet`.
        mode: ``"agent"`` (default): tool calls in the task's machine, then ``submit``;
            ``"single"``: the action is one shell script, run in the machine, then graded;
            ``"refine"``: single until solved.
        background: What a command leaves running: ``"keep"`` (default, as in a container:
            a service the tests talk to) or ``"kill"`` (nothing runs between tool calls).
        hide_fixtures: Keep files the environment holds only for the tests out of the
            agent's view (`Environment.hidden`); False keeps the image's layout.
        store: The layer store's folder (`codegym.executor.layers.default_root` when None).
        isolation: The boxes' tier, ``"full"`` or ``"userns"`` (the strongest available when
            None; see `codegym.executor.rootbox.box_isolation`).
        launcher: A command the box server starts under (``setpriv ...`` to drop capabilities).
        agent: The budgets of an agent episode.

    **Action space:** text: raw model text or parsed tool calls (agent), a shell script
    (single, refine). **Observation space:** the family-wide ``Dict``; ``prompt`` holds the
    instruction (and, in agent mode, the machine: working directory, user, tools);
    ``feedback`` each tool call's bounded output and exit status, then the verifier's
    per-test outcomes (names and one-line messages, never the tests' source).

    **Rewards:** 1.0 iff every test the pristine test files define passes; ``pass_rate``
    is a metric. **Termination:** agent: at ``submit`` (a budget running out truncates, and
    the machine is judged as it stands);
    single: after the script; refine: when solved. **Registered:** ``codegym/Terminal-v0``.

    An agent episode can be snapshot, restored and forked (`codegym.episodes`): the machine's
    changes are copied, and a restore or a fork starts a machine over the copy; processes are
    not carried (see `codegym.machine_episode`).
    """

    family = "terminal"
    machine_episodes = True
    grades_at_budget_end = True  # (the agent's time up: its machine is judged as it stands, as Harbor does)
    requires = Requirements(tools=(Tool("debootstrap", "debootstrap"),))
    max_tests = 256

    def __init__(
        self,
        tasks: TaskSource = "bundled",
        *,
        mode: Mode = "agent",
        background: Background = "keep",
        hide_fixtures: bool = True,
        store: str | None = None,
        isolation: Isolation | None = None,
        launcher: tuple[str, ...] = (),
        agent: AgentLimits | None = None,
        on_infra_error: InfraPolicy = "raise",
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        harness: HarnessSpec | str | None = None,
        model: str | None = None,
        render_mode: str | None = None,
        validate: bool | int = False,
    ) -> None:
        if background not in ("keep", "kill"):
            raise ValueError(f"background must be 'keep' or 'kill', got {background!r}")
        super().__init__(load(tasks), limits=LIMITS, mode=mode, on_infra_error=on_infra_error,
                         on_task_error=on_task_error, quarantine=quarantine, render_mode=render_mode,
                         agent=agent or AGENT_LIMITS, harness=harness, model=model)  # fmt: skip
        self.background: Background = background
        self.hide_fixtures = hide_fixtures
        self.store = LayerStore(store)
        self.isolation: Isolation = isolation or box_isolation()
        self.launcher = tuple(launcher)
        self._environments: dict[str, Environment] = {}
        self._expected: dict[tuple[str, int], grader.Expected] = {}
        self._verifiers: dict[tuple[str, int], VerifierSetup] = {}
        self._lock = threading.Lock()
        self._spares: ThreadPoolExecutor | None = None  # (makes the spare machine: see `open_box`)
        self._spare: tuple[BoxSpec, Future[RootBox]] | None = None
        self.validate_on_load(validate)

    # --- the task's machine ---------------------------------------------------------------------

    def check_task(self, task: Task) -> None:
        """A task runs here when its import assessment finds nothing in the way and its
        environment builds (once; later episodes share the layers). Every layer its episodes
        use is made here, so that a plain user can run it from a store root filled."""
        self.agent_layers(task)
        self.machine_layers(task)
        for stage in range(len(stages(terminal_of(task)))):
            self.verifier_setup(task, stage)

    def environment(self, task: Task) -> Environment:
        """``task``'s environment, built on first use (raises `InvalidTask` when it cannot be)."""
        with self._lock:
            found = self._environments.get(task.id)
        if found is not None:
            return found
        terminal = terminal_of(task)
        assessment = assess(terminal)
        if not assessment.runs:
            raise InvalidTask(f"task {task.id} cannot run here: {'; '.join(assessment.reasons)}")
        try:
            built = build_environment(terminal, store=self.store)
        except BuildFailed as e:
            raise InvalidTask(f"task {task.id}: its environment does not build: {e}") from e
        with self._lock:
            self._environments[task.id] = built
        return built

    def agent_layers(self, task: Task) -> tuple[str, ...]:
        """The layers of the agent's machine: the environment, with the tests' fixtures
        hidden under a layer of whiteouts (unless ``hide_fixtures=False``)."""
        built = self.environment(task)
        layers = self.machine_layers(task)
        if not self.hide_fixtures or not built.hidden:
            return layers
        return (machine.hiding_layer(self.store, built.hidden, built.layers), *layers)

    def machine_layers(self, task: Task) -> tuple[str, ...]:
        """The environment's layers under what a container runtime adds (``/etc/hosts``):
        the machine the tests and the agent both start from."""
        built = self.environment(task)
        return (machine.runtime_layer(self.store, built.layers), *built.layers)

    def open_box(self, task: Task, *, solution: bool = False) -> RootBox:
        """A fresh machine for an episode of ``task`` (``solution``: with the oracle's files
        at ``/solution``, for the reference's run). A machine for the task's next episode is
        then made in the background (a spare), so that a reset to the same task (a group of
        rollouts of one prompt) only takes it."""
        terminal = terminal_of(task)
        binds = self.box_binds  # (a harness episode's tool folder)
        if solution and terminal.solution:
            binds = ((machine.solution_folder(terminal), "/solution", True),)
        spec = BoxSpec(layers=self.agent_layers(task), binds=binds,
                       memory_bytes=terminal.resources.memory_mb * MiB,
                       disk_bytes=max(terminal.resources.storage_mb, 64) * MiB)  # fmt: skip
        box = self._take_spare(spec)
        if box is None:
            box = RootBox(spec, isolation=self.isolation, launcher=self.launcher)
        if not solution:
            self._make_spare(spec)
        return box

    def _make_spare(self, spec: BoxSpec) -> None:
        if self._spares is None:
            self._spares = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codegym-spare-box")
        future = self._spares.submit(RootBox, spec, isolation=self.isolation, launcher=self.launcher)
        with self._lock:
            old, self._spare = self._spare, (spec, future)
        if old is not None:
            old[1].add_done_callback(_close_quietly)

    def _take_spare(self, spec: BoxSpec) -> RootBox | None:
        """The spare machine, if it was made for ``spec`` and started (else None; it is closed)."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is None:
            return None
        made_for, future = spare
        if made_for != spec:
            future.add_done_callback(_close_quietly)
            return None
        try:
            return future.result()
        except SandboxError:
            return None  # (the caller makes one, and says why if it fails again)

    def close(self) -> None:
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None:
            spare[1].add_done_callback(_close_quietly)
        if self._spares is not None:
            self._spares.shutdown(wait=False)
            self._spares = None
        super().close()

    def forked(self, state: Mapping[str, Any], seed: int | None) -> TerminalEnv:
        """A copy going on from ``state`` (see `CodeEnv.forked`) whose episode's machine is
        made from the snapshot, never the spare one: the spare stays the parent's, for its next
        reset, and the copy makes its own (sharing it, two resets would take one machine, and
        the copy's close would shut the parent's spare maker down). The caches of environments,
        expected tests and verifiers stay shared, under the same lock."""
        child = super().forked(state, seed)
        assert isinstance(child, TerminalEnv)
        child._spare, child._spares = None, None
        return child

    def restore_state(self, state: Mapping[str, Any], *, fork: bool = False) -> None:
        """See `CodeEnv.restore_state`; the episode's machine (restored or forked from the
        snapshot's copy, see `MachineEpisode.restore`) then answers to this env."""
        super().restore_state(state, fork=fork)
        if isinstance(self._episode, TerminalEpisode):
            self._episode.env = self

    def dump_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        """See `CodeEnv.dump_state`; an agent episode's snapshot is a machine's files on this
        host, not data: it cannot be dumped (`NotImplementedError`)."""
        refuse_to_dump(state, "terminal")
        return super().dump_state(state)

    def expected(self, task: Task, stage: int = 0) -> grader.Expected:
        """The tests the pristine test files of ``task``'s ``stage`` define (collected by a
        run over the untouched environment, once; see `grader.Expected`)."""
        with self._lock:
            found = self._expected.get((task.id, stage))
        if found is not None:
            return found
        run = self._verify(task, stage)
        if run.result.timed_out:
            timeout = stages(terminal_of(task))[stage].verifier_timeout_s
            raise InvalidTask(f"task {task.id}: its tests ran past {timeout:g} s on the pristine machine")
        found = grader.expected_tests(run.channel)
        with self._lock:
            self._expected[(task.id, stage)] = found
        return found

    def verifier_setup(self, task: Task, stage: int = 0) -> VerifierSetup:
        """The verifier of ``task``'s ``stage``: a test script with a uv preamble (``curl ...
        install.sh | sh``, ``uvx ... pytest``) runs on layers built for it, offline."""
        with self._lock:
            found = self._verifiers.get((task.id, stage))
        if found is not None:
            return found
        terminal = terminal_of(task)
        built = self.environment(task)
        step = stages(terminal)[stage]
        name = machine.script_name(step.test_command, terminal.tests_dir)
        script = step.tests.get(name, b"").decode(errors="replace") if name else ""
        if not script or not offline.find_preamble(script).found:
            found = VerifierSetup((), step.tests)
        else:
            try:
                layers, notes = offline.verifier_layers(self.store, built.layers, script)
            except BuildFailed as e:
                raise InvalidTask(f"task {task.id}: its tests' uv preamble cannot be served offline: {e}") from e
            python = offline.python_version(self.store, built.layers)
            rewritten, more = offline.rewrite_test_script(script, python=python)
            found = VerifierSetup(
                layers, {**step.tests, name: rewritten.encode()}, tuple(dict.fromkeys((*notes, *more)))
            )
        with self._lock:
            self._verifiers[(task.id, stage)] = found
        return found

    def _verify(
        self, task: Task, stage: int = 0, *, snapshot: str | None = None, net_of: RootBox | None = None
    ) -> verifier.VerifierRun:
        """The tests of ``task``'s ``stage`` over ``snapshot`` (the agent's files; None: none) in a fresh box."""
        terminal = terminal_of(task)
        built = self.environment(task)
        step = stages(terminal)[stage]
        setup = self.verifier_setup(task, stage)
        return verifier.run_verifier(
            self.machine_layers(task), setup.tests, step.test_command, tests_dir=terminal.tests_dir,
            workdir=machine.workdir(terminal, built), env=machine.test_env(terminal, built),
            snapshot=snapshot, net_of=net_of,
            timeout_s=step.verifier_timeout_s, memory_bytes=terminal.resources.memory_mb * MiB,
            toolchain=setup.layers, fixtures=built.hidden, isolation=self.isolation, launcher=self.launcher,
        )  # fmt: skip

    def judge(self, task: Task, box: RootBox, script: CommandResult | None = None, stage: int = 0) -> Judged:
        """Grade ``box``'s machine: its files copied and sanitized, the tests (of ``stage``) run
        on them in a fresh box sharing only its loopback (its services, when ``background="keep"``)."""
        expected = self.expected(task, stage)
        if self.background == "kill":
            box.kill_all()
        os.makedirs(run_root(), mode=0o700, exist_ok=True)
        scratch = tempfile.mkdtemp(prefix="judge-", dir=run_root())
        try:
            snapshot = os.path.join(scratch, "snapshot")
            os.mkdir(snapshot)
            copy_changes(box, snapshot)  # (the files at submit, whatever the agent left running does)
            run = self._verify(task, stage, snapshot=snapshot, net_of=box)
        finally:
            remove_tree(scratch)
        tail = run.result.output[-2000:]
        outcome = Outcome(run.channel, run.result.exit_code, run.result.timed_out, run.reward_file, tail,
                          run.result.channel_overflow)  # fmt: skip
        return Judged(outcome, expected, script, run.removed)

    # --- single and refine: one script --------------------------------------------------------------

    def launch(self, task: Task, code: str) -> Future[Any]:
        future: Future[Any] = Future()
        try:
            future.set_result(self.run_script(task, code))
        except (SandboxError, InvalidTask) as e:
            future.set_exception(e)
        return future

    def run_script(self, task: Task, code: str) -> Judged:
        """Run ``code`` (a shell script; the task's reference runs as its oracle, with its
        files at ``/solution``) in a fresh machine, then judge the machine (a multi-step
        task: `run_steps`)."""
        self.check_task_once(task)
        terminal = terminal_of(task)
        if terminal.steps:
            return self.run_steps(task, code)
        built = self.environment(task)
        oracle = code == task.reference and bool(terminal.solution_command)
        with self.open_box(task, solution=oracle) as box:
            argv = terminal.solution_command if oracle else (*machine.shell(built), code)
            env = {**dict(built.env), **(dict(terminal.solution_env) if oracle else {})}
            user, folder = machine.agent_user(terminal, built), machine.workdir(terminal, built)
            script = box.run(argv, user=user, cwd=folder, env=env, timeout_s=terminal.agent_timeout_s,
                             output_bytes=SINGLE_OUTPUT_BYTES, background=self.background)  # fmt: skip
            return self.judge(task, box, script)

    def run_steps(self, task: Task, code: str) -> Judged:
        """A multi-step task in one machine: the oracle runs each step's solution after the
        step's setup, and each step is judged before the next; another script runs once,
        after every step's setup, and then each step is judged. A step under its
        ``min_reward`` ends the task."""
        terminal = terminal_of(task)
        built = self.environment(task)
        user, workdir, env = machine.agent_user(terminal, built), machine.workdir(terminal, built), dict(built.env)
        oracle = code == task.reference and any(stage.solution_command for stage in stages(terminal))
        done: list[tuple[str, Judged]] = []
        script = None
        every = stages(terminal)
        with self.open_box(task) as box:
            if oracle:
                for index, stage in enumerate(every):
                    if not self.set_up_stage(box, stage, workdir, user, env):
                        break  # (a setup that fails ends the task: the steps left score 0)
                    if stage.solution_command:
                        steps.copy_into(box, stage.solution, "/solution", user="root")
                        script = box.run(stage.solution_command, user=user, cwd=workdir,
                                         env={**env, **dict(terminal.solution_env)}, timeout_s=stage.agent_timeout_s,
                                         output_bytes=SINGLE_OUTPUT_BYTES, background=self.background)  # fmt: skip
                        box.run(("rm", "-rf", "/solution"), cwd="/")
                    done.append((stage.name, self.judge(task, box, stage=index)))
                    if machine.below_threshold(self.grade_stage(done[-1][1]), stage):
                        break
            else:
                reached = 0
                while reached < len(every) and self.set_up_stage(box, every[reached], workdir, user, env):
                    reached += 1
                script = box.run((*machine.shell(built), code), user=user, cwd=workdir, env=env,
                                 timeout_s=terminal.agent_timeout_s, output_bytes=SINGLE_OUTPUT_BYTES,
                                 background=self.background)  # fmt: skip
                for index in range(reached):
                    done.append((every[index].name, self.judge(task, box, stage=index)))
                    if machine.below_threshold(self.grade_stage(done[-1][1]), every[index]):
                        break
        names = tuple(stage.name for stage in stages(terminal))
        return Judged(
            None, grader.Expected(), script, steps=tuple(done), step_names=names, strategy=terminal.reward_strategy
        )

    def set_up_stage(self, box: RootBox, stage: Stage, workdir: str, user: str, env: dict[str, str]) -> bool:
        """Prepare ``stage`` in ``box``; whether its setup succeeded."""
        setup = steps.prepare(box, stage, workdir=workdir, user=user, env=env)
        return setup is None or (not setup.timed_out and setup.exit_code == 0)

    def grade_stage(self, judged: Judged) -> Grade:
        """The grader's verdict on one judged stage."""
        assert judged.outcome is not None
        return grader.grade(judged.outcome, judged.expected)

    def grade(self, task: Task, code: str, result: RunResult) -> Grade:  # type: ignore[override]
        """The grade of a judged machine (`Judged`): the grader's verdict, with the script's
        own run as a note (single and refine modes)."""
        judged: Judged = result  # type: ignore[assignment]
        if judged.step_names:
            grades = [self.grade_stage(part) for _, part in judged.steps]
            verdict = steps.combine(grades, judged.step_names, judged.strategy)
        else:
            verdict = self.grade_stage(judged)
        notes = []
        if judged.script is not None:
            status = "timed out" if judged.script.timed_out else f"exit {judged.script.exit_code}"
            notes.append(Diagnostic(f"your script: {status}\n{judged.script.output[-2000:]}".rstrip(), file="script",
                                    severity="note"))  # fmt: skip
        removed = [path for path in judged.removed if path not in ("/.codegym", "/solution")]  # (ours)
        if removed:
            shown = ", ".join(removed[:8]) + (" ..." if len(removed) > 8 else "")
            notes.append(Diagnostic(f"the verifier did not use these changes of yours: {shown}", file="machine",
                                    severity="note"))  # fmt: skip
        return replace(verdict, diagnostics=(*verdict.diagnostics, *notes))

    def reward_components(self, grade: Grade) -> dict[str, float]:
        """``correct``: 1.0 when every test passes; for a multi-step task, its steps' mean
        (or the last step's, with ``multi_step_reward_strategy = "final"``)."""
        if "multi_step_reward" in grade.metrics:
            return {"correct": float(grade.metrics["multi_step_reward"])}
        return super().reward_components(grade)

    # --- agent mode: a machine and tools --------------------------------------------------------------

    def _open_episode(self, task: Task) -> None:
        self._close_episode()
        self.check_task_once(task)
        self._episode = TerminalEpisode(self, task)

    def episode_prompt(self, task: Task) -> str:
        terminal = terminal_of(task)
        built = self.environment(task)
        return (
            f"{terminal.instruction.rstrip()}\n\n"
            f"You are in a terminal on a Debian machine, as {machine.agent_user(terminal, built)}, in "
            f"{machine.workdir(terminal, built)}. Run commands with the bash tool; view and edit files with "
            "str_replace_editor (absolute paths). The machine has no network. Processes you leave running "
            f"{'keep running' if self.background == 'keep' else 'are stopped when the command returns'}. When you "
            "are done, call submit: hidden tests then check the machine's state."
        )

    def agent_setup(self, task: Task) -> AgentSetup:
        return AgentSetup(files={}, submission="", graded="the machine's state")

    def _grade_submission(self, task: Task, episode: AgentEpisode, info: dict[str, Any]) -> tuple[Grade | None, float]:
        """Judge the machine at ``submit`` (a multi-step task: the current step; the reward
        given is what the step adds to the task's reward)."""
        assert isinstance(episode, TerminalEpisode)
        try:
            judged = self.judge(task, episode.box, stage=episode.stage)
            if episode.terminal.steps:
                episode.judged.append((stages(episode.terminal)[episode.stage].name, judged))
                names = tuple(stage.name for stage in stages(episode.terminal))
                judged = Judged(None, grader.Expected(), steps=tuple(episode.judged), step_names=names,
                                strategy=episode.terminal.reward_strategy)  # fmt: skip
            grade = self.grade_checked(task, "", judged)  # type: ignore[arg-type]
        except SandboxError as e:
            info["infra_error"] = str(e)
            return None, 0.0
        except InvalidTask as e:
            grade = self.ungradable(task, e)
            self.last_grade = grade
            info.update(task_error=str(e), grade=grade, status=grade.status.value, reward_components={"correct": 0.0})
            return grade, 0.0
        components = self.reward_components(grade)
        grade = replace(grade, reward_components={**grade.reward_components, **components})
        self.last_grade = grade
        info.update(grade=grade, status=grade.status.value, reward_components=dict(components))
        total = float(sum(components.values()))
        reward, episode.rewarded = total - episode.rewarded, total
        return grade, reward

    def advance_episode(self, task: Task, episode: AgentEpisode, grade: Grade) -> str | None:
        """A multi-step task goes on to its next step, unless this one fell under its
        ``min_reward`` or the next step's setup fails."""
        assert isinstance(episode, TerminalEpisode)
        every = stages(episode.terminal)
        if not episode.terminal.steps or episode.stage + 1 >= len(every):
            return None
        last = self.grade_stage(episode.judged[-1][1])
        if machine.below_threshold(last, every[episode.stage]):
            return None
        episode.stage += 1
        if not episode.set_up():
            return None
        step = every[episode.stage]
        return f"[step {episode.stage + 1} of {len(every)}: {step.name}]\n{step.instruction}"


def _close_quietly(future: Future[RootBox]) -> None:
    """Close a spare machine no episode took (one that failed to start has nothing to close)."""
    if future.exception() is None:
        future.result().close()


from codegym.envs.terminal.episode import TerminalEpisode  # noqa: E402  (it names TerminalEnv in its types)
