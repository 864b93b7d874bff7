"""The ``codegym`` command: list envs and task sets, score sample files, validate task sets,
run a demo, check what sandbox this machine allows (``doctor``), and serve every env over the
network (``serve``).

Bad input (a missing file, a samples line that is not JSON or lacks a field, an unknown env or
task id, a task file that cannot be read) is reported in a few lines, naming the file, the line
and the field, with exit status 2; ``--debug`` (or ``CODEGYM_DEBUG=1``) shows the traceback."""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import importlib
import json
import os
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from math import comb
from pathlib import Path
from typing import Any

import gymnasium as gym

import codegym
from codegym.error import Error, SandboxError, UnknownTask, UsageError
from codegym.executor.isolation import CHOICES as ISOLATION_CHOICES
from codegym.grade import Grade, TestOutcome
from codegym.remote import TOKEN_VARIABLE
from codegym.task import json_kind, json_lines, shown

DEFAULT_ENV = "codegym/PythonFunction-v0"
EXECUTORS = ("local", "docker", "ray")
EXECUTOR_HELP = "the sandbox backend: local (default), docker (dockerd is started when none answers), ray"
OPTION_HELP = "an env keyword argument, e.g. task_kind=spec (VALUE read as JSON where it is); may be repeated"
DEBUG_VARIABLE = "CODEGYM_DEBUG"
DEBUG_HELP = f"show the traceback of an error (also: {DEBUG_VARIABLE}=1)"
# Where a samples line may hold its code, in the order they are looked for.
SAMPLE_FIELDS = ("completion", "solution", "code", "answer", "response")
SAMPLE_LINE = '{"task_id": ..., "completion": "<code>"} (or the code under ' + ", ".join(SAMPLE_FIELDS[1:]) + ")"
SHOWN_DIAGNOSTICS = 3  # per sample, in the results file
SHOWN_FAILED = 5  # failing test names per sample, in the results file
DEFAULT_KS = (1, 10, 100)  # the pass@k printed without -k (those every task has k samples for)
SHOWN_TRACE = 1000  # characters of a test's trace, in the results file with --details
RECORDING_ENVS = 8  # envs stepped at once by score --record (each step waits on the sandbox)
# Families with commands of their own: the command's name, and the family's module with
# ``add_parser(commands, parents)`` and ``main(args)``.
FAMILY_COMMANDS = {"repo": "codegym.envs.repo_repair.cli", "terminal": "codegym.envs.terminal.cli"}


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimator for ``c`` correct out of ``n`` samples."""
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (default: the process's arguments); return its exit status.

    Usage and input errors print one message naming what was wrong and return 2; a sandbox
    failure prints its message and returns 1; ``--debug`` raises them instead.
    """
    families = {name: importlib.import_module(module) for name, module in FAMILY_COMMANDS.items()}
    parser = _parser(families)
    args = parser.parse_args(argv)
    try:
        return _run(args, families)
    except (Error, gym.error.Error) as e:
        if args.debug or os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
            raise
        print(f"codegym {args.command}: error: {e}", file=sys.stderr)
        if isinstance(e, SandboxError):
            print(f"(not the input's fault: the sandbox failed; --debug or {DEBUG_VARIABLE}=1 shows the traceback)",
                  file=sys.stderr)  # fmt: skip
            return 1
        return 2


def _parser(families: Mapping[str, Any]) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="codegym", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--debug", action="store_true", help=DEBUG_HELP)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help=DEBUG_HELP)
    commands = parser.add_subparsers(dest="command", required=True)
    lister = commands.add_parser("list", parents=[common], help="the registered envs; with ENV, its tasks")
    lister.add_argument("env", nargs="?", type=_env_id,
                        help="list this env's tasks: id, difficulty, test tiers, public/hidden tests")  # fmt: skip
    show = commands.add_parser("show", parents=[common], help="print a task's prompt, as the model reads it")
    show.add_argument("env", type=_env_id, help="a registered env id, e.g. codegym/StdioProgram-v0")
    show.add_argument("task_id", help="a task id (`codegym list ENV` lists them)")
    for tasks_parser in (lister, show):
        tasks_parser.add_argument("--tasks", help="the task source (a bundled set's name, a file or a folder)")
        tasks_parser.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                                  help=OPTION_HELP)  # fmt: skip
    score = commands.add_parser("score", parents=[common], help="score a JSONL of {task_id, completion}")
    score.add_argument("samples", type=Path, help=f"a JSONL file, one sample per line: {SAMPLE_LINE}")
    score.add_argument("--env", type=_env_id, default=DEFAULT_ENV,
                       help=f"the registered env that grades the samples (default: {DEFAULT_ENV}; `codegym list` "
                       "names them all)")  # fmt: skip
    score.add_argument("--tasks", help="task set; inferred from the task ids when omitted")
    score.add_argument("-k", type=_ks,
                       help="comma-separated k for pass@k (positive integers; default 1,10,100, each printed where "
                       "every task has at least k samples)")  # fmt: skip
    score.add_argument("--details", action="store_true",
                       help="write every test's outcome (name, passed, expected, got, ...) in each results "
                       "row")  # fmt: skip
    score.add_argument("--out", type=Path,
                       help="where to write per-sample results (default: SAMPLES_results.jsonl, which an earlier run's "
                       "results there stop unless --force); a file named here is replaced")  # fmt: skip
    score.add_argument("--force", action="store_true", help="replace the default results file of an earlier run")
    score.add_argument("--skip-bad", action="store_true",
                       help="grade the good lines when some cannot be graded (not JSON, a field missing, an unknown "
                       "task id); the results file lists the skipped ones with graded: false")  # fmt: skip
    score.add_argument("--executor", choices=EXECUTORS, help=EXECUTOR_HELP)
    score.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE", help=OPTION_HELP)
    score.add_argument("--record", type=Path, metavar="FILE",
                       help="grade each sample as a one-step episode of the env and append it to FILE, one JSON line "
                       "each (RecordEpisodes: for codegym regrade, exports, trace features)")  # fmt: skip
    check = commands.add_parser(
        "validate", parents=[common],
        help="run every task's reference; report valid, invalid (with why) and flaky tasks",
    )  # fmt: skip
    check.add_argument("env", type=_env_id, help="a registered env id, e.g. codegym/Verilog-v1")
    check.add_argument("--tasks", help="the task source (a bundled set's name, a file or a folder)")
    check.add_argument("--runs", type=_positive, default=3,
                       help="gradings of each reference (runs that disagree: flaky)")  # fmt: skip
    check.add_argument("--sample", type=_positive, help="validate this many tasks drawn at random (default: all)")
    check.add_argument("--seed", type=int, default=0, help="the sample's seed")
    check.add_argument("--quarantine", type=Path, help="write the tasks that are not valid here (quarantine=FILE)")
    check.add_argument("--executor", choices=EXECUTORS, help=EXECUTOR_HELP)
    check.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE", help=OPTION_HELP)
    demo = commands.add_parser(
        "demo", parents=[common], help="score HumanEval's canonical solutions and broken variants of them"
    )
    demo.add_argument("--out", type=Path, default=Path("codegym_demo_samples.jsonl"),
                      help="the samples file to write (its results beside it; both replaced on each run)")  # fmt: skip
    regrade = commands.add_parser(
        "regrade", parents=[common],
        help="grade the final submissions of recorded episodes again and report every disagreement",
    )  # fmt: skip
    regrade.add_argument("episodes", type=Path, help="a JSON-lines file of episodes (RecordEpisodes, serve --record)")
    regrade.add_argument("--executor", choices=EXECUTORS, help=EXECUTOR_HELP)
    doctor = commands.add_parser(
        "doctor", parents=[common],
        help="which sandbox isolation tier runs here, why not the stronger ones, and what would enable them; "
        "which families are ready, and what each lacks (Debian tools, Python extras, a GPU)",
    )  # fmt: skip
    doctor.add_argument("--isolation", choices=ISOLATION_CHOICES,
                        help="a tier to try instead of the strongest available (full, userns, container)")  # fmt: skip
    _serve_parser(commands, common)
    for family in families.values():
        family.add_parser(commands, parents=[common])
    return parser


def _regrade(path: Path, executor: str | None) -> int:
    """Exit 0 where every recorded verdict holds, 1 where one does not (harness drift)."""
    from codegym.episodes import regrade

    if not path.is_file():
        raise UsageError(f"no episodes file {path}: record some with RecordEpisodes or codegym serve --record")
    found = regrade(path, executor=executor, progress=sys.stderr.isatty())
    share = f"{100 * found.agreed / found.submissions:.1f}%" if found.submissions else "-"
    print(f"{found.episodes} episodes, {found.submissions} final submissions graded again: {found.agreed} agree "
          f"({share}), {len(found.disagreements)} disagree, {len(found.skipped)} skipped")  # fmt: skip
    for why in found.skipped:
        print(f"skipped {why}")
    for one in found.disagreements:
        print(f"DISAGREE {one.episode} {one.task_id}: recorded {one.recorded}, now {one.now}")
        for test in one.tests:
            print(f"  {test}")
    return 1 if found.disagreements else 0


def _serve_parser(commands: Any, common: argparse.ArgumentParser) -> None:
    serve = commands.add_parser(
        "serve", parents=[common],
        help="serve every env over HTTP and WebSocket (OpenEnv's protocol), with batch scoring and metrics",
    )  # fmt: skip
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to bind (default 127.0.0.1; others need --token or --insecure)")  # fmt: skip
    serve.add_argument("--port", type=_positive, default=8000, help="the TCP port (default 8000)")
    serve.add_argument("--token", default=os.environ.get(TOKEN_VARIABLE),
                       help=f"the bearer token clients must send (default ${TOKEN_VARIABLE})")  # fmt: skip
    serve.add_argument("--insecure", action="store_true",
                       help="serve a non-loopback address without a token (a network you trust only)")  # fmt: skip
    serve.add_argument("--max-sessions", type=_positive, default=64, help="live WebSocket sessions (default 64)")
    serve.add_argument("--max-concurrency", type=_positive,
                       help="env operations at once; more are answered 503 (default: twice the cores)")  # fmt: skip
    serve.add_argument("--idle-timeout", type=_seconds, default=600.0,
                       help="seconds a silent session lives (default 600)")  # fmt: skip
    serve.add_argument("--max-request-bytes", type=_positive, default=16 << 20,
                       help="the largest request or WebSocket message (default 16 MiB)")  # fmt: skip
    serve.add_argument("--allow-paths", action="store_true",
                       help="let clients name files on this machine in env kwargs (tasks=/data/x.jsonl)")  # fmt: skip
    serve.add_argument("--executor", choices=EXECUTORS, help=EXECUTOR_HELP)
    serve.add_argument("--option", type=_option, action="append", default=[], metavar="KEY=VALUE",
                       help=OPTION_HELP + "; the default of every env the server makes")  # fmt: skip
    serve.add_argument("--record", metavar="FILE",
                       help="append every session's episodes to FILE, one JSON line each (RecordEpisodes)")  # fmt: skip


def _run(args: argparse.Namespace, families: Mapping[str, Any]) -> int:
    if args.command in families:
        return families[args.command].main(args)
    if args.command in ("list", "show"):
        return _list(args)
    if args.command == "serve":
        return _serve(args)
    if args.command == "doctor":
        return _doctor(args.isolation)
    if args.command == "validate":
        sample = {"sample": args.sample, "seed": args.seed} if args.sample else {}
        return _validate(
            args.env, args.tasks, args.runs, args.quarantine, args.executor, {**dict(args.option), **sample}
        )
    if args.command == "regrade":
        return _regrade(args.episodes, args.executor)
    if args.command == "demo":
        _write_demo_samples(args.out)
        return _score(args.out, DEFAULT_ENV, "humaneval", [1, 2], None, force=True)
    return _score(args.samples, args.env, args.tasks, args.k, args.out, args.executor, force=args.force,
                  skip_bad=args.skip_bad, options=dict(args.option), details=args.details,
                  record=args.record)  # fmt: skip


# --- argument types: a bad value is a usage error (argparse prints it, exit status 2) -------------


def _env_id(value: str) -> str:
    """A registered env id, or Gymnasium's ``module:id`` (the module registers the id when
    imported); else the error names the nearest ones."""
    if value in gym.registry:
        return value
    if ":" in value:
        module, _, env_id = value.partition(":")
        try:
            importlib.import_module(module)
        except ImportError as e:
            raise argparse.ArgumentTypeError(f"{value!r}: cannot import {module!r} ({e}); is it installed?") from e
        if env_id in gym.registry:
            return value
        raise argparse.ArgumentTypeError(f"{value!r}: importing {module!r} registered no env {env_id!r}")
    ids = sorted(i for i in gym.registry if i.startswith("codegym/"))
    families = {_family(i).lower(): i for i in ids}
    wanted = _family(value).lower()
    close = [families[f] for f in difflib.get_close_matches(wanted, families, n=3, cutoff=0.6)]
    close += [i for f, i in families.items() if wanted and wanted in f and i not in close]
    hint = f"did you mean {' or '.join(close[:3])}? " if close else ""
    raise argparse.ArgumentTypeError(f"unknown env {value!r}: {hint}registered: {', '.join(ids)}")


def _family(env_id: str) -> str:
    """``PythonFunction`` of ``codegym/PythonFunction-v0`` (and of ``PythonFunction``)."""
    return env_id.rsplit("/", 1)[-1].rsplit("-v", 1)[0]


def _ks(value: str) -> list[int]:
    """Comma-separated positive integers (the k of pass@k)."""
    try:
        ks = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        ks = []
    if not ks or min(ks) < 1:
        raise argparse.ArgumentTypeError(f"expected comma-separated positive integers such as 1,10,100; got {value!r}")
    return list(dict.fromkeys(ks))


def _option(value: str) -> tuple[str, Any]:
    """``KEY=VALUE``: an env keyword argument; VALUE is read as JSON where it is (``3``, ``true``,
    ``["a"]``), else taken as a string (``task_kind=spec``)."""
    key, equals, text = value.partition("=")
    if not equals or not key.isidentifier():
        raise argparse.ArgumentTypeError(
            f"expected KEY=VALUE (an env keyword argument, e.g. task_kind=spec), got {value!r}"
        )
    try:
        return key, json.loads(text)
    except json.JSONDecodeError:
        return key, text


def _seconds(value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not number > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds; got {value!r}")
    return number


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {value!r}")
    return number


# --- list, doctor, validate ---------------------------------------------------------------------


def _start_docker() -> None:
    """Start dockerd when none answers (root only), or exit saying how to get one."""
    from codegym.executor.docker import start_daemon

    try:
        start_daemon()
    except SandboxError as e:
        raise SystemExit(f"codegym: the docker backend needs a Docker daemon: {e}") from None


def _list(args: argparse.Namespace) -> int:
    """``list``: the envs, or one env's tasks (``list ENV``); ``show``: a task's prompt."""
    from codegym import listing

    if args.command == "show":
        print(listing.task_prompt(args.env, args.task_id, args.tasks, dict(args.option)))
    elif args.env is None:
        if args.tasks is not None or args.option:
            raise UsageError("--tasks and --option need an env: codegym list ENV --tasks SRC")
        print("\n".join(listing.env_lines()))
    else:
        print(listing.task_table(listing.env_tasks(args.env, args.tasks, dict(args.option))))
    return 0


def _doctor(requested: str | None) -> int:
    """Print the isolation probe's report and each registered family's readiness (its
    `codegym.requirements.Requirements` probed here), then start a worker in the chosen tier
    and run a program in it: a tier is only reported as working once it has run something."""
    from codegym.executor import Job, Step
    from codegym.executor.isolation import probe
    from codegym.executor.local import LocalExecutor
    from codegym.requirements import family_report

    print(probe().render())
    print()
    print("families (what each needs installed; docs/families/<family>.md says how):")
    print(family_report(sorted(i for i in gym.registry if i.startswith("codegym/"))))
    print()
    try:
        with LocalExecutor(workers=1, isolation=requested) as executor:
            result = executor.run(Job(files={"check.py": b"print(6 * 7)"}, steps=(Step(("python", "check.py")),)))
    except SandboxError as e:
        print(f"the sandbox does not run here: {e}")
        return 1
    ran = result.steps[0].stdout == b"42\n"
    verdict = "ok" if ran else "FAILED"
    print(f"ran a program in the {result.isolation!r} tier (limits by cgroup {result.cgroup}): {verdict}")
    return 0 if ran else 1


def _serve(args: argparse.Namespace) -> int:
    """Run the server until interrupted."""
    from codegym.serve import ServeConfig, serve

    options = {**dict(args.option), **({"executor": args.executor} if args.executor else {})}
    limits = {"max_concurrency": args.max_concurrency} if args.max_concurrency else {}
    config = ServeConfig(host=args.host, port=args.port, token=args.token, insecure=args.insecure,
                         max_sessions=args.max_sessions, idle_timeout_s=args.idle_timeout,
                         max_request_bytes=args.max_request_bytes, allow_paths=args.allow_paths, env_kwargs=options,
                         record=args.record, **limits)  # fmt: skip
    print(f"codegym serve: http://{args.host}:{args.port} (envs under /envs/<id>, e.g. "
          f"/envs/{DEFAULT_ENV}/ws; auth: {'token' if config.auth else 'none'})", file=sys.stderr)  # fmt: skip
    serve(config)
    return 0


def _validate(env_id: str, tasks: str | None, runs: int, quarantine: Path | None, executor: str | None,
              options: Mapping[str, Any] | None = None) -> int:  # fmt: skip
    """Print the validation's report; exit status 0 when every task is valid, 1 otherwise."""
    if quarantine is not None and not quarantine.parent.is_dir():
        raise UsageError(f"--quarantine {quarantine}: no folder {quarantine.parent} to write it in")
    kwargs = {**(options or {}), **{k: v for k, v in {"tasks": tasks, "executor": executor}.items() if v is not None}}
    report = codegym.validate(env_id, runs=runs, progress=True, **kwargs)
    print(report.render())
    if quarantine is not None:
        report.write_quarantine(quarantine)
        print(f"quarantine file ({len(report.quarantined)} tasks): {quarantine}")
    return 0 if not report.quarantined else 1


# --- score ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Line:
    """One non-blank line of a samples file: its sample, or why it cannot be graded."""

    number: int
    text: str
    record: Mapping[str, Any] | None = None
    task_id: str | int = ""
    code: str = ""
    error: str | None = None


def _read_samples(path: Path) -> list[_Line]:
    """Every non-blank line of the samples file, each read or with why it cannot be."""
    expected = f"a JSONL file of samples, one per line: {SAMPLE_LINE}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file; expected {expected}") from None
    except IsADirectoryError:
        raise UsageError(f"{path} is a folder; expected {expected}") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{path}: cannot be read ({e}); expected {expected}") from None
    if not text.strip():
        raise UsageError(f"{path}: the file is empty; expected {expected}")
    return [_sample(line.number, line.text, line.value, line.error) for line in json_lines(text)]


def _sample(number: int, text: str, value: Any, error: str | None) -> _Line:
    if error is not None:
        return _Line(number, text, error=f"{error}; expected {SAMPLE_LINE}")
    if not isinstance(value, dict):
        return _Line(number, text, error=f"expected a JSON object ({SAMPLE_LINE}), got a JSON {json_kind(value)}: "
                     f"{shown(value)}")  # fmt: skip
    task_id = value.get("task_id")
    if task_id is None:
        return _Line(number, text, value, error=f"missing field 'task_id' (the task the sample answers); this line "
                     f"has {sorted(value)}")  # fmt: skip
    if not isinstance(task_id, (str, int)) or isinstance(task_id, bool):
        return _Line(number, text, value, error=f"field 'task_id' must be a string or an integer, got "
                     f"{json_kind(task_id)} {shown(task_id)}")  # fmt: skip
    field = next((name for name in SAMPLE_FIELDS if name in value), None)
    if field is None:
        return _Line(number, text, value, error=f"missing the code: a sample holds it in one of the fields "
                     f"{', '.join(SAMPLE_FIELDS)}; this line has {sorted(value)}")  # fmt: skip
    code = value[field]
    if not isinstance(code, str):
        return _Line(number, text, value, error=f"field {field!r} must be a string (the code), got "
                     f"{json_kind(code)} {shown(code)}")  # fmt: skip
    return _Line(number, text, value, task_id, code)


def _score(
    samples: Path,
    env_id: str,
    tasks: str | None,
    ks: list[int] | None,
    out: Path | None,
    executor: str | None = None,
    *,
    force: bool = False,
    skip_bad: bool = False,
    options: Mapping[str, Any] | None = None,
    details: bool = False,
    record: Path | None = None,
) -> int:
    lines = _read_samples(samples)
    out = _results_path(samples, out, force=force)
    good = [line for line in lines if line.error is None]
    if not good:
        raise UsageError(_bad_lines(samples, lines, lines, "nothing to grade"))
    tasks = tasks or _infer_tasks(good[0].task_id)
    kwargs: dict[str, Any] = {
        **(options or {}),
        **{k: v for k, v in {"tasks": tasks, "executor": executor}.items() if v},
    }
    started = time.perf_counter()
    with codegym.Scorer(env_id, **kwargs) as scorer:
        lines = _known_tasks(scorer, lines, named=tasks is not None)
        good = [line for line in lines if line.error is None]
        bad = [line for line in lines if line.error is not None]
        if bad and (not skip_bad or not good):
            fix = "fix them, or pass --skip-bad to grade the others (the results file then lists the skipped lines)"
            raise UsageError(_bad_lines(samples, lines, bad, "nothing was graded") + ("\n" + fix) * bool(good))
        pairs = [(str(line.task_id), line.code) for line in good]
        grades = scorer.score(pairs, progress=True) if record is None else _recorded(env_id, kwargs, pairs, record)
        rewards = [scorer.env.reward(grade) for grade in grades]
        found = [scorer.env.tasks.get(line.task_id) for line in good]
    elapsed = time.perf_counter() - started
    replaced = out.exists()
    _write_results(out, lines, dict(zip([line.number for line in good], zip(grades, rewards, strict=True),
                                        strict=True)), details=details)  # fmt: skip
    per_task: dict[str, list[bool]] = defaultdict(list)
    difficulty: dict[str, str] = {}
    for task, grade in zip(found, grades, strict=True):
        per_task[task.id].append(bool(grade.solved))
        difficulty[task.id] = task.difficulty or "unknown"
    print(f"scored {len(grades)} samples of {len(per_task)} tasks in {elapsed:.1f} s ({len(grades) / elapsed:.0f}/s)")
    if bad:
        print(f"skipped {len(bad)} line(s) that cannot be graded (graded: false in the results): lines "
              f"{_ranges([line.number for line in bad])}")  # fmt: skip
    print("status:", dict(Counter(g.status.value for g in grades).most_common()))
    print(f"solved: {sum(bool(g.solved) for g in grades)} of {len(grades)} samples (the family's \"solved\": "
          "pass@k counts these)")  # fmt: skip
    print(f"mean reward: {sum(rewards) / len(rewards):.4f}")
    wanted = list(ks or DEFAULT_KS)
    for line in _pass_lines(wanted, per_task, asked=ks is not None):
        print(line)
    if len(set(difficulty.values())) > 1:
        print("by difficulty:")
        for line in _by_difficulty(wanted, per_task, difficulty):
            print("  " + line)
    print(f"per-sample results: {out}" + (" (replaced the file that was there)" if replaced else ""))
    if record is not None:
        print(f"episodes appended to {record} (codegym.episodes.read_episodes reads them)")
    return 0


def _recorded(env_id: str, kwargs: Mapping[str, Any], pairs: list[tuple[str, str]], path: Path) -> list[Grade]:
    """Grade each ``(task_id, answer)`` as a one-step episode of the env, recorded to ``path``
    (`RecordEpisodes`): a few envs at once, one per thread, on the shared executor."""
    from concurrent.futures import ThreadPoolExecutor

    from tqdm import tqdm

    from codegym.episodes import RecordEpisodes

    local = threading.local()
    made: list[gym.Env] = []

    def grade(pair: tuple[str, str]) -> Grade:
        if not hasattr(local, "env"):
            local.env = RecordEpisodes(gym.make(env_id, **kwargs), path)
            made.append(local.env)
        local.env.reset(options={"task_id": pair[0]})
        *_, info = local.env.step(pair[1])
        return info["grade"]

    try:
        with ThreadPoolExecutor(RECORDING_ENVS, thread_name_prefix="codegym-record") as pool:
            return list(tqdm(pool.map(grade, pairs), total=len(pairs), desc="scoring", unit="sample"))
    finally:
        for env in made:
            env.close()


def _results_path(samples: Path, out: Path | None, *, force: bool) -> Path:
    """Where the results go; an earlier run's at the default path stop the run unless ``force``."""
    path = out or samples.with_name(samples.stem + "_results.jsonl")
    if out is None and path.exists() and not force:
        raise UsageError(
            f"{path} exists (an earlier run's results); pass --force to replace it, or --out FILE to write elsewhere"
        )
    if not path.parent.is_dir():
        raise UsageError(f"--out {path}: no folder {path.parent} to write it in")
    if path.resolve() == samples.resolve():
        raise UsageError(f"--out {path} is the samples file; name another file for the results")
    return path


def _known_tasks(scorer: codegym.Scorer, lines: list[_Line], *, named: bool) -> list[_Line]:
    """``lines``, those naming a task the env does not hold marked as bad (by id)."""
    unknown: dict[str, str | None] = {}
    for line in lines:
        key = str(line.task_id)
        if line.error is None and key not in unknown:
            try:
                scorer.env.tasks.get(line.task_id)
                unknown[key] = None
            except UnknownTask as e:
                unknown[key] = str(e) + ("" if named else " Pass --tasks to name the task set.")
    return [dataclasses.replace(line, error=unknown[str(line.task_id)]) if line.error is None and
            unknown[str(line.task_id)] else line for line in lines]  # fmt: skip


def _bad_lines(samples: Path, lines: list[_Line], bad: list[_Line], outcome: str) -> str:
    """The bad lines, those with the same error on one line with their numbers."""
    by_error: dict[str, list[int]] = defaultdict(list)
    for line in bad:
        by_error[line.error or ""].append(line.number)
    listed = [f"  line{'s' * (len(numbers) > 1)} {_ranges(numbers)}: {error}" for error, numbers in by_error.items()]
    head = f"{samples}: {len(bad)} of {len(lines)} lines cannot be graded; {outcome}:"
    return "\n".join([head, *listed])


def _ranges(numbers: list[int]) -> str:
    """``[1, 2, 3, 7]`` as ``1-3, 7``."""
    spans: list[list[int]] = []
    for number in sorted(numbers):
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in spans)


def _write_results(
    out: Path, lines: list[_Line], graded: Mapping[int, tuple[Grade, float]], *, details: bool = False
) -> None:
    """One row per line of the samples file, in its order: the grade of each graded sample
    (with ``details``, every test's outcome), and ``graded: false`` with the reason for each
    line that was skipped."""
    try:
        with out.open("w", encoding="utf-8") as handle:
            for line in lines:
                row = _result_row(line, graded.get(line.number))
                if details and line.number in graded:
                    row["tests"] = [_test_row(test) for test in graded[line.number][0].tests]
                handle.write(json.dumps(row) + "\n")
    except OSError as e:
        raise UsageError(f"cannot write the results to {out}: {e}") from None


def _test_row(test: TestOutcome) -> dict[str, Any]:
    """A test's outcome for the results file: its fields that are set (a trace cut to
    `SHOWN_TRACE` characters)."""
    fields = {"name": test.name, "passed": test.passed, "hidden": test.hidden, "tier": test.tier,
              "status": test.status, "call": test.call, "expected": test.expected, "got": test.got,
              "trace": test.trace[-SHOWN_TRACE:] if test.trace else None, "time_s": test.time_s}  # fmt: skip
    return {name: value for name, value in fields.items() if value is not None}


def _result_row(line: _Line, result: tuple[Grade, float] | None) -> dict[str, Any]:
    record = dict(line.record or {})
    if result is None:
        text = {} if line.record is not None else {"text": line.text[:200]}
        return {**record, **text, "line": line.number, "graded": False, "status": None, "error": line.error}
    grade, reward = result
    failed = [t.name for t in grade.tests if not t.passed]
    diagnostics = [{k: v for k, v in dataclasses.asdict(d).items() if v is not None}
                   for d in grade.diagnostics[:SHOWN_DIAGNOSTICS]]  # fmt: skip
    return {**record, "line": line.number, "graded": True, "status": grade.status.value, "passed": grade.passed,
            "solved": bool(grade.solved), "pass_rate": grade.pass_rate, "reward": reward, "message": grade.message,
            "diagnostics": diagnostics, "failed_tests": failed[:SHOWN_FAILED],
            "metrics": dict(grade.metrics)}  # fmt: skip


def _pass_lines(ks: Sequence[int], per_task: Mapping[str, list[bool]], *, asked: bool) -> list[str]:
    """``pass@k: VALUE`` for each k that every task has k samples for; for the others, one
    line saying why, when they were ``asked`` for with -k (the defaults are left out quietly)."""
    values = {k: _pass_at(k, per_task) for k in ks}
    lines = [f"pass@{k}: {value:.4f}" for k, value in values.items() if value is not None]
    missing = [k for k, value in values.items() if value is None]
    if missing and asked:
        fewest = min(len(v) for v in per_task.values())
        names = ", ".join(f"pass@{k}" for k in missing)
        lines.append(f"{names}: not computed: each needs k samples of every task; the fewest a task has is {fewest}")
    return lines


def _pass_at(k: int, per_task: Mapping[str, list[bool]]) -> float | None:
    """The mean over tasks of the unbiased pass@k of each task's solved samples; None when
    some task has fewer than k samples."""
    if not per_task or any(len(v) < k for v in per_task.values()):
        return None
    return sum(pass_at_k(len(v), sum(v), k) for v in per_task.values()) / len(per_task)


def _by_difficulty(ks: Sequence[int], per_task: Mapping[str, list[bool]], difficulty: Mapping[str, str]) -> list[str]:
    """One line per difficulty (easy, medium, hard, then others): tasks, samples, the share
    solved, and each pass@k that can be computed over its tasks."""
    order = {"easy": 0, "medium": 1, "hard": 2}
    lines = []
    for level in sorted(set(difficulty.values()), key=lambda d: (order.get(d, 3), d)):
        tasks = {t: v for t, v in per_task.items() if difficulty[t] == level}
        samples = [s for v in tasks.values() for s in v]
        passes = [f"pass@{k} {value:.4f}" for k in ks if (value := _pass_at(k, tasks)) is not None]
        lines.append(f"{level:8} {len(tasks)} tasks, {len(samples)} samples, solved {sum(samples) / len(samples):.4f}"
                     + "".join(f", {p}" for p in passes))  # fmt: skip
    return lines


def _infer_tasks(task_id: str | int) -> str | None:
    """The task set a task id belongs to, where its form tells (else the env's own default)."""
    text = str(task_id)
    if text.startswith("HumanEval/"):
        return "humaneval"
    if text.startswith("codegym-py/"):
        return "codegym-py"
    return None


def _write_demo_samples(path: Path) -> None:
    """Two samples per HumanEval task: the canonical solution, and a broken variant."""
    env = gym.make(DEFAULT_ENV, tasks="humaneval").unwrapped
    try:
        with path.open("w") as handle:
            for task in env.tasks:  # type: ignore[attr-defined]
                completion = task.metadata["completion"]
                broken = f"def {task.metadata['entry_point']}(*args, **kwargs):\n    return None\n"
                for code in (completion, broken):
                    handle.write(json.dumps({"task_id": task.id, "completion": code}) + "\n")
    except OSError as e:
        raise UsageError(f"cannot write the demo samples to {path}: {e}") from None


if __name__ == "__main__":
    raise SystemExit(main())
