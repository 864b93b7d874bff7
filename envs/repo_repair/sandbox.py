"""Where the family's tests run, and the jobs that run them.

Each library's tests need pytest and their own requirements, installed into the cache's
``env/`` folder (`codegym.envs.repo_repair.library.environment`). `RepoExecutor` binds that
folder read-only into its workers' views, and nothing else of the cache: the unpacked sources,
which hold the code before any bug, stay out of every sandbox. A task that brings its own
Docker image runs in warm containers of it instead (`image_executor`), under the image's
environment. Either way the job (`suite_job`, `image_job`) writes the whole tree, protects
every file but the library's source (`Job.protected`), and reports to the harness.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegym.envs.repo_repair.library import Environment, Library, environment, environments_root

from codegym.agent import TOOL_MODULES
from codegym.error import SandboxError
from codegym.executor import Harness, Job, Limits, Step
from codegym.executor._view import closed_at
from codegym.executor.local import LocalExecutor
from codegym.executor.registry import PerProcess

RUNNER = "codegym.envs.repo_repair.runner"
HARNESS = "codegym.envs.repo_repair.harness"
MODULES = (RUNNER, HARNESS, *TOOL_MODULES)  # (the tools: agent episodes share the workers)
RUNNER_FILE = ".codegym_runner.py"  # (the runner, as a file, for a task image's own Python)
MAX_IMAGES = 4  # task images with warm containers at once
IMAGE_MEMORY_BYTES = 4 << 30  # a task image's container: its suites may need more than a bundled library's

if TYPE_CHECKING:
    from codegym.envs.repo_repair.tasks import Image

    from codegym.executor.docker import DockerExecutor

_shared: PerProcess[str, RepoExecutor] = PerProcess()


class RepoExecutor(LocalExecutor):
    """A `LocalExecutor` whose workers see the test environments (read-only) and preload
    the family's runner and harness.

    Args:
        workers: Number of workers; one per core by default.
        preload: Further modules to import in every worker.
        launcher: As `LocalExecutor`'s; ``setarch -R`` goes before it (see below).
        **kwargs: Passed on to `LocalExecutor`.

    Raises:
        SandboxError: In the `container` tier, whose submissions read the environments in
            place as another uid, when a folder on the way lets no other user through.
    """

    def __init__(
        self, workers: int | None = None, *, preload: Iterable[str] = (), launcher: Iterable[str] = (), **kwargs: Any
    ) -> None:
        self._environments = str(environments_root())
        # Without address randomization: before Python 3.12, hash(None) is None's address, so a
        # set holding None iterates in an order of the process's layout, and pytest's ids of
        # tests parametrized from it (``expected23``) would differ from worker to worker.
        if shutil.which("setarch"):
            launcher = ("setarch", "-R", *launcher)
        super().__init__(workers, preload=(*MODULES, *preload), launcher=launcher, **kwargs)
        closed = closed_at(self._environments)
        if self.isolation == "container" and closed:
            self.close()
            raise SandboxError(
                f"the test environments in {self._environments} are out of reach of the `container` tier's "
                f"submissions (another uid): {closed} lets no other user through. Set CODEGYM_CACHE to a folder "
                f"others may read (such as /var/cache/codegym), or chmod o+x {closed}"
            )

    def _view(self) -> dict[str, Any]:
        view = super()._view()
        return {**view, "binds": [*view["binds"], (self._environments, self._environments)]}


def shared_executor() -> RepoExecutor:
    """The process-wide executor of the family, started on first use, closed at exit."""
    return _shared.get(str(environments_root()), RepoExecutor, stale=lambda e: e._closed)


def suite_job(
    library: Library,
    files: Mapping[str, bytes],
    limits: Limits,
    *,
    timeout_s: float | None,
    verify: Iterable[str] = (),
) -> Job:
    """The job that runs ``library``'s whole test suite in the tree ``files``, reporting to
    the harness, and runs the tests ``verify`` (a task's FAIL_TO_PASS) again where the
    session's report cannot reach their verdict (see `codegym.envs.repo_repair.runner`)."""
    env: Environment = environment(library)
    return _job(("python", "-m", RUNNER), library, files, limits, site=env.site, timeout_s=timeout_s, verify=verify,
                preload=MODULES)  # fmt: skip


def _job(
    command: tuple[str, ...],
    library: Library,
    files: Mapping[str, bytes],
    limits: Limits,
    *,
    site: str | None,
    timeout_s: float | None,
    verify: Iterable[str],
    preload: tuple[str, ...],
) -> Job:
    """The one step of either job: ``command`` runs the runner with its CONFIG, reporting to
    the harness; every file of ``files`` but the library's source is protected."""
    config = {"site": site, "python_path": list(library.python_path), "options": list(library.pytest_args),
              "tests": list(library.tests), "verify": list(verify), "timeout_s": timeout_s}  # fmt: skip
    step = Step(argv=(*command, json.dumps(config)), channel=True)
    harness = Harness(f"{HARNESS}:collect", json.dumps({"budget_s": limits.wall_s + 5.0}).encode())
    return Job(steps=(step,), files=files, limits=limits, harness=harness, preload=preload,
               protected=_harness_files(library, files))  # fmt: skip


def _harness_files(library: Library, files: Mapping[str, bytes]) -> tuple[str, ...]:
    """Every file of the tree but the library's source: its tests, their data, conftest and
    configuration. The tests import the library, so a repair's code runs beside them; it must
    not rewrite a test module before pytest imports it."""
    return tuple(path for path in files if not library.is_source(path))


def image_job(
    image: Image,
    library: Library,
    files: Mapping[str, bytes],
    limits: Limits,
    *,
    timeout_s: float | None,
    verify: Iterable[str] = (),
) -> Job:
    """`suite_job` for a task image: the runner runs as a file under the image's Python, whose
    environment is the test environment."""
    files = {**files, RUNNER_FILE: Path(__file__).with_name("runner.py").read_bytes()}
    return _job((image.python, RUNNER_FILE), library, files, limits, site=None, timeout_s=timeout_s, verify=verify,
                preload=(HARNESS, *TOOL_MODULES))  # fmt: skip


_images: dict[Image, DockerExecutor] = {}
_images_pid = 0


def image_executor(image: Image) -> DockerExecutor:
    """Warm containers of ``image`` (one worker), kept for the last `MAX_IMAGES` images used."""
    global _images_pid
    from codegym.executor.docker import DockerExecutor

    if _images_pid != os.getpid():  # (a forked child starts without its parent's)
        _images.clear()
        _images_pid = os.getpid()
    executor = _images.pop(image, None)
    if executor is None or executor._closed:
        executor = DockerExecutor(workers=1, image=image.name, view_binds=image.binds, preload=(HARNESS, *TOOL_MODULES),
                                  memory_bytes=IMAGE_MEMORY_BYTES)  # fmt: skip
    _images[image] = executor
    while len(_images) > MAX_IMAGES:
        _images.pop(next(iter(_images))).close()
    return executor


def close_images() -> None:
    """Stop the task images' containers (they also go at interpreter exit)."""
    while _images:
        _images.popitem()[1].close()
