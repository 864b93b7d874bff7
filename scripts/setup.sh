#!/usr/bin/env bash
# Idempotent set-up on a fresh Debian machine: system packages, a virtual environment in
# .venv, and codegym installed in it with its development extras. Sourced by main.sh and
# test.sh; safe to run again at any time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Toolchains of the StdioProgram family's languages (envs/stdio_program/languages.yaml), Icarus
# Verilog and Verilator for the Verilog family, valgrind for Optimize, and librsvg (with
# rsvg-convert, the benchmark's baseline), fonts and Chromium for the visual family, Dafny (on Mono)
# and Why3 with Z3 for the verifier families, git for RepoRepair's agent workspaces.
SYSTEM_PACKAGES=(python3 python3-venv python3-dev gcc g++ gfortran rustc golang-go openjdk-17-jdk-headless nodejs
                 ruby lua5.4 ocaml-nox r-base-core iverilog verilator docker.io debootstrap valgrind
                 librsvg2-2 librsvg2-bin fonts-dejavu-core fontconfig chromium dafny z3 why3 git uidmap)
missing=()
for package in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
stamp=.venv/.codegym-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ setup.py -nt "$stamp" ] \
   || [ codegym/executor/_forkcore.c -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[dev]'
    # verl's agent loop API, without verl's own pins (see the verl extra in pyproject.toml)
    .venv/bin/python -m pip install -q --no-deps "verl==0.9.1"
    # NeMo-Gym's server code, without its Python >= 3.12 mark and pins (see the nemo extra)
    .venv/bin/python -m pip install -q --no-deps --ignore-requires-python "nemo-gym==0.4.0"
    touch "$stamp"
fi

# Dafny, Boogie and the libraries they load, compiled ahead of time under /usr/local
# (codegym.verifier.dafny.build_aot): it halves each verification's start-up.
if [ ! -f /usr/local/lib/codegym/dafny-aot/Dafny.exe.so ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo -n"
    $sudo .venv/bin/python -m codegym.verifier.dafny \
        || echo "note: Dafny was not compiled ahead of time: it gives the same verdicts, each a second slower"
fi

# The terminal family's Debian bases (debootstrap; as root: boxes and builds need it), built once
# into codegym's layer store: debian:bookworm(-slim), python:3.11-slim and python:3.12+ (trixie).
if [ "$(id -u)" = 0 ]; then
    .venv/bin/python -m codegym.executor.layers base bookworm >/dev/null
    .venv/bin/python -m codegym.executor.layers base bookworm python3 python3-pip python3-venv python-is-python3 >/dev/null
    .venv/bin/python -m codegym.executor.layers base trixie python3 python3-pip python3-venv python-is-python3 >/dev/null
fi

# The bundled terminal tasks' shared layers (their two apt lines), so that a first episode does not
# wait minutes for them: importing one task of each kind builds them (once; later runs find them).
if [ "$(id -u)" = 0 ]; then
    .venv/bin/codegym terminal import envs/terminal/data/tasks/awk-busiest-hour \
        envs/terminal/data/tasks/nginx-static-rewrite >/dev/null
fi

# Harness mode's agent programs (mini-swe-agent, OpenCode, Codex CLI, Claude Code), pinned in
# codegym/harness/programs.py, each installed once into a tool folder that boxes mount read-only
# (codegym.harness.install; a folder built already is kept).
.venv/bin/python -m codegym.harness.install >/dev/null
