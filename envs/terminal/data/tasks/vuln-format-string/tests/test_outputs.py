import subprocess

import pytest

KEY = "KEY-8c1e55d0a9f34b27"


def logfmt(text, *args):
    return subprocess.run(["/app/logfmt", *args], input=text.encode(), capture_output=True, timeout=20)


def test_normal_lines():
    r = logfmt("INFO started\nDEBUG ignored\nWARN disk at 91\nERROR failed to open x\n")
    assert r.returncode == 0
    assert r.stdout.decode() == "   1 [INFO] started\n   2 [WARN] disk at 91\n   3 [ERROR] failed to open x\n"


def test_summary_mode():
    r = logfmt("INFO a\nINFO b\nERROR c\n", "-s")
    assert r.stdout.decode() == "INFO: b\nERROR: c\n"


@pytest.mark.parametrize("msg", ["100% done %s %n", "%x %x %x %x %p %p", "%d%%", "%08x.%08x.%08x.%08x.%08x"])
def test_percent_printed_verbatim(msg):
    r = logfmt(f"WARN {msg}\n")
    assert r.returncode == 0
    assert r.stdout.decode() == f"   1 [WARN] {msg}\n"
    r = logfmt(f"WARN {msg}\n", "-s")
    assert r.stdout.decode() == f"WARN: {msg}\n"


def test_no_key_leak_by_positional_args():
    payload = "".join(f"INFO %{i}$s\n" for i in range(1, 40))
    for args in ((), ("-s",)):
        r = logfmt(payload, *args)
        assert r.returncode >= 0
        assert KEY.encode() not in r.stdout


def test_no_crash_on_writes():
    for args in ((), ("-s",)):
        r = logfmt("ERROR %n%n%n%n%n%n%n%n\nINFO %s%s%s%s%s%s%s%s%s%s\n", *args)
        assert r.returncode == 0
        assert b"%n%n%n%n%n%n%n%n" in r.stdout


def test_rebuilds_from_source(tmp_path):
    exe = tmp_path / "l"
    r = subprocess.run(["cc", "-O0", "-Wall", "-Werror=format-security", "-o", str(exe), "/app/src/logfmt.c"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], input=b"INFO %s\n", capture_output=True, timeout=20).stdout
    assert out == b"   1 [INFO] %s\n"
