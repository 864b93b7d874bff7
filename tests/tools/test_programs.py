"""The tool programs run inside the sandbox: the editor, search, and the bash tool's runner.

Each is driven through its pure ``run(args, root)`` with ``tmp_path`` as the workspace, and once end to end through
``main()`` in a subprocess. Files outside the workspace (``outside``) stand for what a hostile workspace would reach
through symlinks; each such test checks they are unchanged.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from codegym.tools import editor, search, shell

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the workspace holding a file, for symlinks to lead to."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("secret\n")
    return folder


def edit(root: Path, **args: Any) -> tuple[str, int]:
    return editor.run(args, str(root))


def find(root: Path, **args: Any) -> tuple[str, int]:
    return search.run(args, str(root))


def sh(root: Path, command: str, **args: Any) -> tuple[str, int]:
    return shell.run({"command": command, **args}, str(root))


def ok(result: tuple[str, int]) -> str:
    text, status = result
    assert status == 0, text
    return text


def fails(result: tuple[str, int], status: int = 1) -> str:
    text, got = result
    assert got == status, text
    assert text.startswith("error: ")
    return text


def main_process(module: str, root: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.argv = ['x']; from codegym.tools import {module}; {module}.main()"
    return subprocess.run(
        [sys.executable, "-c", code], input=stdin, cwd=root, capture_output=True, text=True, timeout=30, check=False
    )


# -- editor: view -----------------------------------------------------------------------------------------------------


def test_view_numbers_lines_like_cat_n(root: Path) -> None:
    (root / "a.py").write_text("def f():\n    return 1\n")
    assert ok(edit(root, command="view", path="a.py")) == "     1\tdef f():\n     2\t    return 1"


def test_view_range(root: Path) -> None:
    (root / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    assert ok(edit(root, command="view", path="a.txt", view_range=[3, 4])) == "     3\tline 3\n     4\tline 4"
    assert ok(edit(root, command="view", path="a.txt", view_range=[9, -1])).splitlines()[-1] == "    10\tline 10"
    text = ok(edit(root, command="view", path="a.txt", view_range=[9, 20]))
    assert "    10\tline 10" in text
    assert text.endswith("[a.txt ends at line 10]")


@pytest.mark.parametrize(
    ("view_range", "message"),
    [
        ([0, 2], "lines are numbered from 1"),
        ([5, 2], "ends before it starts"),
        ([1], "must be two integers"),
        (["1", 2], "must be two integers"),
        ([11, 12], "starts at line 11, but a.txt has only 10 lines"),
    ],
)
def test_view_range_is_validated(root: Path, view_range: object, message: str) -> None:
    (root / "a.txt").write_text("x\n" * 10)
    assert message in fails(edit(root, command="view", path="a.txt", view_range=view_range))


def test_view_directory_two_levels_hidden_left_out(root: Path) -> None:
    (root / "pkg" / "sub" / "deep").mkdir(parents=True)
    (root / "pkg" / "sub" / "deep" / "x.py").write_text("")
    (root / "pkg" / "m.py").write_text("")
    (root / "top.py").write_text("")
    (root / ".hidden").write_text("")
    (root / "pkg" / ".cache").mkdir()
    text = ok(edit(root, command="view", path="."))
    assert text.splitlines()[1:] == ["pkg/", "pkg/m.py", "pkg/sub/", "top.py"]
    assert ok(edit(root, command="view", path="pkg")).splitlines()[1:] == ["pkg/m.py", "pkg/sub/", "pkg/sub/deep/"]
    assert "view_range applies to files only" in fails(edit(root, command="view", path="pkg", view_range=[1, 2]))


def test_view_directory_listing_is_capped(root: Path) -> None:
    for i in range(300):
        (root / f"d{i:03}").mkdir()
        for j in range(5):
            (root / f"d{i:03}" / f"file_with_a_longish_name_{j}.py").write_text("")
    text = ok(edit(root, command="view", path="."))
    assert len(text) < editor.VIEW_CHARS + 500
    assert text.endswith("use the bash tool (ls, find) to see the rest]")


def test_view_special_files(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\x7fELF\0\0\1")
    (root / "empty.txt").write_text("")
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    assert (
        ok(edit(root, command="view", path="blob.bin"))
        == "blob.bin is a binary file (7 bytes); the editor shows text only."
    )
    assert ok(edit(root, command="view", path="empty.txt")) == "empty.txt is empty."
    text = ok(edit(root, command="view", path="latin.txt"))
    assert text == "[the file is not valid UTF-8: undecodable bytes are shown as \ufffd]\n     1\tcaf\ufffd"
    assert "missing.txt does not exist" in fails(edit(root, command="view", path="missing.txt"))


def test_view_of_a_large_file_is_capped_with_a_way_on(root: Path) -> None:
    (root / "big.txt").write_text("".join(f"{i:040}\n" for i in range(1, 5001)))
    text = ok(edit(root, command="view", path="big.txt"))
    rows = text.splitlines()
    assert len(text) <= editor.VIEW_CHARS + 200
    shown = len(rows) - 1
    assert rows[-1] == (
        f"[output cut at {editor.VIEW_CHARS} characters: lines 1-{shown} of 5000 shown; view the rest with "
        f"view_range, e.g. [{shown + 1}, {2 * shown}]]"
    )
    assert rows[-2] == f"{shown:6}\t{shown:040}"
    later = ok(edit(root, command="view", path="big.txt", view_range=[shown + 1, 2 * shown])).splitlines()
    assert later[0] == f"{shown + 1:6}\t{shown + 1:040}"


def test_view_of_one_huge_line_shows_its_start(root: Path) -> None:
    (root / "min.js").write_text("x" * 100_000 + "\nsecond\n")
    text = ok(edit(root, command="view", path="min.js"))
    assert len(text) < editor.VIEW_CHARS + 300
    assert "[... line 1 goes on: 100001 bytes in all]" in text
    assert "view_range, e.g. [2, 2]" in text


# -- editor: create, str_replace, insert ----------------------------------------------------------------------------


def test_create_makes_parents_and_refuses_directories(root: Path) -> None:
    assert (
        ok(edit(root, command="create", path="a/b/c.py", file_text="x = 1\ny = 2\n")) == "Created a/b/c.py (2 lines)."
    )
    assert (root / "a/b/c.py").read_text() == "x = 1\ny = 2\n"
    assert "a/b is a directory" in fails(edit(root, command="create", path="a/b", file_text=""))
    assert "file_text must be a string for command create; it is missing" in fails(
        edit(root, command="create", path="d.py")
    )


def test_create_over_a_file_can_be_undone(root: Path) -> None:
    (root / "a.txt").write_text("old\n")
    text = ok(edit(root, command="create", path="a.txt", file_text="new\nnew\n"))
    assert text == "Overwrote a.txt (2 lines; it had 1 line). undo_edit restores the old content."
    ok(edit(root, command="undo_edit", path="a.txt"))
    assert (root / "a.txt").read_text() == "old\n"


def test_create_refuses_oversized_text(root: Path) -> None:
    text = fails(edit(root, command="create", path="a.txt", file_text="x" * (editor.EDIT_BYTES + 1)))
    assert f"the editor writes at most {editor.EDIT_BYTES} bytes" in text
    assert not (root / "a.txt").exists()


def test_str_replace_edits_and_shows_the_region(root: Path) -> None:
    (root / "a.py").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    text = ok(edit(root, command="str_replace", path="a.py", old_str="line 10\n", new_str="ten\nTEN\n"))
    assert (root / "a.py").read_text().splitlines()[8:12] == ["line 9", "ten", "TEN", "line 11"]
    rows = text.splitlines()
    assert rows[0] == "Edited a.py. Lines 6-15 now read:"
    assert rows[1] == "     6\tline 6"
    assert "    10\tten" in rows
    assert "    11\tTEN" in rows
    assert rows[-1] == "Check that the edit is what you meant; undo_edit reverts it."


def test_str_replace_new_str_defaults_to_deleting(root: Path) -> None:
    (root / "a.py").write_text("keep\ndrop me\nkeep too\n")
    ok(edit(root, command="str_replace", path="a.py", old_str="drop me\n"))
    assert (root / "a.py").read_text() == "keep\nkeep too\n"


def test_str_replace_needs_exactly_one_occurrence(root: Path) -> None:
    (root / "a.py").write_text("x = 1\nx = 1\n    y = 2\naaa\n")
    assert "old_str occurs 2 times in a.py (starting at lines 1, 2)" in fails(
        edit(root, command="str_replace", path="a.py", old_str="x = 1", new_str="x = 3")
    )
    assert "occurs 2 times" in fails(edit(root, command="str_replace", path="a.py", old_str="aa", new_str="b"))
    missing = fails(edit(root, command="str_replace", path="a.py", old_str="  y = 2 ", new_str="y"))
    assert "old_str does not occur in a.py" in missing
    assert "whitespace and indentation" in missing
    assert "without the leading and trailing whitespace does occur" in missing
    assert (root / "a.py").read_text() == "x = 1\nx = 1\n    y = 2\naaa\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"old_str": ""}, "old_str is empty"),
        ({"old_str": "x", "new_str": "x"}, "new_str is the same as old_str"),
        ({"old_str": 3}, "old_str must be a string for command str_replace; not int"),
        ({"new_str": "y"}, "old_str must be a string for command str_replace; it is missing"),
    ],
)
def test_str_replace_arguments(root: Path, args: dict[str, Any], message: str) -> None:
    (root / "a.py").write_text("x\n")
    assert message in fails(edit(root, command="str_replace", path="a.py", **args))


def test_edits_refuse_binary_non_utf8_and_large_files(root: Path) -> None:
    (root / "blob").write_bytes(b"a\0b")
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    (root / "big.txt").write_text("x" * (editor.EDIT_BYTES + 1))
    assert "blob is a binary file" in fails(edit(root, command="str_replace", path="blob", old_str="a"))
    assert "latin.txt is not valid UTF-8 (an undecodable byte at offset 3)" in fails(
        edit(root, command="insert", path="latin.txt", insert_line=0, new_str="x")
    )
    assert f"big.txt is {editor.EDIT_BYTES + 1} bytes" in fails(
        edit(root, command="str_replace", path="big.txt", old_str="x", new_str="y")
    )
    assert "nope.txt does not exist" in fails(edit(root, command="str_replace", path="nope.txt", old_str="a"))


def test_insert_at_top_middle_and_end(root: Path) -> None:
    (root / "a.txt").write_text("one\ntwo")  # no newline at the end
    ok(edit(root, command="insert", path="a.txt", insert_line=0, new_str="zero"))
    ok(edit(root, command="insert", path="a.txt", insert_line=2, new_str="one and a half\n"))
    text = ok(edit(root, command="insert", path="a.txt", insert_line=4, new_str="three"))
    assert (root / "a.txt").read_text() == "zero\none\none and a half\ntwo\nthree\n"
    assert "     5\tthree" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"insert_line": 3, "new_str": "x"},
            "insert_line 3 is out of range: a.txt has 2 lines, so it must be between 0",
        ),
        ({"insert_line": -1, "new_str": "x"}, "insert_line -1 is out of range"),
        ({"insert_line": "1", "new_str": "x"}, "insert_line must be an integer"),
        ({"insert_line": True, "new_str": "x"}, "insert_line must be an integer"),
        ({"insert_line": 1}, "new_str must be a string for command insert; it is missing"),
        ({"insert_line": 1, "new_str": ""}, "new_str is empty"),
    ],
)
def test_insert_arguments(root: Path, args: dict[str, Any], message: str) -> None:
    (root / "a.txt").write_text("a\nb\n")
    assert message in fails(edit(root, command="insert", path="a.txt", **args))
    assert (root / "a.txt").read_text() == "a\nb\n"


def test_edits_keep_the_file_mode(root: Path) -> None:
    script = root / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o751)
    ok(edit(root, command="str_replace", path="run.sh", old_str="hi", new_str="ho"))
    ok(edit(root, command="insert", path="run.sh", insert_line=0, new_str="#!/bin/sh"))
    assert script.stat().st_mode & 0o777 == 0o751
    assert not [p for p in root.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"command": "fly", "path": "a"}, "`command` must be one of view, create, str_replace, insert, undo_edit"),
        ({"command": "view"}, "`path` must be a non-empty string"),
        ({"command": "view", "path": ""}, "`path` must be a non-empty string"),
        ({"command": "view", "path": "a", "old_string": "x"}, "unknown argument(s) 'old_string'"),
    ],
)
def test_editor_arguments(root: Path, args: dict[str, Any], message: str) -> None:
    assert message in fails(editor.run(args, str(root)))


def test_editor_arguments_must_be_an_object(root: Path) -> None:
    assert "must be a JSON object" in fails(editor.run([1, 2], str(root)))  # type: ignore[arg-type]


def test_absolute_paths_inside_the_workspace_work(root: Path) -> None:
    ok(edit(root, command="create", path=str(root / "abs.txt"), file_text="x\n"))
    assert (root / "abs.txt").read_text() == "x\n"


# -- editor: undo ----------------------------------------------------------------------------------------------------


def test_undo_goes_back_several_levels(root: Path) -> None:
    target = root / "a.py"
    ok(edit(root, command="create", path="a.py", file_text="v1\n"))
    ok(edit(root, command="str_replace", path="a.py", old_str="v1", new_str="v2"))
    ok(edit(root, command="insert", path="a.py", insert_line=1, new_str="v3"))
    ok(edit(root, command="create", path="a.py", file_text="v4\n"))
    text = ok(edit(root, command="undo_edit", path="a.py"))
    assert (
        text
        == "Undid the last edit of a.py: restored its previous content (2 lines). 3 earlier edit(s) can still be undone."
    )
    assert target.read_text() == "v2\nv3\n"
    ok(edit(root, command="undo_edit", path="a.py"))
    assert target.read_text() == "v2\n"
    ok(edit(root, command="undo_edit", path="a.py"))
    assert target.read_text() == "v1\n"
    text = ok(edit(root, command="undo_edit", path="a.py"))
    assert text == "Undid the last edit of a.py: it did not exist before, so it was removed."
    assert not target.exists()
    assert "there is no edit of a.py to undo" in fails(edit(root, command="undo_edit", path="a.py"))


def test_undo_is_per_file_and_bounded(root: Path) -> None:
    (root / "a.txt").write_text("0\n")
    (root / "b.txt").write_text("b\n")
    for i in range(editor.UNDO_LEVELS + 5):
        ok(edit(root, command="str_replace", path="a.txt", old_str=f"{i}\n", new_str=f"{i + 1}\n"))
    ok(edit(root, command="str_replace", path="b.txt", old_str="b", new_str="B"))
    for _ in range(editor.UNDO_LEVELS):
        ok(edit(root, command="undo_edit", path="a.txt"))
    assert (root / "a.txt").read_text() == "5\n"
    assert "there is no edit of a.txt to undo" in fails(edit(root, command="undo_edit", path="a.txt"))
    ok(edit(root, command="undo_edit", path="b.txt"))
    assert (root / "b.txt").read_text() == "b\n"


# -- editor: confinement ----------------------------------------------------------------------------------------------


def test_editor_refuses_symlinks_out_of_the_workspace(root: Path, outside: Path) -> None:
    (root / "link.txt").symlink_to(outside / "secret.txt")
    (root / "linkdir").symlink_to(outside)
    (root / "dangling").symlink_to(outside / "new.txt")
    attempts = [
        {"command": "view", "path": "link.txt"},
        {"command": "view", "path": "linkdir"},
        {"command": "create", "path": "link.txt", "file_text": "pwned\n"},
        {"command": "create", "path": "dangling", "file_text": "pwned\n"},
        {"command": "create", "path": "linkdir/new.txt", "file_text": "pwned\n"},
        {"command": "str_replace", "path": "link.txt", "old_str": "secret", "new_str": "pwned"},
        {"command": "insert", "path": "linkdir/secret.txt", "insert_line": 0, "new_str": "pwned"},
        {"command": "undo_edit", "path": "link.txt"},
        {"command": "view", "path": "../outside/secret.txt"},
        {"command": "create", "path": str(outside / "abs.txt"), "file_text": "pwned\n"},
    ]
    for args in attempts:
        assert "resolves to a place outside the workspace" in fails(editor.run(args, str(root))), args
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "secret\n"


def test_a_symlink_inside_the_workspace_edits_its_target(root: Path) -> None:
    (root / "real.txt").write_text("a\n")
    (root / "alias.txt").symlink_to("real.txt")
    ok(edit(root, command="str_replace", path="alias.txt", old_str="a", new_str="b"))
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "b\n"


def test_editor_refuses_the_state_folder(root: Path) -> None:
    ok(edit(root, command="create", path="a.txt", file_text="x\n"))  # makes .codegym/undo
    (root / "sneaky").symlink_to(".codegym")
    for path in (".codegym/undo/x", "sneaky/x", ".codegym"):
        assert "is reserved for the tools' own state" in fails(
            edit(root, command="create", path=path, file_text="x")
        ), path
    assert "reserved" in fails(edit(root, command="undo_edit", path=".codegym/undo"))
    assert "undo/" in ok(edit(root, command="view", path=".codegym"))  # reading it is harmless


def test_a_planted_state_symlink_is_not_followed(root: Path, outside: Path) -> None:
    (root / ".codegym").symlink_to(outside)
    text = fails(edit(root, command="create", path="a.txt", file_text="x\n"))
    assert ".codegym is reserved for the tools and must be a plain directory" in text
    assert not (root / "a.txt").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_editor_main_end_to_end(root: Path) -> None:
    done = main_process("editor", root, json.dumps({"command": "create", "path": "m.py", "file_text": "é\n"}))
    assert (done.returncode, done.stdout) == (0, "Created m.py (1 line).")
    assert (root / "m.py").read_text(encoding="utf-8") == "é\n"
    failed = main_process("editor", root, json.dumps({"command": "view", "path": "nope"}))
    assert failed.returncode == 1
    assert failed.stdout.startswith("error: nope does not exist")
    broken = main_process("editor", root, "{not json")
    assert broken.returncode == 2
    assert broken.stdout.startswith("error: the arguments are not valid JSON")


# -- search -----------------------------------------------------------------------------------------------------------


def test_search_prints_sorted_matches(root: Path) -> None:
    (root / "a").mkdir()
    (root / "a.py").write_text("x = 1\nneedle here\n")
    (root / "a" / "b.py").write_text("needle\r\n")
    (root / "B.txt").write_text("a needle\n")
    assert ok(find(root, pattern=r"need\w+")) == "B.txt:1: a needle\na.py:2: needle here\na/b.py:1: needle"
    assert ok(find(root, pattern="needle", path="a")) == "a/b.py:1: needle"
    assert ok(find(root, pattern="needle", path="a.py")) == "a.py:2: needle here"


def test_search_skips_what_it_should(root: Path, outside: Path) -> None:
    (root / "keep.txt").write_text("secret\n")
    for folder in (".git", ".codegym", "node/.git"):
        (root / folder).mkdir(parents=True)
        (root / folder / "x.txt").write_text("secret\n")
    (root / "blob.bin").write_bytes(b"secret\0")
    (root / "huge.txt").write_text("secret\n" + "x" * search.MAX_FILE_BYTES)
    (root / "linkdir").symlink_to(outside)
    (root / "link.txt").symlink_to(outside / "secret.txt")
    os.mkfifo(root / "fifo")
    rows = ok(find(root, pattern="secret")).splitlines()
    assert rows == ["keep.txt:1: secret", "[1 files over 1 MiB were not searched; use bash (grep)]"]


def test_search_refuses_paths_outside(root: Path, outside: Path) -> None:
    (root / "linkdir").symlink_to(outside)
    for path in ("linkdir", "..", str(outside)):
        assert "resolves to a place outside the workspace" in fails(find(root, pattern="secret", path=path))
    assert "nope does not exist" in fails(find(root, pattern="x", path="nope"))


def test_search_caps_the_matches(root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text("hit\n" * 50)
    rows = ok(find(root, pattern="hit")).splitlines()
    assert len(rows) == search.MAX_MATCHES + 1
    assert rows[99] == "b.txt:50: hit"
    assert rows[-1] == "[... 50 more matches in 1 files not shown; narrow the pattern or the path ...]"


def test_search_shortens_long_lines_around_the_match(root: Path) -> None:
    (root / "min.js").write_text("a" * 5000 + "NEEDLE" + "b" * 5000 + "\n")
    text = ok(find(root, pattern="NEEDLE"))
    assert text.startswith("min.js:1: ...")
    assert "NEEDLE" in text
    assert len(text) <= len("min.js:1: ") + search.LINE_CHARS + 6


def test_search_errors_and_no_matches(root: Path) -> None:
    (root / "a.txt").write_text("x\n")
    assert ok(find(root, pattern="zzz")) == "No matches for 'zzz' in the workspace."
    bad = fails(find(root, pattern="(unclosed"))
    assert "is not a valid Python regular expression: missing ), unterminated subpattern" in bad
    assert "pattern must be a non-empty string" in fails(find(root))
    assert "unknown argument(s) 'regex'" in fails(find(root, pattern="x", regex="x"))


def test_search_walk_is_bounded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "MAX_ENTRIES", 10)
    for i in range(30):
        (root / f"f{i:02}.txt").write_text("hit\n")
    rows = ok(find(root, pattern="hit")).splitlines()
    assert (
        rows[-1]
        == "[the search stopped early: it visited 10 files and folders; the results are incomplete, so search a subfolder]"
    )


def test_search_survives_a_deep_tree(root: Path) -> None:
    folder = root
    for _ in range(300):
        folder = folder / "d"
        folder.mkdir()
    (folder / "x.txt").write_text("deep hit\n")
    assert ok(find(root, pattern="hit")).endswith("/x.txt:1: deep hit")


def test_search_main_end_to_end(root: Path) -> None:
    (root / "a.txt").write_text("hello\n")
    assert main_process("search", root, json.dumps({"pattern": "hel+"})).stdout == "a.txt:1: hello"
    bad = main_process("search", root, json.dumps({"pattern": "["}))
    assert bad.returncode == 1
    assert "not a valid Python regular expression" in bad.stdout


# -- shell ------------------------------------------------------------------------------------------------------------


def logs(root: Path) -> list[str]:
    folder = root / ".codegym" / "output"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def kill(pid: int) -> None:
    """Kill a process a test left running, unless it is gone already (its number could then be someone else's)."""
    if not alive(pid):
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def test_shell_small_output_is_shown_whole_and_not_kept(root: Path) -> None:
    assert sh(root, "echo out; echo err >&2; pwd") == (f"out\nerr\n{os.path.realpath(root)}\n", 0)
    assert sh(root, "true") == ("", 0)
    assert sh(root, "cat") == ("", 0)  # stdin is /dev/null: nothing to wait for
    assert logs(root) == []


def test_shell_exit_status(root: Path) -> None:
    assert sh(root, "echo bye; exit 3") == ("bye\n", 3)
    assert sh(root, "kill -TERM $$")[1] == 128 + signal.SIGTERM


def test_shell_large_output_keeps_head_tail_and_the_log(root: Path) -> None:
    full = "".join(f"{i}\n" for i in range(1, 20001)).encode()
    text, status = sh(root, "seq 1 20000", output_bytes=1000)
    assert status == 0
    head = full[:500].decode()
    marker = f"[... {len(full) - 1000} bytes elided; the full output is in .codegym/output/0001.log ...]"
    assert text == head + ("" if head.endswith("\n") else "\n") + marker + "\n" + full[-500:].decode()
    assert (root / ".codegym/output/0001.log").read_bytes() == full


def test_shell_cuts_at_utf8_boundaries(root: Path) -> None:
    # 2000 bytes of two-byte characters; 51 bytes each side would split one at both cuts
    text, _ = sh(root, "printf 'é%.0s' $(seq 1000)", output_bytes=102)
    marker = "[... 1900 bytes elided; the full output is in .codegym/output/0001.log ...]"
    assert text == "é" * 25 + "\n" + marker + "\n" + "é" * 25


def test_shell_logs_are_numbered_after_the_highest(root: Path) -> None:
    sh(root, "seq 1 1000", output_bytes=10)
    (root / ".codegym/output/0041.log").write_text("")
    text, _ = sh(root, "seq 1 1000", output_bytes=10)
    assert "the full output is in .codegym/output/0042.log" in text
    assert logs(root) == ["0001.log", "0041.log", "0042.log"]


def test_shell_timeout_kills_the_group(root: Path) -> None:
    began = time.monotonic()
    text, status = sh(root, "sleep 30 & echo $!; sleep 5", timeout_s=0.5)
    pid = int(text.splitlines()[0])
    try:
        assert status == shell.TIMEOUT_STATUS
        assert time.monotonic() - began < 4
        assert text.endswith("\n[the command timed out after 0.5 s and was killed]\n")
        deadline = time.monotonic() + 5
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(pid)
    finally:
        kill(pid)


def test_shell_does_not_wait_for_background_processes_it_kills_them(root: Path) -> None:
    began = time.monotonic()
    outcome = shell.execute({"command": "sleep 30 & echo $!", "timeout_s": 20}, str(root))
    pid = int(outcome.text)
    try:
        assert (outcome.status, outcome.timed_out, outcome.background_killed) == (0, False, 1)
        assert time.monotonic() - began < 5
        assert not alive(pid)
    finally:
        kill(pid)


def test_shell_counts_what_escapes_the_session_and_spares_what_a_timeout_killed(root: Path) -> None:
    escaping = "setsid -f sleep 30; (sleep 31 &); nohup sleep 32 >/dev/null 2>&1 & sleep 0.1 & wait $!; echo $$"
    before = children_of(os.getpid())
    outcome = shell.execute({"command": escaping}, str(root))
    assert (outcome.status, outcome.background_killed) == (0, 3)
    assert children_of(os.getpid()) <= before  # (killed and reaped: not even a zombie is left)
    late = shell.execute({"command": "setsid -f sleep 30; sleep 31 & sleep 32", "timeout_s": 0.5}, str(root))
    assert (late.status, late.timed_out, late.background_killed) == (shell.TIMEOUT_STATUS, True, 1)
    assert shell.execute({"command": "sleep 0.1 & wait; exit 124"}, str(root)) == shell.Outcome("", 124)


def children_of(pid: int) -> set[int]:
    folder = Path(f"/proc/{pid}/task")
    return {int(child) for task in folder.iterdir() for child in (task / "children").read_text().split()}


def test_shell_falls_back_to_sh(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert sh(root, "echo $0") == ("/bin/sh\n", 0)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "command must be a non-empty string"),
        ({"command": 3}, "command must be a non-empty string (the shell command to run), not 3"),
        ({"command": "  "}, "command must be a non-empty string"),
        ({"command": "true", "timeout_s": -1}, "timeout_s must be a positive number of seconds, not -1"),
        ({"command": "true", "timeout_s": 0}, "timeout_s must be a positive number"),
        ({"command": "true", "timeout_s": True}, "timeout_s must be a positive number"),
        ({"command": "true", "timeout_s": "5"}, "timeout_s must be a positive number"),
        ({"command": "true", "output_bytes": -5}, "output_bytes must be a non-negative integer"),
        ({"command": "true", "output_bytes": 1.5}, "output_bytes must be a non-negative integer"),
        ({"command": "true", "cwd": "/"}, "unknown argument(s) 'cwd'"),
        ({"command": "echo \0"}, "cannot start the command"),
    ],
)
def test_shell_argument_errors_exit_2(root: Path, args: dict[str, Any], message: str) -> None:
    assert message in fails(shell.run(args, str(root)), status=shell.ARGUMENT_ERROR)
    assert logs(root) == []


def test_shell_refuses_a_planted_state_symlink(root: Path, outside: Path) -> None:
    (root / ".codegym").symlink_to(outside)
    assert "must be a plain directory" in fails(sh(root, "echo hi > made.txt"), status=2)
    assert not (root / "made.txt").exists()
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


def test_shell_main_end_to_end(root: Path) -> None:
    done = main_process("shell", root, json.dumps({"command": "echo hi; exit 3", "timeout_s": 10}))
    assert (done.returncode, done.stdout, done.stderr) == (3, "hi\n", "")
    command = "seq 1 1000; sleep 30 &"
    reported = main_process("shell", root, json.dumps({"command": command, "output_bytes": 100, "report": "f00d"}))
    assert reported.returncode == 0 and "bytes elided" in reported.stdout
    facts = {"timed_out": False, "elided_bytes": 3793, "background_killed": 1}
    assert reported.stderr == f"\nf00d {json.dumps(facts)}\n"  # (the runner's own line, after everything)
    quiet = main_process("shell", root, json.dumps({"command": "true"}))
    assert (quiet.returncode, quiet.stdout) == (0, "")
    broken = main_process("shell", root, "")
    assert broken.returncode == 2
    assert broken.stdout.startswith("error: the arguments are not valid JSON")


def test_shell_survives_the_command_removing_its_log(root: Path) -> None:
    assert sh(root, "echo gone; rm -rf .codegym") == ("gone\n", 0)
    text, status = sh(root, "seq 1 1000; rm -rf .codegym", output_bytes=10)
    assert status == 0
    assert text == "1\n2\n3\n[... 3883 bytes elided; the command removed the log of the full output ...]\n1000\n"
