"""SWE-bench-format rows over task images already in the Docker engine.

The image is made here in SWE-bench's layout (the checkout at ``/testbed`` with a git history
that holds the fix, the test environment's interpreter at
``/opt/miniconda3/envs/testbed/bin/python``), on top of codegym's own Debian image: no
registry is reachable, and none is needed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.library import Library, environment
from codegym.envs.repo_repair.sandbox import close_images
from codegym.envs.repo_repair.tasks import load_swe_bench

from codegym.executor import images

from .shapes import shapes_repository, swe_row

pytestmark = [pytest.mark.docker, pytest.mark.timeout(900)]
IMAGE = "codegym-test/swe-acme__shapes-1:latest"
PYTHON = """\
#!/bin/sh
# The task environment's interpreter, as a conda env would hold it.
PYTHONPATH=/opt/miniconda3/envs/testbed/site${PYTHONPATH:+:$PYTHONPATH} exec /usr/bin/python3 "$@"
"""
DOCKERFILE = """\
FROM {base}
COPY testbed /testbed
COPY site /opt/miniconda3/envs/testbed/site
COPY python /opt/miniconda3/envs/testbed/bin/python
COPY pytest /opt/miniconda3/envs/testbed/bin/pytest
"""


@pytest.fixture(scope="module")
def task_image(docker_daemon: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The image, and a JSONL row whose gold patch fixes the checkout in it."""
    context = tmp_path_factory.mktemp("image")
    base = shapes_repository(context / "testbed")
    shutil.copytree(environment(Library("pytest-only", "0", "0", packages=("x",))).site, context / "site")
    (context / "python").write_text(PYTHON)
    (context / "pytest").write_text('#!/bin/sh\nexec /opt/miniconda3/envs/testbed/bin/python -m pytest "$@"\n')
    for script in ("python", "pytest"):
        (context / script).chmod(0o755)
    recipe = images.ensure(docker_daemon, images.recipe("python"))
    (context / "Dockerfile").write_text(DOCKERFILE.format(base=recipe))
    docker_daemon.images.build(path=str(context), tag=IMAGE, rm=True)
    jsonl = context / "instances.jsonl"
    jsonl.write_text(json.dumps(swe_row(base)) + "\n")
    yield jsonl, IMAGE
    close_images()
    docker_daemon.images.remove(IMAGE, force=True)


def test_a_task_image_grades_gold_one_and_empty_zero(task_image: tuple[Path, str]) -> None:
    jsonl, _ = task_image
    tasks = load_swe_bench(jsonl, images="codegym-test/swe-{instance_id}:latest")
    task = tasks.get("acme__shapes-1")
    instance = task.metadata["instance"]
    assert instance.image.name == IMAGE
    assert ".git/HEAD" not in instance.base and "w + h" in instance.base["shapes/__init__.py"].decode()
    env = RepoRepairEnv(tasks)
    scores = {}
    for name, answer in (("gold", task.reference or ""), ("empty", "")):
        env.reset(options={"task_id": task.id})
        _, scores[name], _, _, info = env.step(answer)
        assert info["grade"].resources["wall_s"] > 0
    assert scores == {"gold": 1.0, "empty": 0.0}


def test_an_agent_works_in_the_task_image(task_image: tuple[Path, str]) -> None:
    jsonl, _ = task_image
    tasks = load_swe_bench(jsonl, images={"acme__shapes-1": IMAGE})
    env = RepoRepairEnv(tasks, mode="agent")
    env.reset(options={"task_id": "acme__shapes-1"})
    call = '<tool_call>{"name": "bash", "arguments": {"command": "ls -a; pytest -q tests"}}</tool_call>'
    observation, *_ = env.step(call)
    assert "1 passed" in observation["feedback"], observation["feedback"]  # (the image's environment)
    assert "test_area.py" not in observation["feedback"]  # (hidden)
    assert "\n.git\n" in observation["feedback"]  # (a fresh repository: the image's history is left out)
    edit = {"name": "str_replace_editor", "arguments": {"command": "str_replace", "path": "shapes/__init__.py",
                                                        "old_str": "w + h", "new_str": "w * h"}}  # fmt: skip
    observation, *_ = env.step(edit)
    assert "w * h" in observation["feedback"], observation["feedback"]
    _, reward, terminated, _, info = env.step({"name": "submit", "arguments": {}})
    assert (reward, terminated, info["status"]) == (1.0, True, "OK"), info["code"]
    env.close()
