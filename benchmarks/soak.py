"""Soak: thousands of mixed jobs over the four task families, some hostile, on the local backend.

    python benchmarks/soak.py [--jobs 10000] [--hostile 0.1] [--seed 0]

The jobs go, in a seeded shuffled order, through the public batch API (`codegym.Scorer`, one
per env, deduplication off so that every job runs): PythonFunction-v0 40%, StdioProgram-v0
25% (20 points in Python, 5 with ``language="c"``), Verilog-v1 30%, TritonKernel-v0 5%
(Triton's CPU interpreter at the tasks' small shapes). A ``--hostile`` share of them are
attack programs adapted from the test suites' (``tests/envs/*/test_attacks.py``,
``tests/executor/test_contract.py``): spin loops, sleeps, memory hogs, fork bombs, output
floods, a daemon left behind, files planted in /tmp, /etc/shadow read, the parent killed,
forged harness frames, designs the Verilog gate refuses, Triton cheats; every hostile job is
bounded by the small limits below, and they cycle so that each program runs about as often.
Of the rest, 70% are the tasks' reference solutions (expected OK) and 30% deliberately wrong
answers (expected WA, RE or CE). One executor runs the first three families, the Triton
family has its own (`TritonExecutor`), both one worker per core, both started and warmed up
(every program once) before the run.

Checks, each a line of the summary (exit status 1 when one fails): no grade is IE and no
grading raised; every reference is OK; no wrong or hostile answer is OK; no worker
restarted and no job was retried; once the run is over and the workers idle, no process of a
submission's uid is left but each fork server's spare and its keeper; after the executors
closed, against a snapshot taken before they started: no process descended from this one and
none of a submission's uid, no new mount in this mount namespace, no cgroup of the executors,
no new open file descriptor of this process, nothing in the run's temporary directory (every
scratch folder of the executors is made there) and no new entry of a submission's uid in the
system's temporary directories; each warm worker's memory (the RSS of its supervisor plus its
fork server) grows by less than GROWTH_BOUND_MIB from the end of the warm-up to the end of
the run. A hostile job whose status differs from the one its test suite pins is listed, not
failed: those suites check each attack's exact status; the soak checks that none scores.

Prints the jobs per family and status, jobs/s, each worker's RSS at the start (the baseline:
the end of the warm-up), half way and at the end with the ratio end/start, the counts of
processes, mounts, descriptors and temporary entries before and after, and every leak found.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

import codegym
from codegym.executor import Limits
from codegym.executor.local import LocalExecutor
from codegym.grade import Grade, Status
from codegym.task import Task

GROWTH_BOUND_MIB = 64.0  # per worker, over the run (supervisor + fork server RSS)
SETTLE_S = 10.0  # how long what the last steps left may take to be killed
STATUS_COLUMNS = (*(s.value for s in Status), "ERROR")  # ERROR: grading raised

# Small limits, so that every hostile job ends within a couple of seconds.
FAST = Limits(cpu_s=1.0, wall_s=2.0, memory_bytes=128 << 20, processes=8, output_bytes=64 << 10,
              file_size_bytes=1 << 20, disk_bytes=8 << 20)  # fmt: skip
VERILOG_LIMITS = replace(FAST, cpu_s=2.0, wall_s=4.0, memory_bytes=256 << 20, file_size_bytes=4 << 20,
                         disk_bytes=16 << 20)  # fmt: skip
TRITON_LIMITS = Limits(cpu_s=5.0, wall_s=10.0, memory_bytes=1 << 30, processes=64, output_bytes=1 << 20,
                       file_size_bytes=64 << 20, disk_bytes=128 << 20)  # fmt: skip


# --- the programs --------------------------------------------------------------------------


@dataclass(frozen=True)
class Program:
    """A submission: ``source`` (``{entry}`` stands for a Python task's function name) or a
    function of the task; ``expected``: the statuses the test suites expect of it."""

    name: str
    source: str | Callable[[Task], str]
    expected: tuple[str, ...]

    def render(self, task: Task) -> str:
        if callable(self.source):
            return self.source(task)
        return self.source.replace("{entry}", str(task.metadata.get("entry_point", "solve")))


def _plant(path_expr: str) -> str:
    return (
        f"import os\nfor p in ({path_expr}, '/tmp/codegym-soak-planted', '/dev/shm/codegym-soak-planted'):\n"
        "    try:\n        open(p, 'w').write('planted')\n    except OSError:\n        pass\n"
    )


PYTHON_HOSTILE = (  # (tests/envs/python_function/test_attacks.py)
    Program("spin", "def {entry}(*args, **kwargs):\n    while True:\n        pass\n", ("TLE",)),
    Program("sleep", "import time\ntime.sleep(100)\n", ("TLE",)),
    Program("memory-bomb", "hoard = 'x' * (1 << 30)\n", ("MLE",)),
    Program("memory-growth", "hoard = []\nwhile True:\n    hoard.append(bytearray(1 << 20))\n", ("MLE",)),
    Program(
        "fork-bomb",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        ("TLE",),
    ),
    Program("output-flood", "while True:\n    print('All tests passed! ' * 100)\n", ("OLE",)),
    Program("fd-exhaustion", "handles = [open('/dev/null') for _ in range(100000)]\n", ("RE",)),
    Program("huge-file", "open('big', 'wb').write(b'x' * (8 << 20))\n", ("OLE",)),
    Program("network", "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\n", ("SEC",)),
    Program("namespace-escape", "import ctypes\nctypes.CDLL(None).unshare(0x20000)\n", ("SEC",)),
    Program(
        "read-host-files",
        "def {entry}(*args, **kwargs):\n    secret = ''\n"
        "    for p in ['/etc/shadow', '/root/.bash_history', '/proc/1/environ']:\n"
        "        try:\n            secret += open(p).read()\n        except OSError:\n            pass\n"
        "    return secret or None\n",
        ("WA",),
    ),
    Program(
        "kill-parent",
        "import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError:\n        pass\ndef {entry}(*args, **kwargs):\n    return None\n",
        ("WA",),
    ),
    Program(
        "daemon",
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(1)\n"
        "def {entry}(*args, **kwargs):\n    return None\n",
        ("WA",),
    ),
    Program(
        "plant-files", _plant("os.path.expanduser('~/x')") + "def {entry}(*args, **kwargs):\n    return None\n", ("WA",)
    ),
    Program("os-exit-0", "import os\nos._exit(0)\n", ("RE",)),
    Program(
        "always-equal",
        "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
        "def {entry}(*args, **kwargs):\n    return Anything()\n",
        ("WA",),
    ),
    Program(
        "monkeypatch",
        "import builtins, sys\nbuiltins.AssertionError = type('Never', (Exception,), {})\n"
        "for name, module in list(sys.modules.items()):\n"
        "    if name.startswith('codegym'):\n        for attr in dir(module):\n"
        "            if attr in ('decode', 'decode_call', 'grade', '_run_tests', '_run_one'):\n"
        "                setattr(module, attr, lambda *a, **k: True)\n"
        "def {entry}(*args, **kwargs):\n    return None\n",
        ("RE",),
    ),
    Program("channel-garbage", "import os\nos.write(4, b'\\xff' * 64)\n", ("HACK",)),
    Program(
        "forged-reply",
        "import os, struct, json\n"
        "body = json.dumps({'d': [['kind', 'ready'], ['functions', []]]}).encode()\n"
        "os.write(4, struct.pack('!I', len(body)) + body)\n"
        "reply = json.dumps({'d': [['kind', 'pass']]}).encode()\n"
        "while True:\n    os.write(4, struct.pack('!I', len(reply)) + reply)\n",
        ("HACK",),
    ),
)
PYTHON_WRONG = (
    Program("return-none", "def {entry}(*args, **kwargs):\n    return None\n", ("WA",)),
    Program("raise", "def {entry}(*args, **kwargs):\n    raise ValueError('no idea')\n", ("WA", "RE")),
    Program("syntax-error", "def {entry}(*args, **kwargs)\n    return None\n", ("CE",)),
)

STDIO_HOSTILE = (  # (tests/envs/stdio_program/programs.py, tests/executor/test_contract.py)
    Program("spin", "while True:\n    pass\n", ("TLE",)),
    Program("sleep", "import time\ntime.sleep(100)\n", ("TLE",)),
    Program("memory-growth", "hoard = []\nwhile True:\n    hoard.append(bytearray(1 << 20))\n", ("MLE",)),
    Program(
        "fork-bomb",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        ("TLE",),
    ),
    Program("output-flood", "while True:\n    print('x' * 1000)\n", ("OLE",)),
    Program("huge-file", "open('big', 'wb').write(b'x' * (8 << 20))\nprint(0)\n", ("OLE",)),
    Program("network", "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\n", ("SEC",)),
    Program(
        "daemon",
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(1)\nprint(0)\n",
        ("WA",),
    ),
    Program("plant-files", _plant("'/sandbox/x'") + "print(0)\n", ("WA",)),
    Program(
        "read-host-files",
        "for p in ['/etc/shadow', '/root/.bash_history', '/proc/1/environ']:\n"
        "    try:\n        print(open(p).read())\n    except OSError:\n        pass\nprint(0)\n",
        ("WA",),
    ),
    Program(
        "kill-parent",
        "import os, signal\nfor pid in (os.getppid(), 1, -1):\n    try:\n        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError:\n        pass\nprint(0)\n",
        ("WA",),
    ),
)
STDIO_WRONG = (
    Program("print-zero", "print(0)\n", ("WA",)),
    Program("exit-3", "import sys\nsys.exit(3)\n", ("RE",)),
    Program("syntax-error", "print(0\n", ("CE",)),
)

C_HOSTILE = (
    Program("spin", "int main(void) { volatile long i = 0; for (;;) i++; }\n", ("TLE",)),
    Program("fork-bomb", "#include <unistd.h>\nint main(void) { for (;;) fork(); }\n", ("TLE",)),
    Program(
        "memory-hog",
        "#include <stdlib.h>\nint main(void) { volatile char *p = malloc(1L << 30); "
        "for (long i = 0; i < (1L << 30); i += 4096) p[i] = 1; return 0; }\n",
        ("MLE",),
    ),
    Program(
        "output-flood", '#include <stdio.h>\nint main(void) { for (;;) puts("xxxxxxxxxxxxxxxxxxxxxxxx"); }\n', ("OLE",)
    ),
    Program(
        "kill-everything",
        "#include <signal.h>\n#include <stdio.h>\n#include <unistd.h>\n"
        'int main(void) { kill(getppid(), SIGKILL); kill(1, SIGKILL); kill(-1, SIGKILL); puts("0"); return 0; }\n',
        ("WA",),
    ),
)
C_WRONG = (
    Program("print-zero", '#include <stdio.h>\nint main(void) { puts("0"); return 0; }\n', ("WA",)),
    Program("null-deref", "#include <stddef.h>\nint main(void) { int *p = NULL; return *p; }\n", ("RE",)),
    Program("syntax-error", "#include <stdio.h>\nint main(void) { long a b; return 0; }\n", ("CE",)),
)

MUX2 = "module TopModule(input [7:0] a, input [7:0] b, input sel, output [7:0] y);\n"


def _mux2(*lines: str, right: bool = True) -> str:
    body = "  assign y = sel ? b : a;\n" if right else "  assign y = a;\n"
    return MUX2 + body + "".join(f"  {line}\n" for line in lines) + "endmodule\n"


VERILOG_HOSTILE = (  # on codegym-verilog/mux2 (tests/envs/verilog/test_attacks.py)
    Program("finish-at-0", _mux2("initial $finish;", right=False), ("HACK",)),
    Program("fake-summary", _mux2('initial $display("Mismatches: 0 in 62 samples");', right=False), ("HACK",)),
    Program("read-the-reference", MUX2 + "  assign y = tb.y_ref;\nendmodule\n", ("HACK",)),
    Program("system", _mux2('initial $system("ls");'), ("HACK",)),
    Program("fopen", _mux2('integer f; initial f = $fopen("tb.sv", "r");'), ("HACK",)),
    Program("output-flood", _mux2('always @(a) repeat (2000) $display("%0600d", a);'), ("OLE",)),
    Program("hang", _mux2("initial forever #0 ;"), ("TLE",)),
    Program(
        "memory-hog",
        _mux2(
            "reg [63:0] hoard [0:(1<<26)-1];", "integer i;", "initial for (i = 0; i < (1<<26); i = i + 1) hoard[i] = i;"
        ),
        ("MLE",),
    ),
)


def _verilog_zero(task: Task) -> str:
    """The task's interface with every output tied to 0: wrong, and it compiles."""
    ports = task.metadata["ports"]
    decl = ", ".join(f"{p.direction} {f'[{p.width - 1}:0] ' if p.width > 1 else ''}{p.name}" for p in ports)
    ties = "".join(f"  assign {p.name} = '0;\n" for p in ports if p.direction == "output")
    return f"module TopModule({decl});\n{ties}endmodule\n"


VERILOG_WRONG = (
    Program("outputs-zero", _verilog_zero, ("WA",)),
    Program("no-endmodule", lambda task: (task.reference or "").rsplit("endmodule", 1)[0], ("CE",)),
)

TRITON_HEAD = "import torch\nimport torch.nn as nn\nimport triton\nimport triton.language as tl\n\n\n"
TRITON_KERNEL = """@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(a_ptr + offsets, mask=mask) + tl.load(b_ptr + offsets, mask=mask), mask=mask)


"""
TRITON_LAUNCH = "add_kernel[(triton.cdiv(a.numel(), 256),)](a, b, out, a.numel(), BLOCK=256)"
TRITON_PARTIAL_LAUNCH = "add_kernel[(max(1, triton.cdiv(a.numel(), 256) - 1),)](a, b, out, a.numel(), BLOCK=256)"


def _vector_add(body: str, kernel: str = TRITON_KERNEL) -> str:
    """A submission for codegym-triton/vector_add whose forward(a, b) is ``body``."""
    forward = "\n".join("        " + line for line in body.strip("\n").splitlines())
    return (
        f"{TRITON_HEAD}{kernel}class ModelNew(nn.Module):\n    def __init__(self):\n        super().__init__()\n\n"
        f"    def forward(self, a, b):\n{forward}\n"
    )


TRITON_CORRECT = _vector_add(
    f"a, b = a.contiguous(), b.contiguous()\nout = torch.empty_like(a)\n{TRITON_LAUNCH}\nreturn out"
)
TRITON_HOSTILE = (  # on codegym-triton/vector_add (tests/envs/triton_kernel/test_attacks.py)
    Program("spin", _vector_add("while True:\n    pass"), ("TLE",)),
    Program(
        "out-of-bounds",
        _vector_add(
            f"out = torch.empty_like(a)\n{TRITON_LAUNCH}\nreturn out",
            TRITON_KERNEL.replace("tl.store(out_ptr + offsets,", "tl.store(out_ptr + offsets * 100000000,").replace(
                ", mask=mask)\n\n\n", ")\n\n\n"
            ),
        ),
        ("RE",),
    ),
    Program("no-kernel", _vector_add("return torch.zeros_like(a)"), ("HACK",)),
    Program("import-os", "import os\nos.system('true')\n" + TRITON_CORRECT, ("HACK",)),
    Program(
        "memory-hog",
        _vector_add(
            f"hoard = torch.ones(1 << 31, dtype=torch.uint8)\nout = torch.empty_like(a)\n{TRITON_LAUNCH}\nreturn out"
        ),
        ("MLE",),
    ),
    Program(
        "read-a-file", TRITON_CORRECT.replace("return out", "open('/etc/shadow').read()\n        return out"), ("HACK",)
    ),
)
TRITON_WRONG = (
    Program(
        "partial-grid",
        _vector_add(f"out = torch.empty_like(a)\n{TRITON_PARTIAL_LAUNCH}\nreturn out"),
        ("WA",),
    ),
    Program("syntax-error", lambda task: (task.reference or "").replace("def forward", "def forward(", 1), ("CE",)),
)


@dataclass(frozen=True)
class Family:
    """One env of the mix: its id and options, its share of the non-hostile jobs, its
    wrong answers and hostile programs (aimed at ``target``, or at every task in turn)."""

    key: str
    env_id: str
    share: float
    options: dict[str, Any]
    wrong: tuple[Program, ...]
    hostile: tuple[Program, ...]
    target: str | None = None
    triton: bool = False


FAMILIES = (
    Family("python", "codegym/PythonFunction-v0", 0.40, {"limits": FAST}, PYTHON_WRONG, PYTHON_HOSTILE),
    Family("stdio", "codegym/StdioProgram-v0", 0.20, {"limits": FAST}, STDIO_WRONG, STDIO_HOSTILE),
    Family("stdio-c", "codegym/StdioProgram-v0", 0.05, {"limits": FAST, "language": "c"}, C_WRONG, C_HOSTILE),
    Family(
        "verilog",
        "codegym/Verilog-v1",
        0.30,
        {"limits": VERILOG_LIMITS},
        VERILOG_WRONG,
        VERILOG_HOSTILE,
        target="codegym-verilog/mux2",
    ),
    Family(
        "triton",
        "codegym/TritonKernel-v0",
        0.05,
        {"limits": TRITON_LIMITS, "device": "cpu"},
        TRITON_WRONG,
        TRITON_HOSTILE,
        target="codegym-triton/vector_add",
        triton=True,
    ),
)


@dataclass(frozen=True)
class Planned:
    family: str
    kind: str  # "correct", "wrong" or "hostile"
    name: str  # the program's name ("reference" for a correct answer)
    task_id: str
    answer: str
    expected: tuple[str, ...]


def plan(tasks: dict[str, list[Task]], jobs: int, hostile: float, seed: int) -> list[Planned]:
    """``jobs`` jobs: ``hostile`` of them the hostile programs in turn, the rest split by
    family share, 70% references and 30% wrong answers; in a seeded shuffled order."""
    out: list[Planned] = []
    attacks = [(family, program) for family in FAMILIES for program in family.hostile]
    n_hostile = round(jobs * hostile)
    for k in range(n_hostile):
        family, program = attacks[k % len(attacks)]
        task = _task(tasks[family.key], family.target, k // len(attacks))
        out.append(Planned(family.key, "hostile", program.name, task.id, program.render(task), program.expected))
    for family, count in zip(FAMILIES, _apportion(jobs - n_hostile, [f.share for f in FAMILIES]), strict=True):
        pool = [t for t in tasks[family.key] if t.reference]
        for k in range(count):
            if k % 10 < 7:
                task = pool[(k - 3 * (k // 10)) % len(pool)]
                out.append(Planned(family.key, "correct", "reference", task.id, task.reference or "", ("OK",)))
            else:
                w = 3 * (k // 10) + k % 10 - 7  # (the how-manieth wrong answer)
                program = family.wrong[w % len(family.wrong)]
                task = _task(pool, family.target if program.name == "partial-grid" else None, w // len(family.wrong))
                out.append(Planned(family.key, "wrong", program.name, task.id, program.render(task), program.expected))
    random.Random(seed).shuffle(out)
    return out


def _cycle(tasks: list[Task], count: int) -> list[Task]:
    return [tasks[k % len(tasks)] for k in range(count)]


def _task(tasks: list[Task], target: str | None, k: int) -> Task:
    if target is not None:
        return next(t for t in tasks if t.id == target)
    return tasks[k % len(tasks)]


def _apportion(total: int, shares: Sequence[float]) -> list[int]:
    """``total`` split by ``shares`` (largest remainders)."""
    exact = [total * s / sum(shares) for s in shares]
    counts = [int(x) for x in exact]
    for i in sorted(range(len(exact)), key=lambda i: counts[i] - exact[i])[: total - sum(counts)]:
        counts[i] += 1
    return counts


# --- what the machine holds ----------------------------------------------------------------


def _processes() -> dict[int, dict[str, str]]:
    """Every process's /proc/PID/status fields (threads are not listed)."""
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{name}/status") as handle:
                found[int(name)] = {k: v.strip() for k, v in (line.split(":", 1) for line in handle if ":" in line)}
    return found


def _descendants(root: int, table: dict[int, dict[str, str]]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, status in table.items():
        children.setdefault(int(status.get("PPid", "0")), []).append(pid)
    out, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _uid(status: dict[str, str]) -> int:
    return int(status.get("Uid", "-1").split()[0])


def _alive(status: dict[str, str]) -> bool:
    """Not dead yet (a zombie or a stopped process counts: `_settle` gives them time to go)."""
    return status.get("State", "X")[:1] != "X"


def _describe(pid: int, status: dict[str, str]) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()[:120]
    except OSError:
        cmdline = ""
    return f"pid {pid} {status.get('Name', '?')} uid {_uid(status)} state {status.get('State', '?')}: {cmdline}"


def _mounts() -> Counter[str]:
    """This mount namespace's mounts: mount point, options, type and source (not the ids)."""
    with open("/proc/self/mountinfo") as handle:
        lines = handle.read().splitlines()
    return Counter(" ".join(line.split()[3:]) for line in lines)


def _fds() -> dict[int, str]:
    out = {}
    for name in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            out[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return out


def _entries(folder: str) -> dict[str, int]:
    """The entries of ``folder`` and their owners."""
    out = {}
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            with contextlib.suppress(OSError):
                out[entry.path] = entry.stat(follow_symlinks=False).st_uid
    return out


CGROUP_PARENTS = ("/sys/fs/cgroup/codegym", "/sys/fs/cgroup/memory/codegym", "/sys/fs/cgroup/pids/codegym")


def _cgroups(prefixes: Sequence[str]) -> list[str]:
    """The cgroup folders whose names start with one of ``prefixes`` (an executor's)."""
    return [
        f"{parent}/{name}"
        for parent in CGROUP_PARENTS
        if os.path.isdir(parent)
        for name in os.listdir(parent)
        if name.startswith(tuple(prefixes))
    ]


def _rss_kib(status: dict[str, str]) -> int:
    return int(status.get("VmRSS", "0 kB").split()[0])


def worker_memory(executors: Sequence[LocalExecutor]) -> dict[str, int]:
    """Each warm worker's memory in KiB: the RSS of its supervisor and of its fork server
    (the long-lived processes; a step's are fresh forks), keyed ``name/pid``."""
    table = _processes()
    out = {}
    for executor in executors:
        for pid in executor.worker_pids():
            init = [p for p in _descendants(pid, table) if table[p].get("Name") == "codegym-init"]
            out[f"{_label(executor)}/{pid}"] = _rss_kib(table.get(pid, {})) + sum(_rss_kib(table[p]) for p in init)
    return out


def _label(executor: LocalExecutor) -> str:
    return "triton" if type(executor).__name__ == "TritonExecutor" else "local"


@dataclass(frozen=True)
class Snapshot:
    processes: frozenset[int]  # descendants of this process
    mounts: Counter[str]
    fds: dict[int, str]
    system_temp: dict[str, int]

    @classmethod
    def take(cls, system_temp: Sequence[str]) -> Snapshot:
        table = _processes()
        entries = {path: uid for folder in system_temp for path, uid in _entries(folder).items()}
        return cls(frozenset(_descendants(os.getpid(), table)), _mounts(), _fds(), entries)


def sandbox_leftovers(uids: set[int]) -> list[str]:
    """Live processes of a submission's uid but the idle ones of each fork server: its spare
    and the spare's keeper (two under each ``codegym-init``)."""
    table = _processes()
    idle: dict[int, list[int]] = {}
    found = []
    for pid, status in table.items():
        if _uid(status) not in uids or not _alive(status):
            continue
        parent = int(status.get("PPid", "0"))
        if (
            status.get("Name") in ("codegym-spare", "codegym-keeper")
            and table.get(parent, {}).get("Name") == "codegym-init"
        ):
            idle.setdefault(parent, []).append(pid)
        else:
            found.append(pid)
    found += [pid for pids in idle.values() if len(pids) > 2 for pid in pids]
    return [_describe(pid, table[pid]) for pid in sorted(found)]


# --- the run -------------------------------------------------------------------------------


@dataclass
class Report:
    jobs: int
    elapsed_s: float = 0.0
    warmup_jobs: int = 0
    counts: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # (family, kind, status)
    failures: list[str] = field(default_factory=list)
    surprises: Counter[tuple[str, str, str]] = field(default_factory=Counter)  # hostile (family, name, status)
    rss_kib: dict[str, list[int]] = field(default_factory=dict)  # worker -> [start, half way, end]
    leaks: dict[str, list[str]] = field(default_factory=dict)
    sizes: dict[str, tuple[int, int]] = field(default_factory=dict)  # what -> (before, after)
    notes: list[str] = field(default_factory=list)
    stats: dict[str, dict[str, int]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failures

    def render(self) -> str:
        lines = [f"{self.jobs} jobs (+{self.warmup_jobs} warm-up) in {self.elapsed_s:.1f} s: "
                 f"{self.jobs / max(self.elapsed_s, 1e-9):.1f} jobs/s on {os.cpu_count()} cores"]  # fmt: skip
        columns = [c for c in STATUS_COLUMNS if any(k[2] == c for k in self.counts)]
        lines.append(f"{'family':<9} {'kind':<8} {'jobs':>6} " + " ".join(f"{c:>5}" for c in columns))
        for family in FAMILIES:
            for kind in ("correct", "wrong", "hostile"):
                row = [self.counts[family.key, kind, c] for c in columns]
                if sum(row):
                    lines.append(f"{family.key:<9} {kind:<8} {sum(row):>6} " + " ".join(f"{n:>5}" for n in row))
        total = [sum(n for k, n in self.counts.items() if k[2] == c) for c in columns]
        lines.append(f"{'all':<9} {'':<8} {sum(total):>6} " + " ".join(f"{n:>5}" for n in total))
        lines.append(
            f"worker memory (supervisor + fork server RSS, MiB; bound: +{GROWTH_BOUND_MIB:.0f} MiB per worker):"
        )
        for worker, (start, half, end) in self.rss_kib.items():
            lines.append(
                f"  {worker:<14} start {start / 1024:7.1f}  half way {half / 1024:7.1f}  end {end / 1024:7.1f}  "
                f"growth {(end - start) / 1024:+6.1f} MiB ({end / max(start, 1):.3f}x)"
            )
        for name, counters in self.stats.items():
            lines.append(f"executor {name}: " + ", ".join(f"{k} {v}" for k, v in counters.items()))
        lines.append("before the executors started -> after they closed: " + ", ".join(
            f"{what} {a} -> {b}" for what, (a, b) in self.sizes.items()))  # fmt: skip
        for what, found in self.leaks.items():
            lines.append(f"leaked {what}: {len(found)}")
            lines += [f"    {item}" for item in found[:20]]
        lines += self.notes
        if self.surprises:
            lines.append("hostile jobs with another status than the test suites expect (not a failure):")
            lines += [f"    {f}/{name}: {status} x{n}" for (f, name, status), n in sorted(self.surprises.items())]
        lines.append("checks: " + ("all passed" if self.ok else f"{len(self.failures)} FAILED"))
        lines += [f"  FAILED: {failure}" for failure in self.failures]
        return "\n".join(lines)


@contextlib.contextmanager
def private_tempdir() -> Iterator[str]:
    """A temporary folder of the run's own, as the process's default while it lasts: the
    executors' scratch folders are made there, so anything left in it is theirs."""
    saved = tempfile.tempdir
    path = tempfile.mkdtemp(prefix="codegym-soak-")
    tempfile.tempdir = path
    try:
        yield path
    finally:
        tempfile.tempdir = saved
        shutil.rmtree(path, ignore_errors=True)


def _grade(future: Future[Grade]) -> str:
    try:
        return future.result().status.value
    except Exception as e:  # a grading that raised is a finding, reported with the rest
        return f"ERROR {type(e).__name__}: {str(e)[:300]}"


def _check(report: Report, job: Planned, status: str) -> None:
    status_name = "ERROR" if status.startswith("ERROR") else status
    report.counts[job.family, job.kind, status_name] += 1
    what = f"{job.family}/{job.kind}/{job.name} on {job.task_id}"
    if status_name in ("IE", "ERROR"):
        report.failures.append(f"{what}: {status}")
    elif job.kind == "correct" and status != "OK":
        report.failures.append(f"{what}: {status}, expected OK")
    elif job.kind != "correct" and status == "OK":
        report.failures.append(f"{what}: OK, expected {'/'.join(job.expected)}")
    elif job.kind == "hostile" and status not in job.expected:
        report.surprises[job.family, job.name, status] += 1


def run(
    jobs: int = 10_000,
    hostile: float = 0.1,
    seed: int = 0,
    *,
    workers: int | None = None,
    out: Callable[[str], None] = print,
) -> Report:
    """The soak: warm up, run ``jobs`` mixed jobs, close the executors, check (see the module
    docstring). ``workers`` per executor (one per core by default); progress goes to ``out``."""
    if jobs < 1 or not 0.0 <= hostile <= 1.0:
        raise ValueError(f"jobs must be >= 1 and hostile in [0, 1], got {jobs} and {hostile}")
    from codegym.envs.triton_kernel.sandbox import TritonExecutor

    report = Report(jobs)
    system_temp = [tempfile.gettempdir(), "/dev/shm"]
    with private_tempdir() as scratch:
        before = Snapshot.take(system_temp)
        local, triton = LocalExecutor(workers), TritonExecutor(workers, interpret=True)
        executors: list[LocalExecutor] = [local, triton]
        uids = set().union(*(e.submission_uids() for e in executors))
        cgroup_prefixes = [f"{os.getpid()}.{e.serial}." for e in executors]
        scorers: dict[str, codegym.Scorer] = {}
        try:
            for f in FAMILIES:
                executor = triton if f.triton else local
                scorers[f.key] = codegym.Scorer(f.env_id, dedupe=False, executor=executor, on_infra_error="flag",
                                                **f.options)  # fmt: skip
            local.ensure_preloaded(p for s in scorers.values() if s.env.executor is local for p in s.env.preload)
            tasks = {f.key: list(scorers[f.key].env.tasks) for f in FAMILIES}
            _soak(report, scorers, executors, tasks, plan(tasks, jobs, hostile, seed), out)
            report.leaks["sandbox processes at idle"] = _settle(lambda: sandbox_leftovers(uids))
        finally:
            for scorer in scorers.values():
                scorer.close()
            for e in executors:
                e.close()
        _after_close(report, before, uids, cgroup_prefixes, scratch, system_temp)
    report.failures += [f"leaked {what}: {len(found)}" for what, found in report.leaks.items() if found]
    return report


def _warm_up_jobs(tasks: dict[str, list[Task]], workers: int) -> list[Planned]:
    """Every wrong and hostile program once, and ``workers`` references of each family (an
    executor hands jobs to its idle workers in turn, so that many start every worker)."""
    warm = []
    for f in FAMILIES:
        for kind, programs in (("wrong", f.wrong), ("hostile", f.hostile)):
            for p in programs:
                task = _task(tasks[f.key], f.target if kind == "hostile" or p.name == "partial-grid" else None, 0)
                warm.append(Planned(f.key, kind, p.name, task.id, p.render(task), p.expected))
        for t in _cycle(tasks[f.key], max(4, workers)):
            warm.append(Planned(f.key, "correct", "reference", t.id, t.reference or "", ("OK",)))
    return warm


def _soak(
    report: Report,
    scorers: dict[str, codegym.Scorer],
    executors: list[LocalExecutor],
    tasks: dict[str, list[Task]],
    planned: list[Planned],
    out: Callable[[str], None],
) -> None:
    """Warm up, then score ``planned`` (all submitted at once, checked in order) and compare
    the workers before and after."""
    warm = _warm_up_jobs(tasks, max(e.workers for e in executors))
    out(f"warm-up: {len(warm)} jobs (every program once, references on every worker)")
    warm_report = Report(len(warm))
    for job, future in [(j, scorers[j.family].submit(j.task_id, j.answer)) for j in warm]:
        _check(warm_report, job, _grade(future))
    report.warmup_jobs = len(warm)
    report.failures += [f"warm-up: {f}" for f in warm_report.failures]
    rss = [worker_memory(executors)]
    pids = {_label(e): e.worker_pids() for e in executors}
    stats = {_label(e): dict(e.stats) for e in executors}

    jobs = len(planned)
    out(f"running {jobs} jobs ({sum(j.kind == 'hostile' for j in planned)} hostile) ...")
    started = time.perf_counter()
    futures = [scorers[j.family].submit(j.task_id, j.answer) for j in planned]
    for i, (job, future) in enumerate(zip(planned, futures, strict=True), start=1):
        _check(report, job, _grade(future))
        if i in (jobs // 2, jobs):
            rss.append(worker_memory(executors))
        if i % max(1, jobs // 10) == 0 or i == jobs:
            out(f"  {i:>6}/{jobs} jobs, {i / (time.perf_counter() - started):6.1f} jobs/s")
    report.elapsed_s = time.perf_counter() - started

    for worker in rss[0]:
        report.rss_kib[worker] = [sample.get(worker, 0) for sample in (rss[0], rss[len(rss) // 2], rss[-1])]
        start, end = report.rss_kib[worker][0], rss[-1].get(worker)
        if end is not None and (end - start) / 1024 >= GROWTH_BOUND_MIB:
            report.failures.append(f"worker {worker} grew by {(end - start) / 1024:.1f} MiB")
    for e in executors:
        name = _label(e)
        report.stats[name] = {k: v - stats[name].get(k, 0) for k, v in e.stats.items()}
        if e.worker_pids() != pids[name]:
            report.failures.append(f"{name} workers restarted or started late: {pids[name]} -> {e.worker_pids()}")
        if report.stats[name].get("retries"):
            report.failures.append(f"{name}: {report.stats[name]['retries']} jobs retried after a worker fault")


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _settle(find: Callable[[], list[str]]) -> list[str]:
    """What ``find`` still finds after up to SETTLE_S (what dies is given time to)."""
    deadline = time.monotonic() + SETTLE_S
    found = find()
    while found and time.monotonic() < deadline:
        time.sleep(0.2)
        found = find()
    return found


def _after_close(
    report: Report, before: Snapshot, uids: set[int], cgroups: list[str], scratch: str, system_temp: list[str]
) -> None:
    def processes() -> list[str]:
        table = _processes()
        new = (_descendants(os.getpid(), table) - before.processes) | {p for p, s in table.items() if _uid(s) in uids}
        return [_describe(p, table[p]) for p in sorted(new) if p in table and _alive(table[p])]

    report.leaks["processes"] = _settle(processes)
    after = Snapshot.take(system_temp)
    report.sizes = {
        "descendant processes": (len(before.processes), len(after.processes)),
        "mounts": (sum(before.mounts.values()), sum(after.mounts.values())),
        "open fds": (len(before.fds), len(after.fds)),
        "entries in " + " and ".join(system_temp): (len(before.system_temp), len(after.system_temp)),
    }
    # Every mount of a worker's view is made under its folder in the scratch folder, in the
    # worker's own mount namespace; a new mount elsewhere is another process's (a Docker engine's).
    new_mounts = sorted((after.mounts - before.mounts).elements())
    report.leaks["mounts"] = [m for m in new_mounts if _inside(m.split()[1], scratch)]
    others = [m for m in new_mounts if m not in report.leaks["mounts"]]
    if others:
        report.notes.append(f"{len(others)} new mounts in this namespace outside the run's folders (not its own):")
        report.notes += [f"    {m[:160]}" for m in others[:10]]
    report.leaks["cgroups"] = _settle(lambda: _cgroups(cgroups))
    report.leaks["file descriptors"] = [f"fd {fd} -> {target}" for fd, target in sorted(after.fds.items())
                                        if before.fds.get(fd) != target]  # fmt: skip
    report.leaks["temporary files"] = sorted(_entries(scratch))
    report.leaks["files of a submission's uid in " + " and ".join(system_temp)] = sorted(
        path
        for path, uid in after.system_temp.items()
        if path not in before.system_temp and (uid in uids or "codegym-soak-planted" in path)
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--hostile", type=float, default=0.1, help="share of hostile jobs (default 0.1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=None, help="per executor (default: one per core)")
    args = parser.parse_args(argv)
    report = run(args.jobs, args.hostile, args.seed, workers=args.workers)
    print(report.render())
    sys.stdout.flush()
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
