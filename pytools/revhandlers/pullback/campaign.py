"""The pullback language's differential campaign: ``revhandlers pullback
fuzz``.

Queries ``((Ω λy:R^n. P) · ω) V`` drawn by :func:`.gen.queries`
(first-order bodies, and higher-order ones: λ-abstractions applied, pairs
of functions, Church-list folds) are run through **pullback-eval** (the
type checker and the normaliser extracted from Coq, :mod:`.engine`),
through **the continuation machine** extracted from Coq (``cps_run``,
``theories/pullback/cps.v``, the request ``(cps TERM)``) and through the
**numpy reference** (:mod:`.reference`, the denotational semantics by
forward mode, which never uses the pullback reductions), and compared:

* the Python checker (:mod:`.typecheck`) must accept the query (the
  generator claims it is well typed), and so must the Coq checker: a query
  pullback-eval rejects as ill-typed is a divergence of the two checkers
  (``allow_checker_gap`` counts it as an outcome instead);
* the types the two checkers give must be the same;
* a value of pullback-eval must mean what the reference computes, within
  ``rtol`` 1e-9 and ``atol`` 1e-12 (NaN agrees with NaN, an infinity with
  the same infinity): a numeric dual ``r*`` by its numbers; another normal
  form (``0``, a dual map whose body still holds a Jacobian, …) by its
  meaning, the reference's evaluation of that normal form;
* the machine must reach the same value as the normaliser in the same
  number of steps, or fail in the same way (stuck; out of fuel or past
  the time limit when the normaliser is);
* a run that is stuck, out of fuel or past the time limit is a named
  outcome, not a divergence; it says whether the query satisfies ``pb_wf``,
  the hypothesis of ``progress`` (``theories/pullback/progress.v``: every
  ``let`` in a pullback's body is a let series), transcribed here
  (:func:`pb_wf`);
* so is a value that prints longer than pullback-eval's limit on an answer
  (``answer-too-large``, :data:`.sexp.MAX_ANSWER` characters: a normal form
  may be exponentially larger than its query), which is not read nor
  compared; the machine must then fail the same way (its answer, which
  also lists the rules, may alone be past the limit: an outcome too).

A query is *higher-order* when its body holds a λ-abstraction or its point
is not of a ground type (the generator's higher-order queries may draw
none).  The machine names the rule of every contraction (``rule_of``,
``cps.v``: 1-6, ``let``, ``A`` for an A-step in a pullback's body, 7-20
with 10a's mirror image ``10a-mirror``); the campaign counts them over
the runs that end in a value (premises not included) and fails with exit
code 3 when a rule never fired (``--allow-holes`` accepts it), as
``revhandlers fuzz`` does.

A divergence is shrunk by Hypothesis and written to the corpus
(``tests/corpus/pullback``) as the query's S-expression under a comment
header; such a file runs as it is with ``revhandlers pullback run``, and
the test suite replays the corpus.  The shared machinery is
:mod:`revhandlers.harness`."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np

from ..errors import BadInput, RevHandlersError
from ..harness import Divergence, Report, count_done, could_not_run, run_campaign, run_jobs, summarize
from ..harness import add_holes_option, holes_verdict
from ..harness import write_corpus as _write_corpus
from . import reference
from .engine import PullbackEvaluator
from .sexp import read_term_or_request, to_sexp
from .surface import pretty_type
from .syntax import (App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, Real, TArr, TDual, Tm, TProd, Var,
                     Zero, children, is_ground)
from .typecheck import TVar, type_of

RTOL, ATOL = 1e-9, 1e-12
#: seconds pullback-eval may spend on one query
TIMEOUT = 10.0
#: steps pullback-eval may take on one query (the generated ones take a few hundred)
FUEL = 100_000
#: the size budget of a query's body
BUDGET = 10

COMMAND = "revhandlers pullback fuzz"
#: the outcome of a query the Coq checker rejects and the Python checker accepts, with ``allow_checker_gap``
CHECKER_GAP = "ill-typed for pullback-eval only"
#: the rules the machine names (cps.v, ``rule``; pullback-eval's ``rule_name``)
RULES = ("1", "2", "3", "4", "5", "6", "let", "A", "7", "8", "9", "10a", "10a-mirror", "10b", "11", "12", "13a",
         "13b", "13c", "14", "15", "16a", "16b", "16c", "17", "18", "19a", "19b", "19c", "20a", "20b")


# ------------------------------------------------------------- the cases

def cases(budget: int = BUDGET):
    """First-order and higher-order queries (:class:`.gen.GenQuery`), and
    one time in seven a query at a 1-form (:func:`.gen.form_queries`) or
    along a bilinear dual map (:func:`.gen.bilinear_queries`), as terms."""
    from hypothesis import strategies as st

    from .gen import bilinear_queries, form_queries, queries
    first, higher = queries(higher=False, budget=budget), queries(higher=True, budget=budget)
    special = st.one_of(form_queries(max(budget // 2, 1)), bilinear_queries())
    return st.one_of(first, higher, first, higher, first, higher, special)


def term_of(case) -> Tm:
    """The term of a case: a :class:`.gen.GenQuery`, or a term (a corpus
    case)."""
    return case.term if hasattr(case, "term") else case


def _holds(t: Tm, kind) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, kind):
            return True
        stack.extend(children(u))
    return False


def _query_body(t: Tm) -> Tm | None:
    """The body ``P`` of a query ``((Ω λy. P) · ω) V``; ``None`` for
    another term."""
    return t.s.p if isinstance(t, App) and isinstance(t.s, Pb) else None


def order_of(t: Tm) -> str:
    """``higher-order`` when the query's body holds a λ-abstraction or its
    point is not of a ground type, ``first-order`` when neither, ``not a
    query`` for another term."""
    body = _query_body(t)
    if body is None:
        return "not a query"
    return "higher-order" if _holds(body, Lam) or not is_ground(t.s.ty) else "first-order"


# The hypothesis of progress (theories/pullback/progress.v, ``progress``):
# every let in the body of a pullback is a let series (anf.v: ``atom``,
# ``elem``, ``lets``, ``wf_let``; progress.v: ``pb_wf``), transcribed.

def _atom(t: Tm) -> bool:
    while isinstance(t, Proj):
        t = t.s
    return isinstance(t, Var)


def _elem(t: Tm) -> bool:
    match t:
        case Zero() | Real() | NDual():
            return True
        case Plus(a, b) | App(a, b) | Pair(a, b):
            return _atom(a) and _atom(b)
        case Lam(_, body):
            return _lets(body)
        case Fun(_, a) | Jac(_, a):
            return _atom(a)
        case Dual(_, body, a) | Pb(_, body, a):
            return _lets(body) and _atom(a)
    return _atom(t)


def _lets(t: Tm) -> bool:
    while isinstance(t, Let):
        if not _elem(t.e):
            return False
        if t.l == Var(0):
            return True
        t = t.l
    return False


def _wf_let(t: Tm) -> bool:
    if isinstance(t, Let):
        return _lets(t)
    return all(_wf_let(c) for c in children(t))


def pb_wf(t: Tm) -> bool:
    """Coq ``pb_wf t``: every let in the body of a pullback is a let series."""
    match t:
        case Pb(_, body, s):
            return _wf_let(body) and pb_wf(s)
        case Lam():
            return True
    return all(pb_wf(c) for c in children(t))


# ------------------------------------------------------------- the check

def types_agree(python, coq) -> bool:
    """The Python checker's type (a type variable is a type nothing fixes,
    any type) and the Coq checker's."""
    if isinstance(python, TVar):
        return True
    if isinstance(python, (TProd, TArr)):
        return type(coq) is type(python) and types_agree(python.A, coq.A) and types_agree(python.B, coq.B)
    if isinstance(python, TDual):
        return isinstance(coq, TDual) and types_agree(python.A, coq.A)
    return python == coq


def numbers(value, ty) -> np.ndarray | None:
    """The numbers of a numeric value (a real, a tuple, a numeric dual ``r*``)
    of type ``ty``; ``None`` for a value that is not a number
    (:class:`.reference.Opaque`, or a term that is not numeric)."""
    if isinstance(value, reference.Opaque):
        return None
    try:
        return np.asarray(reference.as_vector(value, ty), dtype=float)
    except (BadInput, AttributeError):
        return None


def meaning(value: Tm, ty) -> np.ndarray | None:
    """The numbers a closed normal form of ``pullback-eval`` means, by the
    reference (a functional on a ground type by its values on the basis)."""
    return numbers(reference.reify(reference.evaluate(value), ty), ty)


def agree(a: np.ndarray, b: np.ndarray) -> bool:
    """The same shape and numbers within :data:`RTOL` and :data:`ATOL`
    (NaN agrees with NaN, an infinity with the same infinity)."""
    if a.shape != b.shape:
        return False
    ok = (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b)) | np.isclose(a, b, rtol=RTOL, atol=ATOL)
    return bool(np.all(ok))


def _text(value) -> str:
    """A value's S-expression, non-finite numbers spelled as pullback-eval
    prints them (``nan``, ``inf``, ``-inf``): linear in the text."""
    return to_sexp(value, finite=False)


def _machine(evaluator: PullbackEvaluator, t: Tm, text: str, expected, rules: Counter | None):
    """The continuation machine on ``t`` must give what the normaliser
    gave: ``expected`` is the normaliser's ``(value, steps)`` or its
    error.  True when it agrees; else, when its answer is not compared,
    why: ``timeout`` (past the time limit), ``answer-too-large`` (its
    answer alone past the limit)."""
    try:
        r = evaluator.cps(t)
    except RevHandlersError as e:
        if e.kind == "timeout":
            return "timeout"        # past the time limit (a loaded machine): not compared
        if e.kind == "answer-too-large" and not isinstance(expected, RevHandlersError):
            return "answer-too-large"
        if isinstance(expected, RevHandlersError):
            if e.kind == expected.kind or {e.kind, expected.kind} <= {"out-of-fuel", "timeout"}:
                return True
        got = f"{e.kind} ({e.message.split(': (')[0][:200]})"
    else:
        if not isinstance(expected, RevHandlersError) and (_text(r.value), r.steps) == expected:
            if rules is not None:
                for name, count in r.rules:
                    rules[name] += count
            return True
        got = f"{_text(r.value)[:300]} in {r.steps} steps"
    want = (expected.kind if isinstance(expected, RevHandlersError)
            else f"{expected[0][:300]} in {expected[1]} steps")
    raise Divergence(f"the continuation machine gives {got}, the normaliser {want}: {text}")


def check(case, evaluator: PullbackEvaluator, reference_run=reference.run, steps: Counter | None = None,
          allow_checker_gap: bool = False, rules: Counter | None = None, machine: bool = True) -> str:
    """Compare pullback-eval's normaliser, its continuation machine (unless
    ``machine`` is false) and the reference on ``case``: the outcome's
    name, or :class:`Divergence`.  ``reference_run`` replaces the reference
    (to test the check itself); ``steps`` counts the steps to each value,
    ``rules`` the rules the machine fired."""
    t = term_of(case)
    order = order_of(t)
    text = to_sexp(t)
    try:
        ty_py = type_of(t)
    except RevHandlersError as e:
        raise Divergence(f"the Python checker rejects a generated query: {e}: {text}") from None
    try:
        value, ty, k = evaluator.run(t)
    except RevHandlersError as e:
        if e.kind == "type":
            if allow_checker_gap:
                return f"{CHECKER_GAP} ({order})"
            raise Divergence(f"the Coq checker (pullback-eval) rejects a query the Python checker types as "
                             f"{pretty_type(ty_py, ascii=True)} ({e.message.split(': (')[0][:300]}): {text}") from None
        if e.kind == "non-finite":
            return f"value ({order}, a non-finite number inside a normal form: not compared)"
        if e.kind in ("stuck", "out-of-fuel", "timeout"):
            if machine and e.kind != "timeout":
                _machine(evaluator, t, text, e, None)
            return f"{e.kind} ({order}, {'pb_wf' if pb_wf(t) else 'not pb_wf'})"
        if e.kind == "answer-too-large":
            if machine:
                _machine(evaluator, t, text, e, None)
            return f"answer-too-large ({order}, not compared)"
        raise Divergence(f"pullback-eval fails ({e.kind}: {e.message.split(': (')[0][:300]}): {text}") from None
    if machine and (why := _machine(evaluator, t, text, (_text(value), k), rules)) is not True:
        return f"{why} ({order}, the continuation machine only)"
    if not types_agree(ty_py, ty):
        raise Divergence(f"the checkers give different types: {pretty_type(ty_py, ascii=True)} (Python), "
                         f"{pretty_type(ty, ascii=True)} (Coq): {text}")
    if steps is not None:
        steps["values"] += 1
        steps["steps to the values"] += k
        steps[f"steps {_bucket(k)}"] += 1
    try:
        ref = reference_run(t)
    except RecursionError:
        return f"skipped ({order}, recursion too deep in the reference)"
    expected = numbers(ref.value, ty)
    if expected is None:
        return f"value ({order}, not numeric: not compared)"
    got = numbers(value, ty)
    what = "numeric value"
    if got is None:
        got = meaning(value, ty)
        what = "normal form, compared by its meaning"
    if got is None or not agree(got, expected):
        if got is not None and not (np.all(np.isfinite(got)) and np.all(np.isfinite(expected))):
            return f"skipped ({order}, non-finite numbers differ)"
        raise Divergence(f"pullback-eval computes {_show(got)} ({what}), the reference {_show(expected)}: {text}")
    return f"agree ({order}, {what})"


def _bucket(k: int) -> str:
    if k < 10:
        return "0-9"
    return f"{10 ** int(math.log10(k))}-{10 ** (int(math.log10(k)) + 1) - 1}"


def _show(v) -> str:
    return "nothing numeric" if v is None else "[" + ", ".join(repr(float(x)) for x in v) + "]"


# ------------------------------------------------------------- campaigns

def write_corpus(case, corpus: Path, seed: int, message: str) -> Path:
    return _write_corpus(to_sexp(term_of(case)), corpus, seed, message, COMMAND)


def read_case(text: str) -> Tm:
    """A corpus file's query (``;`` comments allowed)."""
    return read_term_or_request(text)


def campaign(n: int, seed: int, budget: int = BUDGET, corpus: Path | None = None, progress=None,
             evaluator: PullbackEvaluator | None = None, timeout: float = TIMEOUT, fuel: int = FUEL,
             allow_checker_gap: bool = False, reference_run=reference.run, machine: bool = True) -> Report:
    """Cross-check ``n`` queries drawn reproducibly from ``seed``; the
    report's ``coverage`` counts the steps to the values and (as ``rule
    NAME``) the rules the machine fired."""
    own = evaluator is None
    evaluator = evaluator or PullbackEvaluator(timeout=timeout, fuel=fuel)
    steps: Counter = Counter()
    rules: Counter = Counter({name: 0 for name in RULES}) if machine else Counter()
    try:
        report = run_campaign(cases(budget),
                              lambda c: check(c, evaluator, reference_run, steps, allow_checker_gap, rules, machine),
                              n, seed,
                              save=(lambda c, m: write_corpus(c, corpus, seed, m)) if corpus is not None else None,
                              progress=progress)
    finally:
        if own:
            evaluator.close()
    report.coverage.update(steps)
    report.coverage.update({f"rule {name}": c for name, c in rules.items()})
    return report


def _job(args):
    n, seed, budget, corpus, timeout, fuel, allow, machine = args
    return campaign(n, seed, budget, Path(corpus) if corpus else None, progress=count_done, timeout=timeout,
                    fuel=fuel, allow_checker_gap=allow, machine=machine)


def steps_table(coverage: Counter) -> str:
    values = coverage.get("values", 0)
    lines = [f"steps to a value: {coverage.get('steps to the values', 0)} for {values} values"
             + (f" (mean {coverage['steps to the values'] / values:.1f})" if values else "")]
    buckets = sorted((k for k in coverage if k.startswith("steps ") and k != "steps to the values"),
                     key=lambda k: int(k.split()[1].split("-")[0]))
    lines += [f"  {k}: {coverage[k]}" for k in buckets]
    return "\n".join(lines)


#: The size of a campaign from which a rule that never fired is an error
#: (exit code 3); below, a warning.  The rarest rules (13a, 13b, 10a) fired
#: in about 0.9% of the queries of a 50,000-query campaign (testing guide),
#: so one misses 2000 queries with probability about exp(-17)
#: (docs/decisions.md, "Coverage holes of a small campaign").
HOLES_FAIL_FROM = 2000

def rule_table(coverage: Counter) -> str:
    """How often each rule fired (the machine's runs that end in a value)."""
    rows = [f"  {name}: {coverage.get('rule ' + name, 0)}" for name in RULES]
    return "rule coverage (continuation machine, steps of the runs to a value):\n" + "\n".join(rows)


def rule_holes(coverage: Counter) -> list[str]:
    """The rules that never fired."""
    return [name for name in RULES if coverage.get("rule " + name, 0) == 0]


def cmd_fuzz(args, out) -> int:
    from ..fuzz import require_extra
    require_extra(COMMAND, "hypothesis")     # before anything starts: one line, exit code 2
    from ..cluster import jobs_for, require_dask
    if args.scheduler:
        require_dask(COMMAND)
    args.jobs = jobs_for(args)
    try:
        reports = run_jobs(_job, args.n, args.seed, args.jobs,
                           (args.budget, str(Path(args.corpus)), args.timeout, args.fuel, args.allow_checker_gap,
                            not args.no_machine),
                           "pullback fuzz", scheduler=args.scheduler, unit="queries")
    except RevHandlersError as e:
        return could_not_run("pullback fuzz", e)
    reproduce = (f"{COMMAND} --n {args.n} --budget {args.budget} --fuel {args.fuel}"
                 + (" --allow-checker-gap" if args.allow_checker_gap else "")
                 + (" --no-machine" if args.no_machine else ""))
    code = summarize(reports, args.seed, args.jobs, out, reproduce, unit="queries")
    coverage = sum((r.coverage for r in reports), Counter())
    print(steps_table(coverage), file=out)
    if args.no_machine:
        return code
    print(rule_table(coverage), file=out)
    if code:
        return code
    return holes_verdict(rule_holes(coverage), args.n, args.allow_holes, args.holes_fail_from, out, unit="queries")


def register(sub) -> None:
    t = sub.add_parser("fuzz", help="cross-check pullback-eval and the numpy reference on random queries")
    t.add_argument("--n", type=int, default=1000, help="number of queries (default 1000)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--jobs", type=int, default=None,
                   help="parallel processes (seeds seed, seed+1, …; default 1, or N with --scheduler local:N)")
    t.add_argument("--budget", type=int, default=BUDGET, help=f"size budget of a query's body (default {BUDGET})")
    t.add_argument("--timeout", type=float, default=TIMEOUT,
                   help=f"seconds pullback-eval may spend on one query (default {TIMEOUT:g})")
    t.add_argument("--fuel", type=int, default=FUEL, help=f"steps pullback-eval may take on one query "
                                                          f"(default {FUEL})")
    t.add_argument("--allow-checker-gap", action="store_true",
                   help="count a query the Coq checker rejects and the Python checker accepts as an outcome, "
                        "not a divergence")
    t.add_argument("--allow-holes", action="store_true", help="do not fail when a rule never fires")
    add_holes_option(t, HOLES_FAIL_FROM, unit="queries")
    t.add_argument("--no-machine", action="store_true",
                   help="do not run the continuation machine (nor count the rules)")
    t.add_argument("--corpus", default="tests/corpus/pullback", help="where shrunk divergences are written")
    from ..cluster import add_options
    add_options(t)
    t.set_defaults(func=cmd_fuzz)
