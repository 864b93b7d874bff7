#!/bin/bash
set -e
cd /app/repo
git reset -q HEAD~1
git add src/csvlite.py tests/test_csvlite.py && git commit -q -m "csvlite: quoted fields"
git add docs/usage.md && git commit -q -m "docs: quoted fields"
git add .gitignore && git commit -q -m "chore: ignore build output"
