"""Terminal tasks as a plain user (the `userns` tier of a Slurm job): root fills the layer
store once; a user granted the boxes' ids (1000000000.., in /etc/subuid and /etc/subgid, as
rootless Docker's are) runs episodes from it with no privilege of its own. The whole harness
runs as that user here, in a process of its own (``plain_user_run.py``): oracles score 1,
doing nothing and the cheat suite's tricks 0, a service the agent leaves is reached over the
episode's loopback, and agent mode's tools work."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegym.executor import rootbox
from codegym.executor.layers import default_root
from codegym.harness.install import default_root as harness_root
from codegym.harness.install import installed
from codegym.harness.recipe import recipe

from .conftest import IMPORTED
from .test_cheats import CHEATS, _evil_library

REPO = Path(__file__).resolve().parents[3]
RUNNER = Path(__file__).with_name("plain_user_run.py")
USER = "codegym-test"
IDS = f"{rootbox.ID_BASE}-{rootbox.ID_BASE + rootbox.ID_COUNT - 1}"

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="a plain user is made (and granted ids) by root"),
    pytest.mark.skipif(rootbox.available() is not None, reason=str(rootbox.available())),
    pytest.mark.skipif(shutil.which("newuidmap") is None, reason="Debian's uidmap is not installed"),
]


@pytest.fixture(scope="module")
def plain_user() -> Iterator[tuple[int, int]]:
    """``USER`` (made if missing), granted the boxes' ids; every folder on the way to this
    checkout, the interpreter and the store searchable by others while the module runs."""
    if subprocess.run(["id", USER], capture_output=True, check=False).returncode != 0:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER], check=True)
    subprocess.run(["usermod", "--add-subuids", IDS, "--add-subgids", IDS, USER], check=True)
    opened: list[tuple[Path, int]] = []
    for path in (REPO, Path(os.path.realpath(sys.executable)), Path(default_root()), Path(harness_root())):
        for parent in (path, *path.parents):
            mode = parent.stat().st_mode
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                opened.append((parent, mode))
                os.chmod(parent, mode | stat.S_IXOTH)
    ids = subprocess.run(["id", "-u", USER], capture_output=True, text=True, check=True).stdout
    group = subprocess.run(["id", "-g", USER], capture_output=True, text=True, check=True).stdout
    yield int(ids), int(group)
    for folder, mode in reversed(opened):
        os.chmod(folder, stat.S_IMODE(mode))


def _run_as(user: tuple[int, int], request: dict[str, object]) -> dict[str, dict]:
    cache = tempfile.mkdtemp(prefix="codegym-plain-cache-")
    os.chown(cache, *user)
    environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": cache, "CODEGYM_CACHE": cache,
                   "CODEGYM_TERMINAL_STORE": default_root(), "CODEGYM_HARNESS_TOOLS": harness_root()}  # fmt: skip
    # (its bounding set kept: newuidmap, setuid root, maps its ids, as for rootless Docker)
    command = ["setpriv", f"--reuid={user[0]}", f"--regid={user[1]}", "--clear-groups", "--inh-caps=-all", "--",
               sys.executable, str(RUNNER)]  # fmt: skip
    try:
        ran = subprocess.run(command, input=json.dumps(request), capture_output=True, text=True, cwd=REPO,
                             env=environment, timeout=900, check=False)  # fmt: skip
        assert ran.returncode == 0, ran.stderr[-4000:]
        left = os.listdir(os.path.join(cache, "terminal", "run"))
        assert left == [], f"boxes left behind: {left}"
        copies = os.path.join(cache, "terminal", "snapshots")
        assert not os.path.exists(copies) or os.listdir(copies) == [], f"snapshots left: {os.listdir(copies)}"
        return json.loads(ran.stdout)
    finally:
        subprocess.run(["rm", "-rf", cache], check=False)  # (as root: the boxes' ids' files too)


def test_a_plain_user_runs_oracles_and_cheats_score_zero(plain_user, imported_tasks: Path, tmp_path: Path) -> None:
    library = base64.b64encode(_evil_library(tmp_path)).decode()
    preload = (
        f"echo {library} | base64 -d > /usr/local/lib/plant.so && echo /usr/local/lib/plant.so > /etc/ld.so.preload\n"
    )
    cases = [[f"oracle {name}", name, None] for name in IMPORTED]
    cases += [["nothing", "sum", "true"], ["a preloaded library", "sum", preload]]
    cases += [[cheat, "sum", script] for cheat, script in sorted(CHEATS.items())]
    cases += [["wrong module", "sum-module", "echo 12 > /app/answer.txt\necho 'x = 1' > /app/answer.py\n"]]
    results = _run_as(plain_user, {"tasks": str(imported_tasks), "cases": cases})
    assert results.pop("isolation") == "userns"
    agent = results.pop("agent")
    assert agent["reward"] == 1.0 and agent["terminated"], agent
    assert results.pop("fork") == {"reward": 1.0, "terminated": True}
    codex = installed(recipe("codex")) is not None
    assert results.pop("harness") == ({"reward": 1.0, "status": "exited"} if codex else None)
    assert agent["seen"].split("\n")[1:3] == ["0", "3"], agent  # (root inside its machine; the task's files)
    rewards = {label: outcome["reward"] for label, outcome in results.items()}
    assert rewards == {label: (1.0 if label.startswith("oracle") else 0.0) for label, _, _ in cases}, results


def test_a_plain_user_without_the_ids_or_newuidmap_is_told_why(plain_user) -> None:
    """Where /etc/subuid does not grant the boxes' ids, `available` names the command that
    does; where newuidmap cannot gain its privilege (no_new_privs, a cleared bounding set), it says so."""
    script = "from codegym.executor.rootbox import available; print(available())"
    for who, drop, expected in (("nobody", (), f"usermod --add-subuids {IDS}"),
                                (USER, ("--bounding-set=-all",), "newuidmap is setuid root")):  # fmt: skip
        command = ["setpriv", f"--reuid={who}", "--regid=nogroup", "--clear-groups", *drop, "--", sys.executable,
                   "-c", script]  # fmt: skip
        ran = subprocess.run(
            command, capture_output=True, text=True, cwd=REPO, env={"PATH": "/usr/bin:/bin"}, check=True
        )
        assert expected in ran.stdout, ran.stdout


def test_a_plain_user_s_import_is_told_that_building_needs_root(plain_user, imported_tasks: Path) -> None:
    command = ["setpriv", f"--reuid={plain_user[0]}", f"--regid={plain_user[1]}", "--clear-groups", "--",
               sys.executable, "-c", "import sys; from codegym.cli import main; sys.exit(main())", "terminal", "import", str(imported_tasks)]  # fmt: skip
    ran = subprocess.run(command, capture_output=True, text=True, cwd=REPO, env={"PATH": "/usr/bin:/bin", "HOME": "/"},
                         check=False)  # fmt: skip
    assert ran.returncode == 2 and "need root" in ran.stderr, ran.stderr
