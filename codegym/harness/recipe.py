"""How a CLI agent is installed, started and pointed at codegym's model proxy: a `Recipe`.

A harness episode runs a real agent program (mini-swe-agent, OpenCode, Codex CLI, Claude Code)
inside the episode's sandbox. Everything codegym must know about one program is data: the
package set-up installs (pinned), the API it calls, its command line, its variables and the
config files it reads. Adding a program is one `Recipe` passed to `register_recipe`.

Templates in ``argv``, ``env`` and ``files`` name these fields, filled in at each start:

- ``{instruction}``: the task's instruction (one argv item, never split by a shell);
- ``{instruction_file}``: the path of a file holding it (for a program that reads a file);
- ``{base_url}``: the proxy's root URL as the program sees it (``http://127.0.0.1:PORT``);
- ``{api_key}``: a dummy credential the proxy accepts;
- ``{model}``: the model name the program is told to use;
- ``{tools}``: the read-only tool folder (where set-up installed the programs);
- ``{home}``: the program's home folder (writable, fresh each episode);
- ``{workdir}``: the folder the task's files are in (the program's current directory);
- ``{path}``: the task's ``PATH`` (a program that needs a tool on it appends its own folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Api = Literal["chat", "responses", "messages"]


@dataclass(frozen=True)
class Recipe:
    """One agent program.

    Attributes:
        name: What ``harness=`` names (``"codex"``).
        api: The API it calls: OpenAI Chat Completions (``"chat"``), OpenAI Responses
            (``"responses"``) or Anthropic Messages (``"messages"``).
        package: What set-up installs, pinned: ``"npm:@openai/codex@0.171.0"`` or
            ``"pypi:mini-swe-agent==2.4.6"``.
        argv: Its command line (templates filled in, see the module docstring).
        env: Its variables (templates filled in).
        files: Files written before it starts: path (absolute, or relative to ``{home}``) and
            content (templates filled in).
        extras: Files set-up takes from other npm packages into the tool folder: ``(package
            spec, the file's path in the package, where it goes in the tool folder)``.
        model: The model name it is told to use.
        done: What in its output says it finished on its own (informational; the episode ends
            when it exits).
    """

    name: str
    api: Api
    package: str
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    extras: tuple[tuple[str, str, str], ...] = ()
    model: str = "codegym-policy"
    done: str = ""


_registered: dict[str, Recipe] = {}


def register_recipe(recipe: Recipe) -> None:
    """Make ``harness=recipe.name`` start ``recipe``'s program (install it with
    ``python -m codegym.harness.install NAME`` or `codegym.harness.install.install`)."""
    if not isinstance(recipe, Recipe):
        raise TypeError(f"register_recipe takes a codegym.harness.Recipe, got {type(recipe).__name__}")
    _registered[recipe.name] = recipe


def recipes() -> dict[str, Recipe]:
    """Every program ``harness=`` can name: the four codegym ships, and those registered."""
    from codegym.harness import programs

    return {**programs.BUILT_IN, **_registered}


def recipe(name: str) -> Recipe:
    """The program named ``name`` (a `KeyError` that lists the known ones)."""
    known = recipes()
    if name not in known:
        raise KeyError(f"no harness program named {name!r}; known: {sorted(known)} (add one with register_recipe)")
    return known[name]
