"""The layer store: Debian bases, RUN and COPY layers, whiteouts under both overlay mounts, the cache.

The bookworm base lives in the default store (built once, about half a minute, then reused);
the layers these tests make from it are small and keyed by their commands, so a second run of
the suite builds nothing but the layers a test makes unique on purpose (and removes).
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import subprocess
import sys
import tarfile
import time
import uuid

import pytest

from codegym.error import SandboxError
from codegym.executor.layers import ID_BASE, ID_COUNT, BuildFailed, FileEntry, LayerStore, shift_ownership

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def store() -> LayerStore:
    return LayerStore()


@pytest.fixture(scope="module")
def base(store: LayerStore) -> str:
    return store.base("bookworm")


def test_the_base_is_debian_with_shifted_owners_and_setuid_kept(store: LayerStore, base: str) -> None:
    passwd = os.lstat(os.path.join(base, "usr/bin/passwd"))
    assert (passwd.st_uid, passwd.st_gid) == (ID_BASE, ID_BASE)
    assert passwd.st_mode & stat.S_ISUID  # chown clears it: the store puts it back
    assert os.lstat(os.path.join(base, "etc/shadow")).st_gid == ID_BASE + 42  # shadow's group
    assert not os.listdir(os.path.join(base, "var/lib/apt/lists/partial"))
    assert store.check((base,), ["/bin/sh", "-c", ". /etc/os-release; echo $VERSION_CODENAME; id -u"]) == (
        0,
        "bookworm\n0\n",
    )


def test_a_deletion_and_an_opaque_folder_hold_under_both_mounts(store: LayerStore, base: str) -> None:
    first = store.run((base,), ["/bin/sh", "-c", "mkdir /d && echo a > /f && echo b > /d/x"])
    second = store.run((first, base), ["/bin/sh", "-c", "rm /f && rm -r /d && mkdir /d && echo new > /d/y"])
    whiteout = os.lstat(os.path.join(second, "f"))
    assert stat.S_ISCHR(whiteout.st_mode) and whiteout.st_rdev == 0
    assert {"trusted.overlay.opaque", "user.overlay.opaque"} <= set(os.listxattr(os.path.join(second, "d")))
    for userxattr in (False, True):  # real root's mount, and one made inside a user namespace
        status, output = store.check(
            (second, first, base), ["/bin/sh", "-c", "ls /d; test -e /f || echo gone"], userxattr=userxattr
        )
        assert (status, output) == (0, "y\ngone\n"), userxattr


def test_a_second_request_builds_nothing(store: LayerStore, base: str) -> None:
    command = ["/bin/sh", "-c", f"echo {uuid.uuid4().hex} > /nonce"]
    layer = store.run((base,), command)
    try:
        built = store.builds
        made = os.stat(layer).st_mtime_ns
        again = LayerStore(store.root)
        assert again.run((base,), command) == layer
        assert again.builds == 0 and store.builds == built
        assert os.stat(layer).st_mtime_ns == made
    finally:
        shutil.rmtree(layer)


def test_two_processes_building_one_key_build_it_once(store: LayerStore, base: str) -> None:
    nonce = uuid.uuid4().hex
    code = (
        "import sys; from codegym.executor.layers import LayerStore; s = LayerStore(sys.argv[1]); "
        f"p = s.run((sys.argv[2],), ['/bin/sh', '-c', 'sleep 1; echo {nonce} > /n']); print(s.builds, p)"
    )
    runs = [
        subprocess.Popen([sys.executable, "-c", code, store.root, base], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120)[0].split() for run in runs]
    try:
        assert sorted(int(out[0]) for out in outputs) == [0, 1]
        assert outputs[0][1] == outputs[1][1]
    finally:
        shutil.rmtree(outputs[0][1], ignore_errors=True)


def test_a_command_runs_as_the_user_in_the_workdir_with_the_env_and_the_network(store: LayerStore, base: str) -> None:
    layer = store.run(
        (base,),
        [
            "/bin/sh",
            "-c",
            "mkdir -p /w && cd /w && echo $GREETING $(id -u):$(id -g) $PWD > out; getent hosts deb.debian.org >/dev/null && echo dns >> out",
        ],
        env={"GREETING": "hello"},
        workdir="/",
        user=(0, 0),
    )
    user_layer = store.run((layer, base), ["/bin/sh", "-c", "touch /tmp/t; echo x > /dev/shm/gone"], user=(1000, 1000))
    with open(os.path.join(layer, "w/out")) as handle:
        assert handle.read() == "hello 0:0 /w\ndns\n"
    assert os.lstat(os.path.join(layer, "w/out")).st_uid == ID_BASE
    assert os.listdir(user_layer) == ["tmp"]  # /tmp is the image's (as in Docker), /dev a tmpfs
    assert os.lstat(os.path.join(user_layer, "tmp/t")).st_uid == ID_BASE + 1000


def test_a_failing_command_raises_with_its_status_and_log_and_leaves_no_layer(base: str, tmp_path: object) -> None:
    store = LayerStore(str(tmp_path))  # a store of its own: others may be building in the default one
    with pytest.raises(BuildFailed, match=r"exit status 3.*\n.*oops") as caught:
        store.run((base,), ["/bin/sh", "-c", "echo oops; exit 3"])
    assert caught.value.status == 3
    with pytest.raises(BuildFailed, match="timed out"):
        store.run((base,), ["/bin/sh", "-c", "sleep 60"], timeout_s=1)
    assert os.listdir(os.path.join(store.root, "tmp")) == []
    assert os.listdir(os.path.join(store.root, "layers")) == []


def test_add_copies_files_with_owner_and_mode_and_unpacks_archives(store: LayerStore, base: str) -> None:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        info = tarfile.TarInfo("pkg/data.txt")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"data\n"))
    files = {"run.sh": FileEntry(b"#!/bin/sh\necho ran\n", 0o755), "sub/note": FileEntry(b"n\n", 0o600)}
    copied = store.add((base,), files, "/opt/app", chown=(1000, 1000))
    unpacked = store.add((base,), {"a.tgz": FileEntry(archive.getvalue())}, "/srv", unpack=True)
    script = "/opt/app/run.sh; stat -c '%u %a %n' /opt/app/sub/note /opt/app; cat /srv/pkg/data.txt; ls /srv"
    assert store.check((unpacked, copied, base), ["/bin/sh", "-c", script]) == (
        0,
        "ran\n1000 600 /opt/app/sub/note\n0 755 /opt/app\ndata\npkg\n",
    )


def test_shift_ownership_moves_inside_ids_once_and_keeps_setuid(tmp_path: object) -> None:
    tree = str(tmp_path)
    tool = os.path.join(tree, "tool")
    with open(tool, "w") as handle:
        handle.write("x")
    os.chown(tool, 0, 50)
    os.chmod(tool, 0o4755)
    os.link(tool, os.path.join(tree, "hardlink"))  # one inode, met twice by the walk
    os.symlink("tool", os.path.join(tree, "link"))
    shift_ownership(tree)
    info = os.lstat(tool)
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (ID_BASE, ID_BASE + 50, 0o4755)
    assert os.lstat(os.path.join(tree, "link")).st_uid == ID_BASE
    assert os.lstat(os.path.join(tree, "hardlink")).st_uid == ID_BASE  # not shifted twice
    assert os.lstat(tree).st_uid in range(ID_BASE, ID_BASE + ID_COUNT)


def test_building_without_root_says_so(tmp_path: object) -> None:
    code = (
        "import sys; from codegym.executor.layers import LayerStore\n"
        "try: LayerStore(sys.argv[1]).base('bookworm')\nexcept Exception as e: print(type(e).__name__, e)"
    )
    root = os.path.join(str(tmp_path), "store")
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-c", code, root],
        capture_output=True, text=True, check=False, cwd="/",
    )  # fmt: skip
    assert done.stdout.startswith("SandboxError building a terminal environment's layers needs root"), done.stderr


def test_a_stack_without_a_base_is_refused(store: LayerStore) -> None:
    with pytest.raises(SandboxError, match="needs a stack"):
        store.run((), ["/bin/true"])


def test_a_crashed_build_leaves_no_layer_and_its_leftovers_go_at_the_next_build(base: str, tmp_path: object) -> None:
    root = os.path.join(str(tmp_path), "store")
    code = (
        "import sys; from codegym.executor.layers import LayerStore; "
        "LayerStore(sys.argv[1]).run((sys.argv[2],), ['/bin/sh', '-c', 'sleep 2; echo done > /d'])"
    )
    builder = subprocess.Popen([sys.executable, "-c", code, root, base])
    tmp = os.path.join(root, "tmp")
    while not (os.path.isdir(tmp) and os.listdir(tmp)) and builder.poll() is None:
        time.sleep(0.05)
    time.sleep(0.3)
    builder.kill()  # mid-build: its sandbox dies with it
    builder.wait()
    assert len(os.listdir(tmp)) == 1 and os.listdir(os.path.join(root, "layers")) == []
    layer = LayerStore(root).run((base,), ["/bin/sh", "-c", "sleep 2; echo done > /d"])
    assert os.listdir(tmp) == []
    with open(os.path.join(layer, "d")) as handle:
        assert handle.read() == "done\n"
