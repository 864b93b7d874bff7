set -e
export GIT_AUTHOR_NAME="Alice Martin" GIT_AUTHOR_EMAIL="alice@example.com"
export GIT_COMMITTER_NAME="Alice Martin" GIT_COMMITTER_EMAIL="alice@example.com"
T=1700000000
c() { T=$((T + 3600)); GIT_AUTHOR_DATE="@$T +0000" GIT_COMMITTER_DATE="@$T +0000" git commit -q "$@"; }
git init -q -b main "$1"
cd "$1"
git config user.name "Alice Martin"; git config user.email alice@example.com
cat > requirements.txt <<'R'
attrs==22.2.0
click==8.1.3
idna==3.4
jinja2==3.1.2
requests==2.28.1
urllib3==1.26.12
R
printf '# Changelog\n\n## Unreleased\n\n- initial import\n' > CHANGELOG.md
printf 'print("app")\n' > app.py
git add .; c -m "initial"
git checkout -q -b feature
cat > requirements.txt <<'R'
attrs==22.2.0
click==8.1.7
idna==3.10
jinja2==3.1.2
pyyaml==6.0.1
requests==2.28.1
urllib3==1.26.9
R
printf '# Changelog\n\n## Unreleased\n\n- yaml config support\n- initial import\n' > CHANGELOG.md
printf 'import yaml\n\n\ndef load(p):\n    return yaml.safe_load(open(p))\n' > config.py
git add .; c -m "feature: yaml config"
git checkout -q main
cat > requirements.txt <<'R'
attrs==23.1.0
click==8.1.3
idna==3.4
jinja2==3.1.10
requests==2.31.0
rich==13.7.0
urllib3==1.26.18
R
printf '# Changelog\n\n## Unreleased\n\n- pretty output with rich\n- initial import\n' > CHANGELOG.md
printf 'from rich import print\n\nprint("app")\n' > app.py
git add .; c -m "main: rich output, dependency bumps"
