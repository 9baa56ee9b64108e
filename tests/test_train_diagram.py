"""`revhandlers train` and `revhandlers diagram`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh
from revhandlers.rh.diagram import to_dot
from revhandlers.rh.train import load_digits, train

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


def momentum_clause(layer: str, velocity: str, rows: str, cols: str) -> str:
    """FC[layer]'s clause with heavy-ball momentum, for a ``rows × cols``
    weight matrix at ``layer`` and its velocity at ``velocity``."""
    return f"""  FC[{layer}] : (x -> let w <= Get[{layer}]() in [| <matmul[{rows}, {cols}, 1](<w, x>), <w, x>> |]
          | y, z -> let m <= Get[{velocity}]() in
                    let m2 <= [| smul[{rows} * {cols}](<[0.9], m>)
                                 + matmul[{rows}, 1, {cols}](<y, transpose[{cols}, 1](proj_2(z))>) |] in
                    let _ <= Put[{velocity}](m2) in
                    let _ <= Put[{layer}](sub[{rows} * {cols}](<proj_1(z), m2>)) in
                    [| matmul[{cols}, {rows}, 1](<transpose[{rows}, {cols}](proj_1(z)), y>) |])"""


MOMENTUM = """
# examples/mlp.rh with heavy-ball momentum: FC[l] keeps a velocity m
# (location m0, m1: training state, carried from sample to sample),
# m := mu·m + y xᵀ and w := w − m, with mu = 0.9.
param n_in = 64
param hidden = 4
param n_out = 10
op FC[l0] : Real(n_in) ~> Real(hidden)
op FC[l1] : Real(hidden) ~> Real(n_out)
loc l0 :: (n_in, hidden)
loc l1 :: (hidden, n_out)
loc m0 :: (hidden * n_in)
loc m1 :: (n_out * hidden)
loc input :: (n_in)
loc target :: (n_out)
loc lr :: (1)
loc output :: (n_out)

let v <= Get[input]() in
rev handle(<v>)<x_in>.
  let x1 <= FC[l0](x_in) in FC[l1](swish[hidden](x1))
with {
  return x -> let t <= Get[target]() in
              let a <= Get[lr]() in
              let _ <= Put[output](x) in
              [| smul[n_out](<a, sub[n_out](<x, t>)>) |];
""" + momentum_clause("l0", "m0", "hidden", "n_in") + ";\n" + momentum_clause("l1", "m1", "n_out", "hidden") + """
}
"""


def _swish(u):
    return u / (1.0 + np.exp(-u))


def _momentum_by_hand(seed: int, n: int, lr: float, mu: float, hidden: int = 4):
    """What training with MOMENTUM should give, by hand: the data order and
    initial weights as `train` documents them (a permutation of the digits,
    the last 80% for training, one permutation per epoch; weights l0 then
    l1 from N(0, 1/sqrt(fan-in)) by a generator of their own seeded with the
    seed), velocities from zero."""
    X, y = load_digits()
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    X, y = X[perm], y[perm]
    n_test = int(round(len(X) * 0.2))
    Xtr, ytr = X[n_test:][:n], y[n_test:][:n]
    wrng = np.random.default_rng(seed)
    W0 = wrng.normal(0.0, 1 / 8, hidden * 64).reshape(hidden, 64)
    W1 = wrng.normal(0.0, 1 / np.sqrt(hidden), 10 * hidden).reshape(10, hidden)
    M0, M1 = np.zeros_like(W0), np.zeros_like(W1)
    losses = []
    for j in rng.permutation(n):
        x, t = Xtr[j], np.eye(10)[ytr[j]]
        u = W0 @ x
        h = _swish(u)
        out = W1 @ h
        losses.append(0.5 * np.sum((out - t) ** 2))
        g = lr * (out - t)
        M1 = mu * M1 + np.outer(g, h)
        gh = W1.T @ g
        W1 = W1 - M1
        s = 1 / (1 + np.exp(-u))
        gu = gh * (s + u * s * (1 - s))
        M0 = mu * M0 + np.outer(gu, x)
        W0 = W0 - M0
    return losses, {"l0": W0.reshape(-1), "l1": W1.reshape(-1), "m0": M0.reshape(-1), "m1": M1.reshape(-1)}


@pytest.mark.parametrize("engine", ["verified", "reference"])
def test_momentum_state_is_carried_from_sample_to_sample(engine):
    """A handler with state beyond the weights trains differently from plain
    SGD: the velocities are carried across samples (by hand: heavy ball)."""
    mom = rh.parse(MOMENTUM)
    plain = rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 4})
    hm, wm = train(mom, epochs=1, lr=0.02, seed=1, train_size=40, quiet=True, engine=engine)
    hp, wp = train(plain, epochs=1, lr=0.02, seed=1, train_size=40, quiet=True, engine=engine)
    losses, expected = _momentum_by_hand(1, 40, 0.02, 0.9)
    np.testing.assert_allclose(hm.sample_loss, losses, rtol=1e-8, atol=1e-12)
    for k, v in expected.items():
        np.testing.assert_allclose(wm[k], v, rtol=1e-8, atol=1e-12)
    assert hm.sample_loss[0] == pytest.approx(hp.sample_loss[0], rel=1e-12)   # same start
    assert not np.allclose(hm.sample_loss, hp.sample_loss, rtol=1e-3)           # then momentum
    assert not np.allclose(wm["l0"], wp["l0"], rtol=1e-3)
    assert np.abs(wm["m0"]).max() > 0 and set(wp) == {"l0", "l1", "input", "target", "lr", "output"}


def test_train_save_then_load_continues_from_the_saved_heap(tmp_path):
    common = ["-m", "revhandlers.cli", "train", "examples/mlp.rh", "--engine", "reference", "--hidden", "4",
              "--epochs", "1", "--train-size", "30", "--plot", str(tmp_path / "p.png")]
    first = subprocess.run([sys.executable, *common, "--save", str(tmp_path / "a.npz")], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    with np.load(tmp_path / "a.npz") as data:
        saved = {k: data[k] for k in data.files}
    assert set(saved) == {"l0", "l1", "input", "target", "lr", "output"}
    hist, heap = train(rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 4}), epochs=1, seed=0,
                       train_size=30, quiet=True, engine="reference")
    for k in ("l0", "l1"):
        np.testing.assert_array_equal(saved[k], heap[k])
    # loading the trained weights: the first loss of a new run is lower than from scratch
    h_load, _ = train(rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 4}), epochs=1, seed=0,
                      train_size=30, quiet=True, engine="reference", init=saved)
    assert h_load.train_loss[0] < hist.train_loss[0]
    second = subprocess.run([sys.executable, *common, "--load", str(tmp_path / "a.npz")], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert second.returncode == 0, second.stderr
    assert f"epoch 1: loss {h_load.train_loss[0]:.4f}" in second.stdout


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
    for box in ("swish[32]", "Get[input]()"):
        assert f'label="{box}"' in dot
    for box in ("FC[l0]", "FC[l1]"):           # handled: the box says what its clause does
        assert f"<TR><TD>{box}</TD></TR>" in dot
    nested = to_dot(rh.load(ROOT / "examples" / "autoencoder.rh"))
    assert nested.count("subgraph cluster_") == 2


def test_diagram_command_renders_svg(tmp_path):
    out = tmp_path / "d.svg"
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "diagram", "examples/cnn.rh", "-o", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "Conv1D[n,lk]" in svg


# ------------------------------------------------ what a handled box says

def test_the_ste_box_shows_round_forward_and_identity_backward():
    dot = to_dot(rh.load(ROOT / "examples" / "ste.rh"))
    layer = next(line for line in dot.splitlines() if "<TD>Layer</TD>" in line)
    assert "forward: round<" in layer and "backward: identity<" in layer
    fc = next(line for line in dot.splitlines() if "<TD>FC[l0]</TD>" in line)
    # forward: w := Get[l0]; matmul.  backward: Put[l0](sub(..., matmul(...)));
    # matmul(transpose(...), y) -- in the order the clause's text has them
    assert "forward: Get[l0], matmul<" in fc
    assert "backward: Put[l0], sub, matmul, transpose<" in fc


def test_an_unhandled_operation_is_a_plain_box():
    dot = to_dot(rh.load(ROOT / "examples" / "mlp.rh"))
    assert 'label="Get[input]()" shape="box"' in dot and "forward: Get[input]" not in dot


# ------------------------------------------------------------- --backward

def test_backward_draws_each_clause_forward_and_backward():
    prog = rh.load(ROOT / "examples" / "ste.rh")
    plain, full = to_dot(prog), to_dot(prog, backward=True)
    assert plain.count("subgraph cluster_") == 1
    # the rev handle, then per clause (Layer, FC[l0], FC[l1]) a frame holding its two parts
    assert full.count("subgraph cluster_") == 1 + 3 * 3
    for op in ("Layer", "FC[l0]", "FC[l1]"):
        assert f'label="{op} : its clause"' in full
    assert full.count('label="forward x ↦ …"') == 3 and full.count('label="backward y, z ↦ …"') == 3
    assert 'label="round[3]"' in full and 'label="round[3]"' not in plain
    assert 'label="Put[l0]"' in full and 'label="Put[l0]"' not in plain


def test_backward_option_renders(tmp_path):
    out = tmp_path / "ste.svg"
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "diagram", "examples/ste.rh", "--backward",
                           "-o", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    svg = out.read_text()
    assert "Layer : its clause" in svg and "backward result" in svg and "round[3]" in svg


# --------------------------------------------- the committed diagrams

DIAGRAMS = ROOT / "docs" / "diagrams"
PAGE_PX = 1400


def svg_size_px(svg: str) -> tuple[float, float]:
    import re
    w, h = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg).groups()
    return float(w) * 4 / 3, float(h) * 4 / 3           # 72 pt and 96 px to the inch


def smallest_text_px(svg: str) -> float:
    """The smallest font of the diagram when it is shown at page width (scaled down if wider)."""
    import re
    width, _ = svg_size_px(svg)
    sizes = [float(x) for x in re.findall(r'font-size="([\d.]+)"', svg)]
    return min(sizes) * 4 / 3 * min(1.0, PAGE_PX / width)


@pytest.mark.parametrize("name", ["autoencoder", "cnn", "mlp", "resnet", "ste", "unet"])
def test_the_committed_diagrams_fit_a_page(name):
    svg = (DIAGRAMS / f"{name}.svg").read_text()
    width, _ = svg_size_px(svg)
    assert width <= PAGE_PX, f"{name}.svg is {width:.0f} px wide"
    assert smallest_text_px(svg) >= 12          # 9 pt at full size


def test_the_backward_diagram_is_readable_at_page_width():
    assert smallest_text_px((DIAGRAMS / "ste-backward.svg").read_text()) >= 8


def test_the_unet_is_drawn_top_to_bottom():
    # drawn left to right, its chain of 20-odd nodes is about 3,300 px wide
    dot = to_dot(rh.load(ROOT / "examples" / "unet.rh"))
    assert "rankdir=TB;" in dot
    assert "rankdir=LR;" in to_dot(rh.load(ROOT / "examples" / "one_layer.rh"))


@pytest.mark.parametrize("name,options", [("autoencoder", []), ("cnn", []), ("mlp", []), ("resnet", []),
                                          ("ste", []), ("unet", []), ("ste-backward", ["--backward"])])
def test_the_committed_diagrams_are_up_to_date(name, options, tmp_path):
    import re
    source = ROOT / "examples" / (name.split("-")[0] + ".rh")
    out = tmp_path / f"{name}.svg"
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "diagram", f"examples/{source.name}", *options,
                           "-o", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr

    def texts(svg: str) -> list[str]:
        return sorted(re.findall(r"<text[^>]*>([^<]*)</text>", svg))

    assert texts(out.read_text()) == texts((DIAGRAMS / f"{name}.svg").read_text()), \
        f"regenerate docs/diagrams/{name}.svg (docs/examples.md says how)"
