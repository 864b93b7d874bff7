"""Terminal tasks as users hold them: Harbor task folders and Terminal-Bench 1 folders, read
into one `TerminalTask`.

Harbor (``task.toml`` with ``version``/``schema_version`` 1.x or 2.x)::

    task-name/
      task.toml            [metadata] [verifier] timeout_sec, env  [agent] timeout_sec, user
                           [environment] build_timeout_sec, cpus, memory_mb (or memory = "4G"),
                           storage_mb (or storage), gpus, allow_internet (or network_mode), workdir,
                           docker_image  [solution] env  [[steps]] name, agent, verifier, min_reward
      instruction.md
      environment/Dockerfile (+ docker-compose.yaml, the build context's other files)
      tests/test.sh (+ test_*.py, fixtures)      copied to /tests; run as ``bash /tests/test.sh``
      solution/solve.sh                          copied to /solution; run as ``bash /solution/solve.sh``
      steps/<name>/instruction.md, tests/, solution/, workdir/ (+ workdir/setup.sh)
                           (a multi-step task: one folder per [[steps]])

Terminal-Bench 1 (``task.yaml``)::

    task-name/
      task.yaml            instruction (or the early descriptions: [{key: base, description}]),
                           author_name/author_email, difficulty, category, tags,
                           parser_name, max_agent_timeout_sec, max_test_timeout_sec,
                           run_tests_in_same_shell
      Dockerfile, docker-compose.yaml   (the build context is the task folder)
      run-tests.sh, tests/              both copied to /tests (``TEST_DIR=/tests``);
                                        run as ``bash /tests/run-tests.sh`` (a task
                                        without one gets `TB_DEFAULT_RUN_TESTS`)
      solution.sh or solution.yaml      (a list of commands, turned into a script here)

`load_task` reads a folder (either layout), `load_tasks` a task folder or a folder of them,
`task_from_row` a row whose keys are the same relative paths (plus ``id``). A malformed task
raises `codegym.error.TaskFormatError` naming the file and the fix.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from codegym.error import DependencyNotInstalled, TaskFormatError

__all__ = [
    "HARBOR",
    "TERMINAL_BENCH",
    "Resources",
    "TaskStep",
    "TerminalTask",
    "load_task",
    "load_tasks",
    "task_dirs",
    "task_from_row",
]

HARBOR = "harbor"
TERMINAL_BENCH = "terminal-bench"
TESTS_DIR = "/tests"
SOLUTION_DIR = "/solution"
# Harbor's defaults where task.toml says nothing (its 1.x schema's; later ones leave them unset).
AGENT_TIMEOUT_S = 600.0
VERIFIER_TIMEOUT_S = 600.0
BUILD_TIMEOUT_S = 600.0
# Terminal-Bench 1's defaults.
TB_AGENT_TIMEOUT_S = 360.0
TB_TEST_TIMEOUT_S = 60.0
# What runs where a Terminal-Bench 1 task has no run-tests.sh (its harness supplied one).
TB_DEFAULT_RUN_TESTS = """\
#!/bin/bash
# no run-tests.sh in the task: its tests run with pytest
cd "$TEST_DIR"
python3 -m pytest -rA "$TEST_DIR"
"""
_VERSION = re.compile(r"[12](\.\d+){0,2}")
_COMPOSE_NAMES = ("docker-compose.yaml", "docker-compose.yml", "compose.yaml", "compose.yml")
_EMPTY: Mapping[str, Any] = MappingProxyType({})


def _empty() -> Mapping[str, Any]:
    return _EMPTY


@dataclass(frozen=True)
class Resources:
    """What the task asks of the machine (``[environment]`` of task.toml).

    Attributes:
        cpus: CPU count.
        memory_mb: memory limit in MiB.
        storage_mb: disk limit in MiB.
        gpus: GPU count (a task that needs one does not run here).
        allow_internet: whether the task lets the agent reach the internet (``network_mode``
            ``"no-network"`` is False); episodes here are offline either way.
    """

    cpus: int = 1
    memory_mb: int = 2048
    storage_mb: int = 10240
    gpus: int = 0
    allow_internet: bool = True


@dataclass(frozen=True)
class TaskStep:
    """One step of a multi-step Harbor task (a ``[[steps]]`` table and its ``steps/<name>/`` folder).

    Attributes:
        name: the step's name (its folder under ``steps/``).
        index: its 0-based position.
        instruction: ``steps/<name>/instruction.md``.
        tests: the files copied to ``/tests`` for this step: the task's ``tests/`` with the step's
            own ``tests/`` over it (same-named files replaced).
        test_command: what the verifier runs.
        solution: ``steps/<name>/solution/`` (empty when the step has none).
        solution_command: what the oracle runs (empty when there is no solution).
        agent_timeout_s: the step's agent timeout (the task's where the step sets none).
        verifier_timeout_s: the step's verifier timeout (the task's where the step sets none).
        min_reward: the reward below which the remaining steps are skipped, or None.
        executables: paths (``tests/...``, ``solution/...``, ``workdir/...``) of the step's files that
            are executable.
        workdir_files: ``steps/<name>/workdir/``: copied into the working directory before the
            agent's turn; its ``setup.sh`` (Harbor's reserved name) then runs there as the agent's
            user, and a failure ends the task.
    """

    name: str
    index: int
    instruction: str
    tests: Mapping[str, bytes]
    test_command: tuple[str, ...]
    solution: Mapping[str, bytes]
    solution_command: tuple[str, ...]
    agent_timeout_s: float
    verifier_timeout_s: float
    min_reward: float | Mapping[str, float] | None = None
    executables: frozenset[str] = frozenset()
    workdir_files: Mapping[str, bytes] = field(default_factory=_empty)

    @property
    def setup_script(self) -> bytes | None:
        """``workdir/setup.sh``, the step's setup hook, or None."""
        return self.workdir_files.get("setup.sh")


@dataclass(frozen=True)
class TerminalTask:
    """A terminal task: an instruction, an environment (a Dockerfile and its build context),
    hidden tests and an oracle solution.

    Attributes:
        id: the task's id (its folder's name, or a row's ``id``).
        instruction: the instruction shown to the agent (for a multi-step task, ``instruction.md``
            at its root if any, else the first step's).
        dockerfile: the Dockerfile's text (``FROM <docker_image>`` where task.toml names a
            prebuilt image and there is no Dockerfile; empty when only a compose file builds).
        context: the build context's files by relative path (Harbor: ``environment/``;
            Terminal-Bench 1: the task folder, less its ``.dockerignore`` patterns).
        tests: the files copied to `tests_dir` before the verifier runs.
        test_command: the verifier's argv (``("bash", "/tests/test.sh")``).
        tests_dir: where the tests go in the environment (``/tests`` in both layouts).
        test_env: environment variables the verifier gets (``[verifier] env``; ``TEST_DIR``
            for Terminal-Bench 1).
        solution: the oracle's files, copied to ``/solution``.
        solution_command: the oracle's argv (empty when the task has no solution).
        solution_env: environment variables the oracle gets (``[solution] env``).
        agent_timeout_s: seconds the agent has.
        verifier_timeout_s: seconds the verifier has.
        build_timeout_s: seconds the environment's build has.
        resources: what the task asks of the machine.
        workdir: ``[environment] workdir`` (overrides the Dockerfile's WORKDIR), or None.
        agent_user: ``[agent] user``, or None for the image's USER.
        verifier_user: ``[verifier] user``, or None for the image's USER.
        steps: the steps of a multi-step task (empty for a single-step one).
        reward_strategy: how a multi-step task's steps make its reward (``"mean"``, ``"final"``),
            or None.
        metadata: everything else the task file says (``[metadata]`` and ``[task]`` of
            task.toml; task.yaml's difficulty, category, tags, author_name, parser_name, ...).
        layout: ``"harbor"`` or ``"terminal-bench"``.
        compose: whether a docker compose file is present.
        compose_services: the compose file's service names (``main`` is Harbor's agent
            container, ``client`` Terminal-Bench 1's).
        source: the folder the task was read from, or ``row:<id>``.
        executables: the executable files, as ``context/<path>``, ``tests/<path>`` and
            ``solution/<path>`` (in a row, every ``.sh`` file).
        version: the task file's schema version (``"1.0"``, ``"2.0"``; ``"tb1"`` for task.yaml).
    """

    id: str
    instruction: str
    dockerfile: str
    context: Mapping[str, bytes]
    tests: Mapping[str, bytes]
    test_command: tuple[str, ...]
    solution: Mapping[str, bytes] = field(default_factory=_empty)
    solution_command: tuple[str, ...] = ()
    tests_dir: str = TESTS_DIR
    test_env: Mapping[str, str] = field(default_factory=_empty)
    solution_env: Mapping[str, str] = field(default_factory=_empty)
    agent_timeout_s: float = AGENT_TIMEOUT_S
    verifier_timeout_s: float = VERIFIER_TIMEOUT_S
    build_timeout_s: float = BUILD_TIMEOUT_S
    resources: Resources = field(default_factory=Resources)
    workdir: str | None = None
    agent_user: str | None = None
    verifier_user: str | None = None
    steps: tuple[TaskStep, ...] = ()
    reward_strategy: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=_empty)
    layout: str = HARBOR
    compose: bool = False
    compose_services: tuple[str, ...] = ()
    source: str = ""
    executables: frozenset[str] = frozenset()
    version: str = "1.0"


# ---------------------------------------------------------------------------------------------
# Files: a task as a mapping from relative path to bytes, from a folder or a row.


@dataclass(frozen=True)
class _Files:
    """A task's files (relative ``/`` paths) and which of them are executable."""

    data: Mapping[str, bytes]
    executable: frozenset[str]
    source: str

    def has(self, path: str) -> bool:
        return path in self.data

    def text(self, path: str) -> str:
        """The file as text: a BOM removed, CRLF made LF."""
        try:
            text = self.data[path].decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise TaskFormatError(f"{self.where(path)} is not UTF-8 text; save it as UTF-8") from e
        return text.replace("\r\n", "\n")

    def under(self, folder: str) -> dict[str, bytes]:
        prefix = folder.rstrip("/") + "/"
        return {path[len(prefix) :]: data for path, data in self.data.items() if path.startswith(prefix)}

    def executables_under(self, folder: str, label: str) -> set[str]:
        prefix = folder.rstrip("/") + "/"
        return {label + "/" + path[len(prefix) :] for path in self.executable if path.startswith(prefix)}

    def where(self, path: str) -> str:
        return f"{self.source}/{path}" if not self.source.startswith("row:") else f"{path} of {self.source}"


def _read_folder(folder: Path) -> _Files:
    data: dict[str, bytes] = {}
    executable: set[str] = set()
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(name for name in dirs if name not in (".git", "__pycache__"))
        for name in sorted(names):
            path = Path(root, name)
            if not path.is_file():
                continue
            relative = path.relative_to(folder).as_posix()
            data[relative] = path.read_bytes()
            if os.access(path, os.X_OK):
                executable.add(relative)
    return _Files(MappingProxyType(data), frozenset(executable), str(folder))


def _row_files(row: Mapping[str, Any], task_id: str) -> _Files:
    data: dict[str, bytes] = {}
    for key, value in row.items():
        if key in ("id", "task_id", "executables") or value is None:
            continue
        if isinstance(value, str):
            data[key.strip("/")] = value.encode()
        elif isinstance(value, (bytes, bytearray)):
            data[key.strip("/")] = bytes(value)
        else:
            raise TaskFormatError(
                f"row {task_id!r}: {key!r} is {type(value).__name__}; each file's value must be its text (str) or bytes"
            )
    listed = row.get("executables")
    executable = set(listed) if isinstance(listed, (list, tuple)) else {p for p in data if p.endswith(".sh")}
    return _Files(MappingProxyType(data), frozenset(executable), f"row:{task_id}")


# ---------------------------------------------------------------------------------------------
# Loaders


def load_task(path: str | os.PathLike[str], task_id: str | None = None) -> TerminalTask:
    """Reads one task folder, Harbor or Terminal-Bench 1 (detected by task.toml / task.yaml).

    Args:
        path: the task's folder.
        task_id: the id to give it (the folder's name by default).

    Raises:
        TaskFormatError: the folder is no task, or a file of it is malformed (the message names
            the file and the fix).
    """
    folder = Path(path)
    if not folder.is_dir():
        raise TaskFormatError(f"{folder} is not a folder; give a task folder (task.toml or task.yaml in it)")
    return _from_files(_read_folder(folder), task_id or folder.resolve().name)


def task_dirs(path: str | os.PathLike[str]) -> tuple[Path, ...]:
    """The task folders at ``path``: itself if it is one, else its sub-folders that are, sorted.

    A sub-folder with an ``instruction.md`` but no task file counts as a task (so that loading it
    says what is missing); other sub-folders (docs, hidden ones) are not tasks.

    Raises:
        TaskFormatError: ``path`` is not a folder or holds no task.
    """
    folder = Path(path)
    if _is_task_dir(folder):
        return (folder,)
    if not folder.is_dir():
        raise TaskFormatError(f"{folder} is not a folder; give a task folder or a folder of task folders")
    found = tuple(
        sorted(
            child
            for child in folder.iterdir()
            if not child.name.startswith(".") and (_is_task_dir(child) or (child / "instruction.md").is_file())
        )
    )
    if not found:
        raise TaskFormatError(
            f"{folder} holds no task folder (none has a task.toml or task.yaml); give a task "
            "folder in Harbor's layout or Terminal-Bench 1's, or a folder of them"
        )
    return found


def _is_task_dir(folder: Path) -> bool:
    return (folder / "task.toml").is_file() or (folder / "task.yaml").is_file()


def load_tasks(path: str | os.PathLike[str]) -> tuple[TerminalTask, ...]:
    """Reads a task folder or a folder of task folders (sorted by name; ids are folder names).

    Raises:
        TaskFormatError: as `load_task` does, for the first malformed task (use `task_dirs` and
            `load_task` to go on past one).
    """
    return tuple(load_task(folder) for folder in task_dirs(path))


def task_from_row(row: Mapping[str, Any]) -> TerminalTask:
    """Reads a task from a row: ``id`` and the task's files keyed by relative path.

    Example: ``{"id": "hello", "task.toml": "...", "instruction.md": "...",
    "environment/Dockerfile": "FROM debian:bookworm-slim\\n", "tests/test.sh": "..."}``, or a
    Terminal-Bench 1 row with ``task.yaml``, ``Dockerfile``, ``run-tests.sh``, ``tests/...``.
    Values are str or bytes; an optional ``executables`` list names the executable files
    (every ``.sh`` file by default).

    Raises:
        TaskFormatError: the row has no ``id`` or no task file, or a file is malformed.
    """
    task_id = row.get("id", row.get("task_id"))
    if not isinstance(task_id, (str, int)) or task_id == "":
        raise TaskFormatError(f"a task row needs an 'id' (str); this one has keys {sorted(row)[:8]}")
    return _from_files(_row_files(row, str(task_id)), str(task_id))


def _from_files(files: _Files, task_id: str) -> TerminalTask:
    if files.has("task.toml"):
        return _harbor(files, task_id)
    if files.has("task.yaml"):
        return _terminal_bench(files, task_id)
    raise TaskFormatError(f"{files.source} has no task.toml (Harbor) nor task.yaml (Terminal-Bench 1); add one")


# ---------------------------------------------------------------------------------------------
# Harbor


def _harbor(files: _Files, task_id: str) -> TerminalTask:
    config = _toml(files, "task.toml")
    version = _version(files, config)
    environment = _table(files, config, "environment")
    verifier = _table(files, config, "verifier")
    agent = _table(files, config, "agent")
    tests = files.under("tests")
    steps = _steps(files, config, tests, agent, verifier)
    instruction = _harbor_instruction(files, steps)
    compose_name = next((f"environment/{name}" for name in _COMPOSE_NAMES if files.has(f"environment/{name}")), None)
    dockerfile = _harbor_dockerfile(files, environment, compose_name)
    if not steps and "test.sh" not in tests:
        raise TaskFormatError(
            f"{files.where('tests/test.sh')} is missing; a Harbor task's verifier is tests/test.sh "
            "(it writes /logs/verifier/reward.txt)"
        )
    solution = files.under("solution")
    return TerminalTask(
        id=task_id,
        instruction=instruction,
        dockerfile=dockerfile,
        context=MappingProxyType(files.under("environment")),
        tests=MappingProxyType(tests),
        test_command=("bash", f"{TESTS_DIR}/test.sh") if "test.sh" in tests else (),
        solution=MappingProxyType(solution),
        solution_command=("bash", f"{SOLUTION_DIR}/solve.sh") if "solve.sh" in solution else (),
        test_env=_strings(files, verifier, "env", "[verifier] env"),
        solution_env=_strings(files, _table(files, config, "solution"), "env", "[solution] env"),
        agent_timeout_s=_seconds(files, agent, "timeout_sec", AGENT_TIMEOUT_S, "[agent]"),
        verifier_timeout_s=_seconds(files, verifier, "timeout_sec", VERIFIER_TIMEOUT_S, "[verifier]"),
        build_timeout_s=_seconds(files, environment, "build_timeout_sec", BUILD_TIMEOUT_S, "[environment]"),
        resources=_resources(files, environment),
        workdir=_optional_str(files, environment, "workdir", "[environment]"),
        agent_user=_user(agent.get("user")),
        verifier_user=_user(verifier.get("user")),
        steps=steps,
        reward_strategy=_optional_str(files, config, "multi_step_reward_strategy", "task.toml"),
        metadata=MappingProxyType(_harbor_metadata(files, config)),
        layout=HARBOR,
        compose=compose_name is not None,
        compose_services=_services(files, compose_name) if compose_name else (),
        source=files.source,
        executables=frozenset(
            files.executables_under("environment", "context")
            | files.executables_under("tests", "tests")
            | files.executables_under("solution", "solution")
        ),
        version=version,
    )


def _toml(files: _Files, path: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        try:
            import tomli as tomllib
        except ModuleNotFoundError as e:
            raise DependencyNotInstalled("reading task.toml on Python 3.10 needs tomli: pip install tomli") from e
    try:
        return tomllib.loads(files.text(path))
    except tomllib.TOMLDecodeError as e:
        raise TaskFormatError(f"{files.where(path)} is not valid TOML ({e}); fix the line it names") from e


def _version(files: _Files, config: Mapping[str, Any]) -> str:
    value = config.get("schema_version", config.get("version", "1.0"))
    version = str(value)
    if not _VERSION.fullmatch(version):
        raise TaskFormatError(
            f"{files.where('task.toml')}: version {value!r} is not one read here (1.x or 2.x); "
            'set version = "1.0" (or schema_version) if the file follows Harbor\'s schema'
        )
    return version


def _table(files: _Files, config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = config.get(name, {})
    if not isinstance(value, Mapping):
        raise TaskFormatError(
            f"{files.where('task.toml')}: {name} must be a table ([{name}]), not {type(value).__name__}"
        )
    return value


def _seconds(files: _Files, table: Mapping[str, Any], key: str, default: float, section: str) -> float:
    value = table.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise TaskFormatError(
            f"{files.where('task.toml')}: {section} {key} = {value!r}; give a positive number of seconds"
        )
    return float(value)


def _optional_str(files: _Files, table: Mapping[str, Any], key: str, section: str) -> str | None:
    value = table.get(key)
    if value is None or isinstance(value, str):
        return value
    raise TaskFormatError(f"{files.where('task.toml')}: {section} {key} = {value!r}; give a string")


def _user(value: Any) -> str | None:
    return None if value is None else str(value)


def _strings(files: _Files, table: Mapping[str, Any], key: str, label: str) -> Mapping[str, str]:
    value = table.get(key, {})
    if not isinstance(value, Mapping):
        raise TaskFormatError(f"{files.where('task.toml')}: {label} must be a table of strings")
    return MappingProxyType({str(name): str(item) for name, item in value.items()})


def _size_mb(files: _Files, value: Any, key: str) -> int:
    """A size given the old way (``memory = "4G"``, ``"512M"``) in MiB."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT])i?B?\s*", str(value), re.IGNORECASE)
    if not match:
        raise TaskFormatError(
            f"{files.where('task.toml')}: [environment] {key} = {value!r}; give a size like "
            f'"4G" or "512M", or use {key}_mb = 4096'
        )
    number, unit = float(match.group(1)), match.group(2).upper()
    return int(number * {"K": 1 / 1024, "M": 1, "G": 1024, "T": 1024 * 1024}[unit])


def _count(files: _Files, table: Mapping[str, Any], key: str, default: int) -> int:
    value = table.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise TaskFormatError(f"{files.where('task.toml')}: [environment] {key} = {value!r}; give a whole number")
    return value


def _resources(files: _Files, environment: Mapping[str, Any]) -> Resources:
    defaults = Resources()
    memory = _count(files, environment, "memory_mb", defaults.memory_mb)
    storage = _count(files, environment, "storage_mb", defaults.storage_mb)
    if "memory_mb" not in environment and environment.get("memory") is not None:
        memory = _size_mb(files, environment["memory"], "memory")
    if "storage_mb" not in environment and environment.get("storage") is not None:
        storage = _size_mb(files, environment["storage"], "storage")
    internet = environment.get("allow_internet", True)
    mode = environment.get("network_mode")
    if mode is not None:
        internet = mode != "no-network"
    if not isinstance(internet, bool):
        raise TaskFormatError(
            f"{files.where('task.toml')}: [environment] allow_internet = {internet!r}; give true or false"
        )
    return Resources(
        cpus=_count(files, environment, "cpus", defaults.cpus),
        memory_mb=memory,
        storage_mb=storage,
        gpus=_count(files, environment, "gpus", defaults.gpus),
        allow_internet=internet,
    )


def _harbor_dockerfile(files: _Files, environment: Mapping[str, Any], compose_name: str | None) -> str:
    if files.has("environment/Dockerfile"):
        return files.text("environment/Dockerfile")
    image = environment.get("docker_image")
    if isinstance(image, str) and image:
        return f"FROM {image}\n"
    if compose_name is not None:
        return ""
    raise TaskFormatError(
        f"{files.where('environment/Dockerfile')} is missing; a Harbor task's environment is "
        "environment/Dockerfile (or [environment] docker_image in task.toml)"
    )


def _harbor_instruction(files: _Files, steps: tuple[TaskStep, ...]) -> str:
    if files.has("instruction.md"):
        return files.text("instruction.md")
    if steps:
        return steps[0].instruction
    raise TaskFormatError(f"{files.where('instruction.md')} is missing; write the task's instruction there")


def _harbor_metadata(files: _Files, config: Mapping[str, Any]) -> dict[str, Any]:
    metadata = dict(_table(files, config, "metadata"))
    package = config.get("task")
    if isinstance(package, Mapping):
        metadata.setdefault("task", dict(package))
    if isinstance(config.get("source"), str):
        metadata.setdefault("source", config["source"])
    return metadata


def _steps(
    files: _Files,
    config: Mapping[str, Any],
    tests: Mapping[str, bytes],
    agent: Mapping[str, Any],
    verifier: Mapping[str, Any],
) -> tuple[TaskStep, ...]:
    tables = config.get("steps")
    if tables is None:
        return ()
    if not isinstance(tables, list) or not all(isinstance(table, Mapping) for table in tables):
        raise TaskFormatError(f"{files.where('task.toml')}: steps must be [[steps]] tables, each with a name")
    return tuple(_step(files, table, index, tests, agent, verifier) for index, table in enumerate(tables))


def _step(
    files: _Files,
    table: Mapping[str, Any],
    index: int,
    tests: Mapping[str, bytes],
    agent: Mapping[str, Any],
    verifier: Mapping[str, Any],
) -> TaskStep:
    name = table.get("name")
    if not isinstance(name, str) or not name or "/" in name or name in (".", ".."):
        raise TaskFormatError(
            f"{files.where('task.toml')}: [[steps]] number {index + 1} needs a name (its folder under steps/)"
        )
    folder = f"steps/{name}"
    if not files.has(f"{folder}/instruction.md"):
        raise TaskFormatError(
            f"{files.where(folder + '/instruction.md')} is missing; each step's instruction is "
            "steps/<name>/instruction.md"
        )
    step_tests = {**tests, **files.under(f"{folder}/tests")}
    if "test.sh" not in step_tests:
        raise TaskFormatError(
            f"{files.where(folder + '/tests/test.sh')} is missing and the task has no "
            "tests/test.sh to fall back on; add one"
        )
    solution = files.under(f"{folder}/solution")
    step_agent = {**agent, **_mapping(table.get("agent"))}
    step_verifier = {**verifier, **_mapping(table.get("verifier"))}
    executables = (
        files.executables_under("tests", "tests")
        | files.executables_under(f"{folder}/tests", "tests")
        | files.executables_under(f"{folder}/solution", "solution")
        | files.executables_under(f"{folder}/workdir", "workdir")
    )
    return TaskStep(
        name=name,
        index=index,
        instruction=files.text(f"{folder}/instruction.md"),
        tests=MappingProxyType(step_tests),
        test_command=("bash", f"{TESTS_DIR}/test.sh"),
        solution=MappingProxyType(solution),
        solution_command=("bash", f"{SOLUTION_DIR}/solve.sh") if "solve.sh" in solution else (),
        agent_timeout_s=_seconds(files, step_agent, "timeout_sec", AGENT_TIMEOUT_S, f"[steps.agent] of {name}"),
        verifier_timeout_s=_seconds(
            files, step_verifier, "timeout_sec", VERIFIER_TIMEOUT_S, f"[steps.verifier] of {name}"
        ),
        min_reward=_min_reward(files, table.get("min_reward"), name),
        executables=frozenset(executables),
        workdir_files=MappingProxyType(files.under(f"{folder}/workdir")),
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _min_reward(files: _Files, value: Any, name: str) -> float | Mapping[str, float] | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, Mapping) and all(isinstance(item, (int, float)) for item in value.values()):
        return MappingProxyType({str(key): float(item) for key, item in value.items()})
    raise TaskFormatError(
        f"{files.where('task.toml')}: min_reward of step {name} = {value!r}; give a number or a table of numbers"
    )


def _services(files: _Files, path: str) -> tuple[str, ...]:
    try:
        document = yaml.safe_load(files.text(path))
    except yaml.YAMLError as e:
        raise TaskFormatError(f"{files.where(path)} is not valid YAML ({e}); fix it") from e
    services = document.get("services") if isinstance(document, Mapping) else None
    if not isinstance(services, Mapping):
        raise TaskFormatError(f"{files.where(path)} has no services: mapping; a compose file lists its services")
    return tuple(str(name) for name in services)


# ---------------------------------------------------------------------------------------------
# Terminal-Bench 1


def _terminal_bench(files: _Files, task_id: str) -> TerminalTask:
    config = _yaml_task(files)
    instruction = _tb_instruction(files, config)
    if not files.has("Dockerfile") and not files.has("docker-compose.yaml"):
        raise TaskFormatError(
            f"{files.where('Dockerfile')} is missing; a Terminal-Bench task's environment is the Dockerfile at its root"
        )
    run_tests = files.data.get("run-tests.sh")
    if run_tests is None:
        config["run_tests"] = "default"  # noted by the import report
        run_tests = TB_DEFAULT_RUN_TESTS.encode()
    tests = {**files.under("tests"), "run-tests.sh": run_tests}
    solution, solution_command = _tb_solution(files)
    compose_name = next((name for name in _COMPOSE_NAMES if files.has(name)), None)
    timeouts = {
        key: _tb_seconds(files, config, key, default)
        for key, default in (("max_agent_timeout_sec", TB_AGENT_TIMEOUT_S), ("max_test_timeout_sec", TB_TEST_TIMEOUT_S))
    }
    metadata = {key: value for key, value in config.items() if key not in ("instruction", "descriptions", *timeouts)}
    executables = {"context/" + path for path in files.executable} | files.executables_under("tests", "tests")
    if "run-tests.sh" in files.executable:
        executables.add("tests/run-tests.sh")
    if "solution.sh" in files.executable:
        executables.add("solution/solution.sh")
    return TerminalTask(
        id=task_id,
        instruction=instruction.replace("\r\n", "\n"),
        dockerfile=files.text("Dockerfile") if files.has("Dockerfile") else "",
        context=MappingProxyType(_tb_context(files)),
        tests=MappingProxyType(tests),
        test_command=("bash", f"{TESTS_DIR}/run-tests.sh"),
        solution=MappingProxyType(solution),
        solution_command=solution_command,
        test_env=MappingProxyType({"TEST_DIR": TESTS_DIR}),
        agent_timeout_s=timeouts["max_agent_timeout_sec"],
        verifier_timeout_s=timeouts["max_test_timeout_sec"],
        metadata=MappingProxyType(metadata),
        layout=TERMINAL_BENCH,
        compose=compose_name is not None,
        compose_services=_services(files, compose_name) if compose_name else (),
        source=files.source,
        executables=frozenset(executables),
        version="tb1",
    )


def _tb_instruction(files: _Files, config: Mapping[str, Any]) -> str:
    """``instruction``, or the early ``descriptions: [{key: base, description: ...}]`` form."""
    instruction = config.get("instruction")
    descriptions = config.get("descriptions")
    if instruction is None and isinstance(descriptions, list) and descriptions:
        entries = [entry for entry in descriptions if isinstance(entry, Mapping)]
        base = next((entry for entry in entries if entry.get("key") == "base"), entries[0] if entries else {})
        instruction = base.get("description", base.get("instruction"))
    if not isinstance(instruction, str) or not instruction.strip():
        raise TaskFormatError(
            f"{files.where('task.yaml')} has no instruction; add `instruction: |` with the task's text"
        )
    return instruction


def _yaml_task(files: _Files) -> dict[str, Any]:
    try:
        config = yaml.safe_load(files.text("task.yaml"))
    except yaml.YAMLError as e:
        raise TaskFormatError(f"{files.where('task.yaml')} is not valid YAML ({e}); fix it") from e
    if not isinstance(config, dict):
        raise TaskFormatError(f"{files.where('task.yaml')} must be a mapping (instruction: ..., difficulty: ...)")
    return config


def _tb_seconds(files: _Files, config: Mapping[str, Any], key: str, default: float) -> float:
    value = config.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise TaskFormatError(f"{files.where('task.yaml')}: {key} = {value!r}; give a positive number of seconds")
    return float(value)


def _tb_solution(files: _Files) -> tuple[dict[str, bytes], tuple[str, ...]]:
    if files.has("solution.sh"):
        return {"solution.sh": files.data["solution.sh"]}, ("bash", f"{SOLUTION_DIR}/solution.sh")
    if not files.has("solution.yaml"):
        return {}, ()
    try:
        steps = yaml.safe_load(files.text("solution.yaml"))
    except yaml.YAMLError as e:
        raise TaskFormatError(f"{files.where('solution.yaml')} is not valid YAML ({e}); fix it") from e
    commands = [step.get("command") if isinstance(step, Mapping) else step for step in steps or []]
    if not all(isinstance(command, str) for command in commands):
        raise TaskFormatError(f"{files.where('solution.yaml')} must be a list of commands (- command: ...)")
    commands = [str(command) for command in commands]
    script = "#!/bin/bash\n# from solution.yaml: its commands in order\n" + "\n".join(commands) + "\n"
    return {"solution.sh": script.encode()}, ("bash", f"{SOLUTION_DIR}/solution.sh")


def _tb_context(files: _Files) -> dict[str, bytes]:
    """The task folder as Docker's build context: less what ``.dockerignore`` excludes."""
    patterns = [line.strip() for line in files.text(".dockerignore").splitlines()] if files.has(".dockerignore") else []
    patterns = [pattern for pattern in patterns if pattern and not pattern.startswith("#")]
    return {path: data for path, data in files.data.items() if not _ignored(path, patterns)}


def _ignored(path: str, patterns: list[str]) -> bool:
    ignored = False
    for pattern in patterns:
        glob = pattern.removeprefix("!").strip("/").removeprefix("./")
        if _matches(path, glob):
            ignored = not pattern.startswith("!")
    return ignored


def _matches(path: str, glob: str) -> bool:
    if fnmatch.fnmatchcase(path, glob) or path.startswith(glob + "/"):
        return True
    return glob.startswith("**/") and _matches(path.rpartition("/")[2], glob[3:])
