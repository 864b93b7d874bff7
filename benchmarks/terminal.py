"""Terminal tasks: what a reset, a tool call and grading cost, against running the task's tests
directly in the same machine and against the Harbor user's ``docker build`` + ``docker run``.

    python benchmarks/terminal.py [--task awk-busiest-hour] [--resets 100] [--calls 100] [--repeats 11]
                                  [--episodes 7] [--no-docker] [--cached-build] [--quick]

Two tasks, side by side in one run: a bundled one (``--task``) and the test suite's fixture
task (``tests/envs/terminal/fixtures.py``: Harbor's public layout, ``FROM
debian:bookworm-slim``, an apt line, a hidden fixture copied into the image, ``tests/test.sh``
running pytest and writing ``reward.txt``). Their environments are built into the layer
store before anything is timed. Needs root (boxes; the Docker engine).

- **Reset on a cached environment.** ``TerminalEnv(mode="agent").reset`` of the same task:
  the last episode's machine closed (in the background) and a fresh one opened over the
  task's layers, after 250 ms of rest (as after an episode) and back to back, alternating in
  blocks of ten. Median and p90. Goal: a median of at most 20 ms. (A box started after rest
  is slower: joining its cgroups, a write to ``cgroup.procs``, waits for an RCU grace period
  on a cgroup v1 host once the kernel's lock for it has gone idle, about 12 ms here.)
- **Tool-call overhead.** A ``bash`` call of ``true`` through ``env.step`` (the tool call
  parsed, run as the task's user in its working directory, its result rendered) and
  directly through ``RootBox.run``, each after 50 ms of rest (the model's turn), minus
  ``subprocess.run(["bash", "-c", "true"])`` on the host (the command's own time). Goal:
  at most 5 ms (median).
- **Grading.** ``env.judge`` of a machine the oracle ran in (its files copied and sanitized,
  the tests added, a fresh box with the verifier's toolchain read-only and the harness's
  pytest plugin) against ``tests/test.sh`` run directly in a machine over the same layers
  where the oracle ran too, the tests bound at ``/tests`` (no plugin, no snapshot, no
  sanitizing). The two alternate; the ratio is of medians. Goal: at most 1.3x.
- **The Harbor user's baseline.** The task's ``environment/`` built by ``docker build
  --network host`` (``--no-cache`` unless ``--cached-build``: the first build of a task) over
  ``debian:bookworm-slim`` imported from the same debootstrap root codegym's build starts
  from, then each episode a fresh container: ``docker run --rm`` of ``solve.sh`` then
  ``test.sh`` (container start, the scripts, removal). Against it codegym's episode: a fresh
  machine, the oracle, the verdict (``env.run_script``, single mode), and its reset +
  grading alone (the medians above).

Other workers share this machine: the load average is printed before and after.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import tarfile
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

from codegym.envs.terminal import verifier
from codegym.envs.terminal.env import AGENT_LIMITS, TerminalEnv
from codegym.envs.terminal.tasks import terminal_of

from codegym.executor.rootbox import ID_BASE, BoxSpec, RootBox, available, run_root
from codegym.task import Task

GOAL_RESET_MS = 20.0
GOAL_CALL_MS = 5.0
GOAL_GRADING = 1.3
PAUSE_S = 0.05  # before each tool call: the model's turn (an agent never calls tools back to back)
RESET_PAUSE_S = 0.25  # before a reset: what an episode lasts at the least (a box's start is slower after rest)
ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "envs" / "terminal" / "fixtures.py"
BASE_TAG = "debian:bookworm-slim"


@dataclass
class Figures:
    """One task's measurements (seconds unless named otherwise)."""

    task: str
    resets: list[float] = field(default_factory=list)
    resets_back_to_back: list[float] = field(default_factory=list)
    host_true: list[float] = field(default_factory=list)
    step_true: list[float] = field(default_factory=list)
    box_true: list[float] = field(default_factory=list)
    box_true_inside: list[float] = field(default_factory=list)
    judge: list[float] = field(default_factory=list)
    direct: list[float] = field(default_factory=list)
    episode: list[float] = field(default_factory=list)
    codegym_build_s: float = 0.0
    docker_build_s: float | None = None
    docker_cached: bool = False
    docker_episode: list[float] = field(default_factory=list)
    docker_inside: list[float] = field(default_factory=list)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def p90_ms(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(0.9 * len(values)))] * 1e3


def timed(function: Callable[[], Any], count: int, warm: int = 3, pause_s: float = 0.0) -> list[float]:
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


def load_fixtures() -> ModuleType:
    """The terminal tests' task-folder writers (tests/ is not a package)."""
    spec = importlib.util.spec_from_file_location("terminal_fixtures", FIXTURES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- codegym ----------------------------------------------------------------------------------


def resets(source: str, task: Task, count: int, figures: Figures) -> None:
    """Resets after `RESET_PAUSE_S` of rest (an episode's life) and back to back, alternating
    in blocks of ten (the machine's load drifts)."""
    env = TerminalEnv(source, mode="agent")
    try:
        env.reset(options={"task_id": task.id})
        for _ in range(max(1, count // 10)):
            figures.resets += timed(lambda: env.reset(options={"task_id": task.id}), 10, warm=0, pause_s=RESET_PAUSE_S)
            figures.resets_back_to_back += timed(lambda: env.reset(options={"task_id": task.id}), 10, warm=1)
    finally:
        env.close()


def tool_calls(source: str, task: Task, count: int, figures: Figures) -> None:
    env = TerminalEnv(source, mode="agent", agent=replace(AGENT_LIMITS, max_calls=10**9))
    env.reset(options={"task_id": task.id})
    call = {"name": "bash", "arguments": {"command": "true"}}

    def step() -> None:
        _, _, terminated, truncated, info = env.step([call])
        assert not (terminated or truncated) and info["tool_results"][0]["exit_code"] == 0, info

    try:
        box = env._episode.box  # type: ignore[union-attr]  # (the episode's own machine)

        def direct() -> None:
            result = box.run(("bash", "-c", "true"))
            assert result.exit_code == 0, result
            figures.box_true_inside.append(result.elapsed_s)

        def host() -> None:
            subprocess.run(["bash", "-c", "true"], check=True, capture_output=True)

        for _ in range(3):
            for warm in (step, direct, host):
                warm()
        figures.box_true_inside.clear()
        for _ in range(count):  # (the three alternate: the machine's load drifts)
            figures.step_true.append(_seconds(step, pause_s=PAUSE_S))
            figures.box_true.append(_seconds(direct, pause_s=PAUSE_S))
            figures.host_true.append(_seconds(host, pause_s=PAUSE_S))
    finally:
        env.close()


def grading(source: str, task: Task, repeats: int, figures: Figures) -> None:
    """``env.judge`` of the oracle's machine, alternating with ``test.sh`` run directly in a
    machine over the same layers (the oracle run there too, the tests bound at /tests)."""
    env = TerminalEnv(source, mode="single")
    terminal = terminal_of(task)
    built = env.environment(task)
    env.expected(task)  # (once per task: the pristine run that counts the tests)
    workdir = terminal.workdir or built.workdir or "/"
    user = terminal.agent_user or built.user or "root"
    oracle_env = {**dict(built.env), **dict(terminal.solution_env)}
    test_env = {**dict(built.env), **dict(terminal.test_env), "TEST_DIR": "/tests"}
    os.makedirs(run_root(), mode=0o700, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-", dir=run_root()) as scratch:
        os.chmod(scratch, 0o755)
        tests = verifier.write_files(os.path.join(scratch, "tests"), terminal.tests, ())
        solution = verifier.write_files(os.path.join(scratch, "solution"), terminal.solution, ())
        logs = Path(scratch, "logs")
        logs.mkdir()
        os.chown(logs, ID_BASE, ID_BASE)
        binds = ((str(solution), "/solution", True), (str(tests), "/tests", True), (str(logs), "/logs/verifier", False))
        with env.open_box(task, solution=True) as judged, RootBox(BoxSpec(layers=built.layers, binds=binds)) as plain:
            for box in (judged, plain):
                ran = box.run(terminal.solution_command, user=user, cwd=workdir, env=oracle_env, timeout_s=600)
                assert ran.exit_code == 0, ran.output

            def judge() -> None:
                grade = env.grade(task, "", env.judge(task, judged))  # type: ignore[arg-type]
                assert grade.passed, grade.feedback()

            def direct() -> None:
                result = plain.run(terminal.test_command, cwd=workdir, env=test_env, timeout_s=600, background="kill")
                assert result.exit_code == 0, result.output
                assert (logs / "reward.txt").read_text().strip() == "1", result.output

            judge()  # (warm)
            direct()
            for _ in range(repeats):
                figures.direct.append(_seconds(direct))
                figures.judge.append(_seconds(judge))
        figures.episode = timed(lambda: _oracle_episode(env, task), repeats, warm=1)
    env.close()


def _seconds(function: Callable[[], Any], pause_s: float = 0.0) -> float:
    time.sleep(pause_s)
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def _oracle_episode(env: TerminalEnv, task: Task) -> None:
    grade = env.grade(task, task.reference or "", env.run_script(task, task.reference or ""))  # type: ignore[arg-type]
    assert grade.passed, grade.feedback()


# --- Docker -----------------------------------------------------------------------------------


def import_base(layer: str, log: Callable[[str], None]) -> None:
    """``docker import`` codegym's debootstrap root of bookworm (``layer``, ownership shifted
    back by `ID_BASE`) as ``debian:bookworm-slim``, unless that tag exists."""
    if subprocess.run(["docker", "image", "inspect", BASE_TAG], check=False, capture_output=True).returncode == 0:
        return

    def shift(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid, info.gid = max(0, info.uid - ID_BASE), max(0, info.gid - ID_BASE)
        info.uname = info.gname = ""
        return info

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="codegym-bench-", dir="/var/tmp") as work:
        archive = os.path.join(work, "root.tar")
        with tarfile.open(archive, "w") as tar:
            for name in sorted(os.listdir(layer)):
                tar.add(os.path.join(layer, name), arcname=name, filter=shift)
        with open(archive, "rb") as handle:
            subprocess.run(["docker", "import", "-", BASE_TAG], stdin=handle, check=True, capture_output=True)
    log(f"imported {layer} as {BASE_TAG} in {time.perf_counter() - started:.1f} s")


def docker_build(context: Path, tag: str, cached: bool) -> float:
    cache = [] if cached else ["--no-cache"]
    command = ["docker", "build", "--network", "host", "-q", "-t", tag, *cache, str(context)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"docker build of {context} failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def docker_episodes(task_dir: Path, tag: str, workdir: str, count: int, figures: Figures) -> None:
    """``docker run --rm`` of solve.sh then test.sh in a fresh container, ``count`` times;
    the scripts' own time measured inside."""
    script = (
        "s=$(date +%s%N); bash /solution/solve.sh && bash /tests/test.sh >/dev/null 2>&1; "
        'e=$(date +%s%N); echo "reward=$(cat /logs/verifier/reward.txt) inside_ns=$((e - s))"'
    )
    command = ["docker", "run", "--rm", "--network", "none", "-w", workdir,
               "-v", f"{task_dir / 'solution'}:/solution:ro", "-v", f"{task_dir / 'tests'}:/tests:ro",
               tag, "bash", "-c", script]  # fmt: skip

    def episode() -> None:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""
        if "reward=1 " not in last:
            raise RuntimeError(f"the oracle did not score 1 in docker: {done.stdout[-1000:]}{done.stderr[-1000:]}")
        figures.docker_inside.append(int(last.split("inside_ns=")[1]) / 1e9)

    figures.docker_episode = timed(episode, count, warm=1)
    figures.docker_inside = figures.docker_inside[-count:]


# --- the report -------------------------------------------------------------------------------


def row(measure: str, task: str, ours: str, baseline: str = "", versus: str = "", goal: str = "",
        met: bool | None = None, note: str = "") -> None:  # fmt: skip
    result = "" if met is None else ("PASS" if met else "FAIL")
    print(f"{measure:<34} {task:<17} {ours:>10} {baseline:>10} {versus:>9}  {goal:<9} {result:<4} {note}".rstrip())


def report(all_figures: list[Figures]) -> None:
    row("measure", "task", "codegym", "baseline", "vs", "goal", None, "")
    for f in all_figures:
        for name, values in (
            ("reset, cached env, after rest", f.resets),
            ("reset, back to back", f.resets_back_to_back),
        ):
            reset = median_ms(values)
            row(name, f.task, f"{reset:.2f} ms", "", "", "<= 20 ms", reset <= GOAL_RESET_MS,
                f"p90 {p90_ms(values):.2f} ms")  # fmt: skip
        host = median_ms(f.host_true)
        inside = median_ms(f.box_true_inside)
        for name, values in (("env.step", f.step_true), ("RootBox.run", f.box_true)):
            overhead = median_ms(values) - host
            note = "baseline: host `bash -c true`"
            if name == "RootBox.run":
                note = f"in the box's init {inside:.2f} ms, request round trip {median_ms(values) - inside:.2f} ms"
            row(f"tool call `true`, {name}", f.task, f"{median_ms(values):.2f} ms", f"{host:.2f} ms",
                f"+{overhead:.2f} ms", "<= 5 ms", overhead <= GOAL_CALL_MS, note)  # fmt: skip
        ratio = statistics.median(f.judge) / statistics.median(f.direct)
        row("grading: env.judge / test.sh", f.task, f"{median_ms(f.judge):.1f} ms", f"{median_ms(f.direct):.1f} ms",
            f"{ratio:.2f}x", "<= 1.3x", ratio <= GOAL_GRADING, "baseline: test.sh in the oracle's machine")  # fmt: skip
        if not f.docker_episode:
            row("episode: oracle + verdict", f.task, f"{median_ms(f.episode):.1f} ms", note="env.run_script")
            continue
        theirs = statistics.median(f.docker_episode)
        inside = statistics.median(f.docker_inside)
        row("episode / docker run --rm", f.task, f"{median_ms(f.episode):.1f} ms", f"{theirs * 1e3:.1f} ms",
            f"{statistics.median(f.episode) / theirs:.2f}x", note=f"docker: {(theirs - inside) * 1e3:.1f} ms "
            f"container start + removal, {inside * 1e3:.1f} ms solve + test inside")  # fmt: skip
        light = statistics.median(f.resets) + statistics.median(f.judge)
        row("reset + grading / docker run --rm", f.task, f"{light * 1e3:.1f} ms", f"{theirs * 1e3:.1f} ms",
            f"{light / theirs:.2f}x", note="codegym: the medians above")  # fmt: skip
        if f.docker_build_s is not None:
            row("environment build / docker build", f.task, f"{f.codegym_build_s:.2f} s", f"{f.docker_build_s:.1f} s",
                note=f"codegym: layers cached; docker: {'cached' if f.docker_cached else '--no-cache'}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", default="awk-busiest-hour", help="the bundled task")
    parser.add_argument("--resets", type=int, default=100)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=11, help="grading runs and codegym episodes, each")
    parser.add_argument("--episodes", type=int, default=7, help="docker episodes")
    parser.add_argument("--no-docker", action="store_true")
    parser.add_argument("--cached-build", action="store_true", help="docker build with its cache (else --no-cache)")
    parser.add_argument("--quick", action="store_true", help="30 resets and calls, 3 repeats, a cached docker build")
    args = parser.parse_args()
    if args.quick:
        args.resets, args.calls, args.repeats, args.episodes, args.cached_build = 30, 30, 3, 3, True
    reason = available()
    if reason is not None:
        raise SystemExit(reason)
    fixtures = load_fixtures()
    print(f"{os.cpu_count()} cores; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    daemon = None
    with tempfile.TemporaryDirectory(prefix="codegym-bench-terminal-") as folder:
        task_dir = fixtures.write_harbor_task(Path(folder), "sum", dockerfile=fixtures.DOCKERFILE_APT_ONLY)
        bundled_dir = ROOT / "envs" / "terminal" / "data" / "tasks" / args.task
        if not bundled_dir.is_dir():
            raise SystemExit(f"no bundled task {args.task!r} in {bundled_dir.parent}")
        sources = [(str(bundled_dir), bundled_dir), (str(task_dir), task_dir)]
        prepared = []
        for source, path in sources:
            env = TerminalEnv(source, mode="single")
            task = next(iter(env.tasks))
            started = time.perf_counter()
            built = env.environment(task)  # (built before anything is timed)
            ready = time.perf_counter() - started
            print(f"{task.id}: environment ready in {ready:.2f} s ({len(built.layers)} layers)")
            prepared.append((source, path, task, built, ready))
            env.close()
        all_figures = []
        try:
            if not args.no_docker:
                from codegym.executor.docker import start_daemon

                daemon = start_daemon()
                import_base(prepared[0][3].layers[-1], print)
            for source, path, task, built, ready in prepared:
                figures = Figures(task.id, codegym_build_s=ready, docker_cached=args.cached_build)
                resets(source, task, args.resets, figures)
                tool_calls(source, task, args.calls, figures)
                grading(source, task, args.repeats, figures)
                if not args.no_docker:
                    tag = f"codegym-bench/{task.id}:latest"
                    figures.docker_build_s = docker_build(path / "environment", tag, args.cached_build)
                    workdir = terminal_of(task).workdir or built.workdir or "/"
                    docker_episodes(path, tag, workdir, args.episodes, figures)
                all_figures.append(figures)
        finally:
            if daemon is not None:
                from codegym.executor.docker import stop_daemon

                stop_daemon(daemon)
    report(all_figures)
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; 2 cores shared)")


if __name__ == "__main__":
    main()
