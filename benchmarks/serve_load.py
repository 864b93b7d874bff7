"""`codegym serve` under load, driven from this process against a server in another, one run.

    python benchmarks/serve_load.py [--items 1000] [--sessions 64] [--steps 4] [--requests 10000]

1. **Batch throughput.** ``--items`` distinct PythonFunction submissions (codegym-py's
   references and ``return None`` stubs, alternating, each numbered by a comment) graded in
   this process by ``codegym.score`` and on the server by ``codegym.score(..., server=URL)``,
   interleaved, three times each; items/s of each and their ratio (the goal: the server at least
   0.9x in-process). Every remote grade must equal the in-process one, item for item: a lost,
   duplicated or reordered grade fails the run.
2. **Sessions.** ``--sessions`` `RemoteEnv` sessions at once (one thread each), each playing
   ``--steps`` single-shot episodes (reset on a task, step its reference or a stub); the step
   latency's median and p99, and every reward checked against the answer's (1 or 0).
3. **Memory.** ``--requests`` one-item ``/v1/score`` requests from 16 threads; the server
   process's resident memory after each tenth of them (flat: the last within 10% of the
   second).

The server is ``codegym serve`` as a user starts it, on a free loopback port, with
``--max-concurrency`` and ``--max-sessions`` sized to the sessions; both sides use the
default local executor (one worker per core).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym

import codegym
from codegym.grade import Grade
from codegym.remote import RemoteEnv

ENV_ID = "codegym/PythonFunction-v0"
ROUNDS = 3  # batch rounds, in-process then server each time (the machine's pace moves between runs)


def submissions(n: int, tag: str) -> list[tuple[str, str]]:
    """``n`` items: each task's reference, then a stub that returns None, in turn; each
    distinct (a comment names ``tag`` and numbers it), so that every one is run, as a
    trainer's samples are, and no part of the benchmark reuses another's grades."""
    env = gym.make(ENV_ID).unwrapped
    pairs = []
    for task in env.tasks:  # type: ignore[attr-defined]
        pairs += [
            (task.id, task.reference or ""),
            (task.id, f"def {task.metadata['entry_point']}(*a):\n    return None\n"),
        ]
    env.close()
    return [(pairs[i % len(pairs)][0], f"{pairs[i % len(pairs)][1]}# {tag} {i}\n") for i in range(n)]


def start_server(sessions: int) -> tuple[subprocess.Popen[bytes], str]:
    """``codegym serve`` on a free loopback port, once ``/health`` answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "codegym.cli", "serve", "--port", str(port), "--max-sessions", str(sessions + 8),
               "--max-concurrency", str(sessions + 8)]  # fmt: skip
    log = tempfile.TemporaryFile()  # noqa: SIM115 (the server's log, for its life: a pipe nobody reads would fill)
    server = subprocess.Popen(command, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            log.seek(0)
            raise SystemExit(f"codegym serve exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                json.load(answer)
                return server, url
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit("codegym serve did not answer /health within 120 s")


def timed(items: list[tuple[str, str]], server: str | None = None) -> tuple[float, list[Grade]]:
    """Items per second of ``codegym.score`` on ``items`` (on ``server`` when given), and the grades."""
    started = time.perf_counter()
    grades = codegym.score(ENV_ID, items, server=server)
    return len(items) / (time.perf_counter() - started), grades


def batch(url: str, n: int) -> list[str]:
    lines = []
    warm = submissions(16, "warm-up")
    codegym.score(ENV_ID, warm)  # (workers started on both sides)
    codegym.score(ENV_ID, warm, server=url)
    ratios = []
    for round_ in range(1, ROUNDS + 1):
        items = submissions(n, f"round {round_}")
        local_rate, local = timed(items)
        remote_rate, remote = timed(items, url)
        if len(remote) != len(local) or remote != local:
            wrong = sum(a != b for a, b in zip(local, remote, strict=False)) + abs(len(local) - len(remote))
            raise SystemExit(f"round {round_}: {wrong} of {len(items)} remote grades differ from in-process ones")
        ratios.append(remote_rate / local_rate)
        lines.append(f"batch round {round_}: in-process {local_rate:7.1f} items/s, server {remote_rate:7.1f} items/s "
                     f"({remote_rate / local_rate:.2f}x); {len(remote)} grades, each equal to in-process")  # fmt: skip
    median = statistics.median(ratios)
    lines.append(f"batch: server/in-process {', '.join(f'{r:.2f}x' for r in ratios)}, median {median:.2f}x "
                 f"(goal >= 0.9x): {'met' if median >= 0.9 else 'not met'}")  # fmt: skip
    return lines


def sessions(url: str, count: int, steps: int) -> list[str]:
    items = submissions(count * steps, "session")
    latencies: list[float] = []
    wrong: list[str] = []
    lock = threading.Lock()

    def play(index: int) -> None:
        env = RemoteEnv(url, ENV_ID)
        try:
            for k in range(steps):
                task_id, code = items[(index * steps + k) % len(items)]
                env.reset(options={"task_id": task_id})
                started = time.perf_counter()
                _, reward, _, _, _ = env.step(code)
                elapsed = time.perf_counter() - started
                expected = 0.0 if code.startswith("def ") and "(*a):\n    return None\n# session" in code else 1.0
                with lock:
                    latencies.append(elapsed)
                    if reward != expected:
                        wrong.append(f"{task_id}: {reward} (expected {expected})")
        finally:
            env.close()

    started = time.perf_counter()
    with ThreadPoolExecutor(count) as pool:
        list(pool.map(play, range(count)))
    elapsed = time.perf_counter() - started
    if wrong or len(latencies) != count * steps:
        raise SystemExit(f"sessions: {len(latencies)} of {count * steps} steps answered; wrong rewards: {wrong[:5]}")
    p99 = statistics.quantiles(latencies, n=100)[98]
    return [f"sessions: {count} at once, {len(latencies)} steps in {elapsed:.1f} s ({len(latencies) / elapsed:.1f}/s); "
            f"step latency median {statistics.median(latencies) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms; "
            "every reward as expected"]  # fmt: skip


def resident_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1]) * 1024


def memory(server: subprocess.Popen[bytes], url: str, requests: int) -> list[str]:
    items = submissions(requests, "memory")

    def one(i: int) -> None:
        body = json.dumps(
            {"env_id": ENV_ID, "items": [dict(zip(("task_id", "code"), items[i % len(items)], strict=True))]}
        )
        request = urllib.request.Request(url + "/v1/score", body.encode(), {"Content-Type": "application/json"})
        for _ in range(60):
            try:
                with urllib.request.urlopen(request, timeout=120) as answer:
                    json.load(answer)
                    return
            except urllib.error.HTTPError as e:
                if e.code != 503:
                    raise
                time.sleep(float(e.headers.get("Retry-After", 1)))
        raise SystemExit("the server stayed busy")

    samples = []
    tenth = max(1, requests // 10)
    with ThreadPoolExecutor(16) as pool:
        for start in range(0, requests, tenth):
            list(pool.map(one, range(start, min(requests, start + tenth))))
            samples.append(resident_bytes(server.pid))
    mib = [s / (1 << 20) for s in samples]
    growth = samples[-1] / samples[1] - 1 if len(samples) > 1 else 0.0
    verdict = "met" if abs(growth) <= 0.10 else "not met"
    return [f"memory: server resident MiB after each {tenth} requests: {' '.join(f'{m:.0f}' for m in mib)}; "
            f"last vs second {growth * 100:+.1f}% (flat: within 10%): {verdict}"]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--requests", type=int, default=10000)
    args = parser.parse_args()
    if min(args.items, args.sessions, args.steps, args.requests) < 1:
        parser.error("--items, --sessions, --steps and --requests take positive integers")
    server, url = start_server(args.sessions)
    try:
        for line in [*batch(url, args.items), *sessions(url, args.sessions, args.steps),
                     *memory(server, url, args.requests)]:  # fmt: skip
            print(line, flush=True)
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
    print(f"(os.cpu_count() = {os.cpu_count()})")


if __name__ == "__main__":
    main()
