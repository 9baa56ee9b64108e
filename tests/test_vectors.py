"""The float-array vectors of `rh-eval` (extracted/vec.ml) against the list
model extracted from Coq, the exact number transport (extracted/f64.ml),
and the resident sessions of `rh-eval --serve`.

Expected numbers come from the list model (the Coq definitions the arrays
replace, run by the same driver with ``--list-vectors``) and from numpy."""

from __future__ import annotations

import base64
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sexpdata

import revhandlers as rh
from revhandlers.paths import build_dir, rh_eval_path
from revhandlers.rh.sexp import program_sexp

ROOT = Path(__file__).resolve().parents[1]
VEC_CHECK = build_dir() / "extracted" / "vec_check.exe"


def sym(x):
    return x.value() if isinstance(x, sexpdata.Symbol) else None


# ---------------------------------------------------------------- kernels

@pytest.mark.parametrize("seed,portable", [(1, False), (2, False), (3, True)])
def test_every_vector_kernel_is_the_list_model_bit_for_bit(seed, portable):
    """``portable``: the C dot products without AVX2 (RH_NO_AVX2=1), the
    code a CPU without it runs."""
    assert VEC_CHECK.exists(), f"{VEC_CHECK} is missing: run `make build`"
    env = {**os.environ, "RH_NO_AVX2": "1"} if portable else {k: v for k, v in os.environ.items() if k != "RH_NO_AVX2"}
    out = subprocess.run([str(VEC_CHECK), "4000", str(seed)], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "all identical bit for bit" in out.stdout
    assert int(out.stdout.split()[1]) >= 4000 * 25      # every kernel compared in every round


def rh_eval(*args, stdin=None, timeout=120):
    return subprocess.run([str(rh_eval_path()), *args], input=stdin, capture_output=True, text=True,
                          timeout=timeout)


PROGRAMS = sorted((ROOT / "examples" / "sexp").glob("*.sexp")) + sorted((ROOT / "tests" / "corpus").glob("*.sexp"))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_arrays_and_list_model_print_the_same_answer(path):
    """The whole evaluator on float arrays and on the Coq list model: the
    same answer line, character for character (17 significant digits)."""
    arrays = rh_eval(str(path))
    lists = rh_eval("--list-vectors", str(path))
    assert arrays.returncode == lists.returncode
    assert arrays.stdout == lists.stdout


@pytest.mark.parametrize("name", ["resnet", "cnn", "unet", "ste", "autoencoder", "mlp_sce"])
def test_example_networks_agree_on_both_vector_representations(name):
    prog = rh.load(ROOT / "examples" / f"{name}.rh")
    rng = np.random.default_rng(7)
    heap = "".join(f" ({d.name} ({' '.join(repr(float(x)) for x in rng.normal(size=d.size))}))" for d in prog.locs)
    text = program_sexp(prog)
    text = text.replace("(heap)", "").rstrip(")") + f" (heap{heap}))" if "(heap" not in text else text
    arrays = rh_eval(stdin=text)
    lists = rh_eval("--list-vectors", stdin=text)
    assert arrays.returncode == 0, arrays.stdout
    assert arrays.stdout == lists.stdout


def test_a_vector_of_a_million_numbers_runs_at_the_default_stack():
    n = 1_000_000
    line = ("(program (locs (l (%d))) (main (let v (op (get l) (const)) "
            "(let w (op (put l) (app (sub %d) (tuple v v))) (ret (app (swish 1) (const 2.0)))))))" % (n, n))
    out = rh_eval(stdin=line)
    assert out.returncode == 0, out.stdout[:500]
    assert out.stdout.startswith("(result (value (const 1.7615941559557")


# ---------------------------------------------------------------- f64

def f64(a) -> str:
    return "(f64 " + base64.b64encode(np.asarray(a, dtype="<f8").tobytes()).decode() + ")"


def read_f64(entry) -> np.ndarray:
    assert sym(entry[0]) == "f64"
    if len(entry) == 1:
        return np.zeros(0)
    data = entry[1].value() if isinstance(entry[1], sexpdata.Symbol) else entry[1]
    return np.frombuffer(base64.b64decode(data), dtype="<f8")


SPECIAL = [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, -1.7976931348623157e308,
           0.1, 1 / 3, -2.5, 1e-300, 123456789.123456789]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 12, 1000])
def test_f64_data_crosses_the_pipe_exactly(n):
    rng = np.random.default_rng(n)
    values = np.concatenate([np.array(SPECIAL), rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, size=n)])[:max(n, 1)]
    if n == 0:
        values = values[:0]
    m = len(values)
    prog = f"(program (locs (l ({m}))) (main (ret (const 1.0))))"
    answers = serve([f"(load s {prog})", f"(exec s (set (l {f64(values)})) (read l))", "(heap s)"])
    res = sexpdata.loads(answers[1])
    (read,) = [item for item in res[1:] if sym(item[0]) == "read"]
    got = read_f64(read[1][1])
    assert got.tobytes() == values.astype("<f8").tobytes()
    heap = sexpdata.loads(answers[2])
    assert read_f64(heap[1][1]).tobytes() == values.astype("<f8").tobytes()


@pytest.mark.parametrize("data, message", [
    ("(f64 AAAA)", "base64"),                       # 3 bytes: not a whole binary64
    ("(f64 AAAAAAAAAA=)", "base64"),                # length not a multiple of 4
    ("(f64 AAAA*AAAAAAA)", "base64"),               # not the alphabet
    ("(f64 " + base64.b64encode(struct.pack("<d", float("nan"))).decode() + ")", "finite"),
    ("(f64 " + base64.b64encode(struct.pack("<dd", 1.0, 2.0)).decode() + ")", "holds 1 numbers"),
])
def test_bad_f64_data_is_bad_input(data, message):
    prog = "(program (locs (l (1))) (main (ret (const 1.0))))"
    answers = serve([f"(load s {prog})", f"(exec s (set (l {data})))"])
    assert answers[1].startswith("(error"), answers[1]
    assert message in answers[1]


# ---------------------------------------------------------------- sessions

def serve(lines: list[str], *args: str) -> list[str]:
    out = rh_eval("--serve", *args, stdin="".join(line + "\n" for line in lines))
    assert out.returncode == 0, out.stderr
    answers = out.stdout.splitlines()
    assert len(answers) == len(lines), out.stdout
    return answers


COUNTER = ("(program (locs (n (1)) (out (1))) (main (let v (op (get n) (const)) "
           "(let w (op (put n) (add v (const 1.0))) (op (put out) (add v v))))))")


def test_a_session_keeps_its_heap_between_runs():
    answers = serve([f"(load c {COUNTER})", "(exec c (read n out))", "(exec c (read n out))",
                     "(exec c (set (n (10.0))) (read n out))", "(heap c)", "(unload c)", "(exec c)"])
    assert answers[0] == "(loaded c (type (real 0)))"
    reads = []
    for a in answers[1:4]:
        res = sexpdata.loads(a)
        assert sym(res[0]) == "result", a
        (read,) = [item for item in res[1:] if sym(item[0]) == "read"]
        reads.append({sym(e[0]): read_f64(e[1]).tolist() for e in read[1:]})
    assert reads == [{"n": [1.0], "out": [0.0]}, {"n": [2.0], "out": [2.0]}, {"n": [11.0], "out": [20.0]}]
    heap = sexpdata.loads(answers[4])
    assert {sym(e[0]): read_f64(e[1]).tolist() for e in heap[1:]} == {"n": [11.0], "out": [20.0]}
    assert answers[5] == "(unloaded c)"
    assert "(kind unbound)" in answers[6] and "no session named c" in answers[6]


def test_a_failing_run_leaves_the_session_heap_unchanged():
    prog = ("(program (ops (Q (real 1) (real 1))) (locs (n (1))) (main (let v (op (get n) (const)) "
            "(let w (op (put n) (add v (const 1.0))) (op Q v)))))")
    answers = serve([f"(load f {prog})", "(exec f (set (n (5.0))) (read n))", "(heap f)"])
    assert answers[0].startswith("(loaded f"), answers[0]
    assert "(kind unhandled-operation)" in answers[1]
    heap = sexpdata.loads(answers[2])
    assert read_f64(heap[1][1]).tolist() == [0.0]


@pytest.mark.parametrize("request_line, kind", [
    ("(exec nosuch)", "unbound"),
    ("(exec c (set (nosuch (1.0))))", "unbound"),
    ("(exec c (read nosuch))", "unbound"),
    ("(exec c (set (n (1.0 2.0))))", "shape"),
    ("(exec c (frobnicate))", "syntax"),
    ("(load c (program (main (ret (app (swish 3) (const 1.0))))))", "type"),
    ("(load)", "syntax"),
])
def test_bad_session_requests_are_bad_input(request_line, kind):
    answers = serve([f"(load c {COUNTER})", request_line, "(exec c (read n))"])
    assert f"(kind {kind})" in answers[1], answers[1]
    assert sym(sexpdata.loads(answers[2])[0]) == "result"       # the session survives


def test_a_session_trains_the_mlp_like_numpy():
    """Three SGD steps of examples/mlp.rh through one session, weights kept
    resident, against the same steps computed by hand in numpy."""
    n_in, hid, n_out, lr = 6, 5, 3, 0.1
    prog = rh.load(ROOT / "examples" / "mlp.rh", params={"n_in": n_in, "hidden": hid, "n_out": n_out})
    rng = np.random.default_rng(3)
    W0, W1 = rng.normal(size=(hid, n_in)), rng.normal(size=(n_out, hid))
    xs, ts = rng.normal(size=(3, n_in)), np.eye(n_out)[[0, 2, 1]]
    lines = [f"(load m {program_sexp(prog)})",
             f"(exec m (set (l0 {f64(W0.ravel())}) (l1 {f64(W1.ravel())}) (lr ({lr!r}))))"]
    lines += [f"(exec m (set (input {f64(x)}) (target {f64(t)})) (read output l0 l1))" for x, t in zip(xs, ts)]
    answers = serve(lines)
    for x, t, a in zip(xs, ts, answers[2:]):
        z = W0 @ x
        s = 1 / (1 + np.exp(-z))
        y = W1 @ (z * s)
        g = lr * (y - t)
        ga = W1.T @ g
        W1 = W1 - np.outer(g, z * s)
        W0 = W0 - np.outer(ga * (s + z * s * (1 - s)), x)
        res = sexpdata.loads(a)
        (read,) = [item for item in res[1:] if sym(item[0]) == "read"]
        got = {sym(e[0]): read_f64(e[1]) for e in read[1:]}
        np.testing.assert_allclose(got["output"], y, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got["l0"], W0.ravel(), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got["l1"], W1.ravel(), rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- bounds

def test_endless_input_is_refused_with_a_message():
    out = subprocess.run([str(rh_eval_path()), "/dev/zero"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2
    assert "(kind too-large)" in out.stdout and "1073741824 bytes" in out.stdout


def test_the_heap_has_a_total_bound():
    locs = " ".join(f"(l{i} (6000 10000))" for i in range(2))
    out = rh_eval(stdin=f"(program (locs {locs}) (main (ret (const 1.0))))")
    assert out.returncode == 2
    assert "(kind shape)" in out.stdout and "100000000" in out.stdout


def test_check_does_not_build_the_heap():
    """A location of 10^8 numbers (800 MB) is declared; --check answers
    without building it (the run would)."""
    out = subprocess.run([str(rh_eval_path()), "--check"], input="(program (locs (l (10000 10000))) (main (ret (const 1.0))))",
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("(ok (type (real 1)))")


def test_error_messages_quote_large_input_briefly():
    name = "x" * 1_000_000
    out = rh_eval(stdin=f"(program (main (ret {name})))")
    assert out.returncode == 2 and "(kind unbound)" in out.stdout
    assert len(out.stdout) < 2000 and "characters in all" in out.stdout
    big = "(tuple " + " ".join(["(const 1.0 2.0)"] * 100000) + ")"
    out = rh_eval(stdin=f"(program (main (ret (app (swish 3) {big}))))")
    assert out.returncode == 2 and "(rule typed_tm_app)" in out.stdout
    assert len(out.stdout) < 2000
