"""The extracted evaluator `rh-eval`: the paper's examples give the numbers an
independent numpy computation predicts, its trace shows the paper's rewriting,
and every class of bad input gets its own error and exit code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import sexpdata

from revhandlers.paths import rh_eval_path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "sexp"


def rh_eval(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    exe = rh_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    return subprocess.run([str(exe), *args], input=stdin, capture_output=True, text=True, timeout=timeout)


def sym(x) -> str | None:
    return x.value() if isinstance(x, sexpdata.Symbol) else None


def field(sexp, name):
    """The body of the sub-list ``(name ...)`` of ``sexp``."""
    for item in sexp[1:]:
        if isinstance(item, list) and item and sym(item[0]) == name:
            return item[1:]
    raise KeyError(name)


def floats(xs) -> np.ndarray:
    for x in xs:
        assert isinstance(x, float), f"{x!r} does not read back as a float"
    return np.array(xs, dtype=float)


def value_leaves(v) -> list[np.ndarray]:
    head = sym(v[0])
    if head == "const":
        return [floats(v[1:])]
    assert head == "tuple"
    return [leaf for item in v[1:] for leaf in value_leaves(item)]


def parse_result(line: str):
    out = sexpdata.loads(line)
    assert sym(out[0]) == "result", line
    (value,) = field(out, "value")
    heap = {sym(entry[0]): floats(entry[1]) for entry in field(out, "heap")}
    (steps,) = field(out, "steps")
    return value_leaves(value), heap, steps


def sigm(x):
    return 1.0 / (1.0 + np.exp(-x))


def swish(x):
    return x * sigm(x)


def swish_prime(x):
    s = sigm(x)
    return s + x * s * (1.0 - s)


def program_parts(path: Path):
    prog = sexpdata.loads(path.read_text())
    heap = {sym(e[0]): np.array(e[1], dtype=float) for e in field(prog, "heap")}
    return prog, heap


# ---------------------------------------------------------------- examples


def test_mlp_training_step_matches_numpy():
    """Spec §9.1: one rev handle of H_train leaves
    l1 = m1 - alpha (m1 v1 - t) v1^T and l0 = m0 - u'_1 v^T on the heap."""
    path = EXAMPLES / "mlp_step.sexp"
    _, heap0 = program_parts(path)
    m0 = heap0["l0"].reshape(4, 3)
    m1 = heap0["l1"].reshape(2, 4)
    v = np.array([1.0, -0.5, 2.0])
    t = np.array([0.5, -1.0])
    alpha = 0.05

    h = m0 @ v
    v1 = swish(h)
    u = alpha * (m1 @ v1 - t)
    m1_new = m1 - np.outer(u, v1)
    u1 = (m1.T @ u) * swish_prime(h)
    m0_new = m0 - np.outer(u1, v)
    returned = m0.T @ u1

    proc = rh_eval(str(path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (value,), heap, steps = parse_result(proc.stdout)
    np.testing.assert_allclose(heap["l1"], m1_new.ravel(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(heap["l0"], m0_new.ravel(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(value, returned, rtol=1e-12, atol=1e-14)
    assert steps > 0


def test_one_layer_result_matches_numpy():
    path = EXAMPLES / "one_layer.sexp"
    w = np.arange(1.0, 7.0).reshape(3, 2)
    v = np.array([0.5, -1.0])
    u = 0.1 * (w @ v - np.array([1.0, 0.0, 0.0]))
    proc = rh_eval(str(path))
    assert proc.returncode == 0, proc.stdout
    (value,), heap, _ = parse_result(proc.stdout)
    np.testing.assert_allclose(heap["l"], (w - np.outer(u, v)).ravel(), rtol=1e-12)
    np.testing.assert_allclose(value, w.T @ u, rtol=1e-12)


def test_trace_shows_the_papers_let_chain():
    """Spec §9.5: the first step rewrites rev handle(<v>)<x>.FC[l](x) into
    let <y,z'> <= Q^f[v/x] in let <y',y'_1> <= (let y <= P[y/x] in <y, 0>) in
    let y''_1 <= Q^b[y'/y, z'/z] in <y'_1 + y''_1>."""
    proc = rh_eval("--trace", str(EXAMPLES / "one_layer.sexp"))
    assert proc.returncode == 0, proc.stdout
    lines = proc.stdout.splitlines()
    assert len(lines) > 3
    step0, step1 = sexpdata.loads(lines[0]), sexpdata.loads(lines[1])
    assert sym(field(step0, "cmd")[0][0]) == "revhandle"
    (chain,) = field(step1, "cmd")
    # let p <= Q^f[v/x] in ...
    assert sym(chain[0]) == "let"
    p, qf, rest = chain[1], chain[2], chain[3]
    assert sym(qf[0]) == "let" and sym(qf[2][1][0]) == "get"          # Q^f reads the weights
    const_v = qf[3][1][1][2][2]                                          # v substituted for x
    assert sym(const_v[0]) == "const" and const_v[1:] == [0.5, -1.0]
    # let q <= (let u <= P[proj_0 p/x] in <u, 0>) in ...
    assert sym(rest[0]) == "let"
    q, inner, rest2 = rest[1], rest[2], rest[3]
    assert sym(inner[0]) == "let" and sym(inner[2][0]) == "ret"
    assert sym(inner[2][1][1][0]) == "smul"                            # the return clause
    assert sym(inner[3][1][0]) == "tuple" and sym(inner[3][1][1]) == sym(inner[1])
    # let r <= Q^b[proj_0 q/y, proj_1 p/z] in <proj_1 q + r>
    assert sym(rest2[0]) == "let"
    qb, last = rest2[2], rest2[3]
    assert sym(qb[2][1][0]) == "put"                                   # Q^b writes the weights
    r = sym(rest2[1])
    assert last == [sexpdata.Symbol("ret"),
                    [sexpdata.Symbol("tuple"),
                     [sexpdata.Symbol("add"), [sexpdata.Symbol("proj"), 1, q], sexpdata.Symbol(r)]]]
    assert sym(p) != sym(q)
    # the trace ends with the same result line as a plain run
    assert lines[-1] == rh_eval(str(EXAMPLES / "one_layer.sexp")).stdout.strip()


def test_check_mode_prints_the_type():
    proc = rh_eval("--check", str(EXAMPLES / "mlp_step.sexp"))
    assert proc.returncode == 0
    out = sexpdata.loads(proc.stdout)
    assert out == sexpdata.loads("(ok (type (prod (real 3))))")


def test_floats_always_read_back_as_floats():
    prog = "(program (main (ret (tuple (const 1 -0 0.5) (add (const 2) (const -2))))))"
    proc = rh_eval(stdin=prog)
    assert proc.returncode == 0, proc.stdout
    leaves, _, _ = parse_result(proc.stdout)
    np.testing.assert_array_equal(leaves[0], [1.0, -0.0, 0.5])
    np.testing.assert_array_equal(leaves[1], [0.0])
    assert "-0.0" in proc.stdout


# --------------------------------------------------------------- bad input

LOCS = "(locs (l (2)))"


def wrap(cmd: str, ops: str = "", locs: str = LOCS, heap: str = "") -> str:
    return f"(program (ops {ops}) {locs} (heap {heap}) (main {cmd}))"


def error_of(proc) -> tuple[str, str, str]:
    out = sexpdata.loads(proc.stdout)
    assert sym(out[0]) == "error", proc.stdout
    (kind,) = field(out, "kind")
    (rule,) = field(out, "rule")
    (message,) = field(out, "message")
    return sym(kind), sym(rule), message


BAD_INPUT = {
    # name: (program text, kind, rule or None, words expected in the message)
    "malformed": ("(program (main (ret (const 1.0))", "parse", None, "malformed"),
    "two-expressions": ("(program (main (ret (const 1.0)))) (x)", "parse", None, "more than one"),
    "empty": ("   ", "parse", None, "empty"),
    "not-a-program": ("(prog (main (ret (const 1.0))))", "syntax", None, "program"),
    "not-a-term": (wrap("(ret (frob 1))"), "syntax", None, "not a term"),
    "unbound-variable": (wrap("(ret y)"), "unbound", None, "unbound variable y"),
    "outer-variable-in-body": (wrap("(let y (ret (const 1.0)) (revhandle (tuple (const 1.0)) (x) (ret y) (handler (return x (ret x)))))"),
                               "unbound", None, "unbound variable y"),
    "unknown-operation": (wrap("(op Foo (const 1.0))"), "unbound", None, "unknown operation Foo"),
    "unknown-location": (wrap("(op (get nowhere) (const))"), "unbound", None, "unknown location nowhere"),
    "unknown-function": (wrap("(ret (app (softplus 3) (const 1.0 2.0 3.0)))"), "unbound", None, "unknown function symbol softplus"),
    "heap-shape": (wrap("(ret (const))", heap="(l (1.0 2.0 3.0))"), "shape", None, "holds 2 numbers"),
    "primitive-params": (wrap("(ret (app (conv1d 1 1 2 3) (tuple (const 1.0 2.0 3.0) (const 1.0 2.0))))"), "shape", None, "conv1d"),
    "nan": (wrap("(ret (const 1.0 nan))"), "number", None, "nan"),
    "inf": (wrap("(ret (const -inf))"), "number", None, "inf"),
    "heap-nan": (wrap("(ret (const))", heap="(l (1.0 nan))"), "number", None, "nan"),
    "typed_tm_app": (wrap("(ret (app (swish 3) (const 1.0 2.0)))"), "type", "typed_tm_app", "(real 2)"),
    "typed_tm_add": (wrap("(ret (add (const 1.0) (const 1.0 2.0)))"), "type", "typed_tm_add", "base type"),
    "typed_tm_proj": (wrap("(ret (proj 2 (tuple (const 1.0) (const 2.0))))"), "type", "typed_tm_proj", "projection"),
    "typed_tm_rd": (wrap("(ret (rd (const 1.0 2.0) x (app (swish 1) x) (const 3.0)))"), "type", "typed_tm_rd", "cotangent"),
    "typed_cmd_op": (wrap("(op (put l) (const 1.0))"), "type", "typed_cmd_op", "coarity"),
    "typed_cmd_revhandle": (wrap("(revhandle (const 1.0) (x) (ret x) (handler (return x (ret x))))"), "type", "typed_cmd_revhandle", "not a product"),
    "typed_handler_rev": (wrap("(revhandle (tuple (const 1.0)) (x) (ret x) (handler (return x (ret (const 1.0 2.0)))))"),
                          "type", "typed_handler_rev", "return clause"),
    "typed_clauses_cons": (wrap("(revhandle (tuple (const 1.0)) (x) (ret x) (handler (return x (ret x)) (clause F (real 0) (x (ret x)) (y z (ret y)))))",
                                ops="(F (real 1) (real 1))"), "type", "typed_clauses_cons", "forward clause of F"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_bad_input_is_rejected_with_exit_2(name):
    text, kind, rule, words = BAD_INPUT[name]
    proc = rh_eval(stdin=text)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr == ""
    k, r, message = error_of(proc)
    assert k == kind
    assert r == (rule or "none")
    assert words in message


def test_deep_nesting_is_rejected_not_crashing():
    depth = 100_000
    term = "(tuple " * depth + "(const 1.0)" + ")" * depth
    proc = rh_eval(stdin=wrap(f"(ret {term})"))
    assert proc.returncode == 2
    assert error_of(proc)[0] == "too-deep"


RUNTIME = {
    "unhandled-operation": ("(op F (const 1.0))", "(F (real 1) (real 1))", "handled by no handler"),
}


@pytest.mark.parametrize("name", sorted(RUNTIME))
def test_runtime_failures_exit_1(name):
    cmd, ops, words = RUNTIME[name]
    proc = rh_eval(stdin=wrap(cmd, ops=ops))
    assert proc.returncode == 1, proc.stdout
    k, r, message = error_of(proc)
    assert (k, r) == (name, "none")
    assert words in message


def test_out_of_fuel_exits_1():
    proc = rh_eval("--fuel", "3", str(EXAMPLES / "mlp_step.sexp"))
    assert proc.returncode == 1
    assert error_of(proc)[0] == "out-of-fuel"


def test_bad_command_line_exits_2():
    proc = rh_eval("--fuel", "lots")
    assert proc.returncode == 2
    assert "usage" in proc.stderr


def test_missing_file_is_bad_input():
    proc = rh_eval(str(ROOT / "no-such-file.sexp"))
    assert proc.returncode == 2
    assert error_of(proc)[0] == "io"


def test_serve_keeps_serving_after_bad_requests():
    good = " ".join((EXAMPLES / "one_layer.sexp").read_text().split("\n")[4:])
    requests = [
        f"(run {good})",
        "(run (program (main",
        f"(check {good})",
        "(run " + wrap("(ret (app (swish 3) (const 1.0)))") + ")",
        f"(trace {good})",
        good,
    ]
    proc = rh_eval("--serve", stdin="\n".join(requests) + "\n")
    assert proc.returncode == 0
    answers = proc.stdout.splitlines()
    assert len(answers) == len(requests)
    heads = [sym(sexpdata.loads(a)[0]) for a in answers]
    assert heads == ["result", "error", "ok", "error", "trace", "result"]
    assert answers[0] == answers[5]
    trace = sexpdata.loads(answers[4])
    assert sym(trace[-1][0]) == "result" and sym(trace[1][0]) == "step"
