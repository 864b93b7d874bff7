import subprocess

BIN = "/app/dist/kvtool"


def sh(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=20)


def test_statically_linked_and_stripped():
    desc = sh("file", "-L", BIN).stdout
    assert "statically linked" in desc, desc
    assert ", stripped" in desc, desc
    assert "interpreter" not in desc
    assert "NEEDED" not in sh("readelf", "-d", BIN).stdout


def test_works(tmp_path):
    f = tmp_path / "conf"
    f.write_text("a=1\nname=kv tool\nbroken line\na=2\nempty=\n")
    r = sh(BIN, str(f), "a", "name", "empty")
    assert r.returncode == 0
    assert r.stdout.split("\n")[:3] == ["2", "kv tool", ""]


def test_missing_key(tmp_path):
    f = tmp_path / "conf"
    f.write_text("x=y\n")
    r = sh(BIN, str(f), "x", "nope")
    assert r.returncode == 1
    assert r.stdout.split() == ["y", "(missing)"]


def test_ldd_sees_no_dependencies():
    r = sh("ldd", BIN)
    assert "not a dynamic executable" in (r.stdout + r.stderr)
