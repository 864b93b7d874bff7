"""Terminal tasks inside a Docker container, where a trainer runs as the container's root
without CAP_SYS_ADMIN: with Docker's seccomp profile and /proc masks lifted
(``--security-opt seccomp=unconfined --security-opt systempaths=unconfined``) its machines run
in the `userns` tier; with only the seccomp profile lifted, or in a default container, the
error says what to add. This machine's /usr, /etc, Python, checkout and layer store are bound
into the container read-only (no registry, nothing downloaded)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from codegym.executor.layers import default_root
from codegym.executor.rootbox import available
from codegym.harness.install import default_root as harness_root
from codegym.harness.install import installed
from codegym.harness.recipe import recipe

from .test_cheats import CHEATS
from .test_plain_user import REPO, RUNNER

pytestmark = [
    pytest.mark.docker,
    pytest.mark.timeout(900),
    pytest.mark.skipif(available() is not None, reason=str(available())),
]
UNCONFINED = ("--security-opt", "seccomp=unconfined", "--security-opt", "systempaths=unconfined")


def _docker_run(image: str, options: tuple[str, ...], mounts: list[str], argv: list[str], stdin: str = "") -> Any:
    cache = tempfile.mkdtemp(prefix="codegym-container-cache-")  # (a host folder: overlay's upper layers need one)
    harness = [harness_root()] if os.path.isdir(harness_root()) else []
    shared = ("/usr", "/etc", sys.base_prefix, str(REPO), default_root(), *harness, *mounts)
    volumes = [f"-v{path}:{path}:ro" for path in shared]
    environment = [f"-eCODEGYM_CACHE={cache}", f"-eCODEGYM_TERMINAL_STORE={default_root()}", "-eHOME=/root",
                   f"-eCODEGYM_HARNESS_TOOLS={harness_root()}"]  # fmt: skip
    command = ["docker", "run", "--rm", "-i", "--network", "none", *options, *volumes, f"-v{cache}:{cache}",
               *environment, "-w", str(REPO), image, *argv]  # fmt: skip
    try:
        return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=600, check=False)
    finally:
        subprocess.run(["rm", "-rf", cache], check=False)


def test_a_container_without_seccomp_and_proc_masks_runs_episodes(bare_image: str, imported_tasks: Path) -> None:
    cases = [["oracle sum", "sum", None], ["oracle sum-service", "sum-service", None], ["nothing", "sum", "true"]]
    cases += [[cheat, "sum", CHEATS[cheat]] for cheat in ("reward file written ahead", "python3 replaced",
                                                          "planted conftest.py", "a process left to write after submit")]  # fmt: skip
    request = json.dumps({"tasks": str(imported_tasks), "cases": cases})
    ran = _docker_run(bare_image, UNCONFINED, [str(imported_tasks)], [sys.executable, str(RUNNER)], request)
    assert ran.returncode == 0, ran.stderr[-4000:]
    results = json.loads(ran.stdout)
    assert results.pop("isolation") == "userns"
    assert results.pop("agent")["reward"] == 1.0
    assert results.pop("fork") == {"reward": 1.0, "terminated": True}  # (a snapshot's fork, graded on its own)
    codex = installed(recipe("codex")) is not None  # (Codex answering from its machine, its proxy on the loopback)
    assert results.pop("harness") == ({"reward": 1.0, "status": "exited"} if codex else None)
    rewards = {label: outcome["reward"] for label, outcome in results.items()}
    assert rewards == {label: (1.0 if label.startswith("oracle") else 0.0) for label, _, _ in cases}, results


def test_a_container_that_refuses_says_what_to_add(bare_image: str, imported_tasks: Path) -> None:
    """Docker's /proc masks keep a fresh /proc from a user namespace: the box's error names the
    option that lifts them. A default container refuses user namespaces: `available` says so."""
    request = json.dumps({"tasks": str(imported_tasks), "cases": [["oracle", "sum", None]]})
    seccomp_only = UNCONFINED[:2]
    ran = _docker_run(bare_image, seccomp_only, [str(imported_tasks)], [sys.executable, str(RUNNER)], request)
    assert ran.returncode != 0 and "systempaths=unconfined" in ran.stderr, ran.stderr[-4000:]
    script = "from codegym.executor.rootbox import available; print(available())"
    ran = _docker_run(bare_image, (), [], [sys.executable, "-c", script])
    assert ran.returncode == 0, ran.stderr[-4000:]
    assert "container" in ran.stdout and "--privileged" in ran.stdout, ran.stdout
    assert os.path.isdir(default_root())
