"""TRL: codegym as reward functions for ``GRPOTrainer``, and task sets as datasets::

    from trl import GRPOConfig, GRPOTrainer
    from codegym.integrations.trl import prompt_dataset, reward_functions

    dataset = prompt_dataset("codegym/PythonFunction-v0", tasks="codegym-py")
    trainer = GRPOTrainer(model=..., reward_funcs=reward_functions("codegym/PythonFunction-v0",
                          components=("correct", "compile"), tasks="codegym-py"), train_dataset=dataset, ...)

Each reward function receives the batch's completions (plain strings or chat messages) and
the dataset's ``task_id`` column, grades the whole batch at once on every warm worker, and
returns one float per completion. Several components share one grading per batch. An
infrastructure failure is never a silent 0: it raises (default) or, with
``on_infra_error="none"``, yields None, which TRL turns into NaN and leaves out of the mean.
A completion for a task that cannot be graded (`codegym.error.InvalidTask`) yields None too;
the rest of the batch is scored.

Multi-turn agents train through TRL's ``environment_factory`` on ``mode="agent"`` envs::

    trainer = GRPOTrainer(model=..., environment_factory=environment_factory("codegym/PythonFunction-v0"),
                          train_dataset=agent_dataset("codegym/PythonFunction-v0"), ...)

Each rollout gets a `CodegymAgentEnvironment`: TRL offers its ``bash``, ``str_replace_editor``,
``search`` and ``submit`` methods (and the family's own tools, such as a visual env's
``render``) to the model as tools, runs the calls the model writes, and
scores the rollout with its ``get_reward``.

Real agent programs (harness mode, `codegym.harness`) train the same way:
``environment_factory=harness_environment_factory("codegym/Terminal-v0", harness="codex")``
gives each rollout a `CodegymHarnessEnvironment` whose methods are the program's own tools.
"""

from __future__ import annotations

import inspect
import itertools
import json
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import gymnasium as gym

from codegym.agent import FamilyTool
from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.episodes.record import RecordEpisodes
from codegym.error import DependencyNotInstalled, SandboxError
from codegym.grade import Grade, Status
from codegym.harness.wire import content_text
from codegym.tools.schemas import tool_schemas

logger = logging.getLogger(__name__)

RewardFunc = Callable[..., list[float | None]]


def _reward(grade: Grade, env: CodeEnv) -> float:
    return env.reward_of(grade)


def _correct(grade: Grade, env: CodeEnv) -> float:
    return 1.0 if grade.solved else 0.0  # (the family's "solved": a similarity threshold, every mutant killed, ...)


def _pass_rate(grade: Grade, env: CodeEnv) -> float:
    if grade.status in (Status.HACK, Status.SEC):
        return 0.0
    hidden = [t for t in grade.tests if t.hidden] or list(grade.tests)
    return sum(t.passed for t in hidden) / len(hidden) if hidden else 0.0


def _compile(grade: Grade, env: CodeEnv) -> float:
    return -1.0 if grade.status is Status.CE else 0.0


COMPONENTS: dict[str, Callable[[Grade, CodeEnv], float]] = {
    "reward": _reward,
    "correct": _correct,
    "pass_rate": _pass_rate,
    "compile": _compile,
}


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or the content of chat messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    if isinstance(completion, Sequence):
        return "".join(completion_text(message) for message in completion if _is_assistant(message))
    raise TypeError(f"a completion is a str or a list of chat messages, got {type(completion).__name__}")


def _is_assistant(message: Any) -> bool:
    return not isinstance(message, dict) or message.get("role", "assistant") == "assistant"


def reward_functions(
    env: str | gym.Env,
    components: Sequence[str] = ("reward",),
    *,
    task_column: str = "task_id",
    on_infra_error: str = "raise",
    **env_kwargs: Any,
) -> list[RewardFunc]:
    """One TRL reward function per component: ``reward`` (the env's own reward, as ``step``
    gives it: a family's speedup or similarity included), ``correct``, ``pass_rate``,
    ``compile``.

    Args:
        env: A codegym env or a registered id.
        components: Which terms to return, each as its own reward function (weight them with
            ``GRPOConfig(reward_weights=...)``); a batch is graded once for all of them.
        task_column: The dataset column holding each prompt's task id.
        on_infra_error: ``"raise"`` a `SandboxError`, or ``"none"`` to return None for the
            affected completions (TRL masks them).
        **env_kwargs: Passed to ``gym.make`` when ``env`` is an id.
    """
    unknown = [c for c in components if c not in COMPONENTS]
    if unknown or not components:
        raise ValueError(f"components must be among {sorted(COMPONENTS)}, got {list(components)}")
    if on_infra_error not in ("raise", "none"):
        raise ValueError(f"on_infra_error must be 'raise' or 'none', got {on_infra_error!r}")
    scorer = Scorer(env, **env_kwargs)
    if not isinstance(scorer.env, CodeEnv):
        raise TypeError("reward_functions needs a codegym env")
    return [_reward_function(scorer, name, task_column, on_infra_error) for name in components]


def reward_function(env: str | gym.Env, component: str = "reward", **kwargs: Any) -> RewardFunc:
    """A single TRL reward function (see `reward_functions`)."""
    return reward_functions(env, (component,), **kwargs)[0]


def _reward_function(scorer: Scorer, component: str, task_column: str, on_infra_error: str) -> RewardFunc:
    term = COMPONENTS[component]

    def reward(completions: Sequence[Any], **columns: Any) -> list[float | None]:
        if task_column not in columns:
            raise KeyError(f"the dataset needs a {task_column!r} column naming each prompt's task (see prompt_dataset)")
        futures = [scorer.submit(t, completion_text(c)) for t, c in zip(columns[task_column], completions, strict=True)]
        out: list[float | None] = []
        for future in futures:
            try:
                grade = future.result()
            except SandboxError:
                if on_infra_error == "raise":
                    raise
                out.append(None)
                continue
            out.append(None if grade.status is Status.IE else term(grade, scorer.env))  # (IE: never a score)
        return out

    reward.__name__ = reward.__qualname__ = f"codegym_{component}"
    return reward


def prompt_dataset(env: str | gym.Env, *, chat: bool = False, system: str | None = None, **env_kwargs: Any) -> Any:
    """A ``datasets.Dataset`` of the env's tasks: columns ``prompt`` and ``task_id``, and
    ``images`` (PIL images, for a vision-language model) where prompts refer to pictures (a
    visual task's target: `CodeEnv.prompt_images`).

    ``chat=True`` makes each prompt a list of messages (with ``system`` first if given);
    otherwise a plain string. Hidden tests and references never enter the dataset.
    """
    datasets = _datasets("prompt_dataset")
    core = _code_env(env, env_kwargs, "prompt_dataset")
    rows = []
    for task in core.tasks:
        text = core.render_prompt(task)
        if chat:
            messages = ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": text}]
            rows.append({"prompt": messages, "task_id": task.id, **_images(core, task)})
        else:
            rows.append({"prompt": text, "task_id": task.id, **_images(core, task)})
    return datasets.Dataset.from_list(rows)


def _images(core: CodeEnv, task: Any) -> dict[str, list[Any]]:
    """``{"images": [...]}`` of a task whose prompt refers to pictures, as PIL images; else {}."""
    pictures = core.prompt_images(task)
    if not pictures:
        return {}
    from PIL import Image

    return {"images": [Image.fromarray(picture) for picture in pictures]}


def _datasets(caller: str) -> Any:
    try:
        import datasets
    except ModuleNotFoundError as e:
        raise DependencyNotInstalled(f"{caller} needs the datasets package: pip install 'codegym[trl]'") from e
    return datasets


def _code_env(env: str | gym.Env, env_kwargs: dict[str, Any], caller: str) -> CodeEnv:
    made = gym.make(env, **env_kwargs) if isinstance(env, str) else env
    core = made.unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError(f"{caller} needs a codegym env, got {type(core).__name__}")
    return core


# --- agent episodes through TRL's environment_factory ----------------------------------------

EPISODE_OVER = "[episode over] the episode has already ended, so this call was not run."
EditorCommand = Literal["view", "create", "str_replace", "insert", "undo_edit"]
_Method = TypeVar("_Method", bound=Callable[..., str])


def _described_as(tool: str) -> Callable[[_Method], _Method]:
    """Give a tool method the docstring TRL reads its schema from: the description and the
    argument descriptions of codegym's own schema of ``tool``, word for word."""
    function = tool_schemas([tool])[0]["function"]

    def describe(method: _Method) -> _Method:
        arguments = function["parameters"]["properties"]
        lines = [f"    {name}: {spec['description']}" for name, spec in arguments.items()]
        method.__doc__ = function["description"] + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
        return method

    return describe


class CodegymAgentEnvironment:
    """One rollout's agent episode, in the shape TRL's ``environment_factory`` wants.

    TRL offers every public method except ``reset`` and ``get_reward`` to the model as a tool,
    with a schema read from the method's signature and docstring: ``bash``,
    ``str_replace_editor``, ``search`` and ``submit``, described in the words of codegym's own
    tool schemas (`codegym.tools.schemas`). Each runs one call through the wrapped env's
    ``step`` and returns the text the model reads: the tool's output (with its exit status
    when not 0), the grade's feedback for ``submit``, or what was wrong with the call.

    After ``submit``, or once the episode was truncated (a budget ran out, or the sandbox
    failed), every tool returns `EPISODE_OVER` and runs nothing: TRL keeps generating, and
    running tools, until the model stops calling them or its own limits are reached.

    ``reset(**row)`` opens the episode of the row's ``task_id`` (a task drawn from the env's
    task set when the row has none) and returns its prompt: the task, the workspace's files and
    how to finish, as the env words it for the workspace it just opened. TRL appends that text
    to the last message of the row's ``prompt``, so the dataset's prompts hold only what comes
    before the task (see `agent_dataset`).

    TRL makes one such object per concurrent rollout and resets it for each later one; an
    episode's workspace stays open until then, or until ``self.env.close()``.

    Args:
        env: An env made with ``mode="agent"`` (its wrappers apply), owned by this object.
        seed: Seeds the env's task draws at the first reset.
        record: Append every episode to this JSON-lines file, one line each
            (`codegym.episodes.RecordEpisodes` wraps the env): written when it ends
            (``submit``, a budget), else at the next reset (``"abandoned"``: the model
            stopped calling tools) or at ``self.env.close()`` (``"open"``). Several objects
            (TRL's concurrent rollouts) may share one file.

    Attributes:
        env: The wrapped env.
        calls: The tool calls of this episode that reached the env.
        results: Their results (`codegym.agent.ToolResult` dicts), in order.
        info: The ``info`` of the episode's last step (``reward_components``, ``status``,
            ``truncated_by``, ``infra_error``...).
    """

    def __init__(self, env: gym.Env, *, seed: int | None = None, record: str | os.PathLike[str] | None = None) -> None:
        core = env.unwrapped
        if not isinstance(core, CodeEnv) or core.mode != "agent":
            found = f"mode={core.mode!r}" if isinstance(core, CodeEnv) else type(core).__name__
            raise ValueError(f"CodegymAgentEnvironment needs a codegym env made with mode='agent', got {found}")
        self.env: gym.Env = RecordEpisodes(env, record) if record is not None else env
        self._seed = seed
        self.calls = 0
        self.results: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self._return = 0.0
        self._over = True
        self._infra = False

    def reset(self, task_id: str | None = None, **row: Any) -> str:
        """Open the episode of ``task_id`` (other dataset columns are ignored); return its prompt."""
        self.calls, self.results, self.info = 0, [], {}
        self._return, self._over, self._infra = 0.0, False, False
        seed, self._seed = self._seed, None
        try:
            observation, _ = self.env.reset(seed=seed, options=None if task_id is None else {"task_id": task_id})
        except SandboxError as e:
            self._lost(e)
            return _ending_text(self.info)
        return observation["prompt"]

    def get_reward(self) -> float | None:
        """The episode's return: the reward of the graded submission for a plain env, 0.0 when
        the model never submitted or a budget ran out, None (TRL leaves it out) when the
        sandbox failed or the task could not be graded, which is never the model's doing."""
        return None if self._infra else self._return

    @_described_as("bash")
    def bash(self, command: str, timeout_s: float | None = None) -> str:
        return self._call("bash", command=command, timeout_s=timeout_s)

    @_described_as("str_replace_editor")
    def str_replace_editor(
        self,
        command: EditorCommand,
        path: str,
        file_text: str | None = None,
        old_str: str | None = None,
        new_str: str | None = None,
        insert_line: int | None = None,
        view_range: list[int] | None = None,
    ) -> str:
        return self._call(
            "str_replace_editor", command=command, path=path, file_text=file_text, old_str=old_str,
            new_str=new_str, insert_line=insert_line, view_range=view_range,
        )  # fmt: skip

    @_described_as("search")
    def search(self, pattern: str, path: str | None = None) -> str:
        return self._call("search", pattern=pattern, path=path)

    @_described_as("submit")
    def submit(self) -> str:
        return self._call("submit")

    def _call(self, name: str, **arguments: Any) -> str:
        if self._over:
            return EPISODE_OVER
        # (an argument the model left out arrives as its default, None: codegym's schemas have no null)
        action = {"name": name, "arguments": {key: value for key, value in arguments.items() if value is not None}}
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except SandboxError as e:
            self._lost(e)
            return _ending_text(self.info)
        self.calls += 1
        self.results += info["tool_results"]
        self.info = info
        self._return += float(reward)
        if terminated or truncated:
            self._over = True
            self._infra = "infra_error" in info or "task_error" in info
        return _tool_text(observation, info)

    def _lost(self, error: SandboxError) -> None:
        logger.warning("agent episode lost to an infrastructure failure: %s", error)
        self.info = {"infra_error": str(error)}
        self._over = self._infra = True


def _tool_text(observation: dict[str, Any], info: dict[str, Any]) -> str:
    """What one call's step shows the model: the tool's output, or (a submission, a malformed
    call, a call that could not run) the step's feedback; and how the episode ended, if it did."""
    feedback = observation["feedback"]
    if not info["tool_results"]:
        return feedback or _ending_text(info)
    result = info["tool_results"][0]
    text = result["content"] or "(no output)"
    if result["exit_code"]:
        text += f"\n[exit status {result['exit_code']}]"
    ending = feedback.rfind("[episode over]")  # (the env puts how the episode ended last)
    if ("truncated_by" in info or "infra_error" in info) and ending >= 0:
        text += "\n\n" + feedback[ending:]
    return text


_CLASSES: dict[str, type[CodegymAgentEnvironment]] = {}
_JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}


def with_family_tools(tools: Sequence[FamilyTool]) -> type[CodegymAgentEnvironment]:
    """`CodegymAgentEnvironment` with a method for each of a family's own tools (a visual
    env's ``render``): TRL lists an environment's tools on its class. `environment_factory`
    picks the class for the env it makes."""
    if not tools:
        return CodegymAgentEnvironment
    key = json.dumps([tool.schema() for tool in tools], sort_keys=True)
    if key not in _CLASSES:
        methods = {tool.name: _tool_method(tool) for tool in tools}
        names = "".join(tool.name.title().replace("_", "") for tool in tools)
        _CLASSES[key] = type(f"CodegymAgentEnvironmentWith{names}", (CodegymAgentEnvironment,), methods)
    return _CLASSES[key]


def _tool_method(tool: FamilyTool) -> Callable[..., str]:
    """A method that runs ``tool`` through the env's ``step``, with the signature and
    docstring TRL reads its schema from."""

    def method(self: CodegymAgentEnvironment, **arguments: Any) -> str:
        return self._call(tool.name, **arguments)

    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    lines = []
    for name, spec in tool.properties.items():
        kind: Any = _JSON_TYPES.get(spec.get("type", "string"), str)
        if name not in tool.required:
            kind = kind | None
        default = inspect.Parameter.empty if name in tool.required else None
        parameters.append(
            inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default, annotation=kind)
        )
        annotations[name] = kind
        lines.append(f"    {name}: {spec.get('description', name)}")
    method.__name__ = method.__qualname__ = tool.name
    method.__doc__ = tool.description + ("\n\nArgs:\n" + "\n".join(lines) if lines else "")
    method.__signature__ = inspect.Signature(parameters, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method


def _ending_text(info: dict[str, Any]) -> str:
    if "infra_error" in info:
        return f"[episode over] the sandbox failed (not your fault): {info['infra_error']}"
    return EPISODE_OVER


def environment_factory(
    env: str | Callable[[], gym.Env],
    *,
    seed: int | None = None,
    record: str | os.PathLike[str] | None = None,
    **env_kwargs: Any,
) -> Callable[[], CodegymAgentEnvironment]:
    """What to pass as ``GRPOTrainer(environment_factory=...)``: each call makes a
    `CodegymAgentEnvironment` around a fresh agent-mode env (TRL makes one per concurrent
    rollout and resets it for every later one).

    Args:
        env: A registered id (made with ``mode="agent"`` and ``env_kwargs``), or a callable
            that makes an agent-mode env. Not an env: each rollout needs one of its own.
        seed: Seeds the task draws of the n-th environment made with ``seed + n`` (for rows
            without a ``task_id``).
        record: Append every rollout's episode to this JSON-lines file (see
            `CodegymAgentEnvironment`); ``codegym.episodes.read_episodes`` reads it back.
        **env_kwargs: Passed to ``gym.make`` with an id (``tasks``, ``agent`` budgets,
            ``executor``...).
    """
    if isinstance(env, gym.Env):
        raise TypeError(
            "environment_factory needs an env id or a callable that makes an env, not an env: each rollout needs "
            "one of its own (pass the id, or lambda: gym.make(...))"
        )
    if isinstance(env, str):
        env_id, kwargs = env, {"mode": "agent", **env_kwargs}

        def make() -> gym.Env:
            return gym.make(env_id, **kwargs)
    elif callable(env):
        if env_kwargs:
            raise TypeError(f"env_kwargs go with an env id, not a callable: got {sorted(env_kwargs)}")
        make = env
    else:
        raise TypeError(f"environment_factory needs an env id or a callable, got {type(env).__name__}")
    numbers = itertools.count()

    def factory() -> CodegymAgentEnvironment:
        made = make()
        tools = made.unwrapped.agent_tools() if isinstance(made.unwrapped, CodeEnv) else ()
        seeded = None if seed is None else seed + next(numbers)
        return with_family_tools(tools)(made, seed=seeded, record=record)

    return factory


class CodegymHarnessEnvironment:
    """One rollout's harness episode (``mode="harness"``: a real agent program in the episode's
    machine), in the shape TRL's ``environment_factory`` wants. Made by
    `harness_environment_factory`, whose class has one method per tool the program offers.

    ``reset(**row)`` starts the program on the row's task and returns its first request's
    messages as text (its system prompt and instruction: TRL appends them to the row's prompt).
    Each tool method answers the program's waiting request with that one call and returns what
    the program's next request adds (the tool's result, as the program reports it); when the
    program ends, the machine is graded and every later call returns `EPISODE_OVER`.
    ``get_reward`` stops a program still waiting (the model stopped calling tools: the machine
    is graded as it stands) and returns the grade's reward; None (left out) where the sandbox
    failed.

    Args:
        env: An env made with ``mode="harness"``, owned by this object.
        record: Append every episode to this JSON-lines file (`codegym.episodes.RecordEpisodes`).

    Attributes:
        env: The wrapped env.
        info: The ``info`` of the episode's last step.
    """

    def __init__(self, env: gym.Env, *, record: str | os.PathLike[str] | None = None) -> None:
        core = env.unwrapped
        if not isinstance(core, CodeEnv) or core.mode != "harness":
            found = f"mode={core.mode!r}" if isinstance(core, CodeEnv) else type(core).__name__
            raise ValueError(f"CodegymHarnessEnvironment needs a codegym env made with mode='harness', got {found}")
        self.env: gym.Env = RecordEpisodes(env, record) if record is not None else env
        self.info: dict[str, Any] = {}
        self._return = 0.0
        self._over = True
        self._infra = False
        self._calls = itertools.count()

    def reset(self, task_id: str | None = None, **row: Any) -> str:
        """Start the program on ``task_id`` (other dataset columns are ignored); return its
        first request's messages."""
        self.info, self._return, self._over, self._infra = {}, 0.0, False, False
        try:
            _, info = self.env.reset(options=None if task_id is None else {"task_id": task_id})
        except SandboxError as e:
            self._lost(e)
            return _ending_text(self.info)
        self.info = info
        if "request" not in info:  # (it ended without asking: its end comes with the first call)
            return "[the program ended before asking the model anything]"
        return "\n\n".join(content_text(m.get("content")) for m in info["request"]["messages"])

    def get_reward(self) -> float | None:
        """The grade's reward (the program stopped first if it still waits); None when the
        sandbox failed or the task could not be graded, never the model's doing."""
        if not self._over:
            self._step(None)
        return None if self._infra else self._return

    def _call(self, name: str, **arguments: Any) -> str:
        from codegym.harness.wire import ModelReply, ReplyToolCall

        if self._over:
            return EPISODE_OVER
        given = {key: value for key, value in arguments.items() if value is not None}
        call = ReplyToolCall(f"call_{next(self._calls)}", name, json.dumps(given))
        return self._step(ModelReply(tool_calls=(call,)))

    def _step(self, action: Any) -> str:
        try:
            observation, reward, terminated, truncated, info = self.env.step(action)
        except SandboxError as e:
            self._lost(e)
            return _ending_text(self.info)
        self.info = info
        self._return += float(reward)
        if terminated or truncated:
            self._over = True
            self._infra = "infra_error" in info or "task_error" in info
            return f"[episode over] the program ended ({info.get('harness_status')}): {observation['feedback']}"
        return observation["feedback"]

    def _lost(self, error: SandboxError) -> None:
        logger.warning("harness episode lost to an infrastructure failure: %s", error)
        self.info = {"infra_error": str(error)}
        self._over = self._infra = True


def harness_environment_factory(
    env: str,
    *,
    harness: Any,
    task_id: str | None = None,
    record: str | os.PathLike[str] | None = None,
    **env_kwargs: Any,
) -> Callable[[], CodegymHarnessEnvironment]:
    """What to pass as ``GRPOTrainer(environment_factory=...)`` for harness episodes: each call
    makes a `CodegymHarnessEnvironment` around a fresh ``mode="harness"`` env of ``env`` (an id).

    TRL reads the tools from the class, so the program's tools are learnt once, here: a first
    episode (of ``task_id``, else the task set's first) starts the program and reads the tools
    its first request offers; the class gets a method for each (a name that is no Python
    identifier, or one of ``reset``/``get_reward``, is left out and logged).

    Args:
        env: A registered id.
        harness: The program (``"codex"``, a `codegym.harness.HarnessSpec`, its JSON form).
        task_id: The task the tools are learnt on.
        record: Append every rollout's episode to this JSON-lines file.
        **env_kwargs: Passed to ``gym.make`` (``tasks``...).
    """
    kwargs = {"mode": "harness", "harness": harness, **env_kwargs}
    probe = gym.make(env, **kwargs)
    try:
        core = probe.unwrapped
        assert isinstance(core, CodeEnv)
        _, info = probe.reset(options={"task_id": task_id or core.tasks.ids[0]})
        if "request" not in info:
            raise RuntimeError(f"{env}'s program ended before its first model request: {info}")
        tools = [tool["function"] for tool in info["request"]["tools"]]
    finally:
        probe.close()
    cls = _harness_class(tools)

    def factory() -> CodegymHarnessEnvironment:
        return cls(gym.make(env, **kwargs), record=record)

    return factory


def _harness_class(functions: Sequence[Mapping[str, Any]]) -> type[CodegymHarnessEnvironment]:
    """`CodegymHarnessEnvironment` with a method per function schema (TRL's tools)."""
    key = json.dumps(list(functions), sort_keys=True)
    if key not in _HARNESS_CLASSES:
        methods: dict[str, Any] = {}
        for function in functions:
            name = str(function.get("name", ""))
            if not name.isidentifier() or name in ("reset", "get_reward") or name.startswith("_"):
                logger.warning("the program's tool %r cannot be a method: TRL will not offer it", name)
                continue
            parameters = function.get("parameters") or {}
            tool = FamilyTool(name, str(function.get("description") or name), lambda *_: ("", 0),
                              parameters.get("properties") or {}, tuple(parameters.get("required") or ()))  # fmt: skip
            methods[name] = _tool_method(tool)  # (it calls self._call, which both classes have)
        _HARNESS_CLASSES[key] = type("CodegymHarnessEnvironmentOf", (CodegymHarnessEnvironment,), methods)
    return _HARNESS_CLASSES[key]


_HARNESS_CLASSES: dict[str, type[CodegymHarnessEnvironment]] = {}


def agent_dataset(env: str | gym.Env, *, system: str | None = None, **env_kwargs: Any) -> Any:
    """A ``datasets.Dataset`` for `environment_factory` training: columns ``prompt`` and ``task_id``.

    Each prompt is a chat: ``system`` (when given), then a user message left empty for TRL to
    fill with the episode's prompt, which `CodegymAgentEnvironment.reset` returns (it names
    the workspace's files, known only once the episode is open).

    Args:
        env: A codegym env or a registered id (only its task set is read).
        system: A system message to put first.
        **env_kwargs: Passed to ``gym.make`` when ``env`` is an id.
    """
    datasets = _datasets("agent_dataset")
    core = _code_env(env, env_kwargs, "agent_dataset")
    head = [{"role": "system", "content": system}] if system else []
    rows = [
        {"prompt": [*head, {"role": "user", "content": ""}], "task_id": task.id, **_images(core, task)}
        for task in core.tasks
    ]
    return datasets.Dataset.from_list(rows)
