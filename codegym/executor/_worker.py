"""The sandboxed fork server behind the local backend (stdlib only).

`LocalExecutor` starts one of these per core as ``python -s -S -B -P _worker.py CONFIG``.
It isolates itself once (mount, net, ipc and uts namespaces; a root file system built from
an empty tmpfs with read-only binds of the toolchain), imports what jobs will need, then
serves jobs one at a time, each in processes forked from it:

    worker ── job process ──┬── grader (harness code, holds the tests; worker namespaces)
                            └── init (pid 1 of a fresh pid + mount namespace)
                                   └── step process (the submission: unprivileged uid,
                                        no_new_privs, seccomp, rlimits, cgroup)

The job process is forked *before* a job arrives and reads the job itself, so the worker's
own memory never holds a submission, a test, or an output that a later fork could inherit.
Results go straight to the harness on the result pipe, tagged with the job's nonce.
"""

from __future__ import annotations

import json
import os
import sys
import types


def _install_stub_packages(packages: dict[str, list[str]]) -> None:
    """Make ``codegym.*`` importable without running package ``__init__`` files (which pull
    in gymnasium and friends that the sandbox neither has nor needs)."""
    for name in sorted(packages):
        module = types.ModuleType(name)
        module.__path__ = packages[name]
        module.__package__ = name
        sys.modules[name] = module


if __name__ == "__main__":
    _CONFIG = json.loads(sys.argv[1])
    _install_stub_packages(_CONFIG["packages"])

import atexit  # noqa: E402
import builtins  # noqa: E402
import contextlib  # noqa: E402
import fcntl  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import io  # noqa: E402
import resource  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any, NoReturn  # noqa: E402

from codegym.executor import _linux as linux  # noqa: E402
from codegym.executor._wire import read_frame, write_frame  # noqa: E402
from codegym.executor.base import Job, Limits, RunResult, Step, StepResult  # noqa: E402
from codegym.executor.channel import Channel  # noqa: E402

EXIT_SHUTDOWN = 64
HARNESS_SLACK_BYTES = 32 << 20  # the worker and the job process (with its harness) share the cgroup
WORK = "/sandbox"
CANDIDATE_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": WORK,
    "TMPDIR": "/tmp",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONUNBUFFERED": "1",
}


# --- the worker's one-time isolation ----------------------------------------------------


def build_view(config: dict[str, Any]) -> None:
    """Enter fresh namespaces and pivot into a root built from an empty tmpfs."""
    linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
    linux.mount("none", "/", None, linux.MS_REC | linux.MS_PRIVATE)
    root = config["root"]
    linux.tmpfs(root, 16 << 20)
    for name in ("etc", "proc", "dev", "tmp", WORK[1:], ".cg"):
        os.mkdir(f"{root}/{name}")
    os.chmod(f"{root}/.cg", 0o700)
    os.chmod(f"{root}/tmp", 0o1777)
    for name, target in config["symlinks"]:
        os.symlink(target, f"{root}/{name}")
    for source, target in config["binds"]:
        _bind_into(root, source, target, readonly=True)
    for device in ("null", "zero", "full", "random", "urandom"):
        _bind_into(root, f"/dev/{device}", f"/dev/{device}", readonly=False)
    for index, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{index}", f"{root}/dev/{name}")
    os.symlink("/proc/self/fd", f"{root}/dev/fd")
    for name, text in config["etc"].items():
        with open(f"{root}/etc/{name}", "w") as handle:
            handle.write(text)
    for path in config["masks"]:
        linux.tmpfs(f"{root}{path}", 4096, flags=linux.MS_RDONLY)
    for controller, source in config["cgroup"]["paths"].items():
        _bind_into(root, source, f"/.cg/{controller}", readonly=False)
    os.chdir(root)
    linux.pivot_root(".", ".")
    linux.umount(".")  # the old root, stacked under the new one by pivot_root(".", ".")
    os.chdir("/")
    linux.mount("none", "/", None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    linux.sethostname("codegym")


def _bind_into(root: str, source: str, target: str, *, readonly: bool) -> None:
    path = f"{root}{target}"
    if os.path.isdir(source):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()
    linux.bind(source, path, readonly=readonly)


# --- cgroups, seen from inside the view -------------------------------------------------


@dataclass
class Cgroup:
    """The worker's cgroup (v1: a memory and a pids hierarchy; v2: one directory).

    The worker joins it once; every job process forked from it inherits it, which spares
    a per-job migration (tens of milliseconds on some v1 kernels). Limits are set per step
    on top of the usage already there, and the peak is reported net of it.
    """

    version: str
    baseline: int = 0

    def _path(self, controller: str, name: str) -> str:
        return f"/.cg/{'unified' if self.version == 'v2' else controller}/{name}"

    def _write(self, controller: str, name: str, value: str) -> None:
        with open(self._path(controller, name), "w") as handle:
            handle.write(value)

    def _read(self, controller: str, name: str) -> str:
        with open(self._path(controller, name)) as handle:
            return handle.read()

    def _counter(self, controller: str, name: str, key: str) -> int:
        for line in self._read(controller, name).splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == key:
                return int(parts[1])
        return 0

    def join(self) -> None:
        if self.version == "none":
            return
        controllers = ("memory", "pids") if self.version == "v1" else ("memory",)
        tasks = "tasks" if self.version == "v1" else "cgroup.procs"
        for controller in controllers:
            self._write(controller, tasks, str(os.getpid()))

    def prepare(self, limits: Limits) -> tuple[int, int]:
        """Apply ``limits``, reset the peak, and return the (oom kills, pid refusals) so far."""
        if self.version == "none":
            return 0, 0
        current = "memory.usage_in_bytes" if self.version == "v1" else "memory.current"
        self.baseline = int(self._read("memory", current))
        memory = str(limits.memory_bytes + self.baseline + HARNESS_SLACK_BYTES)
        if self.version == "v1":
            self._write("memory", "memory.limit_in_bytes", memory)
            self._write("memory", "memory.max_usage_in_bytes", "0")
        else:
            self._write("memory", "memory.max", memory)
            self._write("memory", "memory.swap.max", "0")
        self._write("pids", "pids.max", str(limits.processes + 3))  # + worker, job process, its thread
        return self.counters()

    def counters(self) -> tuple[int, int]:
        if self.version == "none":
            return 0, 0
        events = "memory.oom_control" if self.version == "v1" else "memory.events"
        return self._counter("memory", events, "oom_kill"), self._counter("pids", "pids.events", "max")

    def peak(self) -> int:
        """Peak memory since `prepare`, net of what the worker's processes already used."""
        if self.version == "v1":
            return max(0, int(self._read("memory", "memory.max_usage_in_bytes")) - self.baseline)
        if self.version == "v2" and os.path.exists(self._path("memory", "memory.peak")):
            return max(0, int(self._read("memory", "memory.peak")) - self.baseline)
        return 0


# --- serving jobs --------------------------------------------------------------------------


@dataclass
class Worker:
    config: dict[str, Any]
    ctl: int
    res: int
    cgroup: Cgroup
    seccomp: linux.SeccompFilter
    pid_namespace: int  # fd of the worker's own pid namespace

    def serve(self) -> None:
        while True:
            # Each job process is pid 1 of a fresh pid namespace. Going back to our own
            # namespace first is what lets unshare(CLONE_NEWPID) be called again.
            linux.setns(self.pid_namespace, linux.CLONE_NEWPID)
            linux.unshare(linux.CLONE_NEWPID)
            pid = os.fork()
            if pid == 0:
                self._run_job_process()
            _, status = os.waitpid(pid, 0)
            code = os.waitstatus_to_exitcode(status)
            if code == EXIT_SHUTDOWN:
                return
            write_frame(self.res, ("done", code))

    def _run_job_process(self) -> NoReturn:
        try:
            linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
            try:
                message = read_frame(self.ctl)
            except EOFError:
                os._exit(EXIT_SHUTDOWN)
            _, nonce, job = message
            result = JobProcess(self, job).run()
            write_frame(self.res, ("result", nonce, result))
        except BaseException:
            write_frame(self.res, ("crash", traceback.format_exc()))
            os._exit(70)
        os._exit(0)


class SetupError(RuntimeError):
    """The sandbox could not be set up for a step: an infrastructure fault."""


class JobProcess:
    """pid 1 of the job's namespace: sets up its file system, runs each step, grades.

    It is forked from the worker *before* the job arrives and reads the job itself. When
    the job has a harness, the payload (tests, expected values) is read only after the
    step that talks to the harness has been forked, so no submission process ever holds
    it; the harness then runs here, in a different process from the submission.
    """

    def __init__(self, worker: Worker, job: Job) -> None:
        self.worker = worker
        self.job = job
        self.uid: int | None = worker.config["uid"]
        self.harness_output: bytes | None = None
        self.harness_error: str | None = None

    def run(self) -> RunResult:
        linux.unshare(linux.CLONE_NEWNS)
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
        self._mount_scratch()
        results: list[StepResult] = []
        failed = False
        for step in self.job.steps:
            if failed:
                results.append(StepResult(argv=step.argv, skipped=True))
                continue
            result = self._run_step(step)
            results.append(result)
            failed = step.stop_on_failure and not result.ok
        if self.job.harness is not None and self.harness_output is None and self.harness_error is None:
            read_frame(self.worker.ctl)  # drain the unread payload; no step is forked after this
            self.harness_error = "the harness never ran: the step it talks to was skipped"
        return RunResult(
            steps=tuple(results),
            harness_output=self.harness_output,
            harness_error=self.harness_error,
            backend="local",
            cgroup=self.worker.cgroup.version,
        )

    def _mount_scratch(self) -> None:
        disk = max(self.job.limits_of(step).disk_bytes for step in self.job.steps)
        for path in self.worker.config["hide"]:
            linux.tmpfs(path, 4096, flags=linux.MS_RDONLY)
        linux.tmpfs(WORK, disk, mode=0o755)
        linux.tmpfs("/tmp", disk, mode=0o1777)
        for relative, content in self.job.files.items():
            path = os.path.join(WORK, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(content)
        if self.uid is not None:
            for directory, _, names in os.walk(WORK):
                os.chown(directory, self.uid, self.uid)
                for name in names:
                    os.chown(os.path.join(directory, name), self.uid, self.uid)

    def _run_step(self, step: Step) -> StepResult:
        limits = self.job.limits_of(step)
        cgroup = self.worker.cgroup
        oom_before, pids_before = cgroup.prepare(limits)
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        setup_r, setup_w = os.pipe2(os.O_CLOEXEC)
        # to_harness: submission -> harness; to_candidate: harness -> submission
        channel = (*os.pipe(), *os.pipe()) if step.channel else None
        usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            ends = (channel[2], channel[1]) if channel else None
            Candidate(self, step, limits, (stdin_r, out_w, err_w), ends, setup_w).run()
        for fd in (stdin_r, out_w, err_w, setup_w, *((channel[1], channel[2]) if channel else ())):
            os.close(fd)
        failure = _read_all(setup_r)
        os.close(setup_r)
        if failure:
            _kill_namespace()
            raise SetupError(failure.decode(errors="replace"))
        if channel is None:
            io_result = _pump(pid, step.stdin, stdin_w, out_r, err_r, limits, started)
        else:
            io_result = self._pump_beside_harness(pid, step, stdin_w, out_r, err_r, limits, started, channel)
        wall = time.monotonic() - started
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (usage.ru_utime - usage_before.ru_utime) + (usage.ru_stime - usage_before.ru_stime)
        oom_after, pids_after = cgroup.counters()
        code = os.waitstatus_to_exitcode(io_result.status)
        exit_code, sig = (code, None) if code >= 0 else (None, -code)
        limit = io_result.limit or _limit_from(sig, cpu, limits, oom_after > oom_before)
        if limit is None and pids_after > pids_before and exit_code != 0:
            limit = "processes"
        return StepResult(
            argv=step.argv,
            exit_code=exit_code,
            signal=sig,
            stdout=io_result.stdout,
            stderr=io_result.stderr,
            cpu_s=round(cpu, 6),
            wall_s=round(wall, 6),
            peak_memory_bytes=cgroup.peak() or usage.ru_maxrss * 1024,
            limit=limit,
        )

    def _pump_beside_harness(
        self, pid: int, step: Step, stdin_w: int, out_r: int, err_r: int, limits: Limits, started: float,
        channel: tuple[int, int, int, int],
    ) -> _IOResult:  # fmt: skip
        """Supervise the step in a thread while the harness runs in this one."""
        box: list[_IOResult] = []

        def supervise() -> None:
            box.append(_pump(pid, step.stdin, stdin_w, out_r, err_r, limits, started))

        pump = threading.Thread(target=supervise)
        pump.start()
        from_candidate, to_candidate = channel[0], channel[3]
        try:
            if self.job.harness is None or self.harness_output is not None or self.harness_error is not None:
                raise SetupError("a job has one harness, talking to its last step")
            _, payload = read_frame(self.worker.ctl)  # only now: the submission is already forked
            self.harness_output = _call_harness(self.job.harness.entry, from_candidate, to_candidate, payload)
        except SetupError:
            raise
        except BaseException:
            self.harness_error = traceback.format_exc()
        finally:
            os.close(from_candidate)
            os.close(to_candidate)
        pump.join()
        return box[0]


def _call_harness(entry: str, read_fd: int, write_fd: int, payload: bytes) -> bytes:
    module_name, _, function_name = entry.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    return bytes(function(Channel(read_fd, write_fd), payload))


def _limit_from(sig: int | None, cpu: float, limits: Limits, oom: bool) -> Any:
    if oom:
        return "memory"
    if sig == signal.SIGXCPU or cpu > limits.cpu_s:
        return "cpu"
    if sig == signal.SIGXFSZ:
        return "file_size"
    return None


def _kill_namespace() -> None:
    """As pid 1: kill every other process of the namespace, then reap them all."""
    _kill_others()
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


@dataclass
class _IOResult:
    status: int
    stdout: bytes
    stderr: bytes
    limit: Any


def _pump(pid: int, stdin: bytes, stdin_w: int, out_r: int, err_r: int, limits: Limits, started: float) -> _IOResult:
    """Feed stdin, collect capped output, enforce the wall clock, and reap the step."""
    deadline = started + limits.wall_s
    buffers = {out_r: bytearray(), err_r: bytearray()}
    selector = selectors.DefaultSelector()
    for fd in (out_r, err_r):
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(stdin_w, False)
        selector.register(stdin_w, selectors.EVENT_WRITE)
    else:
        os.close(stdin_w)
    pidfd = os.pidfd_open(pid)
    selector.register(pidfd, selectors.EVENT_READ)
    status: int | None = None
    limit = None
    open_outputs = 2
    while open_outputs or status is None:
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            limit = limit or "wall"
            break
        for key, _ in selector.select(timeout):
            fd = key.fd
            if fd == pidfd:
                selector.unregister(pidfd)
                _, status = os.waitpid(pid, 0)
                # Daemons it left behind die now; their pipe ends close with them.
                _kill_others()
            elif fd == stdin_w:
                try:
                    pending = pending[os.write(stdin_w, pending[: 1 << 16]) :]
                except BrokenPipeError:
                    pending = pending[:0]
                if not pending:
                    selector.unregister(stdin_w)
                    os.close(stdin_w)
            else:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    selector.unregister(fd)
                    open_outputs -= 1
                    continue
                buffer = buffers[fd]
                room = limits.output_bytes - len(buffer)
                buffer += chunk[:room]
                if len(chunk) > room:
                    limit = "output"
                    break
        if limit:
            break
    selector.close()
    if status is None:
        _kill_others()
        _, status = os.waitpid(pid, 0)
    _kill_namespace()
    os.close(pidfd)
    for fd in (out_r, err_r):
        os.close(fd)
    if pending:
        os.close(stdin_w)
    return _IOResult(status, bytes(buffers[out_r]), bytes(buffers[err_r]), limit)


def _kill_others() -> None:
    with contextlib.suppress(ProcessLookupError):  # nothing left
        os.kill(-1, signal.SIGKILL)


class Candidate:
    """The submission's process: confined, then exec'd (or run in this warm interpreter).

    It never runs the harness and never holds its payload: it is forked before the payload
    is read.
    """

    def __init__(
        self,
        jp: JobProcess,
        step: Step,
        limits: Limits,
        stdio: tuple[int, int, int],
        channel: tuple[int, int] | None,
        setup_w: int,
    ) -> None:
        self.jp = jp
        self.step = step
        self.limits = limits
        self.stdio = stdio
        self.channel = channel
        self.setup_w = setup_w

    def run(self) -> NoReturn:
        env = dict(CANDIDATE_ENV, **dict(self.step.env))
        try:
            self._confine()
        except BaseException:
            os.write(self.setup_w, traceback.format_exc().encode())
            os._exit(127)
        argv = self.step.argv
        if argv[0] == "python":
            os.close(self.setup_w)
            _run_python(argv, env)
        try:
            os.execvpe(argv[0], argv, env)
        except OSError as e:
            os.write(self.setup_w, f"cannot execute {argv[0]!r}: {e}".encode())
        os._exit(127)

    def _confine(self) -> None:
        os.setsid()
        for target, fd in enumerate(self.stdio):
            os.dup2(fd, target)
        if self.channel is not None:
            os.dup2(self.channel[0], 3)
            os.dup2(self.channel[1], 4)
        self.setup_w = _move_high(self.setup_w)
        keep = {0, 1, 2, self.setup_w} | ({3, 4} if self.channel else set())
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            if fd not in keep:
                with contextlib.suppress(OSError):
                    os.close(fd)
        _set_oom_score_adj(1000)
        limits = self.limits
        cpu = max(1, int(limits.cpu_s + 0.999))
        for which, soft, hard in (
            (resource.RLIMIT_CPU, cpu, cpu + 1),
            (resource.RLIMIT_FSIZE, limits.file_size_bytes, limits.file_size_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
            (resource.RLIMIT_STACK, limits.stack_bytes, limits.stack_bytes),
            (resource.RLIMIT_CORE, 0, 0),
            (resource.RLIMIT_NPROC, limits.processes, limits.processes),
        ):
            resource.setrlimit(which, (soft, hard))
        os.chdir(WORK)
        uid = self.jp.uid
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        self.jp.worker.seccomp.install()


def _set_oom_score_adj(value: int) -> None:
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(value))
    except PermissionError:
        pass  # lowering needs CAP_SYS_RESOURCE, which some hosts withhold even from root


def _move_high(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 100)
    os.close(fd)
    return high


def _run_python(argv: tuple[str, ...], env: dict[str, str]) -> NoReturn:
    """Run ``python file.py`` or ``python -m preloaded_module`` in this interpreter."""
    os.environ.clear()
    os.environ.update(env)
    # Unlike a stock interpreter, let SIGXFSZ kill: a file-size limit is reported as such.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_DFL)
    sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(
        io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True
    )
    code = 0
    try:
        if argv[1] == "-m":
            sys.argv = [argv[2], *argv[3:]]
            sys.modules[argv[2]].main()
        else:
            sys.argv = list(argv[1:])
            _run_script(os.path.join(WORK, argv[1]))
    except SystemExit as e:
        code = _exit_code(e.code)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        code = code or 120
    os._exit(code)


def _run_script(path: str) -> None:
    """What ``python path`` does, minus the interpreter start (runpy costs milliseconds)."""
    with open(path, "rb") as handle:
        source = handle.read()
    code = compile(source, path, "exec", dont_inherit=True)
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = module
    sys.path[0] = os.path.dirname(path)
    exec(code, module.__dict__)


def _exit_code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def main() -> None:
    config = _CONFIG
    ctl, res = config["ctl_fd"], config["res_fd"]
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        _set_oom_score_adj(-1000)  # the OOM killer picks the submission, never us
        seccomp = linux.SeccompFilter(linux.seccomp_program(allow_network=False))
        pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY)  # before /proc leaves the view
        build_view(config)
        for module in config["preload"]:
            importlib.import_module(module)
        gc.collect()
        gc.freeze()  # forked children would otherwise dirty every page on their first collection
        cgroup = Cgroup(config["cgroup"]["version"])
        cgroup.join()
        worker = Worker(config, ctl, res, cgroup, seccomp, pid_namespace)
        write_frame(res, ("ready", {"pid": os.getpid()}))
    except BaseException:
        write_frame(res, ("crash", traceback.format_exc()))
        sys.exit(1)
    worker.serve()


if __name__ == "__main__":
    main()
