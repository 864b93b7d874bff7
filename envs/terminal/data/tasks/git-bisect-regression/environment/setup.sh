set -e
export GIT_AUTHOR_NAME="Alice Martin" GIT_AUTHOR_EMAIL="alice@example.com"
export GIT_COMMITTER_NAME="Alice Martin" GIT_COMMITTER_EMAIL="alice@example.com"
T=1700000000
c() { T=$((T + 3600)); GIT_AUTHOR_DATE="@$T +0000" GIT_COMMITTER_DATE="@$T +0000" git commit -q "$@"; }
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
mkdir -p stats tests
cat > stats/core.py <<'PY'
def mean(xs):
    return sum(xs) / len(xs)


def median(xs):
    s = sorted(xs)
    n = len(s)
    mid = n // 2
    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2
PY
touch stats/__init__.py
cat > tests/check.py <<'PY'
"""Run: python3 tests/check.py (exit 0 = good)."""
import sys

sys.path.insert(0, ".")
from stats.core import mean, median

assert mean([1, 2, 3, 4]) == 2.5
assert median([3, 1, 2]) == 2
assert median([4, 1, 3, 2]) == 2.5
print("ok")
PY
printf '# stats\n' > NOTES.md
printf '__pycache__/\n' > .gitignore
git add .; c -m "initial stats package"
i=1
while [ $i -le 64 ]; do
  printf -- '- note %d: reviewed module layout\n' $i >> NOTES.md
  if [ $i -eq 23 ]; then
    # the regression: an innocent looking refactor of median for even lengths
    python3 - <<'PY'
import re
p = "stats/core.py"
s = open(p).read()
s = s.replace("    mid = n // 2\n    return s[mid] if n % 2 else (s[mid - 1] + s[mid]) / 2\n",
              "    mid = n // 2\n    return s[mid] if n % 2 else (s[mid] + s[-mid]) / 2\n")
open(p, "w").write(s)
PY
  fi
  if [ $i -eq 41 ]; then
    printf '\n\ndef spread(xs):\n    return max(xs) - min(xs)\n' >> stats/core.py
  fi
  if [ $((i % 9)) -eq 0 ]; then
    printf '\n\ndef helper_%d(x):\n    return x + %d\n' $i $i >> stats/core.py
  fi
  git add .; c -m "maintenance $i"
  i=$((i + 1))
done
