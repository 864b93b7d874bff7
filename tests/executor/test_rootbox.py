"""Root-file-system boxes: a machine of their own, confined, and every attack bounded.

Each attack is small and bounded (a box's pids and memory cgroup, its disk quota, timeouts), so
the machine running the tests is never at risk."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from codegym.executor import rootbox
from codegym.executor.layers import LayerStore
from codegym.executor.rootbox import ID_BASE, BoxSpec, RootBox, available, fresh_box, run_root

pytestmark = pytest.mark.skipif(available() is not None, reason=str(available()))
MiB = 1 << 20


@pytest.fixture(scope="module")
def base() -> str:
    return LayerStore().base("bookworm")


TIERS = {
    "full": {"isolation": "full"},
    # (root without CAP_SYS_ADMIN, where user namespaces are allowed: as in a pod without it)
    "userns": {
        "isolation": "userns",
        "launcher": ("setpriv", "--bounding-set=-sys_admin", "--inh-caps=-sys_admin", "--"),
    },
}


@pytest.fixture(params=sorted(TIERS))
def box(base: str, request: pytest.FixtureRequest):
    spec = BoxSpec(layers=(base,), memory_bytes=256 * MiB, processes=64, disk_bytes=16 * MiB)
    with RootBox(spec, **TIERS[request.param]) as made:
        yield made


def sh(box: RootBox, command: str, **kwargs) -> tuple[str, int | None]:
    result = box.run(("bash", "-c", command), **{"timeout_s": 20.0, **kwargs})
    return result.output, result.exit_code


def test_root_inside_is_an_unprivileged_uid_outside(box: RootBox) -> None:
    output, code = sh(box, "id -u; echo x > /etc/written; stat -c %u /etc/written; cat /proc/self/uid_map")
    lines = output.split()
    assert code == 0 and lines[0] == "0" and lines[1] == "0"
    assert lines[2:5] == ["0", str(ID_BASE), "65536"]
    assert not Path("/etc/written").exists()  # (the host's /etc is untouched)


def test_the_host_is_out_of_sight(box: RootBox, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    output, _ = sh(box, f"cat {secret} 2>&1; ls /work /root/.cache 2>&1; cat /proc/1/cmdline | tr '\\0' ' '")
    assert "host secret" not in output and "No such file" in output
    assert "layers" not in output and str(run_root()) not in output  # (no host path in the init's argv either)


def test_no_network_but_loopback(box: RootBox) -> None:
    output, _ = sh(box, "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '")
    assert output.split() == ["lo"]
    output, code = sh(box, "exec 3<>/dev/tcp/deb.debian.org/80 && echo connected", timeout_s=10.0)
    assert code != 0 and "connected" not in output


def test_privileged_calls_are_refused(box: RootBox) -> None:
    output, _ = sh(
        box,
        "mount -t tmpfs none /mnt 2>&1; echo m=$?; unshare -U true 2>&1; echo u=$?; hostname evil 2>&1; echo h=$?; "
        "grep CapEff /proc/self/status",
    )
    assert "m=0" not in output and "u=0" not in output and "h=0" not in output
    effective = int(output.split("CapEff:")[1].split()[0], 16)
    assert effective & (1 << 21) == 0  # no CAP_SYS_ADMIN


def test_a_fork_bomb_is_bounded_by_the_box(box: RootBox) -> None:
    output, _ = sh(box, "for i in $(seq 200); do sleep 5 & done 2>&1 | tail -1; echo done", timeout_s=20.0)
    assert "done" in output and ("retry" in output or "fork" in output or "Resource" in output)
    assert len(box.processes()) <= 64
    box.kill_all()
    assert box.processes() == []


def test_memory_is_bounded_by_the_box(box: RootBox) -> None:
    _, code = sh(box, "head -c 400m /dev/zero | tail > /dev/null", timeout_s=30.0)
    assert code != 0  # (killed by the box's memory limit, not the machine's)


def test_the_disk_quota_holds(box: RootBox) -> None:
    output, _ = sh(box, "{ head -c 64m /dev/zero > /big; } 2>&1; echo status=$?")
    if box.isolation == "full":  # (a tmpfs of the quota's size)
        assert "No space left" in output and "status=1" in output
    else:  # (measured: an episode over its quota ends)
        assert box.over_quota
    with RootBox(BoxSpec(layers=box.spec.layers), isolation=box.isolation, launcher=box.launcher) as fresh:
        assert not fresh.over_quota
    output, code = sh(box, "rm /big; echo again > /small && cat /small")
    assert (output.strip(), code) == ("again", 0)


def test_output_is_capped_and_time_bounded(box: RootBox) -> None:
    result = box.run(("bash", "-c", "yes flood | head -c 5000000"), output_bytes=1000)
    assert len(result.output) < 1200 and result.elided_bytes > 4_000_000
    started = time.monotonic()
    result = box.run(("bash", "-c", "sleep 30"), timeout_s=0.5)
    assert result.timed_out and time.monotonic() - started < 10


def test_background_processes_kept_or_killed(box: RootBox) -> None:
    kept = box.run(("bash", "-c", "setsid nohup sleep 60 >/dev/null 2>&1 &"), background="keep")
    assert len(box.processes()) == 1 and kept.background_killed == 0
    killed = box.run(("bash", "-c", "sleep 60 & sleep 61 &"), background="kill")
    assert box.processes() == [] and killed.background_killed == 3  # (the one kept before, and its own two)
    timed_out = box.run(("bash", "-c", "setsid sleep 60 & sleep 61 & sleep 62"), background="kill", timeout_s=0.5)
    assert timed_out.timed_out and timed_out.background_killed == 1  # (its process group is the time-out's)
    assert box.processes() == []


def test_the_init_cannot_be_killed_from_inside(box: RootBox) -> None:
    sh(box, "kill -9 1; kill -9 -1")
    output, code = sh(box, "echo alive")
    assert (output.strip(), code) == ("alive", 0)


def test_without_a_cgroup_rlimits_bound_the_box(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no cgroup is writable (a `userns` host), a box is still bounded: its processes
    per box (RLIMIT_NPROC counts per user namespace) and each process's memory."""
    monkeypatch.setenv("CODEGYM_BOX_CGROUP", "0")
    spec = BoxSpec(layers=(base,), memory_bytes=128 * MiB, processes=32)
    with RootBox(spec, **TIERS["userns"]) as made:
        assert made.limited_by == "rlimits"
        output, _ = sh(made, "for i in $(seq 100); do sleep 5 & done 2>&1 | tail -1; echo done")
        assert "done" in output and len(made.processes()) <= 32
        made.kill_all()
        _, code = sh(made, "head -c 300m /dev/zero | tail > /dev/null")
        assert code != 0


def test_close_leaves_nothing_behind(base: str) -> None:
    made = RootBox(BoxSpec(layers=(base,)))
    made.run(("bash", "-c", "setsid sleep 300 & echo $!"), background="keep")
    pid, folder = made.init_pid, made.folder
    made.close(wait=True)
    deadline = time.monotonic() + 5
    while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:  # (reaped by the box server)
        time.sleep(0.01)
    assert not os.path.exists(f"/proc/{pid}") and not os.path.exists(folder)


def test_a_report_is_collected_once_its_writers_are_gone(box: RootBox) -> None:
    # (a daemon the command leaves would overwrite the report after it ends: it is killed first)
    late = "echo real > /tmp/report; (sleep 0.3; echo forged > /tmp/report) & true"
    ran = box.run(("bash", "-c", late), background="kill", collect="/tmp/report", timeout_s=20.0)
    assert ran.collected == b"real\n"
    time.sleep(0.5)
    assert sh(box, "cat /tmp/report 2>&1")[0].strip().endswith("No such file or directory")  # (read, then removed)
    assert box.run(("true",), background="kill", collect="/tmp/none").collected is None
    with pytest.raises(ValueError, match="background='kill'"):
        box.run(("true",), collect="/tmp/report")


def test_a_report_that_is_no_plain_file_is_not_collected(box: RootBox) -> None:
    # (a link to a file the harness could read, a pipe that would block the init, a flood)
    for plant in ("ln -s /etc/passwd /tmp/r", "mkfifo /tmp/r", "head -c 5000 /dev/zero > /tmp/r"):
        ran = box.run(("bash", "-c", f"rm -f /tmp/r; {plant}"), background="kill", collect="/tmp/r",
                      collect_bytes=4096, timeout_s=20.0)  # fmt: skip
        assert ran.collected is None, plant
    assert box.run(("true",)).exit_code == 0  # (the init still serves)


def test_files_are_written_into_a_box_as_roots(box: RootBox) -> None:
    box.write_files({"/srv/app/deep/new.txt": b"fixed\n", "/etc/hostname": b"replaced\n"})
    output, code = sh(box, "cat /srv/app/deep/new.txt /etc/hostname; stat -c '%u %a' /srv/app/deep/new.txt /srv/app")
    assert code == 0 and output.split("\n")[:4] == ["fixed", "replaced", "0 644", "0 755"]


def _spares_ready(spec: BoxSpec, count: int) -> list[RootBox]:
    deadline = time.monotonic() + 10  # (they start in the background)
    while len(waiting := list(rootbox._spares_here().get(spec, ()))) < count or not all(f.done() for f in waiting):
        assert time.monotonic() < deadline
        time.sleep(0.01)
    return [future.result() for future in waiting]


def test_fresh_boxes_are_started_ahead_and_never_reused(base: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = BoxSpec(layers=(base,), hostname="spare-test")
    with fresh_box(spec) as first:
        first.run(("bash", "-c", "echo planted > /tmp/left"))
        first_init = first.init_pid
    [ahead] = _spares_ready(spec, 1)
    with fresh_box(spec) as second:
        assert second is ahead and second.init_pid != first_init
        assert sh(second, "cat /tmp/left 2>&1")[1] != 0  # (nothing of the last one's)
    [ahead] = _spares_ready(spec, 1)
    os.kill(ahead.init_pid, 9)  # (a spare whose init died is never handed out)
    time.sleep(0.2)
    with fresh_box(spec) as third:
        assert third is not ahead and sh(third, "echo alive")[0].strip() == "alive"
    # (as many at once as before: as many are started ahead, up to the cap)
    with fresh_box(spec), fresh_box(spec), fresh_box(spec):
        pass
    assert len(_spares_ready(spec, 3)) == 3
    monkeypatch.setattr(rootbox, "SPARE_BOXES", 2)  # (past the cap, the spec used longest ago gives way)
    with fresh_box(BoxSpec(layers=(base,), hostname="other")):
        pass
    assert [len(waiting) for waiting in rootbox._spares_here().values()] == [1, 1]
    assert list(rootbox._spares_here())[-1].hostname == "other"
    # (a spec whose spares were all taken holds no place in the queue)
    with fresh_box(spec):
        for name in ("third", "fourth"):
            with fresh_box(BoxSpec(layers=(base,), hostname=name)):
                pass
    assert [(key.hostname, len(waiting)) for key, waiting in rootbox._spares_here().items()] == [
        ("fourth", 1), ("spare-test", 1)]  # fmt: skip


def test_a_forked_process_never_kills_its_parents_box(base: str) -> None:
    with RootBox(BoxSpec(layers=(base,))) as made:
        child = os.fork()
        if child == 0:  # (a worker forked while the box was open: it closes its copy, then exits)
            made.close()
            os._exit(0)
        os.waitpid(child, 0)
        assert made.run(("bash", "-c", "echo alive")).output.strip() == "alive"
