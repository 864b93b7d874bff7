import json
import os
import shutil
import subprocess


def build(tmp_path, *opts):
    b = tmp_path / "b"
    c = subprocess.run(["cmake", "-S", "/app", "-B", str(b), *opts], capture_output=True, text=True, timeout=120)
    assert c.returncode == 0, c.stdout + c.stderr
    r = subprocess.run(["cmake", "--build", str(b)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return b / "lines2json"


def run(exe, stdin="", *args):
    return subprocess.run([str(exe), *args], input=stdin, capture_output=True, text=True, timeout=10).stdout


def test_plain_configure_builds(tmp_path):
    exe = build(tmp_path)
    text = 'plain\nwith "quotes"\ttab\n\\back\n'
    assert json.loads(run(exe, text)) == ["plain", 'with "quotes"\ttab', "\\back"]
    assert run(exe, "", "--version").strip() == "tinyjson 1.4"


def test_root_override_takes_precedence(tmp_path):
    alt = tmp_path / "alt"
    (alt / "include").mkdir(parents=True)
    (alt / "lib").mkdir()
    shutil.copy("/opt/vendor/tinyjson/src/tj.h", alt / "include")
    subprocess.run(
        ["cc", "-O2", '-DTJ_VERSION="9.9-alt"', "-c", "/opt/vendor/tinyjson/src/tj.c", "-o", str(alt / "tj.o")],
        check=True,
        timeout=60,
    )
    subprocess.run(["ar", "rcs", str(alt / "lib" / "libtj.a"), str(alt / "tj.o")], check=True, timeout=60)
    exe = build(tmp_path, f"-DTINYJSON_ROOT={alt}")
    assert run(exe, "", "--version").strip() == "tinyjson 9.9-alt"


def test_no_system_copies():
    for d in ("/usr/local/lib", "/usr/local/include", "/usr/lib", "/usr/include", "/usr/lib/x86_64-linux-gnu"):
        assert not os.path.exists(os.path.join(d, "libtj.a"))
        assert not os.path.exists(os.path.join(d, "tj.h"))


def test_built_program_present():
    assert json.loads(run("/app/build/lines2json", "a\n")) == ["a"]
