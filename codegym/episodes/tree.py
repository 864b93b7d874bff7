"""Tree rollouts: an episode expanded into a tree of branches (`fork` at every node), and
exported in the shape tree-training trainers consume: one row per node, with its id, its
parent's id, its own action and tokens (once per node: a shared prefix is never repeated),
its observation, reward and grade::

    def policy(observation, info, n):          # n actions to try from this node
        return [sample(observation) for _ in range(n)]   # or (action, {"token_ids": ..., "logprobs": ...})

    tree = rollout_tree(env, policy, branching=4, depth=3, options={"task_id": TASK})
    tree.write("tree.jsonl")                   # one JSON line per node
    best = max(tree.leaves(), key=lambda node: tree.value(node))

Every branch runs in its own workspace over its parent's frozen files (`codegym.episodes.fork`),
so a branch never sees a sibling's writes; envs are closed as soon as their children are made.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

from codegym.episodes.branch import fork
from codegym.episodes.record import encoded
from codegym.grade import Grade
from codegym.serve.wire import decode

Policy = Callable[[Any, Mapping[str, Any], int], Sequence[Any]]


@dataclass(frozen=True)
class Node:
    """One node of a tree rollout: the root (the reset) or a step from its parent.

    Attributes:
        id: Its number (the root is 0; parents come before their children).
        parent: Its parent's id (None for the root).
        depth: Steps from the root.
        action: The action that led here (None for the root).
        generation: What generated the action, as the policy gave it (token ids, log-probs).
        observation: The observation after it (the reset's for the root).
        reward: The step's reward (0 for the root).
        terminated: Whether the step ended the episode.
        truncated: Whether it was cut short.
        info: The step's info (with the `Grade` where it graded a submission).
    """

    id: int
    parent: int | None
    depth: int
    action: Any
    generation: Mapping[str, Any]
    observation: Any
    reward: float
    terminated: bool
    truncated: bool
    info: Mapping[str, Any] = field(repr=False)

    @property
    def grade(self) -> Grade | None:
        grade = self.info.get("grade")
        return grade if isinstance(grade, Grade) else None

    def row(self) -> dict[str, Any]:
        """The node as one JSON-ready row (values in the wire's JSON: see `read_tree`)."""
        return {
            "id": self.id,
            "parent": self.parent,
            "depth": self.depth,
            "action": encoded(self.action),
            "generation": encoded(dict(self.generation)),
            "observation": encoded(self.observation),
            "reward": self.reward,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "info": encoded(dict(self.info)),
        }


NODE_FIELDS = ("id", "parent", "depth", "action", "generation", "observation", "reward", "terminated", "truncated",
               "info")  # fmt: skip


@dataclass(frozen=True)
class Tree:
    """The nodes of a tree rollout, parents before children."""

    nodes: tuple[Node, ...]

    def children(self, node: Node) -> list[Node]:
        return [child for child in self.nodes if child.parent == node.id]

    def leaves(self) -> list[Node]:
        parents = {node.parent for node in self.nodes}
        return [node for node in self.nodes if node.id not in parents]

    def path(self, node: Node) -> list[Node]:
        """The nodes from the root to ``node``."""
        path = [node]
        while path[-1].parent is not None:
            path.append(self.nodes[path[-1].parent])
        return path[::-1]

    def value(self, node: Node) -> float:
        """The return along the path from the root to ``node``."""
        return sum(step.reward for step in self.path(node))

    def write(self, path: str | os.PathLike[str]) -> None:
        """One JSON line per node."""
        with open(path, "w", encoding="utf-8") as out:
            for node in self.nodes:
                out.write(json.dumps(node.row(), separators=(",", ":"), allow_nan=False) + "\n")


def read_tree(path: str | os.PathLike[str]) -> Tree:
    """A tree `Tree.write` wrote (its values decoded: a `Grade` is one again)."""
    nodes = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            row = decode(json.loads(line))
            nodes.append(Node(**{name: row[name] for name in NODE_FIELDS}))
    return Tree(tuple(nodes))


def rollout_tree(
    env: gym.Env,
    policy: Policy,
    *,
    branching: int,
    depth: int,
    seed: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> Tree:
    """Reset ``env`` and expand the episode breadth-first: each node that did not end gets
    the ``branching`` actions ``policy(observation, info, branching)`` gives (an action, or
    ``(action, generation)``), each taken in a fork of the node's env, down to ``depth``
    steps. ``env`` itself is used (and left at the tree's first node); forks are closed."""
    if branching < 1 or depth < 0:
        raise ValueError(f"rollout_tree needs branching >= 1 and depth >= 0, got {branching} and {depth}")
    observation, info = env.reset(seed=seed, options=dict(options or {}))
    root = Node(0, None, 0, None, {}, observation, 0.0, False, False, info)
    nodes = [root]
    frontier: list[tuple[Node, gym.Env]] = [(root, env)]
    for _ in range(depth):
        following: list[tuple[Node, gym.Env]] = []
        for node, here in frontier:
            actions = list(policy(node.observation, node.info, branching))
            if len(actions) != branching:
                raise ValueError(f"the policy gave {len(actions)} actions for a node, expected {branching}")
            branches = fork(here, branching)
            if here is not env:
                here.close()
            for branch, given in zip(branches, actions, strict=True):
                child = _step(branch, given, len(nodes), node)
                nodes.append(child)
                if child.terminated or child.truncated:
                    branch.close()
                else:
                    following.append((child, branch))
        frontier = following
    for _, here in frontier:
        if here is not env:
            here.close()
    return Tree(tuple(nodes))


def _step(env: gym.Env, given: Any, number: int, parent: Node) -> Node:
    action, generation = given if isinstance(given, tuple) else (given, {})
    observation, reward, terminated, truncated, info = env.step(action)
    return Node(number, parent.id, parent.depth + 1, action, dict(generation), observation, float(reward),
                bool(terminated), bool(truncated), info)  # fmt: skip
