"""``rh-eval --tape4``: the machine with ``tape4`` at every ``rev handle``
(theories/rh/tape_rh4.v, ``run_fast4``), which runs the RH-4 levels of
MLP-like chains (``let x <= Op(f(y)) in R``) without building ``RH``'s
output and adds no structural zero.  ``run_fast4_correct`` proves it equal
to the small-step evaluator under the zero law ``c + 0 = c = 0 + c``; with
the instance's zero cotangent ``+0.0`` that law fails only at ``c = -0.0``,
so on programs whose cotangents are never ``-0.0`` the answers must be
identical as text: value, heap, step count, or the same failure.  These
tests compare ``rh-eval --tape4`` with ``rh-eval --small-step`` (which
does not use the tape) on MLP-like chains with seeded random weights, at
their own fuel and at every fuel near the end, on the seeded random chains
of test_run_fast.py and on the examples."""

from __future__ import annotations

import random
import re

import subprocess

import pytest

import revhandlers as rh
from revhandlers.paths import rh_eval_path
from revhandlers.rh.families import mlp_chain_source
from revhandlers.rh.sexp import program_sexp

from test_rh_eval import EXAMPLES
from test_run_fast import random_program, rh_eval, steps_of


def mlp_chain_text(L: int, n: int, seed: int) -> str:
    """The chain of bench/training_step.py, width ``n``, with a heap of
    seeded random weights, input, target and learning rate."""
    rng = random.Random(seed)
    prog = rh.parse(mlp_chain_source(L, n))
    entries = []
    for d in prog.locs:
        size = 1
        for s in d.shape:
            size *= s
        if d.name == "lr":
            vals = [0.125]
        elif d.name == "output":
            vals = [0.0] * size
        else:
            vals = [rng.uniform(-1.5, 1.5) for _ in range(size)]
        entries.append(f"({d.name} ({' '.join(repr(v) for v in vals)}))")
    text = program_sexp(prog)
    assert text.count("(heap)") == 1
    return text.replace("(heap)", f"(heap {' '.join(entries)})")


NEG_ZERO = re.compile(r"(?<![\w.])-0(?:\.0*)?(?:[eE][+-]?\d+)?(?![\w.])")


def no_negative_zero(line: str) -> bool:
    return NEG_ZERO.search(line) is None


def unsigned_zeros(line: str) -> str:
    """The answer with every ``-0.0`` written ``0.0``."""
    return NEG_ZERO.sub("0.0", line)


@pytest.mark.parametrize("L,n", [(1, 2), (2, 2), (3, 3), (5, 2), (8, 3), (16, 2)])
def test_mlp_chains_answer_as_the_small_step_evaluator(L, n):
    text = mlp_chain_text(L, n, 28 * L + n)
    small = rh_eval("--small-step", stdin=text)
    assert small.startswith("(result"), small
    assert no_negative_zero(small), small
    assert rh_eval("--tape4", stdin=text) == small


def test_mlp_chain_every_fuel_near_the_end():
    # tape4 checks the fuel at each clause, each RH-4 level and the result
    # tuples: out-of-fuel answers are compared too
    text = mlp_chain_text(4, 2, 2804)
    total = rh_eval("--small-step", stdin=text)
    n = steps_of(total)
    rng = random.Random(2805)
    for fuel in sorted({0, 1, 2, *range(max(0, n - 12), n + 3), *rng.sample(range(n + 1), min(n, 12))}):
        small = rh_eval("--small-step", "--fuel", str(fuel), stdin=text)
        assert rh_eval("--tape4", "--fuel", str(fuel), stdin=text) == small, f"fuel {fuel}"


@pytest.mark.parametrize("breaks", [False, True], ids=["in-fragment", "with-exits"])
def test_random_chains_answer_as_the_small_step_evaluator(breaks):
    rng = random.Random(2806 + breaks)
    compared = 0
    for i in range(40):
        text = random_program(rng, breaks)
        small = rh_eval("--small-step", stdin=text)
        if not no_negative_zero(small):
            continue
        assert rh_eval("--tape4", stdin=text) == small, f"program {i}:\n{text}"
        compared += 1
    assert compared >= 30, compared


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.sexp")), ids=lambda p: p.name)
def test_examples_answer_as_the_small_step_evaluator(path):
    text = path.read_text()
    small = rh_eval("--small-step", stdin=text)
    fast = rh_eval("--tape4", stdin=text)
    if no_negative_zero(small) and no_negative_zero(fast):
        assert fast == small
    else:
        # while the zero cotangent is +0.0, -0.0 + 0.0 = +0.0 may be skipped:
        # the answers agree up to the sign of zeros
        assert unsigned_zeros(fast) == unsigned_zeros(small)


def test_negative_zero_pattern():
    assert not no_negative_zero("(const -0.0 1.5)") and not no_negative_zero("(x -0)")
    assert no_negative_zero("(const -0.07 0.0 -10.5 1e-05)")


def test_help_names_the_flag():
    p = subprocess.run([str(rh_eval_path()), "--help"], capture_output=True, text=True, timeout=60)
    assert "--tape4" in p.stdout + p.stderr
