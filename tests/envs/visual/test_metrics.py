"""The picture metrics: the values they gave on bundled pictures before the step was made
faster, the fast paths against their plain definitions, and the render frame's decoding."""

from __future__ import annotations

import zlib
from collections.abc import Iterator

import numpy as np
import pytest
from codegym.envs.visual import grader, metrics, render
from codegym.envs.visual.env import SVGFromImageEnv

# metrics.scores of a bundled target against a picture made from it (``roll``: shifted 2 px
# down and 3 left; ``half``: its lower half blanked; ``swap``: red and blue swapped), as the
# metrics gave them before the SVG step was made faster (issue 33). Only the float32 rounding
# of the pixel metric's mean moved (by under 1e-7), with the decoded picture's memory layout.
PINNED = {
    ("icon-house", "roll"): (0.833686470317086, 0.6529487996591125, 0.8706466070604575, 0.9870589873633877),
    ("icon-house", "half"): (0.14145732822046342, 0.3834449691017616, 0.4284340859431901, 0.5457191737452488),
    ("icon-house", "swap"): (0.33147088966028715, 0.9290349956666842, 1.0, 0.39009701168705735),
    ("medium-05", "roll"): (0.7997127446835798, 0.763007877990842, 0.8866488199077033, 0.9993248384436249),
    ("medium-05", "half"): (0.5574744173748102, 0.5835540009770251, 0.6990842477025363, 0.9418360549430308),
    ("medium-05", "swap"): (0.1762722924996648, 0.9640019901036412, 1.0, 0.6912590092419952),
    ("hard-03", "roll"): (0.7803975384061679, 0.7288379573989527, 0.9453186715843027, 0.9985294319412824),
    ("hard-03", "half"): (0.1717930653689792, 0.3748546352217105, 0.5310111372006774, 0.736098780754343),
    ("hard-03", "swap"): (0.454572635864105, 0.9460411883758637, 1.0, 0.732835333045007),
}
CANVASES = [(256, 256), (300, 400), (53, 37), (1024, 768)]


@pytest.fixture(scope="module")
def env() -> Iterator[SVGFromImageEnv]:
    made = SVGFromImageEnv()
    yield made
    made.close()


def _variant(image: np.ndarray, how: str) -> np.ndarray:
    if how == "roll":
        return np.roll(image, (2, -3), axis=(0, 1))
    if how == "half":
        return np.where(np.arange(image.shape[0])[:, None, None] < image.shape[0] // 2, image, 255).astype(np.uint8)
    return np.ascontiguousarray(image[..., ::-1])


@pytest.mark.parametrize(("task", "how"), sorted(PINNED))
def test_bundled_pictures_score_what_they_scored_before(env: SVGFromImageEnv, task: str, how: str) -> None:
    target = env.target(env.tasks.get(f"codegym-svg/{task}"))
    scores = metrics.scores(target, _variant(target.image, how))
    assert [scores[name] for name in metrics.METRICS] == pytest.approx(PINNED[task, how], abs=1e-6)


def test_a_target_scores_the_same_from_its_cache_and_fresh(env: SVGFromImageEnv) -> None:
    """The target's cached palette distances give what a fresh `Target` gives, step after step."""
    target = env.target(env.tasks.get("codegym-svg/hard-03"))
    pictures = [_variant(target.image, how) for how in ("roll", "half", "swap", "roll")]
    for picture in pictures:
        assert metrics.scores(target, picture) == metrics.scores(metrics.Target(target.image), picture)


def _pictures(height: int, width: int, seed: int) -> np.ndarray:
    """A picture with flat regions, hard edges and noise (every path of the metrics runs)."""
    rng = np.random.default_rng(seed)
    picture = np.full((height, width, 3), 255, dtype=np.uint8)
    for _ in range(6):
        y, x = rng.integers(0, height), rng.integers(0, width)
        picture[y : y + height // 3, x : x + width // 4] = rng.integers(0, 256, 3)
    noisy = rng.random((height, width)) < 0.05
    picture[noisy] = rng.integers(0, 256, (int(noisy.sum()), 3))
    return picture


@pytest.mark.parametrize(("height", "width"), CANVASES)
def test_area_down_of_bytes_is_the_block_mean(height: int, width: int) -> None:
    picture = _pictures(height, width, 0)
    for size in (128, 64, 32, 16):
        fy, fx = max(1, height // size), max(1, width // size)
        h, w = height // fy, width // fx
        sums = picture[: h * fy, : w * fx].reshape(h, fy, w, fx, 3).sum(axis=(1, 3), dtype=np.int64)
        expected = sums.astype(np.float32) * np.float32(1 / (fy * fx))
        assert np.array_equal(metrics.area_down(picture, size), expected), size


def _edges_by_definition(image: np.ndarray) -> np.ndarray:
    dy = np.abs(np.diff(image, axis=0, append=image[-1:]))
    dx = np.abs(np.diff(image, axis=1, append=image[:, -1:]))
    return np.maximum(dx, dy).max(axis=2) > metrics.EDGE_THRESHOLD


def _dilated_by_definition(mask: np.ndarray) -> np.ndarray:
    padded = np.pad(mask, 1)
    return np.any([padded[dy : dy + mask.shape[0], dx : dx + mask.shape[1]] for dy in range(3) for dx in range(3)], 0)


@pytest.mark.parametrize(("height", "width"), CANVASES)
def test_edges_and_their_growth_are_as_defined(height: int, width: int) -> None:
    half = metrics.area_down(_pictures(height, width, 1), 128)
    edges = metrics._edges(half)
    assert edges.any() and np.array_equal(edges, _edges_by_definition(half))
    assert np.array_equal(metrics._dilate(edges), _dilated_by_definition(edges))


def test_palette_codes_and_distances_are_as_defined() -> None:
    ours, theirs = _pictures(256, 256, 2), _pictures(256, 256, 3)
    target = metrics.Target(ours)
    lab, shares, codes = metrics._Features(theirs).palette
    rgb = np.stack([(codes >> 8) & 15, (codes >> 4) & 15, codes & 15], axis=1) * 16 + 8
    assert np.allclose(lab, metrics.srgb_to_lab(rgb.astype(np.float64)), rtol=0, atol=1e-9)
    assert shares.sum() == pytest.approx(1.0) and (shares >= metrics.PALETTE_SHARE).all()
    direct = metrics.ciede2000(target.features.palette[0][:, None, :], lab[None, :, :])
    for _ in range(2):  # (computed, then from the cache)
        assert np.allclose(target.palette_distances(codes), direct, rtol=0, atol=1e-9)


# --- the frame ----------------------------------------------------------------------------------


def _frame(nonce: str, width: int, height: int, bgra: bytes) -> bytes:
    return render.frame(nonce, width, height, bgra)


def test_a_frame_decodes_to_a_contiguous_rgb_picture() -> None:
    bgra = np.random.default_rng(4).integers(0, 256, (30, 20, 4), dtype=np.uint8)
    picture = grader.decode(b"noise\n" + _frame("n1", 20, 30, bgra.tobytes()), "n1", 20, 30)
    assert picture is not None and picture.flags.c_contiguous and picture.flags.writeable
    assert np.array_equal(picture, bgra[..., [2, 1, 0]])


def test_a_frame_of_the_wrong_size_nonce_or_length_is_no_picture() -> None:
    bgra = bytes(20 * 30 * 4)
    assert grader.decode(_frame("n1", 20, 30, bgra), "n2", 20, 30) is None  # (not this step's)
    assert grader.decode(_frame("n1", 20, 30, bgra), "n1", 30, 20) is None
    assert grader.decode(_frame("n1", 20, 30, bgra)[:-5], "n1", 20, 30) is None  # (cut short)
    packer = zlib.compressobj(1, zlib.DEFLATED, render.DEFLATE_BITS)
    bomb = packer.compress(bytes(1 << 24)) + packer.flush()  # (inflates far past the picture)
    header = b"%s n1 20 30 %d\n" % (render.FRAME, len(bomb))
    assert grader.decode(header + bomb, "n1", 20, 30) is None


def test_render_workers_rehearse_a_step(env: SVGFromImageEnv) -> None:
    """Each worker rehearses a render once, so that its spares copy ahead the pages a render
    step writes (see `codegym.executor.Job.preload`)."""
    env.reset(options={"task_id": "codegym-svg/icon-house"})  # (the env's preload, render's among it, now set)
    workers = env.executor._pool  # type: ignore[attr-defined]
    for worker in workers:  # (a pool starts its workers as jobs come: start each, whatever ran before)
        worker.ensure_started()
    assert all(render.__name__ in worker.rehearsed for worker in workers)  # (the shared pool's others rehearse too)
