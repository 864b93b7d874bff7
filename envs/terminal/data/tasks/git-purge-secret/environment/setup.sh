set -e
export GIT_AUTHOR_NAME="Alice Martin" GIT_AUTHOR_EMAIL="alice@example.com"
export GIT_COMMITTER_NAME="Alice Martin" GIT_COMMITTER_EMAIL="alice@example.com"
T=1700000000
c() { T=$((T + 3600)); GIT_AUTHOR_DATE="@$T +0000" GIT_COMMITTER_DATE="@$T +0000" git commit -q "$@"; }
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
secret() { [ -z "$CLEAN" ]; }
mkdir -p config src
printf 'def run():\n    print("svc")\n' > src/svc.py; git add .; c -m "service skeleton"
printf 'PORT=8080\n' > config/app.env; git add .; c -m "config: port"
printf 'def load():\n    return open("config/app.env").read()\n' > src/conf.py
secret && printf 'PAYMENTS_KEY=pk_live_7Hq2ZxR9vLm4TcW8\n' > config/credentials.env
git add .; c -m "config loader and credentials"
printf 'LOG=info\n' >> config/app.env; git add .; c -m "config: logging"
secret && printf 'PAYMENTS_KEY=pk_live_7Hq2ZxR9vLm4TcW8\nPAYMENTS_SECRET=sk_live_Qm83vNs02LpXe5Ud\n' > config/credentials.env
printf 'def run():\n    print("svc v2")\n' > src/svc.py
git add .; c -m "service v2, payments secret"
git branch staging
printf 'WORKERS=4\n' >> config/app.env; git add .; c -m "config: workers"
secret && git rm -q config/credentials.env
printf 'config/credentials.env\n' > .gitignore
git add .; c -m "stop tracking credentials"
git tag v2.0
printf '# service\n\nCredentials come from the environment.\n' > README.md; git add .; c -m "docs: README"
if secret; then
  git checkout -q staging
  printf 'DEBUG=1\n' >> config/credentials.env; git add .; c -m "staging: debug"
  git checkout -q main
  printf 'PAYMENTS_KEY=pk_live_7Hq2ZxR9vLm4TcW8\nPAYMENTS_SECRET=sk_live_Qm83vNs02LpXe5Ud\n' > config/credentials.env
else
  git checkout -q staging
  c --allow-empty -m "staging: debug"
  git checkout -q main
fi
