#!/bin/bash
set -e
mkdir -p /app/dist
cd /app/kv
cc -O2 -static -s kv.c kvtool.c -o /app/dist/kvtool
