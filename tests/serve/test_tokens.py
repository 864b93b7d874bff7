"""A server's token on every client path (`RemoteEnv`, ``gym.make(..., server=, token=)``,
``codegym.score(..., server=, token=)``, a URL's password): it reaches the server as a header
and works, and it never shows in a message, a log, a repr, an env's kwargs or its spec."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterator

import gymnasium as gym
import pytest

import codegym
from codegym.error import RemoteError, UsageError
from codegym.remote import TOKEN_VARIABLE, RemoteEnv
from codegym.serve import ServeConfig

from .conftest import _free_port, _start

pytest.importorskip("websockets")
pytestmark = pytest.mark.timeout(120)

ENV = "codegym/PythonFunction-v0"
SECRET = "s3cret-token-4f1b"
WRONG = "wrong-token-9c2e"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A server with the token SECRET."""
    server, thread = _start(ServeConfig(port=_free_port(), token=SECRET))
    yield f"http://127.0.0.1:{server.config.port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(autouse=True)
def no_token_variable(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """No token from the environment; and nothing logged (at any level) shows a token."""
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    caplog.set_level(logging.DEBUG)
    yield
    assert SECRET not in caplog.text and WRONG not in caplog.text


def _with_password(url: str, token: str) -> str:
    return url.replace("http://", f"http://codegym:{token}@")


def _task() -> tuple[str, str]:
    env = gym.make(ENV).unwrapped
    task = next(iter(env.tasks))  # type: ignore[attr-defined]
    env.close()
    return task.id, task.reference or ""


def test_score_sends_its_token_as_a_header(url: str) -> None:
    task_id, reference = _task()
    (grade,) = codegym.score(ENV, [(task_id, reference)], server=url, token=SECRET)
    assert grade.status.value == "OK"
    (by_url,) = codegym.score(ENV, [(task_id, reference)], server=_with_password(url, SECRET))
    assert by_url == grade


def test_score_with_a_wrong_or_no_token_says_so_without_echoing_it(url: str) -> None:
    task_id, _ = _task()
    for how in ({"server": url, "token": WRONG}, {"server": _with_password(url, WRONG)}):
        with pytest.raises(RemoteError, match="refused the token") as refused:
            codegym.score(ENV, [(task_id, "x = 1")], **how)  # type: ignore[arg-type]
        assert WRONG not in str(refused.value) and "HTTP 401" in str(refused.value)
    with pytest.raises(RemoteError, match=f"needs a token .*{TOKEN_VARIABLE}"):
        codegym.score(ENV, [(task_id, "x = 1")], server=url)


def test_gym_make_sends_its_token_and_keeps_it_out_of_the_spec(url: str) -> None:
    env = gym.make(ENV, server=url, token=SECRET, mode="refine")
    try:
        assert isinstance(env.unwrapped, RemoteEnv)
        _, info = env.reset(seed=0)
        assert info["task_id"]
        spec = env.spec
        assert spec is not None and "token" not in spec.kwargs and spec.kwargs["server"] == url
        assert spec.kwargs["mode"] == "refine"
        for shown in (repr(spec), spec.to_json(), repr(env), str(env), repr(env.unwrapped.spec), repr(vars(env))):
            assert SECRET not in shown
    finally:
        env.close()


def test_a_url_password_is_kept_out_of_the_spec_and_the_env(url: str) -> None:
    env = gym.make(ENV, server=_with_password(url, SECRET))
    try:
        env.reset(seed=0)
        assert env.spec is not None and env.spec.kwargs["server"] == url
        assert SECRET not in env.spec.to_json() and SECRET not in repr(vars(env.unwrapped))
        assert env.unwrapped.server == url  # type: ignore[attr-defined]
    finally:
        env.close()
    listed = gym.make(ENV, server=[_with_password(url, SECRET)])
    try:
        assert listed.spec is not None and listed.spec.kwargs["server"] == [url]
    finally:
        listed.close()


def test_a_remote_env_with_a_wrong_or_no_token_says_so_without_echoing_it(url: str) -> None:
    for make in (
        lambda: RemoteEnv(url, ENV, token=WRONG),
        lambda: gym.make(ENV, server=url, token=WRONG),
        lambda: RemoteEnv(_with_password(url, WRONG), ENV),
    ):
        with pytest.raises(RemoteError, match="refused the token") as refused:
            make()
        assert WRONG not in str(refused.value)
    with pytest.raises(RemoteError, match="needs a token"):
        RemoteEnv(url, ENV)
    assert isinstance(RemoteEnv(url, ENV, token=SECRET), RemoteEnv)


def test_the_token_variable_is_used(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(TOKEN_VARIABLE, SECRET)
    env = RemoteEnv(url, ENV)
    try:
        env.reset(seed=0)
    finally:
        env.close()


def test_an_unreachable_server_is_named_without_its_password() -> None:
    dead = f"http://127.0.0.1:{_free_port()}"
    with pytest.raises(RemoteError, match="cannot reach") as unreachable:
        codegym.score(ENV, [("t", "x = 1")], server=_with_password(dead, SECRET))
    assert SECRET not in str(unreachable.value) and dead in str(unreachable.value)
    with pytest.raises(RemoteError) as unopened:
        RemoteEnv(_with_password(dead, SECRET), ENV, connect_timeout_s=5)
    assert SECRET not in str(unopened.value)


def test_a_token_without_a_server_is_refused_without_echoing_it() -> None:
    with pytest.raises(UsageError, match="server=") as scored:
        codegym.score(ENV, [("t", "x = 1")], token=SECRET)
    with pytest.raises(UsageError, match="server=") as made:
        gym.make(ENV, token=SECRET)
    assert SECRET not in str(scored.value) + str(made.value)


def test_a_token_sent_as_an_env_setting_is_refused_without_echoing_it(url: str) -> None:
    body = {"env_id": ENV, "env_kwargs": {"token": WRONG}, "items": [{"task_id": "t", "code": "x = 1"}]}
    request = urllib.request.Request(url + "/v1/score", json.dumps(body).encode(), method="POST",
                                     headers={"Authorization": f"Bearer {SECRET}", "Content-Type": "application/json"})  # fmt: skip
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    answer = refused.value.read().decode()
    assert refused.value.code == 400 and "Authorization" in answer and WRONG not in answer


def test_the_server_config_repr_hides_its_token() -> None:
    assert SECRET not in repr(ServeConfig(token=SECRET))
