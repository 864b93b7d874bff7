import subprocess

import pytest


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    b = tmp_path_factory.mktemp("b")
    c = subprocess.run(["cmake", "-S", "/app", "-B", str(b)], capture_output=True, text=True, timeout=120)
    assert c.returncode == 0, c.stdout + c.stderr
    r = subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return b


def area(b, text):
    return subprocess.run([str(b / "area")], input=text, capture_output=True, text=True, timeout=10).stdout.strip()


def test_ctest_passes(build):
    r = subprocess.run(["ctest", "--test-dir", str(build)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout


def test_area_triangle(build):
    assert area(build, "0 0\n4 0\n0 3\n") == "area 6.000000 perimeter 12.000000"


def test_area_needs_double_precision(build):
    out = area(build, "0 0\n1000000 0\n1000000 1000001\n0 1000001\n")
    assert out == "area 1000001000000.000000 perimeter 4000002.000000"


def test_library_is_wide():
    r = subprocess.run(["nm", "-A", "/app/build/libshapes.a"], capture_output=True, text=True)
    assert "polygon_area" in r.stdout
    out = subprocess.run(
        ["/app/build/area"], input="0 0\n2 0\n2 2\n0 2\n", capture_output=True, text=True, timeout=10
    ).stdout.strip()
    assert out == "area 4.000000 perimeter 8.000000"


def test_only_cmakelists_changed():
    with open("/app/shapes.h") as f:
        assert "#ifdef SHAPES_WIDE" in f.read()
    with open("/app/shapes.c") as f:
        assert "fabs(s) / 2" in f.read()
