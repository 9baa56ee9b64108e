"""The networks of the paper's Table 1 (examples/*.rh), each checked three
ways: the extracted type checker accepts it; the verified evaluator and the
numpy reference agree on the result and the final heap (relative tolerance
1e-9); and one training step leaves θ − α∇L on the heap, with the gradient
from independent oracles: central finite differences of a numpy
implementation of the network, and PyTorch autograd.

L = ½‖f(θ, v) − t‖² is the loss whose cotangent α(f − t) the return clause
gives, so the step is θ − ∇(α L); for the classifier (mlp_sce) L is the
softmax cross-entropy −Σ tᵢ log softmax(f)ᵢ (numpy: written directly;
PyTorch: ``F.cross_entropy`` with a probability target).  For the autoencoder the network f is the
one its handler defines (encode by the forward clause, decode by the
backward clause, so f(v) = W' W v), and the target is the input.  For the
straight-through estimator the oracle is the backward pass the paper
specifies (round forward, identity backward), not the true gradient, which
is zero through round."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh

ROOT = Path(__file__).resolve().parents[1]
RNG = np.random.default_rng(7)
TOL = dict(rtol=1e-9, atol=1e-12)
FD_TOL = dict(rtol=1e-5, atol=1e-7)


def swish(x):
    return x / (1.0 + np.exp(-x))


def conv(k, x, c, c2, n, m):
    kk, xs = k.reshape(c2, c, m), x.reshape(c, n)
    return np.array([[np.sum(kk[o] * xs[:, t:t + m]) for t in range(n - m + 1)] for o in range(c2)]).ravel()


def pad(x, c, n, m):
    out = np.zeros((c, m))
    out[:, :min(n, m)] = x.reshape(c, n)[:, :min(n, m)]
    return out.ravel()


def sce(z, t):
    """−Σ tᵢ log softmax(z)ᵢ, without the max shift (the logits are small)."""
    return -np.sum(t * (z - np.log(np.sum(np.exp(z)))))


def maxpool(x, c, n, m):
    xs = x.reshape(c, n)
    return np.array([[xs[ch, lo:lo + m].max() for lo in range(0, n, m)] for ch in range(c)]).ravel()


# --------------------------------------------------- networks in numpy

def mlp(p, th, v, **_):
    return th["l1"].reshape(p["n_out"], p["hidden"]) @ swish(th["l0"].reshape(p["hidden"], p["n_in"]) @ v)


def mlp_sce(p, th, v, **_):
    return th["l1"].reshape(p["n_out"], p["hidden"]) @ np.maximum(th["l0"].reshape(p["hidden"], p["n_in"]) @ v, 0)


def resnet(p, th, v, **_):
    return v + th["l1"].reshape(p["n"], p["hidden"]) @ swish(th["l0"].reshape(p["hidden"], p["n"]) @ v)


def autoencoder(p, th, v, **_):
    return th["l'"].reshape(p["n"], p["m"]) @ (th["l"].reshape(p["m"], p["n"]) @ v)


def ste(p, th, v, shift=None, **_):
    h = th["l0"].reshape(p["hidden"], p["n_in"]) @ v
    q = np.sign(h) * np.floor(np.abs(h) + 0.5) if shift is None else h + shift
    return th["l1"].reshape(p["n_out"], p["hidden"]) @ q


def cnn(p, th, v, **_):
    h = conv(th["lk"], v, 1, 2, 8, 3)
    return th["lf"].reshape(2, 6) @ maxpool(h, 2, 6, 2)


def unet(p, th, v, **_):
    n = p["n"]

    def block(x, c, c1, d, l, l1, l2):
        a = conv(th[l], x, c, c1, n, 3)
        s = np.concatenate([x, pad(a, c1, n - 2, n)])
        b = conv(th[l1], s, c + c1, d, n, 1)
        e = conv(th[l2], b, d, d, n, 3)
        return pad(e, d, n - 2, n)

    x1 = block(v, 1, 8, 8, "l0", "l0'", "l0''")
    return block(x1, 8, 16, 8, "l1", "l1'", "l1''")


# name: (numpy network, parameter overrides, weight locations, input location size, target = input?)
EXAMPLES = {
    "mlp": (mlp, {"n_in": 4, "hidden": 3, "n_out": 2}, ["l0", "l1"]),
    "mlp_sce": (mlp_sce, {"n_in": 4, "hidden": 5, "n_out": 3}, ["l0", "l1"]),
    "resnet": (resnet, {"n": 3, "hidden": 4}, ["l0", "l1"]),
    "autoencoder": (autoencoder, {"n": 4, "m": 2}, ["l", "l'"]),
    "ste": (ste, {}, ["l0", "l1"]),
    "cnn": (cnn, {}, ["lk", "lf"]),
    "unet": (unet, {"n": 5}, ["l0", "l0'", "l0''", "l1", "l1'", "l1''"]),
}

#: the loss of each example whose return clause is not the squared error's
LOSSES = {"mlp_sce": sce}


def loss_of(name, out, t):
    return LOSSES[name](out, t) if name in LOSSES else 0.5 * np.sum((out - t) ** 2)


def setup(name):
    net, params, weights = EXAMPLES[name]
    prog = rh.load(ROOT / "examples" / f"{name}.rh", params=params or None)
    sizes = {d.name: d.size for d in prog.locs}
    params = {**params, **{k: v for k, v in _declared_params(name).items() if k not in params}}
    theta = {w: RNG.normal(0, 0.5, sizes[w]) for w in weights}
    v = RNG.normal(0, 1.0, sizes["input"])
    t = v.copy() if "target" not in sizes else RNG.normal(0, 1.0, sizes["target"])
    if name in LOSSES:  # a distribution over the classes
        t = RNG.dirichlet(np.ones(sizes["target"]))
    alpha = 0.1
    heap = {**theta, "input": v, "lr": [alpha]}
    if "target" in sizes:
        heap["target"] = t
    return prog, net, params, theta, v, t, alpha, heap


def _declared_params(name):
    import re
    text = (ROOT / "examples" / f"{name}.rh").read_text()
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^param (\w+) = (\d+)", text, re.M)}


def fd_grad(loss, theta, h=1e-6):
    grads = {}
    for w, val in theta.items():
        g = np.zeros_like(val)
        for i in range(val.size):
            up, down = val.copy(), val.copy()
            up[i] += h
            down[i] -= h
            g[i] = (loss({**theta, w: up}) - loss({**theta, w: down})) / (2 * h)
        grads[w] = g
    return grads


@pytest.fixture(scope="module")
def verified():
    from revhandlers.rh.engine import VerifiedEvaluator
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_type_checks_in_the_extracted_checker(verified, name):
    prog = setup(name)[0]
    from revhandlers.rh.typecheck import check_program
    assert verified.check(prog) == check_program(prog)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_verified_and_reference_agree(verified, name):
    prog, *_, heap = setup(name)
    from revhandlers.rh.engine import with_heap
    a = verified.run(with_heap(prog, heap))
    b = rh.run(prog, heap=heap, engine="reference")
    for k in a.heap:
        np.testing.assert_allclose(a.heap[k], b.heap[k], **TOL)
    np.testing.assert_allclose(np.concatenate(a.value), np.concatenate(b.value), **TOL)


def expected_step_fd(name, net, params, theta, v, t, alpha):
    shift = None
    if name == "ste":  # the straight-through surrogate: round's offset frozen at θ
        h = theta["l0"].reshape(params["hidden"], params["n_in"]) @ v
        shift = np.sign(h) * np.floor(np.abs(h) + 0.5) - h

    def loss(th):
        return alpha * loss_of(name, net(params, th, v, shift=shift), t)

    g = fd_grad(loss, theta)
    return {w: theta[w] - g[w] for w in theta}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_training_step_matches_finite_differences(verified, name):
    prog, net, params, theta, v, t, alpha, heap = setup(name)
    from revhandlers.rh.engine import with_heap
    res = verified.run(with_heap(prog, heap))
    want = expected_step_fd(name, net, params, theta, v, t, alpha)
    for w in theta:
        np.testing.assert_allclose(res.heap[w], want[w], **FD_TOL)
        assert not np.allclose(res.heap[w], theta[w]), f"{w} did not move"
    np.testing.assert_allclose(res.heap["output"], net(params, theta, v), **TOL)
    if "loss" in res.heap:
        np.testing.assert_allclose(res.heap["loss"], [loss_of(name, net(params, theta, v), t)], **TOL)


# ----------------------------------------------------------------- torch

torch = pytest.importorskip("torch", reason="the torch extra (pip install -e .[torch]) is not installed")


def torch_net(name, params, th, v):
    F = torch.nn.functional
    if name == "mlp":
        return th["l1"].reshape(params["n_out"], params["hidden"]) @ F.silu(
            th["l0"].reshape(params["hidden"], params["n_in"]) @ v)
    if name == "mlp_sce":
        return th["l1"].reshape(params["n_out"], params["hidden"]) @ torch.relu(
            th["l0"].reshape(params["hidden"], params["n_in"]) @ v)
    if name == "resnet":
        return v + th["l1"].reshape(params["n"], params["hidden"]) @ F.silu(
            th["l0"].reshape(params["hidden"], params["n"]) @ v)
    if name == "autoencoder":
        return th["l'"].reshape(params["n"], params["m"]) @ (th["l"].reshape(params["m"], params["n"]) @ v)
    if name == "ste":
        h = th["l0"].reshape(params["hidden"], params["n_in"]) @ v
        q = h + (torch.round(h) - h).detach()   # straight through
        return th["l1"].reshape(params["n_out"], params["hidden"]) @ q
    if name == "cnn":
        h = F.conv1d(v.reshape(1, 1, 8), th["lk"].reshape(2, 1, 3)).reshape(2, 6)
        p = F.max_pool1d(h.reshape(1, 2, 6), 2, 2, ceil_mode=True).reshape(-1)
        return th["lf"].reshape(2, 6) @ p
    if name == "unet":
        n = params["n"]

        def block(x, c, c1, d, l, l1, l2):
            a = F.conv1d(x.reshape(1, c, n), th[l].reshape(c1, c, 3))
            s = torch.cat([x.reshape(1, c, n), F.pad(a, (0, 2))], dim=1)
            b = F.conv1d(s, th[l1].reshape(d, c + c1, 1))
            e = F.conv1d(b, th[l2].reshape(d, d, 3))
            return F.pad(e, (0, 2)).reshape(-1)

        return block(block(v, 1, 8, 8, "l0", "l0'", "l0''"), 8, 16, 8, "l1", "l1'", "l1''")
    raise KeyError(name)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_training_step_matches_pytorch_autograd(verified, name):
    prog, net, params, theta, v, t, alpha, heap = setup(name)
    from revhandlers.rh.engine import with_heap
    res = verified.run(with_heap(prog, heap))
    th = {w: torch.tensor(val, dtype=torch.float64, requires_grad=True) for w, val in theta.items()}
    out = torch_net(name, params, th, torch.tensor(v, dtype=torch.float64))
    np.testing.assert_allclose(out.detach().numpy(), res.heap["output"], rtol=1e-9, atol=1e-12)
    tt = torch.tensor(t, dtype=torch.float64)
    if name == "mlp_sce":
        loss = alpha * torch.nn.functional.cross_entropy(out[None], tt[None], reduction="sum")
        np.testing.assert_allclose(res.heap["loss"], [loss.item() / alpha], rtol=1e-9, atol=1e-12)
    else:
        loss = 0.5 * alpha * torch.sum((out - tt) ** 2)
    loss.backward()
    for w in theta:
        np.testing.assert_allclose(res.heap[w], theta[w] - th[w].grad.numpy(), rtol=1e-9, atol=1e-12)
