#!/usr/bin/env bash
# Build the docker backend's base images (debootstrap + docker import; about a minute each,
# once: they are tagged by a hash of their recipe and reused). Starts dockerd when no daemon
# answers (needs root) and leaves it running. Usage: scripts/build_images.sh [recipe ...]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
exec .venv/bin/python -m codegym.executor.images build "$@" --start-daemon
