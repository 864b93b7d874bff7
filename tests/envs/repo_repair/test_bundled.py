"""The bundled tasks: their files load (the sdists fetched from PyPI by hash, the bugs made
again from their addresses) and a task of each library validates. The whole set is validated
by ``codegym repo validate`` (its figures are in the README)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from codegym.envs.repo_repair.build import validate
from codegym.envs.repo_repair.env import RepoRepairEnv
from codegym.envs.repo_repair.libraries import LIBRARIES
from codegym.envs.repo_repair.mutations import KINDS
from codegym.envs.repo_repair.tasks import DATA, bundled_libraries, load_bundled

pytestmark = pytest.mark.timeout(900)


def test_at_least_300_tasks_over_at_least_6_libraries() -> None:
    tasks = load_bundled()
    libraries = Counter(task.metadata["library"] for task in tasks)
    assert len(tasks) >= 300 and len(libraries) >= 6, libraries
    assert set(bundled_libraries()) == set(LIBRARIES)
    kinds = Counter(task.metadata["kind"] for task in tasks)
    assert len(kinds) >= 8 and set(kinds) <= set(KINDS), kinds
    assert set(Counter(task.difficulty for task in tasks)) == {"easy", "medium", "hard"}


def test_task_files_hold_no_library_text() -> None:
    """Addresses, test ids and error lines: never a patch or a line of the library's code."""
    for name in bundled_libraries():
        document = json.loads((DATA / f"{name}.json").read_text())
        assert document["library"] == LIBRARIES[name].to_dict()
        for row in document["tasks"]:
            assert set(row) == {"id", "path", "kind", "index", "patch_sha256", "FAIL_TO_PASS", "symptom", "difficulty"}
            assert "@@" not in json.dumps(row)


def test_a_task_of_each_library_validates() -> None:
    env = RepoRepairEnv("bundled")
    first = {}
    for task in env.tasks:
        first.setdefault(task.metadata["library"], task)
    verdicts = validate(env, list(first.values()), runs=1)
    assert [v.status for v in verdicts] == ["valid"] * len(first), verdicts


def test_a_library_subset() -> None:
    env = RepoRepairEnv("bundled", libraries=["tinydb"])
    assert {task.metadata["library"] for task in env.tasks} == {"tinydb-4.9.0"}
    with pytest.raises(ValueError, match="no bundled tasks for"):
        RepoRepairEnv("bundled", libraries=["left-pad"])
