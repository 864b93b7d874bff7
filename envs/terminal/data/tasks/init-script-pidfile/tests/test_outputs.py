"""Drives /app/workerctl through start/status/stop/restart and checks the worker process itself."""

import os
import signal
import subprocess
import time

import pytest

PIDFILE = "/run/worker.pid"
LOG = "/var/log/worker.log"


def ctl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["/app/workerctl", *args], capture_output=True, text=True, timeout=30)


def is_worker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().split(b"\0")
        with open(f"/proc/{pid}/status") as f:
            zombie = any(line.startswith("State:") and "Z" in line for line in f)
    except OSError:
        return False
    # argv[0] must be the interpreter: a wrapper such as setsid still holding the worker's argv does not count
    return os.path.basename(cmd[0]).startswith(b"python") and b"/app/worker.py" in cmd and not zombie


def workers() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and is_worker(int(p))]


def read_pid() -> int:
    with open(PIDFILE) as f:
        return int(f.read().strip())


def wait_for(predicate, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


@pytest.fixture(autouse=True)
def clean():
    for pid in workers():
        os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not workers())
    if os.path.exists(PIDFILE):
        os.remove(PIDFILE)
    yield
    for pid in workers():
        os.kill(pid, signal.SIGKILL)


def test_executable():
    assert os.access("/app/workerctl", os.X_OK)


def test_start_status_stop():
    assert ctl("start").returncode == 0
    pid = read_pid()
    assert wait_for(lambda: is_worker(pid))
    status = ctl("status")
    assert status.returncode == 0 and status.stdout.strip() == f"running (pid {pid})"
    size = os.path.getsize(LOG)
    assert wait_for(lambda: os.path.getsize(LOG) > size), "the worker is not writing its log"
    stop = ctl("stop")
    assert stop.returncode == 0
    assert not is_worker(pid)
    assert not os.path.exists(PIDFILE)
    assert f"worker stopping pid={pid}" in open(LOG).read(), "stop must use SIGTERM and wait"
    status = ctl("status")
    assert status.returncode == 3 and status.stdout.strip() == "stopped"


def test_detached_session():
    ctl("start")
    pid = read_pid()
    assert wait_for(lambda: is_worker(pid))
    assert os.getsid(pid) != os.getsid(0), "the worker must run in its own session"
    ctl("stop")


def test_no_second_copy():
    ctl("start")
    first = read_pid()
    again = ctl("start")
    assert again.returncode == 0 and "already running" in again.stdout
    assert read_pid() == first
    assert wait_for(lambda: workers() == [first]), workers()
    ctl("stop")


def test_restart_new_pid():
    ctl("start")
    first = read_pid()
    assert ctl("restart").returncode == 0
    second = read_pid()
    assert second != first
    assert wait_for(lambda: workers() == [second])
    ctl("stop")


def test_stale_pidfile():
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        with open(PIDFILE, "w") as f:
            f.write(f"{sleeper.pid}\n")
        status = ctl("status")
        assert status.returncode == 3 and status.stdout.strip() == "stopped"
        assert ctl("start").returncode == 0
        pid = read_pid()
        assert pid != sleeper.pid and wait_for(lambda: is_worker(pid))
        assert sleeper.poll() is None, "workerctl must not kill a process that is not the worker"
        ctl("stop")
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stop_when_not_running():
    out = ctl("stop")
    assert out.returncode == 0 and "not running" in out.stdout


def test_usage():
    out = ctl("bogus")
    assert out.returncode == 2 and out.stderr.strip()
