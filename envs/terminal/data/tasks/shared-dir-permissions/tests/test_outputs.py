"""Checks the users, groups and /srv/site permissions, by stat and by acting as each user."""

import grp
import os
import pwd
import stat
import subprocess


def as_user(user: str, script: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["runuser", "-u", user, "--", "/bin/sh", "-c", script], capture_output=True, text=True, timeout=20
    )


def owner_mode(path: str) -> tuple[str, str, int]:
    st = os.stat(path)
    return pwd.getpwuid(st.st_uid).pw_name, grp.getgrgid(st.st_gid).gr_name, stat.S_IMODE(st.st_mode)


def groups_of(user: str) -> set[str]:
    out = subprocess.run(["id", "-nG", user], capture_output=True, text=True, timeout=10)
    return set(out.stdout.split())


def test_group_and_users():
    assert grp.getgrnam("webteam").gr_gid == 2500
    for name, uid in [("deploy", 2501), ("alice", 2502), ("auditor", 2503)]:
        entry = pwd.getpwnam(name)
        assert entry.pw_uid == uid
        assert entry.pw_shell == "/bin/bash"
        assert os.path.isdir(entry.pw_dir) and os.stat(entry.pw_dir).st_uid == uid


def test_membership():
    assert "webteam" in groups_of("deploy")
    assert "webteam" in groups_of("alice")
    assert "webteam" not in groups_of("auditor")


def test_modes_and_owners():
    assert owner_mode("/srv/site") == ("root", "webteam", 0o2775)
    assert owner_mode("/srv/site/config") == ("deploy", "webteam", 0o2750)
    assert owner_mode("/srv/site/config/secrets.env") == ("deploy", "webteam", 0o640)
    assert owner_mode("/srv/site/uploads") == ("root", "webteam", 0o3770)


def test_secret_content():
    assert open("/srv/site/config/secrets.env").read() == open("/app/secrets.env").read()


def test_team_reads_secret_auditor_cannot():
    assert as_user("alice", "cat /srv/site/config/secrets.env").returncode == 0
    assert as_user("auditor", "cat /srv/site/config/secrets.env").returncode != 0
    assert as_user("alice", "echo x >> /srv/site/config/secrets.env").returncode != 0


def test_new_files_inherit_group():
    assert as_user("alice", "touch /srv/site/alice-note && mkdir /srv/site/alice-dir").returncode == 0
    assert owner_mode("/srv/site/alice-note")[1] == "webteam"
    assert owner_mode("/srv/site/alice-dir")[1] == "webteam"


def test_uploads_sticky():
    assert as_user("deploy", "echo d > /srv/site/uploads/deploy.txt").returncode == 0
    assert as_user("alice", "echo a > /srv/site/uploads/alice.txt").returncode == 0
    assert owner_mode("/srv/site/uploads/alice.txt")[1] == "webteam"
    assert as_user("alice", "rm -f /srv/site/uploads/deploy.txt").returncode != 0
    assert os.path.exists("/srv/site/uploads/deploy.txt")
    assert as_user("alice", "rm /srv/site/uploads/alice.txt").returncode == 0


def test_uploads_closed_to_others():
    assert as_user("auditor", "ls /srv/site/uploads").returncode != 0
    assert as_user("auditor", "touch /srv/site/uploads/x").returncode != 0
