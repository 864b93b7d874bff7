"""How a step's cgroup memory limit is placed above what its worker already holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegym.executor._cgroup import HARNESS_SLACK_BYTES, Cgroup
from codegym.executor.base import Limits

MiB = 1 << 20
STAT = {
    "v1": "cache {cache}\nrss 5242880\ntotal_cache {cache}\ntotal_rss 5242880\ntotal_active_file {active}\n"
    "total_inactive_file {inactive}\nactive_file 0\ninactive_file 0\n",
    "v2": "anon 5242880\nfile {cache}\nactive_file {active}\ninactive_file {inactive}\n",
}


def fake_cgroup(tmp_path: Path, version: str, usage: int, active: int, inactive: int) -> tuple[Cgroup, Path]:
    for name in ("memory.limit_in_bytes", "memory.max", "memory.max_usage_in_bytes", "memory.swap.max", "pids.max",
                 "memory.oom_control", "memory.events", "pids.events"):  # fmt: skip
        (tmp_path / name).write_text("")
    (tmp_path / ("memory.usage_in_bytes" if version == "v1" else "memory.current")).write_text(str(usage))
    (tmp_path / "memory.stat").write_text(
        STAT[version].format(cache=active + inactive, active=active, inactive=inactive)
    )
    folders = {"unified": str(tmp_path)} if version == "v2" else {"memory": str(tmp_path), "pids": str(tmp_path)}
    return Cgroup(version, folders), tmp_path / ("memory.limit_in_bytes" if version == "v1" else "memory.max")


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_page_cache_the_worker_was_charged_does_not_raise_a_steps_limit(tmp_path: Path, version: str) -> None:
    """Files earlier steps read (a JDK: 80 MiB) are charged to the worker's cgroup, and the
    kernel reclaims them before refusing a step memory: counted as held, they would let a
    step allocate that much more than its limit."""
    cgroup, limit = fake_cgroup(tmp_path, version, usage=300 * MiB, active=200 * MiB, inactive=92 * MiB)
    cgroup.prepare(Limits(memory_bytes=128 * MiB))
    assert int(limit.read_text()) == 128 * MiB + 8 * MiB + HARNESS_SLACK_BYTES  # (8 MiB held: 4 MiB steps)
    assert cgroup.baseline == 300 * MiB  # (the peak is still reported net of all of it)
