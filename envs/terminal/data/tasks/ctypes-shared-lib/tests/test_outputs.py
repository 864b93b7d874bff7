import hashlib
import subprocess

REPORT_SHA = "746090283397afd5c390a4c8d87bc1cc82afbe7b08937d253890397672fc33b1"


def report(*nums):
    return subprocess.run(["python3", "/app/report.py", *nums], capture_output=True, text=True, timeout=20)


def test_report_unchanged():
    with open("/app/report.py", "rb") as f:
        assert hashlib.sha256(f.read()).hexdigest() == REPORT_SHA


def test_library_is_shared_object():
    desc = subprocess.run(["file", "-L", "/app/lib/libstats.so"], capture_output=True, text=True).stdout
    assert "shared object" in desc


def test_report_values():
    r = report("2", "4", "4", "4", "5", "5", "7", "9")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "mean=5.0000 stddev=2.0000"
    r = report("1.5", "-1.5")
    assert r.stdout.strip() == "mean=0.0000 stddev=1.5000"
