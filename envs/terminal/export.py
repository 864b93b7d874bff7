"""Export: any codegym family's tasks as Harbor task folders whose verdict is codegym's own.

``codegym terminal export ENV_ID --tasks SRC OUT_DIR`` (`export_tasks`) writes one folder per
task in Harbor's layout (``task.toml`` version ``1.0``, ``instruction.md``,
``environment/Dockerfile``, ``tests/``, ``solution/solve.sh``):

- ``instruction.md``: the env's prompt, then the file the answer goes in
  (``/app/answer.<ext>``, by the task's language: `ANSWER_NAMES`).
- ``environment/Dockerfile``: ``FROM debian:bookworm-slim``, the Debian packages the family
  needs for the task's language (the env class's ``requires``), ``python3`` and
  ``python3-pytest``; codegym's dependencies from PyPI; codegym's wheel (built from this
  checkout at export time) copied to ``/opt/codegym-verifier/``. Only the tests name that
  folder, so codegym's importer keeps it out of the agent's view (the wheel holds every
  bundled task's reference). RepoRepair's library test environment is installed at build
  (``$CODEGYM_CACHE`` under ``/usr/local/lib/python3.11``, where the verifier drops the
  agent's changes); the verifier has no network.
- ``tests/task.json``: the codegym task itself, hidden tests included (`encode`: tagged JSON
  of the `Task` and the frozen dataclasses its metadata holds, read back by `decode`), the env
  id and keyword arguments, the answer's path and the per-test names the reference's grade
  has. ``tests/test_codegym.py``: one pytest test per such name plus ``test_verdict``: a
  session fixture unpacks the wheel, makes the env and grades the answer with
  ``env.evaluate(task, code)``; each test passes iff codegym's outcome of that name passed,
  ``test_verdict`` iff codegym's status is ``OK``. ``tests/test.sh`` runs it and writes
  ``/logs/verifier/reward.txt`` as Harbor's tests do.
- ``solution/solve.sh``: writes the task's reference to the answer file.
- A repository's task (RepoRepair) also puts the buggy tree, its hidden test files left out,
  at ``/app/repo`` as a git repository (``git diff`` there gives the answer).

Inside a Terminal box codegym's executor finds the ``container`` isolation tier (no
``CAP_SYS_ADMIN``, user namespaces refused, Landlock available); its submissions' uids must
be ones the box maps (0..65535), so the verifier moves the executors' uid block there
(`codegym.executor._pool`'s default block starts at 2,000,000).
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import enum
import hashlib
import importlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from codegym.error import UsageError
from codegym.requirements import Requirements
from codegym.task import Task

FORMAT = "codegym-export/1"
VERIFIER_DIR = "/opt/codegym-verifier"
# Under the interpreter's library folder: the verifier drops whatever the agent changed there.
CACHE_DIR = "/usr/local/lib/python3.11/codegym-cache"
ANSWER_DIR = "/app"
REPOSITORY_DIR = "/app/repo"
ANSWER_NAMES = {"python": "answer.py", "c": "answer.c", "cpp": "answer.cpp", "rust": "answer.rs",
                "go": "answer.go", "java": "Main.java", "javascript": "answer.js", "ruby": "answer.rb",
                "lua": "answer.lua", "ocaml": "answer.ml", "fortran": "answer.f90", "r": "answer.R",
                "verilog": "answer.sv", "diff": "answer.diff", "bash": "answer.sh"}  # fmt: skip
IMAGE_PYTHON_TAG = "cp311"  # debian:bookworm-slim's python3
BASE_PACKAGES = ("python3", "python3-pip", "python3-pytest", "ca-certificates")
# What a package needs besides itself where recommended packages are not installed (gcc
# without the C library's headers compiles nothing).
COMPANIONS = {"gcc": ("libc6-dev",), "g++": ("libc6-dev",)}
ROOT = Path(__file__).resolve().parents[2]
_LANGUAGE = re.compile(r"language='([^']+)'")
_TAG = "__codegym__"


# --- a task as tagged JSON ----------------------------------------------------------------------


def encode(value: Any) -> Any:
    """``value`` (a `Task` and what its fields and metadata hold) as JSON values: tuples,
    bytes, sets, mappings with other keys than strings, enums and codegym's dataclasses are
    tagged so that `decode` gives back equal values."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, tuple):
        return {_TAG: "tuple", "items": [encode(v) for v in value]}
    if isinstance(value, bytes):
        return {_TAG: "bytes", "b64": base64.b64encode(value).decode()}
    if isinstance(value, frozenset | set):
        kind = "frozenset" if isinstance(value, frozenset) else "set"
        return {_TAG: kind, "items": sorted((encode(v) for v in value), key=json.dumps)}
    if isinstance(value, enum.Enum):
        return {_TAG: "enum", "type": _type_name(type(value)), "value": encode(value.value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {_TAG: "dataclass", "type": _type_name(type(value)), "fields": fields}
    if isinstance(value, Mapping):
        return {_TAG: "map", "items": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"cannot export a {type(value).__name__} ({value!r:.80}): only plain values, tuples, bytes, "
                    "sets, mappings, enums and codegym's dataclasses travel in an exported task")  # fmt: skip


def decode(value: Any) -> Any:
    """The value `encode` made ``value`` of (classes are codegym's own only)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(_TAG)
    if kind is None:
        return {k: decode(v) for k, v in value.items()}
    if kind == "tuple":
        return tuple(decode(v) for v in value["items"])
    if kind == "bytes":
        return base64.b64decode(value["b64"])
    if kind in ("frozenset", "set"):
        return (frozenset if kind == "frozenset" else set)(decode(v) for v in value["items"])
    if kind == "map":
        return {decode(k): decode(v) for k, v in value["items"]}
    cls = _codegym_type(value["type"])
    if kind == "enum":
        return cls(decode(value["value"]))
    if kind == "dataclass":
        return cls(**{name: decode(v) for name, v in value["fields"].items()})
    raise ValueError(f"unknown tag {kind!r} in an exported task")


def _type_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _codegym_type(name: str) -> Any:
    module, _, qualname = name.partition(":")
    if module != "codegym" and not module.startswith("codegym."):
        raise ValueError(f"an exported task names {name!r}: only codegym's own classes are read back")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


# --- the folder ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Exported:
    """One exported task.

    Attributes:
        task_id: The codegym task's id.
        folder: Its Harbor task folder.
        tests: The per-test names its verifier reports (besides ``test_verdict``).
    """

    task_id: str
    folder: Path
    tests: tuple[str, ...]


def export_tasks(
    env_id: str,
    tasks: Any,
    out_dir: str | Path,
    *,
    ids: Sequence[str] | None = None,
    wheel: str | Path | None = None,
    **env_kwargs: Any,
) -> list[Exported]:
    """Write each task of ``gym.make(env_id, tasks=tasks, **env_kwargs)`` (those of ``ids``,
    when given) as a Harbor task folder under ``out_dir`` (see the module docstring).

    Args:
        env_id: A registered codegym env id.
        tasks: The env's task source (None: its default).
        out_dir: Where the folders go (made if missing; a task's folder is replaced).
        ids: The tasks to export (default: all).
        wheel: codegym's wheel to put in the images (default: built from this checkout).
        **env_kwargs: The env's other keyword arguments (JSON values: the verifier makes the
            env with them too).

    Raises:
        UsageError: A task has no reference, its reference does not score ``OK`` here, or
            ``env_kwargs`` are not JSON values.
    """
    import gymnasium as gym

    try:
        json.dumps(env_kwargs)
    except TypeError as e:
        raise UsageError(f"env keyword arguments must be JSON values to travel with the tasks: {e}") from e
    env = gym.make(env_id, **({} if tasks is None else {"tasks": tasks}), **env_kwargs).unwrapped
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    try:
        chosen = [env.tasks.get(i) for i in ids] if ids is not None else list(env.tasks)
        with tempfile.TemporaryDirectory(prefix="codegym-wheel-") as scratch:
            built = Path(wheel) if wheel is not None else build_wheel(Path(scratch))
            check_wheel(built)
            return [_export_one(env, env_id, env_kwargs, task, out, built) for task in chosen]
    finally:
        env.close()


def build_wheel(into: Path) -> Path:
    """codegym's wheel, built from this checkout offline (as ``tests/test_wheel.py`` does)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
               "-w", str(into), str(ROOT)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    if done.returncode != 0:
        raise UsageError(f"cannot build codegym's wheel from {ROOT}: {(done.stdout + done.stderr)[-2000:]}")
    return next(into.glob("codegym-*.whl"))


def check_wheel(wheel: Path) -> None:
    """Raise `UsageError` unless ``wheel`` installs on the image's Python (Debian bookworm's 3.11)."""
    parts = wheel.name.removesuffix(".whl").split("-")
    python, abi = (parts[-3], parts[-2]) if len(parts) >= 5 else ("", "")
    if not (python == IMAGE_PYTHON_TAG or (python.startswith("py3") and abi == "none")):
        raise UsageError(
            f"{wheel.name} is for {python or 'an unknown Python'}; the exported image's Python is Debian bookworm's "
            f"3.11 ({IMAGE_PYTHON_TAG}), and codegym's wheel holds a C extension: export with a Python 3.11 interpreter"
        )


def _export_one(env: Any, env_id: str, env_kwargs: Mapping[str, Any], task: Task, out: Path, wheel: Path) -> Exported:
    if not task.reference:
        raise UsageError(f"task {task.id} has no reference: an exported task's solution/solve.sh writes it")
    language = answer_language(env, task)
    if language != task.language:
        raise UsageError(
            f"task {task.id}: its reference is {task.language}, the env's answers are {language}; export it with "
            f"the language of its reference (language={task.language!r}) or tasks whose references are {language}"
        )
    grade, _ = env.evaluate(task, task.reference)
    if grade.status.value != "OK":
        raise UsageError(f"task {task.id}: its reference scores {grade.status.value} here ({grade.message[:300]})")
    answer = f"{ANSWER_DIR}/{ANSWER_NAMES.get(language, 'answer.txt')}"
    names = tuple(t.name for t in grade.tests)
    folder = out / folder_name(task.id)
    if folder.exists():
        shutil.rmtree(folder)
    row = {"format": FORMAT, "env_id": env_id, "env_kwargs": dict(env_kwargs), "task_id": task.id,
           "answer": answer, "tests": list(names), "wheel": f"{VERIFIER_DIR}/{wheel.name}",
           "wheel_sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
           "task": encode(task)}  # fmt: skip
    files: dict[str, bytes] = {
        "task.toml": task_toml(env_id, task).encode(),
        "instruction.md": instruction(task, answer).encode(),
        "environment/Dockerfile": dockerfile(type(env), task, wheel).encode(),
        f"environment/codegym-verifier/{wheel.name}": wheel.read_bytes(),
        "tests/task.json": json.dumps(row, indent=1).encode(),
        "tests/test_codegym.py": TEST_MODULE.encode(),
        "tests/test.sh": TEST_SH.encode(),
        "solution/solve.sh": solve_sh(task.reference, answer).encode(),
    }
    if _library(task) is not None:
        files["environment/codegym-verifier/prepare.py"] = PREPARE.encode()
    for relative, data in (_workspace(task) or {}).items():
        files[f"environment/repo/{relative}"] = data
    for relative, data in files.items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        if path.suffix == ".sh":
            path.chmod(0o755)
    return Exported(task.id, folder, names)


def answer_language(env: Any, task: Task) -> str:
    """The language of the answer: the env's (StdioProgram's ``language=``), else the task's."""
    name = getattr(getattr(env, "language", None), "name", None)
    return name if isinstance(name, str) else task.language


def folder_name(task_id: str) -> str:
    """A folder name of a task id (``HumanEval/0`` -> ``HumanEval-0``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", task_id).strip(".-") or "task"


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value)  # (a JSON string is a TOML basic string)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(value)


def task_toml(env_id: str, task: Task) -> str:
    """``task.toml`` (version 1.0): ``[metadata]`` names the codegym env and task."""
    metadata = {"author_name": "codegym", "category": "codegym-" + task.family.replace("_", "-"),
                "tags": ["codegym", task.family, task.language, *task.tags], "codegym_env": env_id,
                "codegym_task": task.id, "codegym_family": task.family, "language": task.language}  # fmt: skip
    if task.difficulty:
        metadata["difficulty"] = task.difficulty
    lines = ['version = "1.0"', "", "[metadata]", *(f"{k} = {_toml_value(v)}" for k, v in metadata.items())]
    lines += ["", "[verifier]", "timeout_sec = 900.0", "", "[agent]", "timeout_sec = 1800.0", "",
              "[environment]", "build_timeout_sec = 1800.0", "cpus = 1", "memory_mb = 4096",
              "storage_mb = 10240", "allow_internet = false"]  # fmt: skip
    return "\n".join(lines) + "\n"


def instruction(task: Task, answer: str) -> str:
    """The env's prompt, then where the answer goes (and, for a repository's task, where it is)."""
    what = "a unified diff against the repository, as `git apply` takes it" if task.language == "diff" else (
        f"the whole {task.language} source of your solution")  # fmt: skip
    where = ""
    if _workspace(task) is not None:
        where = (f"The repository is at `{REPOSITORY_DIR}`, a git repository of its files as given: `git diff` "
                 "there gives your changes as a diff. ")  # fmt: skip
    return (f"{task.prompt.rstrip()}\n\n---\n\n{where}Write your answer to `{answer}`: {what}. Hidden tests "
            "grade that file's content once you are done.\n")  # fmt: skip


def packages(env_class: type, task: Task) -> tuple[str, ...]:
    """The Debian packages ``task`` needs: the family's tools (those for another language, or
    for another mode, left out) and the image's python3 and pytest."""
    chosen: list[str] = [*BASE_PACKAGES, *(("git",) if _workspace(task) is not None else ())]
    requires: Requirements = env_class.requires  # type: ignore[attr-defined]
    for tool in requires.tools:
        named = _LANGUAGE.findall(tool.needed_for)
        if (named and task.language not in named) or (tool.needed_for and not named):
            continue
        for package in (tool.package, *COMPANIONS.get(tool.package, ())):
            if package not in chosen:
                chosen.append(package)
    return tuple(chosen)


def python_requirements(env_class: type, wheel: Path) -> tuple[str, ...]:
    """codegym's dependencies (the wheel's ``Requires-Dist``) and those of the extras the
    family always needs (its modules needed for every task)."""
    requires: Requirements = env_class.requires  # type: ignore[attr-defined]
    extras = {m.extra for m in requires.modules if not m.needed_for and m.extra}
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(name).decode()
    found = []
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:"):
            continue
        requirement, _, marker = line.removeprefix("Requires-Dist:").strip().partition(";")
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if extra is None or extra.group(1) in extras:
            found.append(requirement.strip().replace(" ", ""))
    return tuple(dict.fromkeys(found))


def dockerfile(env_class: type, task: Task, wheel: Path) -> str:
    """``environment/Dockerfile`` (see the module docstring)."""
    requirements = " ".join(_shell_quote(r) for r in python_requirements(env_class, wheel))
    lines = [
        "FROM debian:bookworm-slim",
        "RUN apt-get update && apt-get install -y --no-install-recommends \\",
        f"        {' '.join(packages(env_class, task))} \\",
        "    && rm -rf /var/lib/apt/lists/*",
        f"RUN pip install --break-system-packages --no-cache-dir {requirements}",
        f"COPY codegym-verifier/ {VERIFIER_DIR}/",
    ]
    if _workspace(task) is not None:
        commit = "git -c user.name=codegym -c user.email=codegym@localhost commit -qm 'the repository'"
        lines += [f"COPY repo/ {REPOSITORY_DIR}/", f"RUN cd {REPOSITORY_DIR} && git init -q && git add -A && {commit}"]
    library = _library(task)
    if library is not None:
        argument = _shell_quote(json.dumps(library))
        lines += [f"ENV CODEGYM_CACHE={CACHE_DIR}",
                  f"RUN python3 {VERIFIER_DIR}/prepare.py {VERIFIER_DIR}/{wheel.name} {argument}"]  # fmt: skip
    lines.append(f"WORKDIR {ANSWER_DIR}")
    return "\n".join(lines) + "\n"


def _workspace(task: Task) -> dict[str, bytes] | None:
    """The files a repository task's agent starts from (RepoRepair's buggy tree, its hidden
    test files left out), put in the image at `REPOSITORY_DIR`; None for other tasks."""
    files = getattr(task.metadata.get("instance"), "workspace", None)
    if not isinstance(files, Mapping):
        return None
    return {str(path): bytes(data) for path, data in files.items()}  # type: ignore[arg-type]


def _library(task: Task) -> dict[str, Any] | None:
    """A RepoRepair task's library (as `Library.to_dict` gives it), whose test environment the
    image installs at build."""
    instance = task.metadata.get("instance")
    library = getattr(instance, "library", None)
    to_dict = getattr(library, "to_dict", None)
    if not callable(to_dict):
        return None
    found: dict[str, Any] = dict(to_dict())  # type: ignore[arg-type]
    return found


def _shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def solve_sh(reference: str, answer: str) -> str:
    """``solution/solve.sh``: the reference written to the answer file."""
    encoded = base64.encodebytes(reference.encode()).decode()
    heredoc = f"base64 -d > {answer} <<'CODEGYM_REFERENCE'\n{encoded}CODEGYM_REFERENCE\n"
    return f"#!/bin/bash\nset -e\nmkdir -p {ANSWER_DIR}\n{heredoc}"


TEST_SH = """\
#!/bin/bash
# codegym's verdict: tests/test_codegym.py grades the answer with codegym's own env.
mkdir -p /logs/verifier
cd /tests
if python3 -m pytest -q -p no:cacheprovider /tests/test_codegym.py; then
  echo 1 > /logs/verifier/reward.txt
else
  echo 0 > /logs/verifier/reward.txt
fi
"""

PREPARE = '''\
"""Install a RepoRepair library's test environment at build (the verifier has no network)."""
import json, os, shutil, sys, tempfile, zipfile

folder = tempfile.mkdtemp()
zipfile.ZipFile(sys.argv[1]).extractall(folder)
sys.path.insert(0, folder)
from codegym.envs.repo_repair.library import Library, cache_root, environment

environment(Library.from_dict(json.loads(sys.argv[2])))
for kept_out in ("src", "sdist"):  # (the unbroken source would be the answer)
    shutil.rmtree(cache_root() / kept_out, ignore_errors=True)
shutil.rmtree(folder)
'''

TEST_MODULE = '''\
"""codegym's verdict on the answer: each test is one of codegym's per-test outcomes."""
import hashlib
import io
import json
import os
import pathlib
import re
import sys
import tempfile
import zipfile

import pytest

ROW = json.loads(pathlib.Path(__file__).with_name("task.json").read_text())
NAMES = ROW["tests"]


def _id(index, name):
    return f"{index:03d}-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:80]


@pytest.fixture(scope="session")
def grade():
    data = pathlib.Path(ROW["wheel"]).read_bytes()
    # (the tests' own record of the wheel: a copy the agent put in its place is refused)
    assert hashlib.sha256(data).hexdigest() == ROW["wheel_sha256"], f"{ROW['wheel']} is not the exported wheel"
    folder = tempfile.mkdtemp(prefix="codegym-")
    os.chmod(folder, 0o755)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        archive.extractall(folder)
    sys.path.insert(0, folder)
    from codegym.executor import _pool

    # The box maps uids 0..65535 only: the executors' submission uids are taken from there.
    _pool.UID_FLOOR, _pool.PID_MODULUS = 20000, 1
    import gymnasium as gym

    import codegym  # noqa: F401
    from codegym.envs.terminal.export import decode
    from codegym.task import TaskSet

    task = decode(ROW["task"])
    answer = pathlib.Path(ROW["answer"])
    code = answer.read_text(errors="replace") if answer.is_file() else ""
    env = gym.make(ROW["env_id"], tasks=TaskSet([task]), **ROW["env_kwargs"]).unwrapped
    try:
        result, _ = env.evaluate(task, code)
    finally:
        env.close()
    print(f"codegym: {result.status.value}: {result.message}")
    return result


@pytest.mark.parametrize("index", range(len(NAMES)), ids=[_id(i, n) for i, n in enumerate(NAMES)])
def test_outcome(grade, index):
    name = NAMES[index]
    found = [t for t in grade.tests if t.name == name]
    assert found, f"not run ({grade.status.value}: {grade.message[:300]})"
    assert found[0].passed, (found[0].trace or found[0].status or "failed")[:500]


def test_verdict(grade):
    assert grade.status.value == "OK", f"{grade.status.value}: {grade.message[:300]}"
'''


# --- the command -----------------------------------------------------------------------------------


def add_parser(actions: argparse._SubParsersAction, parents: Sequence[argparse.ArgumentParser] = ()) -> None:  # type: ignore[type-arg]
    """Add ``export`` to ``codegym terminal``'s actions (with ``parents``' options)."""
    exported = actions.add_parser("export", parents=list(parents),
                                  help="write a codegym env's tasks as Harbor task folders")  # fmt: skip
    exported.add_argument("env_id", metavar="ENV_ID", help="a registered env id, e.g. codegym/PythonFunction-v0")
    exported.add_argument("--tasks", metavar="SRC", help="the env's task source (default: its own)")
    exported.add_argument("--id", dest="ids", action="append", metavar="TASK_ID", help="export only this task")
    exported.add_argument("--env-arg", dest="env_args", action="append", default=[], metavar="KEY=VALUE",
                          help="an env keyword argument (VALUE as JSON, else text), e.g. language=c")  # fmt: skip
    exported.add_argument("out_dir", type=Path, metavar="OUT_DIR", help="where the task folders go")


def run(args: argparse.Namespace) -> int:
    """``codegym terminal export``: one line per task written; exit status 0."""
    for done in export_tasks(args.env_id, args.tasks, args.out_dir, ids=args.ids, **_env_args(args.env_args)):
        print(f"{done.task_id} -> {done.folder} ({len(done.tests)} tests)", flush=True)
    return 0


def _env_args(pairs: Sequence[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env-arg {pair!r}: expected KEY=VALUE, e.g. --env-arg language=c")
        try:
            found[key] = json.loads(value)
        except ValueError:
            found[key] = value
    return found


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m codegym.envs.terminal.export ENV_ID --tasks SRC OUT_DIR``."""
    parser = argparse.ArgumentParser(prog="codegym terminal")
    add_parser(parser.add_subparsers(dest="action", required=True))
    return run(parser.parse_args(["export", *(sys.argv[1:] if argv is None else argv)]))


if __name__ == "__main__":
    raise SystemExit(main())
