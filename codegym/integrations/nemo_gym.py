"""NeMo-Gym: codegym as a resources server, and task sets written as NeMo-Gym datasets.

`CodegymResourcesServer` is a NeMo-Gym ``SimpleResourcesServer`` whose ``/verify`` grades the
code in the model's response with codegym. Each dataset row names its task in
``verifier_metadata`` (``env_id``, ``task_id``, and optionally ``env_kwargs``), which NeMo-Gym's
agents pass through from the row to ``/verify``; `write_dataset` writes such rows::

    from codegym.integrations.nemo_gym import write_dataset, write_server

    write_server("Gym/", envs={"codegym/PythonFunction-v0": {"tasks": "codegym-py"}})
    write_dataset("codegym/PythonFunction-v0", "Gym/resources_servers/codegym/data/train.jsonl")
    # then, in Gym/:  ng_run "+config_paths=[resources_servers/codegym/configs/codegym.yaml,<model>.yaml]"

The reward is the env's, as ``step`` gives it (`CodeEnv.reward_of`); the response also says
the ``status`` (`codegym.Status`), ``pass_rate``, the ``reward_components`` and the code that
was graded. A submission that was not graded is never a score: NeMo-Gym's convention for a
verifier that could not judge is an HTTP error, which its agents raise and its rollout
collection leaves out of the rollouts (its agents retry a 5xx). So an infrastructure failure
(`codegym.error.SandboxError`) is a 503, a task that cannot be graded (a ``IE`` grade, with
why) a 500, an unknown task or env a 404, a bad ``env_kwargs`` a 400, ``env_kwargs`` that
are the server's to set (``executor``, ``server``, ...: its config's ``envs`` sets them) a 403
and a row without ``verifier_metadata`` a 422; each with ``{"detail": {"error": ...,
"message": ...}}``.

Importing this module needs NeMo-Gym (``pip install nemo-gym``).
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import json
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

import gymnasium as gym
import yaml

from codegym.batch import Scorer
from codegym.core import CodeEnv
from codegym.error import DependencyNotInstalled, SandboxError, UnknownTask
from codegym.extract import extract_code
from codegym.grade import Grade, Status
from codegym.serve.config import SERVER_ONLY_KWARGS


@contextlib.contextmanager
def _process_left_as_it_was() -> Iterator[None]:
    """Importing NeMo-Gym points the Hugging Face caches at ``./cache``, turns tokenizers'
    threads off and makes ``print`` always flush, for the whole process: right for one of its
    own servers, not for a trainer that imports codegym. What it changed is put back."""
    saved = {name: os.environ.get(name) for name in ("HF_HOME", "HF_DATASETS_CACHE", "TOKENIZERS_PARALLELISM")}
    printer = builtins.print
    try:
        yield
    finally:
        builtins.print = printer
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


try:
    with _process_left_as_it_was():
        from fastapi import HTTPException
        from nemo_gym.base_resources_server import (  # pyright: ignore[reportMissingImports]
            BaseResourcesServerConfig,
            BaseVerifyRequest,
            BaseVerifyResponse,
            SimpleResourcesServer,
        )
        from pydantic import BaseModel, Field, PrivateAttr
except ModuleNotFoundError as e:
    raise DependencyNotInstalled(
        f"codegym's NeMo-Gym resources server needs NeMo-Gym (pip install nemo-gym); importing it failed: {e}"
    ) from e

__all__ = [
    "SERVER_NAME",
    "CodegymResourcesServer",
    "CodegymResourcesServerConfig",
    "CodegymTaskRef",
    "CodegymVerifyRequest",
    "CodegymVerifyResponse",
    "rows",
    "write_dataset",
    "write_server",
]

SERVER_NAME = "codegym"  # the server's folder (resources_servers/codegym) and its config's instance name
_PLAIN = (str, int, float, bool)


class CodegymTaskRef(BaseModel):
    """A dataset row's ``verifier_metadata``: the task its prompt poses.

    Attributes:
        env_id: A registered codegym env, such as ``"codegym/PythonFunction-v0"``.
        task_id: The task's id in that env's task set.
        env_kwargs: ``gym.make`` arguments of plain JSON types (``tasks``...), over the
            server's own for that env (`CodegymResourcesServerConfig.envs`).
    """

    env_id: str
    task_id: str
    env_kwargs: dict[str, Any] = Field(default_factory=dict)


class CodegymResourcesServerConfig(BaseResourcesServerConfig):
    """The server's config (its block in the NeMo-Gym YAML).

    Attributes:
        envs: The envs this server grades, each with its ``gym.make`` arguments (``tasks``,
            ``limits``, ``executor``...). Empty: any registered codegym env, with only the
            rows' ``env_kwargs``.
    """

    envs: dict[str, dict[str, Any]] = Field(default_factory=dict)


class CodegymVerifyRequest(BaseVerifyRequest):
    """What ``/verify`` takes: NeMo-Gym's request plus the row's ``verifier_metadata``."""

    verifier_metadata: CodegymTaskRef


class CodegymVerifyResponse(CodegymVerifyRequest, BaseVerifyResponse):
    """What ``/verify`` returns: the request, the ``reward``, and how codegym judged it."""

    status: str
    pass_rate: float
    reward_components: dict[str, float] = Field(default_factory=dict)
    message: str = ""
    extracted_code: str = ""


class CodegymResourcesServer(SimpleResourcesServer):
    """A NeMo-Gym resources server that grades code with codegym (see the module's docstring).

    One `codegym.Scorer` per env and ``env_kwargs``, made at its first request, grades every
    request to it on its executor's warm workers; ``/verify`` waits for its grade without
    holding the event loop.
    """

    config: CodegymResourcesServerConfig  # pyright: ignore[reportIncompatibleVariableOverride]
    _scorers: dict[str, Scorer] = PrivateAttr(default_factory=dict)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    async def verify(self, body: CodegymVerifyRequest) -> CodegymVerifyResponse:  # pyright: ignore[reportIncompatibleMethodOverride]
        ref = body.verifier_metadata
        scorer = await asyncio.to_thread(self.scorer, ref)
        answer = body.response.output_text
        try:
            task = scorer.env.tasks.get(ref.task_id)
            grade = await asyncio.wrap_future(await asyncio.to_thread(scorer.submit, task.id, answer))
        except UnknownTask as e:
            _fail(404, "unknown_task", str(e))
        except SandboxError as e:
            _fail(503, "infra_error", f"the sandbox failed (not the response's fault), retry: {e}")
        if grade.status is Status.IE:
            _fail(500, "task_error", grade.message or f"task {task.id} could not be graded")
        verdict = _verdict(scorer.env, grade, extract_code(answer, task.language))
        return CodegymVerifyResponse(**body.model_dump(), **verdict)

    def scorer(self, ref: CodegymTaskRef) -> Scorer:
        """The `Scorer` of ``ref``'s env and ``env_kwargs`` (made on first use; an HTTP error
        when this server does not grade that env or cannot make it)."""
        if self.config.envs and ref.env_id not in self.config.envs:
            _fail(404, "unknown_env", f"this server grades {sorted(self.config.envs)}, not {ref.env_id!r}")
        refused = sorted(set(ref.env_kwargs) & SERVER_ONLY_KWARGS)
        if refused:  # (the backend, files on disk and other servers are this server's to choose)
            _fail(
                403, "server_only_kwargs", f"env_kwargs {refused} are set in this server's config (envs), not by rows"
            )
        key = json.dumps([ref.env_id, ref.env_kwargs], sort_keys=True, default=repr)
        with self._lock:
            if key not in self._scorers:
                kwargs = {**self.config.envs.get(ref.env_id, {}), **ref.env_kwargs}
                self._scorers[key] = _make_scorer(ref.env_id, kwargs)
            return self._scorers[key]

    def close(self) -> None:
        """Close every scorer (and the envs they made)."""
        with self._lock:
            for scorer in self._scorers.values():
                scorer.close()
            self._scorers.clear()


def _make_scorer(env_id: str, env_kwargs: dict[str, Any]) -> Scorer:
    try:
        return Scorer(env_id, **env_kwargs)
    except gym.error.Error as e:
        _fail(404, "unknown_env", str(e))
    except DependencyNotInstalled as e:
        _fail(500, "missing_dependency", str(e))
    except (TypeError, ValueError) as e:
        _fail(400, "bad_env_kwargs", f"cannot make {env_id} with {sorted(env_kwargs)}: {e}")


def _verdict(env: CodeEnv, grade: Grade, code: str) -> dict[str, Any]:
    """The response's fields that say how codegym judged the code."""
    return {
        "reward": env.reward_of(grade),
        "status": grade.status.value,
        "pass_rate": grade.pass_rate,
        "reward_components": env.reward_components(grade),
        "message": grade.message,
        "extracted_code": code,
    }


def _fail(status_code: int, error: str, message: str) -> NoReturn:
    raise HTTPException(status_code=status_code, detail={"error": error, "message": message})


# --- datasets and the server's folder -------------------------------------------------------


def rows(
    env: str, *, system: str | None = None, agent_name: str | None = None, **env_kwargs: Any
) -> list[dict[str, Any]]:
    """NeMo-Gym dataset rows for every task of ``env`` (prompts only; tests stay out).

    Each row is ``{"responses_create_params": {"input": [messages]}, "verifier_metadata":
    {"env_id", "task_id", "env_kwargs"}}``, plus ``agent_ref`` with ``agent_name`` (else
    ``ng_prepare_data`` adds it from the config).

    Args:
        env: A registered codegym env id.
        system: A system message to put before each task's prompt.
        agent_name: The NeMo-Gym agent (server instance name) that runs the rows.
        **env_kwargs: Passed to ``gym.make``; those of a plain JSON type go into every row's
            ``verifier_metadata["env_kwargs"]``, for the server to make the same env.
    """
    core = gym.make(env, **env_kwargs).unwrapped
    if not isinstance(core, CodeEnv):
        raise TypeError(f"{env} is not a codegym env (got {type(core).__name__})")
    plain = {key: value for key, value in env_kwargs.items() if isinstance(value, _PLAIN)}
    head = [{"role": "system", "content": system}] if system else []
    out = []
    for task in core.tasks:
        row: dict[str, Any] = {
            "responses_create_params": {"input": [*head, {"role": "user", "content": core.render_prompt(task)}]},
            "verifier_metadata": {"env_id": env, "task_id": task.id, "env_kwargs": plain},
        }
        if agent_name is not None:
            row["agent_ref"] = {"type": "responses_api_agents", "name": agent_name}
        out.append(row)
    return out


def write_dataset(env: str, path: str | Path, **kwargs: Any) -> Path:
    """Write `rows` as the JSONL file a NeMo-Gym dataset's ``jsonl_fpath`` names."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as f:
        for row in rows(env, **kwargs):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def server_config(
    envs: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    datasets: list[dict[str, Any]] | None = None,
    agent: str = "codegym_simple_agent",
    model: str = "policy_model",
) -> dict[str, Any]:
    """The NeMo-Gym config ``ng_run`` reads: this server and a ``simple_agent`` that runs its
    rows with the model server named ``model``.

    Args:
        envs: `CodegymResourcesServerConfig.envs` (plain YAML values only).
        datasets: The agent's datasets (``name``, ``type``, ``jsonl_fpath``, ``license``...).
        agent: The agent's instance name (the rows' ``agent_ref``).
        model: The model server's instance name.
    """
    server: dict[str, Any] = {"entrypoint": "app.py", "domain": "coding", "description": "code graded by codegym"}
    agent_config: dict[str, Any] = {
        "entrypoint": "app.py",
        "resources_server": {"type": "resources_servers", "name": SERVER_NAME},
        "model_server": {"type": "responses_api_models", "name": model},
    }
    if datasets:
        agent_config["datasets"] = datasets
    server["envs"] = {env_id: dict(kwargs) for env_id, kwargs in (envs or {}).items()}
    return {
        SERVER_NAME: {"resources_servers": {SERVER_NAME: server}},
        agent: {"responses_api_agents": {"simple_agent": agent_config}},
    }


_APP = '''"""codegym's NeMo-Gym resources server (written by codegym.integrations.nemo_gym.write_server)."""

from codegym.integrations.nemo_gym import CodegymResourcesServer

if __name__ == "__main__":
    CodegymResourcesServer.run_webserver()
'''


def write_server(gym_root: str | Path, *, requirement: str = "codegym", **config: Any) -> Path:
    """Write ``resources_servers/codegym/`` under ``gym_root`` (where ``ng_run`` runs): its
    ``app.py`` entry point, the ``requirements.txt`` its venv is made from, and
    ``configs/codegym.yaml`` (`server_config` of ``config``). Returns the folder.

    Args:
        gym_root: The folder ``ng_run`` is started in.
        requirement: How the server's venv installs codegym (a version, a path, a URL).
        **config: Passed to `server_config`.
    """
    folder = Path(gym_root) / "resources_servers" / SERVER_NAME
    (folder / "configs").mkdir(parents=True, exist_ok=True)
    (folder / "app.py").write_text(_APP, encoding="utf-8")
    (folder / "requirements.txt").write_text(f"{requirement}\n", encoding="utf-8")
    text = yaml.safe_dump(server_config(**config), sort_keys=False)
    (folder / "configs" / f"{SERVER_NAME}.yaml").write_text(text, encoding="utf-8")
    return folder
