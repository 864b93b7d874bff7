"""The executor contract, for every backend (local, docker, ray): isolation, limits,
cleanup and fault handling.

Every test runs once per backend (see conftest.py). The docker backend runs the local
backend's worker inside each container and the ray backend runs local executors in its
actors, so the same properties hold exactly; where a check has to look different (which
process is "the worker" a fault test kills), the helpers below say what the equivalent is.

Every attack is bounded (small limits, a pid namespace, a cgroup) so the machine is never at
risk.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sysconfig
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import codegym.envs.python_function
import pytest

from codegym.error import SandboxError
from codegym.executor import Executor, Job, Limits, RunResult, Step

REPO = Path(__file__).resolve().parents[2]
DATA_FILE = Path(codegym.envs.python_function.__file__).parent / "data" / "codegym_py.jsonl"
SITE = sysconfig.get_paths()["purelib"]
FAST = Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=128 << 20, processes=8, output_bytes=64 << 10,
              file_size_bytes=1 << 20, disk_bytes=8 << 20)  # fmt: skip


# A step's own processes besides itself, as /proc names them: those of its uid but pid 1 (its
# keeper; in a pid namespace, the fork server is pid 1, of that uid in a plain user's
# `userns`; in the `container` tier, which has none, the host's processes are in /proc too,
# but none of them has a submission's uid). Where /proc is not the step's pid namespace's
# (`userns` in a container, which binds the container's), its numbers are not the step's:
# `inner` gives a process's pid as the step knows it, to signal it by.
MINE = (
    "import os\n"
    "ME = os.readlink('/proc/self')\n"
    "def owner(p):\n"
    "    try:\n        return os.stat(f'/proc/{p}').st_uid\n"
    "    except OSError:\n        return None  # (gone since it was listed)\n"
    "MINE = [p for p in os.listdir('/proc') if p.isdigit() and p not in ('1', ME) and owner(p) == os.getuid()]\n"
    "def comm(p):\n"
    "    try:\n        return open(f'/proc/{p}/comm').read().strip()\n"
    "    except OSError:\n        return ''  # (gone since it was listed: in the `container` tier, any host process)\n"
    "def inner(p):\n"
    "    return int(next(l for l in open(f'/proc/{p}/status') if l.startswith('NSpid:')).split()[-1])\n"
)


# The `container` tier leaves a step nothing of /proc but its own /proc/<pid> and a few files
# about the machine (no listing, nothing of its keeper's): what MINE finds there, the test
# finds from the host while the step waits. HOLD names the step HELD and waits (a second and
# a half at most) for the SIGUSR1 that `held` sends once it has looked.
HELD = "codegym-held"
HOLD = (
    "import ctypes, signal\n"
    "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})\n"
    f"ctypes.CDLL(None).prctl(15, b'{HELD}', 0, 0, 0)\n"  # PR_SET_NAME, once SIGUSR1 cannot be lost
    "if signal.sigtimedwait({signal.SIGUSR1}, 1.5) is None:\n    raise SystemExit('never let go')\n"
)
Seen = TypeVar("Seen")


def isolation(executor: Executor) -> str:
    """The sandbox tier ``executor``'s steps run in."""
    return executor.run(Job(steps=(Step(argv=("true",)),))).isolation


def held(executor: Executor, source: str, look: Callable[[int], Seen], **step: Any) -> tuple[RunResult, Seen]:
    """Run ``source``, which runs HOLD, as a step (with ``step``'s other `Step` fields), and
    ``look`` at its host pid while it waits; then let it go. Returns the job's result and
    what ``look`` returned."""
    job = Job(steps=(Step(argv=("python", "main.py"), **step),), files={"main.py": source.encode()}, limits=FAST)
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = executor.run(job)
        except BaseException as e:  # (raised below, in the test's thread)
            outcome["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    pid = None
    try:
        while pid is None and thread.is_alive():
            pid = next((int(p) for p in os.listdir("/proc") if p.isdigit() and _status(p).get("Name") == HELD), None)
            time.sleep(0.001)
        seen = look(pid) if pid is not None else None
    finally:
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGUSR1)
        thread.join()
    if "error" in outcome:
        raise outcome["error"]
    assert pid is not None, f"the step ended before it was seen waiting: {outcome['result']}"
    return outcome["result"], cast("Seen", seen)


def companions(pid: int) -> dict[int, str]:
    """Host pids and names of the other live processes of ``pid``'s uid in its pid namespace:
    MINE, as the host sees it."""
    uid, namespace = _status(str(pid))["Uid"].split()[0], os.readlink(f"/proc/{pid}/ns/pid")
    found = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        status = _status(name)
        if status.get("Uid", "").split()[:1] == [uid] and status["State"].split()[0] not in ("Z", "X"):
            with contextlib.suppress(OSError):  # (gone since it was listed)
                if os.readlink(f"/proc/{name}/ns/pid") == namespace and int(name) != pid:
                    found[int(name)] = status["Name"]
    return found


def _status(pid: str) -> dict[str, str]:
    """A process's /proc status fields (none once it is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            return {k: v.strip() for k, v in (line.split(":", 1) for line in handle if ":" in line)}
    except OSError:
        return {}


def python(executor: Executor, source: str, limits: Limits = FAST, stdin: bytes = b"") -> RunResult:
    job = Job(steps=(Step(argv=("python", "main.py"), stdin=stdin),), files={"main.py": source.encode()}, limits=limits)
    return executor.run(job)


def victims(executor: Executor) -> list[int]:
    """The processes whose death is an infrastructure fault the backend must absorb: the
    local workers; the containers' init processes (the whole container dies with it); the
    Ray actors (a lost node: the actor's local workers die with it)."""
    if executor.name == "ray":
        return executor.actor_pids(timeout_s=1.0)  # type: ignore[attr-defined]
    return executor.worker_pids()  # type: ignore[attr-defined]


def shell(executor: Executor, script: str, limits: Limits = FAST) -> RunResult:
    return executor.run(Job(steps=(Step(argv=("sh", "-c", script)),), limits=limits))


def test_job_files_in_folders_belong_to_the_submission(executor: Executor) -> None:
    """Files and folders the job brings are written before the step (by a root that, in a
    container, cannot override permissions) and then belong to the submission's uid."""
    source = (
        "import os\n"
        "print(open('a/b/data.txt').read())\n"
        "for path in ('.', 'a', 'a/b', 'a/b/data.txt', 'main.py'):\n"
        "    assert os.stat(path).st_uid == os.getuid(), path\n"
        "open('a/b/out.txt', 'w').write('x')\n"
    )
    job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode(), "a/b/data.txt": b"deep"},
              limits=FAST)  # fmt: skip
    step = executor.run(job).steps[0]
    assert (step.exit_code, step.stdout, step.stderr) == (0, b"deep\n", b"")


PROTECTED_ATTACK = """\
import os
results = {}
def attempt(name, action):
    try:
        action()
        results[name] = "done"
    except OSError as e:
        results[name] = e.errno
attempt("write", lambda: open("tests/t.py", "w").write("forged"))
attempt("append", lambda: open("tests/t.py", "a").write("forged"))
attempt("chmod", lambda: os.chmod("tests/t.py", 0o666))
attempt("remove", lambda: os.remove("tests/t.py"))
attempt("replace", lambda: (open("forged.py", "w").write("forged"), os.replace("forged.py", "tests/t.py")))
attempt("rename folder", lambda: os.rename("tests", "elsewhere"))
attempt("remove folder", lambda: os.rmdir("tests"))
attempt("new file beside", lambda: open("tests/new.py", "w").write("mine"))
attempt("own file", lambda: open("src.py", "w").write("changed"))
print(sorted(name for name, outcome in results.items() if outcome == "done"))
print(open("tests/t.py").read())
"""


def test_protected_files_cannot_be_changed_replaced_or_removed(executor: Executor) -> None:
    """`Job.protected`: the harness's files that run beside the submission (a repository's
    tests) cannot be written, chmodded, removed, replaced, nor their folders renamed; the
    submission's own files and new files stay its own. A job without protection after one
    with it gets a work dir of its own again."""
    files = {"main.py": PROTECTED_ATTACK.encode(), "tests/t.py": b"original", "src.py": b"x"}
    job = Job(steps=(Step(argv=("python", "main.py")),), files=files, protected=("tests/t.py",), limits=FAST)
    step = executor.run(job).steps[0]
    assert step.exit_code == 0, step.stderr
    assert step.stdout == b"['new file beside', 'own file']\noriginal\n", step.stdout
    after = Job(steps=(Step(argv=("sh", "-c", "mkdir d && mv d e && echo ok > tests/t.py && cat tests/t.py")),),
                files={"tests/t.py": b"x"}, limits=FAST)  # fmt: skip
    assert executor.run(after).steps[0].stdout == b"ok\n"


def test_runs_python_and_captures_output(executor: Executor) -> None:
    result = python(
        executor, "import sys\nprint(input()[::-1])\nprint('err', file=sys.stderr)\nsys.exit(3)", stdin=b"abc\n"
    )
    step = result.steps[0]
    assert (step.stdout, step.stderr, step.exit_code, step.limit) == (b"cba\n", b"err\n", 3, None)
    assert result.cgroup == executor.cgroup and result.backend == executor.name


def test_runs_python_dash_c_as_python_does(executor: Executor) -> None:
    code = "import sys, os\nprint(sys.argv, __name__, '__file__' in globals(), sys.path[0] == os.getcwd())"
    step = executor.run(Job(steps=(Step(argv=("python", "-c", code, "a", "b")),), limits=FAST)).steps[0]
    assert (step.stdout, step.exit_code) == (b"['-c', 'a', 'b'] __main__ False True\n", 0), step.stderr


def test_a_crash_shows_the_programs_frames_only(executor: Executor) -> None:
    """As ``python main.py`` prints it: no frame of the runner, whose file is the host's."""
    step = python(executor, "def f():\n    raise ValueError('boom')\nf()\n").steps[0]
    lines = step.stderr.decode().splitlines()
    assert step.exit_code == 1 and lines[0] == "Traceback (most recent call last):", lines
    assert lines[1].strip().startswith('File "') and "main.py" in lines[1] and lines[-1] == "ValueError: boom", lines
    assert "_forkserver" not in step.stderr.decode() and "codegym/executor" not in step.stderr.decode()


def test_runs_toolchain_commands(executor: Executor) -> None:
    result = shell(executor, "echo $((6*7)); hostname")
    # (the `container` tier has no uts namespace to name: the host's, or the docker backend's
    # container's, which it names codegym too)
    container = result.isolation == "container" and executor.name == "local"
    name = os.uname().nodename.encode() if container else b"codegym"
    assert result.steps[0].stdout == b"42\n" + name + b"\n" and result.steps[0].ok


def test_missing_command_is_an_infrastructure_error(executor: Executor) -> None:
    with pytest.raises(SandboxError, match="cannot execute 'no-such-compiler'"):
        executor.run(Job(steps=(Step(argv=("no-such-compiler",)),)))


def test_not_root_and_confined(executor: Executor) -> None:
    source = (
        "import os\n"
        "status = open('/proc/self/status').read()\n"
        "print(os.getuid(), os.getgid())\n"
        "print('|'.join(l.replace(chr(9), ' ') for l in status.splitlines() if l.startswith(('NoNewPrivs', 'Seccomp:', 'CapEff'))))\n"
    )
    if isolation(executor) == "container":  # (its processes counted from the host: see HOLD)
        result, mine = held(executor, HOLD + source, lambda pid: list(companions(pid).values()))
        out = result.steps[0].stdout.decode().splitlines()
    else:
        result = python(executor, source + MINE + (
            "print(' '.join(comm(p) for p in MINE))\n"
            "others = [p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())]\n"
            "print(' '.join(filter(None, (comm(p) for p in others))))\n"
            "print(open('/proc/1/comm').read().strip() == 'codegym-init')\n"
        ))  # fmt: skip
        out = result.steps[0].stdout.decode().splitlines()
        mine = out[2].split(" ")
    uid, gid = map(int, out[0].split())
    assert uid != 0 and gid != 0
    assert out[1].split("|") == ["CapEff: 0000000000000000", "NoNewPrivs: 1", "Seccomp: 2"]
    # Of its uid, besides itself, only the keeper of its address space; and where /proc is
    # its pid namespace's (its pid 1 the fork server), nothing else at all but that init.
    assert mine == ["codegym-keeper"]
    if result.isolation == "container":
        return
    if out[4] == "True":
        assert out[3] == "codegym-keeper"
    else:  # (`userns` in a container, whose /proc is not its own)
        assert executor.name == "docker"


@pytest.mark.parametrize("sockets", ["kill", "errno"])  # the ready spare's policy, and another
def test_address_space_keeper_is_confined_like_the_step(executor: Executor, sockets: str) -> None:
    """The keeper shares the step's memory, so a submission could rewrite the code it sleeps
    in: it must hold nothing the step lacks (no descriptor of the job's: a pipe end it held
    would never close), and no signal may bring it back to user code. (In the `container`
    tier it also holds the step's own /proc/<pid>, which the step reads as /proc/self: the
    step's Landlock rule for it holds while that stays open; see `_linux.StepLandlock`.)"""
    checks = (
        "import os, signal, time\n"
        "def fields(pid):\n"
        "    lines = open(f'/proc/{pid}/status').read().splitlines()\n"
        "    keys = ('Uid', 'Gid', 'Groups', 'CapEff', 'CapPrm', 'NoNewPrivs', 'Seccomp', 'Sig')\n"
        "    return {k: v.strip() for k, v in (l.split(':', 1) for l in lines) if k.startswith(keys)}\n"
        "mine, its = fields(me), fields(keeper)\n"
        "print(all(mine[k] == its[k] for k in ('Uid', 'Gid', 'Groups', 'CapEff', 'CapPrm', 'NoNewPrivs', 'Seccomp')))\n"
        "print(open(f'/proc/{me}/limits').read() == open(f'/proc/{keeper}/limits').read())\n"
        "print(its['SigBlk'])\n"
        "fds = [os.readlink(f'/proc/{keeper}/fd/{fd}') for fd in sorted(os.listdir(f'/proc/{keeper}/fd'), key=int)]\n"
        "sockets = [f for f in fds if f.startswith('socket:')]\n"
        "print(fds[:3] == ['/dev/null'] * 3 and len(sockets) == 1 and [f for f in fds[3:] if f not in sockets] == pins)\n"
        "for sig in (signal.SIGSTOP, signal.SIGCONT, signal.SIGTERM, signal.SIGINT, signal.SIGUSR1):\n"
        "    os.kill(inner(keeper), sig)\n"
        "time.sleep(0.05)\n"
        "print(open(f'/proc/{keeper}/stat').read().split(') ')[1].split()[0])\n"
        "os.kill(inner(keeper), signal.SIGKILL)\n"
    )
    read = "import sys\nprint(len(sys.stdin.read()))\n"
    if isolation(executor) == "container":
        # The same checks, made from the host while the step waits (its keeper's /proc/<pid>
        # is not the step's to read), by host pids; the step runs on once its keeper is killed.

        def look(pid: int) -> list[str]:
            [keeper] = companions(pid)
            pins = [f"/proc/{_status(str(pid))['NSpid'].split()[-1]}"]  # (the step's pid, as it knows it)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(checks, {"me": pid, "keeper": keeper, "inner": lambda p: p, "pins": pins})
            return printed.getvalue().splitlines()

        result, seen = held(executor, read + HOLD + "print('survived')\n", look, stdin=b"abc", sockets=sockets)
        step = result.steps[0]
        out = [*step.stdout.decode().splitlines()[:1], *seen, *step.stdout.decode().splitlines()[1:]]
    else:
        source = read + MINE + "keeper, me, pins = MINE[0], 'self', []\n" + checks + "print('survived')\n"
        job = Job(steps=(Step(argv=("python", "main.py"), stdin=b"abc", sockets=sockets),),
                  files={"main.py": source.encode()}, limits=FAST)  # fmt: skip
        step = executor.run(job).steps[0]
        out = step.stdout.decode().splitlines()
    assert out[:3] == ["3", "True", "True"], step.stderr
    assert int(out[3], 16) | (1 << 8) | (1 << 18) == (1 << 64) - 1  # all but SIGKILL, SIGSTOP
    assert out[4] == "True"
    assert out[5] == "S"  # still asleep in pause(): signals are blocked or stop it only
    assert out[6] == "survived" and step.ok  # a step that kills its keeper runs on


def test_exec_programs_get_default_signal_dispositions(executor: Executor) -> None:
    """What the Python fork server ignores (SIGPIPE, SIGXFSZ), or the process that started
    the worker did, is not ignored by the programs it execs, nor blocked: a file-size limit
    kills them and is reported as such; a pipe reader that goes away ends its writer. (grep
    is a step of its own, to read its own status: in the `container` tier the processes a
    step starts cannot read their /proc/self.)"""
    status = Step(argv=("grep", "-E", "SigBlk|SigIgn", "/proc/self/status"))
    script = "yes | head -c 1 >/dev/null; exec head -c 9999999 /dev/zero > f"
    first, second = executor.run(Job(steps=(status, Step(argv=("sh", "-c", script))), limits=FAST)).steps
    assert first.stdout == b"SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", first
    assert second.limit == "file_size", second
    assert b"Broken pipe" not in second.stderr


def test_file_system_view_hides_the_host(executor: Executor) -> None:
    """Nothing of the host's but the toolchain can be read (opened: access() would not ask
    Landlock, which guards the `container` tier's view), and nothing of it written."""
    source = (
        "import os\n"
        "def readable(path):\n"
        "    try:\n"
        "        os.listdir(path) if os.path.isdir(path) else open(path, 'rb').close()\n"
        "        return True\n"
        "    except OSError:\n"
        "        return False\n"
        "for path in ['/etc/shadow', '/etc/passwd', '/root/.bashrc', "
        f"'{DATA_FILE}', '{REPO}/.git', '{SITE}', '/home', '/var', '/sys/fs/cgroup', '/.cg/memory']:\n"
        "    print(path, readable(path))\n"
        "open('/usr/planted', 'w')\n"
    )
    result = python(executor, source)
    step = result.steps[0]
    lines = dict(line.rsplit(" ", 1) for line in step.stdout.decode().splitlines())
    # A synthetic one in a view; the `container` tier has none, and shows none of the host's.
    assert lines.pop("/etc/passwd") == ("True" if result.isolation != "container" else "False")
    assert set(lines.values()) == {"False"}, lines
    assert b"Read-only file system" in step.stderr or b"Permission denied" in step.stderr


def test_network_is_denied_by_seccomp(executor: Executor) -> None:
    step = python(
        executor, "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM)\nprint('connected')"
    ).steps[0]
    assert step.denied_syscall and step.signal == signal.SIGSYS and b"connected" not in step.stdout


@pytest.mark.parametrize("sockets", ["kill", "errno"])
def test_either_sockets_policy_keeps_the_deny_list(executor: Executor, sockets: str) -> None:
    """The "errno" policy fails a network socket with EACCES, not kills; every other denial stays."""
    source = (
        "import ctypes, socket\n"
        "try:\n    socket.socket(socket.AF_INET, socket.SOCK_STREAM)\nexcept OSError as e:\n    print(e.errno)\n"
        "print('io_uring', ctypes.CDLL(None, use_errno=True).syscall(425, 1, None), ctypes.get_errno())\n"
        "ctypes.CDLL(None).unshare(0x10000000)\nprint('escaped')\n"
    )
    step = Step(argv=("python", "main.py"), sockets=sockets)
    result = executor.run(Job(steps=(step,), files={"main.py": source.encode()}, limits=FAST)).steps[0]
    assert result.denied_syscall and result.signal == signal.SIGSYS
    assert result.stdout == (b"" if sockets == "kill" else f"{errno.EACCES}\nio_uring -1 {errno.ENOSYS}\n".encode())


def test_namespace_escape_is_denied(executor: Executor) -> None:
    step = python(executor, "import ctypes\nctypes.CDLL(None).unshare(0x10000000)\nprint('escaped')").steps[0]
    assert step.denied_syscall and b"escaped" not in step.stdout


def test_unix_sockets_and_threads_still_work(executor: Executor) -> None:
    source = "import socket, threading\na, b = socket.socketpair()\nt = threading.Thread(target=a.send, args=(b'ok',))\nt.start(); t.join()\nprint(b.recv(2).decode())"
    assert python(executor, source).steps[0].stdout == b"ok\n"


@pytest.mark.parametrize(
    ("source", "limit"),
    [
        ("while True: pass", "cpu"),
        ("import time\ntime.sleep(60)", "wall"),
        ("x = 'x' * (1 << 30)", "memory"),
        ("x = []\nwhile True: x.append(bytearray(1 << 20))", "memory"),
        ("while True: print('y' * 1000)", "output"),
        ("import tempfile\ntempfile.TemporaryFile().write(b'x' * (4 << 20))", "file_size"),
    ],
    ids=["cpu-spin", "sleep", "memory-bomb", "memory-growth", "output-flood", "huge-file"],
)
def test_limits_fire_and_are_reported(executor: Executor, source: str, limit: str) -> None:
    started = time.monotonic()
    result = python(executor, source)
    step = result.steps[0]
    if limit == "memory" and result.cgroup == "none" and "1 << 30" in source:
        # Without a cgroup, RLIMIT_DATA fails one allocation over the whole limit at once:
        # the program ends as its runtime reports that, having held little (documented).
        assert (step.limit, step.exit_code) == (None, 1) and b"MemoryError" in step.stderr, step
        assert step.peak_memory_bytes < FAST.memory_bytes
    else:
        assert step.limit == limit, step
    assert time.monotonic() - started < FAST.wall_s + 1.0
    assert len(step.stdout) <= FAST.output_bytes


def test_fork_bomb_is_contained(executor: Executor, leftovers) -> None:
    source = "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
    started = time.monotonic()
    step = python(executor, source).steps[0]
    assert step.limit in ("wall", "cpu", "processes")
    assert time.monotonic() - started < FAST.wall_s + 1.0
    assert leftovers() == []


def test_fd_exhaustion_fails_inside_the_sandbox_only(executor: Executor) -> None:
    step = python(executor, "fs = [open('/dev/null') for _ in range(100000)]").steps[0]
    assert step.exit_code == 1 and b"Too many open files" in step.stderr


def test_daemons_die_with_the_step(executor: Executor, leftovers) -> None:
    source = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\nprint('parent done')"
    step = python(executor, source).steps[0]
    assert step.ok and step.wall_s < 1.5
    assert leftovers() == []


def test_a_daemon_dies_with_the_step_even_when_its_keeper_is_gone(executor: Executor, leftovers) -> None:
    """The fork server kills only the keeper when nothing else is left: a step that killed
    its keeper and left a daemon must not pass the daemon off as that keeper. (In the
    `container` tier, whose steps cannot see their keepers, the host kills it and looks.)"""
    daemon = "if os.fork() == 0:\n    os.setsid()\n    time.sleep(30)\nprint('parent done')"
    container = isolation(executor) == "container"
    if container:

        def kill_keeper(pid: int) -> None:
            [keeper] = companions(pid)
            os.kill(keeper, signal.SIGKILL)
            while keeper in companions(pid):  # (reaped by the fork server)
                time.sleep(0.001)

        step = held(executor, HOLD + "import os, time\n" + daemon, kill_keeper)[0].steps[0]
    else:
        source = MINE + (
            "import signal, time\n"
            "keeper = MINE[0]\n"
            "os.kill(inner(keeper), signal.SIGKILL)\n"
            "while os.path.exists(f'/proc/{keeper}'):\n    time.sleep(0.001)\n"  # (reaped by pid 1)
        )
        step = python(executor, source + daemon).steps[0]
    assert step.ok and step.stdout == b"parent done\n"
    assert leftovers() == []
    probe = MINE + (
        "print([p for p in MINE if comm(p) not in ('codegym-keeper', '')])"  # ('': gone since, not a daemon)
    )
    for _ in range(executor.workers * 2):  # (the next job on every worker sees no one else)
        if container:
            others = held(executor, HOLD, lambda pid: list(companions(pid).values()))[1]
            assert others == ["codegym-keeper"]
        else:
            step = python(executor, probe).steps[0]
            assert step.stdout == b"[]\n", step.stderr


def test_killing_the_parent_does_nothing(executor: Executor) -> None:
    source = (
        "import os, signal\n"
        "for pid in (os.getppid(), 1, -1):\n"
        "    try:\n        os.kill(pid, signal.SIGKILL)\n    except OSError as e:\n        print(pid, e.errno)\n"
        "print('alive')"
    )
    pids = executor.worker_pids()  # type: ignore[attr-defined]
    step = python(executor, source).steps[0]
    assert step.stdout.endswith(b"alive\n")
    assert executor.worker_pids() == pids and python(executor, "print(1)").steps[0].stdout == b"1\n"


def test_nothing_survives_into_the_next_job(executor: Executor) -> None:
    plant = "for p in ['/tmp/planted', '/sandbox/planted', '/dev/shm/planted']:\n    try:\n        open(p, 'w').write('x')\n    except OSError:\n        pass"
    probe = (
        "import os\nprint([p for p in ['/tmp/planted', '/sandbox/planted', '/dev/shm/planted'] if os.path.exists(p)])"
    )
    for _ in range(executor.workers * 2):  # every worker, twice
        python(executor, plant)
    assert python(executor, probe).steps[0].stdout == b"[]\n"


def test_steps_share_files_and_stop_after_a_failure(executor: Executor) -> None:
    job = Job(
        steps=(
            Step(argv=("sh", "-c", "echo compiled > out.txt")),
            Step(argv=("sh", "-c", "cat out.txt; exit 2")),
            Step(argv=("sh", "-c", "echo never")),
        ),
        limits=FAST,
    )
    first, second, third = executor.run(job).steps
    assert first.ok and second.stdout == b"compiled\n" and second.exit_code == 2 and third.skipped


def test_a_killed_worker_is_replaced_and_the_job_retried(fresh) -> None:
    with fresh() as ex:
        assert python(ex, "print('warm')").steps[0].ok
        victim = victims(ex)[0]
        threading.Timer(0.3, os.kill, (victim, signal.SIGKILL)).start()
        result = python(ex, "import time\ntime.sleep(1)\nprint('done')", Limits(wall_s=5))
        assert result.steps[0].stdout == b"done\n" and result.attempts == 2
        assert victims(ex) != [victim] and ex.stats["retries"] == 1


def test_repeated_infrastructure_faults_raise_sandbox_error(fresh) -> None:
    with fresh(retries=1) as ex:
        ex.run(Job(steps=(Step(argv=("true",)),)))
        done = threading.Event()

        def kill_workers() -> None:
            # Until the job gives up: a restarted container or Ray actor takes a moment to
            # come back, and each comeback must be killed too.
            for _ in range(600):
                if done.is_set():
                    return
                with contextlib.suppress(SandboxError):
                    for pid in victims(ex):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(pid, signal.SIGKILL)
                time.sleep(0.05)

        killer = threading.Thread(target=kill_workers)
        killer.start()
        try:
            with pytest.raises(SandboxError, match=r"attempts|failed to start"):
                python(ex, "import time\ntime.sleep(1.5)", Limits(wall_s=5))
        finally:
            done.set()
            killer.join()


def test_limits_are_validated() -> None:
    with pytest.raises(ValueError, match="cpu_s must be positive"):
        Limits(cpu_s=0)
    with pytest.raises(ValueError, match="must be relative"):
        Job(steps=(Step(argv=("true",)),), files={"/etc/passwd": b""})


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"argv": ["echo", "hi"]}, "argv must be a non-empty tuple of str"),
        ({"argv": ()}, "argv must be a non-empty tuple of str"),
        ({"argv": ("echo",), "env": {"N": "1"}}, r"env must be a tuple of \(name, value\) str pairs"),
        ({"argv": ("echo",), "env": (("N", 1),)}, r"env must be a tuple of \(name, value\) str pairs"),
        ({"argv": ("echo",), "sockets": "allow"}, "sockets must be 'kill', 'errno' or 'tool'"),
    ],
)
def test_a_malformed_step_is_refused_where_it_is_made(fields: dict, error: str) -> None:
    """Not in the worker, where it would look like an infrastructure failure."""
    with pytest.raises((TypeError, ValueError), match=error):
        Step(**fields)


def test_collected_files_come_back_without_following_links(executor: Executor) -> None:
    script = "printf 'ELF' > out.bin; ln -s /etc/passwd link; mkdir dir; head -c 2000000 /dev/zero > big"
    job = Job(
        steps=(Step(argv=("sh", "-c", script)),), collect=("out.bin", "link", "dir", "missing", "big"), limits=FAST
    )
    files = executor.run(job).files
    assert set(files) == {"out.bin", "big"} and files["out.bin"] == b"ELF"
    assert len(files["big"]) == FAST.file_size_bytes  # the write was stopped at the file-size limit
