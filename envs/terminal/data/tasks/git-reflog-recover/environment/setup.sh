set -e
export GIT_AUTHOR_NAME="Alice Martin" GIT_AUTHOR_EMAIL="alice@example.com"
export GIT_COMMITTER_NAME="Alice Martin" GIT_COMMITTER_EMAIL="alice@example.com"
T=1700000000
c() { T=$((T + 3600)); GIT_AUTHOR_DATE="@$T +0000" GIT_COMMITTER_DATE="@$T +0000" git commit -q "$@"; }
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
printf 'def add(a, b):\n    return a + b\n' > mathlib.py; git add .; c -m "mathlib: add"
printf '# mathlib\n\nSmall helpers.\n' > README.md; git add .; c -m "docs: README"
printf 'def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n' > mathlib.py; git add .; c -m "mathlib: mul"
cat > checksum.py <<'PY'
def checksum(data: bytes) -> int:
    s = 0
    for i, b in enumerate(data):
        s = (s * 31 + b + i) % 1_000_000_007
    return s
PY
git add .; c -m "checksum: add rolling checksum"
cat > checksum.py <<'PY'
def checksum(data: bytes) -> int:
    if not data:
        return 0
    s = 7
    for i, b in enumerate(data):
        s = (s * 31 + b + i) % 1_000_000_007
    return s
PY
git add .; c -m "checksum: seed and empty input"
git reset -q --hard HEAD~2
printf '# mathlib\n\nSmall arithmetic helpers.\n' > README.md; git add .; c -m "docs: clearer README"
