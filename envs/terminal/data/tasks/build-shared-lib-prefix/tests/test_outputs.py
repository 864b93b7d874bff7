import os
import shutil
import subprocess

P = "/opt/greet"


def run(args, **kw):
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    return subprocess.run(args, capture_output=True, text=True, timeout=30, env=env, **kw)


def test_library_files_and_soname():
    real = f"{P}/lib/libgreet.so.1.2.0"
    assert os.path.isfile(real) and not os.path.islink(real)
    assert os.path.realpath(f"{P}/lib/libgreet.so.1") == real
    assert os.path.realpath(f"{P}/lib/libgreet.so") == real
    dyn = run(["readelf", "-d", real]).stdout
    assert "Library soname: [libgreet.so.1]" in dyn


def test_header_installed():
    with open(f"{P}/include/greet.h") as f:
        assert "greet_format" in f.read()


def test_program_is_linked_dynamically():
    dyn = run(["readelf", "-d", f"{P}/bin/hello"]).stdout
    assert "Shared library: [libgreet.so.1]" in dyn
    syms = run(["nm", "-D", "--defined-only", f"{P}/bin/hello"]).stdout
    assert "greet_format" not in syms


def test_program_runs():
    assert run([f"{P}/bin/hello", "Ada"]).stdout.strip() == "Hello, Ada!"
    assert run([f"{P}/bin/hello", "--version"]).stdout.strip() == "1.2.0"


def test_relocatable(tmp_path):
    dst = tmp_path / "moved"
    shutil.copytree(P, dst, symlinks=True)
    # a marker version string only the moved copy carries
    lib = dst / "lib" / "libgreet.so.1.2.0"
    data = lib.read_bytes()
    assert data.count(b"1.2.0\x00") >= 1
    lib.write_bytes(data.replace(b"1.2.0\x00", b"9.9.9\x00"))
    r = run([str(dst / "bin" / "hello"), "--version"])
    assert r.stdout.strip() == "9.9.9", r.stderr


def test_no_linker_config_changes():
    for root, _, files in os.walk("/etc/ld.so.conf.d"):
        for name in files:
            with open(os.path.join(root, name)) as f:
                assert "/opt/greet" not in f.read()
    with open("/etc/ld.so.conf") as f:
        assert "/opt/greet" not in f.read()


def test_consumer_compiles(tmp_path):
    src = tmp_path / "c.c"
    src.write_text(
        '#include <greet.h>\n#include <stdio.h>\nint main(void){char b[64];greet_format(b,64,"x");puts(b);return 0;}\n'
    )
    exe = tmp_path / "c"
    r = run(["cc", str(src), f"-I{P}/include", f"-L{P}/lib", "-lgreet", f"-Wl,-rpath,{P}/lib", "-o", str(exe)])
    assert r.returncode == 0, r.stderr
    assert run([str(exe)]).stdout.strip() == "Hello, x!"
