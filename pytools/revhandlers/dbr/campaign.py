"""The define-by-run library's differential campaign: ``revhandlers dbr
fuzz``.

Random polynomial expressions (``0``, ``1``, natural constants, variables,
``+``, ``×``, natural powers computed by the paper's fast exponentiation,
``let`` with shadowing) are differentiated by **six implementations**: the
Python library's three (:mod:`.handlers` on greenlets, :mod:`.tape`,
:mod:`.forward`) and the three extracted from Coq (``dbr-eval``: effect
handlers, tape, dual numbers, :mod:`.engine`), and compared with an
**independent oracle**, sympy's ``diff`` of the same expression:

* exactly, on integers or rationals (``Fraction``), at orders 0 to 3 (nested
  ``diff``), and the gradient of expressions of two or three variables
  (Python's three ``grad`` and the extracted one);
* on floats, at a positive point (no cancellation: every coefficient is a
  natural number): each of the six within 1e-9 relative of sympy's exact
  value, the Python and the extracted implementation of the same mode bit
  for bit (they perform the same operations in the same order), and the
  first derivative within 1e-5 (relative) of a central finite difference of
  the expression evaluated in floats, plus the difference's rounding error
  ``4·eps·|f(x)|/h``.

A divergence is shrunk by Hypothesis and written to the corpus
(``tests/corpus/dbr``) as ``(case (expr E) (vars …) (at …) (order N))``,
which the test suite replays.  The shared machinery is
:mod:`revhandlers.harness`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..cluster import add_options, jobs_for, require_dask
from ..errors import BadInput, RevHandlersError, require_extra
from ..harness import (Divergence, Report, add_run_options, could_not_run, count_done, run_campaign, run_jobs,
                       summarize, write_corpus as _write_corpus)
from ..interrupt import Interrupted
from ..journal import add_options as add_journal_options, open_for as open_journal
from ..sexpio import loads
from . import IMPLEMENTATIONS, diff_n, grad
from .dictionary import FLOATS, FRACTIONS, INTS
from .engine import MODES, CoqLibrary, any_digits, expr_sexp
from .syntax import Let, Name, Nat, Pow, Prod, Sum, client, parse_sexp

FLOAT_RTOL = 1e-9
FD_RTOL = 1e-5


@dataclass(frozen=True)
class Case:
    expr: object
    names: tuple
    point: tuple
    order: int          # for one variable; a gradient (order 1) for several

    def sexp(self) -> str:
        at = " ".join(_atom(x) for x in self.point)
        return f"(case (expr {expr_sexp(self.expr)}) (vars {' '.join(self.names)}) (at {at}) (order {self.order}))"


def _atom(x) -> str:
    if isinstance(x, Fraction) and x.denominator != 1:
        return f"{x.numerator}/{x.denominator}"
    return str(int(x)) if isinstance(x, Fraction) else repr(x) if isinstance(x, float) else str(x)


# ------------------------------------------------------------- generation

def expressions(names, budget: int = 12):
    """A Hypothesis strategy of expressions over ``names`` (``let`` may bind
    new names or shadow old ones) of at most ``budget`` nodes."""
    from hypothesis import strategies as st  # optional: the test extra

    @st.composite
    def go(draw, scope, budget):
        if budget <= 1 or draw(st.integers(0, 4)) == 0:
            if draw(st.booleans()):
                return Name(draw(st.sampled_from(scope)))
            return Nat(draw(st.one_of(st.integers(0, 3), st.integers(0, 1000), st.just(10 ** 20))))
        kind = draw(st.sampled_from(["+", "*", "*", "^", "let"]))
        if kind == "^":
            return Pow(draw(go(scope, budget - 1)), draw(st.integers(0, 5)))
        left = draw(st.integers(1, budget - 2)) if budget > 2 else 1
        a = draw(go(scope, left))
        if kind == "let":
            name = draw(st.sampled_from(["a", "b", scope[0]]))
            body = draw(go(tuple(dict.fromkeys(scope + (name,))), max(1, budget - 1 - left)))
            return Let(name, a, body)
        b = draw(go(scope, max(1, budget - 1 - left)))
        return Sum((a, b)) if kind == "+" else Prod((a, b))

    return go(tuple(names), budget)


def cases(max_size: int = 12):
    """Cases: an expression of one variable with an order 0–3, or of two or
    three variables (a gradient); the point exact (an int or a Fraction,
    any sign) or a positive float."""
    from hypothesis import strategies as st  # optional: the test extra

    @st.composite
    def case(draw):
        k = draw(st.sampled_from([1, 1, 1, 2, 3]))
        names = ("x", "y", "z")[:k]
        e = draw(expressions(names, max_size))
        kind = draw(st.sampled_from(["int", "fraction", "float"]))

        def coordinate():
            if kind == "int":
                return draw(st.integers(-5, 5))
            if kind == "fraction":
                return Fraction(draw(st.integers(-9, 9)), draw(st.integers(1, 9)))
            return draw(st.floats(0.1, 2.0, allow_nan=False, allow_infinity=False))

        point = tuple(coordinate() for _ in names)
        order = draw(st.integers(0, 3)) if k == 1 else 1
        return Case(e, names, point, order)

    return case()


# ------------------------------------------------------------- the oracle

def to_sympy(e, env):
    import sympy  # optional: the test extra
    stack = [(e, env, False)]
    out: list = []
    while stack:
        e, env, done = stack.pop()
        if isinstance(e, Nat):
            out.append(sympy.Integer(e.n))
        elif isinstance(e, Name):
            out.append(env[e.name])
        elif isinstance(e, (Sum, Prod)):
            parts = e.terms if isinstance(e, Sum) else e.factors
            if not done:
                stack.append((e, env, True))
                stack.extend((p, env, False) for p in reversed(parts))
            else:
                vals = [out.pop() for _ in parts][::-1]
                out.append(sympy.Add(*vals) if isinstance(e, Sum) else sympy.Mul(*vals))
        elif isinstance(e, Pow):
            if not done:
                stack.extend([(e, env, True), (e.base, env, False)])
            else:
                out.append(out.pop() ** e.k)
        elif isinstance(e, Let):
            out.append(to_sympy(e.body, {**env, e.name: to_sympy(e.bound, env)}))
    return out[0]


def oracle(case: Case):
    """sympy's exact answer: the ``order``-th derivative at the point (one
    variable), or the gradient (several), as Fractions."""
    import sympy  # optional: the test extra
    syms = [sympy.Symbol(n) for n in case.names]
    f = to_sympy(case.expr, dict(zip(case.names, syms)))
    at = {s: sympy.Rational(Fraction(x)) for s, x in zip(syms, case.point)}

    def exact(v):
        r = sympy.Rational(v.subs(at))
        return Fraction(int(r.p), int(r.q))

    if len(syms) == 1:
        return exact(sympy.diff(f, syms[0], case.order) if case.order else f)
    return [exact(sympy.diff(f, s)) for s in syms]


# ------------------------------------------------------------- the check

def _python(case: Case, impl: str, numbers):
    if len(case.names) == 1:
        return diff_n(client(case.expr, list(case.names)), case.order, impl)(numbers, case.point[0])
    return grad(client(case.expr, list(case.names)), impl)(numbers, list(case.point))


def _coq(case: Case, lib: CoqLibrary, mode: str, point):
    if len(case.names) == 1:
        return lib.diff(case.expr, point[0], case.order, mode, var=case.names[0])
    return lib.grad(case.expr, case.names, list(point))


def _bits(v):
    return [_bits(x) for x in v] if isinstance(v, list) else ("nan" if math.isnan(v) else v)


def _finite(v) -> bool:
    return all(map(_finite, v)) if isinstance(v, list) else math.isfinite(v)


def _to_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _close(a, b, rtol) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(_close(x, y, rtol) for x, y in zip(a, b))
    return math.isclose(a, b, rel_tol=rtol, abs_tol=rtol)


def _fd(case: Case) -> tuple[float, float]:
    """A central finite difference of the expression evaluated in floats,
    and its rounding error bound (the values near ``x`` are rounded to
    ``eps·|f(x)|``, divided by ``h``)."""
    f = client(case.expr, list(case.names))
    x = case.point[0]
    h = 1e-6 * max(1.0, abs(x))
    rounding = 4 * 2.0 ** -52 * abs(evaluate_float(f, x)) / h
    return (evaluate_float(f, x + h) - evaluate_float(f, x - h)) / (2 * h), rounding


def evaluate_float(f, x: float) -> float:
    return f(FLOATS, x)


def _engines(case: Case):
    if len(case.names) == 1:
        return [(f"python {m}", m) for m in IMPLEMENTATIONS], [(f"coq {m}", m) for m in MODES]
    # the extracted library proves grad for the handler-based reverse mode
    return [(f"python {m}", m) for m in IMPLEMENTATIONS], [("coq handlers", "handlers")]


def check(case: Case, lib: CoqLibrary, python=None) -> str:
    """Compare the six implementations with sympy on ``case``; the outcome's
    name, or :class:`Divergence`.  ``python`` replaces the Python library's
    implementations (a function(case, impl, numbers)) to test the check
    itself.  Exact values of any number of digits are printed in messages."""
    with any_digits():
        return _check(case, lib, python)


def _check(case: Case, lib: CoqLibrary, python=None) -> str:
    run_py = python or _python
    expected = oracle(case)
    py_engines, coq_engines = _engines(case)
    desc = f"{case.sexp()}: expected {expected} (sympy)"
    floats = isinstance(case.point[0], float)
    numbers = FLOATS if floats else (INTS if all(isinstance(x, int) for x in case.point) else FRACTIONS)
    got = {}
    for name, m in py_engines:
        got[name] = run_py(case, m, numbers)
    for name, m in coq_engines:
        try:
            got[name] = _coq(case, lib, m, case.point)
        except RevHandlersError as e:
            if e.kind in ("timeout", "too-large"):
                # past dbr-eval's time limit, or an exact number past its 10^6 bits
                return f"skipped ({e.kind})"
            raise
    if floats:
        for name, m in coq_engines:
            if _bits(got[name]) != _bits(got[f"python {m}"]):
                raise Divergence(f"{name} computes {got[name]!r} but python {m} {got[f'python {m}']!r} "
                                 f"(the same operations in the same order): {case.sexp()}")
        if not all(_finite(v) for v in got.values()):
            # the float computation overflowed (an infinity, or inf·0 = nan):
            # only the bitwise agreement above is checked
            return "skipped (float overflow)"
    for name, v in got.items():
        if floats:
            exp_f = [_to_float(x) for x in expected] if isinstance(expected, list) else _to_float(expected)
            if not _close(v, exp_f, FLOAT_RTOL):
                raise Divergence(f"{name} computes {v}, {desc}")
        elif v != expected:
            raise Divergence(f"{name} computes {v}, {desc}")
    if floats and len(case.names) == 1 and case.order == 1:
        fd, rounding = _fd(case)
        if not (abs(got["coq handlers"] - fd) <= FD_RTOL * max(1.0, abs(fd)) + rounding):
            raise Divergence(f"coq handlers computes {got['coq handlers']}, finite differences {fd}: "
                             f"{case.sexp()}")
    kind = "float" if floats else "exact"
    return f"agree ({kind}, {'order ' + str(case.order) if len(case.names) == 1 else 'gradient'})"


# ------------------------------------------------------------- campaigns

def write_corpus(case: Case, corpus: Path, seed: int, message: str) -> Path:
    return _write_corpus(case.sexp(), corpus, seed, message, "revhandlers dbr fuzz")


def read_case(text: str) -> Case:
    """A corpus file's case (comments allowed)."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";"))
    s = loads(body)

    def head(x):
        return x[0].value() if isinstance(x, list) and x and hasattr(x[0], "value") else None

    if head(s) != "case":
        raise BadInput("syntax", "a corpus case is (case (expr E) (vars …) (at …) (order N))")
    f = {head(x): x[1:] for x in s[1:]}
    names = tuple(v.value() for v in f["vars"])

    def num(v):
        t = v.value() if hasattr(v, "value") else str(v)
        if isinstance(v, float) or any(c in t for c in ".eE") and "/" not in t:
            return float(t)
        q = Fraction(t)
        return int(q) if q.denominator == 1 and "/" not in t else q

    return Case(parse_sexp(f["expr"][0]), names, tuple(num(v) for v in f["at"]), int(f["order"][0]))


def campaign(n: int, seed: int, max_size: int = 12, corpus: Path | None = None, progress=None,
             lib: CoqLibrary | None = None) -> Report:
    own = lib is None
    lib = lib or CoqLibrary(timeout=30.0)
    try:
        return run_campaign(cases(max_size), lambda c: check(c, lib), n, seed,
                            save=(lambda c, m: write_corpus(c, corpus, seed, m)) if corpus is not None else None,
                            progress=progress)
    finally:
        if own:
            lib.close()


def _job(args):
    n, seed, max_size, corpus = args
    return campaign(n, seed, max_size, Path(corpus) if corpus else None, progress=count_done)


def cmd_fuzz(args, out) -> int:
    require_extra("revhandlers dbr fuzz", "hypothesis", "sympy")     # before anything starts: one line, exit code 2
    if args.scheduler:
        require_dask("revhandlers dbr fuzz")
    args.jobs = jobs_for(args)
    journal = open_journal(args, "revhandlers dbr fuzz",
                           {k: getattr(args, k) for k in ("n", "seed", "jobs", "max_size")})
    stopped = None
    try:
        reports = run_jobs(_job, args.n, args.seed, args.jobs, (args.max_size, str(Path(args.corpus))), "dbr fuzz",
                           journal=journal, scheduler=args.scheduler, unit="expressions")
    except Interrupted as e:             # the summary of what was checked, then the interrupt
        reports, stopped = e.reports, e
    except RevHandlersError as e:
        return could_not_run("dbr fuzz", e)
    code = summarize(reports, args.seed, args.jobs, out,
                     f"revhandlers dbr fuzz --n {args.n} --max-size {args.max_size}", unit="expressions")
    if stopped is not None:
        raise stopped
    return code


def register(sub) -> None:
    t = sub.add_parser("fuzz", help="cross-check the six implementations and sympy on random expressions")
    add_run_options(t, unit="expressions")
    t.add_argument("--max-size", type=int, default=12, help="nodes of an expression at most (default 12)")
    t.add_argument("--corpus", default="tests/corpus/dbr", help="where shrunk divergences are written")
    add_journal_options(t)
    add_options(t)
    t.set_defaults(func=cmd_fuzz)
