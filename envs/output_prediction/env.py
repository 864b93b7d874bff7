"""`OutputPredictionEnv`: predict what a Python function returns, or find an input that gives an output."""

from __future__ import annotations

import ast
import logging
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from codegym.envs.output_prediction import grader, inputs
from codegym.envs.output_prediction.generator import Knobs
from codegym.envs.output_prediction.grader import Answer, Failed
from codegym.envs.output_prediction.tasks import Direction, Item, knobs_of, load_items, pose, takes_no_arguments
from codegym.envs.python_function.harness import CANDIDATE, STEPS, harness_for, recorder_for

from codegym.core import CodeEnv, InfraPolicy, Mode, ReferenceTimeLimits, TaskPolicy
from codegym.error import InvalidTask, UngradableSubmission
from codegym.executor import Executor, Job, Limits, RunResult
from codegym.grade import Grade
from codegym.requirements import HUMANEVAL_TASKS, Requirements
from codegym.task import Quarantine, Task, TaskSet

logger = logging.getLogger(__name__)

HARNESS = "codegym.envs.python_function.harness"
INPUTS = "codegym.envs.output_prediction.inputs"
DEFAULT_LIMITS = Limits(cpu_s=2.0, wall_s=4.0, memory_bytes=256 << 20, processes=16)
CHUNK = 64  # programs whose outputs one sandbox job computes
WINDOW = 8  # chunks computed at once while iterating the tasks
# The program of a batch job: runs each program in a namespace of its own, on its input, under
# a timer of its own (a program that hangs costs its own task, not the batch).
BATCH = """\
import signal

SOURCES = {sources!r}
NAMES = {names!r}
PER_CALL_S = {per_call!r}


def _late(signum, frame):
    raise TimeoutError(f"it ran past {{PER_CALL_S}} s on its input")


def run(index, args):
    namespace = {{"__name__": "program"}}
    signal.signal(signal.SIGALRM, _late)
    signal.setitimer(signal.ITIMER_REAL, PER_CALL_S)
    try:
        exec(compile(SOURCES[index], "program.py", "exec"), namespace)
        return namespace[NAMES[index]](*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
"""


class OutputPredictionEnv(CodeEnv):
    """Predict a Python function's output on an input, or find an input that gives an output
    (CRUXEval-style execution prediction).

    ## Action space
    `UnicodeText`: ``direction="output"``: a Python literal (``[1, 'a']``), or ``assert
    f(...) == <literal>``, read with `ast.literal_eval` only: code in it is never run
    (``CE``); ``direction="input"``: the arguments as they go inside ``f(...)`` (``1, 2`` is two
    arguments, ``(1, 2)`` one tuple), the call ``f(...)``, or ``assert f(...) == ...``, each
    argument any expression (``dict(a=1)``, a lambda, ``range(3)``, a name the code binds),
    evaluated in the sandbox only (literals are read here); empty for a function without
    parameters. Raw, in a fenced
    block, or in CRUXEval's ``[ANSWER] ... [/ANSWER]``; at most 64 KiB.

    ## Observation space
    `codegym.spaces.observation_space`: the prompt (the function, and its input or the output
    to reach), rendered feedback, diagnostics, status, the one test's pass/fail, pass rate
    and attempt count. In ``direction="output"`` the feedback never shows the expected answer;
    in ``direction="input"`` it shows what the function returned on the given input.

    ## Rewards
    1.0 when the answer is right, else 0.0 (``reward_components`` ``{"correct": ...}``).
    Outputs are compared by value and type (``1`` is not ``1.0`` nor ``True``, a tuple is not a
    list), floats within ``tolerance``. Statuses: ``OK``, ``WA``, ``CE`` (not literals, a
    malformed call, keyword arguments, too long); in ``direction="input"`` also ``RE`` /
    ``TLE`` / ``MLE`` when the answer's arguments or the function crash, loop or blow up.

    ## Episode end
    ``mode="single"``: terminated after the one answer. ``mode="refine"``: terminated when
    right; truncated only by ``max_episode_steps``. ``mode="agent"`` is refused: an agent could
    just run the code.

    ## Registered configurations
    ``codegym/OutputPrediction-v1`` with ``tasks="generated"`` (default: ``count`` programs of
    ``seed`` from `codegym.envs.output_prediction.generator`, with ``knobs`` or knobs drawn per
    program), ``"codegym-py"`` or ``"humaneval"`` (items derived from PythonFunction tasks), a
    CRUXEval-format JSONL file or rows, or a PythonFunction or OutputPrediction `TaskSet`; and
    ``direction="output"`` (default) or ``"input"``.

    ## How it is judged
    An output the source does not give (generated and derived items) is computed in the
    sandbox on first need, for a chunk of tasks in one job; a program that raises or hangs on
    its input makes its task ungradable (``IE``). ``direction="output"`` runs nothing per step;
    ``direction="input"`` runs the function on the answer's arguments in the sandbox (one job):
    literal ones are read here and sent as values; otherwise a forked child evaluates them and
    the function runs on what they made, in the untouched process or, where they hold code, in
    a second child forked from it (`codegym.envs.output_prediction.inputs`); a harness outside
    the sandbox compares what it returned.
    """

    family: ClassVar[str] = "OutputPrediction"
    requires: ClassVar[Requirements] = Requirements(modules=(HUMANEVAL_TASKS,))
    preload: ClassVar[tuple[str, ...]] = (CANDIDATE, HARNESS, INPUTS)

    def __init__(
        self,
        tasks: str | Path | TaskSet | Iterable[Task] | Any = "generated",
        *,
        direction: Direction = "output",
        count: int = 500,
        seed: int = 0,
        knobs: Knobs | Mapping[str, Any] | None = None,
        tolerance: float = 1e-6,
        mode: Mode = "single",
        limits: Limits = DEFAULT_LIMITS,
        time_limits: ReferenceTimeLimits | None = None,
        executor: Executor | str | None = None,
        on_infra_error: InfraPolicy = "raise",
        render_mode: str | None = None,
        on_task_error: TaskPolicy = "flag",
        quarantine: Quarantine | None = None,
        validate: bool | int = False,
    ) -> None:
        if mode == "agent":
            raise ValueError("OutputPrediction has no agent mode: an agent could run the code and read the answer; "
                             "use mode='single' or 'refine'")  # fmt: skip
        if direction not in ("output", "input"):
            raise ValueError(f"direction must be 'output' (predict the output) or 'input' (find an input), "
                             f"got {direction!r}")  # fmt: skip
        if not tolerance >= 0:
            raise ValueError(f"tolerance must be a number >= 0, got {tolerance!r}")
        items, name = load_items(tasks, count=count, seed=seed, knobs=knobs_of(knobs))
        self.direction: Direction = direction
        self.tolerance = float(tolerance)
        self._items = {item.id: item for item in items}
        self._chunk_of = {item.id: index // CHUNK for index, item in enumerate(items)}
        self._chunks = [items[start : start + CHUNK] for start in range(0, len(items), CHUNK)]
        self._outputs: dict[str, tuple[Any, str] | Failed] = {}  # id -> (value, literal text) or why none
        self._posed: dict[str, Task] = {}
        self._bare: dict[str, bool] = {}  # id -> whether its function takes no arguments (an empty input)
        self._lock = threading.RLock()
        raw = LazyTasks((pose(item, direction, item.output, self.tolerance) for item in items), name, self._resolve)
        super().__init__(raw, limits=limits, time_limits=time_limits, mode=mode, executor=executor,
                         on_infra_error=on_infra_error, render_mode=render_mode, on_task_error=on_task_error,
                         quarantine=quarantine)  # fmt: skip
        self.validate_on_load(validate)

    # --- judging ---------------------------------------------------------------------------------

    def launch(self, task: Task, code: str) -> Future[Any]:
        """An answer that does not parse, or any predicted output, is judged here without a
        run (a done future of its `Answer`); a predicted input runs in the sandbox."""
        self.check_task_once(task)
        answer = grader.parse_output(code) if self.direction == "output" else self._parse_input(task, code)
        if self.direction == "output" or not answer.ok:
            done: Future[Any] = Future()
            done.set_result(answer)
            return done
        return self.executor_for(task).submit(self.build_job_checked(task, code))

    def build_job(self, task: Task, code: str, limits: Limits | None = None) -> Job:
        if self.direction == "output":
            raise UngradableSubmission("direction='output' runs nothing per answer: there is no job to build")
        limits = limits or self.limits_for(task)
        item = self._items[task.id]
        answer = self._parse_input(task, code)
        if not answer.ok:
            raise UngradableSubmission(f"not an input: {answer.error}")
        value, _ = self._output(task.id)
        test = {"name": grader.TEST, "code": f"{item.entry_point}(...)", "expected": value, "compare": "typed",
                "args": list(answer.values), "atol": self.tolerance}  # fmt: skip
        program, entry = item.code, item.entry_point
        if answer.evaluated:  # expressions travel as their source, evaluated in the sandbox (`inputs`)
            program, entry = item.code + inputs.trailer(item.entry_point), inputs.ENTRY
            test["args"] = [grader.arguments_source(answer.sources)]
        # (the expected value stays in the harness, which compares what the call returned)
        return Job(steps=STEPS, files={"solution.py": program.encode()}, limits=limits,
                   harness=harness_for(entry, "", [test], limits.wall_s), preload=self.preload)  # fmt: skip

    def grade(self, task: Task, code: str, result: RunResult | Answer) -> Grade:
        item = self._items[task.id]
        expected, _ = self._output(task.id)
        if isinstance(result, RunResult):
            return grader.grade_input(self._parse_input(task, code), expected, result, item.entry_point)
        if self.direction == "input":
            return grader.grade_input(result, expected, None, item.entry_point)
        return grader.grade_output(result, expected, f"{item.entry_point}({item.input})", self.tolerance)

    def _parse_input(self, task: Task, code: str) -> Answer:
        item = self._items[task.id]
        if item.id not in self._bare:
            self._bare[item.id] = takes_no_arguments(item.code, item.entry_point)
        return grader.parse_input(code, item.entry_point, no_arguments=self._bare[item.id])

    def check_task(self, task: Task) -> None:
        """Raise `InvalidTask` when the task's output cannot be had: its program raised, hung
        or returned what no literal writes (computed in the sandbox here, for its chunk)."""
        self._output(task.id)

    @property
    def invalid_tasks(self) -> dict[str, str]:
        """The tasks found ungradable so far (outputs are computed on first need)."""
        found = {i: v.reason for i, v in self._outputs.items() if isinstance(v, Failed)}
        return {**found, **self._invalid}

    # --- outputs, computed on first need -------------------------------------------------------

    def _output(self, task_id: str) -> tuple[Any, str]:
        """The output of task ``task_id``: its value and literal text (raises `InvalidTask`)."""
        found = self._outputs.get(task_id)  # (known by grading time: no lock, which a batch job may hold)
        if found is None:
            with self._lock:
                if task_id not in self._outputs:
                    self._compute({self._chunk_of[task_id]})
                found = self._outputs[task_id]
        if isinstance(found, Failed):
            raise InvalidTask(found.reason)
        return found

    def _resolve(self, ids: list[str]) -> list[Task]:
        """The tasks ``ids``, posed with their outputs (computed for their chunks at once)."""
        with self._lock:
            self._compute({self._chunk_of[i] for i in ids if i not in self._outputs})
            return [self._pose(i) for i in ids]

    def _pose(self, task_id: str) -> Task:
        if task_id not in self._posed:
            found = self._outputs[task_id]
            item = self._items[task_id]
            if isinstance(found, Failed):
                self._posed[task_id] = pose(item, self.direction, None, self.tolerance, invalid=found.reason)
            else:
                self._posed[task_id] = pose(item, self.direction, found[1], self.tolerance)
        return self._posed[task_id]

    def _compute(self, chunks: set[int]) -> None:
        """Fill in the outputs of ``chunks``' items: given ones read, the others run in the
        sandbox, a job per chunk, the jobs at once."""
        pending: list[tuple[Item, tuple[Any, ...]]] = []
        for chunk in sorted(chunks):
            for item in self._chunks[chunk]:
                if item.id in self._outputs:
                    continue
                if item.output is not None:
                    self._outputs[item.id] = _given(item)
                    continue
                args = grader.parse_arguments(item.input, item.entry_point)
                if args.ok:
                    pending.append((item, args.values))
                else:
                    self._outputs[item.id] = Failed(f"its input is not Python literals: {args.error}")
        batches = [pending[start : start + CHUNK] for start in range(0, len(pending), CHUNK)]
        runs = [self._submit(batch) for batch in batches]
        for batch, run in zip(batches, runs, strict=True):
            self._record(batch, run)

    def _submit(self, batch: list[tuple[Item, tuple[Any, ...]]]) -> Future[RunResult]:
        per_call = self.limits.cpu_s
        source = BATCH.format(sources=[item.code for item, _ in batch], names=[item.entry_point for item, _ in batch],
                              per_call=per_call)  # fmt: skip
        limits = replace(self.limits, cpu_s=per_call * 8, wall_s=max(self.limits.wall_s, per_call) * 8)
        calls = [[index, list(args)] for index, (_, args) in enumerate(batch)]
        job = Job(steps=STEPS, files={"solution.py": source.encode()}, limits=limits,
                  harness=recorder_for("run", calls, limits.wall_s), preload=self.preload)  # fmt: skip
        return self.executor.submit(job)

    def _record(self, batch: list[tuple[Item, tuple[Any, ...]]], run: Future[RunResult]) -> None:
        """Keep what ``run`` computed; the program it stopped at fails, the rest run again."""
        while batch:
            values, stopped = grader.recorded(len(batch), run.result())
            for (item, _), value in zip(batch, values, strict=False):
                self._outputs[item.id] = value if isinstance(value, Failed) else _literal(value)
            if stopped is None or len(values) == len(batch):
                return
            culprit, batch = batch[len(values)], batch[len(values) + 1 :]
            logger.info("output prediction: %s gave no output (%s)", culprit[0].id, stopped)
            self._outputs[culprit[0].id] = Failed(f"its program gave no output on its input: {stopped}")
            if batch:
                run = self._submit(batch)


def _literal(value: Any) -> tuple[Any, str] | Failed:
    try:
        return value, grader.as_literal(value)
    except InvalidTask as e:
        return Failed(str(e))


def _given(item: Item) -> tuple[Any, str] | Failed:
    """The output its source gives an item, read as a literal."""
    text = str(item.output)
    try:
        return ast.literal_eval(text.strip()), text.strip()
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return Failed(f"its given output is not a Python literal: {text[:80]!r}")


class LazyTasks(TaskSet):
    """The env's tasks, each posed (its output in its prompt or reference) when first taken:
    `get`, `sample` and iteration pose them through ``resolve``, computing outputs a chunk at
    a time. `without` and `filter` on fields known before posing (id, difficulty, tags) keep
    it lazy."""

    def __init__(self, tasks: Iterable[Task], name: str, resolve: Callable[[list[str]], list[Task]]) -> None:
        super().__init__(tasks, name)
        self._resolve = resolve

    def get(self, task_id: str | int) -> Task:
        return self._resolve([super().get(task_id).id])[0]

    def sample(self, rng: np.random.Generator) -> Task:
        return self._resolve([super().sample(rng).id])[0]

    def __iter__(self) -> Iterator[Task]:
        ids = list(self.ids)
        for start in range(0, len(ids), CHUNK * WINDOW):
            yield from self._resolve(ids[start : start + CHUNK * WINDOW])

    def _raw(self) -> list[Task]:
        return [TaskSet.get(self, i) for i in self.ids]

    def without(self, task_ids: Iterable[str], *, why: str = "left out") -> TaskSet:
        dropped = set(task_ids)
        kept = [t for t in self._raw() if t.id not in dropped]
        if len(kept) < len(self):
            logger.info("%s: %d task(s) %s", self.name, len(self) - len(kept), why)
        return LazyTasks(kept, self.name, self._resolve)

    def filter(self, **fields: Any) -> TaskSet:
        if set(fields) - {"id", "difficulty", "tags", "family", "language"}:
            return super().filter(**fields)
        chosen = [t for t in self._raw() if all(getattr(t, k) == v for k, v in fields.items())]
        return LazyTasks(chosen, f"{self.name}[{fields}]", self._resolve)
