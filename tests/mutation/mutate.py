"""A small, reproducible source mutator for layoutcheck (mutation score of the claims, engines and models).

Why not mutmut: mutmut 3 skips decorated functions, which here are every ``@property`` of a claim and every
``@ENGINE.handles(...)`` handler -- exactly the code whose mistakes would make a verdict wrong.

How: the tree is copied once to ``/tmp/mut-<slug>`` (its ``.git`` left out); the tests run once there under
pytest-cov with ``--cov-context=test``, which records, for every line of every module, the tests that execute it;
then, for each mutant of the module (one operator applied at one AST node), the mutated file is written into the
copy and only the tests that execute the mutated line run, ``-x -n 0 -p no:cacheprovider --hypothesis-seed=0``,
under ``nice -n 15``, a per-test timeout (pytest-timeout) and a per-mutant timeout. Exit 0 = survived; a failure =
killed; a test past its timeout = killed only if it passes unmutated in under half that timeout (``run_mutant``),
else undecided, as is a run past the per-mutant timeout; no test executes the line = not executed. The
Hypothesis example database is wiped before each run, so a verdict depends only on the mutant and the seed.

Operators (each applied to one node, source spans patched in place so comments and layout stay):
``cmp`` (``<``/``<=``, ``>``/``>=``, ``==``/``!=``, ``is``/``is not``, ``in``/``not in`` swapped), ``int`` (an
integer literal +1 and -1), ``bool`` (``True``/``False`` swapped), ``arith`` (``+``/``-`` and ``*``/``//``
swapped), ``logic`` (``and``/``or`` swapped), ``not`` (``not x`` -> ``x``). Docstrings, annotations, and the
messages of raised errors are not mutated.

Usage (from the repository root)::

    python3 tests/mutation/mutate.py layoutcheck/engines/structural.py [more modules] \
        --tests tests/engines tests/properties ... --out /tmp/mut-report.json

Writes one JSON record per mutant (module, line, operator, before -> after, status, the tests run) and prints the
counts per module. ``--summary`` prints the counts of a report; ``--retest TEST...`` runs a report's survivors
again, in a fresh copy of the tree, against tests written since (``<out>.retest.jsonl``).

Sample mode (a whole package does not fit in a session on 2 cores)::

    python3 tests/mutation/mutate.py layoutcheck/properties --sample 50 --seed 1 --timeout 60 \
        --scratch /tmp/mut-pkg --reuse --out /tmp/mut-properties.jsonl
    python3 tests/mutation/mutate.py --scratch /tmp/mut-pkg --sample-table /tmp/mut-properties.jsonl

A module argument may be a folder (every ``*.py`` under it) or a glob (``layoutcheck/spec/bind*.py``). ``--sample N
--seed S`` lists every mutant of every file (ordered by module, line, column, operator, text) and draws ``N`` of
them uniformly without replacement with ``random.Random(S)``, so the same source and seed give the same sample; they
run in the order drawn, so a run cut short has run a uniform sample of its own size. The population is written
beside the report (``<out>.sample.json``). ``--sample-table`` prints one row per sampled
report: the population, the sample's outcome, and the score with its exact (Clopper-Pearson) 95 % interval. In a
sample a mutant that no test executes counts as a survivor (the suite does not notice it).
"""

from __future__ import annotations

import argparse
import ast
import glob
import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

CMP_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
            ast.NotEq: ast.Eq, ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In}
ARITH_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.FloorDiv, ast.FloorDiv: ast.Mult}
NICE = ["nice", "-n", os.environ.get("MUTATE_NICE", "15")]
"""Prefix of every mutant's pytest run (``nice`` adds to the caller's niceness: ``MUTATE_NICE=0`` under ``nice -n 10``
runs the tests at 10)."""
PYTEST = ["-x", "-n", "0", "-p", "no:cacheprovider", "--hypothesis-seed=0", "-q", "--no-header", "-p", "no:randomly",
          "-rf"]
TEST_TIMEOUT = 60.0
"""Seconds one test may run under a mutant (pytest-timeout's ``--timeout``, signal method) before it fails by
timeout; ``--test-timeout`` sets it."""
KILLED = ("killed", "killed (test timeout)")
"""The statuses that count as a kill (``run_mutant`` says when a test past its timeout is one)."""
UNDECIDED = ("killed (timeout)", "undecided (test timeout)")
"""The statuses of an undecided mutant: the whole run past ``--timeout``, or a test past its timeout that is slow
unmutated too -- a slow test is not a failing one. (``killed (timeout)`` keeps the name of the older reports.)"""
_TIMED_OUT = re.compile(r"^FAILED (.+?) - Failed: Timeout \(", re.M)


@dataclass(frozen=True, slots=True)
class Mutant:
    module: str
    line: int
    col: int
    op: str
    before: str
    after: str
    status: str = ""
    tests: int = 0
    seconds: float = 0.0


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes not to mutate: docstrings, annotations, and the arguments of ``raise X(...)``."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            skip.update(id(n) for n in ast.walk(body[0]))
        for ann in (getattr(node, "annotation", None), getattr(node, "returns", None)):
            if ann is not None:
                skip.update(id(n) for n in ast.walk(ann))
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for a in node.exc.args + [k.value for k in node.exc.keywords]:
                skip.update(id(n) for n in ast.walk(a))
        if isinstance(node, ast.JoinedStr):
            skip.update(id(n) for n in ast.walk(node))
    return skip


def _variants(node: ast.AST) -> list[tuple[str, ast.AST]]:
    """(operator, mutated copy of ``node``) for every mutation of this one node."""
    import copy

    out: list[tuple[str, ast.AST]] = []
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in CMP_SWAP:
                m = copy.deepcopy(node)
                m.ops[i] = CMP_SWAP[type(op)]()
                out.append(("cmp", m))
    elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
        out.append(("bool", ast.Constant(not node.value)))
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        out += [("int", ast.Constant(node.value + 1)), ("int", ast.Constant(node.value - 1))]
    elif isinstance(node, ast.BinOp) and type(node.op) in ARITH_SWAP:
        m = copy.deepcopy(node)
        m.op = ARITH_SWAP[type(node.op)]()
        out.append(("arith", m))
    elif isinstance(node, ast.BoolOp):
        m = copy.deepcopy(node)
        m.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        out.append(("logic", m))
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        out.append(("not", node.operand))
    return out


def _offset(lines: list[str], line: int, col: int) -> int:
    return sum(len(s) for s in lines[:line - 1]) + len(lines[line - 1].encode()[:col].decode())


def mutants(path: Path, module: str) -> list[tuple[Mutant, str]]:
    """Every mutant of the file at ``path`` with its full mutated source, in source order."""
    src = path.read_text()
    tree = ast.parse(src)
    lines = src.splitlines(keepends=True)
    skip = _skipped_nodes(tree)
    out: list[tuple[Mutant, str]] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno"):
            continue
        for op, new in _variants(node):
            a = _offset(lines, node.lineno, node.col_offset)
            b = _offset(lines, node.end_lineno, node.end_col_offset)
            text = f"({ast.unparse(new)})"
            mutated = src[:a] + text + src[b:]
            try:
                ast.parse(mutated)
            except SyntaxError:
                continue
            out.append((Mutant(module, node.lineno, node.col_offset, op, src[a:b].splitlines()[0][:80], text[:80]),
                        mutated))
    out.sort(key=lambda m: (m[0].line, m[0].col, m[0].op, m[0].after))
    return out


def copy_tree(root: Path, scratch: Path) -> None:
    """A fresh copy of the working tree at ``scratch`` (no ``.git``, no caches)."""
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(root, scratch, ignore=shutil.ignore_patterns(".git", "__pycache__", ".hypothesis",
                                                                  ".pytest_cache", "*.pyc", ".coverage*"))


def env_for(scratch: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(scratch), PYTHONDONTWRITEBYTECODE="1", HYPOTHESIS_PROFILE="ci")


def collect_contexts(scratch: Path, tests: list[str], workers: int) -> None:
    """Run ``tests`` once under coverage with one context per test (writes ``scratch/.coverage``)."""
    cmd = ["nice", "-n", "15", sys.executable, "-m", "pytest", *tests, "--cov=layoutcheck", "--cov-context=test",
           "--cov-report=", "-p", "no:cacheprovider", "--hypothesis-seed=0", "-q", "-n", str(workers)]
    subprocess.run(cmd, cwd=scratch, env=dict(env_for(scratch), PYTHONDONTWRITEBYTECODE="0"), check=False)


def line_tests(scratch: Path, module: str) -> dict[int, set[str]]:
    """Line of ``module`` -> node ids of the tests that execute it (from the coverage contexts; the file is matched
    by its path inside the tree, so a copied scratch directory reuses the data)."""
    db = sqlite3.connect(scratch / ".coverage")
    rows = db.execute(
        "select lb.numbits, c.context from line_bits lb join file f on f.id = lb.file_id "
        "join context c on c.id = lb.context_id where f.path like ?", (f"%/{module}",)).fetchall()
    from coverage.numbits import numbits_to_nums

    out: dict[int, set[str]] = {}
    for numbits, ctx in rows:
        if not ctx:
            continue
        node = ctx.rsplit("|", 1)[0]
        for n in numbits_to_nums(numbits):
            out.setdefault(n, set()).add(node)
    return out


def _pytest(scratch: Path, tests: list[str], timeout: float, test_timeout: float) -> tuple[int, str]:
    """Run ``tests`` in ``scratch`` (each under pytest-timeout's ``test_timeout``, the whole run under ``timeout``):
    pytest's exit code and its output (wide, so each ``FAILED`` line keeps its reason)."""
    cmd = [*NICE, sys.executable, "-m", "pytest", *tests, *PYTEST, f"--timeout={test_timeout:g}"]
    p = subprocess.run(cmd, cwd=scratch, env=dict(env_for(scratch), COLUMNS="100000"), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout


def timeout_verdict(scratch: Path, test: str, test_timeout: float) -> str:
    """The status of a mutant whose first failing test, ``test``, failed by timeout: run it again on the unmutated
    tree; a kill (``killed (test timeout)``) only if it passes there in under half the per-test timeout (its setup,
    call and teardown as pytest's ``--durations`` reports them; start-up and collection not counted), else
    ``undecided (test timeout)`` -- a test that is slow anyway says nothing about the mutant."""
    shutil.rmtree(scratch / ".hypothesis", ignore_errors=True)
    try:
        rc, out = _pytest(scratch, [test, "--durations=0", "--durations-min=0"], 4 * test_timeout + 300, test_timeout)
    except subprocess.TimeoutExpired:
        return "undecided (test timeout)"
    spent = sum(float(t) for t in re.findall(r"^(\d+(?:\.\d+)?)s (?:setup|call|teardown) ", out, re.M))
    quick = rc == 0 and "slowest durations" in out and spent < test_timeout / 2
    return "killed (test timeout)" if quick else "undecided (test timeout)"


def run_mutant(scratch: Path, m: Mutant, source: str, original: str, tests: set[str], timeout: float,
               test_timeout: float = TEST_TIMEOUT) -> Mutant:
    """Write the mutant, run its tests, restore the module; the mutant with its status.

    ``killed``: a test failed (or the mutant broke an import); ``survived``: every test passed; ``killed (test
    timeout)``: the first failure was a test past ``test_timeout`` that passes quickly unmutated (``timeout_verdict``);
    ``undecided (test timeout)``: one that does not; ``killed (timeout)`` (undecided, the name of the older reports):
    the whole run past ``timeout`` (a hang pytest-timeout's signal cannot interrupt, e.g. inside a C call)."""
    if not tests:
        return Mutant(**{**asdict(m), "status": "not executed"})
    target = scratch / m.module
    shutil.rmtree(scratch / ".hypothesis", ignore_errors=True)
    target.write_text(source)
    t0 = time.monotonic()
    slow = None
    try:
        rc, out = _pytest(scratch, _ordered(tests, m.module), timeout, test_timeout)
        # 1: a test failed; 2: interrupted (a collection error: the mutant broke an import). 4 (a node id not found,
        # a usage error) and 5 (nothing collected) say nothing about the mutant: not a kill.
        status = "survived" if rc == 0 else "killed" if rc in (1, 2) else f"selection error (pytest exit {rc})"
        timed_out = _TIMED_OUT.findall(out)
        if rc == 1 and timed_out and len(re.findall(r"^FAILED ", out, re.M)) == 1:
            slow = timed_out[0]
    except subprocess.TimeoutExpired:
        status = "killed (timeout)"
    finally:
        target.write_text(original)
    seconds = round(time.monotonic() - t0, 1)
    if slow is not None:  # the module is restored: is the test that timed out quick without the mutant?
        status = timeout_verdict(scratch, slow, test_timeout)
    return Mutant(**{**asdict(m), "status": status, "tests": len(tests), "seconds": seconds})


def expand(root: Path, paths: list[str]) -> list[str]:
    """Module paths relative to ``root``: a folder gives every ``*.py`` under it, a glob its matches, in order."""
    out: list[str] = []
    for p in paths:
        if (root / p).is_dir():
            out += sorted(str(f.relative_to(root)) for f in (root / p).rglob("*.py") if "__pycache__" not in f.parts)
        elif any(c in p for c in "*?["):
            out += sorted(str(Path(f).relative_to(root)) for f in glob.glob(str(root / p)))
        else:
            out.append(p)
    return list(dict.fromkeys(out))


def draw(root: Path, modules: list[str], n: int, seed: int) -> tuple[list[tuple[Mutant, str]], int]:
    """``n`` mutants drawn uniformly without replacement from every mutant of ``modules`` (read under ``root``),
    with ``random.Random(seed)``, in the order drawn (so every prefix of a run cut short is itself a uniform sample);
    and the size of the population."""
    population = [m for module in modules for m in mutants(root / module, module)]
    picked = random.Random(seed).sample(range(len(population)), min(n, len(population)))
    return [population[i] for i in picked], len(population)


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The exact two-sided binomial interval of ``k`` successes in ``n`` trials (bisection on the binomial tail)."""
    if n == 0:
        return 0.0, 1.0
    alpha = (1 - confidence) / 2

    def tail_ge(p: float) -> float:  # P[X >= k]
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))

    def solve(f: Any, target: float) -> float:  # f increasing in p
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
        return (lo + hi) / 2

    # P[X >= k; p] = alpha gives the lower end, P[X > k; p] = 1 - alpha the upper
    lower = 0.0 if k == 0 else solve(tail_ge, alpha)
    upper = 1.0 if k == n else solve(lambda p: tail_ge(p) - math.comb(n, k) * p**k * (1 - p) ** (n - k), 1 - alpha)
    return lower, upper


def _runnable(test: str) -> str:
    """A node id pytest can select: one whose parameter id holds quotes or braces (a dict's repr as the id, which the
    coverage context does not keep whole) is not found from the command line (pytest exit 4), so it is widened to its
    test function (every parameter)."""
    return test.split("[", 1)[0] if any(c in test for c in "{}'\"") else test


def _ordered(tests: set[str], module: str) -> list[str]:
    """The selected tests, most likely killers first (with ``-x`` a kill stops early): the test file named after the
    module, then its package's test folder, then ``tests/semantics``, then the rest."""
    stem, pkg = Path(module).stem, Path(module).parent.name
    tests = {_runnable(t) for t in tests}

    def rank(t: str) -> tuple[int, str]:
        f = t.split("::", 1)[0]
        return (0 if stem in Path(f).stem else 1 if f.startswith(f"tests/{pkg}/") else
                2 if f.startswith("tests/semantics/") else 3, t)

    return sorted(tests, key=rank)


def _import_time_lines(tree: ast.Module) -> set[int]:
    """Lines that run when the module is imported: module- and class-level statements, and every ``def``'s
    decorators and signature (default values). Coverage credits them to whichever test imported the module first,
    so a mutant there runs every test that executes any line of the module."""
    out: set[int] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out.update(range(first, node.body[0].lineno))
            elif isinstance(node, ast.ClassDef):
                out.update(range(min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.body[0].lineno))
                visit(node.body)
            else:
                out.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))

    visit(tree.body)
    return out


def _containing_lines(tree: ast.AST, line: int) -> range:
    """The lines of the innermost statement that contains ``line`` (coverage marks a statement's first line)."""
    best = range(line, line + 1)
    for node in ast.walk(tree):
        compound = isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.If, ast.For, ast.While, ast.With, ast.Try))
        if isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno) \
                and (not compound or node.lineno == line):
            best = range(node.lineno, (node.end_lineno or node.lineno) + 1)
    return best


EQUIVALENT_KEYWORDS = {
    "strict": "equivalent: zip(..., strict=True) -> False only drops a length check, and the zipped sequences have "
              "equal lengths by construction",
    "slots": "equivalent: __slots__ changes memory layout, not behaviour",
    "frozen": "not a verdict: a value left mutable (no code path mutates it); no test asserts immutability",
    "kind": "equivalent: a stable sort (kind=) orders equal keys the same on these arrays",
}


EQUIVALENT_FILE = Path(__file__).with_name("equivalent.json")
"""Surviving mutants judged equivalent by hand, ``module:line:col:op:after`` -> the reason."""


def equivalent_reason(source: str, line: int, col: int, key: str = "") -> str | None:
    """Why a mutant at ``(line, col)`` of ``source`` cannot change a result: listed in ``equivalent.json`` under
    ``key``, or the value of a keyword argument in ``EQUIVALENT_KEYWORDS`` (``zip(strict=True)``,
    ``@dataclass(slots=True)``); else ``None``."""
    listed = json.loads(EQUIVALENT_FILE.read_text()) if EQUIVALENT_FILE.exists() else {}
    if key in listed:
        return listed[key]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.value.lineno == line and node.value.col_offset == col:
            if node.arg == "strict" and not (isinstance(node.value, ast.Constant) and node.value.value is True):
                return None  # strict=False -> True raises where the lengths differ: not equivalent by itself
            return EQUIVALENT_KEYWORDS.get(node.arg or "")
    return None


def summary(path: str) -> dict[str, dict[str, int]]:
    """Counts per module and status of a report (``killed (timeout)`` kept apart: a slow survivor is not a kill)."""
    out: dict[str, dict[str, int]] = {}
    for line in Path(path).read_text().splitlines():
        r = json.loads(line)
        out.setdefault(r["module"], {}).setdefault(r["status"], 0)
        out[r["module"]][r["status"]] += 1
    return out


def retest(root: Path, scratch: Path, report: str, tests: list[str], timeout: float,
           test_timeout: float = TEST_TIMEOUT, selected: bool = False) -> dict[str, int]:
    """Run the survivors and the undecided (timed-out) mutants of ``report`` again, in a fresh copy of ``root`` (so
    tests written since count), against ``tests`` (``selected``: and the tests the coverage contexts of ``scratch``
    select for the mutant, as the first run did); one JSON line each to ``report + '.retest.jsonl'``. A module whose
    source changed since is skipped."""
    old = [json.loads(x) for x in Path(report).read_text().splitlines()]
    survivors = [r for r in old if r["status"] in ("survived", "not executed", *UNDECIDED)
                 or r["status"].startswith("selection error")]
    fresh = Path(f"{scratch}-retest")
    copy_tree(root, fresh)
    counts: dict[str, int] = {}
    with open(report + ".retest.jsonl", "w") as out:
        for module in sorted({r["module"] for r in survivors}):
            original = (fresh / module).read_text()
            if original != (scratch / module).read_text():
                status = {"status": "source changed since the run"}
                for r in (r for r in survivors if r["module"] == module):
                    out.write(json.dumps({**r, **status}) + "\n")
                continue
            table = {(m.line, m.col, m.op, m.after): (m, src) for m, src in mutants(fresh / module, module)}
            pick = _selected(scratch, module) if selected else lambda line: set()
            for r in (r for r in survivors if r["module"] == module):
                m, src = table[(r["line"], r["col"], r["op"], r["after"])]
                done = run_mutant(fresh, m, src, original, set(tests) | pick(m.line), timeout, test_timeout)
                counts[done.status] = counts.get(done.status, 0) + 1
                out.write(json.dumps(asdict(done)) + "\n")
                out.flush()
    return counts


def table(scratch: Path, reports: list[str]) -> list[str]:
    """Markdown rows per module: mutants, killed, undecided (timeout), survivors split into killed by a test written
    since (``<report>.retest.jsonl``), equivalent/cosmetic (``equivalent_reason``) and open, not executed, not run."""
    rows = []
    for report in reports:
        recs = [json.loads(x) for x in Path(report).read_text().splitlines()]
        retested = Path(report + ".retest.jsonl")
        later = {(r["module"], r["line"], r["col"], r["op"], r["after"]): r["status"]
                 for r in map(json.loads, retested.read_text().splitlines())} if retested.exists() else {}
        for module in dict.fromkeys(r["module"] for r in recs):
            src = (scratch / module).read_text()
            mine = [r for r in recs if r["module"] == module]
            c = {k: 0 for k in ("killed", "undecided", "new", "equivalent", "open", "not executed")}
            for r in mine:
                if r["status"] in KILLED:
                    c["killed"] += 1
                elif later.get((r["module"], r["line"], r["col"], r["op"], r["after"]), "") in KILLED:
                    c["new"] += 1
                elif r["status"] in UNDECIDED:
                    c["undecided"] += 1
                elif r["status"] == "not executed":
                    c["not executed"] += 1
                elif equivalent_reason(src, r["line"], r["col"],
                                       f"{r['module']}:{r['line']}:{r['col']}:{r['op']}:{r['after']}"):
                    c["equivalent"] += 1
                else:
                    c["open"] += 1
            total = len(mutants(scratch / module, module))
            decided = c["killed"] + c["new"] + c["open"]
            score = f"{(c['killed'] + c['new']) / decided:.3f}" if decided else "--"
            rows.append(f"| {module.removeprefix('layoutcheck/')} | {total} | {c['killed']} | {c['new']} | "
                        f"{c['equivalent']} | {c['open']} | {c['undecided']} | {c['not executed']} | "
                        f"{total - len(mine)} | {score} |")
    return rows


def _classify(r: dict[str, Any], later: dict[tuple[Any, ...], str], src: str) -> str:
    """One sampled mutant's outcome: killed, new (killed by a test written since), equivalent, open, undecided."""
    key = (r["module"], r["line"], r["col"], r["op"], r["after"])
    if r["status"] in KILLED:
        return "killed"
    if later.get(key, "") in KILLED:
        return "new"
    if equivalent_reason(src, r["line"], r["col"], ":".join(map(str, (*key[:4], key[4])))):
        return "equivalent"
    return "undecided" if r["status"] in UNDECIDED else "open"  # "not executed" is a survivor here


def sample_table(scratch: Path, reports: list[str]) -> list[str]:
    """Markdown rows, one per sampled report: package, files, all mutants, sampled, killed, killed by a new test,
    equivalent, open, undecided, score = (killed + new) / (killed + new + open) and its exact 95 % interval."""
    rows = []
    for report in reports:
        meta = json.loads(Path(report + ".sample.json").read_text())
        recs = [json.loads(x) for x in Path(report).read_text().splitlines()]
        retested = Path(report + ".retest.jsonl")
        later = {(r["module"], r["line"], r["col"], r["op"], r["after"]): r["status"]
                 for r in map(json.loads, retested.read_text().splitlines())} if retested.exists() else {}
        c = {k: 0 for k in ("killed", "new", "equivalent", "open", "undecided")}
        for r in recs:
            c[_classify(r, later, (scratch / r["module"]).read_text())] += 1
        k, n = c["killed"] + c["new"], c["killed"] + c["new"] + c["open"]
        lo, hi = clopper_pearson(k, n)
        score = f"{k / n:.3f} | {lo:.2f}-{hi:.2f}" if n else "-- | --"
        rows.append(f"| {meta['package']} (seed {meta['seed']}) | {len(meta['modules'])} | {meta['population']} | "
                    f"{len(recs)} | {c['killed']} | {c['new']} | {c['equivalent']} | {c['open']} | "
                    f"{c['undecided']} | {score} |")
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*", help="module paths relative to the repository root")
    ap.add_argument("--tests", nargs="+", default=["tests"], help="tests run for the coverage contexts")
    ap.add_argument("--ignore", nargs="*", default=["tests/gpu", "tests/differential/test_cute_cpp.py"])
    ap.add_argument("--root", default=".", help="the repository to copy")
    ap.add_argument("--scratch", default=None, help="scratch copy (default /tmp/mut-<first module>)")
    ap.add_argument("--workers", type=int, default=2, help="xdist workers for the coverage run")
    ap.add_argument("--timeout", type=float, default=240.0,
                    help="seconds per mutant's whole run; past it the mutant is undecided")
    ap.add_argument("--test-timeout", type=float, default=TEST_TIMEOUT,
                    help="seconds per test (pytest-timeout); past it a kill only if the test is quick unmutated")
    ap.add_argument("--reuse", action="store_true", help="reuse the scratch copy and its coverage data")
    ap.add_argument("--out", default="mutation-report.jsonl")
    ap.add_argument("--summary", action="store_true", help="print the counts of --out and exit")
    ap.add_argument("--table", nargs="+", default=None, metavar="REPORT",
                    help="print the markdown score rows of these reports (sources read from --scratch) and exit")
    ap.add_argument("--sample", type=int, default=None, metavar="N",
                    help="run N mutants drawn uniformly from every mutant of the modules (folders, globs)")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample")
    ap.add_argument("--resume", action="store_true", help="--sample: append to --out, skipping the mutants it has")
    ap.add_argument("--sample-table", nargs="+", default=None, metavar="REPORT",
                    help="print the markdown score rows of these sampled reports and exit")
    ap.add_argument("--retest", nargs="+", default=None, metavar="TEST",
                    help="re-run the survivors of --out against these tests in a fresh copy of the tree")
    ap.add_argument("--selected", action="store_true",
                    help="--retest: also run the tests the coverage contexts select for each mutant")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a stopped run restores the mutated module (finally)
    if args.summary:
        for module, counts in summary(args.out).items():
            print(module, dict(sorted(counts.items())))
        return 0
    root = Path(args.root).resolve()
    slug = Path(args.modules[0]).stem if args.modules else "all"
    scratch = Path(args.scratch or f"/tmp/mut-{slug}")
    if args.table:
        print("\n".join(table(scratch, args.table)))
        return 0
    if args.sample_table:
        print("\n".join(sample_table(scratch, args.sample_table)))
        return 0
    if args.retest:
        print(retest(root, scratch, args.out, args.retest, args.timeout, args.test_timeout, args.selected))
        return 0
    if not (args.reuse and (scratch / ".coverage").exists()):
        copy_tree(root, scratch)
        tests = [*args.tests, *(f"--ignore={p}" for p in args.ignore)]
        collect_contexts(scratch, tests, args.workers)
    if args.sample is not None:
        modules = expand(root, args.modules)
        picked, population = draw(scratch, modules, args.sample, args.seed)
        meta = {"package": " ".join(args.modules), "seed": args.seed, "sample": args.sample,
                "population": population, "modules": modules}
        Path(args.out + ".sample.json").write_text(json.dumps(meta, indent=1) + "\n")
        done = set()
        if args.resume and Path(args.out).exists():  # continue the draw: the mutants already run are skipped
            done = {(r["module"], r["line"], r["col"], r["op"], r["after"])
                    for r in map(json.loads, Path(args.out).read_text().splitlines())}
        picked = [(m, src) for m, src in picked if (m.module, m.line, m.col, m.op, m.after) not in done]
        with open(args.out, "a" if args.resume else "w") as out:
            _mutate_sample(scratch, picked, out, args.timeout, args.test_timeout)
        return 0
    with open(args.out, "a") as out:
        for module in args.modules:
            _mutate_module(scratch, module, out, args.timeout, args.test_timeout)
    return 0


def _selected(scratch: Path, module: str) -> Any:
    """``line -> the tests to run for a mutant there`` for ``module`` (every test of the module at import-time
    lines, else the tests that execute the innermost statement containing the line)."""
    tree = ast.parse((scratch / module).read_text())
    by_line = line_tests(scratch, module)
    everyone = set().union(*by_line.values()) if by_line else set()
    at_import = _import_time_lines(tree)

    def tests(line: int) -> set[str]:
        return everyone if line in at_import else \
            set().union(*(by_line.get(n, set()) for n in _containing_lines(tree, line)))

    return tests


def _mutate_sample(scratch: Path, picked: list[tuple[Mutant, str]], out: Any, timeout: float,
                   test_timeout: float = TEST_TIMEOUT) -> None:
    """Run the drawn mutants (the sample mode); one JSON line each to ``out``; print the counts."""
    selectors: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for m, source in picked:
        if m.module not in selectors:
            selectors[m.module] = _selected(scratch, m.module)
        original = (scratch / m.module).read_text()
        r = run_mutant(scratch, m, source, original, selectors[m.module](m.line), timeout, test_timeout)
        counts[r.status] = counts.get(r.status, 0) + 1
        out.write(json.dumps(asdict(r)) + "\n")
        out.flush()
        print(f"{r.module}:{r.line} {r.op} {r.before!r} -> {r.after!r}: {r.status} ({r.tests} tests, {r.seconds} s)",
              flush=True)
    print(counts, flush=True)


def _mutate_module(scratch: Path, module: str, out: Any, timeout: float, test_timeout: float = TEST_TIMEOUT) -> None:
    """Run every mutant of ``module`` in the scratch copy; one JSON line each to ``out``; print the counts."""
    original = (scratch / module).read_text()
    tree = ast.parse(original)
    by_line = line_tests(scratch, module)
    everyone = set().union(*by_line.values()) if by_line else set()
    at_import = _import_time_lines(tree)
    counts: dict[str, int] = {}
    for m, source in mutants(scratch / module, module):
        tests = everyone if m.line in at_import else \
            set().union(*(by_line.get(n, set()) for n in _containing_lines(tree, m.line)))
        r = run_mutant(scratch, m, source, original, tests, timeout, test_timeout)
        counts[r.status] = counts.get(r.status, 0) + 1
        out.write(json.dumps(asdict(r)) + "\n")
        out.flush()
    print(module, counts, flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
