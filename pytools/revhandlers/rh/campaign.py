"""Differential testing: generated well-typed programs run on three
engines; ``revhandlers fuzz``.

The engines: the **model**, ``rh-eval --small-step --list-vectors``, which
is extracted from Coq throughout (the small-step evaluator, and the list
model of vectors); the **fast** evaluator, ``rh-eval`` as users run it (the
environment machine of machine.v, proved equal to the small-step one, on
the float arrays of extracted/vec.ml); and the independent numpy
**reference** semantics.  For every program drawn by :mod:`revhandlers.rh.gen`:

* both type checkers must accept it, with the same type;
* the model and the fast evaluator must give the same answer bit for bit
  (value, heap, step count, or the same failure): they perform the same
  IEEE operations in the same order;
* the model and the reference must agree: the same value and final heap
  (relative tolerance 1e-7, absolute 1e-9; NaN agrees with NaN and an
  infinity with the same infinity), or the same runtime failure;
* every ``M.rd(x.N)(L)`` the reference evaluates must agree with central
  finite differences of ``x ↦ N`` at ``L`` in a random direction ``u``
  (``<rd, u>`` against ``(<C, N(L + hu)> - <C, N(L - hu)>) / 2h``, relative
  tolerance 1e-4, as PyTorch's fast gradcheck does), unless ``N`` uses
  ``round``, ``maxpool`` or ``relu``, which are not smooth.

A program the verified evaluator cannot finish within its fuel, or within
the per-program time limit (``--timeout``), is skipped, not compared, and
counted as such in the report.

A campaign is fast: program ``i`` of seed ``s`` comes from a seeded
``random.Random`` (:func:`revhandlers.rh.gen.seeded_program`), each
``rh-eval --serve`` process gets the requests of a batch of programs in one
write and answers them in order (:class:`Pipe`), the reference runs in
this process, and answers are compared as text where text suffices.  A
divergence is shrunk by shrinking the program's recorded choices
(:func:`revhandlers.rh.gen.shrink_choices`), written to the corpus directory as
an S-expression file that names the seed, and replayed by the test suite
from then on (``tests/test_fuzz.py``).  Exit codes, like Csmith's
comparison driver: 0 no divergence, 1 divergence, 2 could not run; and 3:
no divergence, but a rule never fired in a campaign of at least
``--holes-fail-from`` programs (1000 by default; below, a warning;
``--allow-holes`` accepts it at every size).
"""

from __future__ import annotations

import gc
import hashlib
import itertools
import re
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..cluster import add_options as add_cluster_options, jobs_for, require_dask
from ..errors import RevHandlersError, RuntimeFailure, require_extra
from ..harness import (Divergence, Report, add_holes_option, add_run_options, could_not_run, count_done, holes_verdict,
                       journal_for, run_jobs, summarize, write_corpus as _write_corpus)
from ..interrupt import Interrupted
from ..journal import add_options, open_for
from ..pipe import TIMEOUT_ANSWER, Pipe
from . import autodiff as ad, prims, reference
from .engine import VerifiedEvaluator
from .gen import recorded_program, replayed_program, seeded_program, shrink_choices
from .sexp import Result, program_sexp, read_answer, ty_sexp
from .syntax import Add, App, Const, Let, Program, Proj, Rd, Tuple, Var
from .typecheck import check_program

RTOL, ATOL = 1e-7, 1e-9
FD_RTOL, FD_ATOL = 1e-4, 1e-6


def _values_agree(a, b) -> bool:
    """Each number within ATOL + RTOL times the largest finite magnitude in
    its vector (a component that is the small difference of large terms
    carries their rounding error: summed in another order it can be off by
    far more than RTOL of itself), NaN with NaN, an infinity with the same
    infinity; the same tuple structure."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape:
            return False
        if a.tobytes() == b.tobytes():
            return True
        with np.errstate(invalid="ignore", over="ignore"):
            mag = np.where(np.isfinite(b), np.abs(b), 0.0)
            scale = np.maximum(mag, mag.max(initial=0.0))
            ok = (np.abs(a - b) <= ATOL + RTOL * scale) | (np.isnan(a) & np.isnan(b)) | (np.isinf(a) & (a == b))
        return bool(ok.all())
    return isinstance(b, tuple) and len(a) == len(b) and all(_values_agree(x, y) for x, y in zip(a, b))


def _identical(a, b) -> bool:
    """Bit for bit: the same shapes and the same binary64 patterns."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
                and np.asarray(a, dtype="<f8").tobytes() == np.asarray(b, dtype="<f8").tobytes())
    return isinstance(b, tuple) and len(a) == len(b) and all(_identical(x, y) for x, y in zip(a, b))


def _uses(m, names) -> bool:
    """Whether a term uses one of the primitives ``names``."""
    stack = [m]
    while stack:
        t = stack.pop()
        kind = type(t)
        if kind is App:
            if t.f.prim.name in names:
                return True
            stack.append(t.arg)
        elif kind is Var or kind is Const:
            pass
        elif kind in _SUBTERMS:
            stack.extend(getattr(t, f) for f in _SUBTERMS[kind])
        elif kind is Tuple:
            stack.extend(t.items)
        else:           # a kind of term this walk does not know: every field that is a tree
            for f in getattr(t, "__dataclass_fields__", {}):
                v = getattr(t, f)
                stack.extend(c for c in (v if isinstance(v, tuple) else (v,)) if hasattr(c, "__dataclass_fields__"))
    return False


#: the subterms of each kind of term with a fixed number of them
_SUBTERMS = {Add: ("left", "right"), Proj: ("arg",), Let: ("bound", "body"), Rd: ("cotangent", "body", "point")}


RD_CHECKS = Counter()
COVERAGE = Counter()

#: Every rule of the semantics and every case of the rewritings; a
#: campaign in which one never fires has a hole in its generator.
RULES = ["head_step_tm_app", "head_step_tm_add", "head_step_tm_proj", "head_step_tm_let", "head_step_tm_rd",
         "step_cmd_let_val", "step_cmd_revhandle", "step_conf_get", "step_conf_put",
         "rh_ret", "rh_let_var", "rh_op", "rh_rev", "rh_term",
         "R-Var", "R-VarO", "R-Const", "R-Fun", "R-Add", "R-Tuple", "R-Proj", "R-Let", "R-Rd"]
#: The size of a campaign from which a rule that never fired is an error
#: (exit code 3); below, a warning.  The rarest rule, ``rh_rev``, fired in
#: 1.8% of the programs of a 10^6-program campaign (testing guide), so it
#: misses 1000 programs with probability about exp(-18)
#: (docs/decisions.md, "Coverage holes of a small campaign").
HOLES_FAIL_FROM = 1000
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


def _flat(v) -> np.ndarray:
    """The numbers of ``v`` in one array (a single vector's own array: it is
    only read)."""
    if isinstance(v, ad.Node):
        return v.value
    parts = _leaves(v)
    return np.concatenate(parts) if parts else np.zeros(0)


def _rebuild(like, flat):
    return _refill(like, iter(flat))


def _refill(s, it):
    """``s`` with new leaves made of the arrays of ``it`` in order (not a
    nested function that calls itself: that is a reference cycle, left to
    the cyclic collector)."""
    return ad.Node(next(it)) if isinstance(s, ad.Node) else tuple([_refill(x, it) for x in s])


#: directions of the finite differences: fixed standard normal numbers, a
#: window of them chosen by the point (so a program checks the same way in
#: a campaign, alone, and in the corpus)
_DIRECTIONS = np.random.default_rng(20261202).standard_normal(1 << 14)


def _check_rd(term: Rd, env, cot, point, result, h: float = 1e-6) -> None:
    """Central finite differences of ``x ↦ <cot, N(x)>`` at the point in a
    direction ``u``, against ``<result, u>``: a wrong component of the
    reverse derivative shows in almost every direction."""
    if _uses(term.body, prims.NONSMOOTH):
        RD_CHECKS["rd terms not checked (round, maxpool or relu)"] += 1
        return
    total = _flat(point)
    got = _flat(result)
    if not np.isfinite(got).all() or np.abs(total).max(initial=0) > 1e3:
        return
    cflat = _flat(cot)
    sizes = [x.size for x in _leaves(point)]
    k = total.size
    start = zlib.crc32(total.tobytes()) % (_DIRECTIONS.size - k) if k < _DIRECTIONS.size else 0
    u = _DIRECTIONS[start:start + k]
    ends = list(itertools.accumulate(sizes))
    spans = list(zip([0] + ends[:-1], ends))
    saved = reference.rd_observer
    reference.rd_observer = None        # the body's own rd terms are checked where they are evaluated
    try:
        vals = []
        hu = h * u      # total ± hu: the same numbers as total + (±1 · h) · u
        for moved in (total + hu, total - hu):
            parts = [moved[a:b] for a, b in spans]
            out = reference.eval_tm(term.body, {**env, term.var: _rebuild(point, parts)})
            vals.append(float(cflat @ _flat(out)))
    finally:
        reference.rd_observer = saved
    want = (vals[0] - vals[1]) / (2 * h)
    if not np.isfinite(want):
        return
    gu = got * u
    have = float(gu.sum())
    scale = max(1.0, float(np.abs(gu).sum()), abs(want))
    # rounding in the two evaluations: about eps |<cot, N>| / h
    noise = 1e-9 * max(abs(vals[0]), abs(vals[1]))
    if abs(have - want) > FD_RTOL * scale + FD_ATOL * scale + noise:
        raise Divergence(f"rd term disagrees with finite differences in direction {u}: "
                         f"AD {have!r} (gradient {got}), FD {want!r}")
    RD_CHECKS["rd terms checked against finite differences"] += 1


@dataclass
class Outcome:
    kind: str                       # "agree", "skipped"
    detail: str = ""


#: the flags of the model engine (rh-eval extracted from Coq throughout)
MODEL_FLAGS = ("--small-step", "--list-vectors")

#: the answer put in place of one that did not come in time, or at all


# ------------------------------------------------------ reading answers

_TOKEN = re.compile(r'[()]|[^\s()"]+')
_COVERAGE = re.compile(r"\(coverage \(counts((?: \([^()\s\"]+ \d+\))*)\) (.*)\)\Z", re.S)
_COUNT = re.compile(r"\(([^()\s\"]+) (\d+)\)")


def _tree(text: str):
    stack: list[list] = [[]]
    for t in _TOKEN.findall(text):
        if t == "(":
            stack.append([])
        elif t == ")":
            x = stack.pop()
            stack[-1].append(x)
        else:
            stack[-1].append(t)
    return stack[0][0]


def _value(s):
    if s[0] == "const":
        return np.array([float(x) for x in s[1:]], dtype=float)
    if s[0] == "tuple":
        return tuple(_value(x) for x in s[1:])
    raise ValueError(s[0])


def _answer(line: str):
    """A result line of rh-eval as a :class:`Result`, an error line as the
    error (returned, not raised).  Lines with quoted names or anything
    unusual go through :func:`revhandlers.rh.sexp.read_answer`."""
    if line.startswith("(result (value ") and '"' not in line:
        try:
            s = _tree(line)
            fields = {f[0]: f for f in s[1:]}
            heap = {e[0]: np.array([float(x) for x in e[1]], dtype=float) for e in fields["heap"][1:]}
            return Result(_value(fields["value"][1]), heap, int(fields["steps"][1]))
        except (ValueError, KeyError, IndexError, TypeError):
            pass
    try:
        return read_answer(line)
    except RevHandlersError as e:
        # without its traceback: kept by the caller, whose frame the
        # traceback holds, it would be a reference cycle holding the batch
        return e.with_traceback(None)


def _ask(ev, line: str) -> str:
    """One request to a :class:`VerifiedEvaluator`; a timeout as an answer."""
    try:
        return ev.request(line).rstrip("\r\n")
    except RevHandlersError as e:
        if e.kind == "timeout":
            return TIMEOUT_ANSWER
        raise


# ---------------------------------------------------------- comparing

def _reference(prog: Program, checked: bool) -> Result:
    """The reference's result; ``checked``: the Python checker has already
    accepted ``prog`` (it is not checked again)."""
    if not checked:
        return reference.run_reference(prog)
    try:
        state = {d.name: np.zeros(d.size) for d in prog.locs}
        for name, values in prog.heap:
            state[name] = np.array(values, dtype=float)
        value = reference._Machine(prog, state).exec(prog.main, {}, None)
    except MemoryError:
        raise RuntimeFailure("out-of-memory", "the evaluation ran out of memory") from None
    return Result(reference.numpy_value(value), {d.name: state[d.name] for d in prog.locs}, None)


def compare(prog: Program, ty_py, check_answer: str, coverage_answer: str, fast=None,
            check_rd: bool = True, checked: bool = False) -> Outcome:
    """Raise :class:`Divergence` if the engines disagree on ``prog``, given
    the Python checker's type ``ty_py`` (or its error), the model's answers
    to ``(check P)`` and ``(coverage P)``, and the fast evaluator's answer
    to ``(run P)`` (a line, a :class:`Result` or an error; None: no fast
    evaluator).  Counts the rule coverage in ``COVERAGE``."""
    if isinstance(ty_py, RevHandlersError):
        raise Divergence(f"the Python checker rejects a generated program: {ty_py}")
    if check_answer != f"(ok (type {ty_sexp(ty_py)}))":
        ty_v = _answer(check_answer)
        if isinstance(ty_v, RevHandlersError):
            if ty_v.kind == "timeout":
                return Outcome("skipped", ty_v.kind)
            if ty_v.kind in ("io", "internal"):
                raise ty_v                    # the evaluator could not run
            raise Divergence(f"the extracted checker rejects a generated program: {ty_v}")
        if ty_py != ty_v:
            raise Divergence(f"the checkers give different types: {ty_py} and {ty_v}")
    m = _COVERAGE.match(coverage_answer)
    if m is None:
        e = _answer(coverage_answer)
        if isinstance(e, RevHandlersError) and e.kind == "timeout":
            return Outcome("skipped", e.kind)
        if isinstance(e, RevHandlersError):
            raise e
        raise RevHandlersError("internal", f"unexpected answer to coverage: {coverage_answer[:200]}")
    for name, k in _COUNT.findall(m.group(1)):
        COVERAGE[name] += int(k)
    model_line = m.group(2)
    a = _answer(model_line)
    a_err = a if isinstance(a, RevHandlersError) else None
    if a_err is not None and a_err.kind == "timeout":
        return Outcome("skipped", a_err.kind)
    if fast is not None:
        if isinstance(fast, str) and fast == model_line and a_err is None:
            RD_CHECKS["fast evaluator identical to the model"] += 1     # the same text: the same bits
        else:
            f = _answer(fast) if isinstance(fast, str) else fast
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
    if a_err is not None and a_err.kind in ("io", "internal"):
        raise a_err
    reference.rd_observer = _check_rd if check_rd else None
    overflows = []
    try:
        with np.errstate(over="call", call=lambda kind, flag: overflows.append(kind)):
            b = _reference(prog, checked)
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
    differ = None
    if not _values_agree(a.value, b.value):
        differ = f"values differ: verified {a.value}, reference {b.value}"
    else:
        for loc in a.heap:
            if not _values_agree(a.heap[loc], b.heap[loc]):
                differ = f"heap {loc} differs: verified {a.heap[loc]}, reference {b.heap[loc]}"
                break
    if differ is not None:
        if overflows:
            # a number past 1.8e308 on the way: the reference's intermediate
            # values are not the evaluator's (it differentiates another way),
            # so an overflow in one need not happen in the other
            return Outcome("skipped", "differ after an overflow in the reference")
        raise Divergence(differ)
    return Outcome("agree")


def crosscheck(prog: Program, verified: VerifiedEvaluator, check_rd: bool = True,
               fast: VerifiedEvaluator | None = None) -> Outcome:
    """Raise :class:`Divergence` if the engines disagree on ``prog`` (one
    program, one request at a time).  ``verified`` is the model engine (it
    also counts the rule coverage); ``fast``, when given, the default
    ``rh-eval`` (or anything with ``run(prog)``)."""
    try:
        ty_py = check_program(prog)
    except RevHandlersError as e:
        ty_py = e
    if isinstance(ty_py, RevHandlersError):
        raise Divergence(f"the Python checker rejects a generated program: {ty_py}")
    text = program_sexp(prog)
    check_line = _ask(verified, f"(check {text})")
    coverage_line = _ask(verified, f"(coverage {text})")
    f = None
    if fast is not None:
        if hasattr(fast, "request"):
            f = _ask(fast, f"(run {text})")
        else:
            try:
                f = fast.run(prog)
            except RevHandlersError as e:
                f = e
    return compare(prog, ty_py, check_line, coverage_line, f, check_rd=check_rd)


# ------------------------------------------------------------- batches

def send_batch(progs: list[Program], model: Pipe, fast: Pipe) -> None:
    """Queue the requests of a batch: ``(check P)`` and ``(coverage P)`` to
    the model, ``(run P)`` to the fast evaluator (their answers are read by
    :func:`finish_batch`; batches sent before are answered first)."""
    texts = [program_sexp(p) for p in progs]
    model.send([f"({req} {t})" for t in texts for req in ("check", "coverage")])
    fast.send([f"(run {t})" for t in texts])


def finish_batch(progs: list[Program], model: Pipe, fast: Pipe, check_rd: bool = True,
                 stop_at_divergence: bool = True) -> list[tuple[str | None, str | None]]:
    """The verdicts on a batch sent by :func:`send_batch` (the oldest one
    not yet finished): ``(outcome, None)`` or ``(None, divergence
    message)`` for each, up to the first divergence (with
    ``stop_at_divergence``).  A crash of a check is a divergence too."""
    tys = []
    for p in progs:          # while the evaluators work
        try:
            tys.append(check_program(p))
        except RevHandlersError as e:
            tys.append(e)
        except Exception as e:  # noqa: BLE001 - a crash of the checker: the program's divergence
            tys.append(RevHandlersError("internal", f"crash: {type(e).__name__}: {e}"))
    m = model.receive(2 * len(progs))
    f = fast.receive(len(progs))
    out = []
    for j, p in enumerate(progs):
        try:
            o = compare(p, tys[j], m[2 * j], m[2 * j + 1], f[j], check_rd=check_rd, checked=True)
            out.append((o.kind + (f" ({o.detail})" if o.detail else ""), None))
        except Divergence as e:
            out.append((None, str(e)))
        except Exception as e:  # noqa: BLE001 - a crash of a check or an engine: reported like a divergence
            out.append((None, f"crash: {type(e).__name__}: {e}"[:2000]))
        if out[-1][1] is not None and stop_at_divergence:
            break
    return out


def check_batch(progs: list[Program], model: Pipe, fast: Pipe, check_rd: bool = True,
                stop_at_divergence: bool = True) -> list[tuple[str | None, str | None]]:
    """Cross-check a batch of programs, with no other batch in the pipes:
    :func:`send_batch`, then :func:`finish_batch`."""
    send_batch(progs, model, fast)
    return finish_batch(progs, model, fast, check_rd, stop_at_divergence)


# ------------------------------------------------------------- campaigns

def _corpus_name(prog: Program) -> str:
    return hashlib.sha256(program_sexp(prog).encode()).hexdigest()[:12]


def write_corpus(prog: Program, corpus: Path, seed: int, message: str) -> Path:
    return _write_corpus(program_sexp(prog), corpus, seed, message, "revhandlers fuzz",
                         shrunk_by="reducing its generator's choices")


#: seconds the verified evaluator may spend on one generated program
TIMEOUT = 10.0
#: programs per round trip to the evaluators
BATCH = 100
#: candidates, and seconds, the shrinker may spend on a divergence
SHRINK_BUDGET, SHRINK_SECONDS = 3000, 600.0


def _kind(message: str) -> str:
    """What a divergence is about (a shrunk program must keep it)."""
    return re.sub(r"\d+", "N", message.split(":")[0])


def shrink(seed: int, index: int, max_size: int, model: Pipe, fast: Pipe, message: str,
           check_rd: bool = True) -> tuple[Program, str]:
    """The smallest program found, by reducing the choices that made
    program ``index`` of ``seed``, that still diverges the same way, and
    its divergence."""
    prog, choices = recorded_program(seed, index, max_size)
    kind = _kind(message)
    found = {}
    deadline = time.monotonic() + SHRINK_SECONDS

    def fails(ch) -> bool:
        if time.monotonic() > deadline:
            return False
        p = replayed_program(ch, max_size)
        saved = RD_CHECKS.copy(), COVERAGE.copy()
        try:
            (_, msg), = check_batch([p], model, fast, check_rd)
        finally:
            RD_CHECKS.clear(), COVERAGE.clear()
            RD_CHECKS.update(saved[0]), COVERAGE.update(saved[1])
        if msg is not None and _kind(msg) == kind:
            found[tuple(ch)] = (p, msg)
            return True
        return False

    best = shrink_choices(choices, fails, budget=SHRINK_BUDGET)
    return found.get(tuple(best), (prog, message))


#: the cyclic collector's first threshold during a campaign (Python's
#: default is 700): see :func:`_collector`
GC_THRESHOLD = 20_000


@contextmanager
def _collector() -> Iterator[None]:
    """The cyclic garbage collector set for a campaign, as it was afterwards.

    A campaign's objects are freed by their reference counts (the programs,
    the reference's graphs) except a few cycles per program (some backward
    closures of :mod:`revhandlers.rh.autodiff`); with Python's defaults the
    collector ran about once per 11 programs and its full collections went
    through every object the imports had made, about 0.1 ms per program, a
    tenth of the campaign's Python time.  Here the objects alive at the start
    are frozen (never scanned again; :func:`gc.freeze`) and the first
    generation is collected after :data:`GC_THRESHOLD` net allocations
    instead of 700: the cycles are still collected, a few times per
    thousand programs (docs/decisions.md, "The campaign's rate: the
    remainder outside the phases").  Campaigns running at once in threads
    of one process (a Dask worker with several threads) share the
    settings: the first to start sets them, the last to end restores them."""
    with _COLLECTOR_LOCK:
        if not _COLLECTOR_USERS:
            _COLLECTOR_SAVED[:] = gc.get_threshold()
            gc.freeze()
            gc.set_threshold(GC_THRESHOLD, *_COLLECTOR_SAVED[1:])
        _COLLECTOR_USERS.append(None)
    try:
        yield
    finally:
        with _COLLECTOR_LOCK:
            _COLLECTOR_USERS.pop()
            if not _COLLECTOR_USERS:
                gc.set_threshold(*_COLLECTOR_SAVED)
                gc.unfreeze()


_COLLECTOR_LOCK = threading.Lock()
#: one entry per campaign inside :func:`_collector`; the thresholds it replaced
_COLLECTOR_USERS: list[None] = []
_COLLECTOR_SAVED: list[int] = []


def campaign(n: int, seed: int, max_size: int = 10, corpus: Path | None = None,
             progress=None, timeout: float = TIMEOUT, batch: int = BATCH, check_rd: bool = True,
             start: int = 0, shrink_divergence: bool = True, pipes: tuple | None = None) -> Report:
    """Cross-check programs ``start … n-1`` of ``seed`` (the programs are the
    same on every machine; which of them are skipped for time may vary with
    its speed).  The first divergence is shrunk (unless ``shrink_divergence``
    is false: a batch of a campaign on a cluster, shrunk by the client);
    with ``corpus``, the smallest program is written there.
    ``progress(report, k)`` after each batch of ``k`` programs.  ``pipes``:
    the model's and the fast evaluator's :class:`Pipe`, kept open (by a
    worker of a cluster, from one batch to the next); else new ones,
    closed at the end."""


    RD_CHECKS.clear()
    COVERAGE.clear()
    report = Report()
    # with a journal (--journal, --resume): each batch's verdicts and counts
    # are written to it; the programs it holds are not checked again
    journal = journal_for(seed)
    job = journal.job(seed) if journal is not None else None
    if job is not None and (job.divergence is not None or job.done >= n):
        return job.report()
    first, prior = (max(start, job.done), job.seconds) if job is not None else (start, 0.0)
    if job is not None:
        report.programs = job.done
        report.skipped = sum(v.startswith("skipped") for v in job.verdicts)
        report.outcomes.update(Counter(job.verdicts))
        RD_CHECKS.update(job.outcomes)
        COVERAGE.update(job.coverage)
    model, fast = pipes if pipes is not None else (Pipe(MODEL_FLAGS, timeout), Pipe((), timeout))
    t0 = time.time()

    def finish(b0: int, idx: range, progs: list[Program]) -> bool:
        """Batch ``b0``'s verdicts into the report (and the journal); true
        at a divergence (no batch is then left in the pipes)."""
        began, counts = time.time(), (RD_CHECKS.copy(), COVERAGE.copy())
        results = finish_batch(progs, model, fast, check_rd)
        verdicts: list[str] | None = []
        for i, (outcome, msg) in zip(idx, results):
            if msg is not None:
                model.receive()             # the next batch's answers, not checked: the pipes are left empty
                fast.receive()
                if journal is not None:
                    journal.add(seed, b0, verdicts, RD_CHECKS - counts[0], COVERAGE - counts[1],
                                time.time() - began)
                    verdicts = None
                if not shrink_divergence:
                    report.divergence = f"program {i}: {msg}"
                    break
                prog, msg = shrink(seed, i, max_size, model, fast, msg, check_rd)
                report.divergence = f"program {i}: {msg}"
                if corpus is not None:
                    report.corpus_file = str(write_corpus(prog, corpus, seed, msg))
                if journal is not None:
                    journal.diverged(seed, report.divergence, report.corpus_file)
                break
            assert outcome is not None and verdicts is not None
            report.programs += 1
            report.outcomes[outcome] += 1
            verdicts.append(outcome)
            if outcome.startswith("skipped"):
                report.skipped += 1
        if journal is not None and verdicts is not None:
            journal.add(seed, b0, verdicts, RD_CHECKS - counts[0], COVERAGE - counts[1], time.time() - began)
        if progress:
            progress(report, len(results))
        return bool(report.divergence)

    try:
        with _collector():
            # one batch ahead: batch k+1 is generated and sent before batch k is
            # checked, so the evaluators work while this process compares
            ahead: tuple[int, range, list[Program]] | None = None
            for b0 in range(first, n, batch):
                idx = range(b0, min(n, b0 + batch))
                progs = [seeded_program(seed, i, max_size) for i in idx]
                send_batch(progs, model, fast)
                if ahead is not None and finish(*ahead):
                    ahead = None
                    break
                ahead = (b0, idx, progs)
            if ahead is not None:
                finish(*ahead)
    finally:
        if pipes is None:
            model.close()
            fast.close()
        report.seconds = prior + time.time() - t0
    report.outcomes.update(RD_CHECKS)
    report.coverage.update(COVERAGE)
    return report


def _job(args):
    n, seed, max_size, corpus, timeout = args
    return campaign(n, seed, max_size, Path(corpus) if corpus else None, timeout=timeout, progress=count_done)


_WORKER_PIPES: dict[float, tuple] = {}


def _batch_job(args):
    """Programs ``b0 … b1-1`` of ``seed``, a task of a campaign on a Dask
    cluster (:mod:`revhandlers.cluster`): not shrunk, nothing written.  The
    worker process keeps its two ``rh-eval --serve`` processes from one
    batch to the next (a :class:`Pipe` restarts its process if it died)."""
    seed, b0, b1, max_size, _corpus, timeout = args
    if timeout not in _WORKER_PIPES:
        _WORKER_PIPES[timeout] = (Pipe(MODEL_FLAGS, timeout), Pipe((), timeout))
    return campaign(b1, seed, max_size, None, timeout=timeout, start=b0, shrink_divergence=False,
                    pipes=_WORKER_PIPES[timeout])


def _shrinker(max_size: int, corpus: str, timeout: float):
    """Shrink a divergence found on the cluster here, as a job would."""
    def shrink_here(seed: int, index: int, message: str) -> tuple[str, str | None]:
        model = Pipe(MODEL_FLAGS, timeout)
        fast = Pipe((), timeout)
        try:
            prog, msg = shrink(seed, index, max_size, model, fast, message)
        finally:
            model.close()
            fast.close()
        written = str(write_corpus(prog, Path(corpus), seed, msg)) if corpus else None
        return f"program {index}: {msg}", written
    return shrink_here


def cmd_fuzz(args, out) -> int:
    # the package's test extra, as for the other campaigns (the program
    # strategies of revhandlers.rh.gen for property tests are Hypothesis's)
    require_extra("revhandlers fuzz", "hypothesis")     # before anything starts: one line, exit code 2
    if args.scheduler:
        require_dask("revhandlers fuzz")
    args.jobs = jobs_for(args)
    journal = open_for(args, "revhandlers fuzz", {k: getattr(args, k) for k in ("n", "seed", "jobs", "max_size",
                                                                                "timeout")})
    stopped = None
    try:
        reports = run_jobs(_job, args.n, args.seed, args.jobs,
                           (args.max_size, str(Path(args.corpus)), args.timeout), "fuzz", journal=journal,
                           scheduler=args.scheduler, batch_job=_batch_job,
                           shrink=_shrinker(args.max_size, str(Path(args.corpus)), args.timeout))
    except Interrupted as e:             # the summary of what was checked, then the interrupt
        reports, stopped = e.reports, e
    except RevHandlersError as e:
        return could_not_run("fuzz", e)
    code = summarize(reports, args.seed, args.jobs, out,
                     f"revhandlers fuzz --n {args.n} --max-size {args.max_size}")
    coverage = sum((r.coverage for r in reports), Counter())
    print(coverage_table(coverage), file=out)
    if stopped is not None:
        raise stopped
    if code:
        return code
    return holes_verdict(coverage_holes(coverage), args.n, args.allow_holes, args.holes_fail_from, out)


def register(sub) -> None:
    t = sub.add_parser("fuzz", help="cross-check generated programs on the verified evaluator and the reference")
    add_run_options(t, unit="programs")
    t.add_argument("--max-size", type=int, default=10, help="size budget of a program (default 10)")
    t.add_argument("--timeout", type=float, default=TIMEOUT,
                   help=f"seconds the verified evaluator may spend on one program before it is skipped (default {TIMEOUT:g})")
    t.add_argument("--corpus", default="tests/corpus", help="where shrunk divergences are written")
    t.add_argument("--allow-holes", action="store_true", help="do not fail when a rule never fires")
    add_holes_option(t, HOLES_FAIL_FROM)
    add_cluster_options(t)
    add_options(t)
    t.set_defaults(func=cmd_fuzz)
