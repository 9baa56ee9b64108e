"""The pullback language's differential campaign: ``revhandlers pullback
fuzz``.

Queries ``((Ω λy:R^n. P) · ω) V`` drawn by :func:`.gen.queries`
(first-order bodies, and higher-order ones: λ-abstractions applied, pairs
of functions, Church-list folds; through Hypothesis, or by default on the
command line directly from ``random.Random``, :mod:`.direct`, their
requests batched, :func:`run_batched`) are run through **pullback-eval** (the
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
* a query outside the well-formed terms (``wf_tm``,
  ``theories/pullback/wf.v``: a ``let`` in a pullback's body that is not a
  let series, outside Fig. 1's grammar; a Jacobian ``J f · r`` applied in a
  pullback's body, Remark 3.6, whose derivative in the point needs the
  second derivative of ``f``) is rejected by both checkers
  (:func:`.typecheck.ill_formed`, pullback-eval's ``ill-formed`` error,
  which must name the same rule): the outcome ``rejected``;
* a run of a well-formed query in the typed premise ``ztyped`` (pullback-eval's
  extracted ``zcheck`` accepts it, ``theories/pullback/ztyped.v``) that
  ends stuck is a divergence (the paper's Corollary 5.2: every reduction
  ends in a value), named by its class (:func:`stuck_class`); a stuck run
  of a query outside ``ztyped`` is the outcome ``outside ztyped``, with the
  rule that excludes it (``zt_zero``, ``zt_plus``: :func:`ztyped_rule`),
  and the well-formed queries outside ``ztyped`` are counted by that rule
  whatever their run (:func:`ztyped_line`, :func:`counted_rule`: the
  extracted ``zcheck`` gives the verdict, the Python twin
  :func:`.typecheck.outside_ztyped` names the rule of the queries it
  refuses only); no class is excluded
  otherwise (:data:`EXCLUDED`, ``docs/decisions-pullback.md``, "Stuck
  queries"); with ``allow_stuck`` (``--allow-stuck``) every stuck class is
  an outcome;
* a run out of fuel or past the time limit is a named outcome, not a
  divergence;
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

A divergence is shrunk by Hypothesis (drawn directly: kept as drawn) and
written to the corpus
(``tests/corpus/pullback``) as the query's S-expression under a comment
header; such a file runs as it is with ``revhandlers pullback run``, and
the test suite replays the corpus.  The shared machinery is
:mod:`revhandlers.harness`."""

from __future__ import annotations

import math
import time
from collections import Counter
from pathlib import Path

import numpy as np

from ..cluster import add_options, jobs_for, require_dask
from ..depth import room
from ..errors import BadInput, RevHandlersError, require_extra
from ..harness import (Divergence, Ledger, Report, add_holes_option, add_run_options, could_not_run, count_done,
                       holes_verdict, run_campaign, run_jobs, summarize, write_corpus as _write_corpus)
from ..interrupt import Interrupted
from ..journal import add_options as add_journal_options, open_for as open_journal
from ..pipe import Pipe
from . import reference
from .direct import draw_case, gen, one_of
from .engine import PullbackEvaluator, pullback_eval_path, read_last, result_of, same_run
from .premise import progress_rule
from .sexp import read_answer, read_term_or_request, to_sexp
from .surface import pretty_type
from .syntax import (App, Dual, Jac, Lam, Let, NDual, Pair, Pb, Proj, Real, TArr, TDual, Tm, TProd, Var, Zero,
                     children, is_ground)
from .typecheck import TVar, ill_formed, is_lets, outside_ztyped, type_of

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
    from hypothesis import strategies as st  # optional: the test extra

    from .gen import bilinear_queries, form_queries, queries  # Hypothesis strategies: the test extra too

    first, higher = queries(higher=False, budget=budget), queries(higher=True, budget=budget)
    special = st.one_of(form_queries(max(budget // 2, 1)), bilinear_queries())
    return st.one_of(first, higher, first, higher, first, higher, special)


def direct_cases(budget: int = BUDGET):
    """:func:`cases`, drawn directly from ``random.Random`` (:mod:`.direct`)."""
    first, higher = gen.queries(higher=False, budget=budget), gen.queries(higher=True, budget=budget)
    special = one_of(gen.form_queries(max(budget // 2, 1)), gen.bilinear_queries())
    return one_of(first, higher, first, higher, first, higher, special)


def run_direct(strategy, check, n: int, seed: int, save=None, progress=None) -> Report:
    """:func:`revhandlers.harness.run_campaign` without Hypothesis: case
    ``i`` is :func:`.direct.draw_case` ``(strategy, seed, i)``; the first
    divergence stops the run and is saved as it is (not shrunk)."""
    report = Report()
    start = time.time()
    try:
        for i in range(n):
            case = draw_case(strategy, seed, i)
            try:
                outcome = check(case)
            except Exception as e:      # a divergence, or a crash of the check or of an engine
                msg = str(e) if isinstance(e, Divergence) else f"crash: {type(e).__name__}: {e}"[:2000]
                report.divergence = f"{msg} (query {i} of seed {seed}, not shrunk: --hypothesis shrinks)"
                if save is not None:
                    report.corpus_file = str(save(case, report.divergence))
                break
            report.programs += 1
            report.outcomes[outcome] += 1
            if outcome.startswith("skipped"):
                report.skipped += 1
            if progress:
                progress(report)
    finally:
        report.seconds = time.time() - start
    return report


#: queries per batch of requests (:func:`run_batched`)
BATCH = 100


#: the requests sent for every query of a batch (:func:`run_batched`), in
#: the order of the answers ``check`` is given
KINDS = ("run", "cps", "zcheck")


def run_batched(strategy, check, n: int, seed: int, save=None, progress=None, pipe=None,
                coverage=None) -> Report:
    """:func:`run_direct`, the ``(run Q)``, ``(cps Q)`` and ``(zcheck Q)``
    requests (:data:`KINDS`) of :data:`BATCH` queries sent to ``pipe`` (a
    :class:`revhandlers.pipe.Pipe` on pullback-eval) in one write, then the
    ``(last Q)`` requests of the stuck runs, and their answers passed to
    ``check(case, answers)`` (``answers``: one line per kind, then the
    ``last`` line or ``None``).  The
    batches overlap: the next batch is drawn while pullback-eval answers
    this one, and sent (after this one's ``last`` requests) before this one
    is checked, so that pullback-eval and the checks run at once.

    With a journal (:func:`revhandlers.harness.journal_for`), each batch's
    verdicts and what it added to ``coverage()`` are written to it (and the
    cases checked when interrupted); a resumed job starts at the first
    query the journal does not hold (queries are drawn by index), from the
    journal's counts."""
    ledger = Ledger(seed, coverage)
    if ledger.finished(n):
        return ledger.report                        # finished before
    report = ledger.report

    def drawn(b0: int) -> tuple[list, list[str]]:
        batch = [draw_case(strategy, seed, i) for i in range(b0, min(n, b0 + BATCH))]
        return batch, [to_sexp(term_of(c)) for c in batch]

    def requests(texts: list[str]) -> list[str]:
        return [f"({kind} {text})" for text in texts for kind in KINDS]

    try:
        starts = range(ledger.skip, n, BATCH)
        if not starts:
            return report
        batch, texts = drawn(starts[0])
        pipe.send(requests(texts))
        for b0 in starts:
            following = drawn(b0 + BATCH) if b0 + BATCH < n else None    # while pullback-eval answers
            k = len(KINDS)
            got = pipe.receive(k * len(batch))
            answers = [tuple(got[k * j:k * (j + 1)]) + (None,) for j in range(len(batch))]
            stuck = [j for j, lines in enumerate(answers) if lines[0].startswith("(error (kind stuck)")]
            pipe.send([f"(last {texts[j]})" for j in stuck] + (requests(following[1]) if following else []))
            for j, last in zip(stuck, pipe.receive(len(stuck))):
                answers[j] = answers[j][:k] + (last,)
            for j, case in enumerate(batch):
                try:
                    outcome = check(case, answers[j])
                except Exception as e:      # a divergence, or a crash of the check or of an engine
                    msg = str(e) if isinstance(e, Divergence) else f"crash: {type(e).__name__}: {e}"[:2000]
                    ledger.flush()          # the cases before it
                    message = f"{msg} (query {b0 + j} of seed {seed}, not shrunk: --hypothesis shrinks)"
                    report.divergence = message
                    ledger.diverged(message, str(save(case, message)) if save is not None else None)
                    return report
                ledger.count(outcome)
                if progress:
                    progress(report)
            ledger.flush()
            if following:
                batch, texts = following
    finally:
        if report.divergence is None:
            ledger.flush()                  # the cases checked (also when interrupted)
        ledger.close()
    return report


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


# The hypothesis of progress (theories/pullback/progress.v, ``progress_premise``):
# every let in the body of a pullback is a let series (anf.v: ``atom``,
# ``elem``, ``lets``, ``wf_let``; progress.v: ``pb_wf``), transcribed with
# the checker's let-series predicates (:func:`.typecheck.is_lets`).

def _wf_let(t: Tm) -> bool:
    if isinstance(t, Let):
        return is_lets(t)
    return all(_wf_let(c) for c in children(t))


def pb_wf(t: Tm) -> bool:
    """Coq ``pb_wf t``: every let in the body of a pullback is a let series."""
    match t:
        case Pb(_, body, s):
            return _wf_let(body) and pb_wf(s)
        case Lam():
            return True
    return all(pb_wf(c) for c in children(t))


# ------------------------------------------------------------- stuck runs

#: the stuck classes a documented rule excludes (docs/decisions-pullback.md, "Stuck
#: queries"): none since the checkers reject the two classes that were
#: (``wf_tm``, ``theories/pullback/wf.v``; :func:`.typecheck.ill_formed`),
#: and a parameter applied in a body (``param_app_free``, "A parameter
#: applied in a pullback's body"), whose queries are now the outcome
#: ``rejected`` (never run).  A query
#: outside ``pb_wf`` cannot be well formed; a Jacobian that reaches a
#: function position through a λ or a point (not written applied) is a
#: higher-order stuck class.
NOT_PB_WF = "not pb_wf: a let in a pullback's body that is not a let series"
JACOBIAN = "Remark 3.6: a Jacobian J f · r in a function position of a pullback's body, not written there"
EXCLUDED: frozenset[str] = frozenset()


#: the outcome of a stuck query outside the typed premise ``ztyped``
#: (``theories/pullback/ztyped.v``; docs/decisions-pullback.md, "Progress
#: beyond the first-order fragment: the premise is typed"): the paper's
#: ``0`` and sums are formal, and a ``0`` or sum where a rule needs a
#: number, a pair or an abstraction is stuck; not a divergence
OUTSIDE_ZTYPED = "outside ztyped"


def ztyped_rule(t: Tm, evaluator: PullbackEvaluator, answer: str | None = None) -> str | None:
    """``None`` when pullback-eval's extracted ``zcheck`` accepts ``t`` (the
    typed premise ``ztyped`` holds), else the rule that excludes it: the
    ``0`` (``zt_zero``) or the sum (``zt_plus``) at a type that is not
    dual, by :func:`.typecheck.outside_ztyped`, or ``ztyped`` when no
    single one is to blame.  ``answer``: pullback-eval's answer line to
    ``(zcheck t)``, already asked (else it is asked)."""
    try:
        if answer is None:
            evaluator.zcheck(t)
        else:
            read_answer(answer)
    except BadInput as e:
        if e.rule != "ztyped":
            raise
        where = outside_ztyped(t)
        return "ztyped" if where is None else where[0]
    return None


def counted_rule(t: Tm, evaluator: PullbackEvaluator, answer: str | None = None) -> str | None:
    """The rule by which the campaign counts a well-formed query outside
    ``ztyped`` (:func:`ztyped_line`), ``None`` for one it does not count.
    The verdict is the extracted ``zcheck``'s (``answer``: its answer line
    to ``(zcheck t)``, already asked, else it is asked): a query it accepts
    is not counted, without the Python twin; a query it refuses (for any
    reason) is counted by the rule :func:`.typecheck.outside_ztyped` names,
    and not counted when that names none."""
    if answer is None:
        try:
            evaluator.zcheck(t)
            return None
        except RevHandlersError:
            pass
    elif answer.startswith("(ok "):
        return None
    where = outside_ztyped(t)
    return None if where is None else where[0]


def _subterms(t: Tm):
    stack = [t]
    while stack:
        u = stack.pop()
        yield u
        stack.extend(reversed(children(u)))


def _path(t: Tm) -> list[int] | None:
    """The access path of ``y^{p}`` (index 0), innermost projection first."""
    p: list[int] = []
    while isinstance(t, Proj):
        p.append(t.i)
        t = t.s
    return p[::-1] if t == Var(0) else None


def _at(v: Tm, p: list[int]) -> Tm:
    for i in p:
        if not isinstance(v, Pair):
            return v
        v = v.s1 if i == 1 else v.s2
    return v


def _applies_jacobian(l: Tm) -> bool:
    """A let series that binds a Jacobian ``J f · a`` and applies it (the
    body of 17's premise, where (8) makes it the stuck ``y^p y^q``)."""
    bound: list[Tm] = []
    while isinstance(l, Let):
        bound.append(l.e)
        l = l.l
    return any(isinstance(e, App) and isinstance(e.s, Var) and j - e.s.n - 1 >= 0
               and isinstance(bound[j - e.s.n - 1], Jac)
               for j, e in enumerate(bound))


def _body_class(body: Tm, v: Tm) -> str | None:
    """The class of a pullback ``((Ω λy. body) · ω) V`` left in a stuck term,
    by the rule its body calls for; ``None`` when the body is not one of
    them."""
    if isinstance(body, App) and (p := _path(body.s)) is not None:
        f = _at(v, p)
        if isinstance(f, Jac):
            return JACOBIAN
        if isinstance(f, Lam):
            return "19b/19c: V^p an abstraction, the premise ends neither in a dual map nor in 0"
        return f"Remark 3.6: y^p y^q with V^p a {type(f).__name__}"
    if isinstance(body, Pb):
        return JACOBIAN if _applies_jacobian(body.p) else "17: the premise ends in no dual map nor in 0"
    if isinstance(body, Lam):
        return "18: the premise ends in no dual map"
    if isinstance(body, Dual):
        return "16b/16c: the premise ends in no dual map"
    return None


def stuck_class(t: Tm, evaluator: PullbackEvaluator, last: str | None = None) -> str:
    """The class of a query whose run ends stuck: :data:`NOT_PB_WF`, or by
    the first pullback of the stuck term (its trace's last term, in
    evaluation order) whose body calls for a rule with a premise (16b-20a;
    for ``⟨y, E⟩``, 20a, the body ``E``) or is a let that is not a let
    series (a point substituted into a let series by 18).  ``last``: the
    answer to ``(last Q)``, already asked."""
    if not pb_wf(t):
        return NOT_PB_WF
    try:
        last = evaluator.last_term(t) if last is None else read_last(last, t)
    except RevHandlersError as e:
        return f"unclassified ({e.kind})"
    if isinstance(last, str):
        return "unclassified (a non-finite number in the stuck term)"
    if not pb_wf(last):
        return "18/19b: a point substituted into a let series (a let that is not a let series after a step)"
    for u in _subterms(last):
        if isinstance(u, App) and isinstance(u.s, Pb):
            body = u.s.p
            if isinstance(body, Pair) and body.s1 == Var(0):
                what = _body_class(body.s2, u.p)
                if what is not None:
                    return what if what.startswith(("Remark", "17", "19")) else "20a: " + what
            elif (what := _body_class(body, u.p)) is not None:
                return what
    return "unclassified"


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
    if isinstance(value, reference.Opaque) or not _numeric(value):
        return None                 # (as_vector would say so, printing the whole term)
    try:
        return np.asarray(reference.as_vector(value, ty), dtype=float)
    except (BadInput, AttributeError):
        return None


def _numeric(value) -> bool:
    """The terms :func:`.reference.as_vector` reads: a numeric dual, a real,
    ``0``, pairs of them."""
    while isinstance(value, Pair):
        if not _numeric(value.s1):
            return False
        value = value.s2
    return isinstance(value, (NDual, Real, Zero))


def meaning(value: Tm, ty) -> np.ndarray | None:
    """The numbers a closed normal form of ``pullback-eval`` means, by the
    reference (a functional on a ground type by its values on the basis),
    with room on the stack for a deep normal form (:func:`~revhandlers.depth.room`,
    as :func:`.reference.run` has)."""
    with room():
        return numbers(reference.reify(reference.evaluate(value), ty), ty)


def agree(a: np.ndarray, b: np.ndarray) -> bool:
    """The same shape and numbers within :data:`RTOL` and :data:`ATOL`
    (NaN agrees with NaN, an infinity with the same infinity)."""
    if a.shape != b.shape:
        return False
    # numpy's isclose, |x - y| <= ATOL + RTOL |y| on finite numbers, one pair at
    # a time: on the few numbers of a query, ten times cheaper than the ufuncs
    for x, y in zip(a.ravel().tolist(), b.ravel().tolist()):
        if x == y or (x != x and y != y):           # the same number or infinity; NaN and NaN
            continue
        if not (math.isfinite(x) and math.isfinite(y) and abs(x - y) <= ATOL + RTOL * abs(y)):
            return False
    return True


def _text(value) -> str:
    """A value's S-expression, non-finite numbers spelled as pullback-eval
    prints them (``nan``, ``inf``, ``-inf``): linear in the text."""
    return to_sexp(value, finite=False)


class _Sexp:
    """A term's S-expression, printed when a message needs it (only a
    divergence's does)."""

    def __init__(self, t: Tm):
        self.t = t

    def __str__(self) -> str:
        return to_sexp(self.t)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


def _machine(evaluator: PullbackEvaluator, t: Tm, text, expected, rules: Counter | None,
             answers: tuple | None = None):
    """The continuation machine on ``t`` must give what the normaliser
    gave: ``expected`` is the normaliser's answer line (a value: the
    machine's answer must be the same text, its rules added, which alone
    are read) or its error.  True when it agrees; else, when its answer is
    not compared, why: ``timeout`` (past the time limit),
    ``answer-too-large`` (its answer alone past the limit)."""
    try:
        line = evaluator.cps_line(t) if answers is None else answers[1]
        if isinstance(expected, str) and (fired := same_run(expected, line)) is not None:
            if rules is not None:
                for name, count in fired:
                    rules[name] += count
            return True
        r = result_of(line)
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
        got = f"{_text(r.value)[:300]} in {r.steps} steps"
    if isinstance(expected, RevHandlersError):
        want = expected.kind
    else:
        e = result_of(expected)
        want = f"{_text(e.value)[:300]} in {e.steps} steps"
    raise Divergence(f"the continuation machine gives {got}, the normaliser {want}: {text}")


def check(case, evaluator: PullbackEvaluator, reference_run=reference.run, steps: Counter | None = None,
          allow_checker_gap: bool = False, rules: Counter | None = None, machine: bool = True,
          allow_stuck: bool = False, answers: tuple | None = None) -> str:
    """Compare pullback-eval's normaliser, its continuation machine (unless
    ``machine`` is false) and the reference on ``case``: the outcome's
    name, or :class:`Divergence`.  ``reference_run`` replaces the reference
    (to test the check itself); ``steps`` counts the steps to each value,
    ``rules`` the rules the machine fired; ``answers``: pullback-eval's
    answer lines to ``(run Q)``, ``(cps Q)`` and ``(zcheck Q)``, and to
    ``(last Q)`` when the run is stuck (else ``None``), already asked
    (:func:`run_batched`)."""
    t = term_of(case)
    order = order_of(t)
    text = _Sexp(t)
    try:
        ty_py = type_of(t)
    except RevHandlersError as e:
        raise Divergence(f"the Python checker rejects a generated query: {e}: {text}") from None
    bad = ill_formed(t)
    zline = answers[2] if answers is not None else None
    if steps is not None and bad is None and (counted := counted_rule(t, evaluator, zline)) is not None:
        steps[f"{OUTSIDE_ZTYPED}: {counted}"] += 1
    try:
        if answers is None:
            r, answer = evaluator.result_line(t)
        else:
            answer = answers[0]
            r = result_of(answer)
        value, ty, k = r.value, r.type, r.steps
    except RevHandlersError as e:
        if e.kind == "ill-formed" or bad is not None:
            if (e.kind, e.rule) == ("ill-formed", bad):
                return f"rejected ({order}, ill-formed: {bad})"
            raise Divergence(f"the well-formedness checks disagree: Python {bad or 'well formed'}, pullback-eval "
                             f"{e.kind} {e.rule} ({e.message.split(': (')[0][:200]}): {text}") from None
        if e.kind == "type":
            if allow_checker_gap:
                return f"{CHECKER_GAP} ({order})"
            raise Divergence(f"the Coq checker (pullback-eval) rejects a query the Python checker types as "
                             f"{pretty_type(ty_py, ascii=True)} ({e.message.split(': (')[0][:300]}): {text}") from None
        if e.kind == "non-finite":
            return f"value ({order}, a non-finite number inside a normal form: not compared)"
        if e.kind in ("stuck", "out-of-fuel", "timeout"):
            if machine and e.kind != "timeout":
                _machine(evaluator, t, text, e, None, answers)
            if e.kind != "stuck":
                return f"{e.kind} ({order}, {'pb_wf' if pb_wf(t) else 'not pb_wf'})"
            what = stuck_class(t, evaluator, answers[3] if answers is not None else None)
            if what in EXCLUDED:
                return f"excluded ({order}, stuck: {what})"
            outside = ztyped_rule(t, evaluator, zline)
            if outside is not None:
                return f"{OUTSIDE_ZTYPED} ({order}, stuck, {outside})"
            if allow_stuck:
                return f"stuck ({order}, {what})"
            premise = progress_rule(t)
            covered = ("in fo_progress's premises: the theorem says it steps" if premise is None
                       else f"outside fo_progress's premises, {premise}")
            raise Divergence(f"a well-typed query ends stuck ({what}; in the typed premise ztyped, zcheck accepts "
                             f"it; {covered}; "
                             f"{e.message.split(': (')[0][:200]}): {text}") from None
        if e.kind == "answer-too-large":
            if machine:
                _machine(evaluator, t, text, e, None, answers)
            return f"answer-too-large ({order}, not compared)"
        raise Divergence(f"pullback-eval fails ({e.kind}: {e.message.split(': (')[0][:300]}): {text}") from None
    if bad is not None:
        raise Divergence(f"pullback-eval runs a query the Python checker finds ill-formed ({bad}): {text}")
    if machine and (why := _machine(evaluator, t, text, answer, rules, answers)) is not True:
        return f"{why} ({order}, the continuation machine only)"
    if not types_agree(ty_py, ty):
        raise Divergence(f"the checkers give different types: {pretty_type(ty_py, ascii=True)} (Python), "
                         f"{pretty_type(ty, ascii=True)} (Coq): {text}")
    if steps is not None:
        steps["values"] += 1
        steps["steps to the values"] += k
        steps[f"steps {_bucket(k)}"] += 1
    try:
        ref = reference.run(t, ty_py) if reference_run is reference.run else reference_run(t)
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
             allow_checker_gap: bool = False, reference_run=reference.run, machine: bool = True,
             allow_stuck: bool = False, direct: bool = False) -> Report:
    """Cross-check ``n`` queries drawn reproducibly from ``seed``, through
    Hypothesis (which shrinks a divergence) or, with ``direct``, directly
    from ``random.Random`` (:mod:`.direct`, about six times cheaper to draw;
    a divergence is kept as drawn); the report's ``coverage`` counts the
    steps to the values and (as ``rule NAME``) the rules the machine
    fired."""
    own = evaluator is None
    evaluator = evaluator or PullbackEvaluator(timeout=timeout, fuel=fuel)
    steps: Counter = Counter()
    rules: Counter = Counter({name: 0 for name in RULES}) if machine else Counter()
    try:
        save = (lambda c, m: write_corpus(c, corpus, seed, m)) if corpus is not None else None
        if direct:
            pipe = Pipe(("--fuel", str(int(evaluator.fuel if evaluator.fuel is not None else fuel))),
                        evaluator.timeout or timeout, path=pullback_eval_path())
            try:
                report = run_batched(
                    direct_cases(budget),
                    lambda c, a: check(c, evaluator, reference_run, steps, allow_checker_gap, rules, machine,
                                       allow_stuck, answers=a),
                    n, seed, save=save, progress=progress, pipe=pipe, coverage=lambda: _coverage(steps, rules))
            finally:
                pipe.close()
        else:
            report = run_campaign(
                cases(budget),
                lambda c: check(c, evaluator, reference_run, steps, allow_checker_gap, rules, machine, allow_stuck),
                n, seed, save=save, progress=progress, coverage=lambda: _coverage(steps, rules))
    finally:
        if own:
            evaluator.close()
    report.coverage.update(steps)
    report.coverage.update({f"rule {name}": c for name, c in rules.items()})
    return report


def _coverage(steps: Counter, rules: Counter) -> Counter:
    """The counters a campaign adds to its report's coverage, as they stand."""
    return steps + Counter({f"rule {name}": c for name, c in rules.items()})


def _job(args):
    n, seed, budget, corpus, timeout, fuel, allow, machine, allow_stuck, direct = args
    return campaign(n, seed, budget, Path(corpus) if corpus else None, progress=count_done, timeout=timeout,
                    fuel=fuel, allow_checker_gap=allow, machine=machine, allow_stuck=allow_stuck, direct=direct)


def ztyped_line(coverage: Counter) -> str:
    """How many well-formed queries are outside the typed premise
    ``ztyped``, by the rule that excludes them (:func:`counted_rule`)."""
    rules = sorted(k for k in coverage if k.startswith(OUTSIDE_ZTYPED + ": "))
    counts = ", ".join(f"{k[len(OUTSIDE_ZTYPED) + 2:]} {coverage[k]}" for k in rules)
    return f"{OUTSIDE_ZTYPED} (well-formed queries): {sum(coverage[k] for k in rules)}" + (f" ({counts})" if counts else "")


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
    require_extra(COMMAND, "hypothesis")     # before anything starts: one line, exit code 2
    if args.scheduler:
        require_dask(COMMAND)
    args.jobs = jobs_for(args)
    journal = open_journal(args, COMMAND, {k: getattr(args, k) for k in (
        "n", "seed", "jobs", "budget", "timeout", "fuel", "allow_checker_gap", "no_machine", "allow_stuck",
        "hypothesis")})
    stopped = None
    try:
        reports = run_jobs(_job, args.n, args.seed, args.jobs,
                           (args.budget, str(Path(args.corpus)), args.timeout, args.fuel, args.allow_checker_gap,
                            not args.no_machine, args.allow_stuck, not args.hypothesis),
                           "pullback fuzz", journal=journal, scheduler=args.scheduler, unit="queries")
    except Interrupted as e:             # the summary of what was checked, then the interrupt
        reports, stopped = e.reports, e
    except RevHandlersError as e:
        return could_not_run("pullback fuzz", e)
    reproduce = (f"{COMMAND} --n {args.n} --budget {args.budget} --fuel {args.fuel}"
                 + (" --allow-checker-gap" if args.allow_checker_gap else "")
                 + (" --allow-stuck" if args.allow_stuck else "")
                 + (" --hypothesis" if args.hypothesis else "")
                 + (" --no-machine" if args.no_machine else ""))
    code = summarize(reports, args.seed, args.jobs, out, reproduce, unit="queries")
    coverage = sum((r.coverage for r in reports), Counter())
    print(steps_table(coverage), file=out)
    print(ztyped_line(coverage), file=out)
    if not args.no_machine:
        print(rule_table(coverage), file=out)
    if stopped is not None:
        raise stopped
    if args.no_machine:
        return code
    if code:
        return code
    return holes_verdict(rule_holes(coverage), args.n, args.allow_holes, args.holes_fail_from, out, unit="queries")


def register(sub) -> None:
    t = sub.add_parser("fuzz", help="cross-check pullback-eval and the numpy reference on random queries")
    add_run_options(t, unit="queries")
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
    for flag, text in (
            ("--allow-stuck", "count a query in the typed premise ztyped that ends stuck as an outcome named by its "
                              "class, not a divergence (stuck queries outside ztyped, and the classes "
                              "docs/decisions-pullback.md excludes, are outcomes either way)"),
            ("--hypothesis", "draw the queries through Hypothesis, which shrinks a divergence (about six times "
                             "slower to draw); by default they are drawn directly from random.Random and a "
                             "divergence is written as drawn"),
            ("--no-machine", "do not run the continuation machine (nor count the rules)")):
        t.add_argument(flag, action="store_true", help=text)
    t.add_argument("--corpus", default="tests/corpus/pullback", help="where shrunk divergences are written")
    add_journal_options(t)
    add_options(t)
    t.set_defaults(func=cmd_fuzz)
