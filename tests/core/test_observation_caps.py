"""The observation's text fields stay within their space, however much a compiler prints."""

from __future__ import annotations

from codegym.envs.stdio_program.env import StdioProgramEnv

from codegym.spaces import MAX_TEXT


def test_a_compile_that_prints_more_than_the_space_holds_is_cut_to_fit() -> None:
    env = StdioProgramEnv(language="c")
    env.reset(seed=0)
    flood = "int main(void) {\n" + "".join(f"    int x{i} = ;\n" for i in range(3000)) + "}\n"
    obs, reward, *_ = env.step(flood)
    assert reward == 0.0
    assert 0 < len(obs["diagnostics"]) <= MAX_TEXT
    assert obs["diagnostics"].endswith("[... cut: the diagnostics go on]")
    assert env.observation_space.contains(obs)
