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

# Codex CLI: a static (musl) binary, run directly (the npm launcher only execs it). Responses
# API, streamed; it ends when a reply has no tool call. The switches keep it off chatgpt.com,
# ab.chatgpt.com, api.github.com and github.com (plugins: git ls-remote), checked with strace;
# --strict-config turns a key a later version renames into an error, not a lost switch.
CODEX = Recipe(
    name="codex",
    api="responses",
    package="npm:@openai/codex@0.171.0",
    argv=("{tools}/npm/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
          "exec", "--strict-config", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
          "--json", "--color", "never", "--", "{instruction}"),
    env=(("CODEGYM_API_KEY", "{api_key}"), ("CODEX_HOME", "{home}/.codex"), ("NO_COLOR", "1")),
    files=((".codex/config.toml", """model = "{model}"
model_provider = "codegym"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.codegym]
name = "codegym"
base_url = "{base_url}/v1"
env_key = "CODEGYM_API_KEY"
wire_api = "responses"
# codex's default (300 s) would abort a reply the env takes longer to give
stream_idle_timeout_ms = 14400000

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[history]
persistence = "none"

[agents]
enabled = false

[skills]
include_instructions = false

[skills.bundled]
enabled = false

[features]
plugins = false
remote_plugin = false
apps = false
goals = false
"""),),
    done='"type":"turn.completed"',
)  # fmt: skip

# OpenCode: a Bun binary (glibc), run directly; the "baseline" build needs no AVX2. Chat
# Completions, streamed, through its bundled @ai-sdk/openai-compatible. The instruction goes
# in on stdin: as an argument, `opencode run` would send it wrapped in double quotes. --title
# skips the title request. The package files stop it installing @opencode-ai/plugin from
# registry.npmjs.org at start. Its grep and glob tools need ``rg`` on PATH (else they try to
# fetch it from github.com): Codex's static ripgrep is put in {tools}/bin, after the task's PATH.
OPENCODE = Recipe(
    name="opencode",
    api="chat",
    package="npm:opencode-ai@1.18.33",
    argv=("/bin/sh", "-c", 'exec "$0" run --auto --title codegym --format json < "$1"',
          "{tools}/npm/node_modules/opencode-linux-x64-baseline/bin/opencode", "{instruction_file}"),
    env=(("OPENCODE_DISABLE_AUTOUPDATE", "1"), ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
         ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"), ("OPENCODE_DISABLE_LSP_DOWNLOAD", "1"),
         ("OPENCODE_DISABLE_SHARE", "1"), ("OPENCODE_DISABLE_EXTERNAL_SKILLS", "1"),
         ("OPENCODE_DISABLE_CLAUDE_CODE", "1"), ("OPENCODE_DISABLE_EMBEDDED_WEB_UI", "1"),
         ("OPENCODE_DISABLE_PROJECT_CONFIG", "1"),
         # (its file finder unpacks a 5.5 MB library into $TMPDIR at each start, never removed)
         ("OPENCODE_DISABLE_FFF", "1"), ("XDG_CONFIG_HOME", "{home}/.config"),
         ("XDG_DATA_HOME", "{home}/.local/share"), ("XDG_CACHE_HOME", "{home}/.cache"),
         ("XDG_STATE_HOME", "{home}/.local/state"), ("NO_COLOR", "1"), ("PATH", "{path}:{tools}/bin")),
    extras=(("@openai/codex@0.171.0-linux-x64", "vendor/x86_64-unknown-linux-musl/codex-path/rg", "bin/rg"),),
    files=((".config/opencode/opencode.json", """{
  "$schema": "https://opencode.ai/config.json",
  "model": "codegym/{model}",
  "small_model": "codegym/{model}",
  "enabled_providers": ["codegym"],
  "autoupdate": false,
  "share": "disabled",
  "permission": {"webfetch": "deny"},
  "provider": {
    "codegym": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "codegym",
      "options": {"baseURL": "{base_url}/v1", "apiKey": "{api_key}", "timeout": false,
                  "headerTimeout": false, "chunkTimeout": false},
      "models": {"{model}": {"name": "{model}", "tool_call": true,
                             "limit": {"context": 128000, "output": 16384}}}
    }
  }
}
"""),
           (".config/opencode/package.json", '{"dependencies": {"@opencode-ai/plugin": "1.18.33"}}\n'),
           (".config/opencode/package-lock.json",
            '{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}\n'),
           (".config/opencode/node_modules/.keep", "")),
    done='"reason":"stop"',
)  # fmt: skip

# Claude Code: a Bun binary (glibc), run directly (npm's postinstall only copies it over
# bin/claude.exe). Anthropic Messages, streamed; -p ends when a reply has no tool use. Only
# CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC stops its api.anthropic.com look-up (MCP registry)
# and HEAD {base_url}/api/hello; the four it implies are set as well. DISABLE_EXPERIMENTAL_BETAS
# keeps requests plain Messages (no ToolSearch, defer_loading, context_management). IS_SANDBOX
# lets --dangerously-skip-permissions run as root. Sub-agents and side calls use the policy too.
CLAUDE_CODE = Recipe(
    name="claude-code",
    api="messages",
    package="npm:@anthropic-ai/claude-code@2.1.332",
    argv=("{tools}/npm/node_modules/@anthropic-ai/claude-code-linux-x64/claude", "-p",
          "--dangerously-skip-permissions", "--output-format", "json", "--model", "{model}", "--", "{instruction}"),
    env=(("ANTHROPIC_BASE_URL", "{base_url}"), ("ANTHROPIC_API_KEY", "{api_key}"),
         ("ANTHROPIC_MODEL", "{model}"), ("ANTHROPIC_DEFAULT_HAIKU_MODEL", "{model}"),
         ("ANTHROPIC_DEFAULT_SONNET_MODEL", "{model}"), ("ANTHROPIC_DEFAULT_OPUS_MODEL", "{model}"),
         ("CLAUDE_CODE_SUBAGENT_MODEL", "{model}"),
         ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"), ("DISABLE_TELEMETRY", "1"),
         ("DISABLE_ERROR_REPORTING", "1"), ("DISABLE_AUTOUPDATER", "1"), ("DISABLE_BUG_COMMAND", "1"),
         ("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS", "1"), ("IS_SANDBOX", "1"),
         ("CLAUDE_CONFIG_DIR", "{home}/.claude"),
         # its default (600 s) would abort a reply the env takes longer to give
         ("API_TIMEOUT_MS", "14400000"), ("NO_COLOR", "1")),
    files=((".claude/settings.json", '{"permissions": {"deny": ["WebFetch", "WebSearch"]}}\n'),),
    done='"terminal_reason":"completed"',
)  # fmt: skip

BUILT_IN: dict[str, Recipe] = {recipe.name: recipe for recipe in (MINI_SWE_AGENT, CODEX, OPENCODE, CLAUDE_CODE)}
