"""`revhandlers train` and `revhandlers diagram`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import revhandlers as rh
from revhandlers.diagram import to_dot
from revhandlers.train import load_digits, train

ROOT = Path(__file__).resolve().parents[1]


def test_digits_data():
    X, y = load_digits()
    assert X.shape == (1797, 64) and y.shape == (1797,)
    assert X.min() == 0.0 and X.max() == 1.0
    assert set(np.unique(y)) == set(range(10))


def test_training_learns_and_both_engines_agree():
    prog = rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 8})
    hv, wv = train(prog, epochs=2, lr=0.05, seed=3, train_size=150, quiet=True)
    hr, wr = train(prog, epochs=2, lr=0.05, seed=3, train_size=150, quiet=True, engine="reference")
    assert hv.train_loss[1] < hv.train_loss[0]
    assert hv.test_accuracy > 0.3          # chance is 0.1
    for k in wv:
        np.testing.assert_allclose(wv[k], wr[k], rtol=1e-8, atol=1e-10)
    assert hv.train_loss == hr.train_loss or np.allclose(hv.train_loss, hr.train_loss, rtol=1e-9)
    assert hv.test_accuracy == hr.test_accuracy


def test_train_command_writes_a_png(tmp_path):
    png = tmp_path / "loss.png"
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "train", "examples/mlp.rh", "--epochs", "1",
                           "--train-size", "40", "--hidden", "4", "--plot", str(png)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "held-out accuracy:" in proc.stdout and str(png) in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_train_rejects_a_program_that_is_not_trainable():
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "train", "examples/one_layer.rh"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "declares location" in proc.stderr


def test_diagram_draws_operations_wires_and_the_handled_region():
    dot = to_dot(rh.load(ROOT / "examples" / "mlp.rh"))
    assert dot.count("subgraph cluster_") == 1
    assert 'label="rev handle with {FC[l0], FC[l1]}"' in dot
    for box in ("FC[l0]", "FC[l1]", "swish[32]", "Get[input]()"):
        assert f'label="{box}"' in dot
    nested = to_dot(rh.load(ROOT / "examples" / "autoencoder.rh"))
    assert nested.count("subgraph cluster_") == 2


def test_diagram_command_renders_svg(tmp_path):
    out = tmp_path / "d.svg"
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "diagram", "examples/cnn.rh", "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "Conv1D[n,lk]" in svg
