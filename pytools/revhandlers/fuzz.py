"""Differential testing: generated well-typed programs run on three
engines; ``revhandlers fuzz``.

The engines: the **model**, ``rh-eval --small-step --list-vectors``, which
is extracted from Coq throughout (the small-step evaluator, and the list
model of vectors); the **fast** evaluator, ``rh-eval`` as users run it (the
environment machine of machine.v, proved equal to the small-step one, on
the float arrays of extracted/vec.ml); and the independent numpy
**reference** semantics.  For every program drawn by :mod:`revhandlers.gen`:

* both type checkers must accept it;
* the model and the fast evaluator must give the same answer bit for bit
  (value, heap, step count, or the same failure): they perform the same
  IEEE operations in the same order;
* the model and the reference must agree: the same value and final heap
  (relative tolerance 1e-7, absolute 1e-9; NaN agrees with NaN and an
  infinity with the same infinity), or the same runtime failure;
* every ``M.rd(x.N)(L)`` the reference evaluates must agree with central
  finite differences of ``x ↦ N`` at ``L`` (relative tolerance 1e-4), unless
  ``N`` uses ``round``, ``maxpool`` or ``relu``, which are not smooth.

A program the verified evaluator cannot finish within its fuel, or within
the per-program time limit (``--timeout``), is skipped, not compared, and
counted as such in the report.

A divergence is shrunk by Hypothesis to a smallest program, written to the
corpus directory as an S-expression file that names the seed, and replayed
by the test suite from then on (``tests/test_fuzz.py``).  Exit codes, like
Csmith's comparison driver: 0 no divergence, 1 divergence, 2 could not run;
and 3: no divergence, but a rule never fired (``--allow-holes`` accepts it).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import reference
from . import autodiff as ad
from .ast import App, Program, Rd, Tm
from .errors import BadInput, RevHandlersError
from .evaluator import VerifiedEvaluator
from .harness import Divergence, Report, count_done, could_not_run, run_campaign, run_jobs, summarize
from .harness import write_corpus as _write_corpus
from .sexp import program_sexp
from .typecheck import check_program

RTOL, ATOL = 1e-7, 1e-9
FD_RTOL, FD_ATOL = 1e-4, 1e-6
NONSMOOTH = ("round", "maxpool", "relu")


def _values_agree(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & (a == b)
        ok = both_nan | same_inf | np.isclose(a, b, rtol=RTOL, atol=ATOL)
        return bool(np.all(ok))
    return isinstance(b, tuple) and len(a) == len(b) and all(_values_agree(x, y) for x, y in zip(a, b))


def _identical(a, b) -> bool:
    """Bit for bit: the same shapes and the same binary64 patterns."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and np.asarray(a, dtype="<f8").tobytes() == np.asarray(b, dtype="<f8").tobytes())
    return isinstance(b, tuple) and len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))


def _uses(m, names) -> bool:
    """Whether a term uses one of the primitives ``names``."""
    if isinstance(m, App) and m.f.prim.name in names:
        return True
    children = []
    for f in getattr(m, "__dataclass_fields__", {}):
        v = getattr(m, f)
        children += list(v) if isinstance(v, tuple) else [v]
    return any(_uses(c, names) for c in children if hasattr(c, "__dataclass_fields__"))


RD_CHECKS = Counter()
COVERAGE = Counter()

#: Every rule of the semantics and every case of the rewritings; a
#: campaign in which one never fires has a hole in its generator.
RULES = ["head_step_tm_app", "head_step_tm_add", "head_step_tm_proj", "head_step_tm_let", "head_step_tm_rd",
         "step_cmd_let_val", "step_cmd_revhandle", "step_conf_get", "step_conf_put",
         "rh_ret", "rh_let_var", "rh_op", "rh_rev", "rh_term",
         "R-Var", "R-VarO", "R-Const", "R-Fun", "R-Add", "R-Tuple", "R-Proj", "R-Let", "R-Rd"]
#: Cases that must never fire (the rd-depth bound is never spent: rd_rewrite_enough, theories/rh/rd_bound.v).
NEVER = ["R-Rd-unrewritten"]


def coverage_holes(counts: Counter) -> list[str]:
    return [r for r in RULES if counts.get(r, 0) == 0] + [f"{r} fired" for r in NEVER if counts.get(r, 0)]


def coverage_table(counts: Counter) -> str:
    rows = [f"  {r:22s} {counts.get(r, 0):9d}" for r in RULES + NEVER]
    return "rule coverage:\n" + "\n".join(rows)


def _leaves(v):
    if isinstance(v, ad.Node):
        return [v.value]
    return [x for item in v for x in _leaves(item)]


def _rebuild(like, flat):
    it = iter(flat)

    def go(s):
        return ad.const(next(it)) if isinstance(s, ad.Node) else tuple(go(x) for x in s)

    return go(like)


def _check_rd(term: Rd, env, cot, point, result, h: float = 1e-6) -> None:
    """Central finite differences of <cot, N(x)> at the point."""
    if _uses(term.body, NONSMOOTH):
        RD_CHECKS["rd terms not checked (round, maxpool or relu)"] += 1
        return
    flat = [x.copy() for x in _leaves(point)]
    cflat = np.concatenate(_leaves(cot)) if _leaves(cot) else np.zeros(0)
    got = np.concatenate(_leaves(result)) if _leaves(result) else np.zeros(0)
    if not np.all(np.isfinite(got)) or np.max(np.abs(np.concatenate(flat) if flat else [0.0]), initial=0) > 1e3:
        return
    sizes = [x.size for x in flat]
    total = np.concatenate(flat) if flat else np.zeros(0)
    want = np.zeros_like(total)
    saved = reference.rd_observer
    reference.rd_observer = None        # the body's own rd terms are checked where they are evaluated
    try:
        for i in range(total.size):
            vals = []
            for sign in (1, -1):
                t = total.copy()
                t[i] += sign * h
                parts = np.split(t, np.cumsum(sizes)[:-1]) if sizes else []
                out = reference.eval_tm(term.body, {**env, term.var: _rebuild(point, parts)})
                o = np.concatenate(_leaves(out)) if _leaves(out) else np.zeros(0)
                vals.append(float(cflat @ o))
            want[i] = (vals[0] - vals[1]) / (2 * h)
    finally:
        reference.rd_observer = saved
    if not np.all(np.isfinite(want)):
        return
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    if not np.allclose(got, want, rtol=FD_RTOL, atol=FD_ATOL * scale):
        raise Divergence(f"rd term disagrees with finite differences: AD {got}, FD {want}")
    RD_CHECKS["rd terms checked against finite differences"] += 1


@dataclass
class Outcome:
    kind: str                       # "agree", "skipped"
    detail: str = ""


#: the flags of the model engine (rh-eval extracted from Coq throughout)
MODEL_FLAGS = ("--small-step", "--list-vectors")


def crosscheck(prog: Program, verified: VerifiedEvaluator, check_rd: bool = True,
               fast: VerifiedEvaluator | None = None) -> Outcome:
    """Raise :class:`Divergence` if the engines disagree on ``prog``.
    ``verified`` is the model engine (it also counts the rule coverage);
    ``fast``, when given, the default ``rh-eval``."""
    try:
        ty_py = check_program(prog)
    except RevHandlersError as e:
        raise Divergence(f"the Python checker rejects a generated program: {e}") from None
    try:
        ty_v = verified.check(prog)
    except RevHandlersError as e:
        if e.kind == "timeout":
            return Outcome("skipped", e.kind)
        if e.kind in ("io", "internal"):
            raise                     # the evaluator could not run: not a divergence
        raise Divergence(f"the extracted checker rejects a generated program: {e}") from None
    if ty_py != ty_v:
        raise Divergence(f"the checkers give different types: {ty_py} and {ty_v}")
    try:
        counts, a = verified.coverage(prog)
    except RevHandlersError as e:
        if e.kind == "timeout":
            return Outcome("skipped", e.kind)
        raise
    a_err = a if isinstance(a, RevHandlersError) else None
    COVERAGE.update(counts)
    if fast is not None:
        try:
            f = fast.run(prog)
        except RevHandlersError as e:
            f = e
        if isinstance(f, RevHandlersError) and f.kind == "timeout":
            return Outcome("skipped", "timeout (fast evaluator)")
        if isinstance(a, RevHandlersError) or isinstance(f, RevHandlersError):
            if not (isinstance(a, RevHandlersError) and isinstance(f, RevHandlersError) and a.kind == f.kind):
                raise Divergence(f"model: {a}; fast evaluator: {f}")
        elif not (_identical(a.value, f.value) and a.steps == f.steps and set(a.heap) == set(f.heap)
                  and all(_identical(a.heap[k], f.heap[k]) for k in a.heap)):
            raise Divergence(f"the fast evaluator differs from the model: {f} and {a}")
        else:
            RD_CHECKS["fast evaluator identical to the model"] += 1
    if a_err is not None and a_err.kind in ("out-of-fuel", "out-of-memory", "too-deep"):
        return Outcome("skipped", a_err.kind)
    reference.rd_observer = _check_rd if check_rd else None
    try:
        b = reference.run_reference(prog)
        b_err = None
    except RevHandlersError as e:
        b, b_err = None, e
    except RecursionError:
        return Outcome("skipped", "recursion")
    except Divergence:
        raise
    except Exception as e:   # a crash of the reference is a divergence too
        raise Divergence(f"the reference crashed: {type(e).__name__}: {e}") from None
    finally:
        reference.rd_observer = None
    if a_err is not None or b_err is not None:
        if a_err is None or b_err is None or a_err.kind != b_err.kind:
            raise Divergence(f"verified: {a_err or 'a result'}; reference: {b_err or 'a result'}")
        return Outcome("agree", f"both fail: {a_err.kind}")
    if not _values_agree(a.value, b.value):
        raise Divergence(f"values differ: verified {a.value}, reference {b.value}")
    for loc in a.heap:
        if not _values_agree(a.heap[loc], b.heap[loc]):
            raise Divergence(f"heap {loc} differs: verified {a.heap[loc]}, reference {b.heap[loc]}")
    return Outcome("agree")


# ------------------------------------------------------------- campaigns

def _corpus_name(prog: Program) -> str:
    return hashlib.sha256(program_sexp(prog).encode()).hexdigest()[:12]


def write_corpus(prog: Program, corpus: Path, seed: int, message: str) -> Path:
    return _write_corpus(program_sexp(prog), corpus, seed, message, "revhandlers fuzz")


#: seconds the verified evaluator may spend on one generated program
TIMEOUT = 10.0


def campaign(n: int, seed: int, max_size: int = 10, corpus: Path | None = None,
             progress=None, verified: VerifiedEvaluator | None = None, timeout: float = TIMEOUT) -> Report:
    """Cross-check ``n`` generated programs, reproducibly from ``seed``
    (the programs are; which of them are skipped for time may vary with the
    machine's speed)."""
    from .gen import programs

    own = verified is None
    verified = verified or VerifiedEvaluator(timeout=timeout, flags=MODEL_FLAGS)
    fast = VerifiedEvaluator(timeout=timeout)

    def check(prog):
        out = crosscheck(prog, verified, fast=fast)
        return out.kind + (f" ({out.detail})" if out.detail else "")

    RD_CHECKS.clear()
    COVERAGE.clear()
    try:
        report = run_campaign(programs(max_size), check, n, seed,
                              save=(lambda p, m: write_corpus(p, corpus, seed, m)) if corpus is not None else None,
                              progress=progress)
    finally:
        if own:
            verified.close()
        fast.close()
    report.outcomes.update(RD_CHECKS)
    report.coverage.update(COVERAGE)
    return report


def _job(args):
    n, seed, max_size, corpus, timeout = args
    return campaign(n, seed, max_size, Path(corpus) if corpus else None, timeout=timeout, progress=count_done)


def require_extra(command: str, *modules: str) -> None:
    """Raise a bad-input error (exit code 2, one line) naming the extra to
    install when an optional dependency of ``command`` (``hypothesis``,
    ``sympy``: the ``test`` extra of pyproject.toml) cannot be imported."""
    import importlib
    missing = []
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError:
            missing.append(m)
    if missing:
        raise BadInput("io", f"{command} needs {' and '.join(missing)}, which "
                             f"{'is' if len(missing) == 1 else 'are'} not installed: "
                             "pip install 'revhandlers[test]'")


def cmd_fuzz(args, out) -> int:
    require_extra("revhandlers fuzz", "hypothesis")     # before anything starts: one line, exit code 2
    try:
        reports = run_jobs(_job, args.n, args.seed, args.jobs,
                           (args.max_size, str(Path(args.corpus)), args.timeout), "fuzz")
    except RevHandlersError as e:
        return could_not_run("fuzz", e)
    code = summarize(reports, args.seed, args.jobs, out,
                     f"revhandlers fuzz --n {args.n} --max-size {args.max_size}")
    coverage = sum((r.coverage for r in reports), Counter())
    print(coverage_table(coverage), file=out)
    if code:
        return code
    holes = coverage_holes(coverage)
    if holes and not args.allow_holes:
        print("COVERAGE HOLES: " + ", ".join(holes), file=out)
        return 3
    return 0


def register(sub) -> None:
    t = sub.add_parser("fuzz", help="cross-check generated programs on the verified evaluator and the reference")
    t.add_argument("--n", type=int, default=1000, help="number of programs (default 1000)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--jobs", type=int, default=1, help="parallel processes (seeds seed, seed+1, …)")
    t.add_argument("--max-size", type=int, default=10, help="size budget of a program (default 10)")
    t.add_argument("--timeout", type=float, default=TIMEOUT,
                   help=f"seconds the verified evaluator may spend on one program before it is skipped (default {TIMEOUT:g})")
    t.add_argument("--corpus", default="tests/corpus", help="where shrunk divergences are written")
    t.add_argument("--allow-holes", action="store_true", help="do not fail when a rule never fires")
    t.set_defaults(func=cmd_fuzz)
