"""The total evaluator (theories/rh/total.v): without a fuel, `rh-eval` runs
a checked program to its end, however many steps it takes (the fuel is
searched by doubling from 2^40); a fuel the user gives is a bound, and
past it the answer is `out-of-fuel` with exit code 1.  Expected values
are computed by hand or with numpy, never by `rh-eval`."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import sexpdata

from revhandlers.errors import RevHandlersError
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.paths import rh_eval_path
from revhandlers.rh.sexp import loads

from test_rh_eval import EXAMPLES, field, parse_result, sym


def rh_eval(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    exe = rh_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    return subprocess.run([str(exe), *args], input=stdin, capture_output=True, text=True, timeout=300)


def error_kind(line: str) -> str:
    out = sexpdata.loads(line)
    assert sym(out[0]) == "error", line
    (kind,) = field(out, "kind")
    return sym(kind)


def wide(k: int, j: int) -> str:
    """``⌊let t ← <i + 2i | i < k> in proj_j t⌋``: one step for each of the
    k additions, one for the let, one for the projection."""
    items = " ".join(f"(add (const {i}.0) (const {2 * i}.0))" for i in range(k))
    return f"(program (main (ret (let t (tuple {items}) (proj {j} t)))))"


def counter(n: int, fuel: int | None = None) -> str:
    """n times ``c := c + 1`` on a location ``c :: (1)`` holding 0.5;
    each time: Get, its let, the addition, Put, its let (5 steps)."""
    body = "(ret (const))"
    for _ in range(n):
        body = f"(let a (op (get c) (const)) (let u (op (put c) (add a (const 1.0))) {body}))"
    f = f" (fuel {fuel})" if fuel is not None else ""
    return f"(program (locs (c (1))) (heap (c (0.5))){f} (main {body}))"


# ---------------------------------------------------------------- rh-eval

@pytest.mark.parametrize("flags", [(), ("--small-step",), ("--list-vectors",)])
def test_a_program_of_many_steps_runs_to_its_end_without_fuel(flags):
    k, j = 3000, 1234                       # 3002 steps
    p = rh_eval(*flags, stdin=wide(k, j))
    assert p.returncode == 0, p.stdout + p.stderr
    value, heap, steps = parse_result(p.stdout)
    assert len(value) == 1 and value[0].tolist() == [3.0 * j]
    assert heap == {} and steps == k + 2


def test_a_wide_term_on_the_machine():
    k, j = 60000, 59999                     # 60002 steps, in one term the machine evaluates at once
    p = rh_eval(stdin=wide(k, j))
    assert p.returncode == 0, p.stdout + p.stderr
    value, _, steps = parse_result(p.stdout)
    assert value[0].tolist() == [3.0 * j] and steps == k + 2


@pytest.mark.parametrize("flags", [(), ("--small-step",)])
def test_a_long_chain_of_operations(flags):
    n = 400                                 # 2000 steps
    p = rh_eval(*flags, stdin=counter(n))
    assert p.returncode == 0, p.stdout + p.stderr
    value, heap, steps = parse_result(p.stdout)
    assert heap["c"].tolist() == [0.5 + n] and steps == 5 * n


@pytest.mark.parametrize("fuel", ["1", "10", "1000"])
def test_a_user_fuel_is_a_bound(fuel):
    for src in (wide(3000, 5), counter(400)):
        p = rh_eval("--fuel", fuel, stdin=src)
        assert p.returncode == 1, p.stdout
        assert error_kind(p.stdout) == "out-of-fuel"


def test_a_program_fuel_is_a_bound():
    p = rh_eval(stdin=counter(400, fuel=100))
    assert p.returncode == 1 and error_kind(p.stdout) == "out-of-fuel"
    p = rh_eval(stdin=counter(400, fuel=2000))       # exactly its steps (and one more for the end)
    assert p.returncode == 1 and error_kind(p.stdout) == "out-of-fuel"
    p = rh_eval(stdin=counter(400, fuel=2001))
    assert p.returncode == 0, p.stdout
    assert parse_result(p.stdout)[1]["c"].tolist() == [400.5]


def one_layer_numpy():
    """The paper's one-layer example (examples/sexp/one_layer.sexp) in numpy:
    y = 0.1 (W x − e₁), value Wᵀ y, and W − y xᵀ."""
    W = np.arange(1.0, 7.0).reshape(3, 2)
    x = np.array([0.5, -1.0])
    y = 0.1 * (W @ x - np.array([1.0, 0.0, 0.0]))
    return W.T @ y, (W - np.outer(y, x)).ravel()


def test_one_layer_without_fuel_and_with_too_little():
    value, heap = one_layer_numpy()
    p = rh_eval(str(EXAMPLES / "one_layer.sexp"))
    assert p.returncode == 0, p.stdout
    got, got_heap, _ = parse_result(p.stdout)
    np.testing.assert_allclose(got[0], value, rtol=1e-12)
    np.testing.assert_allclose(got_heap["l"], heap, rtol=1e-12)
    p = rh_eval("--fuel", "1", str(EXAMPLES / "one_layer.sexp"))
    assert p.returncode == 1 and error_kind(p.stdout) == "out-of-fuel"


def test_trace_and_coverage_without_fuel_reach_the_end():
    p = rh_eval("--trace", stdin=counter(300))       # 1500 steps
    assert p.returncode == 0, p.stdout[-500:]
    lines = p.stdout.splitlines()
    assert len(lines) == 1500 + 2                    # configurations 0 … 1500, then the result
    assert parse_result(lines[-1])[1]["c"].tolist() == [300.5]
    p = rh_eval("--coverage", stdin=counter(300))
    out = loads(p.stdout)
    counts = {sym(k): v for k, v in out[1][1:]}
    assert counts["step_conf_get"] == 300 and counts["step_conf_put"] == 300
    assert sym(out[2][0]) == "result"


def test_serve_runs_without_fuel_and_honours_an_exec_fuel():
    reqs = [
        f"(run {wide(3000, 7)})",
        f"(load k {counter(400)})",
        "(exec k (read c))",
        "(exec k (read c) (fuel 50))",
        "(heap k)",
        "(exec k (read c))",
    ]
    p = rh_eval("--serve", stdin="\n".join(reqs) + "\n")
    lines = p.stdout.splitlines()
    assert len(lines) == len(reqs), p.stdout
    value, _, steps = parse_result(lines[0])
    assert value[0].tolist() == [21.0] and steps == 3002
    assert "steps 2000" in lines[2]
    assert error_kind(lines[3]) == "out-of-fuel"
    assert lines[4].startswith("(heap (c ") and "(steps 2000)" in lines[5]
    with VerifiedEvaluator() as ev:
        ev.session_load("k", _program(counter(400)))
        _, read, steps, _ = ev.session_exec("k", read=["c"])
        assert read["c"].tolist() == [400.5] and steps == 2000
        with pytest.raises(RevHandlersError) as e:
            ev.session_exec("k", read=["c"], fuel=50)
        assert e.value.kind == "out-of-fuel"
        assert ev.session_heap("k")["c"].tolist() == [400.5]     # left as it was
        _, read, _, _ = ev.session_exec("k", read=["c"])
        assert read["c"].tolist() == [800.5]


def _program(src: str):
    from revhandlers.rh.sexp import read_program
    return read_program(loads(src))


# ------------------------------------------------------------------ Python

def test_revhandlers_run_fuel_is_optional(capsys):
    from revhandlers.cli import main
    assert main(["run", str(EXAMPLES / "one_layer.sexp")]) == 0
    assert "steps: 28" in capsys.readouterr().out
    assert main(["run", "--fuel", "1", str(EXAMPLES / "one_layer.sexp")]) == 1
    assert "out-of-fuel" in capsys.readouterr().err


def test_the_evaluator_passes_no_fuel_by_default():
    with VerifiedEvaluator() as ev:
        assert ev.fuel is None and "--fuel" not in ev.flags
        res = ev.run(_program(counter(400)))
        assert res.heap["c"].tolist() == [400.5] and res.steps == 2000
    with VerifiedEvaluator(fuel=100) as ev:
        with pytest.raises(RevHandlersError) as e:
            ev.run(_program(counter(400)))
        assert e.value.kind == "out-of-fuel"


@pytest.mark.parametrize("command", ["run", "trace"])
def test_a_negative_or_non_numeric_fuel_is_bad_input(command, tmp_path):
    """--fuel is a natural number: -1 and 'x' are bad input (exit 2), before anything runs."""
    f = tmp_path / "p.sexp"
    f.write_text("(program (main (ret (const 1.0))))\n")
    for bad in ("-1", "x"):
        p = subprocess.run([sys.executable, "-m", "revhandlers.cli", command, str(f), "--fuel", bad],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 2, (bad, p.stdout, p.stderr)
        assert "Traceback" not in p.stderr and "fuel" in p.stderr
