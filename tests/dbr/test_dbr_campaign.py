"""The define-by-run campaign (``revhandlers dbr fuzz``): six
implementations (three in Python, three extracted from Coq) against sympy,
at a fixed seed; the corpus replayed; and the check shown able to fail
(wrong implementations are caught and shrunk).

Expected values are sympy's (``campaign.oracle``), never the code under
test's."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from revhandlers.dbr import campaign as C
from revhandlers.dbr.engine import CoqLibrary
from revhandlers.dbr.syntax import Name, Nat, Pow, Prod, Sum
from revhandlers.harness import Divergence, run_campaign

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "dbr"


@pytest.fixture(scope="module")
def lib():
    with CoqLibrary(timeout=60) as lib:
        yield lib


def test_campaign_fixed_seed():
    """1,500 random expressions: no divergence, and every kind of case
    occurs (orders 0–3 and gradients, exact and float)."""
    report = C.campaign(1500, seed=20261202)
    assert report.divergence is None, report.divergence
    assert report.programs == 1500
    kinds = {k for k in report.outcomes}
    for order in range(4):
        assert f"agree (exact, order {order})" in kinds
        assert f"agree (float, order {order})" in kinds
    assert "agree (exact, gradient)" in kinds and "agree (float, gradient)" in kinds


def test_corpus_replayed(lib):
    files = sorted(CORPUS.glob("*.sexp"))
    assert len(files) >= 4, "the seed corpus is missing"
    for f in files:
        case = C.read_case(f.read_text())
        assert C.check(case, lib).startswith("agree"), f


def test_paper_values_through_the_oracle():
    """The oracle itself on the paper's numbers."""
    cube = Pow(Sum((Name("x"), Nat(1))), 3)
    assert [C.oracle(C.Case(cube, ("x",), (4,), k)) for k in range(4)] == [125, 75, 30, 6]
    g = Pow(Sum((Name("x"), Pow(Name("y"), 2))), 3)
    assert C.oracle(C.Case(g, ("x", "y"), (2, 1), 1)) == [27, 54]


def _wrong_forward(case, impl, numbers):
    """A mutant of the Python library: forward mode's product rule drops
    a·b' (so x·x has derivative x, not 2x)."""
    from revhandlers.dbr import grad
    from revhandlers.dbr.dictionary import Dictionary
    from revhandlers.dbr.syntax import client
    if impl != "forward":
        return C._python(case, impl, numbers)
    f = client(case.expr, list(case.names))

    def dfwd(g):
        def h(d, x):
            dd = Dictionary((d.zero, d.zero), (d.one, d.zero),
                            lambda p, q: (d.add(p[0], q[0]), d.add(p[1], q[1])),
                            lambda p, q: (d.mul(p[0], q[0]), d.mul(p[1], q[0])), "bad dual")
            return g(dd, (x, d.one))[1]
        return h
    if len(case.names) > 1:
        return grad(f, "handlers")(numbers, list(case.point))
    g = f
    for _ in range(case.order):
        g = dfwd(g)
    return g(numbers, case.point[0])


def test_a_wrong_python_implementation_is_caught_and_shrunk(lib):
    report = run_campaign(C.cases(), lambda c: C.check(c, lib, python=_wrong_forward), 300, seed=1)
    assert report.divergence is not None and "python forward" in report.divergence
    # shrunk to a small product: the message quotes the case
    assert len(report.divergence) < 400, report.divergence


class _OffByOne(CoqLibrary):
    """A mutant of the extracted library: second derivatives off by one."""

    def diff(self, expr, x, order=1, mode="handlers", var="x"):
        v = super().diff(expr, x, order, mode, var)
        return v + 1 if order == 2 and mode == "tape" else v


def test_a_wrong_extracted_implementation_is_caught():
    with _OffByOne(timeout=60) as bad:
        report = run_campaign(C.cases(), lambda c: C.check(c, bad), 300, seed=2)
    assert report.divergence is not None and "coq tape" in report.divergence


def test_floats_python_and_coq_agree_bit_for_bit(lib):
    case = C.Case(Prod((Sum((Name("x"), Nat(3))), Pow(Name("x"), 7))), ("x",), (0.3,), 2)
    assert C.check(case, lib) == "agree (float, order 2)"
    # a Python result off by one part in a million: not the extracted one's bits
    with pytest.raises(Divergence, match="same operations in the same order"):
        C.check(C.Case(Pow(Name("x"), 2), ("x",), (0.5,), 1), lib,
                python=lambda c, m, n: C._python(c, m, n) * (1 + 1e-6))


def test_corpus_case_round_trip():
    case = C.Case(Sum((Name("x"), Nat(10 ** 20))), ("x",), (Fraction(-7, 3),), 2)
    assert C.read_case(case.sexp()) == case


def test_fuzz_command_exit_code(tmp_path):
    r = subprocess.run([sys.executable, "-m", "revhandlers", "dbr", "fuzz", "--n", "40", "--seed", "3",
                        "--corpus", str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "divergences: 0" in r.stdout and "expressions: 40" in r.stdout


def test_a_crash_of_the_check_is_reported_and_shrunk():
    """An exception other than a divergence (an engine's crash, a bug of the
    check) ends the campaign as a reported case, shrunk, not as a traceback."""
    def check(case):
        if isinstance(case.expr, Pow):
            raise ValueError("boom")
        return "agree"
    report = run_campaign(C.cases(), check, 300, seed=4)
    assert report.divergence is not None and report.divergence.startswith("crash: ValueError: boom")


def test_huge_exact_values_cross_the_wire():
    """Exact results of thousands of digits (past Python's default limit on
    int/str conversion) are read back exactly."""
    with CoqLibrary(timeout=60) as lib:
        v = lib.diff("(^ (* x 100000000000000000000) 700)", 3, 0)
    assert v == (3 * 10 ** 20) ** 700
