"""The premises of the progress and gradient theorems, decided
(``revhandlers pullback check --progress`` / ``--gradient``;
``pytools/revhandlers/pullback/premise.py``, the twins of the Coq deciders
of ``theories/pullback/nz_decide.v``).  Each expected verdict is read off
the definitions of ``fq``, ``nzq``, ``nzp``, ``lastv`` by hand, not
computed by the code under test."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from revhandlers.cli import main
from revhandlers.pullback.premise import gradient_rule, nzq, progress_rule
from revhandlers.pullback.sexp import from_sexp

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "pullback"

X, Y = "(proj 1 (var 0))", "(proj 2 (var 0))"
OMEGA = "(lam R (ndual 1.0))"


def query(body: str, point: str = "(pair 1.0 2.0)") -> str:
    return f"(app (pullback (* R R) {body} {OMEGA}) {point})"


# (term, the premise of fo_progress it fails, the premise of fo_query_ndual it fails)
CASES = [
    # progress_typed.v's stuck_fun_sum: f(r + r), first order, a sum in a point
    ("(fun sin (+ 1.0 1.0))", "nzq", "fo_grad_query"),
    # progress_typed.v's stuck_remark36: y^p y^q in the body, outside fq
    ("(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) (lam R (ndual 2.0))) "
     "(pair zero 2.0))", "fq", "fo_grad_query"),
    # nz_decide.v's pair_const: a query in a pair is outside fq
    (f"(pair {query('3.0')} 3.0)", "fq", "fo_grad_query"),
    # a 0 in the point of a first-order query
    (query(f"(fun sin {X})", "(pair zero 1.0)"), "nzq", "fo_grad_query"),
    # the running example's shape: every premise holds
    (query(f"(fun sq (fun mul (pair {X} {Y})))"), None, None),
    # a sum in the body: fo_progress's nzq excludes it (none in a pullback's body)
    (query(f"(fun sin (+ {X} {Y}))"), "nzq", "nzp"),
    # a body ending in a constant: in nzq, outside lastv
    (query(f"(let (fun sin {X}) (let 3.0 (var 0)))"), None, "lastv"),
    # a body with an application: outside fq and fo_body
    (query(f"(app (lam R (var 0)) {X})"), "fq", "fo_body"),
    # a 0 on the spine of dual maps: a syntactic value, in nzq
    ("(dual-map R (var 0) zero)", None, "fo_grad_query"),
    # a 0 beside a dual map, in a pair: outside nzq
    ("(pair zero 1.0)", "nzq", "fo_grad_query"),
]


@pytest.mark.parametrize("text,progress,gradient", CASES)
def test_rules(text, progress, gradient):
    t = from_sexp(text)
    assert progress_rule(t) == progress
    assert gradient_rule(t) == gradient


def test_zero_on_the_spine_only():
    assert nzq(from_sexp("zero"))
    assert nzq(from_sexp("(dual-map R (+ (var 0) (var 0)) (dual-map R (var 0) zero))"))
    assert not nzq(from_sexp("(dual-map R (var 0) (+ (ndual 1.0) (ndual 1.0)))"))
    assert nzq(from_sexp("(lam R zero)"))
    assert not nzq(from_sexp("(lam R (pair zero zero))"))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(["pullback", *argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


def test_running_example_passes(capsys):
    code, out, err = run(["check", "--progress", "--gradient", str(EXAMPLES / "paper_f.pb")], capsys)
    assert code == 0, err
    assert "premises of fo_progress, fo_query_ndual hold" in out


@pytest.mark.parametrize("text,flag,rule", [
    ("(fun sin (+ 1.0 1.0))", "--progress", "nzq"),
    (query(f"(fun sin {X})", "(pair zero 1.0)"), "--progress", "nzq"),
    (query(f"(let (fun sin {X}) (let 3.0 (var 0)))"), "--gradient", "lastv"),
    (query(f"(fun sin (+ {X} {Y}))"), "--gradient", "nzp"),
])
def test_rejected_with_the_rule(text, flag, rule, tmp_path, capsys):
    f = tmp_path / "q.sexp"
    f.write_text(text)
    code, out, err = run(["check", flag, str(f)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error (ill-formed) [{rule}]: outside the premises of"), err
    assert "Traceback" not in err
    # without the flag the term is well typed and well formed
    code, out, err = run(["check", str(f)], capsys)
    assert code == 0, err


def test_higher_order_example_is_outside_the_fragment(capsys):
    code, out, err = run(["check", "--progress", str(EXAMPLES / "higher_order.pb")], capsys)
    assert code == 2 and "[fq]" in err


def test_a_numeric_term_is_not_a_gradient_query(tmp_path, capsys):
    f = tmp_path / "n.sexp"
    f.write_text("(fun sin 1.0)")
    code, _, err = run(["check", "--gradient", str(f)], capsys)
    assert code == 2 and "[fo_grad_query]" in err
