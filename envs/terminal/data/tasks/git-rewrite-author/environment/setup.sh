set -e
T=1700000000
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
who() {
  case "$1" in
    alice) echo "Alice Martin|alice@example.com" ;;
    bob) echo "Bob Stone|bob@example.com" ;;
    dev) if [ -n "$REWRITTEN" ]; then echo "Carol Smith|carol@example.com"; else echo "dev|dev@localhost"; fi ;;
  esac
}
# commit AUTHOR COMMITTER MESSAGE
c() {
  T=$((T + 5400))
  local a c
  a=$(who "$1"); c=$(who "$2")
  GIT_AUTHOR_NAME="${a%|*}" GIT_AUTHOR_EMAIL="${a#*|}" GIT_COMMITTER_NAME="${c%|*}" GIT_COMMITTER_EMAIL="${c#*|}" \
    GIT_AUTHOR_DATE="@$T +0100" GIT_COMMITTER_DATE="@$((T + 60)) +0100" git commit -q -m "$3"
}
step() { printf '%s\n' "$2" >> "$1"; git add "$1"; }
step README.md "# todo app"; c alice alice "initial README"
step app.py "TASKS = []"; c alice alice "app: task list"
step app.py "def add(t): TASKS.append(t)"; c dev dev "app: add()"
step app.py "def done(i): TASKS.pop(i)"; c bob alice "app: done()"
step tests.py "from app import add"; c dev dev "tests: start"
step README.md "Usage: python3 app.py"; c alice alice "docs: usage"
step app.py "def count(): return len(TASKS)"; c bob bob "app: count()"
step tests.py "add('x')"; c dev alice "tests: add"
step app.py "VERSION = '1.0'"; c alice alice "release 1.0"
git tag v1.0
step app.py "def clear(): TASKS.clear()"; c dev dev "app: clear()"
git branch release
step README.md "See CHANGES."; c bob bob "docs: changes pointer"
step CHANGES "1.1: clear()"; c dev bob "changes for 1.1"
