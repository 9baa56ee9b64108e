"""The float evaluator against the real derivatives the Coq theorems are
about (theories/analysis/: `rd[f](x, g) = J f(x)ᵀ g` and `rd²[f]` the
reverse derivative of `rd[f]`), computed exactly by sympy.

For every primitive, sympy differentiates the forward map written as a real
function (independently of instance.v), evaluates `J f(x)ᵀ g` and the
transposed Jacobian of `(x, g) ↦ J f(x)ᵀ g` at the sample point with 30
digits, and `rh-eval`'s `rd[f]` and `rd²[f]` must agree to within rounding
(relative 1e-12).  This is the measured half of the statement in
docs/decisions.md, "The real model of the primitives": the theorems hold
over ℝ, and the same programs with IEEE floats differ from them by
rounding only.  Points are drawn where the primitive is differentiable
(`relu` and `maxpool` off their kinks, `log` on positive numbers, `round`
off the half-integers), the sets of `prim_domain`.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from prim_io import Serve, apply, rd

RNG = np.random.default_rng(20261202)
DIGITS = 30


@pytest.fixture(scope="module")
def serve():
    s = Serve()
    yield s
    s.close()


def conv1d(k, sig, c, c2, n, m):
    """Valid cross-correlation: kernel c' × c × m, signal c × n."""
    return [sum(k[(o * c + i) * m + j] * sig[i * n + t + j] for i in range(c) for j in range(m))
            for o in range(c2) for t in range(n - m + 1)]


def upscale(x, c, n, n2):
    return [x[ch * n + (t * n) // n2] for ch in range(c) for t in range(n2)]


def pad(x, c, n, n2):
    return [x[ch * n + t] if t < n else sp.Integer(0) for ch in range(c) for t in range(n2)]


def maxpool(x, c, n, m):
    wins = [(ch, s) for ch in range(c) for s in range(0, n, m)]
    return [sp.Max(*[x[ch * n + t] for t in range(s, min(s + m, n))]) for ch, s in wins]


def sce(z, t):
    lse = sp.log(sum(sp.exp(a) for a in z))
    return [-sum(ti * (zi - lse) for zi, ti in zip(z, t))]


#: name -> (S-expression, leaf sizes of the domain, the map on sympy lists of
#: the leaves' coordinates), independent of instance.v
PRIMS = {
    "swish": ("(swish 3)", [3], lambda x: [a / (1 + sp.exp(-a)) for a in x]),
    "sigmoid": ("(sigmoid 3)", [3], lambda x: [1 / (1 + sp.exp(-a)) for a in x]),
    "tanh": ("(tanh 3)", [3], lambda x: [sp.tanh(a) for a in x]),
    "exp": ("(exp 3)", [3], lambda x: [sp.exp(a) for a in x]),
    "log": ("(log 3)", [3], lambda x: [sp.log(a) for a in x]),
    "relu": ("(relu 3)", [3], lambda x: [sp.Max(a, 0) for a in x]),
    "smul": ("(smul 3)", [1, 3], lambda a, v: [a[0] * b for b in v]),
    "sub": ("(sub 3)", [3, 3], lambda u, v: [a - b for a, b in zip(u, v)]),
    "mul": ("(mul 3)", [3, 3], lambda u, v: [a * b for a, b in zip(u, v)]),
    "sum": ("(sum 4)", [4], lambda x: [sum(x)]),
    "matmul": ("(matmul 2 3 2)", [6, 6],
               lambda a, b: [sum(a[i * 3 + k] * b[k * 2 + j] for k in range(3)) for i in range(2) for j in range(2)]),
    "transpose": ("(transpose 2 3)", [6], lambda x: [x[i * 3 + j] for j in range(3) for i in range(2)]),
    "pad": ("(pad 2 3 5)", [6], lambda x: pad(x, 2, 3, 5)),
    "upscale": ("(upscale 2 3 6)", [6], lambda x: upscale(x, 2, 3, 6)),
    "concat": ("(concat 1 2 3)", [3, 6], lambda a, b: list(a) + list(b)),
    "conv1d": ("(conv1d 2 3 5 2)", [12, 10], lambda k, s: conv1d(k, s, 2, 3, 5, 2)),
    "maxpool": ("(maxpool 2 5 2)", [10], lambda x: maxpool(x, 2, 5, 2)),
    "sce": ("(sce 4)", [4, 4], lambda z, t: sce(z, t)),
}


def point(name: str, sizes: list[int]) -> list[np.ndarray]:
    """A point where the primitive is differentiable, away from its kinks."""
    if name == "log":
        return [RNG.uniform(0.3, 2.0, n) for n in sizes]
    if name == "relu":
        return [RNG.choice([-1, 1], n) * RNG.uniform(0.1, 1.5, n) for n in sizes]
    if name == "maxpool":
        # distinct values: every window has a strict maximum
        return [RNG.permutation(np.linspace(-1.5, 1.5, n)) + RNG.uniform(-0.01, 0.01, n) for n in sizes]
    return [RNG.uniform(-1.5, 1.5, n) for n in sizes]


def symbolic(name: str):
    """The symbols of the domain and the forward map as a sympy column."""
    _, sizes, f = PRIMS[name]
    leaves = [[sp.Symbol(f"x{i}_{j}", real=True) for j in range(n)] for i, n in enumerate(sizes)]
    return [s for leaf in leaves for s in leaf], sp.Matrix(f(*leaves))


def evaluate(expr: sp.Matrix, env: dict) -> np.ndarray:
    return np.array([float(sp.N(e.subs(env), DIGITS)) for e in expr], dtype=float)


def as_arg(leaves: list[np.ndarray]):
    return leaves[0] if len(leaves) == 1 else leaves


@pytest.mark.parametrize("name", sorted(PRIMS))
def test_rd_and_rd_rd_are_the_real_reverse_derivatives(serve, name):
    fsym, sizes, _ = PRIMS[name]
    xs, F = symbolic(name)
    gs = [sp.Symbol(f"g{j}", real=True) for j in range(F.rows)]
    cs = [sp.Symbol(f"c{j}", real=True) for j in range(len(xs))]
    # rd[f](x, g) = J f(x)ᵀ g, and rd²[f]((x, g), c) = J(rd[f])(x, g)ᵀ c.
    R1 = F.jacobian(xs).T * sp.Matrix(gs)
    R2 = R1.jacobian(xs + gs).T * sp.Matrix(cs)
    for _ in range(2):
        x = point(name, sizes)
        g = RNG.uniform(-1, 1, F.rows)
        c = [RNG.uniform(-1, 1, n) for n in sizes]
        env = dict(zip(xs, np.concatenate(x)))
        env.update(zip(gs, g))
        env.update(zip(cs, np.concatenate(c)))
        want1, want2 = evaluate(R1, env), evaluate(R2, env)
        got1 = np.concatenate(apply(serve, rd(fsym, 1), [as_arg(x), g]))
        got2 = np.concatenate(apply(serve, rd(fsym, 2), [[as_arg(x), g], as_arg(c)]))
        np.testing.assert_allclose(got1, want1, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got2, want2, rtol=1e-12, atol=1e-12)


def test_round_has_derivative_zero_off_the_half_integers(serve):
    """`round` is locally constant there (`is_derive_Rround`): both levels
    are zero, with `rd²[round]((x, g), c) = (0, 0)`."""
    x = np.array([-1.2, 0.3, 2.7])
    g, c = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)
    assert np.all(apply(serve, rd("(round 3)", 1), [x, g])[0] == 0)
    got2 = np.concatenate(apply(serve, rd("(round 3)", 2), [[x, g], c]))
    assert got2.shape == (6,) and np.all(got2 == 0)


def test_the_check_detects_a_wrong_derivative(serve):
    """The comparison fails when sympy differentiates another map: rh-eval's
    `rd[swish]` is not the derivative of `x ↦ x·σ(x)·(1 + 10⁻⁹)`."""
    xs, F = symbolic("swish")
    F = F * (1 + sp.Rational(1, 10**9))
    gs = [sp.Symbol(f"g{j}", real=True) for j in range(F.rows)]
    R1 = F.jacobian(xs).T * sp.Matrix(gs)
    x, g = np.array([0.5, -0.25, 1.0]), np.array([1.0, -0.5, 0.75])
    want = evaluate(R1, {**dict(zip(xs, x)), **dict(zip(gs, g))})
    got = np.concatenate(apply(serve, rd("(swish 3)", 1), [x, g]))
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
