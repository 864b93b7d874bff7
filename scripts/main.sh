#!/usr/bin/env bash
# The main job: set up, then score HumanEval's 164 canonical solutions and a broken
# variant of each in the sandbox, printing pass@k and the verdict counts.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
exec .venv/bin/codegym demo --out "${CODEGYM_DEMO_OUT:-/tmp/codegym_demo_samples.jsonl}"
