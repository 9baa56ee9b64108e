"""The verified evaluator inside the Python process (revhandlers.rh.inprocess:
the extracted OCaml as a shared library, loaded with ctypes) against the
same evaluator in its `rh-eval --serve` process: every answer of a session
(value, locations read, steps, the whole heap, errors with their kinds) is
the same bit for bit, on every example program trained a few steps from
random weights, with signed zeros, subnormals and extremes in the data.

The shared library is built with everything else (`dune build`): a missing
library is a failure, not a skip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh
from revhandlers.rh import inprocess
from revhandlers.errors import BadInput, RevHandlersError, RuntimeFailure
from revhandlers.rh.session import Session

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.rh"))


def bits(a) -> np.ndarray:
    return np.asarray(a, dtype="<f8").view("<u8")


def same(a, b) -> bool:
    """Equal bit for bit: arrays, tuples of them, or None."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(map(same, a, b))
    if a is None or b is None:
        return a is None and b is None
    return np.shape(a) == np.shape(b) and np.array_equal(bits(a), bits(b))


@pytest.fixture(scope="module", autouse=True)
def library():
    if not inprocess.available():
        pytest.fail(f"{inprocess.LIBRARY} is not built: run `dune build` first")


def pair(prog):
    a = Session(prog, in_process=True)
    b = Session(prog, in_process=False)
    assert type(a._ev).__name__ == "InProcessEvaluator" and type(b._ev).__name__ == "VerifiedEvaluator"
    return a, b


def special(rng, n):
    """Random numbers with signed zeros, subnormals and extremes among them."""
    x = rng.normal(0.0, 1.0, n)
    picks = rng.integers(0, 8, n)
    x[picks == 0] = -0.0
    x[picks == 1] = 0.0
    x[picks == 2] *= 5e-324
    x[picks == 3] *= 1e-300
    return x


@pytest.mark.parametrize("example", EXAMPLES)
def test_every_example_trains_identically(example):
    prog = rh.load(ROOT / "examples" / example)
    rng = np.random.default_rng(sum(map(ord, example)))
    a, b = pair(prog)
    with a, b:
        assert repr(a.type) == repr(b.type)
        names = [d.name for d in prog.locs]
        start = {d.name: rng.normal(0.0, 0.3, d.size) for d in prog.locs}
        if "lr" in start:
            start["lr"] = np.array([0.01])
        a.set_heap(start)
        b.set_heap(start)
        for step in range(4):
            sets = {n: special(rng, prog.loc_decl(n).size) for n in ("input", "target") if n in start}
            try:
                ra = a.run(set=sets, read=names)
            except RevHandlersError as e:
                with pytest.raises(type(e)) as eb:
                    b.run(set=sets, read=names)
                assert (eb.value.kind, str(eb.value)) == (e.kind, str(e))
                continue
            rb = b.run(set=sets, read=names)
            assert same(ra.value, rb.value)
            assert ra.steps == rb.steps
            assert list(ra.read) == list(rb.read) == names
            for n in names:
                assert same(ra.read[n], rb.read[n]), (example, step, n)
        ha, hb = a.heap(), b.heap()
        assert list(ha) == list(hb)
        assert all(same(ha[n], hb[n]) for n in ha)


COUNTER = rh.parse("""
loc c :: (2)
loc inc :: (2)
let a <= Get[c]() in
let b <= Get[inc]() in
let _ <= Put[c](a + b) in
[| <a + b, <[0.1, -0.0]>, []> |]
""")

FAILING = rh.parse("""
op Boom : Real(0) ~> Real(0)
loc c :: (2)
let a <= Get[c]() in
let _ <= Put[c](a + a) in
Boom([])
""")


def test_values_fuel_and_failures_agree():
    a, b = pair(COUNTER)
    with a, b:
        for s in (a, b):
            s.set_heap({"inc": [5e-324, -1e300], "c": [-0.0, 1 / 3]})
        ra, rb = a.run(read=["c"]), b.run(read=["c"])
        assert same(ra.value, rb.value) and same(ra.read["c"], rb.read["c"]) and ra.steps == rb.steps
        with pytest.raises(RuntimeFailure) as ea:
            a.run(fuel=2)
        with pytest.raises(RuntimeFailure) as eb:
            b.run(fuel=2)
        assert (ea.value.kind, str(ea.value)) == (eb.value.kind, str(eb.value))
        assert ea.value.kind == "out-of-fuel"
        assert same(a.heap()["c"], b.heap()["c"])            # a failure leaves the heap as it was
        for ev in (a._ev, b._ev):                            # the value as decimal text
            v, _, _, _ = ev.session_exec(a.name if ev is a._ev else b.name, value="text")
            assert isinstance(v, tuple)
    a, b = pair(FAILING)
    with a, b:
        for s in (a, b):
            s.set_heap({"c": [1.0, 2.0]})
        errs = []
        for s in (a, b):
            with pytest.raises(RevHandlersError) as e:
                s.run(set={"c": [3.0, 4.0]})
            errs.append((type(e.value), e.value.kind, str(e.value)))
            np.testing.assert_array_equal(s.heap()["c"], [1.0, 2.0])
        assert errs[0] == errs[1]


def test_bad_requests_are_errors_not_crashes():
    ev = inprocess.InProcessEvaluator()
    for line, kind in [("(heap nowhere)", "unbound"), ("(exec", "parse"), ("(frobnicate)", "syntax"),
                       ("(load x (program (main (var 0))))", None)]:
        with pytest.raises(RevHandlersError) as e:
            inprocess.read_session_answer(ev.request(line))
        if kind is not None:
            assert e.value.kind == kind
    with pytest.raises(BadInput):                           # a location that does not exist
        ev.session_exec("nowhere", set={"c": [1.0]})
    with Session(COUNTER, in_process=True) as s:
        with pytest.raises(RevHandlersError) as e:
            ev.session_exec(s.name, set={"c": [1.0, float("nan")]})
        assert e.value.kind == "number"
        with pytest.raises(RevHandlersError) as e:
            ev.session_exec(s.name, set={"c": [1.0, 2.0, 3.0]})
        assert e.value.kind in ("shape", "type")
        np.testing.assert_array_equal(s.heap()["c"], [0.0, 0.0])
        r = s.run(read=["c"])                                # nothing staged is left behind
        np.testing.assert_array_equal(r.read["c"], [0.0, 0.0])
        _, got, _, _ = ev.session_exec(s.name, set={"inc": [1.0, -2.0]}, read=["c", "inc"])   # sizes unknown
        np.testing.assert_array_equal(got["c"], [1.0, -2.0])
        np.testing.assert_array_equal(got["inc"], [1.0, -2.0])
        with pytest.raises(RevHandlersError) as e:
            ev.session_exec(s.name, read=["nowhere"])
        assert e.value.kind == "unbound"


def test_a_long_run_stops_at_the_timeout_and_the_session_goes_on():
    """The in-process bound (GC alarms, no signal): a run of about 400
    products of 150×150 matrices, far longer than the bound of 0.1 s, is
    the runtime error `timeout`; the heap is left as it was and the next
    request is answered."""
    n, L = 150, 400
    prog = rh.parse(f"loc w :: ({n}, {n})\nlet a <= Get[w]() in\nlet x0 <= Get[w]() in\n"
                    + "\n".join(f"let x{i + 1} <= [| matmul[{n}, {n}, {n}](<a, x{i}>) |] in" for i in range(L))
                    + f" [| x{L} |]")
    ev = inprocess.InProcessEvaluator(timeout=0.1)
    try:
        with Session(prog, evaluator=ev) as s:
            s.set_heap({"w": np.eye(n)})
            with pytest.raises(RuntimeFailure) as e:
                s.run(value=False)
            assert e.value.kind == "timeout"
            np.testing.assert_array_equal(s.heap()["w"].reshape(n, n), np.eye(n))
    finally:
        inprocess.InProcessEvaluator()          # the default bound (60 s) again
    with Session(COUNTER, in_process=True) as s:
        assert s.run(read=["c"]).read["c"].tolist() == [0.0, 0.0]


def test_runs_of_one_shape_reuse_their_record_and_return_fresh_arrays():
    """Session.run inside the process keeps one record per shape of run
    (names set and read): numbers given as lists, as other dtypes or as
    2-D arrays are converted as on the process path, a location read is a
    new array on every run (small ones copied out of the record's buffer,
    large ones, here 20,000 numbers, written in place), and the answers
    stay the process path's bit for bit."""
    n = 20000
    prog = rh.parse(f"loc w :: ({n})\nloc d :: ({n})\nlet a <= Get[w]() in\nlet b <= Get[d]() in\n"
                    f"let _ <= Put[w](a + b) in\n[| a |]")
    a, b = pair(prog)
    with a, b:
        rng = np.random.default_rng(7)
        reads = []
        for k, d in enumerate([rng.normal(size=n), rng.normal(size=n).tolist(), rng.normal(size=(100, 200)),
                               rng.normal(size=n).astype(np.float32), np.zeros(n)]):
            kw = {"set": {"d": d}, "read": ["w", "d"], "value": k % 2 == 0}      # with and without the value
            ra, rb = a.run(**kw), b.run(**kw)
            assert same(ra.value, rb.value) and ra.steps == rb.steps
            assert all(same(ra.read[x], rb.read[x]) for x in ("w", "d"))
            reads.append(ra.read)
        assert len(a._plans) == 1
        assert len({id(r["w"]) for r in reads}) == len(reads)
        assert not np.shares_memory(reads[0]["w"], reads[1]["w"])
        np.testing.assert_array_equal(reads[-1]["w"], reads[-2]["w"])     # the last run added zeros
