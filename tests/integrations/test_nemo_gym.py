"""codegym's NeMo-Gym resources server, driven by NeMo-Gym's own code.

The servers are NeMo-Gym's: ours (`CodegymResourcesServer`, a ``SimpleResourcesServer``) and
its ``simple_agent``, each app built by NeMo-Gym's ``setup_webserver`` with the middleware its
``run_webserver`` adds, served by uvicorn; requests go through its ``ServerClient`` and its
pydantic request types, as its rollout collection sends them. Only the model is a stand-in:
it answers whatever the request's ``metadata["answer"]`` says.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Coroutine, Iterator
from concurrent.futures import Future
from typing import Any

import gymnasium as gym
import pytest

from codegym.core import CodeEnv
from codegym.error import SandboxError
from codegym.executor.base import Executor
from codegym.task import Task, TaskSet, TestCase

# (codegym's module imports NeMo-Gym first, putting back what its import changes in the process)
pytest.importorskip(
    "codegym.integrations.nemo_gym",
    reason="NeMo-Gym is not installed: pip install --no-deps --ignore-requires-python nemo-gym==0.4.0 and its "
    "server deps (docs/serve.md, NeMo-Gym)",
    exc_type=ImportError,  # (codegym's DependencyNotInstalled)
)
import uvicorn
from aiohttp import ClientResponseError
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient
from nemo_gym.config_types import BaseServerConfig, DatasetConfig, ModelServerRef, ResourcesServerRef
from nemo_gym.global_config import GlobalConfigDictParser, GlobalConfigDictParserConfig
from nemo_gym.openai_utils import NeMoGymResponse, NeMoGymResponseOutputMessage, NeMoGymResponseOutputText
from nemo_gym.server_utils import (
    GlobalAIOHTTPAsyncClientConfig,
    ServerClient,
    get_global_aiohttp_client,
    get_response_json,
    is_global_aiohttp_client_setup,
    raise_for_status,
    set_global_aiohttp_client,
)
from omegaconf import DictConfig, OmegaConf
from responses_api_agents.simple_agent.app import (
    SimpleAgent,
    SimpleAgentConfig,
    SimpleAgentRunRequest,
)

from codegym.integrations.nemo_gym import (
    CodegymResourcesServer,
    CodegymResourcesServerConfig,
    CodegymVerifyRequest,
    CodegymVerifyResponse,
    rows,
    write_dataset,
    write_server,
)

pytestmark = pytest.mark.timeout(60)
PY, STDIO = "codegym/PythonFunction-v0", "codegym/StdioProgram-v0"
WRONG = {PY: "def count_vowel_runs(text):\n    return 0\n", STDIO: "print(0)\n"}
HOST = "127.0.0.1"


def response(text: str) -> NeMoGymResponse:
    """A model's Responses-API answer holding ``text``."""
    message = NeMoGymResponseOutputMessage(id="msg_0", content=[NeMoGymResponseOutputText(text=text, annotations=[])])
    return NeMoGymResponse(id="resp_0", created_at=0.0, model="stand-in", object="response", output=[message],
                           parallel_tool_calls=False, tool_choice="auto", tools=[])  # fmt: skip


def model_app() -> FastAPI:
    """The stand-in model server: answers ``metadata["answer"]``, as a fenced chat answer."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request) -> dict[str, Any]:
        answer = (await request.json())["metadata"]["answer"]
        return response(f"Here it is:\n```python\n{answer}```\n").model_dump(mode="json")

    return app


class Servers:
    """uvicorn servers on one event loop in a thread, where the test's requests run too
    (NeMo-Gym's aiohttp client belongs to one loop)."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.servers: list[tuple[uvicorn.Server, Future[Any]]] = []
        self.run(self._client())

    async def _client(self) -> None:
        if not is_global_aiohttp_client_setup():
            set_global_aiohttp_client(GlobalAIOHTTPAsyncClientConfig())

    def serve(self, app: FastAPI, sock: socket.socket) -> None:
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        self.servers.append((server, asyncio.run_coroutine_threadsafe(server.serve(sockets=[sock]), self.loop)))
        deadline = time.monotonic() + 20
        while not server.started:
            assert time.monotonic() < deadline, "a server did not start in 20 s"
            time.sleep(0.02)

    def run(self, coroutine: Coroutine[Any, Any, Any], timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.run(get_global_aiohttp_client().close())
        for server, _ in self.servers:
            server.should_exit = True
        for _, serving in self.servers:
            serving.result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def bound() -> socket.socket:
    """A socket on a free port of this host, for a server to listen on."""
    sock = socket.socket()
    sock.bind((HOST, 0))
    return sock


def production_app(server: Any) -> FastAPI:
    """``server``'s app as NeMo-Gym's ``run_webserver`` builds it (without starting Ray)."""
    app = server.setup_webserver()
    server.setup_liveness(app)
    server.setup_exception_middleware(app)
    return app


def codegym_server(envs: dict[str, dict[str, Any]], port: int = 0) -> CodegymResourcesServer:
    config = CodegymResourcesServerConfig(host=HOST, port=port, entrypoint="app.py", name="codegym", envs=envs)
    client = ServerClient(head_server_config=BaseServerConfig(host=HOST, port=0), global_config_dict=OmegaConf.create())
    return CodegymResourcesServer(config=config, server_client=client)


@pytest.fixture(scope="module")
def stack(executor: Executor) -> Iterator[tuple[Servers, ServerClient, CodegymResourcesServer]]:
    """Our server, the stand-in model and NeMo-Gym's simple_agent, each on its own port."""
    servers = Servers()
    sockets = {name: bound() for name in ("codegym", "policy_model", "codegym_agent")}
    kinds = {
        "codegym": "resources_servers",
        "policy_model": "responses_api_models",
        "codegym_agent": "responses_api_agents",
    }
    config = {
        name: {kinds[name]: {name: {"host": HOST, "port": sock.getsockname()[1]}}} for name, sock in sockets.items()
    }
    client = ServerClient(
        head_server_config=BaseServerConfig(host=HOST, port=0), global_config_dict=OmegaConf.create(config)
    )
    agent_config = SimpleAgentConfig(
        host=HOST, port=0, entrypoint="app.py", name="codegym_agent",
        resources_server=ResourcesServerRef(type="resources_servers", name="codegym"),
        model_server=ModelServerRef(type="responses_api_models", name="policy_model"),
    )  # fmt: skip
    ours = codegym_server({PY: {"executor": executor}, STDIO: {"executor": executor}})
    servers.serve(production_app(ours), sockets["codegym"])
    servers.serve(model_app(), sockets["policy_model"])
    servers.serve(production_app(SimpleAgent(config=agent_config, server_client=client)), sockets["codegym_agent"])
    yield servers, client, ours
    servers.close()
    ours.close()


async def post(client: ServerClient, server: str, path: str, body: Any) -> dict[str, Any]:
    """POST as NeMo-Gym's agents and rollout collection do: an error status raises."""
    reply = await client.post(server_name=server, url_path=path, json=body)
    await raise_for_status(reply)
    return await get_response_json(reply)


def code_env(env_id: str, **kwargs: Any) -> CodeEnv:
    env = gym.make(env_id, **kwargs).unwrapped
    assert isinstance(env, CodeEnv)
    return env


def first_task(env_id: str) -> Task:
    return next(iter(code_env(env_id).tasks))


def in_process(env_id: str, task: Task, code: str, executor: Executor) -> tuple[float, str]:
    env = code_env(env_id, executor=executor)
    grade, _ = env.evaluate(task, code)
    return env.reward_of(grade), grade.status.value


@pytest.mark.parametrize("env_id", [PY, STDIO])
def test_verify_grades_as_codegym_does(stack, executor, env_id: str) -> None:
    servers, client, _ = stack
    task = first_task(env_id)
    [row] = [r for r in rows(env_id) if r["verifier_metadata"]["task_id"] == task.id]
    for code, reward in ((task.reference or "", 1.0), (WRONG[env_id], 0.0)):
        request = CodegymVerifyRequest.model_validate({**row, "response": response(f"```python\n{code}```")})
        got = CodegymVerifyResponse.model_validate(servers.run(post(client, "codegym", "/verify", request)))
        assert (got.reward, got.status) == in_process(env_id, task, code, executor)
        assert got.reward == reward and got.extracted_code == code and (got.status == "OK") == (reward == 1.0)
        assert (got.pass_rate == 1.0) == (reward == 1.0)
        assert got.verifier_metadata.task_id == task.id and got.reward_components == {"correct": reward}


@pytest.mark.parametrize("env_id", [PY, STDIO])
def test_simple_agent_runs_a_dataset_row(stack, env_id: str) -> None:
    """A row as `rows` writes it goes through NeMo-Gym's simple_agent: ``/run`` asks the
    model, then posts the row and the model's response to our ``/verify``."""
    servers, client, _ = stack
    task = first_task(env_id)
    [row] = [r for r in rows(env_id, agent_name="codegym_agent") if r["verifier_metadata"]["task_id"] == task.id]
    for code, reward in ((task.reference or "", 1.0), (WRONG[env_id], 0.0)):
        row["responses_create_params"]["metadata"] = {"answer": code}
        body = SimpleAgentRunRequest.model_validate(row)
        got = servers.run(post(client, "codegym_agent", "/run", body))
        assert got["reward"] == reward and got["verifier_metadata"] == row["verifier_metadata"]
        assert (got["status"] == "OK") == (reward == 1.0) and got["extracted_code"] == code
        assert got["response"]["output"][0]["content"][0]["text"].startswith("Here it is")


def test_a_broken_task_id_is_an_error_not_a_zero(stack) -> None:
    servers, client, _ = stack
    row = rows(PY)[0]
    for metadata, error, status in (({"env_id": PY, "task_id": "no-such-task"}, "unknown_task", 404),
                                    ({"env_id": "codegym/NoSuchEnv-v0", "task_id": "x"}, "unknown_env", 404),
                                    ({"env_id": PY, "task_id": "x", "env_kwargs": {"server": "http://10.0.0.1:9"}},
                                     "server_only_kwargs", 403)):  # fmt: skip
        request = CodegymVerifyRequest.model_validate({**row, "verifier_metadata": metadata, "response": response("x")})
        with pytest.raises(ClientResponseError) as raised:
            servers.run(post(client, "codegym", "/verify", request))
        assert raised.value.status == status
        assert json.loads(raised.value.response_content)["detail"]["error"] == error  # type: ignore[attr-defined]
    # Through the agent, the rollout fails (NeMo-Gym leaves it out), it is not scored 0.
    row = {
        **row,
        "verifier_metadata": {"env_id": PY, "task_id": "no-such-task"},
        "agent_ref": {"name": "codegym_agent"},
    }
    row["responses_create_params"]["metadata"] = {"answer": "x = 1\n"}
    with pytest.raises(ClientResponseError) as raised:
        servers.run(post(client, "codegym_agent", "/run", SimpleAgentRunRequest.model_validate(row)))
    assert raised.value.status == 500 and b"no-such-task" in raised.value.response_content  # type: ignore[attr-defined]


class Down(Executor):
    name = "down"

    def submit(self, job):  # type: ignore[override]
        raise SandboxError("no workers")


def test_infrastructure_and_task_failures_are_http_errors() -> None:
    tests = (TestCase("t", "assert f(1) == 1", hidden=False),)
    meta = {"entry_point": "f", "prefix": "", "test_prelude": ""}
    tasks = TaskSet([
        Task(id="tiny/ok", family="PythonFunction", prompt="def f(x):", tests=tests, metadata=meta),
        Task(id="tiny/broken", family="PythonFunction", prompt="def f(x):", tests=tests,
             metadata={**meta, "invalid": "its reference fails its own tests"}),
    ])  # fmt: skip
    server = codegym_server({PY: {"tasks": tasks, "executor": Down()}})

    def body(**metadata: str) -> dict[str, Any]:
        request = {"responses_create_params": {"input": "def f(x):"}, "response": response("def f(x): return x"),
                   "verifier_metadata": metadata}  # fmt: skip
        return json.loads(CodegymVerifyRequest.model_validate(request).model_dump_json())

    with TestClient(production_app(server)) as http:
        for task_id, status, error in (("tiny/ok", 503, "infra_error"), ("tiny/broken", 500, "task_error")):
            reply = http.post("/verify", json=body(env_id=PY, task_id=task_id))
            assert reply.status_code == status and reply.json()["detail"]["error"] == error
        assert "reference fails" in reply.json()["detail"]["message"]
        reply = http.post(
            "/verify", json={k: v for k, v in body(env_id=PY, task_id="x").items() if k != "verifier_metadata"}
        )
        assert reply.status_code == 422 and "verifier_metadata" in reply.text
        reply = http.post("/verify", json=body(env_id=STDIO, task_id="x"))
        assert reply.status_code == 404 and "grades ['codegym/PythonFunction-v0']" in reply.text
    server.close()


def test_dataset_and_config_are_what_nemo_gym_reads(tmp_path, monkeypatch) -> None:
    datasets = [{"name": "codegym_py", "type": "train", "jsonl_fpath": "resources_servers/codegym/data/train.jsonl",
                 "license": "Apache 2.0"}]  # fmt: skip
    folder = write_server(tmp_path, envs={PY: {"tasks": "codegym-py"}}, datasets=datasets)
    path = write_dataset(PY, tmp_path / datasets[0]["jsonl_fpath"], system="Answer in Python.", tasks="codegym-py")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    env = code_env(PY)
    assert len(lines) == len(env.tasks) and (folder / "app.py").exists()
    assert (folder / "requirements.txt").read_text() == "codegym\n"
    for line, task in zip(lines, env.tasks, strict=True):
        SimpleAgentRunRequest.model_validate(line)  # (its create params forbid unknown fields)
        assert line["verifier_metadata"] == {"env_id": PY, "task_id": task.id, "env_kwargs": {"tasks": "codegym-py"}}
        assert line["responses_create_params"]["input"][0] == {"role": "system", "content": "Answer in Python."}
        assert task.reference not in line["responses_create_params"]["input"][1]["content"]
    monkeypatch.chdir(tmp_path)
    initial = DictConfig({**GlobalConfigDictParserConfig.NO_MODEL_GLOBAL_CONFIG_DICT,
                          "config_paths": [str(folder / "configs" / "codegym.yaml")]})  # fmt: skip
    parsed = GlobalConfigDictParser().parse(
        GlobalConfigDictParserConfig(
            initial_global_config_dict=initial, skip_load_from_cli=True, skip_load_from_dotenv=True
        )
    )
    block = OmegaConf.to_container(parsed["codegym"]["resources_servers"]["codegym"], resolve=True)
    config = CodegymResourcesServerConfig.model_validate({**block, "name": "codegym"})  # type: ignore[dict-item]
    assert config.envs == {PY: {"tasks": "codegym-py"}} and config.domain == "coding"
    agent = parsed["codegym_simple_agent"]["responses_api_agents"]["simple_agent"]
    assert agent["resources_server"]["name"] == "codegym" and DatasetConfig.model_validate(dict(agent["datasets"][0]))


def test_importing_the_adapter_leaves_the_process_as_it_was() -> None:
    """NeMo-Gym's import points the Hugging Face caches at ./cache and replaces print; the
    adapter puts both back, so a trainer's datasets do not land in its working directory."""
    import builtins
    import os

    import nemo_gym

    assert nemo_gym.print_always_flushes is not builtins.print  # (NeMo-Gym's own print, put back)
    assert os.environ.get("HF_HOME") != str(nemo_gym.CACHE_DIR / "huggingface")
