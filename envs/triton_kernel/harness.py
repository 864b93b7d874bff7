"""The harness: compares the submission's outputs with the reference's, outside its process.

Runs in the job's supervising process (see `codegym.executor.Harness`). It sends the plan,
receives each trial's outputs as raw arrays, decodes them with numpy and checks dtype,
shape, strides and values against the reference outputs that only it holds (tolerances by
dtype), and returns a JSON report for the pure grader. Every frame from the submission is
hostile until `wire.unpack` and `wire.check_record` accepted it.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

import numpy as np
from codegym.envs.triton_kernel import wire

from codegym.executor.channel import Channel, ChannelClosed, ChannelTimeout, ChannelViolation

TOLERANCE = {"float32": 1e-4, "float64": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}  # atol = rtol
MAX_TEXT = 4000


class Gone(Exception):
    """The submission died, hung or broke the protocol."""

    def __init__(self, reason: str, *, violation: bool = False) -> None:
        super().__init__(reason)
        self.violation = violation


def grade(channel: Channel, payload: bytes) -> bytes:
    """Harness entry: ``payload`` is the plan, the reference outputs and the time budget."""
    spec, reference_blobs = wire.unpack(payload)
    deadline = time.monotonic() + float(spec["budget_s"])
    report: dict[str, Any] = {"trials": []}
    try:
        channel.send(wire.pack(spec["plan"]))
        _trials(channel, spec, reference_blobs, deadline, report)
        _finish(channel, spec, deadline, report)
    except Gone as e:
        report["gone"] = {"reason": str(e), "violation": e.violation}
    except ChannelClosed:
        report["gone"] = {"reason": "the submission's process ended", "violation": False}
    return json.dumps(report).encode()


def _receive(channel: Channel, deadline: float) -> tuple[dict[str, Any], list[bytes]]:
    try:
        return wire.unpack(channel.recv(timeout=max(0.0, deadline - time.monotonic())))
    except ChannelClosed as e:
        raise Gone("the submission's process ended before it reported") from e
    except ChannelTimeout as e:
        raise Gone("the submission did not report before the deadline") from e
    except (ChannelViolation, wire.Malformed) as e:
        raise Gone(f"the submission broke the protocol: {e}", violation=True) from e


def _trials(channel: Channel, spec: dict[str, Any], reference_blobs: list[bytes], deadline: float,
            report: dict[str, Any]) -> None:  # fmt: skip
    for index, expected in enumerate(spec["reference"]):
        header, blobs = _receive(channel, deadline)
        kind = header.get("kind")
        if kind in ("error", "hack"):
            report[kind] = _text_fields(header)
            return
        if kind != "trial" or header.get("index") != index or type(header.get("outputs")) is not list:
            raise Gone(f"expected the report of trial {index}, got {str(kind)[:40]!r}", violation=True)
        try:
            got = [wire.check_record(r, blobs) for r in header["outputs"]]
        except wire.Malformed as e:
            raise Gone(f"trial {index}: {e}", violation=True) from e
        report["trials"].append(
            {
                "index": index,
                "outputs": compare(got, blobs, expected, reference_blobs),
                "launches": _int(header.get("launches")),
                "kernels": _kernels(header.get("kernels")),
                "aot": str(header["aot"])[:500] if header.get("aot") else None,
            }
        )


def _finish(channel: Channel, spec: dict[str, Any], deadline: float, report: dict[str, Any]) -> None:
    if "error" in report or "hack" in report:
        return
    plan = spec["plan"]
    if plan["device"] == "cuda" and plan.get("timing"):
        correct = all(o["ok"] for t in report["trials"] for o in t["outputs"])
        channel.send(wire.pack({"kind": "time" if correct else "stop"}))
    while True:
        header, _ = _receive(channel, deadline)
        kind = header.get("kind")
        if kind == "done":
            return
        if kind in ("error", "hack"):
            report[kind] = _text_fields(header)
            return
        if kind == "timing":
            report["timing"] = timing_fields(header)
            continue
        raise Gone(f"unexpected message {str(kind)[:40]!r}", violation=True)


def timing_fields(header: dict[str, Any]) -> dict[str, float]:
    """The known timing fields, finite and non-negative; nothing else (no metric of the
    grade can be set from the submission's process)."""
    timing = {}
    for key in wire.TIMING_KEYS:
        value = header.get(key)
        if type(value) in (int, float) and math.isfinite(value) and value >= 0:
            timing[key] = float(value)
    return timing


def decode(record: dict[str, Any], blobs: list[bytes]) -> np.ndarray:
    """The values of a checked record, as float64 (or int64 / bool) numpy array."""
    dtype = record["dtype"]
    raw = blobs[record["blob"]]
    if dtype == "bfloat16":
        bits = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
        values = bits.view(np.float32).astype(np.float64)
    else:
        values = np.frombuffer(raw, dtype=np.dtype(dtype))
        values = values.astype(np.float64) if values.dtype.kind == "f" else values
    return values.reshape(record["shape"])


def compare(got: list[dict[str, Any]], blobs: list[bytes], expected: list[dict[str, Any]],
            reference_blobs: list[bytes]) -> list[dict[str, Any]]:  # fmt: skip
    """One verdict per expected output: dtype, shape, strides, then values."""
    results = []
    for k, want in enumerate(expected):
        if k >= len(got):
            results.append(
                {"ok": False, "problem": f"output {k} is missing ({len(got)} returned, {len(expected)} expected)"}
            )
            continue
        results.append(_compare_one(k, got[k], blobs, want, reference_blobs))
    if len(got) > len(expected):
        results.append({"ok": False, "problem": f"{len(got)} outputs returned, {len(expected)} expected"})
    return results


def _compare_one(k: int, got: dict[str, Any], blobs: list[bytes], want: dict[str, Any],
                 reference_blobs: list[bytes]) -> dict[str, Any]:  # fmt: skip
    for field in ("dtype", "shape", "strides"):
        if got[field] != want[field]:
            return {
                "ok": False,
                "problem": f"output {k}: {field} {got[field]} differs from the reference's {want[field]}",
            }
    if got["blob"] < 0:
        return {"ok": False, "problem": f"output {k}: no values were sent"}
    a, b = decode(got, blobs), decode(want, reference_blobs)
    tolerance = TOLERANCE.get(want["dtype"], 0.0)
    if a.dtype.kind != "f":
        close = a == b
        error = np.abs(a.astype(np.float64) - b.astype(np.float64))
        rel = error / np.maximum(np.abs(b.astype(np.float64)), 1e-12)
    else:
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & (a == b)
        with np.errstate(invalid="ignore", over="ignore"):
            error = np.where(both_nan | same_inf, 0.0, np.abs(a - b))
            error = np.where(np.isnan(error), np.inf, error)
            close = error <= tolerance + tolerance * np.abs(np.where(np.isfinite(b), b, 0.0))
            rel = error / np.maximum(np.abs(np.where(np.isfinite(b), b, 0.0)), 1e-12)
    mismatched = int(close.size - int(np.count_nonzero(close)))
    result = {
        "ok": mismatched == 0,
        "max_abs": float(error.max()) if error.size else 0.0,
        "max_rel": float(rel.max()) if rel.size else 0.0,
        "mismatched": mismatched,
        "elements": int(close.size),
        "atol": tolerance,
        "rtol": tolerance,
    }
    if mismatched:
        where = np.unravel_index(int(np.argmax(error)), error.shape) if error.ndim else ()
        result["worst"] = {"index": [int(i) for i in where], "got": _num(a[where]), "expected": _num(b[where])}
    return result


def _num(value: Any) -> float | str:
    number = float(value)
    return number if np.isfinite(number) else str(number)


def _text_fields(header: dict[str, Any]) -> dict[str, Any]:
    """The string and int fields of an error or hack message, bounded."""
    fields: dict[str, Any] = {}
    for key in ("phase", "type", "message", "check"):
        if isinstance(header.get(key), str):
            fields[key] = header[key][:MAX_TEXT]
    for key in ("line", "column", "trial"):
        if type(header.get(key)) is int:
            fields[key] = header[key]
    frames = header.get("frames")
    if type(frames) is list:
        fields["frames"] = [
            [f[0], str(f[1])[:100], str(f[2])[:200]]
            for f in frames[:8]
            if type(f) is list and len(f) == 3 and type(f[0]) is int
        ]
    return fields


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def _kernels(value: Any) -> dict[str, int]:
    if type(value) is not dict:
        return {}
    return {str(k)[:80]: v for k, v in list(value.items())[:32] if type(v) is int}
