#!/usr/bin/env bash
# The whole test suite: set up, lint, type-check, then every test (notebooks included).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/pyright --pythonpath .venv/bin/python
exec .venv/bin/python -m pytest --durations=30 "$@"
