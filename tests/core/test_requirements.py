"""What each family needs installed (``CodeEnv.requires``): probed on this machine by
`codegym.requirements`, reported by ``codegym doctor``, and said on each family's page and in
the set-up script."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import gymnasium as gym
import pytest
from codegym.envs.python_function.env import PythonFunctionEnv
from codegym.envs.stdio_program.languages import languages

from codegym.cli import main
from codegym.requirements import GPU_DEVICE, Module, Readiness, Requirements, Tool, env_requirements, family_report

ROOT = Path(__file__).resolve().parents[2]
ENV_IDS = sorted(i for i in gym.registry if i.startswith("codegym/"))
NOWHERE = "codegym-no-such-tool"
PYPROJECT = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
EXTRAS = set(re.findall(r"^(\w+) = \[", PYPROJECT.split("[project.optional-dependencies]")[1].split("\n[")[0], re.M))


class LacksATool(PythonFunctionEnv):
    """A family that needs a program no machine has, and one only some tasks need."""

    requires = Requirements(
        tools=(
            Tool(NOWHERE, "codegym-nothing"),
            Tool("codegym-no-such-either", "nothing-else", needed_for="tasks='x'"),
        ),
        modules=(Module("codegym_no_such_module", "contracts"),),
        gpu="speed",
    )


@pytest.fixture
def lacking() -> Iterator[str]:
    env_id = "codegymtest/LacksATool-v0"
    gym.register(id=env_id, entry_point=LacksATool)  # pyright: ignore[reportArgumentType]  (a class makes envs)
    yield env_id
    del gym.registry[env_id]


def test_probes_find_what_is_here_and_not_what_is_not() -> None:
    assert Tool("sh", "dash").found() and Tool("/bin/sh", "dash").found()
    assert not Tool(NOWHERE, "x").found() and not Tool("/nonexistent/bin/sh", "x").found()
    assert Tool("c", "libc6", library=True).found() and not Tool(NOWHERE, "x", library=True).found()
    assert Module("json", "x").found() and not Module("codegym_no_such_module", "x").found()
    assert not Module("codegym_no_such_package.sub", "x").found()


def test_readiness_says_what_is_missing_and_how_to_install_it(lacking: str) -> None:
    readiness = env_requirements(lacking).check()
    assert not readiness.ready
    assert readiness.missing == (
        f"{NOWHERE} (apt-get install codegym-nothing)",
        "codegym_no_such_module (pip install 'codegym[contracts]')",
    )
    assert readiness.limited == ("codegym-no-such-either (apt-get install nothing-else): tasks='x'",)
    line = family_report([lacking])
    assert line.startswith(f"{lacking}  missing {NOWHERE} (apt-get install codegym-nothing), codegym_no_such_module")
    assert "; without codegym-no-such-either (apt-get install nothing-else): tasks='x'" in line
    assert ("no GPU: speed" in line) is not Path(GPU_DEVICE).exists()


def test_a_family_whose_class_does_not_import_is_reported_not_raised() -> None:
    env_id = "codegymtest/Unimportable-v0"
    gym.register(id=env_id, entry_point="codegym_no_such_module.env:NoEnv")
    try:
        line = family_report([env_id])
    finally:
        del gym.registry[env_id]
    assert line.startswith(f"{env_id}  missing: its class does not import (No module named 'codegym_no_such_module')")


def test_a_family_that_only_lacks_optional_tools_is_ready() -> None:
    readiness = Requirements(tools=(Tool(NOWHERE, "p", needed_for="language='x'"),)).check()
    assert readiness.ready and readiness.render() == f"ready; without {NOWHERE} (apt-get install p): language='x'"
    assert Readiness().render() == "ready"


def test_doctor_lists_every_family_as_ready_or_missing_what(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor"])
    out = capsys.readouterr().out
    for env_id in ENV_IDS:
        (line,) = [line for line in out.splitlines() if line.startswith(env_id + " ")]
        readiness = env_requirements(env_id).check()
        assert line.split(None, 1)[1] == readiness.render(), line
        # the suite's machine has what scripts/setup.sh installs: every family is ready here
        assert readiness.ready, line


def test_every_family_declares_what_it_uses() -> None:
    declared = {env_id: env_requirements(env_id) for env_id in ENV_IDS}
    assert declared["codegym/Verilog-v1"].packages == ("iverilog", "verilator")
    assert declared["codegym/PyContracts-v1"].extras == ("contracts",)
    assert declared["codegym/TritonKernel-v0"].gpu and declared["codegym/TritonKernel-v0"].extras == ("triton",)
    assert "dafny" in declared["codegym/Dafny-v1"].packages and "why3" in declared["codegym/WhyML-v0"].packages
    assert declared["codegym/HTMLFromScreenshot-v0"].packages == ("chromium",)


def test_stdio_languages_each_have_their_tools_declared() -> None:
    tools = {tool.name: tool for tool in env_requirements("codegym/StdioProgram-v0").tools}
    for name, language in languages().items():
        for argv in (language.compile, language.run):
            program = argv[0] if argv else "python"
            if program in ("python", "./main"):
                continue  # (the sandbox's own Python; the program the compile step built)
            assert program in tools and tools[program].needed_for == f"language={name!r}", (name, program)


def test_declared_packages_and_extras_are_the_ones_set_up_installs() -> None:
    setup = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    system = set(re.search(r"SYSTEM_PACKAGES=\((.*?)\)", setup, re.S)[1].split())  # type: ignore[index]
    for env_id in ENV_IDS:
        requirements = env_requirements(env_id)
        assert set(requirements.packages) <= system, (env_id, set(requirements.packages) - system)
        assert set(requirements.extras) <= EXTRAS, (env_id, set(requirements.extras) - EXTRAS)


def family_page(env_id: str) -> Path:
    """The family's page: docs/families/<family, lower case, without underscores>.md, or visual.md."""
    family = env_id.removeprefix("codegym/").rsplit("-v", 1)[0].lower()
    pages = {page.stem.replace("_", ""): page for page in (ROOT / "docs" / "families").glob("*.md")}
    return pages.get(family, ROOT / "docs" / "families" / "visual.md")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_each_family_page_says_what_to_install(env_id: str) -> None:
    text = family_page(env_id).read_text(encoding="utf-8")
    found = re.search(r"^## Install\n(.*?)(?=^#)", text, re.M | re.S)
    assert found, f"{family_page(env_id).name} has no '## Install' section"
    section = found[1]
    requirements = env_requirements(env_id)
    named_extras = {e for group in re.findall(r"codegym\[([\w,]+)\]", section) for e in group.split(",")}
    assert set(requirements.extras) <= named_extras, (env_id, requirements.extras, named_extras)
    apt = {word for command in re.findall(r"`apt-get install ([^`]+)`", section) for word in command.split()}
    assert set(requirements.packages) <= apt, (env_id, set(requirements.packages) - apt)
    assert "codegym doctor" in section


def test_the_docs_index_install_line_names_every_extra() -> None:
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    (line,) = [line for line in index.splitlines() if line.startswith("As a library:")]
    named = {e for group in re.findall(r"\.\[([\w,]+)\]", line) for e in group.split(",")}
    assert named == EXTRAS, (EXTRAS - named, named - EXTRAS)
