"""The drivers' memory bound (--memory MB, extracted/driver_io.ml): a request
whose heap grows past it ends with the runtime error out-of-memory (exit
code 1), never with OCaml's "Fatal error: out of memory" (exit code 134) or
a signal; the input is bounded by a quarter of it; --serve goes on after
such an error.

The program that needs the memory differentiates three levels deep
(docs/decisions.md "Nested rd: the rewriting's growth") a chain of eight
lets: it takes 3.5 GB in a minute without the bound.  Programs whose
estimated rewriting size (rd_size.v's cmd_rd_weight, recomputed here from
its description) exceeds --max-rd-size (the issue's reproducers: rd nested
five levels, four nested rev handles) are refused before they run
(too-large, exit code 2); rd nested four levels runs.  Every run here is under an address-space limit of 1.5 GB (setrlimit),
so that without the bound the driver would die of OCaml's fatal
out-of-memory error, and under a subprocess timeout that only guards
against a hang."""

from __future__ import annotations

import math
import resource
import subprocess

import pytest

from revhandlers.rh.families import nested_rd_sexp as nested_rd
from revhandlers.rh.families import nested_revhandle_sexp as nested_revhandle
from revhandlers.paths import driver_path, rh_eval_path
from sexp_reader import read_sexp

LIMIT_AS = 1536 << 20


def _limit_as():
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))


def run(driver, *args, stdin=None, timeout=120):
    return subprocess.run([str(driver), *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=_limit_as)


def let_chain(n: int) -> str:
    """let z0 <- y1 in z0 + z0, then n - 1 more lets doubling: 2^n y1."""
    t = "y1"
    for i in range(n):
        t = f"(let z{i} {t} (add z{i} z{i}))"
    return t


#: three levels of rd (the deepest run) around a chain of eight lets
HUNGRY = nested_rd(3, let_chain(8))


def swish_swish_derivative(x: float) -> float:
    """d/dx swish(swish(x)), swish(x) = x σ(x), by the chain rule."""
    sig = lambda v: 1.0 / (1.0 + math.exp(-v))
    dswish = lambda v: sig(v) + v * sig(v) * (1.0 - sig(v))
    return dswish(x * sig(x)) * dswish(x)


def number(line: str) -> float:
    return float(line.split("(const ", 1)[1].split(")", 1)[0])


def memory_error(mb: int) -> str:
    return f"(error (kind out-of-memory) (rule none) (message \"the evaluation needed more than {mb} MB of memory (--memory {mb})\"))"


MEMORY_ERROR = memory_error(300)


def test_the_reproducer_is_the_issue_s():
    assert len(nested_rd(5)) + 1 == 182


def test_a_deep_program_stops_at_the_memory_bound():
    out = run(rh_eval_path(), "--memory", "300", "--timeout", "0", stdin=HUNGRY)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert out.stdout.strip() == MEMORY_ERROR
    assert out.stderr == ""


def test_the_default_bound_is_under_the_address_space_limit():
    """Without --memory, the bound is half of ulimit -v (1.5 GB here)."""
    out = run(rh_eval_path(), "--timeout", "0", stdin=HUNGRY)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert out.stdout.strip() == memory_error(768)


def test_a_small_program_is_unaffected():
    out = run(rh_eval_path(), "--memory", "300", stdin=nested_rd(1))
    assert out.returncode == 0, out.stdout
    assert number(out.stdout) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)


def test_serve_goes_on_after_a_memory_error():
    small = f"(run {nested_rd(1)})"
    big = f"(run {HUNGRY})"
    out = run(rh_eval_path(), "--serve", "--memory", "300", "--timeout", "0", stdin="\n".join([big, small, big, small]) + "\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == MEMORY_ERROR and lines[2] == MEMORY_ERROR
    for line in (lines[1], lines[3]):
        assert line.startswith("(result") and number(line) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)
    assert len(lines) == 4


# ---------------------------------------------------------------- the size bound

CAP = 2 ** 60            # the estimate saturates there (rd_size.v's rd_weight_cap)
MAX_RD_SIZE = 2 ** 45    # rd_size.v's max_rd_weight, rh-eval's --max-rd-size default


def add(*ws: int) -> int:
    return min(sum(ws), CAP)


def sq(w: int) -> int:
    return w * w if w <= 2 ** 30 else CAP


def tm_weight(t) -> int:
    """The estimate written from its description (docs/decisions.md, "Nested
    rd: a bound on what grows"): every term node is 1, an rd is the square
    of its own size."""
    if isinstance(t, str) or t[0] == "const":
        return 1
    head = t[0]
    if head in ("app", "proj"):
        return add(1, tm_weight(t[2]))
    if head == "add":
        return add(1, tm_weight(t[1]), tm_weight(t[2]))
    if head == "let":  # (let x M N)
        return add(1, tm_weight(t[2]), tm_weight(t[3]))
    if head == "tuple":
        return add(1, *(tm_weight(m) for m in t[1:]))
    if head == "rd":  # (rd M x N L)
        return sq(add(1, tm_weight(t[1]), tm_weight(t[3]), tm_weight(t[4])))
    raise ValueError(head)


def cmd_weight(c) -> int:
    """A command is 1 and its parts; a rev handle the square of twice one
    more than its body, its handler beside."""
    head = c[0]
    if head == "ret":
        return add(1, tm_weight(c[1]))
    if head == "op":
        return add(1, tm_weight(c[2]))
    if head == "let":  # (let x P Q)
        return add(1, cmd_weight(c[2]), cmd_weight(c[3]))
    if head == "revhandle":  # (revhandle M (x) R (handler (return r P) (clause O A (x Qf) (y z Qb)) ...))
        handler = c[4]
        clauses = [cl for cl in handler[1:] if cl[0] == "clause"]
        ret_cmd = next(cl for cl in handler[1:] if cl[0] == "return")[2]
        cls = 1
        for cl in reversed(clauses):
            cls = add(cmd_weight(cl[3][-1]), cmd_weight(cl[4][-1]), cls)
        body = add(1, cmd_weight(c[3]))
        return add(tm_weight(c[1]), sq(add(body, body)), add(cmd_weight(ret_cmd), cls))
    raise ValueError(head)


def weight(program: str) -> int:
    main = next(part for part in read_sexp(program)[1:] if part[0] == "main")
    return cmd_weight(main[1])


def too_large(w: int) -> str:
    shown = "at least 2^60" if w >= CAP else str(w)
    return (f"(error (kind too-large) (rule none) (message \"the estimated size of the program's rd and rev handle "
            f"rewritings is {shown}; at most {MAX_RD_SIZE} are run (--max-rd-size), as the rewriting's size grows "
            "doubly exponentially with the nesting\"))")


def ret(term: str) -> str:
    return f"(program (main (ret {term})))"


def test_the_estimate_by_hand():
    """rd around swish(swish(y1)): the body has 3 nodes, the rd (1 + 1 + 3 +
    1)^2 = 36 (itself, cotangent, body, point), the ret 37; one level more:
    (1 + 1 + 36 + 1)^2 = 1521, and the ret, 1522."""
    assert weight(nested_rd(1)) == 37
    assert weight(nested_rd(2)) == 1522
    assert weight(nested_rd(5)) == CAP
    # (tuple (const 1.0)): 2; (2 (1 + 2))^2 = 36 for the body (ret x); the
    # handler: its return clause (ret r), 2, and no clause, 1
    assert weight("(program (main (revhandle (tuple (const 1.0)) (x) (ret x) (handler (return r (ret r))))))") == 41


def trivial_revhandles(d: int) -> str:
    """d nested rev handles around swish, with a return clause only."""
    p = "(ret (app (swish 1) y0))"
    for i in range(1, d + 1):
        p = f"(revhandle (tuple {'(const 0.5)' if i == d else f'y{i}'}) (y{i - 1}) {p} (handler (return r (ret r))))"
        if i < d:
            p = f"(let v{i} {p} (ret (proj 0 v{i})))"
    return f"(program (main {p}))"


# Programs and their depths, counted by hand: an rd is one level around its
# body, a rev handle one level around its body and its inner handlers.
DEPTHS = [
    (nested_rd(1), 1), (nested_rd(3), 3), (nested_rd(4), 4), (nested_rd(5), 5), (nested_rd(6), 6),
    (nested_revhandle(1), 1), (nested_revhandle(3), 3), (nested_revhandle(4), 4),
    # rd in the cotangent and the point count as much as in the body
    (ret("(rd (rd (const 1.0) a (rd (const 1.0) b (rd (const 1.0) c c a) a) (const 1.0)) x x (const 1.0))"), 4),
    (ret("(rd (const 1.0) x x (rd (const 1.0) a (rd (const 1.0) b (rd (const 1.0) c c a) a) (const 1.0)))"), 4),
    # rd under a rev handle: one level more; in its argument: none
    ("(program (main (revhandle (tuple (const 1.0)) (x) (ret (rd (const 1.0) a (rd (const 1.0) b b a) x))"
     " (handler (return r (ret r))))))", 3),
    ("(program (main (revhandle (tuple (const 1.0)) (x) (ret (rd (const 1.0) a (rd (const 1.0) b (rd (const 1.0) c c b) a) x))"
     " (handler (return r (ret r))))))", 4),
    ("(program (main (revhandle (tuple (rd (const 1.0) a (rd (const 1.0) b (rd (const 1.0) c c b) a) (const 1.0))) (x)"
     " (ret x) (handler (return r (ret r))))))", 3),
    # an inner handler's clause is under the outer rev handle
    ("(program (ops (Op0 (real 1) (real 1))) (main (revhandle (tuple (const 1.0)) (x)"
     " (let v (revhandle (tuple x) (y) (op Op0 y) (handler (return r (ret r))"
     " (clause Op0 (real 1) (x (ret (tuple (rd (const 1.0) a (rd (const 1.0) b b a) x) x))) (y z (ret y)))))"
     " (ret (proj 0 v))) (handler (return r (ret r))))))", 3),
    ("(program (ops (Op0 (real 1) (real 1))) (main (revhandle (tuple (const 1.0)) (x)"
     " (let v (revhandle (tuple x) (y) (op Op0 y) (handler (return r (ret r))"
     " (clause Op0 (real 1) (x (ret (tuple (rd (const 1.0) a (rd (const 1.0) b (rd (const 1.0) c c b) a) x) x))) (y z (ret y)))))"
     " (ret (proj 0 v))) (handler (return r (ret r))))))", 4),
]


@pytest.mark.parametrize("program,depth", DEPTHS)
def test_programs_too_large_are_refused_before_they_run(program, depth):
    """Refused (too-large, exit 2) exactly when the estimate exceeds the bound,
    whatever the depth; under it, one step runs (--fuel 1: out of fuel, not
    too large)."""
    out = run(rh_eval_path(), "--fuel", "1", stdin=program, timeout=120)
    if weight(program) > MAX_RD_SIZE:
        assert out.returncode == 2, out.stdout
        assert out.stdout.strip() == too_large(weight(program))
    else:
        assert "(kind too-large)" not in out.stdout and "(kind type)" not in out.stdout, out.stdout
    # --check runs check_program (never_stuck.v) and not the size bound: Ev
    # is total at every order, so every depth passes, with or without a
    # function symbol under the levels
    out = run(rh_eval_path(), "--check", stdin=program, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("(ok (type "), out.stdout


def test_the_issue_s_reproducers_are_refused_and_four_rds_run():
    for program in [nested_rd(5), nested_rd(6), nested_revhandle(4), nested_revhandle(5), nested_revhandle(6),
                    trivial_revhandles(4), trivial_revhandles(5)]:
        out = run(rh_eval_path(), stdin=program, timeout=60)
        assert weight(program) > MAX_RD_SIZE
        assert (out.returncode, out.stdout.strip()) == (2, too_large(weight(program)))
    # rd nested four deep and three nested rev handles are within the bound
    for program in [nested_rd(4), nested_revhandle(3), trivial_revhandles(3)]:
        assert weight(program) <= MAX_RD_SIZE
    out = run(rh_eval_path(), stdin=trivial_revhandles(3), timeout=120)
    assert out.returncode == 0 and out.stdout.startswith("(result (value (tuple (const "), out.stdout


@pytest.mark.parametrize("program", [nested_rd(5), nested_revhandle(4)], ids=["rd5", "revhandle4"])
def test_the_issue_s_reproducers_stop_at_the_memory_bound_when_allowed_to_run(program):
    """With the size bound raised to the estimate's cap, they run into the
    memory bound instead: a clean error line, exit code 1, never OCaml's
    fatal error."""
    out = run(rh_eval_path(), "--max-rd-size", str(CAP), "--memory", "300", "--timeout", "0", stdin=program)
    assert out.returncode == 1, (out.returncode, out.stderr)
    assert out.stdout.strip() == MEMORY_ERROR and out.stderr == ""


def test_the_bounds_can_be_lowered():
    out = run(rh_eval_path(), "--max-rd-depth", "0", stdin=nested_rd(1))
    assert out.returncode == 2 and "differentiates 1 levels deep" in out.stdout and "at most 0 are run" in out.stdout
    out = run(rh_eval_path(), "--max-rd-size", "36", stdin=nested_rd(1))
    assert out.returncode == 2 and "rewritings is 37; at most 36 are run (--max-rd-size)" in out.stdout
    out = run(rh_eval_path(), "--max-rd-size", "37", stdin=nested_rd(1))
    assert out.returncode == 0 and number(out.stdout) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)


def test_serve_refuses_a_large_program_and_goes_on():
    requests = [f"(run {nested_rd(5)})", f"(load s {nested_revhandle(4)})", f"(trace {nested_rd(5)})",
                f"(coverage {nested_rd(5)})", f"(check {nested_rd(5)})", f"(run {nested_rd(1)})"]
    out = run(rh_eval_path(), "--serve", stdin="\n".join(requests) + "\n")
    lines = out.stdout.splitlines()
    big = too_large(CAP)
    assert lines[:4] == [big, too_large(weight(nested_revhandle(4))), big, big]
    assert lines[4] == "(ok (type (real 1)))"
    assert number(lines[5]) == pytest.approx(swish_swish_derivative(0.3), rel=1e-12)
    assert len(lines) == 6


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
    assert out.returncode == 0 and "--memory MB" in out.stdout and "default\n4096" in out.stdout


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
    """--memory 0 lifts the bound (a program that needs about 10 MB runs)."""
    out = run(rh_eval_path(), "--memory", "0", stdin=nested_rd(3))
    assert out.returncode == 0 and out.stdout.startswith("(result"), out.stdout


def test_a_session_survives_a_memory_error():
    """exec of a session that runs out of memory fails; the session and
    another one answer the next requests."""
    small = "(program (locs (l (1))) (heap (l (2.5))) (main (let u (op (put l) (app (smul 1) (tuple (const 2.0) (const 1.0)))) (ret (const 1.0)))))"
    requests = [f"(load big {HUNGRY})", f"(load small {small})", "(exec big)", "(exec small (read l) (value none))",
                "(exec big)", "(heap small)"]
    out = run(rh_eval_path(), "--serve", "--memory", "300", "--timeout", "0", stdin="\n".join(requests) + "\n")
    lines = out.stdout.splitlines()
    assert out.returncode == 0 and len(lines) == 6, out.stdout
    assert lines[0] == "(loaded big (type (real 1)))" and lines[1] == "(loaded small (type (real 1)))"
    assert lines[2] == MEMORY_ERROR and lines[4] == MEMORY_ERROR
    # put l <- 2.0 * 1.0: 2.0 is 0x4000000000000000, little-endian base64 AAAAAAAAAEA=
    assert lines[3].startswith("(result (value) (read (l (f64 AAAAAAAAAEA=))) (steps ")
    assert lines[5] == "(heap (l (f64 AAAAAAAAAEA=)))"
