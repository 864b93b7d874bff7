"""Task folders checked by Harbor's own task loader (the ``harbor`` package from PyPI).

Harbor 0.26 needs Python 3.12 or later; this Debian has 3.11. So the check runs in a box over
a Debian 13 (trixie, Python 3.13) root with ``harbor==0.26.*`` installed by pip, both layers of
codegym's layer store (`codegym.executor.layers.LayerStore`: built once, cached after). Each
folder is copied (readable by the box's root, which is no host user) and bound read-only at
``/tasks/<n>``, where ``harbor.models.task.task.Task`` loads it (``task.toml`` through its
pydantic model, the input paths and the tests checked) and ``Task.is_valid_dir`` says whether
Harbor would list it as a task. `harbor_validate_trajectories` does the same for ATIF trajectory
files (`codegym.episodes.to_atif`): each is loaded with ``harbor.models.trajectories.Trajectory``
and must come back from the model whole.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from codegym.error import SandboxError
from codegym.executor.layers import LayerStore
from codegym.executor.rootbox import BoxSpec, RootBox, run_root

HARBOR_REQUIREMENT = "harbor==0.26.*"
BASE_PACKAGES = ("python3", "python3-venv", "python3-pip", "ca-certificates")
CHECK_TIMEOUT_S = 300.0

SCRIPT = """
import json, sys
from harbor.models.task.task import Task
for path in sys.argv[1:]:
    try:
        task = Task(path)
        valid = Task.is_valid_dir(path)
        solve = task.paths.discovered_solve_path
        problems = [] if valid else ["Task.is_valid_dir says no"]
        if not task.instruction.strip():
            problems.append("the instruction is empty")
        if solve is None:
            problems.append("no solution/solve.sh")
        message = "; ".join(problems) or (f"harbor {task.name}: task.toml schema {task.config.schema_version}, "
                                          f"metadata {sorted(task.config.metadata)}")
        print(json.dumps({"path": path, "ok": not problems, "message": message}))
    except Exception as e:
        print(json.dumps({"path": path, "ok": False, "message": f"{type(e).__name__}: {e}"[:2000]}))
"""

TRAJECTORY_SCRIPT = """
import json, sys
from harbor.models.trajectories import Trajectory

def same(a, b):  # (harbor's dump leaves out what is None)
    if isinstance(a, dict) and isinstance(b, dict):
        keys = {k for k, v in a.items() if v is not None} | {k for k, v in b.items() if v is not None}
        return all(same(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b

for path in sys.argv[1:]:
    try:
        with open(path, encoding="utf-8") as file:
            data = json.load(file)
        trajectory = Trajectory.model_validate(data)
        whole = same(trajectory.to_json_dict(), data)
        message = (f"harbor {trajectory.schema_version}: {len(trajectory.steps)} steps, agent {trajectory.agent.name}"
                   + ("" if whole else "; harbor's model gives it back changed"))
        print(json.dumps({"path": path, "ok": whole, "message": message}))
    except Exception as e:
        print(json.dumps({"path": path, "ok": False, "message": f"{type(e).__name__}: {e}"[:2000]}))
"""


def harbor_layers(store: LayerStore | None = None) -> tuple[str, ...]:
    """The stack (top first) of a Debian 13 root with ``harbor`` installed (built once)."""
    store = store or LayerStore()
    base = store.base("trixie", BASE_PACKAGES)
    command = f"pip install --break-system-packages --no-cache-dir '{HARBOR_REQUIREMENT}'"
    return (store.run((base,), ["/bin/sh", "-c", command], timeout_s=1800.0), base)


def harbor_check(
    folders: Sequence[str | os.PathLike[str]], *, store: LayerStore | None = None
) -> list[tuple[Path, bool, str]]:
    """Each task folder loaded by Harbor's ``Task``: ``(folder, ok, message)`` (the message
    says what Harbor read, or what it refused)."""
    return _in_harbor_box([Path(f).resolve() for f in folders], "/tasks", SCRIPT, store)


def harbor_validate_trajectories(
    paths: Sequence[str | os.PathLike[str]], *, store: LayerStore | None = None
) -> list[tuple[Path, bool, str]]:
    """Each ATIF trajectory file loaded with Harbor's ``Trajectory`` model: ``(path, ok,
    message)``; ok when the model accepts it and gives it back whole (the message says which
    schema version and how many steps Harbor read, or what it refused)."""
    return _in_harbor_box([Path(p).resolve() for p in paths], "/trajectories", TRAJECTORY_SCRIPT, store)


def _in_harbor_box(
    paths: list[Path], mount: str, script: str, store: LayerStore | None
) -> list[tuple[Path, bool, str]]:
    """Run ``script`` on copies of ``paths`` (files or folders, bound read-only under
    ``mount``) in a box over Harbor's root; each path's verdict, from the line the script
    prints for it (``{"path", "ok", "message"}``)."""
    if not paths:
        return []
    layers = harbor_layers(store)
    os.makedirs(run_root(), mode=0o700, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="harbor-", dir=os.path.dirname(run_root()))
    try:
        os.chmod(scratch, 0o755)
        binds = []
        for index, path in enumerate(paths):
            copy = os.path.join(scratch, str(index), path.name)
            if path.is_dir():
                shutil.copytree(path, copy, symlinks=True)
            else:
                os.makedirs(os.path.dirname(copy))
                shutil.copyfile(path, copy)
            _readable(os.path.join(scratch, str(index)))
            binds.append((os.path.join(scratch, str(index)), f"{mount}/{index}", True))
        inside = [f"{mount}/{i}/{p.name}" for i, p in enumerate(paths)]
        with RootBox(BoxSpec(layers=layers, binds=tuple(binds))) as box:
            result = box.run(("python3", "-c", script, *inside), timeout_s=CHECK_TIMEOUT_S, output_bytes=1 << 20)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    found: dict[str, tuple[bool, str]] = {}
    for line in result.output.splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and row.get("path") in inside:
            found[row["path"]] = (bool(row["ok"]), str(row["message"]))
    if not found and result.exit_code != 0:
        raise SandboxError(f"harbor's check did not run (exit {result.exit_code}): {result.output[-2000:]}")
    missing = (False, f"harbor's check gave no verdict: {result.output[-500:]}")
    return [(path, *found.get(name, missing)) for path, name in zip(paths, inside, strict=True)]


def _readable(top: str) -> None:
    """Everything under ``top`` readable (and folders enterable) by any user."""
    for folder, _, names in os.walk(top):
        os.chmod(folder, 0o755)
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode | 0o444)
