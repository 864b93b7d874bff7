"""Agent workspaces: what a tool call, an episode reset and an idle episode cost, against the
ways one would do each without codegym.

    python benchmarks/workspace.py [--calls 200] [--resets 100] [--sessions 400] [--no-docker] [--isolation TIER]

Side by side, in one run, on a one-worker LocalExecutor (tier "auto") and, unless
``--no-docker``, a warm container of codegym's image on a Docker daemon (started when none
answers, as root):

- **Tool call.** The same ``bash`` command three ways: ``subprocess.run(["bash", "-c", ...])``
  on the host (no sandbox: the command's own time), a codegym ``bash`` tool call in an agent
  episode (fresh confined process tree in the workspace, output capped, every leftover
  killed), and ``docker exec`` into a warm container, each after 50 ms of rest (the model's
  turn: an agent never calls tools back to back). The overhead is each one's median minus
  subprocess's (goal for codegym: at most 5 ms).
- **Episode reset.** A task tree of 100 source files plus an installed environment (a
  thousand small files, as a package's site-packages) after an episode changed some files:
  codegym's `Workspace.reset` (drops the overlay's upper layer) against ``cp -a`` of the tree
  into a fresh folder (and removing the old) and against re-creating a container (``docker
  rm -f`` then ``docker run -d``). Goal for codegym: at most 20 ms.
- **Idle episodes per GiB.** Memory the machine gives up (anonymous, tmpfs and kernel memory) per open workspace
  that ran one command and wrote a file, against per idle container (``sleep``).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from codegym.agent import AgentEpisode, AgentLimits, AgentSetup
from codegym.executor import Job, Step
from codegym.executor.local import LocalExecutor
from codegym.executor.workspace import Layer
from codegym.tools.calls import ToolCall

PAUSE_S = 0.05  # before each call: the model's turn (an agent never calls tools back to back)
COMMANDS = {"true": "true", "echo": "echo hello", "ls+wc": "ls -R . | wc -l", "sleep 20ms": "sleep 0.02"}


def tree() -> dict[str, bytes]:
    """A task's files: 100 sources and an installed environment of 1000 small files."""
    files = {f"src/pkg/module_{i:03d}.py": f"def f_{i}(x):\n    return x + {i}\n".encode() * 20 for i in range(100)}
    for i in range(1000):
        files[f"env/lib/site-packages/dep_{i // 50}/mod_{i}.py"] = b"VALUE = 1\n" * 10
    return files


def write_tree(folder: str, files: dict[str, bytes]) -> None:
    for relative, content in files.items():
        path = Path(folder, relative)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def timed(function: Callable[[], Any], count: int, warm: int = 5, pause_s: float = 0.0) -> list[float]:
    """Wall times of ``count`` calls of ``function``, each after ``pause_s`` of rest."""
    for _ in range(warm):
        function()
    out = []
    for _ in range(count):
        time.sleep(pause_s)
        started = time.perf_counter()
        function()
        out.append(time.perf_counter() - started)
    return out


def memory_in_use() -> int:
    """Bytes of the machine's memory held by processes and the kernel for them: anonymous
    pages, tmpfs pages, kernel objects (mounts, inodes), page tables and kernel stacks (not
    the page cache, whose coming and going would drown an idle episode's few pages)."""
    with open("/proc/meminfo") as handle:
        fields = {name: int(value.split()[0]) * 1024 for name, value in (line.split(":", 1) for line in handle)}
    return sum(fields[name] for name in ("AnonPages", "Shmem", "Slab", "PageTables", "KernelStack"))


def tool_calls(executor: LocalExecutor, container: Any, count: int) -> None:
    files = tree()
    episode = AgentEpisode(executor, AgentSetup(files=files, submission="x"), AgentLimits(max_calls=10**9))
    print(f"{'command':<12} {'subprocess':>12} {'codegym':>10} {'overhead':>10} {'docker exec':>12} {'overhead':>10}")
    worst = 0.0
    with tempfile.TemporaryDirectory() as folder:
        write_tree(folder, files)  # (the same tree: `ls -R` lists as much on the host)
        for name, command in COMMANDS.items():
            host = timed(lambda c=command: _host(c, folder), count, pause_s=PAUSE_S)
            call = ToolCall("call_0", "bash", {"command": command})
            ours = timed(lambda c=call: _checked(episode.call(c)), count, pause_s=PAUSE_S)
            line = f"{name:<12} {median_ms(host):>9.2f} ms {median_ms(ours):>7.2f} ms"
            overhead = median_ms(ours) - median_ms(host)
            worst = max(worst, overhead)
            line += f" {overhead:>7.2f} ms"
            if container is not None:
                theirs = timed(
                    lambda c=command: container.exec_run(["bash", "-c", c]), max(20, count // 5), pause_s=PAUSE_S
                )
                line += f" {median_ms(theirs):>9.2f} ms {median_ms(theirs) - median_ms(host):>7.2f} ms"
            print(line)
    episode.close()
    print(f"tool-call overhead beyond the command's own time: worst median {worst:.2f} ms (goal <= 5 ms)\n")


def _host(command: str, folder: str) -> None:
    subprocess.run(["bash", "-c", command], cwd=folder, check=True, capture_output=True)


def _checked(result: Any) -> None:
    assert result.exit_code == 0, result


def resets(executor: LocalExecutor, client: Any, image: str | None, count: int) -> None:
    files = tree()
    edit = Job(steps=(Step(argv=("sh", "-c", "echo x >> src/pkg/module_001.py; rm src/pkg/module_002.py; touch new")),))
    with executor.open_workspace(Layer(files)) as ws:

        def ours() -> None:
            ws.run(edit)
            started = time.perf_counter()
            ws.reset()
            spent.append(time.perf_counter() - started)

        spent: list[float] = []
        for _ in range(count):
            ours()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder, "tree")
        write_tree(str(source), files)

        def copy() -> None:
            shutil.rmtree(Path(folder, "episode"), ignore_errors=True)
            subprocess.run(["cp", "-a", str(source), str(Path(folder, "episode"))], check=True)

        copies = timed(copy, max(10, count // 5), warm=2)
    print(f"{'reset':<34} {'median':>10} {'p95':>10}")
    print(f"{'codegym Workspace.reset':<34} {median_ms(spent):>7.2f} ms {p95_ms(spent):>7.2f} ms")
    print(f"{'cp -a of the tree (and rm)':<34} {median_ms(copies):>7.2f} ms {p95_ms(copies):>7.2f} ms")
    if client is not None and image is not None:
        recreate = timed(lambda: _recreate(client, image), 5, warm=1)
        print(f"{'docker rm -f + docker run -d':<34} {median_ms(recreate):>7.2f} ms {p95_ms(recreate):>7.2f} ms")
    print(f"episode reset of a {len(files)}-file tree: median {median_ms(spent):.2f} ms (goal <= 20 ms)\n")


def p95_ms(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.95 * len(values)))] * 1e3


_recreated: list[Any] = []


def _recreate(client: Any, image: str) -> None:
    while _recreated:
        _recreated.pop().remove(force=True)
    _recreated.append(client.containers.run(image, ["sleep", "600"], detach=True, network_mode="none"))


def idle(executor: LocalExecutor, client: Any, image: str | None, sessions: int) -> None:
    layer = Layer({f"src/file_{i}.py": b"x = 1\n" * 50 for i in range(20)})
    write = Job(steps=(Step(argv=("sh", "-c", "echo edited >> src/file_1.py; echo note > notes.txt")),))
    executor.run(Job(steps=(Step(argv=("true",)),)))  # (the worker is up)
    before = memory_in_use()
    opened = [executor.open_workspace(layer) for _ in range(sessions)]
    for ws in opened:
        ws.run(write)
    ours = max(1, memory_in_use() - before) / sessions
    for ws in opened:
        ws.close()
    print(f"{'idle episode':<34} {'memory each':>12} {'per GiB':>10}")
    print(f"{'codegym workspace':<34} {ours / 1024:>9.0f} KiB {(1 << 30) / ours:>10.0f}")
    if client is not None and image is not None:
        count = 20
        before = memory_in_use()
        containers = [_idle_container(client, image) for _ in range(count)]
        time.sleep(1.0)
        theirs = max(1, memory_in_use() - before) / count
        for container in containers:
            container.remove(force=True)
        print(f"{'idle container (sleep)':<34} {theirs / 1024:>9.0f} KiB {(1 << 30) / theirs:>10.0f}")
    print("(anonymous, tmpfs and kernel memory before and after; other activity on the machine blurs it)\n")


def _idle_container(client: Any, image: str) -> Any:
    return client.containers.run(image, ["sleep", "600"], detach=True, network_mode="none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--resets", type=int, default=100)
    parser.add_argument("--sessions", type=int, default=400)
    parser.add_argument("--no-docker", action="store_true")
    parser.add_argument("--isolation", default=None, help="the local backend's tier (default: the strongest here)")
    args = parser.parse_args()
    daemon = client = image = container = None
    if not args.no_docker:
        from codegym.executor import docker as backend
        from codegym.executor import images

        daemon = backend.start_daemon()
        client = backend.connect()
        image = images.ensure(client, images.recipe("python"))
        container = client.containers.run(image, ["sleep", "3600"], detach=True, network_mode="none")
    try:
        with LocalExecutor(workers=1, isolation=args.isolation) as executor:
            print(f"local backend, isolation tier {executor.isolation!r}\n")
            tool_calls(executor, container, args.calls)
            resets(executor, client, image, args.resets)
            idle(executor, client, image, args.sessions)
    finally:
        for leftover in [container, *_recreated]:
            if leftover is not None:
                leftover.remove(force=True)
        if daemon is not None:
            from codegym.executor.docker import stop_daemon

            stop_daemon(daemon)


if __name__ == "__main__":
    main()
