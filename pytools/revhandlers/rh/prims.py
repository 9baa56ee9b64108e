"""The primitives of the executable instance (Coq ``prim``,
theories/rh/instance.v): one table, :data:`TABLE`, with one entry per
primitive, from which the checker (arity, parameters, shapes), the surface
syntax and the S-expressions (names, the spelling of the parameters), the
reference semantics (the forward map, through :mod:`.autodiff`, whose
vector-Jacobian products give every reverse derivative), the generator
(the instances landing in a given type, and their order) and the
Hypothesis strategies (small instances) all read.  Adding a primitive to
the Python side is adding an entry (docs/adding-a-primitive.md);
``tests/test_prim_table.py`` checks the table against the Coq instance."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from . import autodiff as ad
from .syntax import FSym, Prim, TBase, TProd, Ty


def ceil_div(n: int, m: int) -> int:
    return (n + m - 1) // m


def _always(*params: int) -> bool:
    return True


def _nothing(n: int) -> list[tuple[int, ...]]:
    return []


@dataclass(frozen=True)
class Primitive:
    """One primitive: its name (in the surface syntax and the S-expressions)
    and Coq constructor, the names of its parameters (Coq's binders, as
    ``docs/surface-syntax.md`` writes them: ``matmul[m,n,k]``), the leaf
    sizes of its domain and the size of its codomain (Coq ``prim_dom``,
    ``prim_cod``) as functions of the parameters, the parameters for which
    it makes sense (Coq ``prim_ok``), and its forward map on
    :class:`~.autodiff.Node` values (``forward(params, xs)``: written from
    its mathematical definition, with the vector-Jacobian products that
    give ``rd[p]`` and ``rd[rd[p]]`` to the reference).  For the tests:
    ``pointwise`` (``Real(n) → Real(n)``, one coordinate at a time),
    ``nonsmooth`` (finite differences do not check its derivative), the
    generator's instances with codomain ``Real(n)`` (``generate(n)``, in
    the order of ``rank`` among all primitives: the order a seed's choices
    refer to) and small instances for the Hypothesis strategies
    (``examples``)."""
    name: str
    coq: str
    params: tuple[str, ...]
    dom: Callable[..., list[int]]
    cod: Callable[..., int]
    forward: Callable[[tuple[int, ...], list[ad.Node]], ad.Node]
    ok: Callable[..., bool] = _always
    pointwise: bool = False
    nonsmooth: bool = False
    generate: Callable[[int], list[tuple[int, ...]]] = _nothing
    rank: int = 100
    examples: tuple[tuple[int, ...], ...] = ()

    @property
    def spelling(self) -> str:
        """The parameters as docs/surface-syntax.md writes them: ``m,n,k``."""
        return ",".join(self.params)


def _unary(name: str, coq: str, forward: Callable[[ad.Node], ad.Node], rank: int,
           examples: tuple[tuple[int, ...], ...], nonsmooth: bool = False, generate: bool = True) -> Primitive:
    """A pointwise primitive ``Real(n) → Real(n)``."""
    return Primitive(name, coq, ("n",), lambda n: [n], lambda n: n, lambda a, xs: forward(xs[0]),
                     pointwise=True, nonsmooth=nonsmooth, rank=rank, examples=examples,
                     generate=(lambda n: [(n,)]) if generate else _nothing)


def _conv1d_cod(c: int, c2: int, n: int, m: int) -> int:
    return c2 * max(n - m, 0) + c2          # c'·(n − m + 1), natural subtraction


#: every primitive, in the order of the Coq constructors
TABLE: dict[str, Primitive] = {e.name: e for e in [
    _unary("swish", "PSwish", lambda x: ad.swish_deriv(0, x), 0, ((1,), (2,))),
    Primitive("smul", "PSmul", ("n",), lambda n: [1, n], lambda n: n, lambda a, xs: ad.scale(xs[0], xs[1]),
              rank=2, generate=lambda n: [(n,)], examples=((2,),)),
    Primitive("sub", "PSub", ("n",), lambda n: [n, n], lambda n: n, lambda a, xs: ad.sub(xs[0], xs[1]),
              rank=1, generate=lambda n: [(n,)], examples=((1,), (2,))),
    Primitive("matmul", "PMatmul", ("m", "n", "k"), lambda m, n, k: [m * n, n * k], lambda m, n, k: m * k,
              lambda a, xs: ad.matmul(*a, xs[0], xs[1]), rank=5, generate=lambda n: [(n, 1, 1), (n, 2, 1)],
              examples=((1, 2, 1), (2, 1, 1))),
    Primitive("transpose", "PTranspose", ("m", "n"), lambda m, n: [m * n], lambda m, n: n * m,
              lambda a, xs: ad.transpose(*a, xs[0]), rank=4, generate=lambda n: [(1, n)], examples=((1, 2),)),
    _unary("round", "PRound", ad.round_, 3, ((2,),), nonsmooth=True),
    Primitive("pad", "PPad", ("c", "n", "m"), lambda c, n, m: [c * n], lambda c, n, m: c * m,
              lambda a, xs: ad.pad(*a, xs[0]), rank=6, generate=lambda n: [(1, 2, n)], examples=((1, 2, 1),)),
    Primitive("upscale", "PUpscale", ("c", "n", "m"), lambda c, n, m: [c * n], lambda c, n, m: c * m,
              lambda a, xs: ad.upscale(*a, xs[0]), ok=lambda c, n, m: m > 0, rank=7,
              generate=lambda n: [(1, 2, n)] if n > 0 else [], examples=((1, 1, 2),)),
    Primitive("concat", "PConcat", ("c", "c'", "n"), lambda c, c2, n: [c * n, c2 * n], lambda c, c2, n: (c + c2) * n,
              lambda a, xs: ad.concat(xs[0], xs[1]), rank=15,
              generate=lambda n: [(1, 1, n // 2)] if n % 2 == 0 else [], examples=((1, 1, 1),)),
    Primitive("conv1d", "PConv1d", ("c", "c'", "n", "m"), lambda c, c2, n, m: [c2 * c * m, c * n], _conv1d_cod,
              lambda a, xs: ad.conv1d(*a, xs[0], xs[1]), ok=lambda c, c2, n, m: 0 < m <= n, rank=16,
              generate=lambda n: [(1, 1, n + 1, 2)] if n >= 1 else [], examples=((1, 1, 2, 1),)),
    Primitive("maxpool", "PMaxpool", ("c", "n", "m"), lambda c, n, m: [c * n], lambda c, n, m: c * ceil_div(n, m),
              lambda a, xs: ad.maxpool(*a, xs[0]), ok=lambda c, n, m: m > 0, nonsmooth=True, rank=17,
              generate=lambda n: [(1, 2 * n, 2)] if n >= 1 else [], examples=((1, 2, 2),)),
    _unary("relu", "PRelu", ad.relu, 8, ((2,),), nonsmooth=True),
    _unary("sigmoid", "PSigmoid", ad.sigmoid, 9, ((1,),)),
    _unary("tanh", "PTanh", ad.tanh, 10, ((2,),)),
    _unary("exp", "PExp", ad.exp, 18, ((1,),), generate=False),
    _unary("log", "PLog", ad.log, 19, ((2,),), generate=False),
    Primitive("mul", "PMul", ("n",), lambda n: [n, n], lambda n: n, lambda a, xs: ad.mul(xs[0], xs[1]),
              rank=11, generate=lambda n: [(n,)], examples=((2,),)),
    Primitive("sum", "PSum", ("n",), lambda n: [n], lambda n: 1, lambda a, xs: ad.vsum(xs[0]),
              rank=12, generate=lambda n: [(2,)] if n == 1 else [], examples=((2,),)),
    Primitive("sce", "PSce", ("n",), lambda n: [n, n], lambda n: 1, lambda a, xs: ad.sce(xs[0], xs[1]),
              rank=13, generate=lambda n: [(2,)] if n == 1 else [], examples=((2,),)),
]}

#: name -> (Coq constructor, number of parameters)
PRIMS: dict[str, tuple[str, int]] = {}
#: the parameters of each primitive, as docs/surface-syntax.md writes them
PRIM_PARAMS: dict[str, str] = {}
#: the pointwise primitives ``Real(n) → Real(n)``
POINTWISE: tuple[str, ...] = ()
#: the primitives whose derivatives finite differences do not check
NONSMOOTH: tuple[str, ...] = ()
#: how many times the table changed (caches of the generator follow it)
VERSION = [0]


def _derive() -> None:
    """The views of :data:`TABLE` the other modules read."""
    global POINTWISE, NONSMOOTH
    PRIMS.clear()
    PRIMS.update({e.name: (e.coq, len(e.params)) for e in TABLE.values()})
    PRIM_PARAMS.clear()
    PRIM_PARAMS.update({e.name: e.spelling for e in TABLE.values()})
    POINTWISE = tuple(e.name for e in TABLE.values() if e.pointwise)
    NONSMOOTH = tuple(e.name for e in TABLE.values() if e.nonsmooth)
    VERSION[0] += 1


_derive()


@contextmanager
def registered(entry: Primitive) -> Iterator[Primitive]:
    """``entry`` in the table for the time of the block (a primitive the
    Python side knows and the Coq instance does not: for tests)."""
    if entry.name in TABLE:
        raise ValueError(f"there is a primitive {entry.name} already")
    TABLE[entry.name] = entry
    _derive()
    try:
        yield entry
    finally:
        del TABLE[entry.name]
        _derive()


def entry(p: Prim) -> Primitive:
    """The table's entry for ``p`` (``KeyError`` if there is none)."""
    return TABLE[p.name]


def prim_dom(p: Prim) -> list[int]:
    """Leaf sizes of the domain (Coq ``prim_dom``)."""
    return entry(p).dom(*p.params)


def prim_cod(p: Prim) -> int:
    """Size of the codomain (Coq ``prim_cod``)."""
    return entry(p).cod(*p.params)


def prim_ok(p: Prim) -> bool:
    """Parameters for which the primitive makes sense (Coq ``prim_ok``)."""
    return entry(p).ok(*p.params)


def generated(n: int) -> list[Prim]:
    """The primitives the generator applies to land in ``Real(n)``, in
    the order of their ranks."""
    return [Prim(e.name, a) for e in sorted(TABLE.values(), key=lambda e: e.rank) for a in e.generate(n)]


def examples() -> list[Prim]:
    """Small instances of every primitive, in the table's order."""
    return [Prim(e.name, a) for e in TABLE.values() for a in e.examples]


def fdom(k: int, p: Prim) -> Ty:
    """Domain of ``rd^k[p]`` (Coq ``fdom``)."""
    if k == 0:
        ns = prim_dom(p)
        return TBase(ns[0]) if len(ns) == 1 else TProd(tuple(TBase(n) for n in ns))
    return TProd((fdom(k - 1, p), fcod(k - 1, p)))


def fcod(k: int, p: Prim) -> Ty:
    """Codomain of ``rd^k[p]`` (Coq ``fcod``)."""
    if k == 0:
        return TBase(prim_cod(p))
    return fdom(k - 1, p)


def fsym_dom(f: FSym) -> Ty:
    return fdom(f.k, f.prim)


def fsym_cod(f: FSym) -> Ty:
    return fcod(f.k, f.prim)
