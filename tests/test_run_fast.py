"""The fast machine (theories/rh/machine_fast.v, tape.v): ``rh-eval`` runs a
``rev handle`` whose body is a chain of operations with the tape, without
building ``RH``'s output.  ``run_fast_correct`` proves it equal to the
small-step evaluator; these tests check the extracted program answers
exactly what ``rh-eval --small-step`` (and ``--machine``, the machine
without the tape) answers, as text: value, heap, step count or the same
failure, on the examples, on ``op_chain`` (inside the fragment) and on
seeded random programs built around chains (inside it, and with what makes
the tape give up: a non-variable argument, a nested ``rev handle``, an
operation no handler covers, a fuel that runs out at every point).  The
expected answers come from the small-step evaluator, which the tape does
not use."""

from __future__ import annotations

import random
import subprocess

import pytest

from revhandlers.paths import rh_eval_path
from revhandlers.rh.families import op_chain
from revhandlers.rh.sexp import program_sexp

from test_rh_eval import EXAMPLES


def rh_eval(*args: str, stdin: str) -> str:
    exe = rh_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    p = subprocess.run([str(exe), *args], input=stdin, capture_output=True, text=True, timeout=300)
    assert p.returncode in (0, 1), p.stdout + p.stderr
    return p.stdout


def answers(text: str, *extra: str) -> tuple[str, str, str]:
    return (rh_eval(*extra, stdin=text), rh_eval("--machine", *extra, stdin=text),
            rh_eval("--small-step", *extra, stdin=text))


def steps_of(line: str) -> int:
    return int(line.rsplit("(steps ", 1)[1].split(")", 1)[0])


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.sexp")), ids=lambda p: p.name)
def test_examples_answer_as_the_small_step_evaluator(path):
    fast, machine, small = answers(path.read_text())
    assert fast == small
    assert machine == small


@pytest.mark.parametrize("n", [1, 2, 3, 17, 100])
def test_op_chain_answers_as_the_small_step_evaluator(n):
    text = program_sexp(op_chain(n))
    fast, machine, small = answers(text)
    assert fast.startswith("(result"), fast
    assert fast == small
    assert machine == small


def test_a_long_op_chain_answers_as_the_machine():
    # 1000 operations: the small-step evaluator would take minutes
    text = program_sexp(op_chain(1000))
    fast = rh_eval(stdin=text)
    assert fast.startswith("(result"), fast
    assert fast == rh_eval("--machine", stdin=text)


# ------------------------------------------------------ random chain programs

# Operations on Real(1): A and B have explicit clauses (B's touch the heap),
# D has none in the inner handler (its default clause passes it outwards),
# and U is covered by no handler at all.
OPS = "(ops (A (real 1) (real 1)) (B (real 1) (real 1)) (D (real 1) (real 1)) (U (real 1) (real 1)))"
LOCS = "(locs (c (1)) (w (1))) (heap (c (0.5)) (w (-1.25)))"
CLAUSE_A = "(clause A (real 1) (x (ret (tuple (app (swish 1) x) x))) (y z (ret (add y (app (swish 1) z)))))"
CLAUSE_B = ("(clause B (real 1) (x (let v (op (get w) (const)) (ret (tuple (add x v) x))))"
            " (y z (let u (op (put c) (add y z)) (ret y))))")
CLAUSE_D = "(clause D (real 1) (x (ret (tuple (app (swish 1) x) x))) (y z (ret y)))"


def chain(rng: random.Random, names: list[str], depth: int, breaks: bool) -> str:
    """A body over the variables ``names`` (all of type Real(1), the last
    bound most recently): lets of operations on any variable in scope,
    lets of variables (RH-1b), and a return of any variable; with
    ``breaks``, sometimes a form outside the tape's fragment."""
    vs = [v for v in names if v != "h"]
    if depth == 0:
        return f"(ret {rng.choice(vs)})"
    x = f"v{len(names)}"
    arg = rng.choice(vs[-3:] if rng.random() < 0.7 else vs)
    roll = rng.random()
    if roll < 0.15:
        head = f"(ret {arg})"
    elif breaks and roll < 0.22:
        head = f"(op A (app (swish 1) {arg}))"             # RH-4: outside the fragment
    elif breaks and roll < 0.26 and "h" not in names:     # one nested rev handle at most
        head = (f"(let h (revhandle (tuple {arg}) (q) (op A q) (handler (return r (ret r)) {CLAUSE_A}))"
                " (ret (proj 0 h)))")                  # a let of a let, a nested rev handle: outside
        names = names + ["h"]
    elif breaks and roll < 0.28:
        head = f"(op U {arg})"                               # handled nowhere: stuck
    else:
        head = f"(op {rng.choice('AABD')} {arg})"
    return f"(let {x} {head} {chain(rng, names + [x], depth - 1, breaks)})"


def random_program(rng: random.Random, breaks: bool) -> str:
    k = rng.randint(1, 3)
    xs = [f"x{i}" for i in range(k)]
    inputs = " ".join(f"(const {rng.uniform(-2, 2)!r})" for _ in xs)
    body = chain(rng, xs, rng.randint(0, 8 if breaks else 12), breaks)
    ret = rng.choice(["(ret r)", "(let t (op (get w) (const)) (ret (add r t)))"])
    inner = (f"(revhandle (tuple {inputs}) ({' '.join(xs)}) {body} "
             f"(handler (return r {ret}) {CLAUSE_A} {CLAUSE_B}))")
    # the inner handler has no clause for D: the outer one handles it
    main = (f"(revhandle (tuple (const 0.75)) (s) (let g {inner} (ret s)) "
            f"(handler (return r (ret r)) {CLAUSE_D}))") if rng.random() < 0.5 else inner
    return f"(program {OPS} {LOCS} (main {main}))"


@pytest.mark.parametrize("breaks", [False, True], ids=["in-fragment", "with-exits"])
def test_random_chains_answer_as_the_small_step_evaluator(breaks):
    rng = random.Random(28 + breaks)
    kinds = {"result": 0, "error": 0}
    for i in range(60):
        text = random_program(rng, breaks)
        fast, machine, small = answers(text)
        assert fast == small, f"program {i}:\n{text}\nfast:  {fast}\nsmall: {small}"
        assert machine == small, f"program {i}:\n{text}"
        kinds["result" if small.startswith("(result") else "error"] += 1
    assert kinds["result"] >= 30, kinds               # most programs run to a value
    if breaks:
        assert kinds["error"] >= 1, kinds              # and some are stuck on U


def test_every_fuel_answers_as_the_small_step_evaluator():
    # the tape checks the fuel at each clause and at the result tuples:
    # every fuel up to the end, out-of-fuel answers included, is compared
    rng = random.Random(2828)
    for _ in range(3):
        text = random_program(rng, False)
        total = rh_eval("--small-step", stdin=text)
        if not total.startswith("(result"):
            continue
        n = steps_of(total)
        for fuel in sorted({0, 1, 2, *range(max(0, n - 15), n + 3), *rng.sample(range(n + 1), min(n, 15))}):
            fast = rh_eval("--fuel", str(fuel), stdin=text)
            small = rh_eval("--small-step", "--fuel", str(fuel), stdin=text)
            assert fast == small, f"fuel {fuel}:\n{text}"
