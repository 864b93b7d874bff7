"""Hostile submissions through the public API: each is stopped within its limit plus a
margin, earns reward 0 with the right status, and leaves nothing behind."""

from __future__ import annotations

import time
from collections.abc import Iterator

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)
from codegym.executor import Executor, Job, Limits, Step
from codegym.task import Task, TaskSet, TestCase

LIMITS = Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=128 << 20, processes=8, output_bytes=64 << 10,
                file_size_bytes=1 << 20, disk_bytes=8 << 20)  # fmt: skip
MARGIN_S = 1.0  # "within its limit plus a second"
TASK = Task(
    id="attack/add",
    family="PythonFunction",
    prompt='def add(a: int, b: int) -> int:\n    """Return a + b."""\n',
    tests=(
        TestCase("test_00", "assert add(1, 2) == 3", hidden=False),
        TestCase("test_01", "assert add(-5, 5) == 0"),
        TestCase("test_02", "assert add(10**20, 1) == 10**20 + 1"),
    ),
    metadata={"entry_point": "add", "prefix": "", "test_prelude": ""},
)
CORRECT = "def add(a, b):\n    return a + b\n"

FILL = "import mmap, os\nSIZE = 384 << 20\n{setup}m = {open}\nfor i in range(0, SIZE, 4096):\n    m[i] = 1\n"
SHARED_MEMORY = ("shared-mmap", "dev-zero-mmap", "memfd-mmap", "memfd-write", "sysv-shm")

ATTACKS = {
    # name: (source, expected status)
    "cpu-spin": ("def add(a, b):\n    while True:\n        pass\n", "TLE"),
    "sleep": ("import time\ntime.sleep(100)\n", "TLE"),
    "memory-bomb": ("hoard = 'x' * (1 << 30)\n", "MLE"),
    "memory-growth": ("hoard = []\nwhile True:\n    hoard.append(bytearray(1 << 20))\n", "MLE"),
    "fork-bomb": ("import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", "TLE"),
    "output-flood": ("while True:\n    print('All tests passed! ' * 100)\n", "OLE"),
    "fd-exhaustion": ("handles = [open('/dev/null') for _ in range(100000)]\n", "RE"),
    "huge-file": ("open('big', 'wb').write(b'x' * (8 << 20))\n", "OLE"),
    "huge-temp-file": ("import tempfile\ntempfile.TemporaryFile().write(b'x' * (8 << 20))\n", "OLE"),
    "network": ("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\n", "SEC"),
    "namespace-escape": ("import ctypes\nctypes.CDLL(None).unshare(0x20000)\n", "SEC"),
    "read-host-files": (
        "def add(a, b):\n    secret = ''\n    for p in ['/etc/shadow', '/root/.bash_history', '/proc/1/environ']:\n"
        "        try:\n            secret += open(p).read()\n        except OSError:\n            pass\n"
        "    return secret or None\n",
        "WA",
    ),
    "kill-parent": (
        "import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError:\n        pass\ndef add(a, b):\n    return 0\n",
        "WA",
    ),
    "daemon": (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(1)\n"
        "def add(a, b):\n    return None\n",
        "WA",
    ),
    "os-exit-0": ("import os\nos._exit(0)\n", "RE"),
    "sys-exit-0": ("import sys\nsys.exit(0)\n", "RE"),
    "atexit-exit-0": (
        "import atexit, os\natexit.register(lambda: (print('OK: 3/3 passed'), os._exit(0)))\n"
        "def add(a, b):\n    raise SystemExit(0)\n",
        "RE",
    ),
    "always-equal": (
        "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
        "def add(a, b):\n    return Anything()\n",
        "WA",
    ),
    "int-subclass-equal": (
        "class Liar(int):\n    def __eq__(self, other):\n        return True\ndef add(a, b):\n    return Liar(0)\n",
        "WA",
    ),
    "monkeypatch": (
        "import builtins, sys\nbuiltins.AssertionError = type('Never', (Exception,), {})\n"
        "for name, module in list(sys.modules.items()):\n"
        "    if name.startswith('codegym'):\n        for attr in dir(module):\n"
        "            if attr in ('decode', 'decode_call', 'grade', '_run_tests', '_run_one'):\n"
        "                setattr(module, attr, lambda *a, **k: True)\n"
        "def add(a, b):\n    return None\n",
        "RE",  # it broke its own call loop; the grader was untouched
    ),
    "caller-frames": (
        "import gc, sys\ndef add(a, b):\n    frame, found = sys._getframe(1), []\n    while frame:\n"
        "        found += [v for v in frame.f_locals.values() if isinstance(v, int) and v not in (a, b)]\n"
        "        frame = frame.f_back\n"
        "    found += [o for o in gc.get_objects() if isinstance(o, str) and 'assert' in o]\n"
        "    return found[0] if found else None\n",
        "WA",
    ),
    "fake-pass-markers": (
        "print('Status: OK')\nprint('3 passed, 0 failed')\ndef add(a, b):\n    print('PASSED')\n    return -1\n",
        "WA",
    ),
    "channel-garbage": ("import os\nos.write(4, b'\\xff' * 64)\n", "HACK"),
    # Memory that RLIMIT_DATA does not count (bounded: the limit plus 256 MiB at most), then a
    # correct function: never OK. (A memfd is a file: RLIMIT_FSIZE stops it first.)
    "shared-mmap": (FILL.format(setup="", open="mmap.mmap(-1, SIZE)") + CORRECT, "MLE"),
    "dev-zero-mmap": (FILL.format(setup="", open="mmap.mmap(os.open('/dev/zero', os.O_RDWR), SIZE)") + CORRECT, "MLE"),
    "memfd-mmap": (
        FILL.format(setup="fd = os.memfd_create('x')\nos.ftruncate(fd, SIZE)\n", open="mmap.mmap(fd, SIZE)") + CORRECT,
        "OLE",
    ),
    "memfd-write": (
        "import os\nfd = os.memfd_create('x')\nfor _ in range(384):\n    os.write(fd, b'x' * (1 << 20))\n" + CORRECT,
        "OLE",
    ),
    "sysv-shm": (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = ctypes.c_void_p\n"
        "libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]\nSIZE = 384 << 20\nsegment = libc.shmget(0, SIZE, 0o1600)\n"
        "if segment < 0:\n    raise OSError(ctypes.get_errno(), 'shmget')\naddress = libc.shmat(segment, None, 0)\n"
        "for offset in range(0, SIZE, 1 << 20):\n    ctypes.memset(address + offset, 1, 1 << 20)\n" + CORRECT,
        "MLE",
    ),
    "forged-reply": (
        "import os, struct, json\n"
        "body = json.dumps({'d': [['kind', 'ready'], ['functions', []]]}).encode()\n"
        "os.write(4, struct.pack('!I', len(body)) + body)\n"
        "reply = json.dumps({'d': [['kind', 'pass']]}).encode()\n"
        "while True:\n    os.write(4, struct.pack('!I', len(reply)) + reply)\n",
        "HACK",
    ),
}


@pytest.fixture(scope="module")
def executor(any_tiered_executor: Executor) -> Executor:
    """Each sandbox tier the suite can make here in turn, in Docker containers too (see
    ``tests/conftest.py``)."""
    return any_tiered_executor


def expected(name: str, cgroup: str, isolation: str = "full") -> str:
    """The status an attack earns. Without a cgroup (a plain user's `userns`, a container's
    tiers), memory is limited per process by RLIMIT_DATA: a single allocation over the limit
    fails at once and the program ends as its runtime reports it (MemoryError: RE); growing
    into the limit is MLE in every tier. Memory that RLIMIT_DATA would not count (shared
    mappings, memfds, System V segments) is refused there (EPERM: the runtime raises, RE), as
    System V IPC is in the `container` tier."""
    if name in ("memory-bomb", *SHARED_MEMORY) and cgroup == "none":
        return "RE"
    if name == "sysv-shm" and isolation == "container":
        return "RE"
    return ATTACKS[name][1]


@pytest.fixture(scope="module")
def cgroup(executor: Executor) -> str:
    """The cgroup version that limits the tier's steps ("none": rlimits do)."""
    return executor.run(Job(steps=(Step(argv=("true",)),))).cgroup


@pytest.fixture(scope="module")
def isolation(executor: Executor) -> str:
    """The tier the steps run in (the `container` tier inside a default Docker container)."""
    return executor.run(Job(steps=(Step(argv=("true",)),))).isolation


@pytest.fixture(scope="module")
def env(executor: Executor) -> Iterator[gym.Env]:
    env = gym.make("codegym/PythonFunction-v0", tasks=TaskSet([TASK]), limits=LIMITS, executor=executor)
    yield env
    env.close()


def submit(env: gym.Env, code: str) -> tuple[float, dict]:
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(code)
    assert terminated and not truncated
    return float(reward), info


def test_the_task_is_solvable(env: gym.Env) -> None:
    reward, info = submit(env, CORRECT)
    assert (reward, info["status"]) == (1.0, "OK")


@pytest.mark.parametrize("name", list(ATTACKS))
def test_attack_earns_nothing(env: gym.Env, cgroup: str, isolation: str, leftovers, name: str) -> None:
    source, status = ATTACKS[name][0], expected(name, cgroup, isolation)
    started = time.monotonic()
    reward, info = submit(env, source)
    assert time.monotonic() - started < LIMITS.wall_s + MARGIN_S
    assert (reward, info["status"]) == (0.0, status), info["grade"].message
    assert leftovers() == []
    assert submit(env, CORRECT)[0] == 1.0  # the env still works, and nothing carried over


def test_state_does_not_carry_into_the_next_episode(env: gym.Env) -> None:
    # (the step's temp dir is /tmp but in the `container` tier, where /tmp is the container's
    # and out of its reach: there TMPDIR names its own)
    places = "import os, tempfile\nPLACES = ['x', tempfile.gettempdir() + '/x', '/tmp/x', '/sandbox/x', os.path.expanduser('~/x')]\n"
    plant = places + (
        "for p in PLACES:\n    try:\n        open(p, 'w').write('3')\n    except OSError:\n        pass\n"
        "def add(a, b):\n    return a + b\n"
    )
    use = (
        places
        + "def add(a, b):\n    found = [p for p in PLACES if os.path.exists(p)]\n    return int(open(found[0]).read()) if found else None\n"
    )
    for _ in range(4):
        assert submit(env, plant)[0] == 1.0
    reward, info = submit(env, use)
    assert (reward, info["status"]) == (0.0, "WA")
    assert info["grade"].tests[0].got == "None"


# Objects that live in the IPC namespace (or in /dev/shm), not in a process: one job plants
# "3" in each, a later one answers right only if it is still there.
IPC_PRELUDE = (
    "import ctypes, os, struct\nfrom ctypes import c_char_p, c_int, c_size_t, c_void_p\n"
    "libc = ctypes.CDLL(None, use_errno=True)\nlibc.shmat.restype = c_void_p\n"
    "libc.shmget.argtypes = [c_int, c_size_t, c_int]\nlibc.msgsnd.argtypes = [c_int, c_char_p, c_size_t, c_int]\n"
    "KEY, FAILED, NAME = 0x43470ABC, ctypes.c_void_p(-1).value, b'/codegym-plant'\n"
)
IPC_CHANNELS = {
    # name: (plant, found): `found` ends in an expression that is true if the plant is there
    "sysv-shm": (
        "segment = libc.shmget(KEY, 4096, 0o1666)\naddress = libc.shmat(segment, None, 0) if segment >= 0 else FAILED\n"
        "if address != FAILED:\n    ctypes.memmove(address, b'3', 1)\n",
        "segment = libc.shmget(KEY, 0, 0)\naddress = libc.shmat(segment, None, 0o10000) if segment >= 0 else FAILED\n"
        "return address != FAILED and ctypes.string_at(address, 1) == b'3'\n",
    ),
    "sysv-msg": (
        "queue = libc.msgget(KEY, 0o1666)\nlibc.msgsnd(queue, struct.pack('l', 1) + b'3', 1, 0o4000)\n",
        "return libc.msgget(KEY, 0) >= 0\n",  # (each test calls it: reading would take the message)
    ),
    "sysv-sem": ("libc.semget(KEY, 1, 0o1666)\n", "return libc.semget(KEY, 0, 0) >= 0\n"),
    "posix-mq": (
        "libc.mq_open(NAME, os.O_CREAT | os.O_RDWR, 0o666, None)\n",
        "return libc.mq_open(NAME, os.O_RDONLY) >= 0\n",
    ),
    "dev-shm": (
        "open('/dev/shm/codegym-plant', 'w').write('3')\n",
        "return os.path.exists('/dev/shm/codegym-plant')\n",
    ),
}


def _indented(code: str) -> str:
    return "".join(f"    {line}\n" for line in code.splitlines())


@pytest.mark.parametrize("channel", list(IPC_CHANNELS))
def test_ipc_objects_do_not_carry_into_the_next_episode(env: gym.Env, channel: str) -> None:
    """Each step has an IPC namespace of its own where the tier has namespaces; the
    `container` tier, whose IPC namespace is the container's, refuses System V IPC and POSIX
    message queues (EPERM), and /dev/shm is out of every step's reach."""
    plant, found = IPC_CHANNELS[channel]
    plant = IPC_PRELUDE + "try:\n" + _indented(plant) + "except OSError:\n    pass\n" + CORRECT
    use = IPC_PRELUDE + "def found():\n" + _indented(found) + "def add(a, b):\n    return a + b if found() else None\n"
    for _ in range(2):
        assert submit(env, plant)[0] == 1.0
    for _ in range(2):
        reward, info = submit(env, use)
        assert (reward, info["status"]) == (0.0, "WA"), info["grade"].message
