"""An independent numpy reference for the pullback language: it never uses
the pullback reductions (nor A-normal forms, nor the transposed Jacobians
of the function symbols).  Two computations, by separate means:

1. :func:`evaluate` / :func:`run`: the **denotational semantics** of spec
   §8.3 (the paper's interpretation in a differential λ-category, here
   smooth maps between Euclidean spaces and their function spaces):

   * reals are floats, pairs tuples, functions Python closures, and a dual
     ``σ*`` a linear functional (a closure into the reals);
   * ``⟦r*⟧ = λv. Σ rᵢ vᵢ``, ``⟦(λx.S1)* · S2⟧γ = λv. ⟦S2⟧γ (⟦S1⟧⟨γ, v⟩)``;
   * ``⟦J f · S⟧γ = λx. D[f]⟨⟦S⟧γ, x⟩`` and
     ``⟦(Ω λx.P) · S⟧γ = λx v. ⟦S⟧γ (⟦P⟧⟨γ,x⟩) (D[cur ⟦P⟧ γ]⟨v, x⟩)``,
     where the derivative ``D`` is computed by **forward mode**: ``P`` runs on
     *tagged dual numbers* ``x + ε v`` (a fresh tag ``ε`` per derivative, so
     nested derivatives do not mix; at a function type ``x + ε v`` is
     ``λa. x a + ε (v a)``), and the ``ε``-part of the result is the
     derivative.

   A closed result of a ground type is a number or a tuple; a result of type
   ``σ*`` with ``σ`` ground is turned into numbers by evaluating the
   functional on the basis vectors of ``σ``: the numeric dual ``r*`` with the
   same meaning.

2. :func:`query_meaning`: what a **pullback query** ``((Ω λy:σ. P) · ω) V``
   means (spec §8.3, Corollary 4.8(1)), for ``σ = R^n`` (or any ground type)
   and ``P : τ`` ground: the Jacobian matrix ``J`` of ``y ↦ P`` at ``V``
   (``m × n``, columns by forward mode, or by numpy central finite
   differences with ``method="fd"``), the cotangent ``c = ω(P[V/y])`` as a
   vector, and the result ``(Jᵀ c)*``.  For ``ω = λx. e_p*`` this is the
   ``p``-th row of the Jacobian (Example 3.9: ``[660, 528]`` for
   ``f(x, y) = ((x+1)(2x+y²))²`` at ``⟨1, 3⟩``).

The function symbols' values (:data:`IMPL`) are written once, generically
over floats and dual numbers (sums, products, and sin, cos, exp with their
derivatives), so that forward mode differentiates them; no table of
Jacobians or of transposed Jacobians is used, unlike the signature of the
Coq development (``fjac``, ``fjac_t``).

Limitation: a tag is not renamed when a function built inside a derivative
escapes it and is later applied to a value carrying the same tag
(*perturbation confusion* through closures, Manzyuk et al. 2019).  No
program of the test suite or of the examples does that.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..depth import deep, room
from ..errors import BadInput, RuntimeFailure
from .surface import pretty_type
from .syntax import (FUNCTIONS, NP, NR, NZ, TR, App, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus, Proj, Real,
                     TArr, TDual, Tm, TProd, Ty, Var, Zero, is_ground, num_tm, rn_dim)
from .typecheck import TVar, type_of

# ------------------------------------------------------ tagged dual numbers


class Jet:
    """``p + ε_tag · t``; ``p`` and ``t`` are floats or jets of smaller
    tags."""

    __slots__ = ("tag", "p", "t")

    def __init__(self, tag: int, p, t):
        self.tag, self.p, self.t = tag, p, t

    def __repr__(self):
        return f"Jet({self.tag}, {self.p!r}, {self.t!r})"


_TAGS = itertools.count(1)


def fresh_tag() -> int:
    return next(_TAGS)


def _tag(x) -> int:
    return x.tag if isinstance(x, Jet) else 0


def _split(x, tag: int):
    """The primal and ε_tag parts of a scalar."""
    if isinstance(x, Jet) and x.tag == tag:
        return x.p, x.t
    return x, 0.0


def s_add(a, b):
    if type(a) is float and type(b) is float:
        return a + b
    t = max(_tag(a), _tag(b))
    if t == 0:
        return a + b
    ap, at = _split(a, t)
    bp, bt = _split(b, t)
    return Jet(t, s_add(ap, bp), s_add(at, bt))


def s_mul(a, b):
    if type(a) is float and type(b) is float:
        return a * b
    t = max(_tag(a), _tag(b))
    if t == 0:
        return a * b
    ap, at = _split(a, t)
    bp, bt = _split(b, t)
    return Jet(t, s_mul(ap, bp), s_add(s_mul(ap, bt), s_mul(at, bp)))


def s_neg(a):
    if isinstance(a, Jet):
        return Jet(a.tag, s_neg(a.p), s_neg(a.t))
    return -a


def _unary(f: Callable[[float], float], df: Callable):
    """A scalar function on floats and jets, from its value and its
    derivative (written with the generic operations)."""
    def go(a):
        if isinstance(a, Jet):
            return Jet(a.tag, go(a.p), s_mul(df(a.p), a.t))
        return f(a)
    return go


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _trig(fn):
    def go(x: float) -> float:
        return fn(x) if math.isfinite(x) else math.nan
    return go


s_sin = _unary(_trig(math.sin), lambda a: s_cos(a))
s_cos = _unary(_trig(math.cos), lambda a: s_neg(s_sin(a)))
s_exp = _unary(_exp, lambda a: s_exp(a))


def s_sq(a):
    return s_mul(a, a)


#: the value of each function symbol on a list of scalars (R^n flattened)
IMPL: dict[str, Callable[[list], list]] = {
    "add": lambda xs: [s_add(xs[0], xs[1])],
    "mul": lambda xs: [s_mul(xs[0], xs[1])],
    "neg": lambda xs: [s_neg(xs[0])],
    "sin": lambda xs: [s_sin(xs[0])],
    "cos": lambda xs: [s_cos(xs[0])],
    "exp": lambda xs: [s_exp(xs[0])],
    "sq": lambda xs: [s_sq(xs[0])],
}
assert IMPL.keys() == FUNCTIONS.keys()


# ------------------------------------------------------------------ values

class _ZeroValue:
    """``⟦0⟧``, the zero of every type: a scalar, a tuple, a function and a
    functional at once."""

    def __repr__(self):
        return "ZERO"


ZERO = _ZeroValue()


def is_scalar(x) -> bool:
    return isinstance(x, (float, int, Jet)) and not isinstance(x, bool)


def scalar(x):
    """A scalar value (``ZERO`` is 0)."""
    return 0.0 if x is ZERO else x


def apply(f, a):
    """A function or a functional applied (``ZERO a = 0``)."""
    if f is ZERO:
        return ZERO
    return f(a)


def proj(v, i: int):
    if v is ZERO:
        return ZERO
    return v[i - 1]


def vadd(a, b):
    """The sum of two values of the same type (pointwise for functions)."""
    if a is ZERO:
        return b
    if b is ZERO:
        return a
    if is_scalar(a):
        return s_add(a, scalar(b))
    if isinstance(a, tuple):
        return (vadd(a[0], b[0]), vadd(a[1], b[1]))
    if callable(a):
        return lambda x: vadd(a(x), apply(b, x))
    raise RuntimeFailure("internal", f"cannot add {a!r} and {b!r}")


def flatten(v, n: int) -> list:
    """A value of ``R^n`` as a list of ``n`` scalars."""
    out = []
    for _ in range(n - 1):
        out.append(scalar(proj(v, 2)))
        v = proj(v, 1)
    out.append(scalar(v))
    return out[::-1]


def unflatten(xs: list):
    """``[x1, …, xn]`` as a value of ``R^n`` (left-nested)."""
    v = xs[0]
    for x in xs[1:]:
        v = (v, x)
    return v


def num_dot(r: Num, v):
    """``⟦r*⟧ v = Σ rᵢ vᵢ``."""
    match r:
        case NR(x):
            return s_mul(x, scalar(v))
        case NP(a, b):
            return s_add(num_dot(a, proj(v, 1)), num_dot(b, proj(v, 2)))
    return 0.0


# ----------------------------------------------------- forward derivatives

def lift(x, v, tag: int):
    """``x + ε_tag · v`` for two values of the same type, by their shapes
    (``ZERO`` takes the other's).  At a function type it is
    ``λa. x a + ε (v a)``, computed with the arithmetic of dual numbers: ``a``
    may carry ``ε`` itself (the argument of a perturbed function inside the
    derivative), and ``ε · (p + ε q) = ε p``."""
    if x is ZERO and v is ZERO:
        return ZERO
    if is_scalar(x) or is_scalar(v):
        return s_add(scalar(x), Jet(tag, 0.0, primal(scalar(v), tag)))
    if isinstance(x, tuple) or isinstance(v, tuple):
        return (lift(proj(x, 1), proj(v, 1), tag), lift(proj(x, 2), proj(v, 2), tag))
    if callable(x) or callable(v):
        return lambda a: lift(apply(x, a), apply(v, a), tag)
    raise RuntimeFailure("internal", f"cannot perturb {x!r} along {v!r}")


def primal(y, tag: int):
    """A scalar without its ε_tag-part."""
    if isinstance(y, Jet):
        if y.tag == tag:
            return y.p
        if y.tag > tag:
            return Jet(y.tag, primal(y.p, tag), primal(y.t, tag))
    return y


def tangent(y, tag: int):
    """The ε_tag-part of a value."""
    if y is ZERO:
        return ZERO
    if isinstance(y, Jet):
        if y.tag == tag:
            return y.t
        if y.tag > tag:
            return Jet(y.tag, tangent(y.p, tag), tangent(y.t, tag))
        return 0.0
    if is_scalar(y):
        return 0.0
    if isinstance(y, tuple):
        return (tangent(y[0], tag), tangent(y[1], tag))
    if callable(y):
        return lambda a: tangent(y(a), tag)
    raise RuntimeFailure("internal", f"not a value: {y!r}")


def derivative(fn: Callable, x, v):
    """``D[fn]⟨v, x⟩``: the derivative of ``fn`` at ``x`` along ``v``, by
    forward mode."""
    tag = fresh_tag()
    return tangent(fn(lift(x, v, tag)), tag)


# -------------------------------------------------------------- evaluation

class _Env:
    """An environment: de Bruijn index 0 is the head."""

    __slots__ = ("head", "tail")

    def __init__(self, head, tail):
        self.head, self.tail = head, tail

    def lookup(self, n: int):
        e = self
        for _ in range(n):
            e = e.tail
            if e is None:
                break
        if e is None:
            raise BadInput("unbound", f"the variable #{n} is not bound")
        return e.head


def _cons(v, env):
    return _Env(v, env)


def _apply_fun(f: str, v):
    sym = FUNCTIONS[f]
    out = IMPL[f](flatten(v, sym.dom))
    return unflatten(out)


def ev(t: Tm, env=None):
    """``⟦t⟧env``."""
    return _compile(t)(env)


# ``⟦t⟧`` is computed in two passes: :func:`_compile` turns ``t`` into a
# Python closure from environments to values, once per term, and the
# closure computes the value.  A body the forward derivatives evaluate
# once per basis vector (a pullback's, a λ's applied many times) is then
# not read again term by term.  The body of a binder is compiled when it
# is first evaluated (:func:`_later`): a normal form's meaning often
# needs a small part of it, and a λ never applied is not read at all, as
# with a direct evaluation.  Each closure computes what its term denotes
# by the equations of the module's docstring, in the order the term is
# written; an unbound variable or a non-term is an error when it is
# evaluated, not when it is compiled.

def _compile(t: Tm) -> Callable:
    """``env ↦ ⟦t⟧env``."""
    make = _COMPILERS.get(type(t))
    if make is None:
        def bad(env):
            raise TypeError(f"not a term: {t!r}")
        return bad
    return make(t)


def _later(t: Tm) -> Callable:
    """:func:`_compile` ``(t)``, compiled when it is first called."""
    compiled = None

    def go(env):
        nonlocal compiled
        if compiled is None:
            compiled = _compile(t)
        return compiled(env)
    return go


def _c_var(t: Var) -> Callable:
    n = t.n

    def go(env):
        if env is None:
            raise BadInput("unbound", f"the variable #{n} is not bound")
        return env.lookup(n)

    def go0(env):
        if env is None:
            raise BadInput("unbound", f"the variable #{n} is not bound")
        return env.head
    return go0 if n == 0 else go


def _c_lam(t: Lam) -> Callable:
    body = _later(t.s)
    return lambda env: lambda a: body(_Env(a, env))


def _c_app(t: App) -> Callable:
    fn, arg = _compile(t.s), _compile(t.p)

    def go(env):
        f = fn(env)
        return apply(f, arg(env))
    return go


def _c_proj(t: Proj) -> Callable:
    s, i = _compile(t.s), t.i
    return lambda env: proj(s(env), i)


def _c_pair(t: Pair) -> Callable:
    a, b = _compile(t.s1), _compile(t.s2)
    return lambda env: (a(env), b(env))


def _c_real(t: Real) -> Callable:
    r = t.r
    return lambda env: float(r)


def _c_fun(t: Fun) -> Callable:
    f, p = t.f, _compile(t.p)
    return lambda env: _apply_fun(f, p(env))


def _c_jac(t: Jac) -> Callable:
    f, s = t.f, _compile(t.s)

    def go(env):
        direction = s(env)
        return lambda x: derivative(lambda u: _apply_fun(f, u), x, direction)
    return go


def _c_ndual(t: NDual) -> Callable:
    r = t.r
    return lambda env: lambda v: num_dot(r, v)


def _c_zero(t: Zero) -> Callable:
    return lambda env: ZERO


def _c_plus(t: Plus) -> Callable:
    a, b = _compile(t.s), _compile(t.p)
    return lambda env: vadd(a(env), b(env))


def _c_let(t: Let) -> Callable:
    e, body = _compile(t.e), _compile(t.l)
    return lambda env: body(_Env(e(env), env))


def _c_dual(t: Dual) -> Callable:
    s1, s2 = _later(t.s1), _compile(t.s2)

    def go(env):
        phi = s2(env)
        return lambda v: scalar(apply(phi, s1(_Env(v, env))))
    return go


def _c_pb(t: Pb) -> Callable:
    p, s = _later(t.p), _compile(t.s)

    def go(env):
        omega = s(env)

        def form(x):
            at_x = p(_Env(x, env))

            def along(v):
                dp = derivative(lambda u: p(_Env(u, env)), x, v)
                return scalar(apply(apply(omega, at_x), dp))
            return along
        return form
    return go


_COMPILERS: dict[type, Callable[..., Callable]] = {
    Var: _c_var, Lam: _c_lam, App: _c_app, Proj: _c_proj, Pair: _c_pair, Real: _c_real, Fun: _c_fun, Jac: _c_jac,
    NDual: _c_ndual, Zero: _c_zero, Plus: _c_plus, Let: _c_let, Dual: _c_dual, Pb: _c_pb,
}


def evaluate(t: Tm, env: list | tuple = ()):
    """``⟦t⟧`` as a Python value (floats, tuples, closures; ``ZERO`` for
    ``0``); ``env[0]`` is the value of index 0."""
    e = None
    for v in reversed(tuple(env)):
        e = _cons(v, e)
    with room():
        try:
            return ev(t, e)
        except (OverflowError, ZeroDivisionError) as err:     # pragma: no cover (floats give inf)
            raise RuntimeFailure("internal", f"arithmetic failure: {err}") from None


# -------------------------------------------------------------- reification

def basis(ty: Ty) -> list:
    """The unit vectors of a ground type, as values, in the order of
    :func:`flatten_ground`."""
    if ty == TR():
        return [1.0]
    if isinstance(ty, TProd):
        return ([(e, ZERO) for e in basis(ty.A)] + [(ZERO, e) for e in basis(ty.B)])
    raise BadInput("type", f"{ty} is not a ground type")


def shape_num(ty: Ty, xs: list) -> Num:
    """A flat list of numbers as the numeric tuple of a ground type."""
    it = iter(xs)

    def go(u):
        if u == TR():
            return NR(float(next(it)))
        return NP(go(u.A), go(u.B))
    return go(ty)


def flatten_num(r: Num, ty: Ty) -> list[float]:
    """A numeric tuple of a ground type as a flat list (``NZ`` as zeros)."""
    if ty == TR():
        return [r.r if isinstance(r, NR) else 0.0]
    a = r.a if isinstance(r, NP) else NZ()
    b = r.b if isinstance(r, NP) else NZ()
    return flatten_num(a, ty.A) + flatten_num(b, ty.B)


def dim(ty: Ty) -> int:
    return len(basis(ty))


@dataclass(frozen=True)
class Opaque:
    """A value that is not a number: a function or a functional on a
    higher-order type (the Python closure is ``value``)."""
    type: object
    value: object = None

    def __str__(self):
        what = "a linear functional" if isinstance(self.type, TDual) else "a function"
        return f"<{what} of type {pretty_type(self.type)}>"


def _float(x) -> float:
    x = scalar(x)
    if isinstance(x, Jet):
        raise RuntimeFailure("internal", "a dual number escaped its derivative")
    return float(x)


def reify(v, ty) -> Tm | Opaque:
    """A closed value of type ``ty`` as a term: a real, a tuple, ``0``, a
    numeric dual ``r*`` (a functional on a ground type, by its values on the
    basis vectors), or :class:`Opaque`."""
    if isinstance(ty, TVar):
        return Zero() if v is ZERO else Opaque(ty, v)
    if ty == TR():
        return Real(_float(v))
    if isinstance(ty, TProd):
        if v is ZERO and not is_ground(ty):
            return Zero()
        return Pair(reify(proj(v, 1), ty.A), reify(proj(v, 2), ty.B))
    if isinstance(ty, TDual) and _ground_no_vars(ty.A):
        return NDual(shape_num(ty.A, [_float(apply(v, e)) for e in basis(ty.A)]))
    return Opaque(ty, v)


def _ground_no_vars(ty) -> bool:
    return is_ground(ty) and not isinstance(ty, TVar)


@dataclass(frozen=True)
class Result:
    """What :func:`run` gives: the value as a term (or :class:`Opaque`), its
    type, and the Python value."""
    value: object
    type: object
    raw: object


def run(t: Tm, ty=None) -> Result:
    """Type-check the closed term ``t`` (unless its type ``ty``, from
    :func:`.typecheck.type_of`, is given) and give its meaning."""
    ty = type_of(t) if ty is None else ty
    raw = evaluate(t)
    with room():
        return Result(reify(raw, ty), ty, raw)


# ------------------------------------------------------ the meaning of a query

@dataclass(frozen=True)
class Query:
    """A pullback query ``((Ω λy:σ. P) · ω) V``."""
    sigma: Ty
    body: Tm
    form: Tm
    point: Tm


def as_query(t: Tm) -> Query:
    """``t`` as a query ``((Ω λy:σ. P) · ω) V``, or a ``syntax`` error."""
    if isinstance(t, App) and isinstance(t.s, Pb) and t.s.ty is not None:
        return Query(t.s.ty, t.s.p, t.s.s, t.p)
    raise BadInput("syntax", "not a pullback query ((Ω λy:σ. P) · ω) V")


def jacobian(body: Tm, sigma: Ty, point, method: str = "forward", h: float = 1e-6, tau: Ty | None = None) -> np.ndarray:
    """The Jacobian matrix of ``y ↦ ⟦body⟧⟨y⟩`` at ``point`` (a value of the
    ground type ``σ``), ``m × n`` over the flattened coordinates: by forward
    mode (column ``j`` is the tangent along the ``j``-th unit vector) or by
    central finite differences (``method="fd"``, step ``h`` relative to the
    coordinate); ``tau`` is the body's type (inferred if not given)."""
    if tau is None:
        tau = type_of(body, (sigma,))
    if not _ground_no_vars(tau) or not _ground_no_vars(sigma):
        raise BadInput("type", "the Jacobian of a query needs ground types (R, products) for the point and the body")
    es = basis(sigma)
    x0 = np.array(flatten_ground(point, sigma))
    cols = []
    for j, e in enumerate(es):
        if method == "forward":
            col = derivative(lambda u: evaluate(body, [u]), point, e)
            cols.append(flatten_ground(col, tau))
        elif method == "fd":
            step = h * max(1.0, abs(x0[j]))
            xp, xm = x0.copy(), x0.copy()
            xp[j] += step
            xm[j] -= step
            fp = np.array(flatten_ground(evaluate(body, [unflatten_ground(xp, sigma)]), tau))
            fm = np.array(flatten_ground(evaluate(body, [unflatten_ground(xm, sigma)]), tau))
            cols.append((fp - fm) / (xp[j] - xm[j]))
        else:
            raise BadInput("syntax", f"method is forward or fd, not {method}")
    return np.array(cols, dtype=float).T.reshape(dim(tau), len(es))


def flatten_ground(v, ty: Ty) -> list[float]:
    """A value of a ground type as a flat list of floats."""
    if ty == TR():
        return [_float(v)]
    return flatten_ground(proj(v, 1), ty.A) + flatten_ground(proj(v, 2), ty.B)


def unflatten_ground(xs, ty: Ty):
    it = iter(xs)

    def go(u):
        if u == TR():
            return float(next(it))
        return (go(u.A), go(u.B))
    return go(ty)


@deep            # the closures of evaluate run here too (the cotangent): room on the stack
def query_meaning(t: Tm, method: str = "forward") -> Tm:
    """The meaning of the query ``((Ω λy:σ. P) · ω) V`` by its own means
    (Corollary 4.8(1)): ``(Jᵀ c)*`` where ``J`` is the Jacobian of
    ``y ↦ P`` at ``V`` (:func:`jacobian`) and ``c`` the cotangent
    ``ω(P[V/y])`` as a vector; a numeric dual of the shape of ``σ``."""
    type_of(t)
    q = as_query(t)
    tau = type_of(q.body, (q.sigma,))
    if not _ground_no_vars(tau):          # the body's type hangs on a 0: the 1-form's tells it
        w = type_of(q.form)
        tau = w.A if isinstance(w, TArr) else tau
    point = evaluate(q.point)
    J = jacobian(q.body, q.sigma, point, method, tau=tau)
    cot = reify(apply(evaluate(q.form), evaluate(q.body, [point])), TDual(tau))
    if not isinstance(cot, NDual):
        raise BadInput("type", "the cotangent ω(P[V/y]) is not a numeric dual")
    c = np.array(flatten_num(cot.r, tau))
    return NDual(shape_num(q.sigma, list(J.T @ c)))


def as_vector(t: Tm, ty: Ty | None = None) -> np.ndarray:
    """A numeric result (a real, a tuple of reals, a numeric dual) as a flat
    numpy vector."""
    match t:
        case NDual(r):
            if ty is None:
                ty = _num_shape(r)
            return np.array(flatten_num(r, ty.A if isinstance(ty, TDual) else ty))
        case Real(r):
            return np.array([r])
        case Pair(a, b):
            return np.concatenate([as_vector(a), as_vector(b)])
        case Zero():
            return np.zeros(0 if ty is None else dim(ty))
    raise BadInput("type", f"not a numeric value: {t!r}")


def _num_shape(r: Num) -> Ty:
    if isinstance(r, NP):
        return TProd(_num_shape(r.a), _num_shape(r.b))
    return TR()


__all__ = ["evaluate", "run", "reify", "query_meaning", "jacobian", "derivative", "as_query", "as_vector", "Result",
           "Opaque", "ZERO", "IMPL", "Jet", "num_tm", "rn_dim"]
