"""The server's docker image: built from this checkout, it starts in a default ``docker run``
only with a token, reports healthy, runs its sandbox in the ``container`` tier, grades as
codegym does in this process, and plays the verifier families (Dafny, WhyML)."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

import codegym
from codegym.serve import image

from .conftest import _free_port

pytestmark = [pytest.mark.docker, pytest.mark.timeout(600)]

TOKEN = "image-test-token"
ENV = "codegym/PythonFunction-v0"


@pytest.fixture(scope="module")
def tag(docker_daemon: Any) -> str:
    return image.build(docker_daemon)


@pytest.fixture
def server(docker_daemon: Any, tag: str) -> Iterator[tuple[Any, str]]:
    """The image run as a user runs it (default privileges; the host's network, since the
    test daemon has no bridge), on a free port, until its health check passes."""
    port = _free_port()
    container = docker_daemon.containers.run(
        tag, detach=True, network_mode="host", environment={"CODEGYM_SERVER_TOKEN": TOKEN, "CODEGYM_PORT": str(port)}
    )
    try:
        deadline, health = time.monotonic() + 120, None
        while time.monotonic() < deadline:
            container.reload()
            health = container.attrs["State"].get("Health", {}).get("Status")
            if health == "healthy" or container.status == "exited":
                break
            time.sleep(1)
        assert health == "healthy", container.logs().decode(errors="replace")[-2000:]
        yield container, f"http://127.0.0.1:{port}"
    finally:
        container.remove(force=True)


def test_the_image_serves_healthy_in_the_container_tier_and_grades_as_here(server: tuple[Any, str]) -> None:
    _, url = server
    request = urllib.request.Request(url + "/health", headers={"Authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert json.load(answer)["isolation"] == "container"
    env = codegym.Scorer(ENV).env
    tasks = list(env.tasks)[:6]
    items = [(t.id, t.reference or "") for t in tasks] + [(t.id, "def f():\n    pass\n") for t in tasks[:3]]
    items.append((tasks[0].id, "while True:\n    pass\n"))
    remote_url = url.replace("http://", f"http://codegym:{TOKEN}@")
    try:
        remote = codegym.score(ENV, items, server=remote_url)
        assert remote == codegym.score(ENV, items)
        assert [g.status.value for g in remote[-4:]] == ["WA", "WA", "WA", "TLE"]
        # The host's secrets are not the sandbox's to read in the container either (how it
        # fails is the tier's: no such file in one view, permission denied in the other).
        (peek,) = codegym.score(ENV, [(tasks[0].id, "print(open('/etc/shadow').read())\n")], server=remote_url)
        assert peek.status.value == "RE" and "root:" not in peek.feedback()
    finally:
        env.close()


@pytest.mark.parametrize("env_id", ["codegym/Dafny-v1", "codegym/WhyML-v0"])
def test_the_image_plays_the_verifier_families(server: tuple[Any, str], env_id: str) -> None:
    """Dafny and Why3 are in the image and the wheel holds their tasks: a bundled reference
    verifies (reward 1), and an answer that does not parse does not."""
    _, url = server
    env = codegym.Scorer(env_id).env
    try:
        task = next(t for t in env.tasks if t.reference)
        items = [(task.id, task.reference or ""), (task.id, "method {")]
        right, wrong = codegym.score(env_id, items, server=url, token=TOKEN)
        assert (right.status.value, env.reward(right)) == ("OK", 1.0), right.message
        assert wrong.status.value != "OK" and env.reward(wrong) == 0.0
    finally:
        env.close()


def test_without_a_token_the_image_refuses_to_start(docker_daemon: Any, tag: str) -> None:
    import docker.errors

    with pytest.raises(docker.errors.ContainerError, match=r"refusing to serve 0\.0\.0\.0"):
        docker_daemon.containers.run(tag, network_mode="host", remove=True, stderr=True)
