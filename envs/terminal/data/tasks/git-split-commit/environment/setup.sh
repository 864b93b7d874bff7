set -e
export GIT_AUTHOR_NAME="Alice Martin" GIT_AUTHOR_EMAIL="alice@example.com"
export GIT_COMMITTER_NAME="Alice Martin" GIT_COMMITTER_EMAIL="alice@example.com"
T=1700000000
c() { T=$((T + 3600)); GIT_AUTHOR_DATE="@$T +0000" GIT_COMMITTER_DATE="@$T +0000" git commit -q "$@"; }
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
mkdir -p src docs tests
printf 'def split(line):\n    return line.split(",")\n' > src/csvlite.py
printf '# csvlite\n\n`split(line)` splits on commas.\n' > docs/usage.md
printf 'from src.csvlite import split\n\n\ndef test_plain():\n    assert split("a,b") == ["a", "b"]\n' > tests/test_csvlite.py
git add .; c -m "csvlite: first version"
printf '\n\ndef join(fields):\n    return ",".join(fields)\n' >> src/csvlite.py
git add .; c -m "csvlite: join"
cat > src/csvlite.py <<'PY'
def split(line):
    out, cur, quoted = [], "", False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def join(fields):
    return ",".join(f'"{f}"' if "," in f else f for f in fields)
PY
printf '# csvlite\n\n`split(line)` splits on commas; fields in double quotes may contain commas.\n\n`join(fields)` quotes fields that contain commas.\n' > docs/usage.md
printf '\n\ndef test_quoted():\n    assert split(%s) == ["a,b", "c"]\n' "'\"a,b\",c'" >> tests/test_csvlite.py
printf 'build/\n' > .gitignore
git add .; c -m "WIP quoted fields, docs, gitignore"
