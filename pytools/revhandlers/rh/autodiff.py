"""A small reverse-mode automatic differentiation over numpy, for the
reference semantics (:mod:`revhandlers.rh.reference`).

Values are 1-D float64 arrays held by :class:`Node` objects that remember
how they were computed.  :func:`grad` walks the graph backwards from seed
cotangents and *records* what it computes, so a gradient can be
differentiated again (reverse over reverse), which nested ``rd`` terms and
nested ``rev handle`` need.

Every edge may carry a *level*: :func:`grad` at level ``λ`` does not cross
edges of level ``λ``.  A ``rev handle`` (or an ``rd``) at level ``λ`` marks
its inputs, and the results of the operations it handles, with such edges:
to it they are independent variables, while every enclosing level still
sees how they were computed.

The vector–Jacobian products below are written from the mathematical
definitions of the primitives, independently of the Coq formulas of
``theories/rh/instance.v``.
"""

from __future__ import annotations

import functools
import itertools
from typing import Callable

import numpy as np


class Node:
    __slots__ = ("value", "parents")

    def __init__(self, value: np.ndarray, parents: tuple = ()):
        self.value = value
        #: (parent, vjp, level): vjp maps this node's cotangent to the parent's
        self.parents = parents

    def __repr__(self):  # pragma: no cover
        return f"Node({self.value!r})"


_levels = itertools.count(1)


def fresh_level() -> int:
    return next(_levels)


def const(v) -> Node:
    return Node(np.asarray(v, dtype=float).reshape(-1))


def zeros(n: int) -> Node:
    """``n`` arithmetic zeros (``+0.0``), the kernels' ``v_zero``."""
    return Node(np.zeros(n))


def czeros(n: int) -> Node:
    """The structural zero cotangent ``0_{Real(n)}`` (``-0.0``, the
    instance's ``v_czero``; docs/decisions.md, "The structural zero
    cotangent is -0.0")."""
    return Node(np.full(n, -0.0))


def _same(g: Node) -> Node:
    """The identity, the vector–Jacobian product of the identity."""
    return g


def cut(x: Node, level: int) -> Node:
    """``x`` as an independent variable at ``level``."""
    return Node(x.value, ((x, _same, level),))


def _op(value, *parents) -> Node:
    if len(parents) == 1:
        (p, vjp), = parents
        return Node(value, ((p, vjp, None),))
    return Node(value, tuple([(p, vjp, None) for p, vjp in parents]))


# ---------------------------------------------------------------- arithmetic

def add(a: Node, b: Node) -> Node:
    return Node(a.value + b.value, ((a, _same, None), (b, _same, None)))


def neg(a: Node) -> Node:
    return _op(-a.value, (a, neg))


def sub(a: Node, b: Node) -> Node:
    return Node(a.value - b.value, ((a, _same, None), (b, neg, None)))


def mul(a: Node, b: Node) -> Node:
    return _op(a.value * b.value, (a, lambda g: mul(g, b)), (b, lambda g: mul(g, a)))


def vsum(a: Node) -> Node:
    n = a.value.size
    return _op(np.array([a.value.sum()]), (a, lambda g: bcast(g, n)))


def bcast(a: Node, n: int) -> Node:
    return _op(np.full(n, a.value[0]), (a, vsum))


def scale(a: Node, v: Node) -> Node:
    """``a · v`` for ``a : Real(1)``."""
    return _op(a.value[0] * v.value, (a, lambda g: vsum(mul(g, v))), (v, lambda g: scale(a, g)))


# ----------------------------------------------------------------- matrices

def matmul(m: int, n: int, k: int, a: Node, b: Node) -> Node:
    val = (a.value.reshape(m, n) @ b.value.reshape(n, k)).reshape(-1)
    return _op(val,
               (a, lambda g: matmul(m, k, n, g, transpose(n, k, b))),
               (b, lambda g: matmul(n, m, k, transpose(m, n, a), g)))


def transpose(m: int, n: int, a: Node) -> Node:
    return _op(a.value.reshape(m, n).T.reshape(-1), (a, lambda g: transpose(n, m, g)))


# ------------------------------------------------------------------ swish

def _sig(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@functools.lru_cache(maxsize=None)
def _sigmoid_poly(order: int) -> tuple[float, ...]:
    """``σ^(order)`` as a polynomial in ``s = σ(x)``, its coefficients from
    degree 0 up: ``σ' = s(1 − s)``, so ``d/dx P(σ) = P'(σ)·σ(1 − σ)``.
    Built once per order (the campaign's reference asks for the same few
    orders thousands of times a second)."""
    P = np.polynomial.Polynomial
    p = P([0.0, 1.0])
    for _ in range(order):
        p = p.deriv() * P([0.0, 1.0, -1.0])
    return tuple(float(c) for c in p.coef)


def _horner(coef: tuple[float, ...], s: np.ndarray) -> np.ndarray:
    """The polynomial with coefficients ``coef`` at ``s``, by Horner's rule
    in the order ``numpy.polynomial.polynomial.polyval`` uses (the same
    numbers as calling the ``Polynomial``, without its domain mapping,
    which is the identity here, and its argument conversions)."""
    c0 = coef[-1] + s * 0
    for c in coef[-2::-1]:
        c0 = c + c0 * s
    return c0


def _swish_derivs(x, order):
    """``(x σ)^(k) = x σ^(k) + k σ^(k−1)`` (Leibniz), at every order."""
    s = _sig(x)
    if order == 0:
        return x * s
    return x * _horner(_sigmoid_poly(order), s) + order * _horner(_sigmoid_poly(order - 1), s)


def swish_deriv(order: int, x: Node) -> Node:
    """The ``order``-th derivative of ``swish``, elementwise, at every order."""
    val = _swish_derivs(x.value, order)
    return _op(val, (x, lambda g: mul(g, swish_deriv(order + 1, x))))


# ------------------------------------------------------ pointwise primitives

def _self_op(value, parent: Node, vjp_of) -> Node:
    """A node whose vector–Jacobian product ``vjp_of(node)`` refers to the
    node itself (the derivative of exp is exp, of tanh is 1 − tanh²)."""
    node = Node(value)
    node.parents = ((parent, vjp_of(node), None),)
    return node


def one_minus(a: Node) -> Node:
    return sub(const(np.ones(a.value.size)), a)


def relu(x: Node) -> Node:
    """``max(x, 0)``, NaN kept; derivative 1 where ``x > 0``, else 0 (also at 0)."""
    step = const(np.where(x.value > 0, 1.0, 0.0))
    return _op(np.where(x.value < 0, 0.0, x.value), (x, lambda g: mul(g, step)))


def sigmoid(x: Node) -> Node:
    """``σ(x) = 1/(1 + e^(−x))``, ``σ' = σ(1 − σ)``."""
    return _self_op(_sig(x.value), x, lambda s: lambda g: mul(g, mul(s, one_minus(s))))


def tanh(x: Node) -> Node:
    """``tanh' = 1 − tanh²``."""
    return _self_op(np.tanh(x.value), x, lambda t: lambda g: mul(g, one_minus(mul(t, t))))


def exp(x: Node) -> Node:
    with np.errstate(over="ignore"):
        value = np.exp(x.value)
    return _self_op(value, x, lambda e: lambda g: mul(g, e))


def recip(x: Node) -> Node:
    """``1/x``, derivative ``−1/x²``."""
    with np.errstate(divide="ignore"):
        value = 1.0 / x.value
    return _self_op(value, x, lambda r: lambda g: neg(mul(g, mul(r, r))))


def log(x: Node) -> Node:
    """The natural logarithm (IEEE: ``log 0 = −inf``, NaN below 0); ``log' = 1/x``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(x.value)
    return _op(value, (x, lambda g: mul(g, recip(x))))


# ----------------------------------------------------- softmax cross-entropy

def softmax(z: Node) -> Node:
    """``p = softmax(z)``; its Jacobian ``diag(p) − p pᵀ`` is symmetric, so
    the VJP of ``h`` is ``p ⊙ h − <p, h> p``."""
    v = z.value
    e = np.exp(v - v.max()) if v.size else v
    return _self_op(e / e.sum() if v.size else v, z,
                    lambda p: lambda h: sub(mul(p, h), scale(vsum(mul(p, h)), p)))


def logsumexp(z: Node) -> Node:
    """``log Σ exp(z)`` with the max shift (``−inf`` for an empty ``z``);
    its gradient is ``softmax(z)``."""
    v = z.value
    with np.errstate(divide="ignore"):
        value = v.max() + np.log(np.exp(v - v.max()).sum()) if v.size else -np.inf
    return _op(np.array([value]), (z, lambda g: scale(g, softmax(z))))


def sce(z: Node, t: Node) -> Node:
    """Softmax cross-entropy ``−Σ tᵢ log softmax(z)ᵢ = (Σ t)·logsumexp(z) − <t, z>``
    (0 for empty vectors)."""
    if z.value.size == 0:
        return _op(np.zeros(1), (z, lambda g: zeros(0)), (t, lambda g: zeros(0)))
    return sub(mul(vsum(t), logsumexp(z)), vsum(mul(t, z)))


# ----------------------------------------------------------- other primitives

def round_half_away(v: np.ndarray) -> np.ndarray:
    """Rounding to the nearest integer, ties away from zero, exactly (OCaml's
    ``Float.round``, the verified engine's ``round``): ``x − trunc(x)`` is
    exact, so no sum is rounded (``sign(x)·floor(|x| + 0.5)`` rounds
    0.49999999999999994 up to 1).  Signed zeros, infinities and NaN are
    kept."""
    t = np.trunc(v)
    with np.errstate(invalid="ignore"):
        away = np.abs(v - t) >= 0.5
    return np.where(away, t + np.sign(v), t)


def round_(x: Node) -> Node:
    n = x.value.size
    return _op(round_half_away(x.value), (x, lambda g: zeros(n)))


def pad(c: int, n: int, m: int, x: Node) -> Node:
    ch = x.value.reshape(c, n)
    out = np.zeros((c, m))
    k = min(n, m)
    out[:, :k] = ch[:, :k]
    return _op(out.reshape(-1), (x, lambda g: pad(c, m, n, g)))


def _upscale_index(n: int, m: int) -> np.ndarray:
    return (np.arange(m) * n) // m


def upscale(c: int, n: int, m: int, x: Node) -> Node:
    idx = _upscale_index(n, m)
    return _op(x.value.reshape(c, n)[:, idx].reshape(-1), (x, lambda g: upscale_adj(c, n, m, g)))


def upscale_adj(c: int, n: int, m: int, g: Node) -> Node:
    idx = _upscale_index(n, m)
    out = np.zeros((c, n))
    gs = g.value.reshape(c, m)
    for t in range(m):
        out[:, idx[t]] += gs[:, t]
    return _op(out.reshape(-1), (g, lambda h: upscale(c, n, m, h)))


def slice_(x: Node, lo: int, hi: int) -> Node:
    total = x.value.size
    return _op(x.value[lo:hi].copy(), (x, lambda g: embed(g, lo, total)))


def embed(x: Node, lo: int, total: int) -> Node:
    out = np.zeros(total)
    out[lo:lo + x.value.size] = x.value
    hi = lo + x.value.size
    return _op(out, (x, lambda g: slice_(g, lo, hi)))


def concat(x: Node, y: Node) -> Node:
    nx, total = x.value.size, x.value.size + y.value.size
    return _op(np.concatenate([x.value, y.value]),
               (x, lambda g: slice_(g, 0, nx)), (y, lambda g: slice_(g, nx, total)))


def _conv(c, c2, n, m, k, x):
    kk = k.reshape(c2, c, m)
    xs = x.reshape(c, n)
    L = n - m + 1
    windows = np.stack([xs[:, t:t + m] for t in range(L)], axis=0)   # L × c × m
    return np.einsum("oij,tij->ot", kk, windows).reshape(-1)


def _conv_dk(c, c2, n, m, g, x):
    L = n - m + 1
    gs = g.reshape(c2, L)
    xs = x.reshape(c, n)
    # a nested list, not np.stack: c or c2 may be 0 (an empty kernel)
    return np.array([[[gs[o] @ xs[i, j:j + L] for j in range(m)] for i in range(c)] for o in range(c2)],
                    dtype=float).reshape(-1)


def _conv_dx(c, c2, n, m, k, g):
    L = n - m + 1
    kk = k.reshape(c2, c, m)
    gs = g.reshape(c2, L)
    out = np.zeros((c, n))
    for t in range(L):
        out[:, t:t + m] += np.einsum("o,oij->ij", gs[:, t], kk)
    return out.reshape(-1)


def conv1d(c, c2, n, m, k: Node, x: Node) -> Node:
    return _op(_conv(c, c2, n, m, k.value, x.value),
               (k, lambda g: conv1d_dk(c, c2, n, m, g, x)),
               (x, lambda g: conv1d_dx(c, c2, n, m, k, g)))


def conv1d_dk(c, c2, n, m, g: Node, x: Node) -> Node:
    return _op(_conv_dk(c, c2, n, m, g.value, x.value),
               (g, lambda h: conv1d(c, c2, n, m, h, x)),
               (x, lambda h: conv1d_dx(c, c2, n, m, h, g)))


def conv1d_dx(c, c2, n, m, k: Node, g: Node) -> Node:
    return _op(_conv_dx(c, c2, n, m, k.value, g.value),
               (k, lambda h: conv1d_dk(c, c2, n, m, g, h)),
               (g, lambda h: conv1d(c, c2, n, m, k, h)))


def first_max(w: np.ndarray) -> int:
    """The argmax of a window as instance.v defines it (``argmax``): the
    running best is replaced only by a strictly larger element, so ties
    keep the first, a NaN is never chosen after a number, and a NaN in
    first position is never replaced (NaN < y is false).  ``np.argmax``
    returns the first NaN instead."""
    best = 0
    for i in range(1, len(w)):
        if w[best] < w[i]:
            best = i
    return best


def _argmax_positions(c: int, n: int, m: int, x: np.ndarray) -> np.ndarray:
    xs = x.reshape(c, n)
    pos = []
    for ch in range(c):
        for lo in range(0, n, m):
            pos.append(ch * n + lo + first_max(xs[ch, lo:lo + m]))
    return np.array(pos, dtype=int)


def maxpool(c: int, n: int, m: int, x: Node) -> Node:
    sel = _argmax_positions(c, n, m, x.value)
    size = x.value.size
    return _op(x.value[sel], (x, lambda g: route(sel, size, g)))


def route(sel: np.ndarray, size: int, g: Node) -> Node:
    out = np.zeros(size)
    np.add.at(out, sel, g.value)
    return _op(out, (g, lambda h: gather(sel, size, h)))


def gather(sel: np.ndarray, size: int, x: Node) -> Node:
    return _op(x.value[sel], (x, lambda g: route(sel, size, g)))


# --------------------------------------------------------------------- grad

def _topo(roots: list[Node], level: int) -> list[Node]:
    """Nodes reachable backwards from ``roots`` without crossing an edge of
    ``level``, each after all the nodes it feeds (iterative DFS).  Nodes
    hash by identity (:class:`Node` defines no equality)."""
    seen: set[Node] = set()
    add = seen.add
    order: list[Node] = []
    push = order.append
    for root in roots:
        if root in seen:
            continue
        add(root)
        if not root.parents:
            push(root)
            continue
        stack = [(root, iter(root.parents))]
        while stack:
            node, it = stack[-1]
            for parent, _vjp, lvl in it:
                if lvl == level or parent in seen:
                    continue
                add(parent)
                if parent.parents:
                    stack.append((parent, iter(parent.parents)))
                    break
                push(parent)        # a leaf: no need to visit it
            else:
                stack.pop()
                push(node)
    return order


def grad(seeds: list[tuple[Node, Node]], targets: list[Node], level: int,
         zero: Callable[[int], Node] = zeros) -> list[Node]:
    """Cotangents of ``targets`` given cotangents of the ``seeds`` nodes,
    not crossing edges of ``level``; the result is itself a graph.  A
    target no seed reaches gets ``zero(size)``: :func:`zeros` where a
    kernel's derivative is computed, :func:`czeros` where the semantics
    puts ``0_A``."""
    cot: dict[Node, Node] = {}
    get = cot.get
    for node, g in seeds:
        prev = get(node)
        cot[node] = g if prev is None else add(prev, g)
    order = _topo([n for n, _ in seeds], level)
    for node in reversed(order):
        if not node.parents:
            continue
        g = get(node)
        if g is None:
            continue
        for parent, vjp, lvl in node.parents:
            if lvl == level:
                continue
            d = vjp(g)
            prev = get(parent)
            cot[parent] = d if prev is None else add(prev, d)
    return [get(t) or zero(t.value.size) for t in targets]


Fn = Callable[..., Node]
