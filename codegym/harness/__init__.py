"""Harness mode: real agent programs (mini-swe-agent, OpenCode, Codex CLI, Claude Code) in
codegym's sandbox, their model calls served by the policy being trained.

``gym.make(env_id, mode="harness", harness="codex")`` runs the program in the episode's machine;
each model request it makes is an observation (``info["request"]``: its messages and tools as
the program sent them) and each action is the reply (text, tool calls). With ``model=URL`` a
model server answers instead (pass-through; `rollout` runs many such episodes). When the
program ends, the machine is graded as agent mode grades it. See docs/harness.md.
"""

from __future__ import annotations

from codegym.harness.mode import HarnessSpec
from codegym.harness.proxy import Exchange, Forwarder, ModelProxy, UpstreamError
from codegym.harness.recipe import Recipe, recipe, recipes, register_recipe
from codegym.harness.rollout import Rollout, rollout
from codegym.harness.run import HarnessLimits, ProgramEnd, ProgramRun
from codegym.harness.wire import ModelReply, ModelRequest, ReplyToolCall, WireError

__all__ = [
    "Exchange",
    "Forwarder",
    "HarnessLimits",
    "HarnessSpec",
    "ModelProxy",
    "ModelReply",
    "ModelRequest",
    "ProgramEnd",
    "ProgramRun",
    "Recipe",
    "ReplyToolCall",
    "Rollout",
    "UpstreamError",
    "WireError",
    "recipe",
    "recipes",
    "register_recipe",
    "rollout",
]
