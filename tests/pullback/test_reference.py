"""The numpy reference of the pullback language (revhandlers.pullback.reference):
the paper's numbers (Examples 3.3, 3.9, 4.9: [660 528] for
f(x, y) = ((x+1)(2x+y²))² at ⟨1, 3⟩, and the intermediate duals of
spec §9.6), the higher-order examples (D-eval, sum on Church lists), and
random first- and higher-order queries against numpy central finite
differences and against PyTorch autograd (CPU, float64) running its own
interpretation of the same terms.

Expected numbers come from the paper and the spec, from closed forms
written here, from finite differences, or from PyTorch."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings

from revhandlers.errors import BadInput, TypeCheckError
from revhandlers.pullback import gen
from revhandlers.pullback.reference import (ZERO, Opaque, as_vector, evaluate, jacobian, query_meaning, run,
                                            s_mul)
from revhandlers.pullback.surface import parse
from revhandlers.pullback.syntax import (App, Fun, Jac, Lam, Let, NDual, Pair, Plus, Proj, Real, Rn, TDual,
                                         Var, Zero, vec)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "pullback"
RANDOM = settings(max_examples=120, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))


def load(name: str):
    return parse((EXAMPLES / f"{name}.pb").read_text())


def vector(text: str) -> np.ndarray:
    return as_vector(run(parse(text)).value)


# ------------------------------------------------------------ the paper's numbers

F_BODY = "sq(mul(add(x, 1), add(mul(2, x), sq(y))))"


@pytest.mark.parametrize("name", ["paper_f", "example_3_3", "example_3_9"])
def test_660_528(name):
    """Examples 3.9 and 4.9: the query (and its A-normal form, and the
    reverse phase alone) give [660 528]*, the Jacobian of f at ⟨1, 3⟩."""
    res = run(load(name))
    assert res.type == TDual(Rn(2))
    assert res.value == NDual(vec(660, 528))


def test_forward_values_of_the_example():
    """§9.2: f(1, 3) = 484; g(1, 3) = ⟨2, 11⟩; mult = 22."""
    body = parse(f"λ⟨x, y⟩:R^2. {F_BODY}")
    assert evaluate(App(body, Pair(Real(1.0), Real(3.0)))) == 484.0
    assert evaluate(parse("(λ⟨x, y⟩:R^2. ⟨add(x, 1), add(mul(2, x), sq(y))⟩) ⟨1, 3⟩")) == (2.0, 11.0)
    assert evaluate(parse("mul(2, 11)")) == 22.0


def test_query_meaning_is_the_jacobian_row():
    """Corollary 4.8(1) by the reference's own means: the Jacobian matrix
    (forward mode, and finite differences), transposed, on e_1."""
    q = load("paper_f")
    assert query_meaning(q) == NDual(vec(660, 528))
    assert np.allclose(as_vector(query_meaning(q, "fd")), [660, 528], rtol=1e-7)
    body = parse(f"let x = π1(p) in let y = π2(p) in {F_BODY}", ("p",))
    assert np.array_equal(jacobian(body, Rn(2), (1.0, 3.0)), [[660.0, 528.0]])


def test_reverse_phase_intermediate_duals():
    """Example 3.9 step by step (spec §9.6): D4*·[1]* = ⟨⟨0,0⟩,⟨0,0⟩,⟨0,0⟩,44⟩*,
    D3*·… = ⟨⟨0,0⟩,⟨0,0⟩,⟨484,88⟩⟩*, D2*·… = ⟨⟨0,0⟩,⟨660,528⟩⟩*."""
    d4 = "(λv:((R^2 × R^2) × R^2) × R. (J sq · π2(v)) 22)*"
    d3 = "(λv:(R^2 × R^2) × R^2. ⟨v, (J mul · π2(v)) ⟨2, 11⟩⟩)*"
    d2 = ("(λv:R^2 × R^2. ⟨v, ⟨π1(π2(v)), (J add · ⟨(J mul · ⟨zero, π1(π2(v))⟩) ⟨2, 1⟩, "
          "(J sq · π2(π2(v))) 3⟩) ⟨2, 9⟩⟩⟩)*")
    assert list(vector(f"{d4} · [1]*")) == [0, 0, 0, 0, 0, 0, 44]
    assert list(vector(f"{d3} · {d4} · [1]*")) == [0, 0, 0, 0, 484, 88]
    assert list(vector(f"{d2} · {d3} · {d4} · [1]*")) == [0, 0, 660, 528]


def test_rows_of_a_jacobian():
    """m runs with Ω e_p give the m rows (Corollary 4.8(1)): the Jacobian of
    g(x, y) = ⟨x+1, 2x+y²⟩ at ⟨1, 3⟩ is [[1, 0], [2, 6]]."""
    g = "⟨add(x, 1), add(mul(2, x), sq(y))⟩"
    rows = [vector(f"((Ω λ⟨x, y⟩:R^2. {g}) · (λz:R^2. {e})) ⟨1, 3⟩") for e in ("[1, 0]*", "[0, 1]*")]
    assert np.array_equal(rows, [[1, 0], [2, 6]])


def test_numeric_duals_and_dual_maps():
    assert list(vector("[3, 4]*")) == [3, 4]
    assert list(vector("(λv:R^2. ⟨v, zero⟩)* · ⟨⟨zero, zero⟩, ⟨660, 528⟩⟩*")) == [0, 0]
    assert list(vector("(λv:R^2. ⟨v, v⟩)* · ⟨⟨1, 2⟩, ⟨660, 528⟩⟩*")) == [661, 530]
    assert list(vector("(λv:R. (J exp · v) 0)* · [2]*")) == [2]
    # (6): (λv.V1)* · ((λv.V2)* · V3) = (λv.V2[V1/v])* · V3
    a = vector("(λv:R. ⟨v, v⟩)* · (λw:R^2. ⟨π2(w), π1(w)⟩)* · [5, 7]*")
    b = vector("(λv:R. ⟨v, v⟩)* · [7, 5]*")
    assert list(a) == list(b) == [12]
    assert run(parse("zero")).value == Zero()


# ------------------------------------------------------------ higher order

def test_d_eval():
    """examples.v ho_query: the derivative of f x at ⟨λz. z², 3⟩ along
    ⟨δf, δx⟩ is δf(3) + 6 δx."""
    res = run(load("higher_order"))
    assert isinstance(res.value, Opaque) and "linear functional" in str(res.value)
    for a, dx in [(10.0, 1.0), (0.0, 2.0), (-3.0, 0.5)]:
        assert res.raw((lambda z, a=a: s_mul(a, z), dx)) == a * 3 + 6 * dx


def _church(xs):
    """A Python Church list λf d. f xn (… (f x1 d)) (over the reference's
    values)."""
    def lst(f):
        def run_(d):
            for x in xs:
                d = f(x)(d)
            return d
        return run_
    return lst


def test_sum_on_church_lists():
    """Spec §10 / Corollary 4.8(2): ((Ω sum) · Ω[1]) [1, −2] applied to a
    tangent list δ is Σ δᵢ, which is also the central difference of sum at
    [1, −2] along δ."""
    res = run(load("sum_list"))
    assert res.type == TDual(parse("λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l").ty)
    sum_fn = evaluate(parse("λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l (λx:R. λy:R. x + y) zero"))
    for delta in ([7.0, 5.0], [0.5, -0.25], [0.0, 0.0]):
        assert res.raw(_church(delta)) == sum(delta)
        h = 1e-3
        fd = (sum_fn(_church([1 + h * delta[0], -2 + h * delta[1]]))
              - sum_fn(_church([1 - h * delta[0], -2 - h * delta[1]]))) / (2 * h)
        assert fd == pytest.approx(sum(delta), abs=1e-9)
    assert list(as_vector(run(load("sum_gradient")).value)) == [1, -4]


def test_nested_derivatives():
    """A Jacobian applied inside a pullback's body: d/dy [(J sin · y) y] =
    d/dy [y cos y] = cos y − y sin y (by PyTorch); a pullback inside a
    pullback's 1-form."""
    y = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    (expected,) = torch.autograd.grad(y * torch.cos(y), y)
    got = vector("((Ω λy:R. (J sin · y) y) · (λx:R. [1]*)) 0.5")
    assert got[0] == pytest.approx(expected.item(), rel=1e-14)
    # ω = λx. (λv. (J exp · v) x)* · [1]*: the differential of exp; the query is d/dy exp(sin y)
    got = vector("((Ω λy:R. sin(y)) · (λx:R. (λv:R. (J exp · v) x)* · [1]*)) 0.5")
    assert got[0] == pytest.approx(math.exp(math.sin(0.5)) * math.cos(0.5), rel=1e-14)


def test_errors():
    with pytest.raises(TypeCheckError):
        run(parse("(λv:R. sin(v))* · [1]*"))
    with pytest.raises(BadInput):
        query_meaning(parse("[1]*"))
    assert evaluate(Zero()) is ZERO


# ------------------------------------------------------------ PyTorch's interpretation

def _t(x) -> torch.Tensor:
    return torch.as_tensor(float(x), dtype=torch.float64)


T_FUN = {"add": lambda a, b: a + b, "mul": lambda a, b: a * b, "neg": lambda a: -a, "sin": torch.sin,
         "cos": torch.cos, "exp": torch.exp, "sq": lambda a: a * a}
# J(f)(x)(v), written out
T_JAC = {"add": lambda x, v: v[0] + v[1], "mul": lambda x, v: x[1] * v[0] + x[0] * v[1], "neg": lambda x, v: -v[0],
         "sin": lambda x, v: torch.cos(x[0]) * v[0], "cos": lambda x, v: -torch.sin(x[0]) * v[0],
         "exp": lambda x, v: torch.exp(x[0]) * v[0], "sq": lambda x, v: 2 * x[0] * v[0]}
DOM = {"add": 2, "mul": 2}


def _flat(v, n):
    out = []
    for _ in range(n - 1):
        v, last = v
        out.append(last)
    out.append(v)
    return out[::-1]


def _plus(a, b):
    if isinstance(a, tuple):
        return (_plus(a[0], b[0]), _plus(a[1], b[1]))
    if callable(a):
        return lambda x: _plus(a(x), b(x))
    return a + b


def tev(t, env: list):
    """The terms of the generators (no dual types inside), in PyTorch."""
    match t:
        case Var(n):
            return env[n]
        case Lam(_, s):
            return lambda a: tev(s, [a] + env)
        case App(s, p):
            return tev(s, env)(tev(p, env))
        case Proj(i, s):
            return tev(s, env)[i - 1]
        case Pair(a, b):
            return (tev(a, env), tev(b, env))
        case Real(r):
            return _t(r)
        case Zero():
            return _t(0.0)
        case Fun(f, p):
            return T_FUN[f](*_flat(tev(p, env), DOM.get(f, 1)))
        case Jac(f, s):
            d = _flat(tev(s, env), DOM.get(f, 1))
            return lambda x: T_JAC[f](_flat(x, DOM.get(f, 1)), d)
        case Plus(a, b):
            return _plus(tev(a, env), tev(b, env))
        case Let(e, l):
            return tev(l, [tev(e, env)] + env)
    raise AssertionError(t)


def torch_answer(q) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's Jᵀc for a generated query: the gradient of c · P(y) (or of
    g(P(y)) for the 1-form dg), and P's value."""
    y = torch.tensor(q.point, dtype=torch.float64, requires_grad=True)
    point = y[0]
    for k in range(1, q.n):
        point = (point, y[k])
    out = _flat(tev(q.body, [point]), q.m)
    if q.g is None:
        s = sum(c * o for c, o in zip(q.cotangent, out))
    else:
        s = T_FUN[q.g](out[0])
    s = s if isinstance(s, torch.Tensor) else _t(s)
    (grad,) = torch.autograd.grad(s, y, allow_unused=True) if s.requires_grad else (None,)
    grad = np.zeros(q.n) if grad is None else grad.numpy()
    return grad, np.array([float(o.detach()) if isinstance(o, torch.Tensor) else float(o) for o in out])


def fd_answer(q, h: float = 1e-6) -> np.ndarray:
    """numpy central differences of ⟦P⟧ (the reference evaluating floats
    only), then Jᵀc."""
    x0 = np.array(q.point)

    def f(x):
        v = x[0]
        for k in range(1, q.n):
            v = (v, x[k])
        out = evaluate(q.body, [v])
        flat = []
        for _ in range(q.m - 1):
            out, last = (out if out is not ZERO else (ZERO, ZERO))
            flat.append(0.0 if last is ZERO else last)
        flat.append(0.0 if out is ZERO else out)
        return np.array(flat[::-1], dtype=float)
    cols = []
    for j in range(q.n):
        step = h * max(1.0, abs(x0[j]))
        xp, xm = x0.copy(), x0.copy()
        xp[j] += step
        xm[j] -= step
        cols.append((f(xp) - f(xm)) / (xp[j] - xm[j]))
    J = np.array(cols).T
    p0 = f(x0)
    if q.g is None:
        c = np.array(q.cotangent)
    else:
        d = {"neg": -1.0, "sin": math.cos(p0[0]), "cos": -math.sin(p0[0]), "exp": math.exp(p0[0]),
             "sq": 2 * p0[0]}[q.g]
        c = np.array([d])
    return J.T @ c, p0


def _check_query(q) -> None:
    got = as_vector(run(q.term).value)
    grad, value = torch_answer(q)
    assume(np.all(np.isfinite(value)) and np.all(np.isfinite(grad)))
    assume(np.max(np.abs(value), initial=0) < 1e4 and np.max(np.abs(grad), initial=0) < 1e4)
    scale = 1 + np.max(np.abs(grad), initial=0) + np.max(np.abs(value), initial=0)
    # PyTorch: the same derivative computed another way, to rounding
    assert np.allclose(got, grad, rtol=1e-9, atol=1e-10 * scale), (got, grad)
    # the Jacobian by the reference's own means agrees exactly in shape and to rounding
    assert np.allclose(as_vector(query_meaning(q.term)), got, rtol=1e-12, atol=1e-12 * scale)
    # finite differences: to their truncation and rounding error
    fd, _ = fd_answer(q)
    assert np.allclose(got, fd, rtol=1e-4, atol=1e-5 * scale), (got, fd)


@RANDOM
@given(gen.queries())
def test_first_order_queries(q):
    """Random first-order queries over R^n: the reference against PyTorch
    autograd and numpy finite differences."""
    _check_query(q)


@settings(RANDOM, max_examples=80)
@given(gen.queries(higher=True))
def test_higher_order_queries(q):
    """Queries whose bodies use λ-abstractions applied, pairs of functions
    and Church-list folds (spec §10)."""
    _check_query(q)


@settings(RANDOM, max_examples=60)
@given(gen.typed_terms())
def test_generated_terms_evaluate(t):
    """Every generated well-typed term has a meaning (no internal error)."""
    res = run(t)
    assert res.value is not None
