"""Base images of the docker backend, built here from Debian packages (no registry needed).

A `Recipe` names a Debian suite and the packages a task family's toolchain needs. Building
one bootstraps a minimal root file system with ``debootstrap`` from the Debian mirror apt
already uses, adds the mount points the container worker needs, and ``docker import``s it.
The tag is a hash of the recipe, so an image is built once and reused until its recipe
changes. Build them with one command::

    scripts/build_images.sh            # or: python -m codegym.executor.images build [names]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from codegym.error import SandboxError

RECIPE_VERSION = 1  # bump when the build steps below change what an image contains
DEFAULT_MIRROR = "http://deb.debian.org/debian"
# Mount points of the container worker (see _container.py): its view's root and the
# directory holding the executor's socket.
MOUNT_POINTS = ("codegym/root", "codegym/host")


@dataclass(frozen=True)
class Recipe:
    """What goes into one image.

    Attributes:
        name: Short name, the image's repository is ``codegym/<name>``.
        packages: Debian packages installed on top of the minimal base.
        suite: Debian release.
        variant: debootstrap variant.
    """

    name: str
    packages: tuple[str, ...]
    suite: str = "bookworm"
    variant: str = "minbase"

    @property
    def tag(self) -> str:
        """``codegym/<name>:<hash of the recipe>``."""
        digest = hashlib.sha256(json.dumps([RECIPE_VERSION, asdict(self)], sort_keys=True).encode()).hexdigest()
        return f"codegym/{self.name}:{digest[:12]}"


# What provides the alternatives and virtual packages Why3's GTK front end depends on, which
# debootstrap does not resolve.
WHY3_PROVIDERS = ("dbus-x11", "ocaml-base", "libcairo2-ocaml", "liblablgtk3-ocaml", "liblablgtksourceview3-ocaml")
RECIPES = {
    # python3 runs the local worker inside the container, the PythonFunction family and the
    # StdioProgram family's python; add a recipe per toolchain a family needs.
    "python": Recipe("python", ("python3",)),
    "c": Recipe("c", ("python3", "gcc", "g++", "libc6-dev")),
    # The verifier families' toolchains: Dafny (on Mono), Why3 and Z3 (the serve image's base).
    "verifiers": Recipe("verifiers", ("python3", "dafny", "z3", "why3", *WHY3_PROVIDERS)),
}


def recipe(name: str) -> Recipe:
    try:
        return RECIPES[name]
    except KeyError:
        raise ValueError(f"unknown image recipe {name!r}; choose one of {sorted(RECIPES)}") from None


def debian_mirror() -> str:
    """The Debian mirror apt is configured with here (debootstrap fetches from it)."""
    files = glob.glob("/etc/apt/sources.list") + sorted(glob.glob("/etc/apt/sources.list.d/*"))
    for path in files:
        try:
            with open(path) as handle:
                text = handle.read()
        except OSError:
            continue
        for match in re.finditer(r"^(?:URIs:|deb)\s+(?:\[[^\]]*\]\s+)?(\S+)", text, re.MULTILINE):
            uri = match.group(1)
            if "security" not in uri:
                return uri.rstrip("/")
    return DEFAULT_MIRROR


def exists(client: Any, spec: Recipe) -> bool:
    return has(client, spec.tag)


def has(client: Any, tag: str) -> bool:
    """Whether the engine holds the image ``tag``."""
    import docker.errors

    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def present(client: Any, name: str) -> str:
    """``name``, an image that must already be in the engine (codegym builds only recipes)."""
    import docker.errors

    try:
        client.images.get(name)
    except docker.errors.ImageNotFound:
        raise SandboxError(
            f"docker image {name!r} is not in the engine: `docker pull {name}` (or `docker load`) it first, "
            f"or name one of codegym's recipes ({', '.join(sorted(RECIPES))})"
        ) from None
    return name


def ensure(client: Any, spec: Recipe, *, build: bool = True, log: Callable[[str], None] | None = None) -> str:
    """The tag of ``spec``'s image, built first when missing (and ``build``)."""
    if exists(client, spec):
        return spec.tag
    if not build:
        raise SandboxError(f"docker image {spec.tag} is missing; build it with scripts/build_images.sh")
    return build_image(client, spec, log=log)


def build_image(
    client: Any,
    spec: Recipe,
    *,
    log: Callable[[str], None] | None = None,
    prepare: Callable[[str], None] | None = None,
    tag: str | None = None,
) -> str:
    """Bootstrap ``spec``'s root file system and import it as ``tag`` (``spec.tag``);
    ``prepare`` is called with the root's path before it is imported (to add to it)."""
    tag = tag or spec.tag
    if os.geteuid() != 0:  # debootstrap chroots and makes device nodes
        raise SandboxError(
            f"docker image {tag} is missing, and building it (debootstrap) needs root: ask an administrator "
            f"to run `python -m codegym.executor.images build {spec.name}` against the same daemon (for a "
            f"rootless daemon, then `docker save {tag} | docker load` into it)"
        )
    if shutil.which("debootstrap") is None:
        raise SandboxError("building docker images needs debootstrap (apt-get install debootstrap)")
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="codegym-image-", dir="/var/tmp") as work:
        root = os.path.join(work, "root")
        command = [
            "debootstrap", f"--variant={spec.variant}", f"--include={','.join(spec.packages)}",
            spec.suite, root, debian_mirror(),
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SandboxError(f"debootstrap failed ({done.returncode}):\n{done.stdout[-4000:]}{done.stderr[-4000:]}")
        for leftover in ("var/cache/apt/archives", "var/lib/apt/lists"):
            shutil.rmtree(os.path.join(root, leftover), ignore_errors=True)
        for point in MOUNT_POINTS:
            os.makedirs(os.path.join(root, point), exist_ok=True)
        if prepare is not None:
            prepare(root)
        archive = os.path.join(work, "root.tar")
        subprocess.run(["tar", "--numeric-owner", "-C", root, "-cf", archive, "."], check=True)
        repository, version = tag.split(":")
        with open(archive, "rb") as handle:
            client.api.import_image_from_data(handle, repository=repository, tag=version)
    if not has(client, tag):
        raise SandboxError(f"docker import did not produce {tag}")
    if log is not None:
        log(f"built {tag} in {time.monotonic() - started:.0f} s")
    return tag


def main(argv: list[str] | None = None) -> None:
    """``python -m codegym.executor.images build [recipe ...]``: build missing images."""
    parser = argparse.ArgumentParser(prog="python -m codegym.executor.images")
    parser.add_argument("command", choices=("build", "list"))
    parser.add_argument("recipes", nargs="*", default=["python"])
    parser.add_argument("--base-url", default=None, help="Docker daemon (default: $DOCKER_HOST or the local socket)")
    parser.add_argument("--start-daemon", action="store_true", help="start dockerd when none answers")
    args = parser.parse_args(argv)
    from codegym.executor.docker import connect, start_daemon

    if args.start_daemon:
        start_daemon()
    client = connect(args.base_url)
    for name in args.recipes:
        spec = recipe(name)
        if args.command == "list":
            print(spec.tag, "present" if exists(client, spec) else "missing")
        else:
            print(ensure(client, spec, log=print))


if __name__ == "__main__":
    main()
