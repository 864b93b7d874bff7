"""DafnyBench as it is published, and the Dafny its files are written in: Boogie's names for
``_`` names, clauses ended by ``;``, the ``hints_removed/<stem>_no_hints.dfy`` files, and a
file that cannot be read costing only its own task. Verdicts are compared with bare
``dafny /compile:0`` on the same files."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from codegym.envs.dafny import gate, grader
from codegym.envs.dafny.env import DafnyEnv
from codegym.envs.dafny.program import assemble, declarations, strip_hints
from codegym.envs.dafny.tasks import load_tasks

import codegym
from codegym.batch import Scorer
from codegym.executor.local import LocalExecutor
from codegym.grade import Status
from codegym.verifier import GateReport, check
from codegym.verifier.dafny import LIMITS, Dafny, source_name

# Programs in DafnyBench's style (written for these tests): ``_`` in names, clauses ended by
# ``;``, a class, several procedures each.
LINEAR_SEARCH = """\
// Linear search over an array, and a membership test built on it.
predicate is_present(a: seq<int>, key: int)
{
  exists i :: 0 <= i < |a| && a[i] == key
}

method linear_search(a: array<int>, key: int) returns (index: int)
  ensures -1 <= index < a.Length;
  ensures 0 <= index ==> a[index] == key;
  ensures index == -1 ==> forall k :: 0 <= k < a.Length ==> a[k] != key;
{
  index := 0;
  while index < a.Length
    invariant 0 <= index <= a.Length;
    invariant forall k :: 0 <= k < index ==> a[k] != key;
    decreases a.Length - index;
  {
    if a[index] == key {
      return;
    }
    index := index + 1;
  }
  index := -1;
}

method contains_key(a: array<int>, key: int) returns (found: bool)
  ensures found <==> is_present(a[..], key);
{
  var index := linear_search(a, key);
  found := index >= 0;
  if found {
    assert a[..][index] == key;
  }
}
"""
SUM_TO_N = """\
// The sum 0 + 1 + ... + n, computed by a loop and proved equal to n(n+1)/2.
function sum_up(n: nat): nat
  decreases n;
{
  if n == 0 then 0 else n + sum_up(n - 1)
}

lemma sum_formula_(n: nat)
  ensures 2 * sum_up(n) == n * (n + 1);
  decreases n;
{
  if n > 0 {
    sum_formula_(n - 1);
  }
}

method compute__sum(n: nat) returns (s: nat)
  ensures s == sum_up(n);
  ensures 2 * s == n * (n + 1);
{
  s := 0;
  var i := 0;
  while i < n
    invariant 0 <= i <= n;
    invariant s == sum_up(i);
    decreases n - i;
  {
    i := i + 1;
    s := s + i;
  }
  sum_formula_(n);
}
"""
REVERSE = """\
// Reversing an array in place, and a check that an array is a palindrome.
predicate is_reverse(a: array<int>, b: seq<int>)
  reads a;
{
  a.Length == |b| && forall k :: 0 <= k < a.Length ==> a[k] == b[|b| - 1 - k]
}

method reverse_in_place(a: array<int>)
  modifies a;
  ensures is_reverse(a, old(a[..]));
{
  var lo, hi := 0, a.Length - 1;
  while lo < hi
    invariant 0 <= lo <= a.Length && hi == a.Length - 1 - lo;
    invariant forall k :: 0 <= k < lo ==> a[k] == old(a[a.Length - 1 - k]);
    invariant forall k :: hi < k < a.Length ==> a[k] == old(a[a.Length - 1 - k]);
    invariant forall k :: lo <= k <= hi ==> a[k] == old(a[k]);
    decreases hi - lo;
  {
    a[lo], a[hi] := a[hi], a[lo];
    lo, hi := lo + 1, hi - 1;
  }
}

method is_palindrome(a: array<int>) returns (yes: bool)
  ensures yes <==> forall k :: 0 <= k < a.Length ==> a[k] == a[a.Length - 1 - k];
{
  var i := 0;
  while i < a.Length / 2
    invariant 0 <= i <= a.Length / 2;
    invariant forall k :: 0 <= k < i ==> a[k] == a[a.Length - 1 - k];
  {
    if a[i] != a[a.Length - 1 - i] {
      return false;
    }
    i := i + 1;
  }
  yes := true;
}
"""
BANK = """\
// A bank account whose balance never goes negative, and a transfer between two of them.
class Bank_Account {
  var balance_: nat;

  constructor open_account(initial: nat)
    ensures balance_ == initial;
  {
    balance_ := initial;
  }

  method deposit_funds(amount: nat)
    modifies this;
    ensures balance_ == old(balance_) + amount;
  {
    balance_ := balance_ + amount;
  }

  method withdraw_funds(amount: nat) returns (ok: bool)
    modifies this;
    ensures ok ==> amount <= old(balance_) && balance_ == old(balance_) - amount;
    ensures !ok ==> balance_ == old(balance_);
  {
    if amount <= balance_ {
      balance_ := balance_ - amount;
      ok := true;
    } else {
      ok := false;
    }
  }
}

method transfer_between(from: Bank_Account, to: Bank_Account, amount: nat) returns (ok: bool)
  requires from != to;
  modifies from, to;
  ensures ok ==> from.balance_ + to.balance_ == old(from.balance_) + old(to.balance_);
  ensures !ok ==> from.balance_ == old(from.balance_) && to.balance_ == old(to.balance_);
{
  ok := from.withdraw_funds(amount);
  if ok {
    to.deposit_funds(amount);
  }
}

lemma total_is_kept_(x: nat, y: nat, amount: nat)
  requires amount <= x;
  ensures (x - amount) + (y + amount) == x + y;
{
}

/* An earlier version, left unclosed as some DafnyBench files leave theirs (Dafny reads to the end):
lemma total_is_kept_wrong(x: nat, y: nat)
  ensures false;
"""
# DafnyBench's own hints-removed files differ from `strip_hints`: here they keep header
# ``decreases`` clauses and the blank lines a removal leaves.
NO_HINTS = {
    "linear_search": LINEAR_SEARCH.replace("    invariant 0 <= index <= a.Length;\n", "\n")
    .replace("    invariant forall k :: 0 <= k < index ==> a[k] != key;\n", "")
    .replace("    decreases a.Length - index;\n", "")
    .replace("    assert a[..][index] == key;\n", ""),
    "sum_to_n": SUM_TO_N.replace("    invariant 0 <= i <= n;\n    invariant s == sum_up(i);\n", "\n").replace(
        "    decreases n - i;\n", ""
    ),
    "reverse_array": re.sub(r"    invariant [^\n]*\n", "", REVERSE),
}
PROGRAMS = {"linear_search": LINEAR_SEARCH, "sum_to_n": SUM_TO_N, "reverse_array": REVERSE, "bank_account": BANK}
BROKEN = "broken_merge"  # (a file cut short inside a comment in a body: Dafny cannot parse it either)


def dafnybench(root: Path) -> Path:
    """A clone of DafnyBench in its layout (``DafnyBench/dataset/{ground_truth,hints_removed}``)
    holding the programs above, and one file that does not lex. Returns the clone's root."""
    dataset = root / "DafnyBench" / "dataset"
    (dataset / "ground_truth").mkdir(parents=True)
    (dataset / "hints_removed").mkdir()
    for stem, program in PROGRAMS.items():
        (dataset / "ground_truth" / f"{stem}.dfy").write_text(program)
    (dataset / "ground_truth" / "reverse_array.dfy").write_text(REVERSE, encoding="utf-8-sig")  # (some have a BOM)
    for stem, given in NO_HINTS.items():
        (dataset / "hints_removed" / f"{stem}_no_hints.dfy").write_text(given)
    broken = "method merge_sorted(a: seq<int>) returns (r: seq<int>)\n  ensures |r| == |a|;\n{\n  r := a; /* cut"
    (dataset / "ground_truth" / f"{BROKEN}.dfy").write_text(broken)
    return root


def bare_dafny(path: Path) -> bool:
    """Whether bare ``dafny /compile:0`` verifies ``path`` (on this machine, no sandbox)."""
    done = subprocess.run(("dafny", "/compile:0", "/vcsCores:1", str(path)), capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    return done.returncode == 0 and re.search(r"finished with \d+ verified, 0 errors", done.stdout) is not None


def test_a_dafnybench_clone_loads_whole_but_its_broken_file(tmp_path: Path) -> None:
    clone = dafnybench(tmp_path)
    dataset = clone / "DafnyBench" / "dataset"
    for source in (clone, clone / "DafnyBench", dataset):
        tasks = load_tasks(source)
        assert sorted(tasks.ids) == sorted(f"DafnyBench/{s}" for s in [*PROGRAMS, BROKEN])
    broken = tasks.get(f"DafnyBench/{BROKEN}")
    assert broken.invalid is not None and "'{' at line 3, column 1 is never closed" in broken.invalid
    assert [t.id for t in tasks if t.invalid] == [broken.id]
    for stem, given in NO_HINTS.items():  # (DafnyBench's own hints-removed text is what the agent sees)
        task = tasks.get(f"DafnyBench/{stem}")
        assert task.metadata["given"] == given != strip_hints(PROGRAMS[stem])
        assert given.strip() in task.prompt
    bank = tasks.get("DafnyBench/bank_account")  # (no hints-removed file: stripped here; the open comment cut)
    assert bank.metadata["given"] == bank.reference == BANK[: BANK.index("/* An earlier")].rstrip() + "\n"
    assert tasks.get("DafnyBench/reverse_array").reference == REVERSE  # (without its byte-order mark)
    assert tasks.get("DafnyBench/sum_to_n").metadata["open"] == ("sum_formula_", "compute__sum")
    impl = load_tasks(clone, "impl")
    assert impl.get("DafnyBench/reverse_array").metadata["open"] == ("reverse_in_place", "is_palindrome")


def test_dafnybenchs_own_no_hints_file_is_what_the_agent_sees(tmp_path: Path) -> None:
    """(Clauses without ``;`` here: only the file's name is DafnyBench's.)"""
    truth, given = (re.sub(r"^(\s*(?:ensures|decreases|invariant) .*);$", r"\1", text, flags=re.MULTILINE)
                    for text in (SUM_TO_N, NO_HINTS["sum_to_n"]))  # fmt: skip
    bench = tmp_path / "bench"
    (bench / "ground_truth").mkdir(parents=True)
    (bench / "hints_removed").mkdir()
    (bench / "ground_truth" / "sum.dfy").write_text(truth)
    (bench / "hints_removed" / "sum_no_hints.dfy").write_text(given)
    (task,) = load_tasks(bench)
    assert "ensures s == sum_up(n)\n" in truth and task.id == "bench/sum"
    assert task.metadata["given"] == given != strip_hints(truth)
    assert task.metadata["hints"] == 3  # (DafnyBench's file keeps the lemma's decreases: 3 of 5 hints gone)


def test_dafnybench_ground_truths_verify_as_bare_dafny_says(tmp_path: Path, executor: LocalExecutor) -> None:
    """The references, and DafnyBench's hints-removed files as answers, are judged as bare
    ``dafny /compile:0`` judges the files; the unreadable file's task is IE with its reason."""
    dataset = dafnybench(tmp_path) / "DafnyBench" / "dataset"
    env = DafnyEnv(dataset, executor=executor)
    assert env.invalid_tasks.keys() == {f"DafnyBench/{BROKEN}"}
    stems = list(PROGRAMS)
    with Scorer(env, dedupe=False) as scorer:
        truths = scorer.score([(f"DafnyBench/{s}", PROGRAMS[s]) for s in stems])
        given = scorer.score([(f"DafnyBench/{s}", NO_HINTS[s]) for s in NO_HINTS])
        (broken,) = scorer.score([(f"DafnyBench/{BROKEN}", "method M() {}\n")])
    bare = [bare_dafny(dataset / "ground_truth" / f"{s}.dfy") for s in stems]
    assert bare == [True] * len(stems)
    assert [g.status is Status.OK for g in truths] == bare, [(s, g.message) for s, g in zip(stems, truths, strict=True)]
    bare_given = [bare_dafny(dataset / "hints_removed" / f"{s}_no_hints.dfy") for s in NO_HINTS]
    assert bare_given == [False] * len(NO_HINTS)
    assert [g.status is Status.OK for g in given] == bare_given and {g.status for g in given} == {Status.WA}
    assert not bare_dafny(dataset / "ground_truth" / f"{BROKEN}.dfy")
    assert broken.status is Status.IE and "never closed" in broken.message


def test_a_method_with_an_underscore_in_its_name_that_verifies_is_ok() -> None:
    """Issue 45's reproduction: `add_one` was HACK ("a method or lemma whose body Dafny never
    verified") where `addOne` was OK."""
    statuses = {}
    for name in ("add_one", "addOne", "add__one", "add_one_", "x_k"):
        program = f"method {name}(x: int) returns (y: int)\n  ensures y == x + 1\n{{\n  y := x + 1;\n}}\n"
        (grade,) = codegym.score("codegym/Dafny-v1", [("u", program)], tasks=[{"id": "u", "program": program}],
                                 task_kind="impl")  # fmt: skip
        statuses[name] = (grade.status, grade.message)
    assert statuses == {name: (Status.OK, "verified (1 procedures)") for name in statuses}


TRACED = """\
method add_one(x: int) returns (y: int)
  ensures y == x + 1;
{
  y := x + 1;
}

method a__b(x: int) returns (y: int)
  requires x > 0;
  ensures y > 0;
{
  y := x;
}

lemma trailing_(n: nat)
  ensures n + 0 == n;
{
}

method x'(k: int) returns (r: int)
  ensures r == k;
{
  r := k;
}

function f_g(x: int): int { x }

predicate has_item_(b: Box_1)
  reads b;
{
  b.item_ > 0
}

class Box_1 {
  var item_: int;
  method set_item(v: int)
    modifies this;
    ensures item_ == v;
  {
    item_ := v;
  }
}

module Inner_M {
  method in_module(x: int) returns (y: int) ensures y == x; { y := x; }
}
"""


def test_the_trace_names_procedures_as_the_source_does(executor: LocalExecutor) -> None:
    report = check(Dafny(), {"program.dfy": TRACED}, executor, LIMITS)
    assert report.ended == "complete"
    assert {(p.check, p.name) for p in report.procedures} == {
        ("Impl", "add_one"), ("Impl", "a__b"), ("Impl", "trailing_"), ("Impl", "x'"), ("Impl", "set_item"),
        ("Impl", "in_module"), ("CheckWellformed", "has_item_"),
    }  # fmt: skip
    assert all(p.outcome == "verified" for p in report.procedures)
    assert [source_name(n) for n in ("add__one", "a____b", "x_k", "x__k", "Box__1", "p_q", "c_h", "plain")] == [
        "add_one", "a__b", "x'", "x_k", "Box_1", "p?", "c#", "plain",
    ]  # fmt: skip


def test_a_bodiless_lemma_with_an_underscore_is_still_caught_by_the_trace(executor: LocalExecutor) -> None:
    """The second layer behind the gate reads the source names too."""
    trusted = "method add_one(x: int) returns (y: int)\n  ensures y == x + 1;\n{\n  y := x + 1;\n}\n"
    answer = "lemma bogus_lemma()\n  ensures false;\n\n" + trusted.replace("  y := x + 1;", "  bogus_lemma();")
    assert not gate.check(answer).passed  # (the gate refuses it, `;` or not...)
    assembly = assemble(trusted, trusted, answer, ["add_one"])
    report = check(Dafny(), {grader.PROGRAM: assembly.text}, executor, LIMITS)
    assert report.outcome_of("add_one") == "verified"
    verdict = grader.grade(GateReport(), assembly, report)  # (...and so does the trace, had it not)
    assert verdict.status is Status.HACK and verdict.message.startswith("bogus_lemma: a method or lemma")


SEMICOLONS = {
    "requires and ensures": "method M(x: int) returns (y: int)\n  requires x > 0;\n  ensures y == x + 1;\n{\n"
    "  y := x + 1;\n}\n",
    "modifies": "method M(a: array<int>)\n  modifies a;\n  ensures a.Length == old(a.Length);\n{\n}\n",
    "reads": "predicate P(a: array<int>)\n  reads a;\n{\n  a.Length > 0\n}\n",
    "decreases": "lemma L(n: nat)\n  ensures n >= 0;\n  decreases n;\n{\n  if n > 0 { L(n - 1); }\n}\n",
    "loop invariant": "method M(n: nat) returns (i: nat)\n  ensures i == n;\n{\n  i := 0;\n  while i < n\n"
    "    invariant i <= n;\n    decreases n - i;\n  {\n    i := i + 1;\n  }\n}\n",
    "in a class": "class C {\n  var v: int;\n  method Set(x: int)\n    modifies this;\n    ensures v == x;\n  {\n"
    "    v := x;\n  }\n}\n",
    "forall statement": "method M(a: array<int>)\n  modifies a;\n{\n  forall i | 0 <= i < a.Length\n"
    "    ensures true;\n  {\n  }\n}\n",
}


@pytest.mark.parametrize("name", SEMICOLONS)
def test_clauses_ended_by_a_semicolon_are_no_bodiless_declaration(name: str) -> None:
    program = SEMICOLONS[name]
    report = gate.check(program)
    assert report.passed, report.violations
    callables = [d for d in declarations(program) if d.callable]
    assert all(d.body is not None for d in callables)
    if callables and callables[0].kind in ("method", "lemma"):
        (task,) = load_tasks([{"id": "t", "program": program}], "impl")
        assert task.invalid is None and task.metadata["open"] == (callables[0].name,)


@pytest.mark.parametrize(
    "answer",
    [
        "lemma Bogus()\n  ensures false;\n\nmethod M() returns (r: int)\n  ensures r == 1;\n{\n  Bogus();\n}\n",
        "method M() returns (r: int)\n  ensures r == 1;\n{\n  r := 0;\n  while r < 5\n    invariant false;\n"
        "  r := 1;\n}\n",
        "method M() returns (r: int)\n  ensures r == 1;\n{\n  forall i | 0 <= i < 1\n    ensures false;\n  r := 1;\n}\n",
    ],
    ids=["bodiless lemma", "bodiless loop", "bodiless forall"],
)
def test_a_bodiless_declaration_or_statement_ended_by_a_semicolon_is_still_refused(answer: str) -> None:
    assert not gate.check(answer).passed


def test_one_unreadable_file_costs_only_its_task(tmp_path: Path) -> None:
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "good.dfy").write_text(SUM_TO_N)
    (folder / "latin1.dfy").write_bytes("// caf\xe9\nmethod M() {}\n".encode("latin-1"))
    (folder / "nothing_open.dfy").write_text("function F(x: int): int { x }\n")
    tasks = load_tasks(folder)
    assert len(tasks) == 3 and tasks.get("programs/good").invalid is None
    assert "UTF-8" in (tasks.get("programs/latin1").invalid or "")
    assert "no method or lemma with a body" in (tasks.get("programs/nothing_open").invalid or "")
    (row,) = load_tasks([{"id": "r", "program": "method M() { /* cut"}])
    assert row.invalid is not None and "never closed" in row.invalid
