"""The `container` tier has no namespace of its own: what a container holds (its services'
unix sockets, its one disk, its PID 1) is within a step's reach unless the tier keeps it
out. Here on the host's `container` tier (root without namespaces); the same attacks run
inside a real default ``docker run`` in ``test_container_docker.py``."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Callable, Iterator

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)
from codegym.executor import Executor, Job, Limits, Step
from codegym.task import Task, TaskSet, TestCase

ADD = Task(
    id="container/add",
    family="PythonFunction",
    prompt='def add(a: int, b: int) -> int:\n    """Return a + b."""\n',
    tests=(TestCase("test_00", "assert add(1, 2) == 3", hidden=False), TestCase("test_01", "assert add(-5, 5) == 0")),
    metadata={"entry_point": "add", "prefix": "", "test_prelude": ""},
)
A_PLUS_B = Task(
    id="container/a-plus-b",
    family="StdioProgram",
    prompt="Read two integers a and b; print a + b.",
    tests=(TestCase("test_00", "2 3\n", hidden=False, expected="5\n"), TestCase("test_01", "-4 10\n", expected="6\n")),
    metadata={"checker": {"kind": "tokens"}},
)
ABSTRACT = "codegym-test-service"


class Service:
    """A service of the container: a stream socket at a world-writable path in its /tmp, one
    in the abstract namespace and a datagram one at a path, each counting who reached it
    (and answering "yes" on the stream ones)."""

    def __init__(self, folder: str) -> None:
        self.stream_path = os.path.join(folder, "service.sock")
        self.datagram_path = os.path.join(folder, "service-dgram.sock")
        self.reached: list[str] = []
        self.sockets = []
        for address, kind in ((self.stream_path, socket.SOCK_STREAM), ("\0" + ABSTRACT, socket.SOCK_STREAM),
                              (self.datagram_path, socket.SOCK_DGRAM)):  # fmt: skip
            sock = socket.socket(socket.AF_UNIX, kind)
            sock.bind(address)
            if not address.startswith("\0"):
                os.chmod(address, 0o666)
            if kind == socket.SOCK_STREAM:
                sock.listen(8)
            sock.settimeout(0.2)
            self.sockets.append(sock)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            for sock in self.sockets:
                try:
                    if sock.type == socket.SOCK_DGRAM:
                        self.reached.append(f"datagram {sock.recv(64)!r}")
                        continue
                    connection, _ = sock.accept()
                except OSError:
                    continue
                self.reached.append(f"stream {sock.getsockname()!r}")
                connection.sendall(b"yes")
                connection.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def service() -> Iterator[Service]:
    folder = tempfile.mkdtemp(prefix="codegym-service-")
    os.chmod(folder, 0o755)
    running = Service(folder)
    yield running
    running.close()
    for path in (running.stream_path, running.datagram_path):
        os.unlink(path)
    os.rmdir(folder)


@pytest.fixture(scope="module")
def container(tier_executors: Callable[[str], Executor]) -> Executor:
    return tier_executors("container")


def python_reaching(service: Service) -> str:
    """A PythonFunction answer that is right only where it reached the service."""
    return (
        "import socket\n"
        "def reach():\n"
        "    heard = []\n"
        f"    for address in ({service.stream_path!r}, '\\0{ABSTRACT}'):\n"
        "        try:\n"
        "            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "            sock.connect(address)\n"
        "            heard.append(sock.recv(3))\n"
        "        except OSError:\n"
        "            pass\n"
        "    for make in (lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM),\n"
        "                 lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0]):\n"
        "        try:\n"
        f"            make().sendto(b'hello', {service.datagram_path!r})\n"
        "            heard.append(b'yes')\n"
        "        except OSError:\n"
        "            pass\n"
        "    return heard\n"
        "def add(a, b):\n"
        "    return a + b if reach() else None\n"
    )


def c_reaching(service: Service) -> str:
    """A StdioProgram in C that prints the sum only where it reached the service."""
    return (
        "#include <stdio.h>\n#include <string.h>\n#include <sys/socket.h>\n#include <sys/un.h>\n#include <unistd.h>\n"
        "static int reach(const char *path, int abstract) {\n"
        "    struct sockaddr_un a; memset(&a, 0, sizeof a); a.sun_family = AF_UNIX;\n"
        "    strcpy(a.sun_path + abstract, path);\n"
        "    int fd = socket(AF_UNIX, SOCK_STREAM, 0); if (fd < 0) return 0;\n"
        "    socklen_t n = sizeof(a.sun_family) + abstract + strlen(path);\n"
        "    char yes[3]; return connect(fd, (struct sockaddr *)&a, n) == 0 && read(fd, yes, 3) == 3;\n"
        "}\n"
        "int main(void) {\n"
        '    long x, y; if (scanf("%ld %ld", &x, &y) != 2) return 1;\n'
        f'    int reached = reach("{service.stream_path}", 0) + reach("{ABSTRACT}", 1);\n'
        '    if (reached) printf("%ld\\n", x + y);\n'
        "    return 0;\n"
        "}\n"
    )


def test_a_step_reaches_no_unix_socket_of_the_container(container: Executor, service: Service) -> None:
    python = gym.make("codegym/PythonFunction-v0", tasks=TaskSet([ADD]), executor=container)
    python.reset(seed=0)
    _, python_reward, _, _, python_info = python.step(python_reaching(service))
    c = gym.make("codegym/StdioProgram-v0", tasks=TaskSet([A_PLUS_B]), language="c", executor=container)
    c.reset(seed=0)
    _, c_reward, _, _, c_info = c.step(c_reaching(service))
    assert (python_info["status"], python_reward) == ("WA", 0.0), python_info["grade"].feedback()
    assert (c_info["status"], c_reward) == ("WA", 0.0), c_info["grade"].feedback()
    assert service.reached == []


def test_sockets_within_a_step_still_work(container: Executor) -> None:
    """Stream and seqpacket socket pairs (what runtimes use among their own processes), and a
    stream socket bound and listening in the work dir (Chromium's profile lock); never a
    connection, nor a datagram socket (which could send to any path)."""
    source = (
        "import socket\n"
        "for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):\n"
        "    a, b = socket.socketpair(socket.AF_UNIX, kind)\n"
        "    a.sendall(b'ping')\n"
        "    print(b.recv(4).decode())\n"
        "server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "server.bind('lock.sock')\n"
        "server.listen(1)\n"
        "attempts = [lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect('lock.sock'),\n"
        "            lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM),\n"
        "            lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)]\n"
        "for attempt in attempts:\n"
        "    try:\n"
        "        attempt()\n"
        "    except PermissionError:\n"
        "        print('refused')\n"
    )
    job = Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()}, limits=Limits())
    step = container.run(job).steps[0]
    assert (step.exit_code, step.stdout) == (0, b"ping\nping\n" + b"refused\n" * 3), step.stderr


# A job that writes far past its disk quota (files of 4 MiB, the most RLIMIT_FSIZE lets it), in
# its work dir and its /tmp; and one that keeps 6 MiB in each, written again and again.
FILL = (
    "import os\nfor folder in ('.', os.environ.get('TMPDIR', '/tmp')):\n    for i in range(30):\n"
    "        with open(os.path.join(folder, f'fill{i}'), 'wb') as f:\n            f.write(b'x' * (4 << 20))\n"
)
HONEST = (
    "import os, time\nfor n in range(20):\n    for folder in ('.', os.environ.get('TMPDIR', '/tmp')):\n"
    "        with open(os.path.join(folder, f'h{n % 3}'), 'wb') as f:\n            f.write(b'y' * (2 << 20))\n"
    "    time.sleep(0.05)\nprint('ok')\n"
)
QUOTA = Limits(disk_bytes=16 << 20, file_size_bytes=4 << 20, wall_s=20, cpu_s=10)


def _python_job(source: str) -> Job:
    return Job(steps=(Step(argv=("python", "main.py")),), files={"main.py": source.encode()}, limits=QUOTA)


def test_a_job_past_its_disk_quota_is_stopped_and_costs_no_other_job(container: Executor) -> None:
    hog, fair = container.submit(_python_job(FILL)), container.submit(_python_job(HONEST))
    hog_step, fair_step = hog.result().steps[0], fair.result().steps[0]
    assert hog_step.limit == "disk" and hog_step.exit_code is None
    assert (fair_step.exit_code, fair_step.stdout) == (0, b"ok\n"), fair_step.stderr
    after = container.run(_python_job("import os\nprint(sorted(os.listdir('.')))\n")).steps[0]
    assert after.stdout == b"['main.py']\n"


def test_a_function_past_its_disk_quota_is_OLE(container: Executor) -> None:
    env = gym.make("codegym/PythonFunction-v0", tasks=TaskSet([ADD]), executor=container, limits=QUOTA)
    env.reset(seed=0)
    _, reward, _, _, info = env.step(FILL + "def add(a, b):\n    return a + b\n")
    assert (info["status"], reward) == ("OLE", 0.0)
    assert "disk quota exceeded" in info["grade"].feedback()


def test_a_worker_that_cannot_start_is_retried_like_a_crashed_one(tier_options: Callable[[str], dict]) -> None:
    from codegym.error import SandboxError
    from codegym.executor.local import LocalExecutor

    executor = LocalExecutor(workers=1, **tier_options("container"))
    with executor:
        assert executor.run(_python_job("print(1)")).steps[0].stdout == b"1\n"
        worker = executor._pool[0]
        worker.stop()
        for name in os.listdir(worker.root):
            shutil.rmtree(os.path.join(worker.root, name))
        os.rmdir(worker.root)
        with open(worker.root, "w"):  # where its folder was: it cannot build its sandbox
            pass
        with pytest.raises(SandboxError, match=r"failed on 3 attempts; last fault: local worker 0 could not build"):
            executor.run(_python_job("print(2)"))
        assert executor.stats["retries"] == 3  # (each attempt a fault: none was the job's own)
        os.unlink(worker.root)
        os.mkdir(worker.root, 0o755)
        assert executor.run(_python_job("print(3)")).steps[0].stdout == b"3\n"


def test_a_workspace_command_is_held_to_the_workspace_s_quota(container: Executor) -> None:
    """A workspace's files count against its own quota (``disk_bytes`` of the workspace), not
    against that of each command's limits: a command of a small quota in a workspace that
    holds more still runs, and one that writes past the workspace's quota is stopped."""
    from codegym.executor.workspace import Layer

    small = Limits(disk_bytes=1 << 20, file_size_bytes=4 << 20, wall_s=20, cpu_s=10)
    workspace = container.open_workspace(Layer({"README.md": b"the task\n"}), disk_bytes=24 << 20)  # type: ignore[attr-defined]
    try:
        fill = "for f in a b c; do head -c 4000000 /dev/urandom > $f || exit 1; done"
        steps = [workspace.run(Job(steps=(Step(argv=("sh", "-c", script)),), limits=small)).steps[0]
                 for script in (fill, "ls | wc -l")]  # fmt: skip
        assert [step.limit for step in steps] == [None, None] and steps[1].stdout == b"4\n", steps
        flood = "for f in d e f g h i j k l m n o p; do head -c 4000000 /dev/urandom > $f || exit 1; done"
        assert workspace.run(Job(steps=(Step(argv=("sh", "-c", flood)),), limits=small)).steps[0].limit == "disk"
    finally:
        workspace.close()


def test_what_others_write_on_the_same_disk_counts_against_no_job(container: Executor) -> None:
    """The quota's statvfs trigger sees the whole file system grow; only a walk of the job's
    own folders stops it."""
    job = container.submit(_python_job("import time\nopen('kept', 'wb').write(b'k' * (4 << 20))\ntime.sleep(1.5)\n"))
    with tempfile.NamedTemporaryFile(dir=tempfile.gettempdir()) as other:  # (the folder the workers' lie in)
        for _ in range(48):
            other.write(b"o" * (4 << 20))
            other.flush()
            os.fsync(other.fileno())
        step = job.result().steps[0]
    assert (step.exit_code, step.limit) == (0, None), step
