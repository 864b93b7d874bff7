"""The server's docker image: ``codegym serve`` in a container, with a health check.

    python -m codegym.serve.image [--start-daemon]          # prints the image's tag
    docker run -d -p 8000:8000 -e CODEGYM_SERVER_TOKEN=TOKEN codegym/serve:<tag>

Built as the docker backend's images are (`codegym.executor.images`: Debian's python3 from
``debootstrap``, then ``docker import``; no registry), with this checkout of codegym (as a
wheel) and the server's packages in a venv at ``/opt/codegym``, installed from wheels this
machine downloads. A second layer, built from the first, adds what ``docker import`` cannot:
the ``HEALTHCHECK`` (``/health``, with the token), the port and the command. The server binds
every address in the container, so it will not start without ``CODEGYM_SERVER_TOKEN`` (or a
command that passes ``--insecure``); ``CODEGYM_PORT`` moves it from 8000. Inside a default
``docker run`` its sandbox is the ``container`` tier (``codegym doctor``, docs/backends.md).
The tag is a hash of the recipe and of the wheel's contents: a checkout builds it once.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from codegym.error import SandboxError
from codegym.executor import images

RECIPE = images.Recipe("serve-base", ("python3", "python3-venv"))
# What the server imports beyond codegym's own dependencies (the ``serve`` extra).
SERVER_PACKAGES = ("fastapi>=0.110", "uvicorn>=0.30", "websockets>=12")
VENV = "/opt/codegym"
PORT = 8000
HEALTH = (
    "import os, urllib.request as u; "
    "r = u.Request('http://127.0.0.1:' + os.environ.get('CODEGYM_PORT', '8000') + '/health'); "
    "t = os.environ.get('CODEGYM_SERVER_TOKEN'); "
    "t and r.add_header('Authorization', 'Bearer ' + t); "
    "u.urlopen(r, timeout=4)"
)
DOCKERFILE = f"""\
FROM {{base}}
ENV PATH={VENV}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EXPOSE {PORT}
HEALTHCHECK --interval=5s --timeout=5s --retries=3 CMD ["{VENV}/bin/python", "-c", "{HEALTH}"]
CMD ["sh", "-c", "exec codegym serve --host 0.0.0.0 --port ${{CODEGYM_PORT:-{PORT}}}"]
"""


def checkout() -> Path:
    """The codegym checkout this package runs from (an editable install), else `SandboxError`."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "setup.py").is_file() or not (root / "pyproject.toml").is_file():
        raise SandboxError(f"the server image is built from a checkout of codegym; {root} is not one")
    return root


def build(client: Any, *, log: Any = None) -> str:
    """The tag of the server image for this checkout, built first when missing."""
    with tempfile.TemporaryDirectory(prefix="codegym-serve-image-", dir="/var/tmp") as work:
        wheels = Path(work) / "wheels"
        wheel = _wheel(wheels)
        digest = hashlib.sha256((RECIPE.tag + _contents(wheel) + DOCKERFILE).encode()).hexdigest()[:12]
        tag, base = f"codegym/serve:{digest}", f"codegym/serve-base:{digest}"
        if images.has(client, tag):
            return tag
        _download(wheel, wheels)
        if not images.has(client, base):
            images.build_image(client, RECIPE, log=log, tag=base, prepare=lambda root: _install(root, wheel, wheels))
    client.images.build(fileobj=io.BytesIO(DOCKERFILE.replace("{base}", base).encode()), tag=tag, rm=True)
    if log is not None:
        log(f"built {tag}")
    return tag


def _wheel(into: Path) -> Path:
    """This checkout as a wheel (its C extensions built for this machine's Python 3.11)."""
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(into),
               str(checkout())]  # fmt: skip
    _run(command, "building codegym's wheel")
    return next(into.glob("codegym-*.whl"))


def _contents(wheel: Path) -> str:
    """The wheel's files and their hashes (its RECORD), which do not change with its build time."""
    with zipfile.ZipFile(wheel) as archive:
        record = next(name for name in archive.namelist() if name.endswith(".dist-info/RECORD"))
        return archive.read(record).decode()


def _download(wheel: Path, into: Path) -> None:
    """Every wheel the server needs, from this machine's package index, for the image's Python."""
    command = [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:", "-d", str(into), str(wheel),
               *SERVER_PACKAGES]  # fmt: skip
    _run(command, "downloading the server's packages")


def _install(root: str, wheel: Path, wheels: Path) -> None:
    """A venv at `VENV` in the image's root holding codegym and the server's packages, offline."""
    inside = Path(root) / "tmp" / "wheels"
    shutil.copytree(wheels, inside)
    _run(["chroot", root, "python3", "-m", "venv", VENV], "making the image's venv")
    pip = ["chroot", root, f"{VENV}/bin/pip", "install", "-q", "--no-index", "--find-links", "/tmp/wheels"]
    _run([*pip, f"/tmp/wheels/{wheel.name}", *SERVER_PACKAGES], "installing codegym in the image")
    shutil.rmtree(inside)


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False, env={**os.environ, "PIP_NO_INPUT": "1"})
    if done.returncode != 0:
        raise SandboxError(f"{what} failed ({done.returncode}): {(done.stdout + done.stderr)[-3000:]}")


def main(argv: list[str] | None = None) -> None:
    """``python -m codegym.serve.image``: build the server image (if missing), print its tag."""
    parser = argparse.ArgumentParser(prog="python -m codegym.serve.image", description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base-url", default=None, help="Docker daemon (default: $DOCKER_HOST or the local socket)")
    parser.add_argument("--start-daemon", action="store_true", help="start dockerd when none answers (root)")
    args = parser.parse_args(argv)
    from codegym.executor.docker import connect, start_daemon

    if args.start_daemon:
        start_daemon()
    print(build(connect(args.base_url), log=lambda line: print(line, file=sys.stderr)))


if __name__ == "__main__":
    main()
