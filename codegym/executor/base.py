"""The executor protocol: a pure-data `Job` in, a frozen `RunResult` out.

Any backend (local namespaces, Docker, Ray) runs the same `Job` and returns the same
`RunResult`. Nothing here judges: a `RunResult` states what happened (exit status, signal,
output, resources, which limit fired); families turn it into a `Grade`. Stdlib only, because
the sandboxed worker uses these types. Between a pool and its workers, a `Job` and a
`RunResult` travel in their wire form (`Job.to_wire`, `RunResult.to_wire`): nested tuples of
builtins, which `marshal` encodes and decodes far faster than pickle does dataclasses.
"""

from __future__ import annotations

import abc
import signal
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:  # the sandboxed worker imports this module: keep it free of at-fork hooks
    from concurrent.futures import Future

    from codegym.executor.workspace import Layer, Workspace

LimitName = Literal["cpu", "wall", "memory", "output", "file_size", "processes", "disk"]
Wire = tuple[Any, ...]  # a dataclass's wire form: its fields' values in order, nested ones in theirs
_T = TypeVar("_T")

MiB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Resource limits for one step of a job.

    Attributes:
        cpu_s: CPU seconds, all of the step's processes together.
        wall_s: Wall-clock seconds before the step's whole process tree is killed.
        memory_bytes: Memory (resident plus tmpfs files) of the step's process tree.
        processes: Processes and threads alive at once.
        output_bytes: Bytes kept of stdout and of stderr each; more kills the step.
        file_size_bytes: Largest file the step may write.
        disk_bytes: Size of the writable work dir and of ``/tmp`` each (in the `container`
            tier, a quota the supervisor enforces: past it the step stops, limit "disk").
        open_files: File descriptors per process.
        stack_bytes: Stack size per thread.
    """

    cpu_s: float = 5.0
    wall_s: float = 10.0
    memory_bytes: int = 512 * MiB
    processes: int = 32
    output_bytes: int = 1 * MiB
    file_size_bytes: int = 16 * MiB
    disk_bytes: int = 64 * MiB
    open_files: int = 256
    stack_bytes: int = 64 * MiB

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if value <= 0:
                raise ValueError(f"Limits.{name} must be positive, got {value!r}")

    def value_of(self, limit: str) -> str:
        """The value of the limit named ``limit`` (a `StepResult.limit`: ``"cpu"``,
        ``"memory"``, ...) in words, for a message that says which limit a run hit."""
        values = {
            "cpu": f"{self.cpu_s:g} s of CPU time",
            "wall": f"{self.wall_s:g} s of wall-clock time",
            "memory": f"{self.memory_bytes >> 20} MiB",
            "output": f"{self.output_bytes} bytes of output",
            "file_size": f"{self.file_size_bytes} bytes per file",
            "disk": f"{self.disk_bytes >> 20} MiB of disk",
            "processes": f"{self.processes} processes",
        }
        return values.get(limit, limit)


@dataclass(frozen=True)
class Step:
    """One command of a job, run as a fresh process tree in the job's sandbox.

    ``argv[0] == "python"`` runs in the worker's already-loaded interpreter: ``python
    file.py`` runs a file of the work dir, ``python -c source`` runs ``source`` (a runner
    shipped in the job itself), ``python -m module`` calls ``module.main()`` of a module the
    job preloads. Any other ``argv`` is executed from the toolchain's ``PATH``.

    Attributes:
        argv: The command.
        stdin: Bytes fed to standard input.
        limits: Limits for this step; the job's when None.
        channel: Connect fds 3 (read) and 4 (write) to the job's `Harness`.
        stop_on_failure: Skip the remaining steps when this one fails (a compile step).
        env: Extra environment variables. A value that starts with ``$TMPDIR`` names a path
            in the step's temp dir (``/tmp``, or its own in the `container` tier).
        sockets: What creating a non-AF_UNIX socket does: ``"kill"`` the step (reported as a
            denied syscall) or fail with ``"errno"`` (for runtimes that probe at start-up).
            There is no network to reach either way. ``"tool"`` is ``"errno"`` for a trusted
            tool's own step, never one that runs a submission: its unix sockets work in every
            tier, the `container` tier's too, where the others' do not (Why3 talks to the
            ``why3server`` it starts over one in its temp dir).
        memory_slack_bytes: Where no cgroup limits memory (the `userns` tier as a plain
            user), RLIMIT_DATA limits each process instead, and it counts memory that is
            mapped but never touched: a JVM's committed heap, every thread's stack. A runtime
            that maps much of that gets this much more (a cgroup counts only what is used,
            and ignores it).
    """

    argv: tuple[str, ...]
    stdin: bytes = b""
    limits: Limits | None = None
    channel: bool = False
    stop_on_failure: bool = True
    env: tuple[tuple[str, str], ...] = ()
    sockets: Literal["kill", "errno", "tool"] = "kill"
    memory_slack_bytes: int = 0

    def __post_init__(self) -> None:
        if not (isinstance(self.argv, tuple) and self.argv and all(isinstance(a, str) for a in self.argv)):
            raise TypeError(f"Step.argv must be a non-empty tuple of str, got {self.argv!r}")
        if not (isinstance(self.env, tuple) and all(_is_pair_of_str(item) for item in self.env)):
            raise TypeError(
                f"Step.env must be a tuple of (name, value) str pairs (tuple(mapping.items())), got {self.env!r}"
            )
        if self.sockets not in ("kill", "errno", "tool"):
            raise ValueError(f"Step.sockets must be 'kill', 'errno' or 'tool', got {self.sockets!r}")
        if not (isinstance(self.memory_slack_bytes, int) and self.memory_slack_bytes >= 0):
            raise ValueError(f"Step.memory_slack_bytes must be an int >= 0, got {self.memory_slack_bytes!r}")

    def to_wire(self) -> Wire:
        return (*_values(self)[:2], self.limits and _values(self.limits), *_values(self)[3:])

    @classmethod
    def from_wire(cls, wire: Wire) -> Step:
        limits = wire[2] and _rebuild(Limits, wire[2])
        return _rebuild(cls, (*wire[:2], limits, *wire[3:]))


@dataclass(frozen=True)
class Harness:
    """Trusted code that judges a job from outside the submission's sandbox.

    ``entry`` names ``"module:function"``; it is called as ``function(channel, payload) ->
    bytes`` in the worker's supervising process (never the submission's, nor one a
    submission is forked from) while the step with the channel runs. ``payload`` (tests,
    expected values) is never inside the submission's process or file system view.
    """

    entry: str
    payload: bytes = b""


@dataclass(frozen=True)
class Job:
    """Everything a backend needs to run a submission: pure data.

    Attributes:
        steps: Commands run in order in one sandbox; files persist between them.
        files: Relative path -> content, written into the work dir before the first step.
        limits: Default limits of every step.
        harness: Trusted grader talking to the one step that asks for a channel.
        preload: Modules every worker imports once at start (``python -m`` targets, the
            harness entry), so a job costs a fork and not an import. The local backend
            calls a preloaded module's ``warm_up()``, if it has one, in the next step's
            process once the worker has been idle a while (``LocalExecutor(warm_after_s=
            ...)``): the cold start of the module's code is then off the step's path. It
            also runs the job a preloaded module's ``rehearsal()`` returns, if it has one,
            once per worker before the first real job: its spares then copy at once, as
            they are forked, the pages that the rehearsal's step wrote.
        collect: Work-dir paths (or ``*`` patterns in the work dir's top level) whose
            contents come back in `RunResult.files` after the last step (a compiled binary to
            cache); missing ones, links and non-files are left out.
        executables: Paths of ``files`` written with the executable bit (a cached binary).
        protected: Paths of ``files`` the steps may read but never change, replace or remove:
            the harness's own files that must run alongside the submission's (a repository's
            tests). They belong to the worker, read-only, and every folder on their way is
            the worker's too, sticky, so that no step can rename it away (a step still
            creates files there). Where the steps run as the worker's own uid (a plain
            user's `userns` tier) each is bound read-only onto itself instead.
    """

    steps: tuple[Step, ...]
    files: Mapping[str, bytes] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    harness: Harness | None = None
    preload: tuple[str, ...] = ()
    collect: tuple[str, ...] = ()
    executables: tuple[str, ...] = ()
    protected: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("a Job needs at least one Step")
        stray = set(self.protected) - set(self.files)
        if stray:
            raise ValueError(f"Job.protected names paths that are not among its files: {sorted(stray)[:5]}")
        for path in (*self.files, *self.collect):
            if path.startswith("/") or ".." in path.split("/"):
                raise ValueError(f"Job file paths must be relative and stay inside the work dir, got {path!r}")
        talking = [i for i, step in enumerate(self.steps) if step.channel]
        if self.harness is None and talking:
            raise ValueError("a Step with channel=True needs the Job to have a harness")
        if self.harness is not None and len(talking) != 1:
            raise ValueError(f"a Job with a harness needs exactly one Step with channel=True, found {len(talking)}")

    def limits_of(self, step: Step) -> Limits:
        return step.limits or self.limits

    def to_wire(self) -> Wire:
        """This job as builtins only (see the module docstring); `from_wire` undoes it."""
        return (
            tuple(step.to_wire() for step in self.steps),
            dict(self.files),
            _values(self.limits),
            self.harness and _values(self.harness),
            self.preload,
            self.collect,
            self.executables,
            self.protected,
        )

    @classmethod
    def from_wire(cls, wire: Wire) -> Job:
        """The job `to_wire` encoded, as it was checked where it was made (no checks again)."""
        steps, files, limits, harness, *rest = wire
        harness = harness and _rebuild(Harness, harness)
        return _rebuild(cls, (tuple(map(Step.from_wire, steps)), files, _rebuild(Limits, limits), harness, *rest))


@dataclass(frozen=True)
class StepResult:
    """What one step did, measured by the sandbox.

    Attributes:
        argv: The command.
        exit_code: Exit status when it exited, else None.
        signal: Signal number when it was killed, else None.
        stdout: Standard output, at most ``output_bytes``.
        stderr: Standard error, at most ``output_bytes``.
        cpu_s: CPU seconds of the step's whole process tree.
        wall_s: Wall-clock seconds.
        peak_memory_bytes: Peak memory of the process tree.
        limit: The limit that stopped it, if one did.
        skipped: Not run because an earlier step failed.
    """

    argv: tuple[str, ...]
    exit_code: int | None = None
    signal: int | None = None
    stdout: bytes = b""
    stderr: bytes = b""
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_memory_bytes: int = 0
    limit: LimitName | None = None
    skipped: bool = False

    @property
    def ok(self) -> bool:
        """Exited with status 0 within every limit."""
        return self.exit_code == 0 and self.limit is None and not self.skipped

    @property
    def denied_syscall(self) -> bool:
        """Killed by the seccomp filter."""
        return self.signal == signal.SIGSYS


@dataclass(frozen=True)
class RunResult:
    """The outcome of a `Job`.

    Attributes:
        steps: One result per step, in order.
        harness_output: What the harness returned, when the job had one.
        harness_error: Traceback of a harness that crashed (a fault of the task, not of
            the submission).
        backend: Name of the backend that ran it.
        cgroup: Which cgroup version enforced memory and process limits ("v1", "v2",
            "none": rlimits did, per process).
        isolation: The local sandbox's tier that ran it ("full", "userns" or "container";
            see `codegym.executor.isolation`).
        attempts: How many times the job was started (more than one after a retried
            infrastructure fault).
        files: The job's ``collect`` paths that existed as regular files, with contents.
    """

    steps: tuple[StepResult, ...]
    harness_output: bytes | None = None
    harness_error: str | None = None
    backend: str = "local"
    cgroup: str = "none"
    isolation: str = "full"
    attempts: int = 1
    files: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(step.ok for step in self.steps)

    def to_wire(self) -> Wire:
        """This result as builtins only (see the module docstring); `from_wire` undoes it."""
        return (tuple(map(_values, self.steps)), *_values(self)[1:-1], dict(self.files))

    @classmethod
    def from_wire(cls, wire: Wire) -> RunResult:
        steps = tuple(_rebuild(StepResult, step) for step in wire[0])
        return _rebuild(cls, (steps, *wire[1:]))


_getters: dict[type, attrgetter[Any]] = {}
_names: dict[type, tuple[str, ...]] = {}


def _field_names(cls: type) -> tuple[str, ...]:
    names = _names.get(cls)
    if names is None:
        names = _names[cls] = tuple(f.name for f in fields(cls))
    return names


def _values(obj: object) -> Wire:
    """A dataclass's field values, in order."""
    getter = _getters.get(type(obj))
    if getter is None:
        getter = _getters[type(obj)] = attrgetter(*_field_names(type(obj)))
    return getter(obj)


def _is_pair_of_str(item: object) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and all(isinstance(part, str) for part in item)


def _rebuild(cls: type[_T], values: Wire) -> _T:
    """The frozen dataclass whose field values are ``values``, made without ``__init__``."""
    obj = object.__new__(cls)
    obj.__dict__.update(zip(_field_names(cls), values, strict=True))
    return obj


class Executor(abc.ABC):
    """Runs jobs in a sandbox. Infrastructure failures raise `SandboxError`; whatever the
    submission does is reported in the `RunResult`."""

    name: str = "abstract"

    @abc.abstractmethod
    def submit(self, job: Job) -> Future[RunResult]:
        """Start ``job`` and return a future of its result."""

    def run(self, job: Job) -> RunResult:
        """Run ``job`` and wait for its result."""
        return self.submit(job).result()

    def open_workspace(
        self,
        layer: Layer,
        *,
        disk_bytes: int = 256 * MiB,
        idle_timeout_s: float = 1800.0,
        preload: Iterable[str] = (),
    ) -> Workspace:
        """A directory tree for one agent episode, starting as ``layer``'s files, with a
        quota of ``disk_bytes``, that expires after ``idle_timeout_s`` without a command;
        its commands may run the ``python -m`` targets in ``preload``. See
        `codegym.executor.workspace`."""
        raise NotImplementedError(f"the {self.name} backend has no workspaces")

    def close(self) -> None:
        """Release workers and sandboxes. Idempotent."""

    def __deepcopy__(self, memo: dict[int, object]) -> Executor:
        return self  # a shared resource, like a connection pool (env specs deep-copy kwargs)

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
