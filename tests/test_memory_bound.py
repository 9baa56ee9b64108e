"""The drivers' memory bound (--memory MB, extracted/driver_io.ml): a request
whose heap grows past it ends with the runtime error out-of-memory (exit
code 1), never with OCaml's "Fatal error: out of memory" (exit code 134) or
a signal; the input is bounded by a quarter of it; --serve goes on after
such an error.

The programs that need the memory are the nested `rd`s of
docs/decisions.md ("Nested rd: the rewriting's growth"): five levels take
more than 1 GB and a minute without the bound.  Every run here is under an
address-space limit of 1.5 GB (setrlimit), so that without the bound the
driver would die of OCaml's fatal out-of-memory error, and under a
subprocess timeout that only guards against a hang."""

from __future__ import annotations

import math
import resource
import subprocess

import pytest

from revhandlers.paths import driver_path, rh_eval_path

LIMIT_AS = 1536 << 20


def _limit_as():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(driver, *args, stdin=None, timeout=120):
    return subprocess.run([str(driver), *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_limit_as)


def nested_rd(depth: int) -> str:
    """(rd (const 1.0) y_d (... (rd (const 1.0) y1 (app (swish 1) (app (swish 1) y1)) y2) ...) (const 0.3))"""
    t = "(app (swish 1) (app (swish 1) y1))"
    for i in range(1, depth + 1):
        point = f"y{i + 1}" if i < depth else "(const 0.3)"
        t = f"(rd (const 1.0) y{i} {t} {point})"
    return f"(program (main (ret {t})))"


def swish_swish_derivative(x: float) -> float:
    """d/dx swish(swish(x)), swish(x) = x σ(x), by the chain rule."""
    sig = lambda v: 1.0 / (1.0 + math.exp(-v))
    dswish = lambda v: sig(v) + v * sig(v) * (1.0 - sig(v))
    return dswish(x * sig(x)) * dswish(x)


def number(line: str) -> float:
    return float(line.split("(const ", 1)[1].split(")", 1)[0])


MEMORY_ERROR = "(error (kind out-of-memory) (rule none) (message \"the evaluation needed more than 300 MB of memory (--memory 300)\"))"


def test_the_reproducer_is_the_issue_s():
    assert len(nested_rd(5)) + 1 == 182


@pytest.mark.parametrize("depth", [4, 5])
def test_nested_rd_stops_at_the_memory_bound(depth):
    out = run(rh_eval_path(), "--memory", "300", "--timeout", "0", stdin=nested_rd(depth))
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert out.stdout.strip() == MEMORY_ERROR
    assert out.stderr == ""


def test_a_small_program_is_unaffected():
    out = run(rh_eval_path(), "--memory", "300", stdin=nested_rd(1))
    assert out.returncode == 0, out.stdout
    assert number(out.stdout) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)


def test_serve_goes_on_after_a_memory_error():
    small = f"(run {nested_rd(1)})"
    big = f"(run {nested_rd(5)})"
    out = run(rh_eval_path(), "--serve", "--memory", "300", "--timeout", "0", stdin="\n".join([big, small, big, small]) + "\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == MEMORY_ERROR and lines[2] == MEMORY_ERROR
    for line in (lines[1], lines[3]):
        assert line.startswith("(result") and number(line) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)
    assert len(lines) == 4


DRIVERS = [("rh-eval", "RH_EVAL"), ("dbr-eval", "DBR_EVAL"), ("pullback-eval", "PULLBACK_EVAL")]


@pytest.mark.parametrize("name,env", DRIVERS)
def test_endless_input_is_too_large_under_the_bound(name, env):
    """/dev/zero: the input bound is a quarter of the memory bound."""
    out = run(driver_path(name, env), "--memory", "300", "/dev/zero")
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert out.stdout.strip() == f"(error (kind too-large) (rule none) (message \"the input is larger than {300 * 2**20 // 4} bytes\"))"


@pytest.mark.parametrize("name,env", DRIVERS)
@pytest.mark.parametrize("bad", ["-1", "x", "1.5", ""])
def test_a_bad_bound_is_a_usage_error(name, env, bad):
    out = run(driver_path(name, env), "--memory", bad, "/dev/null")
    assert out.returncode == 2 and out.stdout == "" and "usage:" in out.stderr


@pytest.mark.parametrize("name,env", DRIVERS)
def test_help_states_the_default(name, env):
    out = run(driver_path(name, env), "--help")
    assert out.returncode == 0 and "--memory MB" in out.stdout and "default\n   4096" in out.stdout


def dbr_request(order: int) -> str:
    """(x+1)^(2^17) squared 17 times, in 40 products: numbers of 2^18 bits,
    whose derivatives of order 4 on a tape need about 330 MB."""
    squares = " ".join(f"(a{i + 1} (* a{i} a{i}))" for i in range(17))
    terms = " ".join(f"(* a17 (+ a17 {k}))" for k in range(40))
    return f"(diff (expr (let* ((a0 (+ x 1)) {squares}) (+ {terms}))) (at 3) (order {order}) (mode tape))"


def test_dbr_eval_stops_at_the_memory_bound_and_serve_goes_on():
    dbr = driver_path("dbr-eval", "DBR_EVAL")
    out = run(dbr, "--serve", "--memory", "100", "--timeout", "0",
              stdin=dbr_request(4) + "\n(diff (expr (* x x x)) (at 3))\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "(error (kind out-of-memory) (rule none) (message \"the evaluation needed more than 100 MB of memory (--memory 100)\"))"
    assert lines[1].startswith("(result (value 27)")  # d/dx x^3 at 3 = 27
    assert len(lines) == 2


def test_no_bound_with_zero():
    """--memory 0 lifts the bound (a program that needs about 20 MB runs)."""
    out = run(rh_eval_path(), "--memory", "0", stdin=nested_rd(3))
    assert out.returncode == 1 and "(kind ev-undefined)" in out.stdout
