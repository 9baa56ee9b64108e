"""The tape's last operation (theories/rh/tape.v, ``tape_op``): a ``rev
handle`` body that ends with a bare operation ``Op(y_k)`` (the last RH-2
level, whose rest is ``⌊y⌋``) is in the tape's fragment.  ``run_fast_correct``
proves the machine with the tape equal to the small-step evaluator; these
tests check the extracted ``rh-eval`` answers exactly what ``rh-eval
--small-step`` and ``--machine`` (no tape) answer, as text, on seeded chains
ending with an operation, at their own fuel and at every fuel near the end.
The expected answers come from the small-step evaluator, which the tape
does not use."""

from __future__ import annotations

import random

from test_run_fast import CLAUSE_A, CLAUSE_B, LOCS, OPS, answers, rh_eval, steps_of


def tail_chain(rng: random.Random, names: list[str], depth: int) -> str:
    """Lets of operations and of variables over ``names``, ending with an
    operation on a variable in scope (never a return)."""
    arg = rng.choice(names[-3:] if rng.random() < 0.7 else names)
    if depth == 0:
        return f"(op {rng.choice('AB')} {arg})"
    x = f"v{len(names)}"
    head = f"(ret {arg})" if rng.random() < 0.15 else f"(op {rng.choice('AAB')} {arg})"
    return f"(let {x} {head} {tail_chain(rng, names + [x], depth - 1)})"


def tail_program(rng: random.Random) -> str:
    xs = [f"x{i}" for i in range(rng.randint(1, 3))]
    inputs = " ".join(f"(const {rng.uniform(-2, 2)!r})" for _ in xs)
    body = tail_chain(rng, xs, rng.randint(0, 10))
    ret = rng.choice(["(ret r)", "(let t (op (get w) (const)) (ret (add r t)))"])
    main = (f"(revhandle (tuple {inputs}) ({' '.join(xs)}) {body} "
            f"(handler (return r {ret}) {CLAUSE_A} {CLAUSE_B}))")
    return f"(program {OPS} {LOCS} (main {main}))"


def test_chains_ending_with_an_operation_answer_as_the_small_step_evaluator():
    rng = random.Random(2801)
    results = 0
    for i in range(40):
        text = tail_program(rng)
        fast, machine, small = answers(text)
        assert fast == small, f"program {i}:\n{text}\nfast:  {fast}\nsmall: {small}"
        assert machine == small, f"program {i}:\n{text}"
        results += small.startswith("(result")
    assert results == 40                     # every such program runs to a value


def test_every_fuel_near_the_end_answers_as_the_small_step_evaluator():
    rng = random.Random(2802)
    for _ in range(2):
        text = tail_program(rng)
        total = rh_eval("--small-step", stdin=text)
        assert total.startswith("(result"), total
        n = steps_of(total)
        for fuel in sorted({0, 1, *range(max(0, n - 12), n + 2)}):
            fast = rh_eval("--fuel", str(fuel), stdin=text)
            small = rh_eval("--small-step", "--fuel", str(fuel), stdin=text)
            assert fast == small, f"fuel {fuel}:\n{text}"
