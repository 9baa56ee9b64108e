"""The checker of a whole program, Coq ``check_program``
(theories/rh/never_stuck.v), extracted and run by ``rh-eval --check`` and
the request ``(check-program P)``, and by ``revhandlers check``, against
its Python mirror ``typecheck.check_whole_program``.

It accepts exactly the programs ``check_program_never_stuck`` speaks of:
typed, constants at their lengths, within the ``rd`` order ``Ev`` is
defined at, no operation that no handler covers.  The expected verdicts of
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
    # swish[1] inside two rd bodies: rd^2, the highest order Ev is proved total at
    ("(program (main (ret " + rd(rd("(app (swish 1) y)", "y", "x"), "x") + ")))", "ok", []),
    # inside three: rd^3
    ("(program (main (ret " + rd(rd(rd("(app (swish 1) z)", "z", "y"), "y", "x"), "x") + ")))", "rd-order",
     ["rd^2", "proved total", "rdcore.v"]),
    # rd^2[swish] inside one rd body
    ("(program (main (ret " + rd("(proj 0 (app (rd (rd (swish 1))) (tuple (tuple x (const 1.0)) (const 1.0))))", "x") + ")))", "rd-order", []),
    # rd^2[swish] outside: within the order
    ("(program (main (ret (proj 0 (app (rd (rd (swish 1))) (tuple (tuple (const 1.0) (const 1.0))"
     " (const 1.0)))))))", "ok", []),
    # a rev handle's body counts as a level, its argument and its handler do not
    ("(program (main (revhandle (tuple (const 1.0)) (x) (ret (tuple " + rd(rd("(app (swish 1) b)", "b", "a"), "a", "x")
     + ")) (handler (return r (ret r))))))", "rd-order", []),
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
    # the rd order comes before the effects
    ("(program (ops (P (real 1) (real 1))) (main (let u (op P (const 1.0)) (ret "
     + rd(rd(rd("(app (swish 1) z)", "z", "y"), "y", "x"), "x", "u") + "))))", "rd-order", []),
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
    code, line = rh_eval_check(CASES[8][0].replace("(op Qbar u)", "(let w (op Qbar u) (op Pfoo w))"))
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
    assert {"ok", "rd-order", "effect"} <= seen.keys(), seen
