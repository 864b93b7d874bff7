import subprocess

R = "/app/repo"
REQ = """attrs==23.1.0
click==8.1.7
idna==3.10
jinja2==3.1.10
pyyaml==6.0.1
requests==2.31.0
rich==13.7.0
urllib3==1.26.18
"""
CHANGELOG = "# Changelog\n\n## Unreleased\n\n- pretty output with rich\n- yaml config support\n- initial import\n"


def git(*args):
    r = subprocess.run(["git", "-C", R, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_merge_commit_parents():
    parents = git("log", "-1", "--format=%P", "main").split()
    assert len(parents) == 2
    subjects = [git("log", "-1", "--format=%s", p).strip() for p in parents]
    assert subjects == ["main: rich output, dependency bumps", "feature: yaml config"]
    assert git("rev-parse", "feature").strip() == parents[1]


def test_requirements_resolved_by_rule():
    assert git("show", "main:requirements.txt") == REQ


def test_changelog_resolved_by_rule():
    assert git("show", "main:CHANGELOG.md").strip() == CHANGELOG.strip()


def test_other_files_merged():
    assert "from rich import print" in git("show", "main:app.py")
    assert "yaml.safe_load" in git("show", "main:config.py")


def test_clean_tree_on_main():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
    with open(f"{R}/requirements.txt") as f:
        assert f.read() == REQ
