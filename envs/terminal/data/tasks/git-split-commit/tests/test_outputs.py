import subprocess

R = "/app/repo"
PARENT = "6f6f95b83820302945b87c4d4dce7c23af2ce64d"
FINAL_TREE = "9412f4c172bb47298f75323853ec3da15744f3ec"


def git(*args):
    r = subprocess.run(["git", "-C", R, *args], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout


def changed(commit):
    return sorted(git("diff-tree", "--no-commit-id", "--name-only", "-r", commit).split())


def test_three_commits_on_the_untouched_parent():
    assert git("rev-parse", "main~3").strip() == PARENT
    assert git("rev-list", "--count", "main").strip() == "5"


def test_messages():
    subjects = [git("log", "-1", "--format=%B", f"main~{i}").strip() for i in (2, 1, 0)]
    assert subjects == ["csvlite: quoted fields", "docs: quoted fields", "chore: ignore build output"]


def test_each_commit_holds_only_its_files():
    assert changed("main~2") == ["src/csvlite.py", "tests/test_csvlite.py"]
    assert changed("main~1") == ["docs/usage.md"]
    assert changed("main") == [".gitignore"]


def test_final_tree_identical():
    assert git("rev-parse", "main^{tree}").strip() == FINAL_TREE


def test_clean_checkout():
    assert git("rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    assert git("status", "--porcelain") == ""
