"""Dockerfiles built offline into layers (envs/terminal/build.py), checked by running commands in them.

The layers go to the default store, so a second run of the suite reuses them (and the bases
``debootstrap`` made). The images are checked by mounting their stacks read-only, as root, in a
private mount namespace (`LayerStore.check`) and running python3 in them.
"""

from __future__ import annotations

import dataclasses
import io
import tarfile
from pathlib import Path

import pytest
from codegym.envs.terminal.build import Environment, build_environment, hidden_fixtures, resolve_user
from codegym.envs.terminal.dockerfile import parse
from codegym.envs.terminal.formats import load_task
from codegym.envs.terminal.offline import Preamble, find_preamble, rewrite_test_script, verifier_layers

from codegym.error import InvalidTask
from codegym.executor.layers import ID_BASE, BuildFailed, FileEntry, LayerStore

from . import fixtures as fx

pytestmark = pytest.mark.slow

DOCKERFILE = """\
FROM debian:bookworm-slim
ARG GREETING=hello
ENV APP_HOME=/app LANG=C.UTF-8
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest \\
    && rm -rf /var/lib/apt/lists/*
RUN useradd -m -u 1000 agent
COPY hidden/ /opt/verifier-fixtures/
WORKDIR /app
COPY --chown=agent:agent --chmod=640 numbers.txt ./
COPY tools.tar.gz /tmp/unused.tar.gz
ADD tools.tar.gz /opt/
RUN echo "$GREETING from $APP_HOME" > greeting.txt
USER agent
RUN id -un > ~/whoami.txt && echo "$HOME" >> ~/whoami.txt
"""

CHECK = """\
import os, pathlib, pytest
print(pathlib.Path('greeting.txt').read_text().strip())
print(pathlib.Path('/home/agent/whoami.txt').read_text().split())
print(pathlib.Path('/opt/verifier-fixtures/expected.txt').read_text().strip())
n = os.stat('numbers.txt'); print(n.st_uid, oct(n.st_mode & 0o777))
print(pathlib.Path('/opt/tools/run.sh').read_text().strip(), os.path.exists('/tmp/unused.tar.gz'))
print(os.getcwd(), os.getuid(), pytest.__name__)
"""


def _tools() -> bytes:
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:gz") as tar:
        info = tarfile.TarInfo("tools/run.sh")
        info.size = 10
        tar.addfile(info, io.BytesIO(b"echo tool\n"))
    return archive.getvalue()


@pytest.fixture(scope="module")
def store() -> LayerStore:
    return LayerStore()


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    environment = {"numbers.txt": "3\n4\n5\n", "hidden/expected.txt": "12\n", "tools.tar.gz": _tools()}
    return fx.write_harbor_task(tmp_path_factory.mktemp("tasks"), "sum", dockerfile=DOCKERFILE, environment=environment)


@pytest.fixture(scope="module")
def built(store: LayerStore, task_dir: Path) -> Environment:
    return build_environment(load_task(task_dir), store=store)


def test_a_harbor_task_builds_and_its_image_runs(store: LayerStore, built: Environment) -> None:
    assert (built.workdir, built.user, built.shell) == ("/app", "agent", ("/bin/sh", "-c"))
    assert ("APP_HOME", "/app") in built.env and not any(name == "GREETING" for name, _ in built.env)
    assert built.hidden == ("/opt/verifier-fixtures",)
    uid, gid, _home = resolve_user(built.layers, built.user)
    status, output = store.check(built.layers, ["python3", "-c", CHECK], workdir=built.workdir, user=(uid, gid))
    assert (status, output.splitlines()) == (
        0,
        [
            "hello from /app",
            "['agent', '/home/agent']",
            "12",
            "1000 0o640",
            "echo tool True",
            "/app 1000 pytest",
        ],
    )
    # the base, then one layer per RUN (4), COPY (3) and ADD (1), and WORKDIR's (it made /app)
    assert len(built.layers) == 1 + 4 + 3 + 1 + 1
    assert all(layer.startswith(store.root) for layer in built.layers)


def test_a_second_import_builds_nothing(store: LayerStore, task_dir: Path, built: Environment) -> None:
    again = LayerStore(store.root)
    assert build_environment(load_task(task_dir), store=again) == built
    assert again.builds == 0


def test_two_dockerfiles_that_begin_alike_share_their_first_layers(
    store: LayerStore, task_dir: Path, built: Environment
) -> None:
    task = load_task(task_dir)
    again = LayerStore(store.root)
    longer = build_environment(task.dockerfile + "RUN echo more > ~/more.txt\n", task.context, again,
                               executables=task.executables)  # fmt: skip
    assert longer.layers[1:] == built.layers
    assert again.builds == 1


def test_a_python_image_maps_to_debian_and_pip_installs_from_pypi(store: LayerStore) -> None:
    dockerfile = 'FROM python:3.11-slim\nRUN pip install --no-cache-dir six==1.16.0\nCMD ["python"]\n'
    built = build_environment(dockerfile, {}, store)
    status, output = store.check(built.layers, ["python", "-c", "import six, sys; print(six.__version__, sys.version_info[:2])"],
                                 env=dict(built.env))  # fmt: skip
    assert (status, output) == (0, "1.16.0 (3, 11)\n")


def test_shell_and_exec_form(store: LayerStore) -> None:
    dockerfile = (
        "FROM debian:bookworm-slim\n"
        'SHELL ["/bin/bash", "-c"]\n'
        "RUN [[ -n $BASH_VERSION ]] && echo bash > /shell.txt\n"
        'RUN ["/bin/sh", "-c", "echo exec >> /shell.txt"]\n'
    )
    built = build_environment(dockerfile, {}, store)
    assert built.shell == ("/bin/bash", "-c")
    assert store.check(built.layers, ["cat", "/shell.txt"]) == (0, "bash\nexec\n")


@pytest.mark.parametrize(
    ("dockerfile", "context", "error", "message"),
    [
        (
            "FROM debian:bookworm AS b\nRUN true\nFROM debian:bookworm\nCOPY --from=b /x /x\n",
            {},
            InvalidTask,
            "multi-stage",
        ),
        ("FROM debian:bookworm\nCOPY missing.txt /x\n", {}, InvalidTask, "'missing.txt' is not in the build context"),
        ("FROM debian:bookworm\nCOPY --chmod=u+x a /a\n", {"a": b""}, InvalidTask, "only octal modes"),
        (
            "FROM debian:bookworm\nUSER nobody-here\n",
            {},
            InvalidTask,
            "'nobody-here' is not in the image's /etc/passwd",
        ),
        ("FROM debian:bookworm\nRUN echo broken >&2; exit 7\n", {}, BuildFailed, r"exit status 7(.|\n)*broken"),
    ],
)
def test_what_cannot_be_built_says_why(
    store: LayerStore, dockerfile: str, context: dict, error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        build_environment(dockerfile, context, store)


def test_hidden_fixtures_are_what_only_the_tests_name(task_dir: Path) -> None:
    task = load_task(task_dir)
    assert hidden_fixtures(task, parse(task.dockerfile)) == ("/opt/verifier-fixtures",)
    told = dataclasses.replace(task, instruction=task.instruction + "Expected values are in /opt/verifier-fixtures.\n")
    assert hidden_fixtures(told, parse(task.dockerfile)) == ()
    # a file the tests read by name, copied on its own
    single = "FROM debian:bookworm\nWORKDIR /app\nCOPY numbers.txt .\nCOPY hidden/expected.txt /srv/\n"
    assert hidden_fixtures(task, parse(single)) == ("/srv/expected.txt",)


def test_the_layers_are_owned_by_shifted_ids(built: Environment) -> None:
    numbers = Path(built.layers[0]).parent  # every layer under the store's layers/ folder
    assert all(Path(layer).parent == numbers for layer in built.layers)
    owners = {Path(layer).stat().st_uid for layer in built.layers}
    assert owners == {ID_BASE}


# --- the uv preamble, served offline ------------------------------------------------------------

TEST_SH = fx.UV_TEST_SH

RUN_TESTS_SH = """\
#!/bin/bash
apt-get update && apt-get install -y curl jq
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
source $HOME/.local/bin/env
uv venv .tbench-testing
source .tbench-testing/bin/activate
uv pip install pytest==8.4.1
uv run pytest $TEST_DIR/test_outputs.py -rA
"""


def test_the_preamble_is_found_and_rewritten_keeping_every_other_byte() -> None:
    preamble = find_preamble(TEST_SH)
    assert preamble == Preamble(True, "0.9.5", ("curl",), ("pytest==8.4.1", "pytest-json-ctrf==0.3.5"), "3.13")
    new, notes = rewrite_test_script(TEST_SH, python="3.11")
    old_lines, new_lines = TEST_SH.splitlines(), new.splitlines()
    assert new_lines[1].startswith("export UV_OFFLINE=1 ") and "UV_PYTHON_DOWNLOADS=never" in new_lines[1]
    del new_lines[1]
    changed = {i: (a, b) for i, (a, b) in enumerate(zip(old_lines, new_lines, strict=True)) if a != b}
    assert changed == {
        2: ("apt-get update", "true"),
        3: ("apt-get install -y curl", "true"),
        5: ("curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh", "true"),
        10: ("  -p 3.13 \\", "  -p python3 \\"),
    }
    assert any("the tests run on the environment's python3" in note for note in notes)
    tb1, _notes = rewrite_test_script(RUN_TESTS_SH)
    assert tb1.splitlines()[2:4] == ["true && true", "true"]
    assert find_preamble(RUN_TESTS_SH).apt_packages == ("curl", "jq")
    assert rewrite_test_script("#!/bin/bash\npytest /tests\n") == ("#!/bin/bash\npytest /tests\n", ())


UV_ADD_SH = """\
#!/bin/bash
set -euo pipefail
apt-get update
apt-get install -y curl
curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh
source $HOME/.local/bin/env
uv init
uv add pytest==8.4.1
uv run pytest $TEST_DIR/test_outputs.py -rA
"""


@pytest.mark.parametrize("script", [TEST_SH, RUN_TESTS_SH, UV_ADD_SH], ids=["uvx", "uv-venv", "uv-add"])
def test_a_uv_test_script_runs_with_no_network(store: LayerStore, script: str) -> None:
    built = build_environment("FROM debian:bookworm-slim\nWORKDIR /app\nCOPY data.txt .\n", {"data.txt": b"x\n"}, store)
    layers, notes = verifier_layers(store, built.layers, script)
    new, _ = rewrite_test_script(script, python="3.11")
    test = b"def test_data():\n    assert open('/app/data.txt').read() == 'x\\n'\n"
    tests = {"test.sh": FileEntry(new.encode(), 0o755), "test_outputs.py": FileEntry(test)}
    stack = (store.add((*layers, *built.layers), tests, "/tests"), *layers, *built.layers)
    env = {"HOME": "/root", "TEST_DIR": "/tests"}
    ran = store.run(stack, ["bash", "/tests/test.sh"], env=env, workdir="/app", network=False)  # no network
    with open(store.root + f"/logs/{Path(ran).name}.log") as log:
        assert "1 passed" in log.read()
    assert all(Path(layer).parent == Path(store.root, "layers") for layer in layers)
    if script == TEST_SH:
        assert Path(ran, "logs/verifier/reward.txt").read_text() == "1\n"
        assert '"passed": 1' in Path(ran, "logs/verifier/ctrf.json").read_text()
        assert any("python3" in note for note in notes)


def test_uv_installed_by_a_dockerfile_run_comes_from_pypi(store: LayerStore) -> None:
    dockerfile = (
        "FROM debian:bookworm-slim\n"
        "RUN curl -LsSf https://astral.sh/uv/0.9.5/install.sh | sh\n"
        "RUN . $HOME/.local/bin/env && uv --version > /uv.txt\n"
    )
    built = build_environment(dockerfile, {}, store)
    status, output = store.check(built.layers, ["cat", "/uv.txt"])
    assert (status, output.split()[:2]) == (0, ["uv", "0.9.5"])
    assert any("uv's installer served offline" in note for note in built.notes)


def test_a_python_pin_of_3_13_runs_on_the_trixie_root_that_python_3_13_maps_to(store: LayerStore) -> None:
    built = build_environment("FROM python:3.13-slim\nWORKDIR /app\n", {}, store)
    layers, notes = verifier_layers(store, built.layers, TEST_SH)
    new, _ = rewrite_test_script(TEST_SH, python="3.13")
    assert "  -p 3.13 \\\n" in new and not any("python3" in note for note in notes)
    test = b"import sys\n\ndef test_version():\n    assert sys.version_info[:2] == (3, 13)\n"
    tests = {"test.sh": FileEntry(new.encode(), 0o755), "test_outputs.py": FileEntry(test)}
    stack = (store.add((*layers, *built.layers), tests, "/tests"), *layers, *built.layers)
    ran = store.run(stack, ["bash", "/tests/test.sh"], env={"HOME": "/root"}, workdir="/app", network=False)
    assert Path(ran, "logs/verifier/reward.txt").read_text() == "1\n"
    assert store.check(built.layers, ["sh", "-c", ". /etc/os-release; echo $VERSION_CODENAME"]) == (0, "trixie\n")
