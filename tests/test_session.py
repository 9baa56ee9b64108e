"""Resident sessions (`revhandlers.Session`) on both engines: the heap is
carried across runs, `set`/`read`, a failing run leaves the heap as it was,
npz save/load, bad names and sizes; the exact f64 encoding; and training
samples of examples/mlp.rh and examples/mlp3.rh against numpy by hand.

The verified engine needs `rh-eval --serve` with the session requests
(load/exec/heap/unload); with a driver that lacks them these tests fail,
saying so, rather than being skipped."""

from __future__ import annotations

import base64
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh
from revhandlers.rh import engine as rh_engine
from revhandlers.rh import syntax as rh_syntax
from revhandlers.errors import BadInput, RuntimeFailure
from revhandlers.rh.engine import VerifiedEvaluator, decode_f64, encode_f64
from revhandlers.paths import rh_eval_path
from revhandlers.rh.session import Session

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ["verified", "reference"]

_SUPPORTED: dict[str, str | None] = {}


def need_sessions() -> None:
    """Fail (not skip) with a clear message if rh-eval lacks sessions."""
    if "answer" not in _SUPPORTED:
        exe = rh_eval_path()
        if not exe.exists():
            _SUPPORTED["answer"] = f"{exe} is missing: run `make build` first"
        else:
            out = subprocess.run([str(exe), "--serve"], input="(heap no_such_session)\n", capture_output=True,
                                 text=True, timeout=60).stdout
            _SUPPORTED["answer"] = (f"rh-eval --serve does not know the session requests yet: {out.strip()[:160]}"
                                    if "a request is (run PROGRAM)" in out else None)
    if _SUPPORTED["answer"] is not None:
        pytest.fail(_SUPPORTED["answer"])


def session(prog, engine, **kw) -> Session:
    if engine == "verified":
        need_sessions()
    return Session(prog, engine=engine, **kw)


COUNTER = rh.parse("""
loc c :: (2)
loc inc :: (2)
loc n :: (1)
let a <= Get[c]() in
let b <= Get[inc]() in
let k <= Get[n]() in
let s <= [| a + b |] in
let _ <= Put[c](s) in
let _ <= Put[n](k + [1]) in
[| s |]
""")

FAILING = rh.parse("""
op Boom : Real(0) ~> Real(0)
loc c :: (2)
loc inc :: (2)
let a <= Get[c]() in
let b <= Get[inc]() in
let _ <= Put[c](a + b) in
Boom([])
""")


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype="<f8").view("<u8")


# ------------------------------------------------------------ semantics

@pytest.mark.parametrize("engine", ENGINES)
def test_heap_is_carried_across_runs(engine):
    inc = np.array([1.5, -0.25])
    with session(COUNTER, engine) as s:
        assert s.heap().keys() == {"c", "inc", "n"}
        assert all(np.all(v == 0) for v in s.heap().values())
        s.set_heap({"inc": inc})
        c = np.zeros(2)
        for k in range(1, 4):
            r = s.run(read=["c", "n"])
            c = c + inc
            np.testing.assert_array_equal(r.value, c)
            np.testing.assert_array_equal(r.read["c"], c)
            np.testing.assert_array_equal(r.read["n"], [k])
            assert r.seconds is not None and r.seconds >= 0
            assert (r.steps is None) == (engine == "reference")
        heap = s.heap()
        np.testing.assert_array_equal(heap["c"], c)
        np.testing.assert_array_equal(heap["inc"], inc)
        np.testing.assert_array_equal(heap["n"], [3.0])
        assert list(heap) == ["c", "inc", "n"]           # declaration order


@pytest.mark.parametrize("engine", ENGINES)
def test_set_applies_before_the_run_and_read_gives_final_values(engine):
    with session(COUNTER, engine) as s:
        r = s.run(set={"c": [10, 20], "inc": np.array([[1.0, 2.0]])}, read=("inc", "c"))
        assert list(r.read) == ["inc", "c"]
        np.testing.assert_array_equal(r.read["c"], [11.0, 22.0])
        np.testing.assert_array_equal(r.read["inc"], [1.0, 2.0])
        r = s.run()                                          # the set values stay
        assert r.read == {}
        np.testing.assert_array_equal(r.value, [12.0, 24.0])
        r = s.run(read=["c"], value=False)                   # no value asked for
        assert r.value is None
        np.testing.assert_array_equal(r.read["c"], [13.0, 26.0])
        s.set_heap({"c": [0, 0]})
        np.testing.assert_array_equal(s.heap()["c"], [0.0, 0.0])   # seen at once
        r = s.run(set={"inc": [5, 5]}, read=["c"])                  # run's set after set_heap
        np.testing.assert_array_equal(r.read["c"], [5.0, 5.0])


def test_values_as_text_and_as_f64_agree():
    need_sessions()
    ev = VerifiedEvaluator()
    try:
        prog = rh.parse("loc c :: (3)\nlet a <= Get[c]() in [| <a, <[0.1, -0.0]>, []> |]")
        with Session(prog, evaluator=ev) as s:
            s.set_heap({"c": [1 / 3, 5e-324, -1e300]})
            exact = s.run().value
            text, _, _, _ = ev.session_exec(s.name, value="text")
            none, _, _, _ = ev.session_exec(s.name, value="none")
        assert none is None
        want = (np.array([1 / 3, 5e-324, -1e300]), (np.array([0.1, -0.0]),), np.array([]))
        for got in (exact, text):
            assert isinstance(got, tuple) and isinstance(got[1], tuple)
            for a, b in [(got[0], want[0]), (got[1][0], want[1][0]), (got[2], want[2])]:
                np.testing.assert_array_equal(bits(a), bits(b))
    finally:
        ev.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_failing_run_leaves_the_heap_as_it_was(engine):
    with session(FAILING, engine) as s:
        s.set_heap({"c": [1.0, 2.0]})
        before = s.heap()
        with pytest.raises(RuntimeFailure) as e:
            s.run(set={"inc": [5.0, 5.0]}, read=["c"])
        assert e.value.kind == "unhandled-operation"
        after = s.heap()
        for k in before:
            np.testing.assert_array_equal(after[k], before[k])
        np.testing.assert_array_equal(after["inc"], [0.0, 0.0])      # the set entry was not applied
        with pytest.raises(RuntimeFailure):
            s.run()
        np.testing.assert_array_equal(s.heap()["c"], [1.0, 2.0])


def test_out_of_fuel_leaves_the_session_heap_as_it_was():
    """Only the verified engine counts steps."""
    with session(COUNTER, "verified") as s:
        s.set_heap({"inc": [1.0, 1.0]})
        steps = s.run().steps
        s.run(fuel=steps + 1)                 # enough (as for a whole program's (fuel N))
        with pytest.raises(RuntimeFailure) as e:
            s.run(set={"inc": [7.0, 7.0]}, fuel=steps // 2)
        assert e.value.kind == "out-of-fuel"
        heap = s.heap()
        np.testing.assert_array_equal(heap["c"], [2.0, 2.0])
        np.testing.assert_array_equal(heap["inc"], [1.0, 1.0])
        np.testing.assert_array_equal(heap["n"], [2.0])
        np.testing.assert_array_equal(s.run().value, [3.0, 3.0])


def test_the_driver_rejects_a_bad_set_and_keeps_the_heap():
    """Past the Python checks: the driver itself checks names and sizes and
    applies nothing of a rejected exec; it accepts plain decimal data."""
    need_sessions()
    ev = VerifiedEvaluator()
    try:
        with Session(COUNTER, evaluator=ev) as s:
            s.run(set={"c": [1.0, 2.0]})
            for bad in (f"(exec {s.name} (set (inc (1.0 2.0)) (c (1.0 2.0 3.0))))",
                        f"(exec {s.name} (set (inc (1.0 2.0)) (nope (1.0))))",
                        f"(exec {s.name} (read nope))"):
                with pytest.raises(BadInput):
                    rh_engine.read_session_answer(ev.request(bad))
                heap = s.heap()
                np.testing.assert_array_equal(heap["c"], [1.0, 2.0])
                np.testing.assert_array_equal(heap["inc"], [0.0, 0.0])
                np.testing.assert_array_equal(heap["n"], [1.0])
            rh_engine.read_session_answer(ev.request(f"(exec {s.name} (set (inc (0.5 -1))))"))
            np.testing.assert_array_equal(s.heap()["c"], [1.5, 1.0])
            with pytest.raises(BadInput):
                rh_engine.read_session_answer(ev.request("(heap no_such_session)"))
    finally:
        ev.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_bad_names_sizes_and_numbers_are_bad_input(engine):
    with session(COUNTER, engine) as s:
        for call, kind in [(lambda: s.run(set={"nope": [1.0]}), "unbound"),
                           (lambda: s.run(set={"c": [1.0, 2.0, 3.0]}), "shape"),
                           (lambda: s.run(read=["nope"]), "unbound"),
                           (lambda: s.run(set={"c": [1.0, float("nan")]}), "number"),
                           (lambda: s.set_heap({"inc": [1.0]}), "shape"),
                           (lambda: s.set_heap({"x": [1.0]}), "unbound")]:
            with pytest.raises(BadInput) as e:
                call()
            assert e.value.kind == kind and e.value.exit_code == 2
        assert all(np.all(v == 0) for v in s.heap().values())


@pytest.mark.parametrize("engine", ENGINES)
def test_save_and_load_npz_round_trip(engine, tmp_path):
    rng = np.random.default_rng(5)
    with session(COUNTER, engine) as s:
        s.set_heap({"inc": rng.normal(size=2)})
        s.run()
        s.run()
        s.save_npz(tmp_path / "h.npz")
        saved = s.heap()
    with np.load(tmp_path / "h.npz") as data:
        assert sorted(data.files) == ["c", "inc", "n"]
        for k in data.files:
            np.testing.assert_array_equal(bits(data[k]), bits(saved[k]))
    with session(COUNTER, engine) as t:
        t.load_npz(tmp_path / "h.npz")
        for k, v in t.heap().items():
            np.testing.assert_array_equal(bits(v), bits(saved[k]))
        np.testing.assert_array_equal(t.run().value, saved["c"] + saved["inc"])
        np.testing.assert_array_equal(t.heap()["n"], [3.0])
        np.savez(tmp_path / "bad_name.npz", c=np.zeros(2), nope=np.zeros(1))
        np.savez(tmp_path / "bad_size.npz", c=np.zeros(3))
        (tmp_path / "junk.npz").write_text("not a zip")
        for f, kind in [("bad_name.npz", "unbound"), ("bad_size.npz", "shape"), ("junk.npz", "io"),
                        ("missing.npz", "io")]:
            with pytest.raises(BadInput) as e:
                t.load_npz(tmp_path / f)
            assert e.value.kind == kind
        np.testing.assert_array_equal(t.heap()["n"], [3.0])


def test_a_closed_session_refuses_requests():
    with Session(COUNTER, engine="reference") as s:
        pass
    with pytest.raises(rh.RevHandlersError):
        s.run()
    with pytest.raises(ValueError):
        Session(COUNTER, engine="nope")


def test_cli_bad_heap_files_and_options_exit_2(tmp_path):
    np.savez(tmp_path / "name.npz", nope=np.zeros(3))
    np.savez(tmp_path / "size.npz", l0=np.zeros(3))
    cases = [(["--load", str(tmp_path / "name.npz")], "nope"),
             (["--load", str(tmp_path / "size.npz")], "l0"),
             (["--load", str(tmp_path / "missing.npz")], "cannot read"),
             (["--epochs", "0"], "epochs"),
             (["--train-size", "0"], "at least 1 sample"),
             (["--lr", "nan"], "learning rate"),
             (["--hidden", "0"], "--hidden"),
             (["--param", "hidden"], "NAME=N")]
    for extra, words in cases:
        proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "train", "examples/mlp.rh", "--engine",
                               "reference", *extra], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, (extra, proc.stderr)
        assert words in proc.stderr and "Traceback" not in proc.stderr, (extra, proc.stderr)


# ------------------------------------------------------------ f64 data

def awkward_floats(n: int = 4000) -> np.ndarray:
    rng = np.random.default_rng(11)
    special = np.array([0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                        1.7976931348623157e308, -1.7976931348623157e308, 1e-310, 0.1, 1 / 3, 2.0 ** -1074,
                        np.inf, -np.inf, np.nan])
    random_bits = rng.integers(0, 2 ** 64, size=n, dtype=np.uint64).view("<f8")      # every exponent, NaN payloads
    subnormal = rng.integers(1, 2 ** 52, size=n // 4, dtype=np.uint64).view("<f8")
    return np.concatenate([special, random_bits, subnormal, -subnormal, rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)])


def test_f64_encoding_is_exact_bit_for_bit():
    xs = awkward_floats()
    text = encode_f64(xs)
    # independently: struct's little-endian doubles, then base64
    assert text == base64.b64encode(b"".join(struct.pack("<Q", int(b)) for b in bits(xs))).decode()
    np.testing.assert_array_equal(bits(decode_f64(text)), bits(xs))
    assert encode_f64([1.0]) == "AAAAAAAA8D8=" and encode_f64([]) == ""
    assert encode_f64(np.array([[1.0, 2.0], [3.0, 4.0]])) == encode_f64([1.0, 2.0, 3.0, 4.0])   # row-major
    assert bits(decode_f64("AAAAAAAAAIA="))[0] == 1 << 63           # -0.0
    for bad in ("AAAA", "AAAAAAAA8D8", "!!!!"):
        with pytest.raises(BadInput):
            decode_f64(bad)


@pytest.mark.parametrize("engine", ENGINES)
def test_f64_data_travel_exactly_through_a_session(engine):
    xs = awkward_floats(3000)
    xs = xs[np.isfinite(xs) & (np.abs(xs) < 1e307)]
    xs = np.resize(xs, 2 * (len(xs) // 2))
    prog = rh.parse(f"""
loc c :: ({len(xs)})
loc inc :: ({len(xs)})
let a <= Get[c]() in let b <= Get[inc]() in let _ <= Put[c](a + b) in [| [] |]
""")
    with session(prog, engine) as s:
        r = s.run(set={"inc": xs, "c": -xs[::-1]}, read=["c", "inc"])
        np.testing.assert_array_equal(bits(r.read["inc"]), bits(xs))
        np.testing.assert_array_equal(bits(r.read["c"]), bits(-xs[::-1] + xs))      # IEEE sums, as numpy does
        np.testing.assert_array_equal(bits(s.heap()["inc"]), bits(xs))


# ------------------------------------------------- training samples, by hand

def swish(u):
    return u / (1.0 + np.exp(-u))


def dswish(u):
    s = 1.0 / (1.0 + np.exp(-u))
    return s + u * s * (1.0 - s)


def sgd_step(Ws, x, t, lr, velocity=None, mu=0.0):
    """One sample of H_train by hand: forward through FC layers with swish
    between them, the cotangent lr·(out − t), backward updating each weight
    w := w − y aᵀ (or, with ``velocity``, m := mu·m + y aᵀ, w := w − m) and
    passing the old wᵀ y on.  Returns (new weights, output, cotangent of x)."""
    acts, pres = [x], []
    h = x
    for i, W in enumerate(Ws):
        u = W @ h
        if i < len(Ws) - 1:
            pres.append(u)
            h = swish(u)
            acts.append(h)
        else:
            out = u
    y = lr * (out - t)
    new = list(Ws)
    for i in reversed(range(len(Ws))):
        step = np.outer(y, acts[i])
        if velocity is not None:
            velocity[i] = mu * velocity[i] + step
            step = velocity[i]
        new[i] = Ws[i] - step
        y = Ws[i].T @ y
        if i > 0:
            y = y * dswish(pres[i - 1])
    return new, out, y


def test_mlp3_type_checks_with_its_default_sizes():
    prog = rh.load(ROOT / "examples" / "mlp3.rh")
    assert rh.check(prog, engine="reference") == rh_syntax.TProd((rh_syntax.TBase(784),))
    assert [(d.name, d.shape) for d in prog.locs][:3] == [("l0", (784, 512)), ("l1", (512, 512)), ("l2", (512, 10))]


@pytest.mark.parametrize("engine", ENGINES)
def test_mlp3_one_step_agrees_with_numpy_by_hand(engine):
    sizes = dict(n_in=4, h1=5, h2=3, n_out=2)
    prog = rh.load(ROOT / "examples" / "mlp3.rh", params=sizes)
    rng = np.random.default_rng(2)
    Ws = [rng.normal(size=(5, 4)), rng.normal(size=(3, 5)), rng.normal(size=(2, 3))]
    x, t, lr = rng.normal(size=4), np.array([0.0, 1.0]), 0.1
    heap = {"l0": Ws[0], "l1": Ws[1], "l2": Ws[2], "input": x, "target": t, "lr": [lr]}
    new, out, gx = sgd_step(Ws, x, t, lr)
    res = rh.run(prog, heap=heap, engine=engine)                  # the whole program
    np.testing.assert_allclose(res.value[0], gx, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(res.heap["output"], out, rtol=1e-10, atol=1e-14)
    for i in range(3):
        np.testing.assert_allclose(res.heap[f"l{i}"], new[i].reshape(-1), rtol=1e-10, atol=1e-14)
    with session(prog, engine) as s:                             # and a session, two samples
        s.set_heap(heap)
        r = s.run(read=["output", "l2"])
        np.testing.assert_allclose(r.read["output"], out, rtol=1e-10, atol=1e-14)
        x2 = rng.normal(size=4)
        new2, out2, _ = sgd_step(new, x2, t, lr)
        r = s.run(set={"input": x2}, read=["output"])
        np.testing.assert_allclose(r.read["output"], out2, rtol=1e-10, atol=1e-14)
        for i in range(3):
            np.testing.assert_allclose(s.heap()[f"l{i}"], new2[i].reshape(-1), rtol=1e-10, atol=1e-14)


def test_verified_and_reference_sessions_agree_over_training_samples():
    need_sessions()
    prog = rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 8})
    rng = np.random.default_rng(4)
    Ws = [rng.normal(0, 1 / 8, size=(8, 64)), rng.normal(0, 1 / np.sqrt(8), size=(10, 8))]
    X, labels = rng.random((12, 64)), rng.integers(0, 10, 12)
    with Session(prog) as v, Session(prog, engine="reference") as r:
        for s in (v, r):
            s.set_heap({"l0": Ws[0], "l1": Ws[1], "lr": [0.05]})
        for x, label in zip(X, labels):
            t = np.eye(10)[label]
            Ws, out, gx = sgd_step(Ws, x, t, 0.05)
            a = v.run(set={"input": x, "target": t}, read=["output"])
            b = r.run(set={"input": x, "target": t}, read=["output"])
            np.testing.assert_allclose(a.read["output"], b.read["output"], rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(a.read["output"], out, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(a.value[0], gx, rtol=1e-9, atol=1e-12)
            assert a.steps > 0 and b.steps is None
        hv, hr = v.heap(), r.heap()
        assert list(hv) == list(hr)
        for k in hv:
            np.testing.assert_allclose(hv[k], hr[k], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hv["l0"], Ws[0].reshape(-1), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hv["l1"], Ws[1].reshape(-1), rtol=1e-9, atol=1e-12)


def test_training_step_bench_runs_quick():
    need_sessions()
    proc = subprocess.run([sys.executable, "bench/training_step.py", "--quick"], cwd=ROOT, capture_output=True,
                          text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    for words in ("784-512-512-10", "numpy by hand", "T(2L)/T(L)", "make demo"):
        assert words in proc.stdout
