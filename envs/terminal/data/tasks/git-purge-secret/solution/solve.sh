#!/bin/bash
set -e
cd /app/repo
export FILTER_BRANCH_SQUELCH_WARNING=1
git filter-branch -f --index-filter 'git rm -q --cached --ignore-unmatch config/credentials.env' \
  --tag-name-filter cat -- --all
git for-each-ref --format='%(refname)' refs/original/ | xargs -r -n1 git update-ref -d
rm -f config/credentials.env
git reflog expire --expire=now --expire-unreachable=now --all
git gc -q --prune=now --aggressive
