"""The files of a Triton task's agent workspace: the stub of ``model_new.py`` and the public
check that ``./run_tests`` runs (see `TritonKernelEnv.agent_setup`).

The check runs in the workspace, sandboxed like any command there, with the worker's own
interpreter and the site-packages the family's executor shows (torch, triton, numpy). It
builds ``Model`` (problem.py) and ``ModelNew`` (model_new.py) from one seed, runs both on
the same seeded inputs and compares their outputs as the harness does. Its seeds are not
the graded trials' seeds, and it runs none of the integrity checks: those happen at submit.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

SUBMISSION = "model_new.py"
PROBLEM = "problem.py"
CHECK = "tests/check.py"
RUN_TESTS = "run_tests"
PUBLIC_TRIALS = 2

STUB = '''\
"""ModelNew: problem.py's Model with its forward computed by Triton kernels."""

from __future__ import annotations

import torch
import triton
import triton.language as tl
from torch import nn


class ModelNew(nn.Module):
    def {init}:
        super().__init__()
        # Create the same parameters as Model, in the same order.

    def {forward}:
        raise NotImplementedError("launch Triton kernels here")
'''


def stub(problem_source: str) -> str:
    """A ``model_new.py`` that loads and builds but is no solution: ``ModelNew`` with the
    signatures of the problem's ``Model`` (or ``*args`` where they cannot be copied), whose
    forward raises NotImplementedError."""
    return STUB.format(init=_signature(problem_source, "__init__"), forward=_signature(problem_source, "forward"))


def _signature(source: str, method: str) -> str:
    """``Model.<method>``'s name, parameters and return annotation as source, when every
    default is a literal (one naming a global of the problem would not resolve in
    model_new.py)."""
    fallback = f"{method}(self, *args, **kwargs)" if method == "__init__" else f"{method}(self, *inputs)"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return fallback
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == method:
                    defaults = [*item.args.defaults, *(d for d in item.args.kw_defaults if d is not None)]
                    if all(_literal(d) for d in defaults):
                        returns = f" -> {ast.unparse(item.returns)}" if item.returns else ""
                        return f"{method}({ast.unparse(item.args)}){returns}"
    return fallback


def _literal(node: ast.expr) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def run_tests(python: str, *, interpret: bool) -> str:
    """The ``./run_tests`` script: the public check under ``python`` (an interpreter that
    exists inside the sandbox's view), with Triton's interpreter on when ``interpret``."""
    lines = [
        "#!/bin/sh",
        f"# Compares ModelNew ({SUBMISSION}) with Model ({PROBLEM}) on public seeded inputs: see {CHECK}.",
        "# ./run_tests SEED... uses those seeds instead.",
        "export TRITON_CACHE_DIR=/tmp/triton-cache TRITON_HOME=/tmp/triton-home TORCHINDUCTOR_CACHE_DIR=/tmp",
        "export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1",
        *(["export TRITON_INTERPRET=1"] if interpret else []),
        f'exec {_quote(python)} -s -S -B {CHECK} "$@"',
    ]
    return "\n".join(lines) + "\n"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"


def public_seeds(graded: Iterable[int], count: int = PUBLIC_TRIALS) -> list[int]:
    """``count + 1`` seeds (the first builds the models, the rest make the trials' inputs)
    that none of the graded trials uses."""
    taken = set(graded)
    seeds: list[int] = []
    candidate = 1
    while len(seeds) < count + 1:
        if candidate not in taken:
            seeds.append(candidate)
        candidate += 1
    return seeds


CHECK_SCRIPT = '''\
"""The public check of this workspace (./run_tests runs it; ./run_tests SEED... picks the seeds).

It builds Model (problem.py) and ModelNew (model_new.py) with the RNG seeded alike, runs both
on the same seeded inputs, and compares each output as the grader does: dtype, shape and
strides, then values within atol = rtol (TOLERANCE, by dtype). It also reports a forward
that writes into its inputs or returns one. Exit status 0 when every trial matches.

Passing it is not the grade: at submit, model_new.py is checked against the rules in TASK.md
and run on inputs from seeds this check never uses.
"""

import os
import sys
import traceback

sys.path += {site}
import torch  # noqa: E402
import triton  # noqa: E402, F401  (before model_new, with the interpreter set or not)

DEVICE = {device!r}
SHAPES = {shapes!r}  # module globals of problem.py replaced by the grader's sizes
INIT_SEED = {init_seed!r}
SEEDS = {seeds!r}
TOLERANCE = {tolerance!r}


def as_outputs(value):
    items = list(value) if isinstance(value, (tuple, list)) else [value]
    return items if items and all(isinstance(t, torch.Tensor) for t in items) else None


def build(cls, args):
    torch.manual_seed(INIT_SEED)
    model = cls(*args)
    return model.to(DEVICE).eval() if isinstance(model, torch.nn.Module) else model


def inputs_for(problem, seed):
    torch.manual_seed(seed)
    return [x.to(DEVICE) if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]


def clone(inputs):
    return [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]


def describe(error):
    """The error's traceback from its first frame in the workspace's own code on."""
    report = traceback.TracebackException.from_exception(error)
    frames = list(report.stack)
    root, ours = os.getcwd() + os.sep, os.path.abspath(__file__)
    first = next((i for i, f in enumerate(frames) if f.filename.startswith(root) and f.filename != ours), 0)
    report.stack = traceback.StackSummary.from_list(frames[first:])
    return "".join(report.format()).rstrip()


def shares_memory(a, b):
    if a.device != b.device or a.numel() == 0 or b.numel() == 0:
        return False
    sa, sb = a.untyped_storage(), b.untyped_storage()
    return sa.data_ptr() < sb.data_ptr() + sb.nbytes() and sb.data_ptr() < sa.data_ptr() + sa.nbytes()


def compare(k, got, want):
    """(ok, a line about output k)."""
    dtype = str(want.dtype).removeprefix("torch.")
    for field, a, b in (("dtype", got.dtype, want.dtype), ("shape", list(got.shape), list(want.shape)),
                        ("strides", list(got.stride()), list(want.stride()))):
        if a != b:
            return False, f"output {{k}}: {{field}} {{a}} differs from the reference's {{b}}"
    got, want = got.detach().cpu(), want.detach().cpu()
    tol = TOLERANCE.get(dtype, 0.0)
    if want.is_floating_point():
        a, b = got.double(), want.double()
        close = torch.isclose(a, b, rtol=tol, atol=tol, equal_nan=True)
        finite = torch.where(torch.isfinite(b), b, torch.zeros_like(b)).abs()
        error = torch.where(close & ~torch.isfinite(a - b), torch.zeros_like(a), (a - b).abs()).nan_to_num(
            nan=float("inf"))
    else:
        close = got == want
        a, b = got.double(), want.double()
        finite, error = b.abs(), (a - b).abs()
    rel = error / finite.clamp_min(1e-12)
    bad = int((~close).sum())
    size = f"{{dtype}} {{list(want.shape)}}"
    if not bad:
        worst = f"max abs error {{float(error.max()) if error.numel() else 0.0:.3g}}, max rel error " \\
                f"{{float(rel.max()) if rel.numel() else 0.0:.3g}}"
        return True, f"output {{k}} ({{size}}): matches ({{worst}}; atol = rtol = {{tol:g}})"
    at = tuple(int(i) for i in torch.unravel_index(torch.argmax(error), error.shape))
    return False, (f"output {{k}} ({{size}}): {{bad}} of {{close.numel()}} elements differ beyond atol = rtol = "
                   f"{{tol:g}}; worst at {{list(at)}}: got {{a[at].item():.6g}}, expected {{b[at].item():.6g}}")


def trial(problem, model, candidate, seed):
    """(ok, lines) for one seed."""
    inputs = inputs_for(problem, seed)
    given = clone(inputs)
    with torch.no_grad():
        expected = as_outputs(model(*clone(inputs)))
        value = candidate(*given)
    got = as_outputs(value)
    if got is None:
        return False, [f"forward returned {{type(value).__name__}}, not a tensor or a tuple of tensors"]
    lines = []
    ok = len(got) == len(expected)
    if not ok:
        lines.append(f"{{len(got)}} outputs returned, {{len(expected)}} expected")
    for k, (out, want) in enumerate(zip(got, expected)):
        matched, line = compare(k, out, want)
        ok = ok and matched
        lines.append(line)
        if any(shares_memory(out, x) for x in given if isinstance(x, torch.Tensor)):
            ok = False
            lines.append(f"output {{k}} shares memory with an input (the rules forbid it)")
    for i, (x, before) in enumerate(zip(given, inputs)):
        if isinstance(x, torch.Tensor) and not torch.equal(x.nan_to_num(), before.nan_to_num()):
            ok = False
            lines.append(f"the forward wrote into input {{i}} (the rules forbid it)")
    return ok, lines


def main():
    seeds = [int(arg) for arg in sys.argv[1:]] or SEEDS
    torch.set_num_threads(1)
    sys.path.insert(0, os.getcwd())
    import problem

    vars(problem).update(SHAPES)
    where = "CPU, Triton's interpreter" if os.environ.get("TRITON_INTERPRET") == "1" else DEVICE
    shapes = ", ".join(f"{{k}}={{v}}" for k, v in SHAPES.items())
    print(f"device: {{where}}" + (f"; small shapes: {{shapes}}" if shapes else ""))
    torch.manual_seed(INIT_SEED)
    init_args = list(problem.get_init_inputs())
    model = build(problem.Model, init_args)
    try:
        import model_new

        candidate = build(model_new.ModelNew, init_args)
    except Exception as e:
        print("FAIL: model_new.py did not load, or ModelNew could not be built:")
        print(describe(e))
        return 1
    passed = 0
    for seed in seeds:
        try:
            ok, lines = trial(problem, model, candidate, seed)
        except Exception as e:
            ok, lines = False, [describe(e)]
        passed += ok
        print(f"{{'PASS' if ok else 'FAIL'}} seed {{seed}}")
        print("\\n".join("  " + line for text in lines for line in text.splitlines()))
    print(f"{{passed}} of {{len(seeds)}} public trials passed")
    return 0 if passed == len(seeds) else 1


if __name__ == "__main__":
    sys.exit(main())
'''


def check_script(
    *,
    site: Sequence[str],
    device: str,
    shapes: Mapping[str, Any],
    seeds: Sequence[int],
    tolerance: dict[str, float],
) -> str:
    """The public check's source: ``site`` (folders holding torch and triton in the sandbox's
    view) joins its path; ``shapes`` replace globals of problem.py (the graded sizes);
    ``seeds[0]`` builds the models, the rest make the trials' inputs."""
    return CHECK_SCRIPT.format(
        site=repr(list(site)), device=device, shapes=dict(shapes), init_seed=seeds[0], seeds=list(seeds[1:]),
        tolerance=tolerance,
    )  # fmt: skip
