"""Weightless picture similarity: pure functions of two uint8 ``(H, W, 3)`` arrays.

Each metric is a score in [0, 1], 1 for identical pictures, and each is measured against the
blank canvas where that makes sense: a picture that draws nothing scores 0, not the share of
the canvas that happens to be background. The default reward mixes them (`DEFAULT_WEIGHTS`);
``reward_weights=`` changes the mix, and ``similarity=`` adds a learned one (CLIP, DreamSim)
as a callable the user brings.

- ``pixel``: 1 - RMSE / RMSE(blank), on both pictures averaged down to 32x32 (a shift of a
  pixel or two costs little; a missing shape costs its area).
- ``ssim``: the structural similarity of the grey levels at 64x64 (8x8 windows), rescaled so
  that the blank canvas scores 0.
- ``edges``: the F1 of the two edge maps (colour gradients above a threshold) at 128x128, an
  edge counted as found within one pixel.
- ``colour``: 1 - the CIEDE2000 distance (over 30) between the two palettes (colours at
  128x128, quantized to 4 bits a channel, each weighed by its share of the picture), as an
  earth mover's distance.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
Similarity = Callable[[Image, Image], float]

DEFAULT_WEIGHTS: Mapping[str, float] = {"pixel": 0.25, "ssim": 0.25, "edges": 0.3, "colour": 0.2}
METRICS = ("pixel", "ssim", "edges", "colour")
BACKGROUND = 255  # a canvas is white before anything is drawn
EDGE_THRESHOLD = 24.0  # a colour gradient, in levels a pixel, that counts as an edge
PALETTE_CODES = 4096  # colours quantized to 4 bits a channel
PALETTE_SHARE = 0.002  # colours covering less of a picture are anti-aliasing, not its palette
SSIM_WINDOW = 8  # (pixels a side, at 64 x 64)
DELTA_E_SCALE = 30.0  # a CIEDE2000 distance at which two palettes share nothing


def scores(target: Image | Target, render: Image) -> dict[str, float]:
    """Every metric of ``render`` against ``target`` (same size; a `Target` to reuse what is
    measured of the target from one render to the next)."""
    prepared = target if isinstance(target, Target) else Target(target)
    if prepared.image.shape != render.shape:
        raise ValueError(f"the pictures differ in size: {prepared.image.shape} and {render.shape}")
    features = _Features(render)
    ours, theirs = prepared.features.palette, features.palette
    colour = _palette_distance(prepared.palette_distances(theirs[2]), ours[1], theirs[1])
    return {
        "pixel": _relative(_rmse(prepared.features.small, features.small), prepared.pixel_baseline),
        "ssim": _rescaled(_ssim(prepared.features, features), prepared.ssim_baseline),
        "edges": _f1(prepared.features, features),
        "colour": float(max(0.0, 1.0 - colour / DELTA_E_SCALE)),
    }


class _Features:
    """What the metrics compare of one picture: it averaged down (32x32 RGB, 64x64 grey), its
    edges at 128x128 (and those grown by a pixel), and its palette."""

    def __init__(self, image: Image) -> None:
        half = area_down(image, 128)
        self.small = area_down(half, 32)
        self.grey = _grey(area_down(half, 64))
        # (the SSIM's local means and variances)
        self.grey_mean, squares = _box_means(np.stack([self.grey, self.grey * self.grey]), SSIM_WINDOW)
        self.grey_var = squares - self.grey_mean**2
        self.edges = _edges(half)
        self.grown = _dilate(self.edges)
        self.palette = _palette(half)


class Target:
    """A target picture with what the metrics measure of it, and of the blank canvas against
    it, measured once; and ``record``, what its renderer said was drawn where a family
    compares that too (a chart's `records.Record`, a page's layout)."""

    def __init__(self, image: Image, record: Any = None) -> None:
        self.image = image
        self.record = record
        self.features = _Features(image)
        blank = _Features(np.full_like(image, BACKGROUND))
        self.pixel_baseline = _rmse(self.features.small, blank.small)
        self.ssim_baseline = _ssim(self.features, blank)
        # CIEDE2000 from each of its palette's colours to each colour a render may have, a row
        # per code, filled as renders show them (the same distances every step, and most of
        # the palette distance's cost)
        self._distances = np.zeros((PALETTE_CODES, len(self.features.palette[2])))
        self._known = np.zeros(PALETTE_CODES, dtype=np.bool_)

    def palette_distances(self, codes: NDArray[np.intp]) -> NDArray[np.float64]:
        """The CIEDE2000 distances from this picture's palette colours (rows) to the colours
        ``codes`` (columns; `_palette`'s 4-bit codes)."""
        missing = codes[~self._known[codes]]
        if len(missing):
            lab = _palette_lab()
            found = ciede2000(lab[self.features.palette[2]][:, None, :], lab[missing][None, :, :])
            self._distances[missing] = found.T
            self._known[missing] = True  # (after the rows: a step on another thread reads them only then)
        return self._distances[codes].T


def mixed(components: Mapping[str, float], weights: Mapping[str, float]) -> float:
    """The weighted mean of ``components`` under ``weights`` (their names must match)."""
    unknown = set(weights) - set(components)
    if unknown:
        raise ValueError(f"reward_weights names {sorted(unknown)}; the metrics are {sorted(components)}")
    total = sum(weights.values())
    if total <= 0 or any(w < 0 for w in weights.values()):
        raise ValueError(f"reward_weights must be >= 0 with a positive sum, got {dict(weights)}")
    return float(sum(components[name] * w for name, w in weights.items()) / total)


def is_blank(image: Image, tolerance: int = 8) -> bool:
    """Whether ``image`` is one flat colour (nothing drawn on it, or all of it painted)."""
    # (a channel at a time: numpy reduces a (pixels, 3) array along its long axis 50 times slower)
    return all(int(image[..., c].max()) - int(image[..., c].min()) <= tolerance for c in range(image.shape[-1]))


# --- the metrics ------------------------------------------------------------------------------


def _rescaled(value: float, baseline: float) -> float:
    """An SSIM rescaled so that the blank canvas's scores 0 and a perfect match 1."""
    if baseline >= 1.0:  # (a blank target: only blank matches it)
        return 1.0 if value >= 1.0 else 0.0
    return float(np.clip((value - baseline) / (1.0 - baseline), 0.0, 1.0))


def _f1(ours: _Features, theirs: _Features) -> float:
    a, b = ours.edges, theirs.edges
    found_a, found_b = int(a.sum()), int(b.sum())
    if not found_a and not found_b:
        return 1.0
    if not found_a or not found_b:
        return 0.0
    precision = float((b & ours.grown).sum() / found_b)
    recall = float((a & theirs.grown).sum() / found_a)
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


# --- parts ---------------------------------------------------------------------------------------


def area_down(image: NDArray[np.generic], size: int) -> NDArray[np.float32]:
    """``image`` averaged down to at most ``size`` pixels a side (whole blocks; the rest cut)."""
    height, width = image.shape[:2]
    fy, fx = max(1, height // size), max(1, width // size)
    h, w = height // fy, width // fx
    if fy * fx > 16:  # (large blocks: the rows' sums, then the columns', over 2-D views)
        rest = image.shape[2:]
        channels = int(np.prod(rest)) if rest else 1
        rows = image[: h * fy, : w * fx].reshape(h, fy, w * fx * channels).sum(axis=1, dtype=np.float32)
        blocks = rows.reshape(h, w, fx, channels).sum(axis=2)
        return (blocks * np.float32(1 / (fy * fx))).reshape(h, w, *rest)
    if image.dtype == np.uint8:  # (small blocks of bytes: exact sums in 16 bits, rows first, then columns)
        rows = image[: h * fy : fy, : w * fx].astype(np.uint16)
        for dy in range(1, fy):
            rows += image[dy : h * fy : fy, : w * fx]
        sums = rows[:, ::fx].copy()
        for dx in range(1, fx):
            sums += rows[:, dx::fx]
        return sums * np.float32(1 / (fy * fx))  # (the sums are exact either way: the same floats)
    # (small blocks: strided slices added in place; numpy reduces small axes slowly)
    total = image[: h * fy : fy, : w * fx : fx].astype(np.float32)
    for dy in range(fy):
        for dx in range(fx):
            if dy or dx:
                np.add(total, image[dy : h * fy : fy, dx : w * fx : fx], out=total, casting="unsafe")
    total *= np.float32(1 / (fy * fx))
    return total


def _rmse(a: NDArray[np.floating], b: NDArray[np.floating]) -> float:
    return float(np.sqrt(np.mean((a - b) ** 2)))


def _relative(error: float, baseline: float) -> float:
    if baseline <= 1e-9:  # (a blank target)
        return 1.0 if error <= 1e-9 else 0.0
    return float(np.clip(1.0 - error / baseline, 0.0, 1.0))


def _grey(image: NDArray[np.float32]) -> NDArray[np.float64]:
    return image[..., :3].astype(np.float64) @ np.array([0.299, 0.587, 0.114])


def _box_means(x: NDArray[np.float64], size: int) -> NDArray[np.float64]:
    """Means over every ``size`` x ``size`` window (valid positions only) of each of the
    pictures ``x`` (stacked on the first axis), by integral image."""
    s = np.zeros((x.shape[0], x.shape[1] + 1, x.shape[2] + 1))
    s[:, 1:, 1:] = x
    np.cumsum(s, axis=1, out=s)
    np.cumsum(s, axis=2, out=s)
    total = s[:, size:, size:] - s[:, :-size, size:] - s[:, size:, :-size] + s[:, :-size, :-size]
    return total / (size * size)


def _ssim(ours: _Features, theirs: _Features) -> float:
    """The mean SSIM of the two grey pictures over `SSIM_WINDOW`-wide windows."""
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    ma, mb = ours.grey_mean, theirs.grey_mean
    cov = _box_means((ours.grey * theirs.grey)[None], SSIM_WINDOW)[0] - ma * mb
    value = ((2 * ma * mb + c1) * (2 * cov + c2)) / ((ma * ma + mb * mb + c1) * (ours.grey_var + theirs.grey_var + c2))
    return float(value.mean())


def _edges(image: NDArray[np.floating]) -> NDArray[np.bool_]:
    """Where a channel steps by more than `EDGE_THRESHOLD` to the next pixel down or right."""
    edges = np.zeros(image.shape[:2], dtype=np.bool_)
    down = np.abs(image[1:] - image[:-1]) > EDGE_THRESHOLD
    right = np.abs(image[:, 1:] - image[:, :-1]) > EDGE_THRESHOLD
    edges[:-1] = down[..., 0] | down[..., 1] | down[..., 2]
    edges[:, :-1] |= right[..., 0] | right[..., 1] | right[..., 2]
    return edges


def _dilate(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """``mask`` grown by a pixel in every direction (its 3 x 3 neighbourhoods: rows, then columns)."""
    rows = mask.copy()
    rows[1:] |= mask[:-1]
    rows[:-1] |= mask[1:]
    grown = rows.copy()
    grown[:, 1:] |= rows[:, :-1]
    grown[:, :-1] |= rows[:, 1:]
    return grown


Palette = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]


def _palette(image: NDArray[np.floating]) -> Palette:
    """The picture's colours (CIELAB, quantized to 4 bits a channel), their shares, and their
    codes (``r << 8 | g << 4 | b``, each channel's 4 bits)."""
    codes = (image * np.float32(1 / 16)).astype(np.uint16)  # (x / 16 and x * 1/16 are the same float)
    codes[..., 0] <<= 8
    codes[..., 1] <<= 4
    keys = codes[..., 0] | codes[..., 1]
    keys |= codes[..., 2]
    counts = np.bincount(keys.ravel(), minlength=PALETTE_CODES)
    found = np.flatnonzero(counts)
    shares = counts[found] / counts.sum()
    keep = shares >= PALETTE_SHARE
    found, shares = found[keep], shares[keep] / shares[keep].sum()
    return _palette_lab()[found], shares, found


@functools.cache
def _palette_lab() -> NDArray[np.float64]:
    """The CIELAB colour of each 4-bit code (the middle of its cube), computed once."""
    codes = np.arange(PALETTE_CODES)
    rgb = np.stack([(codes >> 8) & 15, (codes >> 4) & 15, codes & 15], axis=1) * 16 + 8
    return srgb_to_lab(rgb.astype(np.float64))


def _palette_distance(pairs: NDArray[np.float64], shares: NDArray[np.float64], other: NDArray[np.float64]) -> float:
    """How far one palette's ``shares`` must move, in CIEDE2000 (``pairs``, theirs by the
    ``other``'s), to become the other's: an earth mover's distance, matched greedily from the
    closest pair of colours up (so a picture with the right colours on the wrong amounts of
    canvas is off too)."""
    if len(shares) == 0 or len(other) == 0:
        return DELTA_E_SCALE
    left, right = shares.tolist(), other.tolist()  # (Python floats: the same sums, without numpy's scalars)
    cost = pairs.ravel().tolist()
    open_left, open_right = len(left), len(right)  # (the shares not yet moved: all positive)
    total = 0.0
    for flat in np.argsort(pairs, axis=None).tolist():
        i, j = divmod(flat, len(right))
        moved = min(left[i], right[j])
        if moved > 0:
            total += moved * cost[flat]
            left[i] -= moved
            right[j] -= moved
            open_left -= int(left[i] <= 0)
            open_right -= int(right[j] <= 0)
            if not open_left or not open_right:  # (nothing more can move: the same total, sooner)
                break
    return total


def srgb_to_lab(rgb: NDArray[np.float64]) -> NDArray[np.float64]:
    """sRGB (0-255) to CIELAB (D65)."""
    c = rgb / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = linear @ np.array(
        [[0.4124564, 0.2126729, 0.0193339], [0.3575761, 0.7151522, 0.1191920], [0.1804375, 0.0721750, 0.9503041]]
    )
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


def ciede2000(lab1: NDArray[np.float64], lab2: NDArray[np.float64]) -> NDArray[np.float64]:
    """The CIEDE2000 colour difference of CIELAB colours (broadcast; kL = kC = kH = 1)."""
    l1, a1, b1 = lab1[..., 0], lab1[..., 1], lab1[..., 2]
    l2, a2, b2 = lab2[..., 0], lab2[..., 1], lab2[..., 2]
    c_mean = (np.hypot(a1, b1) + np.hypot(a2, b2)) / 2
    g = 0.5 * (1 - np.sqrt(c_mean**7 / (c_mean**7 + 25.0**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = np.hypot(a1p, b1), np.hypot(a2p, b2)
    h1p = np.degrees(np.arctan2(b1, a1p)) % 360
    h2p = np.degrees(np.arctan2(b2, a2p)) % 360
    dl = l2 - l1
    dc = c2p - c1p
    dh = h2p - h1p
    dh = np.where(dh > 180, dh - 360, np.where(dh < -180, dh + 360, dh))
    dh = np.where(c1p * c2p == 0, 0.0, dh)
    dhh = 2 * np.sqrt(c1p * c2p) * np.sin(np.radians(dh / 2))
    l_mean = (l1 + l2) / 2
    cp_mean = (c1p + c2p) / 2
    h_sum = h1p + h2p
    h_mean = np.where(
        c1p * c2p == 0,
        h_sum,
        np.where(np.abs(h1p - h2p) <= 180, h_sum / 2, np.where(h_sum < 360, h_sum / 2 + 180, h_sum / 2 - 180)),
    )
    t = (
        1
        - 0.17 * np.cos(np.radians(h_mean - 30))
        + 0.24 * np.cos(np.radians(2 * h_mean))
        + 0.32 * np.cos(np.radians(3 * h_mean + 6))
        - 0.20 * np.cos(np.radians(4 * h_mean - 63))
    )
    sl = 1 + 0.015 * (l_mean - 50) ** 2 / np.sqrt(20 + (l_mean - 50) ** 2)
    sc = 1 + 0.045 * cp_mean
    sh = 1 + 0.015 * cp_mean * t
    rt = (
        -2
        * np.sqrt(cp_mean**7 / (cp_mean**7 + 25.0**7))
        * np.sin(np.radians(60 * np.exp(-(((h_mean - 275) / 25) ** 2))))
    )
    return np.sqrt((dl / sl) ** 2 + (dc / sc) ** 2 + (dhh / sh) ** 2 + rt * (dc / sc) * (dhh / sh))
