"""The specified printer of whole programs (theories/rh/printer_spec.v),
extracted as ``rh-eval --print`` and the request ``(print PROGRAM)``,
against Python's writer (``sexp.program_sexp``) and reader
(``sexp.parse_program``).

``read_reprint_program`` says that a text the reader accepts, printed by
``print_program`` and read again, gives the same program; and
``read_print_program`` that the reader reads back every program it can
produce, so two printed texts are equal exactly when the programs read are.
So, for the examples and generated programs:
- Coq's printing is a fixed point: printing what was read from a printed
  text gives the same text;
- Python's writer agrees with it after reading: the text Python writes
  for a program, and the text Python writes for the program Python reads
  back from Coq's printing, are read by rh-eval to the same program (the
  same printed text), with the same type;
- and byte for byte with ``sexp.coq_program_sexp``, Python's printer of
  what ``print_program`` prints, written apart from it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from revhandlers.paths import rh_eval_path
from revhandlers.rh import gen
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.program import load
from revhandlers.rh.sexp import coq_program_sexp, parse_program, program_sexp
from revhandlers.rh.typecheck import check_program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.rh")) + sorted((ROOT / "examples" / "sexp").glob("*.sexp"))


@pytest.fixture(scope="module")
def ev():
    e = VerifiedEvaluator()
    yield e
    e.close()


def coq_print(ev, text: str) -> str:
    line = ev.request(f"(print {text})").strip()
    assert line.startswith("(program "), line
    return line


def agree(ev, prog) -> None:
    text = program_sexp(prog)
    printed = coq_print(ev, text)
    assert coq_print(ev, printed) == printed                 # read, print, read: the same program
    again = parse_program(printed)                           # Python reads Coq's text
    assert coq_print(ev, program_sexp(again)) == printed     # and writes a text rh-eval reads alike
    assert check_program(again) == check_program(prog)
    assert coq_program_sexp(prog) == printed                 # byte for byte: Python's printer of print_program


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples(ev, path):
    agree(ev, load(str(path)))


def test_generated_programs(ev):
    """500 programs of the campaign's generator (the checker need not accept them)."""
    checked = 0
    for i in range(500):
        prog = gen.seeded_program(2028, i)
        try:
            check_program(prog)
        except Exception:
            continue
        agree(ev, prog)
        checked += 1
    assert checked > 250


# Written by hand: the binders the printer chooses (v0, v1, … by depth; x,
# y, z in clauses; a rev handle's binders as many as its body uses), and a
# size above a million as two dimensions.
BY_HAND = [
    ("(program (main (ret (let a (const 1.0) (let b a (tuple a b))))))",
     "(program (ops) (locs) (heap) (main (ret (let v0 (const 1.0) (let v1 v0 (tuple v0 v1))))))"),
    ("(program (ops (F (real 1) (real 1))) (locs (w (2 3))) (heap (w (1 2 3 4 5 6))) (fuel 7)"
     " (main (revhandle (tuple (const 1.0) (const 2.0)) (p q) (op F p)"
     " (handler (return r (ret r)) (clause F (real 0) (a (ret (tuple a (const)))) (b c (ret b)))))))",
     "(program (ops (F (real 1) (real 1))) (locs (w (6))) (heap (w (1.0 2.0 3.0 4.0 5.0 6.0)))"
     " (main (revhandle (tuple (const 1.0) (const 2.0)) (v0) (op F v0)"
     " (handler (return x (ret x)) (clause F (real 0) (x (ret (tuple x (const)))) (y z (ret y)))))) (fuel 7))"),
    ("(program (locs (big (1000 1000 3))) (main (op (get big) (const))))",
     "(program (ops) (locs (big (3 1000000))) (heap) (main (op (get big) (const))))"),
]


@pytest.mark.parametrize("text,expected", BY_HAND)
def test_by_hand(ev, text, expected):
    assert coq_print(ev, text) == expected
    assert coq_program_sexp(parse_program(text)) == expected
    p = subprocess.run([str(rh_eval_path()), "--print"], input=text, capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout.strip()) == (0, expected)


def test_a_refused_program_is_not_printed():
    p = subprocess.run([str(rh_eval_path()), "--print"], input="(program (main (ret x)))", capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 2 and "(kind unbound)" in p.stdout
