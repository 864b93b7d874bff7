"""Tool folders: each harness program installed once, pinned, mounted read-only into boxes.

``python -m codegym.harness.install`` (the README's set-up runs it) builds a folder per program
that holds what it needs and nothing of the host's beyond it::

    <tools>/bin/node                 Node.js (the host's single-binary build: it needs only
                                     libc, libstdc++ and libgcc_s, which every Debian root has)
    <tools>/npm/node_modules/...     an npm program (`Recipe.package` "npm:...")
    <tools>/python/                  a CPython of its own (interpreter, standard library, the
                                     shared libraries its modules load) for a PyPI program,
    <tools>/python/site/             installed there with ``pip --target``
    <tools>/boot.py                  codegym's start-up for a Python program (see `BOOT`)
    <tools>/manifest.json            what was installed, at which versions, and its size

A box mounts the folder at `MOUNT`, read-only: a program runs from there whatever the task's
root holds, and what it runs (a shell, the task's Python) is the task's own. The folder is
named by its program and a hash of what it holds (package, Node's and Python's versions), so a
new pin builds a new folder and an old one is never changed under a running box.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from codegym.harness.recipe import Recipe

MOUNT = "/opt/codegym-harness"  # where boxes see the tool folder
LAYOUT_VERSION = 1
# Libraries every glibc root has: the portable Python does not carry them.
_SYSTEM_LIBRARIES = ("linux-vdso", "libc.so", "libm.so", "libpthread.so", "libdl.so", "librt.so", "ld-linux",
                     "libutil.so", "libresolv.so", "libcrypt.so")  # fmt: skip
# Standard-library parts a program never needs (the GUI, the test suite, installers).
_STDLIB_LEFT_OUT = ("site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "config-")
_MODULES_LEFT_OUT = ("_tkinter", "_test", "xxlimited", "_xxtest", "_ctypes_test")

# The start-up of a Python program in a box: the interpreter needs LD_LIBRARY_PATH, PYTHONHOME
# and PYTHONPATH pointing into the tool folder, but the commands the program runs (the task's
# own python3, its tests) must not inherit them: they are removed from the environment before
# the program's code runs (the loader and the interpreter read them once, at start).
BOOT = '''"""codegym: start a tool-folder Python program with a clean environment for its children."""
import os
import runpy
import sys

for name in ("LD_LIBRARY_PATH", "PYTHONHOME", "PYTHONPATH", "PYTHONNOUSERSITE"):
    os.environ.pop(name, None)
module, sys.argv = sys.argv[1], sys.argv[1:]
runpy.run_module(module, run_name="__main__", alter_sys=True)
'''


def default_root() -> str:
    """``$CODEGYM_HARNESS_TOOLS`` (a folder filled already, which plain users share), else
    ``$CODEGYM_CACHE/harness``, else ``~/.cache/codegym/harness``."""
    if os.environ.get("CODEGYM_HARNESS_TOOLS"):
        return os.environ["CODEGYM_HARNESS_TOOLS"]
    base = os.environ.get("CODEGYM_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "codegym")
    return os.path.join(base, "harness")


def node_binary() -> str:
    """The host's Node.js (a single binary), or a `RuntimeError` that says how to get one."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        raise RuntimeError("harness programs need Node.js: install the Debian package nodejs (>= 18)")
    return os.path.realpath(node)


def _version(argv: Sequence[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()


def tools_folder(recipe: Recipe, root: str | None = None) -> str:
    """Where ``recipe``'s tool folder is (or would be) on this host: named for the program
    and a hash of its package, Node's and Python's versions and this layout."""
    parts = [LAYOUT_VERSION, recipe.package, recipe.extras, _version([node_binary(), "--version"]), sys.version, BOOT]
    key = hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]
    return os.path.join(root or default_root(), f"{recipe.name}-{key}")


def installed(recipe: Recipe, root: str | None = None) -> str | None:
    """``recipe``'s tool folder if set-up built it, else None."""
    folder = tools_folder(recipe, root)
    return folder if os.path.isfile(os.path.join(folder, "manifest.json")) else None


def install(recipe: Recipe, root: str | None = None, *, log: bool = False) -> str:
    """Build ``recipe``'s tool folder (once: one built already is returned as it is). Needs
    the npm or PyPI registry; the episodes that use it reach nothing."""
    done = installed(recipe, root)
    if done is not None:
        return done
    folder = tools_folder(recipe, root)
    building = f"{folder}.building-{os.getpid()}"
    shutil.rmtree(building, ignore_errors=True)
    os.makedirs(building)
    try:
        kind, _, package = recipe.package.partition(":")
        _install_node(building)
        if kind == "npm":
            _run(["npm", "install", "--prefix", os.path.join(building, "npm"), "--no-audit", "--no-fund",
                  "--no-update-notifier", "--omit=dev", package], log=log)  # fmt: skip
        elif kind == "pypi":
            _install_python(building)
            site = os.path.join(building, "python", "site")
            _run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                  "--no-warn-conflicts", "--target", site, package], log=log)  # fmt: skip
        else:
            raise ValueError(f"Recipe.package must start with 'npm:' or 'pypi:', got {recipe.package!r}")
        for spec, member, destination in recipe.extras:
            _install_extra(building, spec, member, destination, log=log)
        Path(building, "boot.py").write_text(BOOT)
        _readable(building)
        manifest = {"program": recipe.name, "package": recipe.package,
                    "node": _version([node_binary(), "--version"]), "python": sys.version.split()[0],
                    "bytes": _size(building)}  # fmt: skip
        Path(building, "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
        os.rename(building, folder)
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise
    return folder


def _run(argv: list[str], *, log: bool) -> None:
    env = {**os.environ, "npm_config_update_notifier": "false", "PIP_NO_INPUT": "1"}
    result = subprocess.run(argv, env=env, capture_output=not log, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:4])} ... failed ({result.returncode}):\n{result.stderr or ''}")


def _install_extra(folder: str, spec: str, member: str, destination: str, *, log: bool) -> None:
    """``member`` of npm package ``spec`` (fetched with ``npm pack``), at ``destination`` in ``folder``."""
    with tempfile.TemporaryDirectory() as scratch:
        packed = subprocess.run(["npm", "pack", "--silent", spec], cwd=scratch, capture_output=True, text=True,
                                check=False)  # fmt: skip
        if packed.returncode != 0:
            raise RuntimeError(f"npm pack {spec} failed ({packed.returncode}):\n{packed.stderr}")
        tarball = os.path.join(scratch, packed.stdout.strip().splitlines()[-1])
        with tarfile.open(tarball) as archive:
            source = archive.extractfile(f"package/{member}")
            if source is None:
                raise RuntimeError(f"{spec} holds no file {member}")
            target = Path(folder, destination)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
            target.chmod(0o755)
    if log:
        print(f"{destination} from {spec}")


def _install_node(folder: str) -> None:
    os.makedirs(os.path.join(folder, "bin"))
    shutil.copy2(node_binary(), os.path.join(folder, "bin", "node"))


def _install_python(folder: str) -> None:
    """A CPython of its own under ``folder/python``: this interpreter's binary, shared
    library, standard library and modules, and the libraries those load that a bare Debian
    root may lack (OpenSSL, libffi, zlib, ...)."""
    prefix, target = sys.base_prefix, os.path.join(folder, "python")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    os.makedirs(os.path.join(target, "bin"))
    os.makedirs(os.path.join(target, "lib"))
    shutil.copy2(os.path.realpath(os.path.join(prefix, "bin", version)), os.path.join(target, "bin", version))
    os.symlink(version, os.path.join(target, "bin", "python"))  # (what a recipe names: {tools}/python/bin/python)
    library = str(sysconfig.get_config_var("LDLIBRARY") or "")
    libdir = sysconfig.get_config_var("LIBDIR") or os.path.join(prefix, "lib")
    loaded: list[str] = [os.path.join(target, "bin", version)]
    if ".so" in library:  # (a shared libpython: the interpreter's binary loads it)
        stem = library.partition(".so")[0] + ".so"
        for name in os.listdir(libdir):
            if name.startswith(stem):
                shutil.copy2(os.path.join(libdir, name), os.path.join(target, "lib", name), follow_symlinks=False)
    stdlib = sysconfig.get_path("stdlib", vars={"installed_base": prefix, "base": prefix})
    shutil.copytree(stdlib, os.path.join(target, "lib", version), symlinks=True,
                    ignore=lambda _, names: [n for n in names if n.startswith(_STDLIB_LEFT_OUT)
                                             or n.startswith(_MODULES_LEFT_OUT)])  # fmt: skip
    dynload = os.path.join(target, "lib", version, "lib-dynload")
    loaded += [os.path.join(dynload, name) for name in os.listdir(dynload) if name.endswith(".so")]
    for path in sorted(_libraries_of(loaded)):
        shutil.copy2(path, os.path.join(target, "lib", os.path.basename(path)))


def _libraries_of(binaries: Iterable[str]) -> set[str]:
    """The shared libraries ``binaries`` load (as ldd resolves them here), but glibc's own."""
    found: set[str] = set()
    for binary in binaries:
        output = subprocess.run(["ldd", binary], capture_output=True, text=True, check=False).stdout
        for line in output.splitlines():
            name, _, rest = line.strip().partition(" => ")
            path = rest.split(" (")[0].strip()
            if path.startswith("/") and not name.startswith(_SYSTEM_LIBRARIES) and "libpython" not in name:
                found.add(os.path.realpath(path))
    return found


def _readable(folder: str) -> None:
    """Everything readable (and folders and executables enterable) by every uid: a box's
    processes run as ids of their own."""
    for base, folders, files in os.walk(folder):
        for name in (*folders, *files):
            path = os.path.join(base, name)
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            extra = 0o555 if os.path.isdir(path) or mode & 0o111 else 0o444
            os.chmod(path, mode | extra)
    os.chmod(folder, 0o755)


def _size(folder: str) -> int:
    return sum(os.lstat(os.path.join(base, name)).st_size for base, _, names in os.walk(folder) for name in names)


def main(argv: list[str] | None = None) -> None:
    from codegym.harness.recipe import recipes

    known = recipes()
    parser = argparse.ArgumentParser(description="Install harness programs into their tool folders.")
    parser.add_argument("programs", nargs="*", help=f"programs to install (default: all of {sorted(known)})")
    parser.add_argument("--root", help=f"where tool folders go (default {default_root()})")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.programs) - set(known))
    if unknown:
        parser.error(f"unknown programs {unknown}; known: {sorted(known)}")
    for name in args.programs or sorted(known):
        print(install(known[name], args.root, log=True))


if __name__ == "__main__":
    main()
