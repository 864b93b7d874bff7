"""Package list and package data generated from the tree, so a new family folder or a new kind of
data file cannot be left out of the wheel; and the fork server's loop in C (optional: without a C
compiler, the same loop runs in Python).

A folder under a package that has no ``__init__.py`` (a family's ``data/``, its ``problems/``) is
declared as a package of its own when its name is importable (setuptools warns about an
importable folder that is not declared); every file in a package folder and in its folders
that are not packages is package data, but for build products (`SKIPPED`)."""

from __future__ import annotations

from pathlib import Path

from setuptools import Extension, setup

ROOTS = {"codegym": "codegym", "codegym.envs": "envs", "codegym.wrappers": "wrappers"}
SKIPPED = (".pyc", ".pyo", ".so", ".pyd", ".o")  # build products
SOURCES = (".c",)  # the extensions' C sources: not data, but in a family's data/ (a task's C program) they are


def folders() -> dict[str, Path]:
    """Every package's folder by its name: folders with an ``__init__.py`` and the importable
    folders below them (data)."""
    found: dict[str, Path] = {}
    for package, root in ROOTS.items():
        for init in sorted(Path(root).rglob("__init__.py")):
            relative = init.parent.relative_to(root).parts
            if package == "codegym" and relative[:1] in (("envs",), ("wrappers",)):
                continue
            found[".".join((package, *relative))] = init.parent
    for name, folder in list(found.items()):
        for below in sorted(folder.rglob("*")):
            parts = below.relative_to(folder).parts
            if below.is_dir() and _kept(below) and all(part.isidentifier() for part in parts):
                found.setdefault(".".join((name, *parts)), below)
    return found


def package_data(packages: dict[str, Path]) -> dict[str, list[str]]:
    """Globs of each package's data: its files' kinds (``*.dfy``), and those of its folders that
    are not packages (``codegym-dafny/*.json``); ``.py`` files of a package are its modules."""
    owned = set(packages.values())
    data: dict[str, list[str]] = {}
    for name, folder in packages.items():
        globs: set[str] = set()
        for path in folder.rglob("*"):
            owner = next(parent for parent in path.parents if parent in owned)
            if owner != folder or not path.is_file() or not _kept(path) or path.name.endswith(SKIPPED):
                continue
            if path.name.endswith(SOURCES) and "data" not in path.relative_to(folder).parts[:-1] + folder.parts:
                continue
            if path.parent == folder and path.suffix == ".py":
                continue
            kind = f"*{path.suffix}" if path.suffix else path.name
            globs.add(str(path.parent.relative_to(folder) / kind))
        if globs:
            data[name] = sorted(globs)
    return data


def _kept(path: Path) -> bool:
    return not any(part.startswith(".") or part == "__pycache__" for part in path.parts)


PACKAGES = folders()
setup(
    packages=list(PACKAGES),
    package_dir=ROOTS,
    package_data=package_data(PACKAGES),
    ext_modules=[
        Extension("codegym.executor._forkcore", ["codegym/executor/_forkcore.c"], optional=True),
        Extension("codegym.meter._opcount", ["codegym/meter/_opcount.c"], optional=True),
    ],
)
