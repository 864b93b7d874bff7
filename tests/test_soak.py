"""The soak benchmark (``benchmarks/soak.py``) at 500 jobs (every attack program at least once), and its leak detectors."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import gymnasium as gym
import pytest

import codegym  # noqa: F401  (registers the envs)

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "soak.py"


@pytest.fixture(scope="module")
def soak() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("soak", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["soak"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("soak", None)


@pytest.fixture(scope="module")
def tasks(soak: ModuleType) -> dict[str, list]:
    out = {}
    for family in soak.FAMILIES:
        env = gym.make(family.env_id, **family.options)
        out[family.key] = list(env.unwrapped.tasks)
        env.close()
    return out


def test_the_plan_mixes_every_family_kind_and_program(soak: ModuleType, tasks: dict[str, list]) -> None:
    planned = soak.plan(tasks, 1000, 0.1, seed=0)
    assert len(planned) == 1000
    assert planned == soak.plan(tasks, 1000, 0.1, seed=0)  # seeded
    kinds = Counter((job.family, job.kind) for job in planned)
    assert sum(n for (_, kind), n in kinds.items() if kind == "hostile") == 100
    for family in soak.FAMILIES:
        assert all(kinds[family.key, kind] > 0 for kind in ("correct", "wrong", "hostile")), family.key
        ran = {job.name for job in planned if job.family == family.key and job.kind != "correct"}
        assert {p.name for p in (*family.wrong, *family.hostile)} <= ran, family.key
    shares = Counter(job.family for job in planned if job.kind != "hostile")
    assert shares["python"] == 360 and shares["triton"] == 45  # 40% and 5% of the 900 not hostile
    hostile = next(job for job in planned if job.family == "python" and job.name == "daemon")
    entry = next(t for t in tasks["python"] if t.id == hostile.task_id).metadata["entry_point"]
    assert f"def {entry}(" in hostile.answer  # aimed at the task's own function


def test_the_leak_detectors_find_what_is_left(
    soak: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each check can fail: a child process, an open descriptor, a scratch file, a planted
    file, a cgroup and a mount left behind are all reported (the mount table and the cgroup
    folders are stand-ins here; a mount elsewhere is another process's, only noted)."""
    monkeypatch.setattr(soak, "SETTLE_S", 0.2)
    scratch, system, cgroups = tmp_path / "scratch", tmp_path / "system", tmp_path / "cgroups"
    for folder in (scratch, system, cgroups):
        folder.mkdir()
    before = soak.Snapshot.take([str(system)])
    mounts = soak._mounts()
    monkeypatch.setattr(
        soak,
        "_mounts",
        lambda: (
            mounts + Counter([f"/ {scratch}/root/tmp rw - tmpfs tmpfs rw", "/ /var/lib/docker/x rw - overlay o rw"])
        ),
    )
    monkeypatch.setattr(soak, "CGROUP_PARENTS", (str(cgroups),))
    (cgroups / "123.4.0").mkdir()
    (cgroups / "123.5.0").mkdir()  # another executor's
    child = subprocess.Popen(["sleep", "30"])
    fd = os.open(os.devnull, os.O_RDONLY)
    (scratch / "left").write_text("x")
    (system / "codegym-soak-planted").write_text("x")
    try:
        report = soak.Report(0)
        soak._after_close(report, before, set(), ["123.4."], str(scratch), [str(system)])
    finally:
        os.close(fd)
        child.kill()
        child.wait()
    assert [line.split()[1] for line in report.leaks["processes"]] == [str(child.pid)]
    assert report.leaks["file descriptors"] == [f"fd {fd} -> /dev/null"]
    assert report.leaks["temporary files"] == [str(scratch / "left")]
    assert report.leaks[f"files of a submission's uid in {system}"] == [str(system / "codegym-soak-planted")]
    assert report.leaks["cgroups"] == [str(cgroups / "123.4.0")]
    assert report.leaks["mounts"] == [f"/ {scratch}/root/tmp rw - tmpfs tmpfs rw"]
    assert "/var/lib/docker/x" in "\n".join(report.notes)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_soak_of_500_jobs_leaves_nothing_behind(soak: ModuleType) -> None:
    lines: list[str] = []
    report = soak.run(jobs=500, hostile=0.1, seed=0, out=lines.append)
    summary = report.render()
    print(summary)
    assert report.failures == [], summary
    assert sum(report.counts.values()) == 500
    assert sum(n for (_, kind, _), n in report.counts.items() if kind == "hostile") == 50
    statuses = Counter(status for (_, _, status), n in report.counts.items() for _ in range(n))
    assert statuses["IE"] == statuses["ERROR"] == 0
    assert {"OK", "WA", "CE", "RE", "TLE", "MLE", "OLE", "SEC", "HACK"} <= set(statuses)
    assert all(report.counts[family.key, "correct", "OK"] > 0 for family in soak.FAMILIES)
    assert len(report.rss_kib) == 2 * (os.cpu_count() or 1)  # both executors' workers, measured
    assert all(not found for found in report.leaks.values()), report.leaks
