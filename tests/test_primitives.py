"""The primitive library of the executable instance (instance.v), run through
rh-eval: each forward map against an independent numpy implementation, and
each `rd[f]`, `rd[rd[f]]` and `rd³[f]` against central finite differences
of the level below (Ev is defined at every order: theories/rh/rdcore.v)."""

from __future__ import annotations


import numpy as np
import pytest
import sexpdata

from prim_io import Serve, apply, rd, value_sexp

RNG = np.random.default_rng(20261201)


@pytest.fixture(scope="module")
def serve():
    s = Serve()
    yield s
    s.close()


def flatten(struct) -> list[np.ndarray]:
    if isinstance(struct, np.ndarray):
        return [struct]
    return [leaf for s in struct for leaf in flatten(s)]


def rebuild(struct, flat: np.ndarray):
    """The structure of ``struct`` with its leaves taken from ``flat``."""
    pos = 0

    def go(s):
        nonlocal pos
        if isinstance(s, np.ndarray):
            piece = flat[pos:pos + s.size]
            pos += s.size
            return piece
        return [go(x) for x in s]

    return go(struct)


def fd_vjp(serve, fsym, x, g, h=1e-6):
    """Central differences of <g, f(x)> in every coordinate of x."""
    flat = np.concatenate(flatten(x))
    gflat = np.concatenate(flatten(g))
    grad = np.zeros_like(flat)
    for i in range(flat.size):
        e = np.zeros_like(flat)
        e[i] = h
        up = np.concatenate(apply(serve, fsym, rebuild(x, flat + e)))
        down = np.concatenate(apply(serve, fsym, rebuild(x, flat - e)))
        grad[i] = gflat @ (up - down) / (2 * h)
    return grad


#: the maps applied coordinate by coordinate, each tested on R^4
POINTWISE = ("swish", "relu", "sigmoid", "tanh", "exp", "log")

# name: (S-expression, domain structure (list of leaf sizes or one size), codomain size)
PRIMS = {
    **{name: (f"({name} 4)", 4, 4) for name in POINTWISE},
    "smul": ("(smul 3)", [1, 3], 3),
    "sub": ("(sub 3)", [3, 3], 3),
    "matmul": ("(matmul 2 3 2)", [6, 6], 4),
    "matvec": ("(matmul 3 2 1)", [6, 2], 3),
    "transpose": ("(transpose 2 3)", 6, 6),
    "round": ("(round 3)", 3, 3),
    "pad-grow": ("(pad 2 3 5)", 6, 10),
    "pad-cut": ("(pad 2 4 3)", 8, 6),
    "upscale": ("(upscale 2 3 6)", 6, 12),
    "concat": ("(concat 1 2 3)", [3, 6], 9),
    "conv1d": ("(conv1d 2 3 5 2)", [12, 10], 12),
    "maxpool": ("(maxpool 2 5 2)", 10, 6),
    # empty dimensions: every output still has its full length
    "matmul-empty-inner": ("(matmul 2 0 3)", [0, 0], 6),
    "pad-from-empty": ("(pad 2 0 3)", 0, 6),
    "pad-to-empty": ("(pad 2 3 0)", 6, 0),
    "transpose-empty": ("(transpose 0 3)", 0, 0),
    "mul": ("(mul 3)", [3, 3], 3),
    "sum": ("(sum 4)", 4, 1),
    "sce": ("(sce 4)", [4, 4], 1),
    "sum-empty": ("(sum 0)", 0, 1),
    "sce-empty": ("(sce 0)", [0, 0], 1),
}

#: primitives sampled away from the edge of their domain
POSITIVE = ("log",)


def sample(shape, name=None):
    if isinstance(shape, int):
        return RNG.uniform(0.3, 2.0, shape) if name in POSITIVE else RNG.uniform(-1.5, 1.5, shape)
    return [sample(s, name) for s in shape]


def sce_numpy(z, t):
    """−Σ tᵢ log softmax(z)ᵢ, written directly (no max shift: the samples are small)."""
    return np.array([-(t * (z - np.log(np.exp(z).sum()))).sum()]) if z.size else np.zeros(1)


def forward_numpy(name, x):
    if name == "swish":
        return x / (1 + np.exp(-x))
    if name == "smul":
        return x[0][0] * x[1]
    if name == "sub":
        return x[0] - x[1]
    if name == "matmul":
        return (x[0].reshape(2, 3) @ x[1].reshape(3, 2)).ravel()
    if name == "matvec":
        return x[0].reshape(3, 2) @ x[1]
    if name == "transpose":
        return x.reshape(2, 3).T.ravel()
    if name == "round":
        return np.sign(x) * np.floor(np.abs(x) + 0.5)
    if name == "pad-grow":
        return np.pad(x.reshape(2, 3), ((0, 0), (0, 2))).ravel()
    if name == "pad-cut":
        return x.reshape(2, 4)[:, :3].ravel()
    if name == "upscale":
        ch = x.reshape(2, 3)
        return np.stack([ch[:, (t * 3) // 6] for t in range(6)], axis=1).ravel()
    if name == "concat":
        return np.concatenate([x[0], x[1]])
    if name == "conv1d":
        k = x[0].reshape(3, 2, 2)   # c' x c x m
        sig = x[1].reshape(2, 5)    # c x n
        out = np.array([[sum(k[o, i, j] * sig[i, t + j] for i in range(2) for j in range(2))
                         for t in range(4)] for o in range(3)])
        return out.ravel()
    if name == "matmul-empty-inner":
        return np.zeros(6)
    if name == "pad-from-empty":
        return np.zeros(6)
    if name == "pad-to-empty" or name == "transpose-empty":
        return np.zeros(0)
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "sigmoid":
        return 1 / (1 + np.exp(-x))
    if name == "tanh":
        return np.tanh(x)
    if name == "exp":
        return np.exp(x)
    if name == "log":
        return np.log(x)
    if name == "mul":
        return x[0] * x[1]
    if name in ("sum", "sum-empty"):
        return np.array([x.sum()])
    if name in ("sce", "sce-empty"):
        return sce_numpy(x[0], x[1])
    if name == "maxpool":
        ch = x.reshape(2, 5)
        return np.array([[ch[c, 0:2].max(), ch[c, 2:4].max(), ch[c, 4:5].max()] for c in range(2)]).ravel()
    raise KeyError(name)


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_forward_matches_numpy(serve, name):
    fsym, dom, _ = PRIMS[name]
    for _ in range(3):
        x = sample(dom, name)
        (y,) = apply(serve, fsym, x)
        np.testing.assert_allclose(y, forward_numpy(name, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_rd_is_the_vjp_of_the_forward_map(serve, name):
    fsym, dom, cod = PRIMS[name]
    x, g = sample(dom, name), RNG.uniform(-1, 1, cod)
    got = np.concatenate(apply(serve, rd(fsym, 1), [x, g]))
    want = fd_vjp(serve, fsym, x, g)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_rd_rd_is_the_vjp_of_rd(serve, name):
    fsym, dom, cod = PRIMS[name]
    x, g = sample(dom, name), RNG.uniform(-1, 1, cod)
    c = sample(dom)
    got = np.concatenate(apply(serve, rd(fsym, 2), [[x, g], c]))
    want = fd_vjp(serve, rd(fsym, 1), [x, g], c)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def like(struct):
    """Fresh uniform entries in [-1, 1] with the structure of ``struct``."""
    if isinstance(struct, np.ndarray):
        return RNG.uniform(-1, 1, struct.size)
    return [like(s) for s in struct]


def point(name: str, k: int):
    """A point of the domain of rd^k[f] and a cotangent of its codomain:
    the domain of rd^(k+1) is (domain of rd^k, codomain of rd^k), its
    codomain the domain of rd^k."""
    fsym, dom, cod = PRIMS[name]
    x, g = sample(dom, name), RNG.uniform(-1, 1, cod)
    for _ in range(k):
        x, g = [x, like(g)], like(x)
    return x, g


@pytest.mark.parametrize("k", [3, 4])
@pytest.mark.parametrize("name", sorted(PRIMS))
def test_rd_k_is_the_vjp_of_rd_k_minus_1(serve, name, k):
    """rd^k[f] for k >= 3 (the core of theories/rh/rdcore.v: f's forward
    map differentiated k times) against central differences of rd^(k-1)[f]."""
    fsym = PRIMS[name][0]
    x, g = point(name, k - 1)
    got = np.concatenate(flatten(apply(serve, rd(fsym, k), [x, g])))
    want = fd_vjp(serve, rd(fsym, k - 1), x, g)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_rd_of_rd_of_rd_is_defined(serve):
    out = sexpdata.loads(serve.ask(
        "(program (main (ret (app (rd (rd (rd (swish 1)))) "
        "(tuple (tuple (tuple (const 1.0) (const 1.0)) (const 1.0)) (tuple (const 1.0) (const 1.0)))))))"))
    assert out[0].value() == "result", out


# ---------------------------------------------------------------- edge values

INF = "(app (smul 1) (tuple (const 1e308) (const 1e308)))"
NAN = f"(app (sub 1) (tuple {INF} {INF}))"


def _bits(v) -> list:
    """Numbers bit for bit (zeros' signs included); every NaN alike (its sign
    and payload are the hardware's)."""
    return ["nan" if np.isnan(x) else np.float64(x).tobytes() for x in np.asarray(v, dtype=float).ravel()]


def _both(term: str):
    """The value of ``term`` by the verified evaluator and by the reference."""
    import revhandlers as rh
    prog = rh.parse(f"(program (main (ret {term})))")
    return rh.run(prog).value, rh.run(prog, engine="reference").value


@pytest.mark.parametrize("x, expected", [
    (0.49999999999999994, 0.0), (0.5, 1.0), (-0.5, -1.0), (1.5, 2.0), (2.5, 3.0), (-2.5, -3.0),
    (-0.3, -0.0), (-0.0, -0.0), (4503599627370497.0, 4503599627370497.0), (-1e308, -1e308)])
def test_round_ties_away_from_zero_exactly_in_both_engines(x, expected):
    """round is OCaml's Float.round (ties away from zero, exact); the
    expected values are the definition's, the zeros' signs included."""
    verified, reference = _both(f"(app (round 1) (const {x!r}))")
    assert _bits(verified) == _bits([expected]) == _bits(reference)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("items, expected", [
    ("(const 1.0) NAN", [1.0]),          # a NaN after a number is never chosen
    ("NAN (const 1.0)", [float("nan")]),  # a NaN first is never replaced
    ("(const 1.0) (const 1.0)", [1.0]),
    ("(const -0.0) (const 0.0)", [-0.0]),  # -0.0 < 0.0 is false: the first stays
])
def test_maxpool_first_maximum_in_both_engines(items, expected):
    """maxpool takes the first maximum by strict comparison (instance.v,
    argmax); the reference computes the same window argmax."""
    a, b = items.replace("NAN", NAN).split(" (const", 1) if not items.startswith("NAN") else (NAN, items[4:])
    if not items.startswith("NAN"):
        b = "(const" + b
    term = f"(app (maxpool 1 2 2) (app (concat 1 1 1) (tuple {a} {b})))"
    verified, reference = _both(term)
    assert _bits(verified) == _bits(expected) == _bits(reference)


# ------------------------------------------- the activations, sum and sce against PyTorch

torch = pytest.importorskip("torch")
import torch.nn.functional as F  # noqa: E402

#: name -> (S-expression, leaf sizes of the domain, codomain size, the map in PyTorch)
TORCH = {
    "relu": ("(relu 5)", [5], 5, torch.relu),
    "sigmoid": ("(sigmoid 5)", [5], 5, torch.sigmoid),
    "tanh": ("(tanh 5)", [5], 5, torch.tanh),
    "exp": ("(exp 5)", [5], 5, torch.exp),
    "log": ("(log 5)", [5], 5, torch.log),
    "mul": ("(mul 4)", [4, 4], 4, lambda a, b: a * b),
    "sum": ("(sum 5)", [5], 1, lambda x: x.sum().reshape(1)),
    "sce": ("(sce 5)", [5, 5], 1,
            lambda z, t: F.cross_entropy(z.reshape(1, -1), t.reshape(1, -1), reduction="sum").reshape(1)),
}


def torch_levels(f, xs, g, cs):
    """PyTorch's ``rd[f](xs, g)`` (the VJP) and ``rd²[f]((xs, g), cs)`` (the
    VJP of the VJP, with respect to ``xs`` and ``g``)."""
    xs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    g = torch.tensor(g, dtype=torch.float64, requires_grad=True)
    y = f(*xs)
    vjp = torch.autograd.grad(y, xs, g, create_graph=True)
    inner = sum((v * torch.tensor(c, dtype=torch.float64)).sum() for v, c in zip(vjp, cs))
    second = torch.autograd.grad(inner, xs + [g], allow_unused=True, materialize_grads=True)
    return [v.detach().numpy() for v in vjp], [v.detach().numpy() for v in second]


@pytest.mark.parametrize("name", sorted(TORCH))
def test_rd_and_rd_rd_match_pytorch(serve, name):
    fsym, dom, cod, f = TORCH[name]
    for _ in range(3):
        xs = [RNG.uniform(0.2, 2.0, n) if name == "log" else RNG.uniform(-2, 2, n) for n in dom]
        if name == "sce":
            xs[1] = RNG.dirichlet(np.ones(dom[1])) * RNG.uniform(0.5, 2.0)  # a target, not normalized
        g = RNG.uniform(-1, 1, cod)
        cs = [RNG.uniform(-1, 1, n) for n in dom]
        want1, want2 = torch_levels(f, xs, g, cs)
        x_arg = xs[0] if len(xs) == 1 else xs
        c_arg = cs[0] if len(cs) == 1 else cs
        got1 = apply(serve, rd(fsym, 1), [x_arg, g])
        got2 = apply(serve, rd(fsym, 2), [[x_arg, g], c_arg])
        assert len(got1) == len(want1)
        for got, want in zip(got1, want1):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        assert len(got2) == len(want2)
        for got, want in zip(got2, want2):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", sorted(TORCH))
def test_reference_engine_agrees_on_rd_and_rd_rd(name):
    """The numpy reference (its own differentiation of the forward maps)
    against the verified engine, at both levels."""
    fsym, dom, cod, _ = TORCH[name]
    xs = [RNG.uniform(0.2, 2.0, n) if name == "log" else RNG.uniform(-2, 2, n) for n in dom]
    x_arg = value_sexp(xs[0] if len(xs) == 1 else xs)
    g = value_sexp(RNG.uniform(-1, 1, cod))
    cs = [RNG.uniform(-1, 1, n) for n in dom]
    c_arg = value_sexp(cs[0] if len(cs) == 1 else cs)
    for term in (f"(app {rd(fsym, 1)} (tuple {x_arg} {g}))",
                 f"(app {rd(fsym, 2)} (tuple (tuple {x_arg} {g}) {c_arg}))"):
        verified, reference = _both(term)
        for a, b in zip(flatten_value(verified), flatten_value(reference)):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def flatten_value(v) -> list[np.ndarray]:
    if isinstance(v, np.ndarray):
        return [v]
    return [leaf for x in v for leaf in flatten_value(x)]


def test_relu_derivative_is_zero_at_zero(serve):
    """docs/decisions.md, the primitive library: relu'(0) = 0 (PyTorch's choice too)."""
    (got,) = apply(serve, rd("(relu 4)", 1), [np.array([-1.0, 0.0, -0.0, 2.0]), np.ones(4)])
    assert list(got) == [0.0, 0.0, 0.0, 1.0]
    x = torch.tensor([-1.0, 0.0, -0.0, 2.0], dtype=torch.float64, requires_grad=True)
    (want,) = torch.autograd.grad(torch.relu(x).sum(), x)
    assert list(want.numpy()) == [0.0, 0.0, 0.0, 1.0]


def test_sce_is_stable_for_large_logits(serve):
    """The max shift: logits of ±1000 give PyTorch's finite loss and gradients."""
    z, t = np.array([1000.0, 0.0, -1000.0, 999.0]), np.array([0.1, 0.2, 0.3, 0.4])
    (loss,) = apply(serve, "(sce 4)", [z, t])
    want = F.cross_entropy(torch.tensor(z)[None], torch.tensor(t)[None], reduction="sum").item()
    assert np.isfinite(loss[0])
    np.testing.assert_allclose(loss, [want], rtol=1e-12)
    want1, _ = torch_levels(TORCH["sce"][3], [z, t], np.ones(1), [np.ones(4), np.ones(4)])
    got1 = apply(serve, rd("(sce 4)", 1), [[z, t], np.ones(1)])
    for got, want in zip(got1, want1):
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_log_of_zero_and_negative_numbers_is_ieee_in_both_engines():
    """docs/decisions.md, the primitive library: log 0 = −inf and log of a negative number is NaN
    (IEEE); the run succeeds and prints them, in both engines."""
    verified, reference = _both("(app (log 3) (const 0.0 -1.0 1.0))")
    assert _bits(verified) == _bits([-np.inf, np.nan, 0.0]) == _bits(reference)
