"""The server's docker image: ``codegym serve`` in a container, with a health check.

    python -m codegym.serve.image [--start-daemon]          # prints the image's tag
    docker run -d -p 8000:8000 -e CODEGYM_SERVER_TOKEN=TOKEN codegym/serve:<tag>

Built on the docker backend's ``verifiers`` image (`codegym.executor.images`: Debian's python3,
Dafny, Why3 and Z3 from ``debootstrap``, then ``docker import``; no registry, built when
missing: the Dafny and WhyML families grade in it as the Python ones do), with this
checkout of codegym (as a wheel) and the server's packages installed in ``/opt/codegym`` from
wheels this machine downloads, offline (the build's container has no network). The image has
a ``HEALTHCHECK`` (``/health``, with the token). The server binds every address in the
container, so it will not start without ``CODEGYM_SERVER_TOKEN`` (or a command that passes
``--insecure``); ``CODEGYM_PORT`` moves it from 8000. Inside a default ``docker run`` its
sandbox is the ``container`` tier (``codegym doctor``, docs/backends.md). The tag is a hash of
the base, the wheel's contents and the recipe: a checkout builds it once.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from codegym.error import SandboxError
from codegym.executor import images

BASE = images.RECIPES["verifiers"]
# What the server imports beyond codegym's own dependencies (the ``serve`` extra).
SERVER_PACKAGES = ("fastapi>=0.110", "uvicorn>=0.30", "websockets>=12")
SITE = "/opt/codegym"
PORT = 8000
HEALTH = (
    "import os, urllib.request as u; "
    "r = u.Request('http://127.0.0.1:' + os.environ.get('CODEGYM_PORT', '8000') + '/health'); "
    "t = os.environ.get('CODEGYM_SERVER_TOKEN'); "
    "t and r.add_header('Authorization', 'Bearer ' + t); "
    "u.urlopen(r, timeout=4)"
)
# (pip runs from its own wheel: the base image's python3 has no pip of its own)
DOCKERFILE = f"""\
FROM {{base}}
COPY wheels /tmp/wheels
RUN python3 /tmp/wheels/{{pip}}/pip install --no-index --find-links /tmp/wheels --target {SITE} \\
    /tmp/wheels/{{codegym}} {" ".join(repr(p) for p in SERVER_PACKAGES)} && rm -rf /tmp/wheels
ENV PYTHONPATH={SITE} PATH={SITE}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
EXPOSE {PORT}
HEALTHCHECK --interval=5s --timeout=5s --retries=3 CMD ["python3", "-c", "{HEALTH}"]
CMD ["sh", "-c", "exec python3 -m codegym.cli serve --host 0.0.0.0 --port ${{CODEGYM_PORT:-{PORT}}}"]
"""


def checkout() -> Path:
    """The codegym checkout this package runs from (an editable install), else `SandboxError`."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "setup.py").is_file() or not (root / "pyproject.toml").is_file():
        raise SandboxError(f"the server image is built from a checkout of codegym; {root} is not one")
    return root


def build(client: Any, *, log: Any = None) -> str:
    """The tag of the server image for this checkout, built first when missing."""
    base = images.ensure(client, BASE, log=log)
    with tempfile.TemporaryDirectory(prefix="codegym-serve-image-", dir="/var/tmp") as work:
        wheels = Path(work) / "wheels"
        wheel = _wheel(wheels)
        digest = hashlib.sha256((base + _contents(wheel) + DOCKERFILE).encode()).hexdigest()[:12]
        tag = f"codegym/serve:{digest}"
        if images.has(client, tag):
            return tag
        _download(wheel, wheels)
        pip = next(wheels.glob("pip-*.whl")).name
        recipe = DOCKERFILE.replace("{base}", base).replace("{pip}", pip).replace("{codegym}", wheel.name)
        (Path(work) / "Dockerfile").write_text(recipe)
        try:
            client.images.build(path=work, tag=tag, rm=True, forcerm=True, network_mode="none")
        except Exception as e:  # (docker's BuildError and APIError: what the build said)
            raise SandboxError(f"building {tag} failed: {e}") from e
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
               *SERVER_PACKAGES, "pip"]  # fmt: skip
    _run(command, "downloading the server's packages")


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
