"""The checker of a whole program, Coq ``check_program``
(theories/rh/never_stuck.v), extracted and run by ``rh-eval --check`` and
the request ``(check-program P)``, and by ``revhandlers check``, against
its Python mirror ``typecheck.check_whole_program``.

It accepts exactly the programs ``check_program_never_stuck`` speaks of:
typed, constants at their lengths, function symbols with parameters that
make sense, no operation that no handler covers; ``rd`` nested at any
depth (``Ev`` is total at every order, ``exec_ev_total_all``).  The expected verdicts of
the programs written here are read off them by hand; on generated programs
the verified checker and the mirror must agree (accept or refuse, and the
kind)."""

from __future__ import annotations

import io
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from handler_edits import drop_clauses

from revhandlers.cli import main as cli_main
from revhandlers.errors import RevHandlersError
from revhandlers.paths import rh_eval_path
from revhandlers.rh import gen
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.program import load
from revhandlers.rh.sexp import program_sexp, read_answer
from revhandlers.rh.typecheck import check_whole_program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.rh")) + sorted((ROOT / "examples" / "sexp").glob("*.sexp"))

ONE = "(const 1.0)"


def rd(body: str, var: str, point: str = ONE) -> str:
    return f"(rd {ONE} {var} {body} {point})"


# (program, verdict: "ok" or the kind, words the message must contain), by hand
CASES = [
    ("(program (main (ret (app (swish 1) (const 1.0)))))", "ok", []),
    # swish[1] inside two rd bodies: rd^2
    ("(program (main (ret " + rd(rd("(app (swish 1) y)", "y", "x"), "x") + ")))", "ok", []),
    # inside three: rd^3, and four: rd^4 (refused with rd-order while Ev was proved total only to rd^2)
    ("(program (main (ret " + rd(rd(rd("(app (swish 1) z)", "z", "y"), "y", "x"), "x") + ")))", "ok", []),
    ("(program (main (ret " + rd(rd(rd(rd("(app (swish 1) w)", "w", "z"), "z", "y"), "y", "x"), "x") + ")))", "ok", []),
    # rd^2[swish] inside one rd body
    ("(program (main (ret " + rd("(proj 0 (app (rd (rd (swish 1))) (tuple (tuple x (const 1.0)) (const 1.0))))", "x") + ")))", "ok", []),
    ("(program (main (ret (proj 0 (app (rd (rd (swish 1))) (tuple (tuple (const 1.0) (const 1.0))"
     " (const 1.0)))))))", "ok", []),
    # a rev handle's body around two rd bodies: rd^3
    ("(program (main (revhandle (tuple (const 1.0)) (x) (ret (tuple " + rd(rd("(app (swish 1) b)", "b", "a"), "a", "x")
     + ")) (handler (return r (ret r))))))", "ok", []),
    ("(program (main (revhandle (tuple " + rd(rd("(app (swish 1) b)", "b", "a"), "a") + ") (x) (ret (tuple x))"
     " (handler (return r (ret (tuple " + rd(rd("(app (swish 1) d)", "d", "c"), "c", "(proj 0 r)")
     + ")))))))", "ok", []),
    # effects: P escapes; Q is handled; the names are the program's
    ("(program (ops (Pfoo (real 1) (real 1))) (main (op Pfoo (const 1.0))))", "effect", ["Pfoo"]),
    ("(program (ops (Pfoo (real 1) (real 1)) (Qbar (real 1) (real 1))) (main (let u (op Pfoo (const 1.0))"
     " (op Qbar u))))", "effect", ["Pfoo", "Qbar"]),
    ("(program (ops (Qbar (real 1) (real 1))) (main (revhandle (tuple (const 1.0)) (x) (op Qbar x)"
     " (handler (return r (ret r)) (clause Qbar (real 1) (x (ret (tuple x x))) (y z (ret y)))))))", "ok", []),
    # the type comes first: an ill-typed program with an unhandled operation is a type error
    ("(program (ops (P (real 1) (real 1))) (main (op P (const 1.0 2.0))))", "type", ["typed_cmd_op"]),
    ("(program (main (ret (app (swish 2) (const 1.0)))))", "type", ["typed_tm_app"]),
    # rd three deep does not hide an unhandled operation
    ("(program (ops (P (real 1) (real 1))) (main (let u (op P (const 1.0)) (ret "
     + rd(rd(rd("(app (swish 1) z)", "z", "y"), "y", "x"), "x", "u") + "))))", "effect", ["P"]),
    # impossible parameters: refused by the reader, before the checker
    ("(program (main (ret (app (maxpool 1 1 0) (const 1.0)))))", "shape", ["impossible parameters"]),
]


def rh_eval_check(text: str) -> tuple[int, str]:
    p = subprocess.run([str(rh_eval_path()), "--check"], input=text, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip()


def kind_of(line: str) -> str:
    return "ok" if line.startswith("(ok ") else line.split("(kind ", 1)[1].split(")", 1)[0]


def mirror(prog) -> str:
    try:
        check_whole_program(prog)
        return "ok"
    except RevHandlersError as e:
        return e.kind


@pytest.mark.parametrize("text,verdict,words", CASES)
def test_rh_eval_check(text, verdict, words):
    code, line = rh_eval_check(text)
    assert kind_of(line) == verdict, line
    assert code == (0 if verdict == "ok" else 2)
    for w in words:
        assert w in line, line


@pytest.mark.parametrize("text,verdict,words", CASES)
def test_revhandlers_check(tmp_path, capsys, text, verdict, words):
    f = tmp_path / "prog.sexp"
    f.write_text(text)
    for engine in ("verified", "reference"):
        capsys.readouterr()
        code = cli_main(["check", str(f), "--engine", engine], out=io.StringIO())
        err = capsys.readouterr().err
        assert code == (0 if verdict == "ok" else 2), err
        if verdict != "ok":
            assert f"error ({verdict})" in err, err
        for w in words:
            assert w in err, err


def test_each_name_once_in_order():
    text = next(t for t, _, words in CASES if words == ["Pfoo", "Qbar"])
    code, line = rh_eval_check(text.replace("(op Qbar u)", "(let w (op Qbar u) (op Pfoo w))"))
    assert code == 2 and "operations Pfoo, Qbar are handled by no enclosing handler" in line, line


def test_the_request_answers_as_the_flag():
    ev = VerifiedEvaluator()
    try:
        for text, verdict, _ in CASES:
            got = ev.request(f"(check-program {text})").strip()
            assert got == rh_eval_check(text)[1]
            assert kind_of(got) == verdict
    finally:
        ev.close()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_pass(path, capsys):
    code, line = rh_eval_check(program_sexp(load(str(path))))
    assert code == 0, line
    assert cli_main(["check", str(path)], out=io.StringIO()) == 0, capsys.readouterr().err


def test_generated_programs_agree():
    """1,000 programs of the campaign's generator (which nests rd three
    deep), each also with some of its handlers' clauses dropped: the
    verified checker and its Python mirror accept the same programs and
    refuse the others with the same kind; every verdict is met."""
    ev = VerifiedEvaluator()
    seen: Counter = Counter()
    try:
        for i in range(1000):
            base = gen.seeded_program(2027, i)
            for prog in (base, replace(base, main=drop_clauses(base.main, i))):
                try:
                    read_answer(ev.request(f"(check-program {program_sexp(prog)})"))
                    verified = "ok"
                except RevHandlersError as e:
                    verified = e.kind
                assert verified == mirror(prog), (i, program_sexp(prog))
                seen[verified] += 1
    finally:
        ev.close()
    assert {"ok", "effect"} <= seen.keys(), seen


def _swish3(x: float) -> float:
    """The third derivative of swish at ``x``, from sympy's symbolic
    derivative of ``t·σ(t)``: independent of the evaluator and of the
    core's ``efun_d``."""
    import sympy as sp
    t = sp.symbols("t")
    return float(sp.diff(t / (1 + sp.exp(-t)), t, 3).subs(t, sp.Rational(str(x))).evalf(30))


def test_three_nested_rds_are_accepted_and_run(tmp_path):
    """``c1.rd(x. c2.rd(y. c3.rd(z. swish(z))(y))(x))(p)`` is
    ``c1·c2·c3·swish'''(p)``: both checkers accept it (a run applies
    ``Ev(rd³[swish])``, beyond the former ``rd ≤ 2``) and ``rh-eval``
    answers it, compared with sympy's third derivative."""
    c1, c2, c3, p = 2.0, 0.5, 3.0, 0.7
    text = (f"(program (main (ret (rd (const {c1}) x (rd (const {c2}) y (rd (const {c3}) z (app (swish 1) z) y) x)"
            f" (const {p})))))")
    code, line = rh_eval_check(text)
    assert (code, line) == (0, "(ok (type (real 1)))"), line
    f = tmp_path / "rd3.sexp"
    f.write_text(text)
    assert mirror(load(str(f))) == "ok"
    want = c1 * c2 * c3 * _swish3(p)
    out = subprocess.run([str(rh_eval_path())], input=text, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout
    got = float(out.stdout.split("(value (const ", 1)[1].split(")", 1)[0])
    assert got == pytest.approx(want, rel=1e-12), (got, want)


def test_three_nested_rds_on_a_vector_run(tmp_path, capsys):
    """The same with ``swish`` on 5 entries, through ``revhandlers check``
    and ``revhandlers run`` (both engines, printed to six digits):
    entrywise ``swish'''``."""
    xs = [-2.0, -0.5, 0.0, 0.7, 3.0]
    n = len(xs)
    ones = " ".join(["1.0"] * n)
    point = " ".join(str(x) for x in xs)
    text = (f"(program (main (ret (rd (const {ones}) x (rd (const {ones}) y (rd (const {ones}) z"
            f" (app (swish {n}) z) y) x) (const {point})))))")
    f = tmp_path / "rd3.sexp"
    f.write_text(text)
    assert cli_main(["check", str(f)], out=io.StringIO()) == 0, capsys.readouterr().err
    want = [_swish3(x) for x in xs]
    for engine in ("verified", "reference"):
        buf = io.StringIO()
        assert cli_main(["run", str(f), "--engine", engine], out=buf) == 0, capsys.readouterr().err
        got = [float(w) for w in buf.getvalue().split("[", 1)[1].split("]", 1)[0].replace(",", " ").split()]
        # ``run`` prints six significant digits
        assert got == pytest.approx(want, rel=1e-5, abs=1e-6), (engine, got, want)
