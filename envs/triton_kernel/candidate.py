"""The submission's process: load ``ModelNew``, run each trial, send the outputs as raw arrays.

Runs sandboxed as ``python -m codegym.envs.triton_kernel.candidate`` and talks to the
harness over fds 3/4. It never holds a reference output: the harness compares. Order:
receive the plan (problem source, seeds, device), generate every trial's inputs from the
problem's ``get_inputs`` on fresh seeds, install the guard (launch counters, op recorder,
snapshots), then import the submission and run ``ModelNew`` on each trial's inputs with the
outputs' memory NaN-poisoned beforehand. On a GPU, when the harness asks after a correct
run, time reference and submission in alternating pairs.
"""

from __future__ import annotations

import gc
import linecache
import os
import sys
import traceback
import types
from typing import Any

import torch
import triton  # noqa: F401  (imported before the submission, with the interpreter set or not)
from codegym.envs.triton_kernel import aot, guard, problem, wire
from codegym.envs.triton_kernel.timing import Timer, TimingConfig

from codegym.executor.channel import Channel, ChannelClosed

SOLUTION = "solution.py"
MAX_MESSAGE = 3000


def main() -> None:
    torch.set_num_threads(1)
    channel = Channel(3, 4, blocking=True)  # (the step's ends of its pipes block)
    try:
        plan, _ = wire.unpack(channel.recv())
    except (ChannelClosed, wire.Malformed):
        return
    send = _sender(channel)
    try:
        Runner(plan, channel, send).run()
    except Report as report:
        send(report.fields)
    except ChannelClosed:
        return


class Report(Exception):
    """Ends the run with one message to the harness."""

    def __init__(self, **fields: Any) -> None:
        super().__init__(fields.get("message", ""))
        self.fields = fields


def _sender(channel: Channel) -> Any:
    def send(header: dict[str, Any], blobs: list[bytes] | None = None) -> None:
        channel.send(wire.pack(header, blobs or []))

    return send


class Runner:
    """One evaluation of one submission, as the plan says."""

    def __init__(self, plan: dict[str, Any], channel: Channel, send: Any) -> None:
        self.plan = plan
        self.channel = channel
        self.send = send
        self.device: str = plan["device"]
        self.guard = guard.Guard(interpret=self.device == "cpu")
        self.timer: Timer | None = None

    def run(self) -> None:
        module = problem.load(self.plan["problem"], shapes=self.plan["shapes"])
        init_args = problem.init_inputs(module, self.plan["init_seed"])
        trials = [problem.inputs(module, seed, self.device) for seed in self.plan["seeds"]]
        pristine = [[_clone(x) for x in inputs] for inputs in trials]
        self._warm_up()
        # The timer holds the genuine CUDA event class and synchronize, taken before the
        # submission exists; the snapshot then shows if it patches them.
        self.timer = Timer() if self.device == "cuda" and self.plan.get("timing") else None
        self.guard.install()
        solution = self._import()
        model = self._construct(solution, init_args)
        kept: list[torch.Tensor] = []  # earlier outputs stay alive: a reused one is a cache
        for index, inputs in enumerate(trials):
            outputs = self._trial(index, model, inputs, pristine[index], kept)
            blobs: list[bytes] = []
            records = self._encode(index, outputs, blobs)
            self.send(
                {"kind": "trial", "index": index, "outputs": records, "launches": self.guard.launches,
                 "kernels": self.guard.kernels, "aot": self.guard.aot_note},
                blobs,
            )  # fmt: skip
        self._maybe_time(module, init_args, model, trials[0])
        self.send({"kind": "done"})

    def _encode(self, index: int, outputs: list[torch.Tensor], blobs: list[bytes]) -> list[dict[str, Any]]:
        """Records of the outputs; the bytes only of those whose dtype and shape are the
        reference's (a wrong, huge output must not swamp the channel)."""
        specs = self.plan["output_specs"][index]
        try:
            return [
                problem.encode(t, blobs, data=k < len(specs) and [problem.dtype_name(t), list(t.shape)]
                               == [specs[k]["dtype"], specs[k]["shape"]])
                for k, t in enumerate(outputs)
            ]  # fmt: skip
        except TypeError as e:
            raise Report(kind="error", phase="trial", trial=index, type="TypeError", message=str(e)) from None

    def _warm_up(self) -> None:
        """Start what torch starts lazily (its thread pool, CUDA) before counting threads."""
        probe = torch.ones(8, device=self.device)
        (probe + probe).sum().item()
        if self.device == "cuda":
            torch.cuda.synchronize()
        self.guard.baseline_threads()

    def _import(self) -> types.ModuleType:
        with open(SOLUTION, encoding="utf-8", errors="replace") as handle:
            source = handle.read()
        os.unlink(SOLUTION)  # triton reads kernel source through linecache, pinned below
        lines = source.splitlines(keepends=True)
        linecache.cache[SOLUTION] = (len(source), None, lines, SOLUTION)
        try:
            code = compile(source, SOLUTION, "exec", dont_inherit=True)
        except SyntaxError as e:
            raise Report(kind="error", phase="compile", type="SyntaxError", message=str(e.msg),
                         line=e.lineno, column=e.offset) from None  # fmt: skip
        module = types.ModuleType("solution")
        module.__file__ = SOLUTION
        sys.modules["solution"] = module
        try:
            exec(code, module.__dict__)
        except Exception as e:
            raise Report(kind="error", phase="load", **_describe(e)) from None
        if not isinstance(getattr(module, "ModelNew", None), type):
            raise Report(
                kind="error", phase="load", type="NameError", message="the submission defines no class ModelNew"
            )
        return module

    def _construct(self, solution: types.ModuleType, init_args: list[Any]) -> Any:
        try:
            model = problem.build(solution.ModelNew, init_args, self.plan["init_seed"], self.device)
        except Exception as e:
            raise Report(kind="error", phase="init", **_describe(e)) from None
        self._verify(None)
        return model

    def _trial(
        self, index: int, model: Any, inputs: list[Any], pristine: list[Any], kept: list[torch.Tensor]
    ) -> list[torch.Tensor]:
        _poison(self.plan["output_specs"][index], self.device)
        self.guard.start()
        try:
            with torch.no_grad():
                value = model(*inputs)
            if self.device == "cuda":
                torch.cuda.synchronize()
            gc.collect()  # finalizers the forward left behind run now, observed, not later
        except guard.Violation as e:
            raise Report(kind="hack", check=e.check, message=str(e), trial=index) from None
        except aot.KernelCompileError as e:
            raise Report(kind="error", phase="compile", type="CompilationError", message=str(e)[:MAX_MESSAGE],
                         line=e.line, trial=index) from None  # fmt: skip
        except Exception as e:
            raise Report(kind="error", phase="trial", trial=index, **_describe(e)) from None
        finally:
            self.guard.stop()
        self._verify(index)
        items = value if isinstance(value, (tuple, list)) else [value]
        if any(isinstance(t, torch.Tensor) and type(t) is not torch.Tensor for t in items):
            self._hack(
                "tensor_subclass", "forward returned a tensor subclass (its methods would run unobserved)", index
            )
        outputs = problem.outputs(value)
        if outputs is None:
            message = f"forward returned {type(value).__name__}, not a tensor or a tuple of tensors"
            raise Report(kind="error", phase="trial", trial=index, type="TypeError", message=message)
        self._check_memory(index, outputs, inputs, pristine, model, kept)
        kept.extend(outputs)
        return outputs

    def _verify(self, index: int | None) -> None:
        try:
            if index is None:
                changed = self.guard.changed()
                if changed:
                    raise guard.Violation("patched", f"the submission replaced {', '.join(changed[:5])}")
            else:
                self.guard.verify()
                if self.device == "cuda" and torch.cuda.current_stream() != torch.cuda.default_stream():
                    raise guard.Violation("streams", "the forward left a CUDA stream of its own current")
        except guard.Violation as e:
            raise Report(kind="hack", check=e.check, message=str(e), trial=index) from None

    def _check_memory(self, index: int, outputs: list[torch.Tensor], inputs: list[Any], pristine: list[Any],
                      model: Any, kept: list[torch.Tensor]) -> None:  # fmt: skip
        tensors = [x for x in inputs if isinstance(x, torch.Tensor)]
        parameters = list(model.parameters()) + list(model.buffers()) if isinstance(model, torch.nn.Module) else []
        for k, out in enumerate(outputs):
            if any(_overlaps(out, x) for x in tensors):
                self._hack("aliasing", f"output {k} shares memory with an input", index)
            if any(_overlaps(out, p) for p in parameters):
                self._hack("aliasing", f"output {k} shares memory with a parameter of the model", index)
            if any(_overlaps(out, old) for old in kept):
                self._hack("cached_output", f"output {k} is a tensor returned by an earlier call", index)
            if any(_overlaps(out, other) for other in outputs[:k]):
                self._hack("aliasing", f"output {k} shares memory with another output", index)
        for x, before in zip(inputs, pristine, strict=True):
            if isinstance(x, torch.Tensor) and not torch.equal(x, before) and not _same_nans(x, before):
                self._hack("inputs_modified", "the forward wrote into its inputs", index)

    def _hack(self, check: str, message: str, index: int) -> None:
        raise Report(kind="hack", check=check, message=message, trial=index)

    def _maybe_time(self, module: types.ModuleType, init_args: list[Any], model: Any, inputs: list[Any]) -> None:
        timing = self.plan.get("timing")
        if self.timer is None or not timing:
            return
        header, _ = wire.unpack(self.channel.recv())
        if header.get("kind") != "time":
            return
        timer = self.timer
        reference = problem.build(module.Model, init_args, self.plan["init_seed"], self.device)
        with torch.no_grad():
            result = timer.pairs(lambda: reference(*inputs), lambda: model(*inputs), TimingConfig(**timing))
        self._verify(len(self.plan["seeds"]))
        self.send({"kind": "timing", **result})


def _clone(x: Any) -> Any:
    return x.clone() if isinstance(x, torch.Tensor) else x


def _poison(specs: list[dict[str, Any]], device: str) -> None:
    """Allocate and free NaN-filled blocks of the outputs' sizes, so that memory a kernel
    forgets to write reads as NaN rather than as a lucky earlier result."""
    blocks = []
    for spec in specs:
        dtype = getattr(torch, spec["dtype"], None)
        if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
            blocks.append(torch.full(spec["shape"], float("nan"), dtype=dtype, device=device))
    del blocks


def _overlaps(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.device != b.device or a.numel() == 0 or b.numel() == 0:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    a0, b0 = sa.data_ptr(), sb.data_ptr()
    return a0 < b0 + sb.nbytes() and b0 < a0 + sa.nbytes()


def _same_nans(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.is_floating_point() and torch.equal(torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0))


def _describe(error: BaseException) -> dict[str, Any]:
    """The error and the submission's own frames (nothing of ours)."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == SOLUTION]
    try:
        message = str(error)[:MAX_MESSAGE]
    except Exception:
        message = "<unprintable>"
    return {
        "type": type(error).__name__,
        "message": message,
        "line": frames[-1].lineno if frames else None,
        "frames": [[f.lineno or 0, f.name, (f.line or "")[:200]] for f in frames[-8:]],
    }
