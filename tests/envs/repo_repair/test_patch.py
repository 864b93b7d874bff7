"""The in-memory patcher: unified diffs as agents write them (prefixes or none, moved context,
new and deleted files, missing final newlines, stripped blank context lines), the errors it
raises in words an agent can act on, and a round trip through `source.unified`."""

from __future__ import annotations

import re

import pytest
from codegym.envs.repo_repair.patch import MAX_PATCH_BYTES, PatchError, apply, unapply
from codegym.envs.repo_repair.source import unified

PATH = "pkg/mod.py"
TEXT = "".join(f"line {n}\n" for n in range(1, 21))  # "line 1" ... "line 20"


def lines(*rows: str) -> str:
    """The rows, each ended by a newline (a diff written line by line, so no space is lost)."""
    return "".join(row + "\n" for row in rows)


def numbered(*changes: tuple[int, str | None]) -> str:
    """TEXT with line ``n`` replaced by the given text (None: removed)."""
    rows: list[str | None] = [f"line {n}" for n in range(1, 21)]
    for n, row in changes:
        rows[n - 1] = row
    return lines(*(row for row in rows if row is not None))


def test_one_hunk_changes_a_line() -> None:
    diff = lines(
        f"diff --git a/{PATH} b/{PATH}",
        "index 0123456..789abcd 100644",
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -2,3 +2,3 @@",
        " line 2",
        "-line 3",
        "+line three",
        " line 4",
    )
    files = {PATH: TEXT, "other.py": "x = 1\n"}
    assert apply(diff, files) == {PATH: numbered((3, "line three"))}
    assert files == {PATH: TEXT, "other.py": "x = 1\n"}  # (the input is left alone)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (f"a/{PATH}", f"b/{PATH}"),
        (PATH, PATH),
        (f"a/{PATH}\t2024-01-01 00:00:00.000000000 +0000", f"b/{PATH}\t2024-01-02 00:00:00.000000000 +0000"),
        (f"{PATH}\t2024-01-01 00:00:00", f"{PATH}\t2024-01-02 00:00:00"),
    ],
    ids=["git", "plain", "git-timestamps", "diff-u-timestamps"],
)
def test_paths_with_and_without_prefixes(old: str, new: str) -> None:
    diff = lines(f"--- {old}", f"+++ {new}", "@@ -1,2 +1,2 @@", "-line 1", "+line one", " line 2")
    assert apply(diff, {PATH: TEXT}) == {PATH: numbered((1, "line one"))}


def test_later_hunks_land_after_an_earlier_one_changes_the_line_count() -> None:
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -2,3 +2,6 @@",  # three lines more
        " line 2",
        "+added a",
        "+added b",
        "+added c",
        " line 3",
        " line 4",
        "@@ -9,4 +12,2 @@",  # two lines fewer
        " line 9",
        "-line 10",
        "-line 11",
        " line 12",
        "@@ -18,3 +19,3 @@",
        " line 18",
        "-line 19",
        "+line nineteen",
        " line 20",
    )
    expected = numbered((2, "line 2\nadded a\nadded b\nadded c"), (10, None), (11, None), (19, "line nineteen"))
    assert apply(diff, {PATH: TEXT}) == {PATH: expected}


def test_a_moved_hunk_lands_at_the_nearest_match_and_later_hunks_follow() -> None:
    # Four lines were added at the top since the diff was made: every hunk is 4 lines off.
    shifted = lines("a", "b", "c", "d") + TEXT
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -5,3 +5,3 @@",
        " line 5",
        "-line 6",
        "+line six",
        " line 7",
        "@@ -15,3 +15,3 @@",
        " line 15",
        "-line 16",
        "+line sixteen",
        " line 17",
    )
    assert apply(diff, {PATH: shifted}) == {
        PATH: lines("a", "b", "c", "d") + numbered((6, "line six"), (16, "line sixteen"))
    }


def test_of_two_matching_places_the_nearest_to_the_header_wins() -> None:
    block = lines("x = 1", "y = 2", "z = 3")
    text = lines("top") + block + "".join(lines(f"pad {n}") for n in range(10)) + block + lines("end")
    # The copies start at lines 2 and 15; the header says line 9: the second is 6 lines away, the first 7.
    diff = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -9,3 +9,3 @@", " x = 1", "-y = 2", "+y = 20", " z = 3")
    changed = lines("x = 1", "y = 20", "z = 3")
    expected = lines("top") + block + "".join(lines(f"pad {n}") for n in range(10)) + changed + lines("end")
    assert apply(diff, {PATH: text}) == {PATH: expected}
    # Said to be at line 3, the first copy (one line before) is nearer.
    diff = diff.replace("@@ -9,3 +9,3 @@", "@@ -3,3 +3,3 @@")
    expected = lines("top") + changed + "".join(lines(f"pad {n}") for n in range(10)) + block + lines("end")
    assert apply(diff, {PATH: text}) == {PATH: expected}


def test_new_file() -> None:
    diff = lines(
        "diff --git a/pkg/new.py b/pkg/new.py",
        "new file mode 100644",
        "index 0000000..1234567",
        "--- /dev/null",
        "+++ b/pkg/new.py",
        "@@ -0,0 +1,2 @@",
        "+def f():",
        "+    return 1",
    )
    assert apply(diff, {PATH: TEXT}) == {"pkg/new.py": "def f():\n    return 1\n"}


def test_deleted_file() -> None:
    diff = lines(
        f"diff --git a/{PATH} b/{PATH}",
        "deleted file mode 100644",
        f"--- a/{PATH}",
        "+++ /dev/null",
        "@@ -1,2 +0,0 @@",
        "-x = 1",
        "-y = 2",
    )
    assert apply(diff, {PATH: "x = 1\ny = 2\n", "keep.py": ""}) == {PATH: None}


def test_a_deletion_that_leaves_lines_is_refused() -> None:
    diff = lines(f"--- a/{PATH}", "+++ /dev/null", "@@ -1 +0,0 @@", "-x = 1")
    with pytest.raises(PatchError, match=re.escape(PATH)):
        apply(diff, {PATH: "x = 1\ny = 2\n"})


def test_no_newline_at_end_of_the_old_file() -> None:
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -1,2 +1,2 @@",
        " x = 1",
        "-y = 2",
        "\\ No newline at end of file",
        "+y = 3",
    )
    assert apply(diff, {PATH: "x = 1\ny = 2"}) == {PATH: "x = 1\ny = 3\n"}


def test_no_newline_at_end_of_the_new_file() -> None:
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -1,2 +1,2 @@",
        " x = 1",
        "-y = 2",
        "+y = 3",
        "\\ No newline at end of file",
    )
    assert apply(diff, {PATH: "x = 1\ny = 2\n"}) == {PATH: "x = 1\ny = 3"}


def test_no_newline_at_end_of_either_file() -> None:
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -1,3 +1,3 @@",
        "-x = 1",
        "+x = 2",
        " y = 2",
        " z = 3",
        "\\ No newline at end of file",
    )
    assert apply(diff, {PATH: "x = 1\ny = 2\nz = 3"}) == {PATH: "x = 2\ny = 2\nz = 3"}
    # The old file's last line must lack its newline, as the diff says.
    with pytest.raises(PatchError, match="hunk 1 of 1"):
        apply(diff, {PATH: "x = 1\ny = 2\nz = 3\n"})


def test_two_files_in_one_diff() -> None:
    diff = lines(
        "diff --git a/one.py b/one.py",
        "--- a/one.py",
        "+++ b/one.py",
        "@@ -1 +1 @@",
        "-a = 1",
        "+a = 2",
        "diff --git a/two.py b/two.py",
        "--- a/two.py",
        "+++ b/two.py",
        "@@ -1,2 +1,3 @@",
        " b = 1",
        "+b2 = 1",
        " c = 1",
    )
    files = {"one.py": "a = 1\n", "two.py": "b = 1\nc = 1\n", "three.py": "d = 1\n"}
    assert apply(diff, files) == {"one.py": "a = 2\n", "two.py": "b = 1\nb2 = 1\nc = 1\n"}


def test_an_empty_context_line_whose_space_was_stripped() -> None:
    before = "def f():\n    return 1\n\nx = 1\ny = 2\n"
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -1,5 +1,5 @@",
        " def f():",
        "     return 1",
        "",  # was " " before an editor stripped trailing whitespace
        "-x = 1",
        "+x = 10",
        " y = 2",
    )
    assert apply(diff, {PATH: before}) == {PATH: "def f():\n    return 1\n\nx = 10\ny = 2\n"}


@pytest.mark.parametrize(
    "diff",
    ["", "\n", "I fixed the bug in clamp.\n", f"diff --git a/{PATH} b/{PATH}\n"],
    ids=["empty", "blank", "prose", "header-only"],
)
def test_text_without_a_diff_is_refused(diff: str) -> None:
    with pytest.raises(PatchError, match="no file changes found"):
        apply(diff, {PATH: TEXT})


def test_a_hunk_before_any_file_header_is_refused() -> None:
    with pytest.raises(PatchError, match="line 1: a hunk before any"):
        apply(lines("@@ -1 +1 @@", "-line 1", "+line one"), {PATH: TEXT})


def test_a_hunk_that_does_not_match_names_the_file_the_hunk_and_the_line() -> None:
    diff = lines(
        f"--- a/{PATH}",
        f"+++ b/{PATH}",
        "@@ -2,2 +2,2 @@",
        "-line 2",
        "+line two",
        " line 3",
        "@@ -10,3 +10,3 @@",
        " line 10",
        "-line eleven",  # the file says "line 11"
        "+line 11!",
        " line 12",
    )
    with pytest.raises(PatchError) as caught:
        apply(diff, {PATH: TEXT})
    message = str(caught.value)
    assert f"hunk 2 of 2 for {PATH} does not apply" in message
    assert "line 11 is 'line 11' but the hunk expects 'line eleven'" in message


def test_a_file_that_does_not_exist() -> None:
    diff = lines("--- a/pkg/gone.py", "+++ b/pkg/gone.py", "@@ -1 +1 @@", "-a", "+b")
    with pytest.raises(PatchError, match=re.escape("pkg/gone.py does not exist")):
        apply(diff, {PATH: TEXT})


def test_creating_a_file_that_exists() -> None:
    diff = lines("--- /dev/null", f"+++ b/{PATH}", "@@ -0,0 +1 @@", "+x = 1")
    with pytest.raises(PatchError, match=re.escape(f"{PATH} already exists")):
        apply(diff, {PATH: TEXT})


def test_a_file_changed_after_it_is_deleted_in_the_same_diff() -> None:
    diff = lines(
        f"--- a/{PATH}", "+++ /dev/null", "@@ -1 +0,0 @@", "-x = 1",
        f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1 +1 @@", "-x = 1", "+x = 2",
    )  # fmt: skip
    with pytest.raises(PatchError, match=re.escape(f"{PATH} does not exist")):
        apply(diff, {PATH: "x = 1\n"})


def test_renames_are_refused() -> None:
    diff = lines(
        "diff --git a/old.py b/new.py",
        "similarity index 90%",
        "rename from old.py",
        "rename to new.py",
        "--- a/old.py",
        "+++ b/new.py",
        "@@ -1 +1 @@",
        "-a = 1",
        "+a = 2",
    )
    with pytest.raises(PatchError, match="renames and copies are not supported"):
        apply(diff, {"old.py": "a = 1\n"})


def test_a_pure_rename_is_refused_too() -> None:
    diff = lines(
        "diff --git a/old.py b/new.py",
        "similarity index 100%",
        "rename from old.py",
        "rename to new.py",
        "diff --git a/two.py b/two.py",
        "--- a/two.py",
        "+++ b/two.py",
        "@@ -1 +1 @@",
        "-b = 1",
        "+b = 2",
    )
    with pytest.raises(PatchError, match="rename"):
        apply(diff, {"old.py": "a = 1\n", "two.py": "b = 1\n"})


@pytest.mark.parametrize(
    "body",
    [
        ["Binary files a/data.bin and b/data.bin differ"],
        ["GIT binary patch", "literal 4", "LcmZQzWMT#Y01f~L"],
    ],
    ids=["summary", "git-binary"],
)
def test_binary_patches_are_refused(body: list[str]) -> None:
    diff = lines("diff --git a/data.bin b/data.bin", "index 1234567..89abcde 100644", *body)
    with pytest.raises(PatchError, match="binary patches are not supported"):
        apply(diff, {"data.bin": "\x00\x01"})


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "a//etc/passwd", "../outside.py", "a/../outside.py", "b/pkg/../../outside.py", "pkg/.."],
)
def test_paths_outside_the_repository_are_refused(path: str) -> None:
    diff = lines(f"--- {path}", f"+++ {path}", "@@ -1 +1 @@", "-a", "+b")
    with pytest.raises(PatchError, match="must be relative and inside the repository"):
        apply(diff, {PATH: TEXT})


def test_a_new_file_outside_the_repository_is_refused() -> None:
    diff = lines("--- /dev/null", "+++ b/../evil.py", "@@ -0,0 +1 @@", "+x = 1")
    with pytest.raises(PatchError, match="must be relative"):
        apply(diff, {})


def test_a_hunk_cut_short() -> None:
    diff = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1,3 +1,3 @@", " line 1", "-line 2", "+line two")
    with pytest.raises(PatchError, match=re.escape(f"the last hunk of {PATH} is cut short")):
        apply(diff, {PATH: TEXT})


def test_a_hunk_that_ends_on_a_stray_line() -> None:
    diff = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1,3 +1,3 @@", " line 1", "-line 2", "+line two", "oops")
    with pytest.raises(
        PatchError, match=re.escape("line 7: the hunk ends early (expected ' ', '-' or '+', got 'oops')")
    ):
        apply(diff, {PATH: TEXT})


def test_a_patch_larger_than_the_limit() -> None:
    header = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1 +1 @@", "-line 1")
    diff = header + "+" + "x" * (MAX_PATCH_BYTES - len(header)) + "\n"
    assert len(diff.encode()) > MAX_PATCH_BYTES
    with pytest.raises(PatchError, match=f"more than {MAX_PATCH_BYTES} bytes"):
        apply(diff, {PATH: TEXT})


def test_a_patch_just_under_the_limit_applies() -> None:
    header = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1 +1 @@", "-line 1")
    body = "x" * (MAX_PATCH_BYTES - len(header) - 2)
    diff = header + "+" + body + "\n"
    assert len(diff.encode()) == MAX_PATCH_BYTES
    assert apply(diff, {PATH: TEXT}) == {PATH: body + "\n" + TEXT.split("\n", 1)[1]}


def test_windows_line_ends_in_the_diff_are_read() -> None:
    diff = lines(f"--- a/{PATH}", f"+++ b/{PATH}", "@@ -1 +1 @@", "-line 1", "+line one").replace("\n", "\r\n")
    assert apply(diff, {PATH: TEXT}) == {PATH: numbered((1, "line one"))}


ROUND_TRIPS = {
    "change": ("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n"),
    "insert-at-top": ("a = 1\nb = 2\n", "import os\n\na = 1\nb = 2\n"),
    "append": ("a = 1\n", "a = 1\nb = 2\nc = 3\n"),
    "remove-all": ("a = 1\nb = 2\n", ""),
    "from-empty": ("", "a = 1\n"),
    "old-without-final-newline": ("a = 1\nb = 2", "a = 1\nb = 3\n"),
    "new-without-final-newline": ("a = 1\nb = 2\n", "a = 1\nb = 3"),
    "both-without-final-newline": ("x\ny\nz", "x\nY\nz"),
    "only-the-final-newline": ("a = 1\nb = 2", "a = 1\nb = 2\n"),
    "two-far-hunks": (
        "".join(f"v{n} = {n}\n" for n in range(40)),
        "".join(f"v{n} = {n * 2 if n in (3, 35) else n}\n" for n in range(40) if n != 20),
    ),
    "blank-lines-and-form-feed": ("def f():\n\n    return 1\n\x0c\nx = 1\n", "def f():\n\n    return 2\n\x0c\nx = 1\n"),
}


@pytest.mark.parametrize(("before", "after"), ROUND_TRIPS.values(), ids=ROUND_TRIPS.keys())
def test_round_trip_through_unified(before: str, after: str) -> None:
    assert apply(unified(PATH, before, after), {PATH: before}) == {PATH: after}


def test_round_trip_of_a_file_with_windows_line_ends() -> None:
    before, after = "a = 1\r\nb = 2\r\n", "a = 1\r\nb = 3\r\n"
    assert apply(unified(PATH, before, after), {PATH: before}) == {PATH: after}


# A fix as Debian carries it (DEP-3 header, then the upstream diff of a source and a test file).
FIX = lines(
    "Description: allocate memory for the temporary buffer",
    "Origin: upstream, https://example.org/commit/1",
    "---",
    " src/json.c | 2 +-",
    "",
    "--- a/src/json.c",
    "+++ b/src/json.c",
    "@@ -2,3 +2,4 @@",
    " line 2",
    "-line 3",
    "+line 3 fixed",
    "+line 3b",
    " line 4",
    "--- a/tests/misc.c",
    "+++ b/tests/misc.c",
    "@@ -1 +1 @@",
    "-old check",
    "+new check",
)


def test_a_fix_taken_back_out_of_the_tree_it_was_applied_to_restores_the_bug() -> None:
    buggy = {"src/json.c": TEXT, "tests/misc.c": "old check\n"}
    fixed = {**buggy, **{k: v for k, v in apply(FIX, buggy).items() if v is not None}}
    assert unapply(FIX, fixed, lambda path: path.startswith("src/")) == {"src/json.c": TEXT}
    assert unapply(FIX, fixed, lambda path: True) == buggy


def test_a_fix_made_one_folder_up_is_found_and_one_not_in_the_tree_says_so() -> None:
    up = FIX.replace("a/src/json.c", "json-1.0/src/json.c").replace("b/src/json.c", "json-1.0/src/json.c")
    fixed = {"src/json.c": numbered((3, "line 3 fixed\nline 3b"))}
    assert unapply(up, fixed, lambda path: path.startswith("src/")) == {"src/json.c": TEXT}
    with pytest.raises(PatchError, match="does not apply"):
        unapply(FIX, {"src/json.c": TEXT}, lambda path: path.startswith("src/"))  # (the fix is not in it)
