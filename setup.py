"""Package list generated from the tree, so a new family folder cannot be left out; and the
fork server's loop in C (optional: without a C compiler, the same loop runs in Python)."""

from __future__ import annotations

from pathlib import Path

from setuptools import Extension, setup

ROOTS = {"codegym": "codegym", "codegym.envs": "envs", "codegym.wrappers": "wrappers"}


def packages() -> list[str]:
    found = []
    for package, folder in ROOTS.items():
        for init in sorted(Path(folder).rglob("__init__.py")):
            relative = init.parent.relative_to(folder).parts
            name = ".".join((package, *relative))
            if package == "codegym" and relative[:1] in (("envs",), ("wrappers",)):
                continue
            found.append(name)
    return found


setup(
    packages=packages(),
    package_dir={"codegym": "codegym", "codegym.envs": "envs", "codegym.wrappers": "wrappers"},
    ext_modules=[
        Extension("codegym.executor._forkcore", ["codegym/executor/_forkcore.c"], optional=True),
        Extension("codegym.meter._opcount", ["codegym/meter/_opcount.c"], optional=True),
    ],
)
