"""The sandboxed worker behind the local backend (stdlib only).

`LocalExecutor` starts one of these per core as ``python -s -S -B -P _worker.py CONFIG``.
It isolates itself once (mount, net, ipc and uts namespaces; a root file system built from
an empty tmpfs with read-only binds of the toolchain), imports what jobs will need, and then
splits in two:

    supervisor (reads jobs, holds tests, runs the harness, pumps output, kills on timeout)
      └── fork server (pid 1 of the worker's own pid namespace; forked before any job
          arrived, so its memory never holds one; reaps and kills what steps leave behind)
             └── step process, one per step: unprivileged uid, no_new_privs, seccomp,
                  rlimits, cgroup; a fresh tmpfs work dir and /tmp for each job

A step costs one fork of a warm, clean interpreter, made ahead of time: the fork server keeps
a pre-confined spare waiting for the next step (the fork server and the step processes are in
``_forkserver.py``). The supervisor is never forked after start, so nothing it reads
(tests, expected values, earlier submissions, their output) can reach a submission's memory;
the fork server only ever sees a step's argv, limits and descriptors, passed over a unix
socket.
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
    # (a Python before 3.11 has no -P: its script's folder would shadow top-level modules)
    sys.path[:] = [path for path in sys.path if path != os.path.dirname(os.path.abspath(__file__))]
    _install_stub_packages(_CONFIG["packages"])

import contextlib  # noqa: E402
import fnmatch  # noqa: E402
import functools  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import math  # noqa: E402
import select  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import stat  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any  # noqa: E402

from codegym.executor import _linux as linux  # noqa: E402
from codegym.executor._cgroup import Cgroup  # noqa: E402
from codegym.executor._forkserver import (  # noqa: E402
    CLEAN,
    CONFINED,
    EXIT,
    EXITED,
    FORKCORE_BUILT,
    LEARN,
    RELEASE,
    SPARE,
    SPARE_POLICY,
    STARTED,
    WARM,
    WORK,
    ForkServer,
    Paths,
    encode_request,
    set_oom_score_adj,
    spare_socket,
    warm_ups,
)
from codegym.executor._isolate import (  # noqa: E402
    HOST_PROC,
    RETIRED,
    become_reaper,
    build_view,
    container_paths,
    empty,
    enter_user_namespace,
    follow_out_of_tmp,
    in_initial_user_namespace,
    mask,
)
from codegym.executor._quota import QUOTA_POLL_S, DiskQuota  # noqa: E402
from codegym.executor._wire import read_frame, write_frame  # noqa: E402
from codegym.executor._workspace import CopyStore, OverlayStore, Store, WorkspaceRefused  # noqa: E402
from codegym.executor.base import Harness, Job, LimitName, Limits, RunResult, Step, StepResult  # noqa: E402
from codegym.executor.channel import READ_SIZE, Channel  # noqa: E402

MLE_RSS_FRACTION = 0.75  # without a cgroup: a failed step that held this much of its memory is MLE
# Past jobs' scratch file systems, moved out of the view to be unmounted together (root only):
# each unmount waits out an RCU grace period, which interrupts every CPU. A worker holds those
# of at most RETIRE_JOBS jobs, each holding at most RETIRE_BYTES and RETIRE_FILES (a larger
# one is unmounted at once), and unmounts them all once it has been idle for UNMOUNT_AFTER_S.
RETIRE_JOBS = 8
RETIRE_BYTES = 1 << 20
RETIRE_FILES = 256
UNMOUNT_AFTER_S = 0.01
# Which end of each of a step's pipes is ours, the write end (True) or the read end: stdin,
# stdout, stderr and its setup pipe; the channel's to_harness and to_submission.
STEP_PIPES = (True, False, False, False)
CHANNEL_PIPES = (False, True)


# --- the supervisor --------------------------------------------------------------------------


class SetupError(RuntimeError):
    """The sandbox could not be set up for a step: an infrastructure fault."""


@dataclass
class _Exit:
    status: int
    cpu_s: float
    max_rss_kb: int


class Supervisor:
    """Reads jobs from the harness, runs their steps through the fork server, judges nothing:
    it reports what happened, with the harness's output when the job has one."""

    def __init__(
        self,
        config: dict[str, Any],
        cgroup: Cgroup,
        server: socket.socket,
        paths: Paths | None = None,
    ) -> None:
        self.config = config
        # The job's folders: file systems mounted for each job in the view; in the
        # `container` tier, folders of the worker's own, emptied between jobs.
        self.paths = paths
        self.work, self.tmp = (paths.work, paths.tmp) if paths else (WORK, "/tmp")
        self.cgroup = cgroup
        self.server = server
        self.uid: int | None = config["uid"]
        self.unsettled = False  # a step has exited, but the fork server has not yet said CLEAN
        self.unreleased = False  # ...and has not been told it may kill what is left of it
        self.mounted: int | None = None  # the size of the scratch file systems mounted now
        self.fresh = False  # ...mounted ahead of a job, and still empty
        self.retired = 0  # past scratch file systems under RETIRED, not yet unmounted
        # (Only where submissions run as another uid: one that ran as ours could read them.)
        self.may_retire = self.uid is not None
        self.spare: tuple[socket.socket, int] | None = None  # its socket and pidfd
        self.warmed = False  # ...and whether it has been told to warm up
        self.warm_after_s: float | None = config["warm_after_s"]  # (None: never)
        # The next step's pipes, made while idle: stdin, stdout, stderr and setup; and the
        # channel's two, kept until a step with a channel takes them.
        self.pipes: list[tuple[int, int]] | None = None
        self.channel_pipes: list[tuple[int, int]] | None = None
        self.unclosed: list[int] = []  # descriptors of the job's steps, closed after its reply
        self.workspace_disk = 0  # the quota of the workspace a command runs in (0: none)
        self._take_spare()  # the fork server's first (which has mounted /proc by then)
        # Without a cgroup, memory is limited per process by RLIMIT_DATA, above what the warm
        # interpreter a step is forked from already holds; and the fork server shares the
        # steps' uid where it nests them in a user namespace of its own.
        self.memory_slack = config["data_size"] if cgroup.version == "none" else None
        self.sharing_uid = 2 if config["user_map"] == "single" and config["isolation"] == "userns" else 1
        self.store: Store = (
            CopyStore(self.uid, f"{config['root']}/ws")
            if paths
            else OverlayStore(self.uid, user_namespace=config["in_user_namespace"])
        )

    def serve(self, ctl: int, res: int) -> None:
        while True:
            try:
                self._prepare_while_idle(ctl)
                kind, nonce, *body = read_frame(ctl)
            except EOFError:
                return
            try:
                if kind == "job":
                    self._perform(Job.from_wire(body[0]), functools.partial(_send_result, res, nonce))
                else:
                    self._workspace_request(kind, nonce, body, res)
            except BaseException:
                write_frame(res, ("crash", traceback.format_exc()))
                raise

    def _workspace_request(self, kind: str, nonce: bytes, body: list[Any], res: int) -> None:
        """Open, run a command in, reset, snapshot, restore, fork or close a workspace, or
        release or read a snapshot (see ``_workspace.py``)."""
        try:
            if kind == "open":  # (the reply says where its commands will find the tree)
                self.store.open(*body)
                write_frame(res, ("done", nonce, self.work))
                return
            elif kind == "run":
                self.store.check(body[0])
                self._perform(Job.from_wire(body[1]), functools.partial(_send_result, res, nonce), workspace=body[0])
                return
            elif kind == "changes":  # (body[0]: the workspace asking, if any)
                write_frame(res, ("done", nonce, *self.store.changes(body[1])))
                return
            elif kind == "release":
                self.store.release(body[1])
            elif kind in ("reset", "close", "snapshot", "restore", "fork"):
                getattr(self.store, kind)(*body)
            else:
                raise WorkspaceRefused(f"unknown request {kind!r}")
        except WorkspaceRefused as e:
            write_frame(res, ("refused", nonce, str(e)))
            return
        write_frame(res, ("done", nonce))

    def rehearse(self, modules: list[str]) -> list[str]:
        """Run the job of each preloaded module's ``rehearsal()`` (see `Job.preload`), once,
        before the first real one, and let the fork server learn from it which pages of its
        memory a step writes: every later spare copies those pages ahead of its request. Only
        rehearsals teach it, so no submission shapes what the next one finds. Returns the
        modules whose rehearsal ran cleanly."""
        rehearsed = []
        for name in modules:
            rehearsal = getattr(sys.modules[name], "rehearsal", None)
            if not callable(rehearsal):
                continue
            job = rehearsal()
            if not isinstance(job, Job):
                raise SetupError(f"{name}.rehearsal() returned a {type(job).__name__}, not a Job")
            results: list[RunResult] = []
            self._perform(job, lambda result, _, into=results: into.append(result), learn=True)
            if results[0].ok and results[0].harness_error is None:
                rehearsed.append(name)
        return rehearsed

    def _perform(
        self, job: Job, reply: Callable[[RunResult, int], object], *, learn: bool = False, workspace: str | None = None
    ) -> None:
        """Run ``job`` in fresh scratch dirs (the work dir being ``workspace``, if given) and
        ``reply`` with its result (and the workspace's bytes); then close what its steps left
        open and take its dirs out of the view (the next job cannot start before this), let
        the fork server kill what is left of it (``learn`` from it first: a rehearsal), and
        mount the next job's dirs while idle."""
        disk = self._scratch_for(job)
        try:
            if workspace is None:
                reply(self.run(job), 0)
            else:
                self.store.enter(workspace, self.work)
                self.workspace_disk = self.store.sessions[workspace].disk
                try:
                    result = self.run(job)
                finally:
                    self.workspace_disk = 0
                    used = self.store.leave(workspace, self.work)
                reply(result, used)
        finally:
            self._close_unclosed()
            self._drop_scratch()
        self._release(learn=learn)
        self._fresh_scratch(disk)

    def run(self, job: Job) -> RunResult:
        """Run ``job`` in the scratch dirs `_scratch_for` made for it."""
        results: list[StepResult] = []
        harness: list[bytes | str | None] = [None, None]  # output, error
        failed = False
        for step in job.steps:
            if failed:
                results.append(StepResult(argv=step.argv, skipped=True))
                continue
            result = self._run_step(job, step, harness)
            results.append(result)
            failed = step.stop_on_failure and not result.ok
        if job.collect:
            self._settle()  # no process of the job can still write what is read
        files = _collect(job, self.work)
        output, error = harness
        if job.harness is not None and output is None and error is None:
            error = "the harness never ran: the step it talks to was skipped"
        return RunResult(
            steps=tuple(results),
            harness_output=output if isinstance(output, bytes) else None,
            harness_error=error if isinstance(error, str) else None,
            backend="local",
            cgroup=self.cgroup.version,
            isolation=self.config["isolation"],
            files=files,
        )

    def _scratch_for(self, job: Job) -> int:
        """A fresh work dir and /tmp for this job, with its files; every step of it sees the
        same ones. Returns their size."""
        disk = max(job.limits_of(step).disk_bytes for step in job.steps)
        if not (self.fresh and self.mounted == disk):  # none mounted ahead, or of another size
            self._fresh_scratch(disk)
        self.fresh = False
        made = {self.work}  # the directories, which the submission's uid gets to own (its files too)
        protected = set(job.protected)
        for relative, content in job.files.items():
            path = os.path.join(self.work, relative)
            directory = os.path.dirname(path)
            if directory not in made:
                os.makedirs(directory, exist_ok=True)
                while directory not in made and directory.startswith(self.work):  # (Job keeps paths in)
                    made.add(directory)
                    directory = os.path.dirname(directory)
            mode = 0o755 if relative in job.executables else 0o644
            if relative in protected:
                mode &= 0o555
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
            try:
                if self.uid is not None and relative not in protected:
                    os.fchown(fd, self.uid, self.uid)
                view = memoryview(content)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
        guarded = _folders_on_the_way(self.work, protected)
        if self.uid is not None:  # last: in a container, root may lack CAP_DAC_OVERRIDE
            for directory in made:
                if directory in guarded:  # the worker's, sticky: no step renames or removes what is in it
                    os.chown(directory, os.geteuid(), self.uid)  # (and the steps' group's, which writes there)
                    os.chmod(directory, 0o1770)
                else:
                    if directory == self.work and self.paths is not None:  # (the container tier's, used again)
                        os.chmod(directory, 0o700)  # (first: once it is the step's, only FOWNER could)
                    os.chown(directory, self.uid, self.uid)
        elif protected and self.paths is None:  # (steps run as this uid: mounts stand in for owners)
            for directory in sorted(guarded - {self.work}):  # a mount point cannot be renamed away
                linux.bind(directory, directory, readonly=False, recursive=False)
            for relative in sorted(protected):
                path = os.path.join(self.work, relative)
                linux.bind(path, path, readonly=True, recursive=False)
        return disk

    def _fresh_scratch(self, disk: int) -> None:
        """Empty file systems of ``disk`` bytes for the work dir and /tmp. What is left of the
        last step may still be dying, but it was stopped before its exit was reported (and
        the old ones are out of the view), so it never reaches the new ones."""
        self._drop_scratch()
        self._release()
        if self.paths is None:
            linux.tmpfs(WORK, disk, mode=0o755)
            linux.tmpfs("/tmp", disk, mode=0o1777)
        self.mounted, self.fresh = disk, True

    def _drop_scratch(self) -> None:
        """Take the work dir and /tmp out of the view: unmount them, or, when they hold
        little, retire them under RETIRED, to be unmounted later with others."""
        if self.mounted is not None and self.paths is not None:
            for folder in (self.work, self.tmp):
                empty(folder)  # (what wrote there is stopped, and dies next)
        elif self.mounted is not None:
            for path in (WORK, "/tmp"):
                if self.may_retire and _holds_little(path):
                    self._retire(path)
                else:
                    linux.umount(path)
            if self.retired >= 2 * RETIRE_JOBS:
                self._unmount_retired()
        self.mounted, self.fresh = None, False

    def _retire(self, path: str) -> None:
        """Move the file system at ``path`` under RETIRED."""
        if not self.retired:  # a fresh tmpfs under RETIRED, to unmount with all it holds
            linux.tmpfs(RETIRED, 4096, mode=0o700)
        grave = f"{RETIRED}/{self.retired}"
        os.mkdir(grave, 0o700)
        linux.move(path, grave)
        self.retired += 1

    def _unmount_retired(self) -> None:
        """Unmount every retired scratch file system, in one grace period."""
        if self.retired:
            linux.umount(RETIRED)
            self.retired = 0

    def _run_step(self, job: Job, step: Step, harness: list[bytes | str | None]) -> StepResult:
        self._settle()
        if self.spare is None:  # (the fork server offers it once it is confined)
            self._take_spare()
        limits = job.limits_of(step)
        oom_before, pids_before = self.cgroup.prepare(limits)
        pipes, self.pipes = self.pipes or _make_pipes(STEP_PIPES), None
        (stdin_r, stdin_w), (out_r, out_w), (err_r, err_w), (setup_r, setup_w) = pipes
        # to_harness (submission writes), to_submission (harness writes)
        to_harness_r = to_harness_w = to_submission_r = to_submission_w = -1
        if step.channel:
            channel_pipes, self.channel_pipes = self.channel_pipes or _make_pipes(CHANNEL_PIPES), None
            (to_harness_r, to_harness_w), (to_submission_r, to_submission_w) = channel_pipes
        child_fds = [stdin_r, out_w, err_w, setup_w] + ([to_submission_r, to_harness_w] if step.channel else [])
        started = time.monotonic()
        slack = None if self.memory_slack is None else self.memory_slack + step.memory_slack_bytes
        request = encode_request(step.argv, step.env, limits, memory_slack=slack, sharing_uid=self.sharing_uid)
        pidfd = self._start(request, step.sockets, child_fds)
        # Of the step's ends, only the channel's must close now: the harness has to see the
        # step's end of it close, and its writes fail once the step is gone. The others wait
        # for the reply, off the step's path. Ours of the output pipes' write ends must stay
        # open until the exit is reported anyway (its leftovers stopped by then): the step's
        # exit then closes no pipe this process waits on, and wakes it once, not three times.
        if step.channel:
            os.close(to_submission_r)
            os.close(to_harness_w)
        self.unclosed += (stdin_r, out_w, err_w, setup_w, pidfd, setup_r)
        # The harness may start at once: the step runs no submitted code before it is wholly
        # confined, and says so on its setup pipe, which is checked once it has exited.
        disk = max(limits.disk_bytes, self.workspace_disk)  # (a workspace's command: the workspace's quota)
        quota = DiskQuota((self.work, self.tmp), disk) if self.paths is not None else None
        pump = _Pump(self, pidfd, step.stdin, stdin_w, out_r, err_r, limits, started, quota)
        if step.channel:
            assert job.harness is not None
            channel = _SupervisedChannel(to_harness_r, to_submission_w, pump)
            try:
                harness[0] = _call_harness(job.harness, channel)
            except BaseException:
                harness[1] = traceback.format_exc()
            finally:
                channel.close()
        pump.finish()
        setup = _read_available(setup_r)
        if setup != CONFINED:  # it failed to confine or to exec, or died before it said either
            failure = setup.removeprefix(CONFINED).decode(errors="replace")
            raise SetupError(failure or "the step's process died before it was confined")
        exit_ = pump.exit
        assert exit_ is not None
        cpu = exit_.cpu_s
        oom_after, pids_after = self.cgroup.counters()
        code = os.waitstatus_to_exitcode(exit_.status)
        exit_code, sig = (code, None) if code >= 0 else (None, -code)
        limit = pump.limit or _limit_from(sig, cpu, limits, oom_after > oom_before)
        if (
            limit is None
            and self.memory_slack is not None
            and _spent_its_memory(exit_code, sig, exit_.max_rss_kb, limits)
        ):
            limit = "memory"
        if limit is None and pids_after > pids_before and exit_code != 0:
            limit = "processes"
        return StepResult(
            argv=step.argv,
            exit_code=exit_code,
            signal=sig,
            stdout=pump.stdout,
            stderr=pump.stderr,
            cpu_s=round(cpu, 6),
            wall_s=round(pump.wall, 6),
            peak_memory_bytes=self.cgroup.peak() or exit_.max_rss_kb * 1024,
            limit=limit,
        )

    def _start(self, request: bytes, sockets: str, fds: list[int]) -> int:
        """Hand a step's request to the spare the fork server offered (or, for another
        sockets policy, to the fork server, killing the spare); the step's pidfd."""
        assert self.spare is not None, "the fork server offers a spare before each step"
        spare, pidfd = self.spare
        self.spare = None
        try:
            if sockets == SPARE_POLICY:
                try:
                    socket.send_fds(spare, [request], fds)
                except OSError as e:
                    raise SetupError(f"the spare died before its step: {e}") from e
                return pidfd
        finally:
            self.unclosed.append(spare.detach())
        socket.send_fds(self.server, [sockets.encode() + b"\0" + request], fds)  # first, so the fork server sees it...
        _kill(pidfd)  # ...once the spare's death wakes it
        os.close(pidfd)
        return self._receive(STARTED, fds=1)[1][0]

    def _receive(self, kind: bytes, fds: int = 0) -> tuple[bytes, list[int]]:
        """The fork server's next message, which must be of ``kind``: its body and fds."""
        data, received, _, _ = socket.recv_fds(self.server, 4096, max(fds, 1))
        if not data:
            raise SetupError("the fork server died")
        if data[:1] != kind or len(received) != fds:
            raise SetupError(f"the fork server said {data[:1]!r} with {len(received)} fds, not {kind!r}")
        return data[1:], received

    def _receive_exit(self) -> _Exit:
        body, _ = self._receive(EXITED)
        self.unsettled = self.unreleased = True
        return _Exit(*EXIT.unpack(body))

    def _release(self, *, learn: bool = False) -> None:
        """Let the fork server kill and reap what is left of the last step (stopped since its
        exit was reported), and fork the next spare meanwhile; ``learn`` first from it, if it
        was a rehearsal. Its teardown competes for the CPU, so it waits for the reply. The
        cgroup's limits are lifted until the next step, so that neither the dying processes
        nor the next spare can hit them."""
        if self.unreleased:
            self.cgroup.lift()
            self.server.send(LEARN if learn else RELEASE)
            self.unreleased = False

    def _close_unclosed(self) -> None:
        """Close the descriptors the job's steps left for after its reply."""
        for fd in self.unclosed:
            os.close(fd)
        self.unclosed.clear()

    def _settle(self) -> None:
        """Wait until every process of the last step is reaped: before the next step (its
        cgroup limits count what is alive), or reading files a step wrote."""
        if self.unsettled:
            self._release()
            self._receive(CLEAN)
            self.cgroup.counters()  # the next step's baseline
            self.unsettled = False

    def _prepare_while_idle(self, ctl: int) -> None:
        """Until the next job arrives on ``ctl``, take what the fork server sends for its
        first step: "clean" once the last step is reaped, then the spare; and once this
        worker has been idle for long enough, do its chores (`_idle_chore`). Whatever is not
        done when the job comes is waited for by its step, or left for later (the chores).
        And the next step's pipes, first: it takes a dozen system calls to make them."""
        if self.pipes is None:
            self.pipes = _make_pipes(STEP_PIPES)
        if self.channel_pipes is None:
            self.channel_pipes = _make_pipes(CHANNEL_PIPES)
        idle_since = time.monotonic()
        while True:
            chore = self._idle_chore(idle_since)
            busy = self.unsettled or self.spare is None
            if not (busy or chore):
                return
            left = None
            if not busy:  # only the chores are left to do
                assert chore is not None
                due, do = chore
                left = due - time.monotonic()
                if left <= 0:
                    do()
                    continue
            poller = select.poll()  # (not select(): the host's descriptors, and so these, may pass 1024)
            poller.register(ctl, select.POLLIN)
            poller.register(self.server, select.POLLIN)
            if any(fd == ctl for fd, _ in poller.poll(None if left is None else max(0, math.ceil(left * 1000)))):
                return
            if self.unsettled:
                self._settle()
            elif self.spare is None:
                self._take_spare()

    def _idle_chore(self, idle_since: float) -> tuple[float, Callable[[], None]] | None:
        """The next chore of a worker idle since ``idle_since``, and when it is due: unmount
        the retired scratch file systems, and tell the spare to warm up (`_warm_spare`).

        Both wait for a pause in the jobs. An unmount interrupts every CPU for a grace
        period; a warm-up takes the copy-on-write faults and cold caches of the preloaded
        modules' first run off the step's path, but is work. Back to back, either would
        compete for the CPU with the steps running meanwhile (and a warm-up would delay the
        very request it was meant to speed up)."""
        chores: list[tuple[float, Callable[[], None]]] = []
        if self.retired:
            chores.append((idle_since + UNMOUNT_AFTER_S, self._unmount_retired))
        if self.store.retired:
            chores.append((idle_since + UNMOUNT_AFTER_S, self.store.free_retired))
        expiry = self.store.next_expiry()
        if expiry is not None:
            chores.append((expiry, self.store.expire))
        if self.warm_after_s is not None and not self.warmed:
            chores.append((idle_since + self.warm_after_s, self._warm_spare))
        return min(chores, key=lambda chore: chore[0], default=None)

    def _take_spare(self) -> None:
        """The spare the fork server offers once it is confined: at start-up, and after each
        step's "clean"."""
        sock_fd, pidfd = self._receive(SPARE, fds=2)[1]
        self.spare = spare_socket(sock_fd), pidfd
        self.warmed = False

    def _warm_spare(self) -> None:
        """Tell the spare to run the preloaded modules' ``warm_up()`` before it takes its
        request (a spare that died meanwhile is found out by its step)."""
        assert self.spare is not None
        with contextlib.suppress(OSError):
            self.spare[0].send(WARM)
        self.warmed = True


def _holds_little(path: str) -> bool:
    """Whether the file system at ``path`` holds at most RETIRE_BYTES and RETIRE_FILES."""
    usage = os.statvfs(path)
    used = (usage.f_blocks - usage.f_bfree) * usage.f_frsize
    return used <= RETIRE_BYTES and usage.f_files - usage.f_ffree <= RETIRE_FILES


def _send_result(fd: int, nonce: bytes, result: RunResult, used: int) -> None:
    write_frame(fd, ("result", nonce, result.to_wire(), used))


def _make_pipes(ours_write: tuple[bool, ...]) -> list[tuple[int, int]]:
    """A step's pipes, close-on-exec here: the step's own ends lose that as they are moved
    onto its descriptors 0-4. Ours (the write end where ``ours_write`` says so, else the read
    end) do not block: this process waits on them through poll only."""
    pipes = [os.pipe2(os.O_CLOEXEC) for _ in ours_write]
    for (read, write), write_is_ours in zip(pipes, ours_write, strict=True):
        os.set_blocking(write if write_is_ours else read, False)
    return pipes


def _folders_on_the_way(work: str, protected: set[str]) -> set[str]:
    """The folders from ``work`` down to each of the ``protected`` files."""
    found = {work} if protected else set()
    for relative in protected:
        directory = os.path.dirname(os.path.join(work, relative))
        while directory not in found and directory.startswith(work):
            found.add(directory)
            directory = os.path.dirname(directory)
    return found


def _collect(job: Job, work: str) -> dict[str, bytes]:
    """The job's ``collect`` files: regular files only, never through a link, size-capped."""
    if not job.collect:
        return {}
    cap = max(job.limits_of(step).file_size_bytes for step in job.steps)
    files = {}
    names = os.listdir(work)
    wanted = [
        name for pattern in job.collect for name in (fnmatch.filter(names, pattern) if "*" in pattern else [pattern])
    ]
    for relative in wanted:
        try:
            fd = _open_beneath(work, relative)
        except OSError:
            continue
        try:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode) and info.st_size <= cap:
                files[relative] = os.read(fd, cap + 1)[:cap]
        finally:
            os.close(fd)
    return files


def _open_beneath(folder: str, relative: str) -> int:
    """Open ``folder/relative`` for reading, following no link on the way (a step may have
    made any part of it a link to anywhere)."""
    *parents, name = relative.split("/")
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for parent in parents:
            inner = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
    finally:
        os.close(fd)


def _call_harness(harness: Harness, channel: Channel) -> bytes:
    module_name, _, function_name = harness.entry.partition(":")
    function = getattr(importlib.import_module(module_name), function_name)
    return bytes(function(channel, harness.payload))


class _SupervisedChannel(Channel):
    """The harness's end of the channel. While the harness waits on it, the step's output
    keeps being drained and its wall clock enforced, all on this one thread."""

    def __init__(self, read_fd: int, write_fd: int, pump: _Pump) -> None:
        super().__init__(read_fd, write_fd, blocking=False)
        self.pump = pump

    def _wait(self, fd: int, *, writable: bool, deadline: float | None) -> bool:
        return self.pump.poll(fd, select.POLLOUT if writable else select.POLLIN, deadline)


def _kill(pidfd: int) -> None:
    """SIGKILL the step's process; its init (the fork server) then kills the rest."""
    with contextlib.suppress(ProcessLookupError):
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)


class _Pump:
    """Feeds stdin, keeps at most ``output_bytes`` of each output, enforces the wall clock,
    and waits for the fork server to report the step's exit. Driven from one thread: by
    `finish`, or by the harness's channel waits through `poll`."""

    def __init__(self, supervisor: Supervisor, pidfd: int, stdin: bytes, stdin_w: int, out_r: int, err_r: int,
                 limits: Limits, started: float, quota: DiskQuota | None = None) -> None:  # fmt: skip
        self.supervisor = supervisor
        self.quota = quota
        self.quota_due = started + QUOTA_POLL_S
        self.pidfd = pidfd
        self.pending = memoryview(stdin)
        self.stdin_w = stdin_w
        self.outputs = {out_r: bytearray(), err_r: bytearray()}
        self.out_r, self.err_r = out_r, err_r
        self.limits = limits
        self.deadline = started + limits.wall_s
        self.started = started
        self.limit: LimitName | None = None
        self.exit: _Exit | None = None
        self.wall = 0.0
        # A poll object, not a selector: no system call to make or close, and no Python layer
        # on each wait (this runs on every step's critical path).
        self.poller = select.poll()
        self.watched: set[int] = set()
        for fd in (out_r, err_r):  # (ours of a step's pipes never block: see _make_pipes)
            self._watch(fd, select.POLLIN)
        if self.pending:
            self._watch(stdin_w, select.POLLOUT)
        else:
            os.close(stdin_w)
        self.server = supervisor.server.fileno()
        self._watch(self.server, select.POLLIN)

    @property
    def stdout(self) -> bytes:
        return bytes(self.outputs[self.out_r])

    @property
    def stderr(self) -> bytes:
        return bytes(self.outputs[self.err_r])

    def _watch(self, fd: int, events: int) -> None:
        self.poller.register(fd, events)
        self.watched.add(fd)

    def _unwatch(self, fd: int) -> None:
        if fd in self.watched:
            self.poller.unregister(fd)
            self.watched.discard(fd)

    def _wait(self, timeout_s: float | None) -> list[int]:
        """The watched descriptors that are ready (or hung up) within ``timeout_s``."""
        return [fd for fd, _ in self.poller.poll(None if timeout_s is None else timeout_s * 1000.0)]

    def poll(self, fd: int, events: int, deadline: float | None) -> bool:
        """Serve the step until ``fd`` is ready (True) or ``deadline`` passes (False)."""
        self._watch(fd, events)
        try:
            while True:
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return False
                waits = [d for d in (deadline, self._watchdog(now)) if d is not None]
                for ready in self._wait(max(0.0, min(waits) - now) if waits else None):
                    if ready == fd:
                        return True
                    self._handle(ready)
        finally:
            self._unwatch(fd)

    def finish(self) -> None:
        """Serve the step until its process has exited (or it was stopped), then take what
        it wrote before that. Processes it left behind are stopped as its exit is reported:
        what they write is not the step's output, and they cannot hold the step open."""
        while self.exit is None:
            now = time.monotonic()
            due = self._watchdog(now)
            for ready in self._wait(None if due is None else max(0.0, due - now)):
                self._handle(ready)
        for fd in (self.out_r, self.err_r):
            while fd in self.watched and self._drain(fd, until_empty=True):
                pass
        self.supervisor.unclosed += (self.out_r, self.err_r, *([self.stdin_w] if self.pending else []))

    def _watchdog(self, now: float) -> float | None:
        """Enforce the wall clock and the disk quota (if any); when either is next due (None
        once a limit fired)."""
        if self.limit is not None:
            return None
        if now >= self.deadline:
            self._stop("wall")
            return None
        if self.quota is None:
            return self.deadline
        if now >= self.quota_due:
            if self.quota.exceeded(now):
                self._stop("disk")
                return None
            self.quota_due = now + QUOTA_POLL_S
        return min(self.deadline, self.quota_due)

    def _handle(self, fd: int) -> None:
        if fd == self.server:
            self._unwatch(fd)
            self.exit = self.supervisor._receive_exit()
            self.wall = time.monotonic() - self.started
        elif fd == self.stdin_w:
            if fd in self.watched:
                self._feed()
        elif fd in self.watched and not self._drain(fd):
            self._unwatch(fd)

    def _stop(self, limit: LimitName) -> None:
        """A limit fired: kill the step; its init reaps the rest and reports the exit."""
        self.limit = limit
        _kill(self.pidfd)
        for fd in (self.out_r, self.err_r, *([self.stdin_w] if self.pending else [])):
            self._unwatch(fd)

    def _feed(self) -> None:
        try:
            self.pending = self.pending[os.write(self.stdin_w, self.pending[: 1 << 16]) :]
        except BrokenPipeError:
            self.pending = self.pending[:0]
        if not self.pending:
            self._unwatch(self.stdin_w)
            os.close(self.stdin_w)

    def _drain(self, fd: int, *, until_empty: bool = False) -> bool:
        """Read one chunk of ``fd``; False once it is closed (or, ``until_empty``, empty)."""
        try:
            chunk = os.read(fd, READ_SIZE)
        except BlockingIOError:
            return not until_empty
        if not chunk:
            return False
        buffer = self.outputs[fd]
        room = self.limits.output_bytes - len(buffer)
        buffer += chunk[:room]
        if len(chunk) > room:
            self._stop("output")
        return True


def _spent_its_memory(exit_code: int | None, sig: int | None, max_rss_kb: int, limits: Limits) -> bool:
    """Without a cgroup, whether a step ran out of memory: it failed (RLIMIT_DATA fails an
    allocation; runtimes then raise, abort or crash) after one of its processes had held
    MLE_RSS_FRACTION of its limit. A single allocation over the limit fails before it holds
    anything, and the step fails as its runtime reports that (Python: MemoryError, RE)."""
    failed = sig is not None or exit_code != 0
    return failed and max_rss_kb * 1024 >= MLE_RSS_FRACTION * limits.memory_bytes


def _data_size(status_fd: int) -> int:
    """The data segment (VmData) of the process whose /proc status ``status_fd`` reads,
    rounded up to 16 MiB."""
    text = os.pread(status_fd, 1 << 16, 0).decode()
    kib = next(int(line.split()[1]) for line in text.splitlines() if line.startswith("VmData:"))
    return -(-kib * 1024 // (16 << 20)) * (16 << 20)


def _limit_from(sig: int | None, cpu: float, limits: Limits, oom: bool) -> LimitName | None:
    if oom:
        return "memory"
    if sig == signal.SIGXCPU or cpu > limits.cpu_s:
        return "cpu"
    if sig == signal.SIGXFSZ:
        return "file_size"
    return None


def _read_available(fd: int) -> bytes:
    """What is in one of ours of a step's pipes now (it does not block): one read takes it
    all, as a pipe holds no more than that."""
    try:
        return os.read(fd, READ_SIZE)
    except BlockingIOError:
        return b""


def _deny_list(config: dict[str, Any]) -> bytes:
    """The fork server's seccomp filter, for its tier. Where namespaces are to be had, each
    step enters an IPC namespace of its own; in the `container` tier the IPC namespace is the
    container's (every worker's, and kept between jobs): System V IPC and POSIX message
    queues are refused there. Where no cgroup counts memory, what RLIMIT_DATA leaves out
    (shared mappings, memfds, System V segments and messages) is refused."""
    tier = config["isolation"]
    return linux.seccomp_program(
        new_ipc=tier != "container", refuse_ipc=tier == "container", refuse_shared_memory=config["refuse_shared_memory"]
    )


def main() -> None:
    config = _CONFIG
    ctl, res = config["ctl_fd"], config["res_fd"]
    if config.get("cpu") is not None:  # (pinned: every process of this worker inherits it)
        with contextlib.suppress(OSError):  # a CPU the cgroup's cpuset has since withdrawn
            os.sched_setaffinity(0, {config["cpu"]})
    try:
        # (returns in the worker; its steps' uid is killed after it where no pid namespace ends with it)
        become_reaper(config["uid"] if config["isolation"] == "container" else None, (ctl, res))
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        tier = config["isolation"]
        userns = tier == "userns"
        # Outside the initial user namespace (ours, or the one a rootless container runs in),
        # the fork server may mount its /proc only while a whole one is in view.
        config["in_user_namespace"] = userns or not in_initial_user_namespace()
        config["keep_host_proc"] = userns or (tier == "full" and config["in_user_namespace"])
        config["refuse_shared_memory"] = config["cgroup"]["version"] == "none"  # (see `_deny_list`)
        if userns:
            enter_user_namespace(config["user_map"])
        set_oom_score_adj(-1000)  # the OOM killer picks the submission, never us
        seccomp = linux.SeccompFilter(_deny_list(config))
        unix = tier != "container"  # (the container's own unix sockets are in reach there)
        sockets = {policy: linux.SeccompFilter(linux.socket_program(policy, unix=unix)) for policy in ("kill", "errno")}
        sockets["tool"] = linux.SeccompFilter(linux.socket_program("errno"))  # (a trusted tool's: see Step.sockets)
        status = os.open("/proc/self/status", os.O_RDONLY)  # (the supervisor is not in the next /proc)
        paths = container_paths(config) if tier == "container" else None
        own_pid_namespace = None if paths else os.open("/proc/self/ns/pid", os.O_RDONLY)  # before /proc leaves
        if paths is None:
            build_view(config)
            follow_out_of_tmp(config)
        sys.path += [path for path in config.get("python_path", ()) if path not in sys.path]
        for module in config["preload"]:
            importlib.import_module(module)
        for path in [] if paths else config["hide"]:  # codegym's own files (task data among them) leave the view
            mask(path)
        cgroup = Cgroup(config["cgroup"]["version"], config["cgroup"]["paths"] if paths else None)
        native = config.get("native_fork_server", True) and FORKCORE_BUILT
        gc.collect()
        gc.freeze()  # forked children would otherwise dirty every page on their first collection
        config["data_size"] = _data_size(status)  # what a step forked from here starts with
        os.close(status)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        if own_pid_namespace is not None:
            linux.unshare(linux.CLONE_NEWPID)
        if os.fork() == 0:  # pid 1 of the submissions' pid namespace (in `container`: their subreaper)
            ours.close()
            for fd in (ctl, res, *([] if own_pid_namespace is None else [own_pid_namespace])):
                os.close(fd)
            cgroup.join()  # the fork server and its submissions, not the supervisor
            server = ForkServer(theirs, seccomp, sockets, config["uid"], warm_ups(config["preload"]), native=native,
                                tasks_fd=cgroup.tasks_fd(), host_proc=HOST_PROC if config["keep_host_proc"] else None,
                                nest_user=userns and config["user_map"] == "single", paths=paths,
                                new_ipc=tier != "container")  # fmt: skip
            server.serve()
        theirs.close()
        if own_pid_namespace is not None:
            # Threads must share our pid namespace: undo the unshare for later children.
            linux.setns(own_pid_namespace, linux.CLONE_NEWPID)
            os.close(own_pid_namespace)
        linux.set_name("codegym-super")
        supervisor = Supervisor(config, cgroup, ours, paths)
        rehearsed = supervisor.rehearse(config["preload"])
        info = {"pid": os.getpid(), "fork_server": "native" if native else "python", "rehearsed": rehearsed}
        write_frame(res, ("ready", info))
    except BaseException:
        write_frame(res, ("crash", traceback.format_exc()))
        sys.exit(1)
    supervisor.serve(ctl, res)


if __name__ == "__main__":
    main()
