"""The agent programs codegym ships recipes for (`BUILT_IN`); see `codegym.harness.recipe`."""

from __future__ import annotations

from codegym.harness.recipe import Recipe

# mini-swe-agent: Python (litellm), OpenAI Chat Completions with one ``bash`` tool; it ends
# when a command's output starts with COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT. It runs on the
# tool folder's own CPython (`codegym.harness.install`): boot.py clears the variables that
# point the interpreter there before the agent runs a command.
MINI_SWE_AGENT = Recipe(
    name="mini-swe-agent",
    api="chat",
    package="pypi:mini-swe-agent==2.4.6",
    argv=("{tools}/python/bin/python", "{tools}/boot.py", "minisweagent.run.mini", "--yolo", "--exit-immediately",
          "--agent-class", "default", "--cost-limit", "0", "--model", "openai/{model}", "--task", "{instruction}",
          "--config", "mini.yaml", "--config", "{home}/codegym.yaml", "--output", "{home}/trajectory.json"),
    env=(("LD_LIBRARY_PATH", "{tools}/python/lib"), ("PYTHONHOME", "{tools}/python"),
         ("PYTHONPATH", "{tools}/python/site"), ("PYTHONNOUSERSITE", "1"),
         ("MSWEA_CONFIGURED", "true"), ("MSWEA_SILENT_STARTUP", "1"), ("MSWEA_COST_TRACKING", "ignore_errors"),
         ("MSWEA_GLOBAL_CONFIG_DIR", "{home}/.config/mini-swe-agent"),
         ("LITELLM_LOCAL_MODEL_COST_MAP", "True"), ("LITELLM_TELEMETRY", "False"),
         ("OPENAI_API_KEY", "{api_key}"), ("OPENAI_BASE_URL", "{base_url}/v1"), ("TERM", "dumb"), ("NO_COLOR", "1")),
    files=(("codegym.yaml", 'model:\n  model_kwargs:\n    api_base: "{base_url}/v1"\n    api_key: "{api_key}"\n'
                            "    drop_params: true\n"),),
    done="COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT",
)  # fmt: skip

BUILT_IN: dict[str, Recipe] = {recipe.name: recipe for recipe in (MINI_SWE_AGENT,)}
