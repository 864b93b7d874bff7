"""The warm browser's sandbox (stdlib only; started by `warm.WarmBrowser`, never imported).

``python -s -S -B -P _browser_box.py CONFIG`` confines itself with the local executor's own
primitives, as one of its workers does (``codegym/executor/_worker.py``: the user namespace
of the `userns` tier, then mount, net, ipc and uts namespaces and the worker's read-only view
of the toolchain, codegym's own files masked), then:

    box (the view's root; waits, passes on the exit)
      └── init: pid 1 of a pid namespace of its own; a fresh /proc, a private tmpfs /tmp,
          the cgroup the host made for it (memory, pids), rlimits; then an unprivileged uid
          (or, for a plain user, a nested user namespace with no capability), no_new_privs
          and codegym's seccomp deny list (sockets other than AF_UNIX fail with an errno)
            └── Chromium, headless, its DevTools protocol on fds 3 and 4 (the host's pipes)

When Chromium exits, init exits, and the kernel kills whatever is left in the namespace; each
process asks to be killed when its parent dies, so the whole tree goes with the host's
process. The pages come in through one read-only folder of the host's (``/pages``); nothing
else of the host's is in view beyond the toolchain, and there is no network to reach.
"""

from __future__ import annotations

import json
import os
import sys
import types

if __name__ == "__main__":
    _CONFIG = json.loads(sys.argv[1])
    sys.path[:] = [path for path in sys.path if path != os.path.dirname(os.path.abspath(__file__))]
    for _name in sorted(_CONFIG["packages"]):  # (codegym.* without its __init__ files: see _worker.py)
        _module = types.ModuleType(_name)
        _module.__path__ = _CONFIG["packages"][_name]
        sys.modules[_name] = _module

import resource
import signal
import traceback
from typing import Any, NoReturn

from codegym.executor import _linux as linux
from codegym.executor._cgroup import Cgroup
from codegym.executor._forkserver import SANDBOX_UID, set_oom_score_adj
from codegym.executor._isolate import (
    HOST_PROC,
    build_view,
    enter_user_namespace,
    follow_out_of_tmp,
    in_initial_user_namespace,
    mask,
)

PAGES = "/pages"  # where the host's folder of pages is in view


def main() -> None:
    config = _CONFIG
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    userns = config["isolation"] == "userns"
    keep_host_proc = userns or not in_initial_user_namespace()
    config["keep_host_proc"] = keep_host_proc
    if userns:
        enter_user_namespace(config["user_map"])
    set_oom_score_adj(-1000)  # (the OOM killer picks Chromium, never the box)
    seccomp = linux.SeccompFilter(linux.seccomp_program())
    sockets = linux.SeccompFilter(linux.socket_program("errno"))
    config["binds"] = [*config["binds"], (config["pages"], PAGES)]
    build_view(config)
    follow_out_of_tmp(config)  # (a checkout under /tmp is in view below FROM_TMP)
    for path in config["hide"]:
        mask(path)
    linux.unshare(linux.CLONE_NEWPID)
    init = os.fork()
    if init == 0:
        _init(config, seccomp, sockets, keep_host_proc)
    linux.set_name("codegym-browser-box")
    status = os.waitpid(init, 0)[1]
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _init(config: dict[str, Any], seccomp: Any, sockets: Any, keep_host_proc: bool) -> NoReturn:
    """Pid 1 of the browser's namespace: confine, start Chromium, wait for it."""
    try:
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        linux.set_name("codegym-browser-init")
        _mount_proc(keep_host_proc)
        linux.tmpfs("/tmp", config["tmp_bytes"], mode=0o1777)
        Cgroup(config["cgroup"]["version"]).join()
        for which, value in config["rlimits"]:
            resource.setrlimit(which, (value, value))
        _drop_privileges(config["uid"], nest=config["isolation"] == "userns" and config["user_map"] == "single")
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
        seccomp.install()
        sockets.install()
        chromium = os.fork()
        if chromium == 0:
            _exec_chromium(config["argv"])
    except BaseException:
        os.write(2, traceback.format_exc().encode())
        os._exit(3)
    while True:  # (init reaps what Chromium leaves; its exit is ours)
        pid, status = os.wait()
        if pid == chromium:
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _mount_proc(keep_host_proc: bool) -> None:
    """This namespace's /proc (in a user namespace, mounted while the host's is in view)."""
    try:
        linux.mount("proc", "/proc", "proc", linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    except OSError:
        if not keep_host_proc:
            raise
        linux.bind(HOST_PROC, "/proc", readonly=False)
    if keep_host_proc:
        linux.umount(HOST_PROC)


def _drop_privileges(uid: int | None, *, nest: bool) -> None:
    """Become ``uid`` (no capability left), or for a plain user's box, which has no other
    uid to give, `SANDBOX_UID` of a nested user namespace without capabilities."""
    if nest:
        linux.prctl(linux.PR_SET_DUMPABLE, 1)
        linux.unshare(linux.CLONE_NEWUSER)
        linux.write_id_maps("self", f"{SANDBOX_UID} 0 1", f"{SANDBOX_UID} 0 1")
        linux.drop_capabilities()
        return
    if uid is not None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)


def _exec_chromium(argv: list[str]) -> NoReturn:
    """Chromium, its DevTools pipe on fds 3 and 4, its output on /dev/null."""
    try:
        linux.set_name("chromium")
        os.closerange(5, 1 << 16)
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.chdir("/tmp")
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
        os.execve(argv[0], argv, env)
    finally:
        os._exit(127)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        os.write(2, traceback.format_exc().encode())
        os._exit(3)
