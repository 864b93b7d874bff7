import shutil
import subprocess


def test_builds_from_clean(tmp_path):
    d = tmp_path / "g"
    shutil.copytree("/app", d)
    subprocess.run(["make", "-C", str(d), "clean"], capture_output=True, timeout=60)
    r = subprocess.run(["make", "-C", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    p = subprocess.run([str(d / "route")], input="0 0\n3 4\n3 10\n", capture_output=True, text=True, timeout=10)
    assert p.stdout.strip() == "11.000"


def test_clean(tmp_path):
    d = tmp_path / "g"
    shutil.copytree("/app", d)
    subprocess.run(["make", "-C", str(d)], capture_output=True, timeout=60)
    subprocess.run(["make", "-C", str(d), "clean"], capture_output=True, timeout=60)
    assert sorted(p.name for p in d.iterdir()) == ["Makefile", "geo.c", "geo.h", "route.c"]


def test_app_route_built():
    p = subprocess.run(["/app/route"], input="1 1\n1 1\n-2 -3\n", capture_output=True, text=True, timeout=10)
    assert p.stdout.strip() == "5.000"


def test_sources_unchanged():
    with open("/app/geo.c") as f:
        assert "hypot(x2 - x1, y2 - y1)" in f.read()
