"""Runs /app/organize.sh on fresh trees with awkward names and checks where every file ended up."""

import os
import subprocess

import pytest

SORTED = {
    "IMG_20240315_101500.jpg": "2024/03",
    "IMG_20230809_235959.JPG": "2023/08",
    "VID_20220901_000000.mp4": "2022/09",
    "VID_20221231_120000.MP4": "2022/12",
    "IMG_20240108_070000.Jpg": "2024/01",
}
UNSORTED = [
    "IMG_20241301_000000.jpg",  # month 13
    "IMG_20240015_000000.jpg",  # month 00
    "holiday photo.jpg",
    "-rf",
    "*",
    "IMG_2024031_101500.jpg",
    "img_20240315_101500.jpg",
    "IMG_20240315_101500.png",
    "notes.txt",
    "IMG_20240315_101500.jpg.bak",
]


def run(src, dst) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "/app/organize.sh", str(src), str(dst)], capture_output=True, text=True, timeout=30)


def make_src(root, names):
    src = root / "camera roll"
    src.mkdir()
    for name in names:
        (src / name).write_text(f"content of {name}\n")
    return src


@pytest.fixture
def result(tmp_path):
    src = make_src(tmp_path, list(SORTED) + UNSORTED)
    dst = tmp_path / "sorted photos"
    out = run(src, dst)
    return src, dst, out


def test_exit_status(result):
    assert result[2].returncode == 0, result[2].stderr


def test_moved_files(result):
    src, dst, _ = result
    for name, folder in SORTED.items():
        target = dst / folder / name
        assert target.read_text() == f"content of {name}\n", name
        assert not (src / name).exists(), name


def test_unsorted_stay(result):
    src, _, _ = result
    for name in UNSORTED:
        assert (src / name).read_text() == f"content of {name}\n", name


def test_unsorted_list(result):
    _, dst, _ = result
    assert (dst / "unsorted.txt").read_text() == "".join(f"{n}\n" for n in sorted(UNSORTED, key=os.fsencode))


def test_summary(result):
    assert result[2].stdout.strip().splitlines()[-1] == f"moved {len(SORTED)}, skipped {len(UNSORTED)}"


def test_existing_destination_not_overwritten(tmp_path):
    dst = tmp_path / "out"
    (dst / "2024" / "03").mkdir(parents=True)
    (dst / "2024" / "03" / "IMG_20240315_101500.jpg").write_text("older copy\n")
    (dst / "unsorted.txt").write_text("stale list\n")
    src = make_src(tmp_path, ["IMG_20240315_101500.jpg", "IMG_20240316_101500.jpg"])
    out = run(src, dst)
    assert out.returncode == 0, out.stderr
    assert (dst / "2024" / "03" / "IMG_20240315_101500.jpg").read_text() == "older copy\n"
    assert (src / "IMG_20240315_101500.jpg").exists()
    assert (dst / "2024" / "03" / "IMG_20240316_101500.jpg").exists()
    assert (dst / "unsorted.txt").read_text() == "IMG_20240315_101500.jpg\n"
    assert out.stdout.strip().splitlines()[-1] == "moved 1, skipped 1"


def test_empty_source(tmp_path):
    src = make_src(tmp_path, [])
    dst = tmp_path / "out"
    out = run(src, dst)
    assert out.returncode == 0, out.stderr
    assert (dst / "unsorted.txt").read_text() == ""
    assert out.stdout.strip().splitlines()[-1] == "moved 0, skipped 0"
