"""Harness mode's costs: the model proxy per call, a program's start-up, concurrent episodes.

    python benchmarks/harness.py [--calls 300] [--programs mini-swe-agent,codex,...] [--concurrent 16]

1. **Proxy overhead per model call.** In a box over harness mode's Debian root, a client makes
   ``--calls`` sequential model calls over the box's loopback (keep-alive) to (a) codegym's
   `ModelProxy` (parse, translate to chat form, record, render in the caller's API; the answer
   is ready at once) and (b) the baseline: a bare HTTP server on a socket of the same loopback
   that returns the same response bytes, rendered ahead. Overhead = median (a) - median (b), for
   a small Chat Completions call and for 48 KiB streamed Responses and Anthropic Messages calls
   (what Codex and Claude Code send). Goal: at most 2 ms.
2. **Start-up per episode**, for each installed program: harness mode's ``reset()`` until the
   program's first model request (a fresh box, the task's files, the program's home, the proxy)
   against starting the program bare in the same root: the same command in a box started
   ahead, with a proxy already listening.
3. **Concurrent episodes**: ``--concurrent`` harness episodes of a program at once (each a
   scripted policy that writes the reference answer), their verdicts and wall time.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import gymnasium as gym

import codegym  # noqa: F401
from codegym.executor.layers import LayerStore
from codegym.executor.rootbox import BoxSpec, RootBox
from codegym.harness.install import installed
from codegym.harness.mode import BASE_PACKAGES, HarnessSpec
from codegym.harness.proxy import ModelProxy
from codegym.harness.recipe import Recipe, recipe, recipes
from codegym.harness.run import HarnessLimits, launch_of
from codegym.harness.scripted import SCRIPTS, scripted_reply
from codegym.harness.wire import ModelReply, ReplyToolCall, parse_request, render

GOAL_MS = 2.0
TASK = "codegym-py/004-digital-root"
REPLY = ModelReply("Looking at the files.", (ReplyToolCall("call_1", "bash", json.dumps({"command": "ls -la"})),))
PARAMETERS = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
BASH = {"name": "bash", "description": "Run a command.", "parameters": PARAMETERS}
FILLER = "Tool output line with some text in it, as a long log would have.\n" * 750  # ~48 KiB


def bodies() -> dict[str, tuple[str, bytes]]:
    """Request bodies (path, JSON) of the three APIs."""
    chat = {"model": "m", "messages": [{"role": "user", "content": "List the files."}],
            "tools": [{"type": "function", "function": BASH}]}  # fmt: skip
    responses = {"model": "m", "stream": True, "instructions": "You are a coding agent.",
                 "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": FILLER}]}],
                 "tools": [{"type": "function", **BASH}]}  # fmt: skip
    messages = {"model": "m", "stream": True, "max_tokens": 4096, "system": [{"type": "text", "text": "You code."}],
                "messages": [{"role": "user", "content": FILLER}],
                "tools": [{"name": "bash", "description": "Run a command.", "input_schema": PARAMETERS}]}  # fmt: skip
    return {"chat": ("/v1/chat/completions", json.dumps(chat).encode()),
            "responses (48 KiB, stream)": ("/v1/responses", json.dumps(responses).encode()),
            "messages (48 KiB, stream)": ("/v1/messages", json.dumps(messages).encode())}  # fmt: skip


CLIENT = r"""
import http.client, json, sys, time
port, path, calls = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
body = sys.stdin.buffer.read() if False else open(sys.argv[4], 'rb').read()
conn = http.client.HTTPConnection('127.0.0.1', port)
times = []
for _ in range(calls):
    t = time.perf_counter()
    conn.request('POST', path, body, {'Content-Type': 'application/json', 'Authorization': 'Bearer x'})
    response = conn.getresponse(); response.read()
    times.append(time.perf_counter() - t)
print(json.dumps(times))
"""


def bare_server(listener: socket.socket, response: bytes, content_type: str) -> threading.Thread:
    """A minimal keep-alive HTTP server answering every request with ``response``."""
    head = (f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {len(response)}\r\n\r\n").encode()

    def serve(conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        with conn, reader:
            while True:
                length = 0
                line = reader.readline()
                if not line:
                    return
                while line not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                    line = reader.readline()
                reader.read(length)
                conn.sendall(head + response)

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    return thread


def client_times(box: RootBox, port: int, path: str, body: bytes, calls: int) -> list[float]:
    box.write_files({"/tmp/body.json": body, "/tmp/client.py": CLIENT.encode()})
    result = box.run(("python3", "/tmp/client.py", str(port), path, str(calls), "/tmp/body.json"), timeout_s=300)
    if result.exit_code != 0:
        raise RuntimeError(result.output)
    return json.loads(result.output)


def proxy_overhead(calls: int) -> dict[str, tuple[float, float]]:
    """Median seconds per call: (through the proxy, bare server), per API."""
    root = LayerStore().base("bookworm", BASE_PACKAGES)
    out: dict[str, tuple[float, float]] = {}
    with RootBox(BoxSpec(layers=(root,))) as box:
        for name, (path, body) in bodies().items():
            request = parse_request(path, body)
            content_type, chunks = render(request, REPLY, response_id="resp_1")
            with ModelProxy(lambda _request: REPLY, sock=box.listen()) as proxy:
                port = proxy.address[1]  # type: ignore[index]
                client_times(box, port, path, body, 20)  # (warm up)
                through = statistics.median(client_times(box, port, path, body, calls))
            listener = box.listen()
            bare_server(listener, b"".join(chunks), content_type)
            bare_port = listener.getsockname()[1]
            client_times(box, bare_port, path, body, 20)
            bare = statistics.median(client_times(box, bare_port, path, body, calls))
            listener.close()
            out[name] = (through, bare)
    return out


def startup(program: Recipe, rounds: int) -> tuple[float, float]:
    """Median seconds to the first model request: harness ``reset()``, and the program started
    bare in a box of the same root started ahead."""
    spec = HarnessSpec(program, limits=HarnessLimits(turn_s=120.0))
    env = gym.make("codegym/PythonFunction-v0", mode="harness", harness=spec)
    harness = []
    for _ in range(rounds):
        started = time.perf_counter()
        env.reset(options={"task_id": TASK})
        harness.append(time.perf_counter() - started)
        env.unwrapped._close_episode()  # type: ignore[attr-defined]
    env.close()
    root = LayerStore().base("bookworm", BASE_PACKAGES)
    bare = []
    for _ in range(rounds):
        with RootBox(BoxSpec(layers=(root,), binds=spec.binds())) as box:
            first = threading.Event()

            def answer(_request: Any, first: threading.Event = first) -> ModelReply:
                first.set()
                return ModelReply("Done.")

            with ModelProxy(answer, sock=box.listen()) as proxy:
                port = proxy.address[1]  # type: ignore[index]
                launch = launch_of(program, instruction="Write hello.txt.", port=port, workdir="/tmp")
                box.write_files({path: content.encode() for path, content in launch.files.items()})
                argv, env_vars = launch.argv, launch.env
                started = time.perf_counter()
                options = {"cwd": "/tmp", "env": env_vars, "timeout_s": 120, "background": "kill"}
                thread = threading.Thread(target=box.run, args=(argv,), kwargs=options, daemon=True)
                thread.start()
                first.wait(120)
                bare.append(time.perf_counter() - started)
                box.interrupt()
                thread.join(30)
    return statistics.median(harness), statistics.median(bare)


def concurrent(program: Recipe, count: int) -> tuple[int, float]:
    """``count`` episodes at once, each solving the task: how many scored 1, and the wall time."""
    spec = HarnessSpec(program, limits=HarnessLimits(turn_s=300.0))
    code = gym.make("codegym/PythonFunction-v0").unwrapped.tasks.get(TASK).reference  # type: ignore[attr-defined]

    def one(_: int) -> float:
        env = gym.make("codegym/PythonFunction-v0", mode="harness", harness=spec)
        try:
            _, info = env.reset(options={"task_id": TASK})
            reward = 0.0
            while "request" in info:
                _, reward, _, _, info = env.step(scripted_reply(program.name, info["request"], "solution.py", code))
            return float(reward)
        finally:
            env.close()

    started = time.perf_counter()
    with ThreadPoolExecutor(count) as pool:
        rewards = list(pool.map(one, range(count)))
    return sum(r == 1.0 for r in rewards), time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3, help="start-ups timed per program")
    parser.add_argument("--programs", default=",".join(sorted(recipes())))
    parser.add_argument("--concurrent", type=int, default=16)
    args = parser.parse_args()
    print("1. proxy overhead per model call (median, box loopback, keep-alive)")
    print(f"{'call':28} {'proxy ms':>9} {'bare ms':>8} {'overhead':>9}")
    worst = 0.0
    for name, (through, bare) in proxy_overhead(args.calls).items():
        overhead = (through - bare) * 1000
        worst = max(worst, overhead)
        print(f"{name:28} {through * 1000:9.3f} {bare * 1000:8.3f} {overhead:9.3f}")
    print(f"worst overhead {worst:.3f} ms (goal <= {GOAL_MS} ms): {'met' if worst <= GOAL_MS else 'NOT met'}")
    programs = [recipe(name) for name in args.programs.split(",") if name]
    programs = [program for program in programs if installed(program)]
    print("\n2. start-up to the first model request (median)")
    print(f"{'program':16} {'harness s':>10} {'bare s':>8} {'ratio':>6}")
    for program in programs:
        harness, bare = startup(program, args.rounds)
        print(f"{program.name:16} {harness:10.2f} {bare:8.2f} {harness / bare:6.2f}")
    print(f"\n3. {args.concurrent} concurrent episodes (scripted policy, reference answer)")
    for program in programs:
        if program.name in SCRIPTS:
            solved, wall = concurrent(program, args.concurrent)
            print(f"{program.name:16} {solved}/{args.concurrent} scored 1.0 in {wall:.1f} s")


if __name__ == "__main__":
    main()
