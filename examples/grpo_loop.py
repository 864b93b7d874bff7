"""A self-contained GRPO loop that drives codegym envs directly (cleanrl style).

    python examples/grpo_loop.py --iterations 200 --group-size 8

The policy is deliberately small so the loop stays readable and runs on a CPU: for each task
it holds logits over a menu of candidate programs (the reference solution, a stub, and a
broken variant). Every iteration picks a task, samples a group of G programs from the policy,
grades them in G vectorised envs reset to that task (real sandboxed runs), turns the rewards
into group-relative advantages, and takes a policy-gradient step. Swap the menu for an LLM's
samples and the tabular softmax for its log-probabilities, and this is GRPO.
"""

from __future__ import annotations

import argparse
import ast
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np

import codegym  # noqa: F401  (registers the envs)


@dataclass
class Args:
    iterations: int = 200
    group_size: int = 8
    tasks: int = 8
    learning_rate: float = 0.5
    seed: int = 0
    vectorization: str = "async"


def broken(reference: str) -> str:
    """The reference with its first comparison or arithmetic operator flipped."""
    flips = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq,
             ast.NotEq: ast.Eq, ast.Add: ast.Sub, ast.Sub: ast.Add}  # fmt: skip
    module = ast.parse(reference)
    for node in ast.walk(module):
        if isinstance(node, ast.Compare) and type(node.ops[0]) in flips:
            node.ops[0] = flips[type(node.ops[0])]()
            return ast.unparse(module)
        if isinstance(node, ast.BinOp) and type(node.op) in flips:
            node.op = flips[type(node.op)]()
            return ast.unparse(module)
    return reference + "\nraise RuntimeError('broken')\n"


def main(args: Args) -> list[float]:
    rng = np.random.default_rng(args.seed)
    envs = gym.make_vec(
        "codegym/PythonFunction-v0", num_envs=args.group_size, vectorization_mode=args.vectorization, tasks="codegym-py"
    )
    tasks = list(gym.make("codegym/PythonFunction-v0", tasks="codegym-py").unwrapped.tasks)[: args.tasks]
    menus = [[t.reference or "", t.prompt + "    return None\n", broken(t.reference or "")] for t in tasks]
    logits = np.zeros((len(tasks), 3))
    history = []
    started = time.perf_counter()
    for iteration in range(args.iterations):
        index = int(rng.integers(len(tasks)))
        envs.reset(seed=args.seed + iteration, options={"task_id": tasks[index].id})
        policy = np.exp(logits[index] - logits[index].max())
        policy /= policy.sum()
        actions = rng.choice(3, size=args.group_size, p=policy)
        _, rewards, _, _, _ = envs.step(tuple(menus[index][a] for a in actions))
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
        grad = np.zeros(3)
        for action, advantage in zip(actions, advantages, strict=True):
            grad += advantage * (np.eye(3)[action] - policy)
        logits[index] += args.learning_rate * grad / args.group_size
        history.append(float(rewards.mean()))
        if iteration % 20 == 0 or iteration == args.iterations - 1:
            recent = np.mean(history[-20:])
            print(f"iter {iteration:4d}  mean reward (last 20) {recent:.3f}  {time.perf_counter() - started:6.1f}s")
    envs.close()
    return history


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for field, default in vars(Args()).items():
        parser.add_argument(f"--{field.replace('_', '-')}", type=type(default), default=default)
    main(Args(**vars(parser.parse_args())))
