"""The bound on the size of pullback-eval's answers (docs/sexp-format.md,
"pullback-eval": ``answer-too-large``) and the Python side that reads them.

A normal form may be exponentially larger than its term: ``let x = 1.0 in
let x = ⟨x, x⟩ in …`` n times is a tree of 2^n leaves.  An answer past the
limit is one error line, exit code 1, and the Python reader raises that
error without reading the line.  Expected texts and lengths are built here
from the definitions of the format, not by the code under test."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from revhandlers.errors import RuntimeFailure
from revhandlers.pullback import reference
from revhandlers.pullback.campaign import check
from revhandlers.pullback.engine import PullbackEvaluator
from revhandlers.pullback.sexp import MAX_ANSWER, from_sexp, read_answer, to_sexp
from revhandlers.pullback.syntax import NDual, NR, Pair, Real

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "_build" / "default" / "extracted" / "pullback-eval"
SOURCE = ROOT / "extracted" / "pullback_eval.ml"

ERROR_LINE = re.compile(r'^\(error \(kind ([a-z-]+)\) \(rule none\) \(message "((?:[^"\\]|\\.)*)"\)\)$')


@pytest.fixture(scope="module", autouse=True)
def built():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is not built: run `dune build extracted/pullback-eval`")


@pytest.fixture(scope="module")
def evaluator():
    with PullbackEvaluator(path=str(BINARY), timeout=60) as ev:
        yield ev


def driver(text: str, *flags: str) -> tuple[int, list[str]]:
    proc = subprocess.run([str(BINARY), *flags], input=text, capture_output=True, text=True, timeout=120)
    assert proc.stderr == ""
    return proc.returncode, proc.stdout.splitlines()


def doubling(n: int) -> str:
    """``let x = 1.0 in (let x = ⟨x, x⟩ in)^n x``: a pair tree of 2^n leaves."""
    body = "(var 0)"
    for _ in range(n):
        body = f"(let (pair (var 0) (var 0)) {body})"
    return f"(let 1.0 {body})"


def tree(n: int, leaf: str, node: str) -> str:
    """The full binary tree of depth ``n`` printed with ``node`` (a format
    with two holes) and ``leaf``."""
    text = leaf
    for _ in range(n):
        text = node.format(text, text)
    return text


def too_large(line: str) -> bool:
    m = ERROR_LINE.match(line)
    return bool(m) and m.group(1) == "answer-too-large" and f"{MAX_ANSWER}" in m.group(2)


def test_the_limit_is_the_drivers_and_documented():
    m = re.search(r"^let max_answer = ([0-9_]+)$", SOURCE.read_text(), re.M)
    assert m and int(m.group(1).replace("_", "")) == MAX_ANSWER == 1_000_000
    docs = (ROOT / "docs" / "sexp-format.md").read_text()
    section = docs[docs.index("## pullback-eval"):]
    assert "answer-too-large" in section and "1000000" in section


def test_small_doubling_is_printed():
    """Three doublings: the value and type written out by hand."""
    rc, lines = driver(doubling(3))
    v4 = "(pair (pair (pair 1.0 1.0) (pair 1.0 1.0)) (pair (pair 1.0 1.0) (pair 1.0 1.0)))"
    t4 = "(* (* (* R R) (* R R)) (* (* R R) (* R R)))"
    assert rc == 0 and lines == [f"(result (value {v4}) (type {t4}) (steps 4))"]


@pytest.mark.parametrize("flags, request_", [((), "run"), ((), "cps"), (("--check",), "run"), ((), "check"),
                                             (("--machine", "cps"), "run"), (("--trace",), "run")])
def test_doubling_past_the_limit(flags, request_):
    """20 doublings print 2^20 leaves (and a type of 2^20 R): more than a
    million characters.  One error line, exit code 1 (a trace: no step
    line either)."""
    rc, lines = driver(f"({request_} {doubling(20)})", *flags)
    assert rc == 1 and len(lines) == 1 and too_large(lines[0]), lines[:1][0][:300]


@pytest.mark.parametrize("request_", ["run", "cps", "check", "trace"])
def test_doubling_past_the_limit_serve(request_):
    rc, lines = driver(f"({request_} {doubling(20)})\n({request_} {doubling(2)})\n", "--serve")
    assert rc == 0 and len(lines) == 2 and too_large(lines[0])
    assert not lines[1].startswith("(error"), lines[1]


def test_shared_value_is_not_printed_in_full():
    """50 doublings: 2^50 leaves, which no printer could write; the answer
    is the error (the type checker and the printer stop within the
    budget)."""
    rc, lines = driver(doubling(50), "--check")
    assert rc == 1 and len(lines) == 1 and too_large(lines[0])


def _pairs(items: list[str]) -> str:
    """The full binary tree of pairs over ``items`` (2^n of them)."""
    while len(items) > 1:
        items = [f"(pair {a} {b})" for a, b in zip(items[::2], items[1::2])]
    return items[0]


def _value_of_length(total: int) -> tuple[str, str]:
    """A term ``λx:R. P`` (a value: 0 steps) whose answer line is ``total``
    characters long, and that line: ``P`` a full pair tree of 2^15 numbers
    ``1.0``, ``10.0``, ``100.0``, … (each printed as written: an integer
    below 10^16 with ``.0``)."""
    n = 15
    leaves = 2 ** n
    ty = tree(n, "R", "(* {} {})")
    shortest = f"(result (value (lam ? {_pairs(['1.0'] * leaves)})) (type (-> R {ty})) (steps 0))"
    q, r = divmod(total - len(shortest), leaves)
    assert 0 <= q < 15
    body = _pairs(["1" + "0" * (q + (i < r)) + ".0" for i in range(leaves)])
    line = f"(result (value (lam ? {body})) (type (-> R {ty})) (steps 0))"
    assert len(line) == total
    return f"(lam R {body})", line


def test_exactly_at_the_limit():
    term, line = _value_of_length(MAX_ANSWER)
    rc, lines = driver(term)
    assert rc == 0 and lines == [line]
    term, line = _value_of_length(MAX_ANSWER + 1)
    rc, lines = driver(term)
    assert rc == 1 and len(lines) == 1 and too_large(lines[0])


# ---------- the Python side ----------

@pytest.mark.parametrize("how", ["run", "cps", "check", "trace"])
def test_evaluator_raises_answer_too_large(evaluator, how):
    with pytest.raises(RuntimeFailure) as e:
        getattr(evaluator, how)(from_sexp(doubling(20)))
    assert e.value.kind == "answer-too-large" and e.value.exit_code == 1
    assert str(MAX_ANSWER) in e.value.message
    # the process goes on
    assert evaluator.run(from_sexp(doubling(1)))[0] == Pair(Real(1.0), Real(1.0))


def test_a_long_line_is_not_read():
    """A line past the limit is the error, whatever it holds (this one is
    not even an S-expression); at the limit it is read (and fails to
    parse)."""
    with pytest.raises(RuntimeFailure) as e:
        read_answer("(result (value " + "(" * MAX_ANSWER + "\n")
    assert e.value.kind == "answer-too-large"
    with pytest.raises(Exception) as e:
        read_answer("(result (value " + "(" * (MAX_ANSWER - 15))
    assert getattr(e.value, "kind", None) != "answer-too-large"


#: query 943 of `revhandlers pullback fuzz --n 10000 --seed 207`: its normal
#: form prints in 16 MB (the run stalled reading it)
SEED_207 = ("(app (pullback R (app (lam (-> (-> R (-> R R)) (-> R R)) (app (app (var 0) (lam R (lam R (fun add "
            "(pair (var 1) (var 0)))))) 1.75)) (lam (-> R (-> R R)) (lam R (app (app (var 1) (fun add (pair 0.25 "
            "0.75))) (app (app (var 1) (app (lam (* R R) (proj 2 (var 0))) (pair -0.75 0.25))) (var 0)))))) "
            "(lam R (dual-map R (app (jac cos (var 0)) (var 1)) (ndual 1.0)))) 0.0)")


def test_campaign_counts_answer_too_large(evaluator):
    t = from_sexp(SEED_207)
    assert check(t, evaluator) == "answer-too-large (higher-order, not compared)"
    assert check(from_sexp(doubling(20)), evaluator) == "answer-too-large (not a query, not compared)"


def test_reference_on_the_seed_207_query():
    """The reference computes the query's value at once (forward mode).  By
    hand: the body is ``(λh. h add' 1.75) (λg. λw. g 1.0 (g 0.25 w))`` with
    ``add' = λa. λb. a + b``, the constant ``1.0 + (0.25 + 1.75) = 3`` (the
    pullback's variable does not occur), so the pullback of any 1-form
    along it is the zero functional on R: ``0*``."""
    r = reference.run(from_sexp(SEED_207))
    assert isinstance(r.value, NDual) and isinstance(r.value.r, NR) and r.value.r.r == 0.0


def test_to_sexp_non_finite():
    assert to_sexp(Pair(Real(float("nan")), Real(float("-inf"))), finite=False) == "(pair nan -inf)"
    with pytest.raises(Exception) as e:
        to_sexp(Real(float("inf")))
    assert e.value.kind == "number"
