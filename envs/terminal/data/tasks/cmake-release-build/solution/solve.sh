#!/bin/bash
set -e
cd /app/calc
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCALC_ADVANCED=ON -DCMAKE_INSTALL_PREFIX=/opt/calc
cmake --build build
cmake --install build
