#!/bin/bash
set -e
cd /app/repo
export FILTER_BRANCH_SQUELCH_WARNING=1
git filter-branch -f --env-filter '
if [ "$GIT_AUTHOR_EMAIL" = "dev@localhost" ]; then
  export GIT_AUTHOR_NAME="Carol Smith" GIT_AUTHOR_EMAIL="carol@example.com"
fi
if [ "$GIT_COMMITTER_EMAIL" = "dev@localhost" ]; then
  export GIT_COMMITTER_NAME="Carol Smith" GIT_COMMITTER_EMAIL="carol@example.com"
fi' --tag-name-filter cat -- --all
git for-each-ref --format='%(refname)' refs/original/ | xargs -r -n1 git update-ref -d
git checkout -q main
