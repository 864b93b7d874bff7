#!/bin/bash
set -e
mkdir -p /app/lib
cc -O2 -fPIC -shared /app/stats.c -o /app/lib/libstats.so -lm
