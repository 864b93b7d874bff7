"""The executor contract suite runs every test over every backend: ``executor`` here is the
session's local, docker or ray executor, and `fresh` builds a private one of the same kind
(for tests that kill its workers). "local-python" is the local backend with its fork
servers' loop in Python, the fallback where the C loop is not built; "local-userns-root" and
"local-userns-user" and "local-container" are the local backend in the other isolation tiers this machine can make,
"docker-default" and "docker-unconfined" the docker backend in containers with Docker's own defaults (the
`container` tier inside) and without its seccomp profile (`userns` inside)
(see ``TIERS`` in ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from codegym.executor.base import Executor

# The docker backend's containers with Docker's own defaults, and without its seccomp profile
DOCKER_SECURITY = {"docker-default": {"security": "default"}, "docker-unconfined": {"security": "unconfined-seccomp"}}

BACKENDS = (
    "local",
    "local-python",
    "local-userns-root",
    "local-userns-user",
    "local-container",
    pytest.param("docker", marks=pytest.mark.docker),
    pytest.param("docker-default", marks=pytest.mark.docker),
    pytest.param("docker-unconfined", marks=pytest.mark.docker),
    "ray",
)  # -m "not docker" skips docker


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="session")
def executor(backend: str, request: pytest.FixtureRequest) -> Executor:
    if backend.startswith(("local-userns", "local-container", "docker-")):
        return request.getfixturevalue("tier_executors")(backend.removeprefix("local-"))
    return request.getfixturevalue(f"{backend.replace('-', '_')}_executor")


@pytest.fixture
def fresh(backend: str, request: pytest.FixtureRequest) -> Callable[..., Executor]:
    """``fresh(retries=...)``: a new one-worker executor of the backend under test."""

    def make(**options: Any) -> Executor:
        if backend.startswith("local"):
            from codegym.executor.local import LocalExecutor

            tier = {"local": "full", "local-python": "full"}.get(backend, backend.removeprefix("local-"))
            options = {**request.getfixturevalue("tier_options")(tier), **options}
            return LocalExecutor(workers=1, native_fork_server=backend != "local-python", **options)
        if backend.startswith("docker"):
            from codegym.executor.docker import DockerExecutor

            request.getfixturevalue("docker_daemon")
            return DockerExecutor(workers=1, **{**DOCKER_SECURITY.get(backend, {}), **options})
        from codegym.executor.ray import RayExecutor

        request.getfixturevalue("ray_executor")  # the session's cluster; this one joins it
        return RayExecutor(nodes=1, cpus_per_node=0, **options)

    return make
