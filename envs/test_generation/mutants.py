"""Each task's pool of mutants: buggy variants of its reference that its own tests reject.

Candidates come from the procedural bug injector the repository-repair family uses (see
`codegym.envs.repo_repair.mutations`: operators flipped, constants changed, conditions
removed, ...), drawn with a seed of the task's. Each is graded as a PythonFunction
submission against every test of the task, hidden ones included, on the warm workers, and
kept only when a test rejects it with a wrong answer or an exception: so none is
equivalent to the reference, and none hangs or exhausts memory on the task's own inputs
(such a mutant would cost every later grading its time limit). Pools are cached on disk in
``$CODEGYM_CACHE/test_generation``, keyed by everything they depend on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import os
import random
import zlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from codegym.envs.python_function.env import PythonFunctionEnv, assemble
from codegym.envs.repo_repair.mutations import sample
from codegym.envs.repo_repair.source import unified
from codegym.envs.test_generation import operators

from codegym.batch import Scorer
from codegym.core import ReferenceTimeLimits
from codegym.executor import Executor, Limits
from codegym.grade import Status
from codegym.task import Task

logger = logging.getLogger(__name__)

VERSION = 3  # of the way pools are made: part of the cache key
SCREEN_LIMITS = Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=256 << 20, processes=8)
# A mutant slower than this on the task's tests is left out (its reference's time, measured).
SCREEN_TIME = ReferenceTimeLimits(multiple=5.0, floor_s=0.25)
KEPT = (Status.WA, Status.RE)  # rejected by a test (not by a limit: see the module docstring)


@dataclass(frozen=True)
class Mutant:
    """A buggy variant of a task's reference program.

    Attributes:
        id: ``m00``, ``m01``, ... in the pool's order.
        kind: The injector's kind of bug (``flip_operator``, ...).
        line: The changed line of the reference program.
        description: What was changed, in a sentence.
        program: The mutant's whole program.
        diff: The unified diff from the reference program to this one.
    """

    id: str
    kind: str
    line: int
    description: str
    program: str
    diff: str


@dataclass(frozen=True)
class Pool:
    """A task's mutants, or why it has none to offer: ``invalid`` says why its reference
    cannot anchor one (it fails the task's own tests)."""

    mutants: tuple[Mutant, ...] = ()
    invalid: str | None = None


@dataclass(frozen=True)
class PoolConfig:
    """How pools are drawn: at most ``size`` mutants kept of ``candidates`` drawn, with
    ``seed`` (each task's draw also depends on its id)."""

    size: int = 16
    candidates: int = 48
    seed: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.size <= self.candidates:
            raise ValueError(f"need 1 <= size <= candidates, got size={self.size}, candidates={self.candidates}")


def draw(program: str, task_id: str, config: PoolConfig) -> list[Mutant]:
    """The candidate mutants of ``program``, before screening, in draw order."""
    rng = random.Random(config.seed * 1_000_003 + zlib.crc32(task_id.encode()))
    injected = [(m.kind, m.line, m.description, m.mutated) for m in sample(program, "solution.py", rng,
                                                                            limit=config.candidates)]  # fmt: skip
    small = list(operators.mutations(program))
    rng.shuffle(small)
    seen = {program}
    drawn = []
    for pair in itertools.zip_longest(injected, small):
        for kind, line, description, mutated in filter(None, pair):
            if mutated in seen or len(drawn) >= config.candidates:
                continue
            seen.add(mutated)  # (two edits may make one program)
            drawn.append(Mutant("", kind, line, description, mutated, unified("reference.py", program, mutated)))
    return drawn


def pools(functions: Iterable[Task], config: PoolConfig, *, executor: Executor | str | None = None) -> dict[str, Pool]:
    """Each task's pool (see the module docstring), from the cache where it is there; the
    others are screened together, in one batch on the warm workers."""
    tasks = list(functions)
    found: dict[str, Pool] = {}
    missing: list[Task] = []
    for task in tasks:
        cached = _read_cache(task, config)
        if cached is None:
            missing.append(task)
        else:
            found[task.id] = cached
    if missing:
        screened = _screen(missing, config, executor)
        for task in missing:
            found[task.id] = screened[task.id]
            _write_cache(task, config, screened[task.id])
    return {task.id: found[task.id] for task in tasks}


def _screen(tasks: list[Task], config: PoolConfig, executor: Executor | str | None) -> dict[str, Pool]:
    """The reference and the candidates of every task, graded in one batch (the reference
    must pass: it is what a pool's verdicts, and every submission's validity, rest on)."""
    env = PythonFunctionEnv(tasks, limits=SCREEN_LIMITS, time_limits=SCREEN_TIME, executor=executor, public_tests=0)
    drawn = {task.id: draw(_program(task), task.id, config) for task in tasks}
    with Scorer(env, dedupe=False) as scorer:
        references = {task.id: scorer.submit(task.id, _program(task)) for task in tasks}
        futures = {tid: [scorer.submit(tid, m.program) for m in mutants] for tid, mutants in drawn.items()}
        grades = {tid: [f.result() for f in fs] for tid, fs in futures.items()}
        reference = {tid: f.result() for tid, f in references.items()}
    out: dict[str, Pool] = {}
    for tid, mutants in drawn.items():
        if reference[tid].status is not Status.OK:
            why = reference[tid].message or reference[tid].feedback()[:300]
            out[tid] = Pool(invalid=f"its reference fails its own tests ({reference[tid].status.value}: {why})")
            continue
        kept = [m for m, g in zip(mutants, grades[tid], strict=True) if g.status in KEPT][: config.size]
        out[tid] = Pool(tuple(_numbered(m, i) for i, m in enumerate(kept)))
        if len(kept) < min(10, config.size):
            logger.info("task %s: %d mutants of %d candidates are rejected by its tests", tid, len(kept), len(mutants))
    return out


def _numbered(mutant: Mutant, index: int) -> Mutant:
    return Mutant(f"m{index:02d}", mutant.kind, mutant.line, mutant.description, mutant.program, mutant.diff)


def _program(task: Task) -> str:
    return assemble(task, task.reference or "")[0]


# --- the cache ------------------------------------------------------------------------------


def cache_root() -> Path:
    """``$CODEGYM_CACHE/test_generation``, else ``~/.cache/codegym/test_generation``."""
    base = os.environ.get("CODEGYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return Path(base) / "test_generation"


def _key(task: Task, config: PoolConfig) -> str:
    tests = [(t.name, t.setup, t.code) for t in task.tests]
    basis = [VERSION, task.id, task.reference, dict(task.metadata.get("calls") or {}), tests,
             str(task.metadata.get("test_prelude", "")), asdict(config)]  # fmt: skip
    return hashlib.sha256(json.dumps(basis, sort_keys=True, default=repr).encode()).hexdigest()[:32]


def _read_cache(task: Task, config: PoolConfig) -> Pool | None:
    path = cache_root() / f"{_key(task, config)}.json"
    try:
        data = json.loads(path.read_text())
        return Pool(tuple(Mutant(**row) for row in data["mutants"]), data.get("invalid"))
    except (OSError, ValueError, TypeError, KeyError):
        return None


def _write_cache(task: Task, config: PoolConfig, pool: Pool) -> None:
    root = cache_root()
    try:
        root.mkdir(parents=True, exist_ok=True)
        path = root / f"{_key(task, config)}.json"
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps({"mutants": [asdict(m) for m in pool.mutants], "invalid": pool.invalid}))
        temporary.replace(path)
    except OSError as e:  # (a read-only home: pools are made again next time)
        logger.warning("cannot cache mutant pools in %s: %s", root, e)
