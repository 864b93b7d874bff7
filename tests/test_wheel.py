"""codegym as a user installs it: the wheel built from this checkout holds every family's data,
and installed (not editable) in a fresh virtual environment it loads every registered env's
bundled task set and scores a reference of each ``OK``.

The fresh environment sees this one's dependencies through a ``.pth`` line (so nothing is
downloaded: the test runs offline), not its editable codegym, and the script runs from a
folder outside the checkout, so the checkout is never imported. TritonKernel needs a CUDA GPU
to run a kernel: where there is none its task set is loaded but its reference is not scored.
No env needs a Docker image (RepoRepair's bundled tasks run on the local backend)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

ROOT = Path(__file__).resolve().parents[1]
NEEDS_GPU = {"codegym/TritonKernel-v0"}
SCRIPT = """
import json, sys
import gymnasium as gym
import codegym

needs_gpu = set(sys.argv[1].split(","))
try:
    import torch
    gpu = torch.cuda.is_available()
except ImportError:
    gpu = False
out = {"codegym": codegym.__file__, "envs": {}}
for env_id in sorted(i for i in gym.registry if i.startswith("codegym/")):
    env = gym.make(env_id).unwrapped
    try:
        tasks = list(env.tasks)
        task = next(t for t in tasks if t.reference)
        row = {"tasks": len(tasks), "task": task.id}
        if env_id not in needs_gpu or gpu:
            (grade,) = codegym.Scorer(env).score([(task.id, task.reference)])
            row.update(status=grade.status.value, reward=env.reward(grade), message=grade.message[:300])
    finally:
        env.close()
    out["envs"][env_id] = row
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout's wheel, built offline with this environment's setuptools, which warns
    of nothing (a data folder not declared as a package was a page of warnings each)."""
    into = tmp_path_factory.mktemp("wheel")
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
               "-w", str(into), str(ROOT)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in (done.stdout + done.stderr).lower(), done.stdout + done.stderr
    return next(into.glob("codegym-*.whl"))


def test_the_wheel_holds_every_family_data_file(wheel: Path) -> None:
    """Every file under a family's ``data/`` folder is in the wheel (a new family's or a new
    kind of file included)."""
    expected = {
        "codegym/envs/" + path.relative_to(ROOT / "envs").as_posix()
        for path in (ROOT / "envs").glob("*/data/**/*")
        if path.is_file() and "__pycache__" not in path.parts
    }
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {"codegym/envs/dafny/data/codegym-dafny", "codegym/envs/whyml/data/codegym-whyml"} <= {
        name.rpartition("/")[0] for name in expected
    }
    assert sorted(expected - names) == []
    assert "codegym/py.typed" in names and "codegym/envs/stdio_program/languages.yaml" in names


def test_an_installed_wheel_loads_and_scores_every_env(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.check_output([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())  # fmt: skip
    # This environment's packages, without its editable codegym (its finder is installed by a
    # .pth of its own, which a folder added by a .pth line does not run).
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index",
               str(wheel)]  # fmt: skip
    done = subprocess.run(install, capture_output=True, text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    environ = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    work = tmp_path / "elsewhere"
    work.mkdir()
    ran = subprocess.run([python, "-c", SCRIPT, ",".join(NEEDS_GPU)], cwd=work, env=environ, capture_output=True,
                         text=True, check=False, timeout=540)  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-4000:]
    out = json.loads(ran.stdout.splitlines()[-1])
    assert Path(out["codegym"]).is_relative_to(site), out["codegym"]  # the wheel's, not the checkout's
    import gymnasium as gym

    import codegym  # noqa: F401

    assert sorted(out["envs"]) == sorted(i for i in gym.registry if i.startswith("codegym/"))
    for env_id, row in out["envs"].items():
        assert row["tasks"] > 0, env_id
        if env_id in NEEDS_GPU and "status" not in row:
            continue  # (no CUDA GPU here: the task set loaded, its reference was not run)
        assert (row["status"], row["reward"]) == ("OK", 1.0), (env_id, row)
