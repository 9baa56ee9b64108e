"""The initial heap of training, made explicit: only the two-dimensional
locations a handler's forward clause reads (the weights), without a
``heap`` entry, are drawn at random, and ``train`` names each of them; a
momentum buffer of the same shape, read only backward, starts at zero; and
``train --seed S``, ``run --init-seed S`` and ``Session(init_seed=S)``
start from the same heap.  Expected values are drawn here with numpy from
the documented rule (N(0, 1/sqrt(a)) by ``default_rng(S)`` in declaration
order), not taken from the code under test."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np

import revhandlers as rh
from revhandlers.rh.train import describe_init, initial_heap, random_locations

ROOT = Path(__file__).resolve().parents[1]
MLP = (ROOT / "examples" / "mlp.rh").read_text()
# the MLP with a momentum buffer m0 of the weights' shape, read by the backward clause of FC[l0] only
MOMENTUM = (MLP.replace("loc l1 :: (hidden, n_out)", "loc l1 :: (hidden, n_out)\nloc m0 :: (n_in, hidden)")
               .replace("| y, z -> let _ <= Put[l0](", "| y, z -> let m <= Get[m0]() in let _ <= Put[l0](", 1))


def expected_weights(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"l0": rng.normal(0.0, 1.0 / math.sqrt(64), 64 * 32), "l1": rng.normal(0.0, 1.0 / math.sqrt(32), 32 * 10)}


def test_the_momentum_program_reads_m0_backward_only():
    assert "Get[m0]" in MOMENTUM and "loc m0 :: (n_in, hidden)" in MOMENTUM
    rh.check(rh.parse(MOMENTUM), engine="reference")


def test_only_weights_read_forward_are_random():
    prog = rh.parse(MOMENTUM)
    assert random_locations(prog) == ["l0", "l1"]
    heap = initial_heap(prog, 7)
    want = expected_weights(7)
    assert np.array_equal(heap["l0"], want["l0"]) and np.array_equal(heap["l1"], want["l1"])
    assert heap["m0"].shape == (64 * 32,) and not heap["m0"].any()
    line = describe_init(prog)
    assert "l0 (64, 32)" in line and "l1 (32, 10)" in line and "m0" not in line.split("drawn")[0]


def test_a_heap_entry_is_explicit():
    text = MLP.replace("param n_in = 64", "param n_in = 2").replace("param hidden = 32", "param hidden = 1")
    small = rh.parse(text.replace("loc l0 :: (n_in, hidden)", "loc l0 :: (n_in, hidden)\nheap l0 = [1, 2]"))
    assert random_locations(small) == ["l1"]
    assert initial_heap(small, 0)["l0"].tolist() == [1.0, 2.0]


def test_session_starts_as_train_does():
    want = expected_weights(3)
    with rh.Session(rh.parse(MLP), engine="reference", init_seed=3) as s:
        heap = s.heap()
    assert np.array_equal(heap["l0"], want["l0"]) and np.array_equal(heap["l1"], want["l1"])
    with rh.Session(rh.parse(MLP), engine="reference") as s:
        assert not s.heap()["l0"].any()      # without init_seed: the program's heap, zeros


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "revhandlers", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def test_train_names_the_random_locations(tmp_path):
    src = tmp_path / "momentum.rh"
    src.write_text(MOMENTUM)
    p = _cli("train", str(src), "--epochs", "1", "--train-size", "10", "--plot", str(tmp_path / "loss.png"))
    assert p.returncode == 0, p.stderr
    line = next(x for x in p.stdout.splitlines() if x.startswith("initial heap:"))
    assert line.startswith("initial heap: l0 (64, 32), l1 (32, 10) drawn at random"), line


def test_run_says_which_locations_train_would_draw(tmp_path):
    p = _cli("run", "examples/mlp.rh", "--engine", "reference")
    assert p.returncode == 0, p.stderr
    assert "note: l0, l1 start at zero here; `revhandlers train` draws them at random" in p.stderr
    # from train's heap: the weights are those of the rule; the run's output is the network's on them
    p = _cli("run", "examples/mlp.rh", "--engine", "reference", "--init-seed", "3")
    assert p.returncode == 0, p.stderr
    assert "initial heap: l0 (64, 32), l1 (32, 10) drawn at random" in p.stderr
    assert "note:" not in p.stderr
