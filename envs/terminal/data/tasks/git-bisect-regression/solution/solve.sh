#!/bin/bash
set -e
cd /app/repo
git bisect start main "$(git rev-list --max-parents=0 main)"
git bisect run python3 tests/check.py > /tmp/bisect.log
bad=$(git rev-parse refs/bisect/bad)
git bisect reset
echo "$bad" > /app/bad_commit.txt
