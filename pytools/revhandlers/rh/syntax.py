"""The abstract syntax, one frozen dataclass per constructor of the Coq
development (``theories/rh/signature.v``, ``theories/rh/syntax.v``), with the same
names.

Binders carry names here (the Coq terms use de Bruijn indices; the
S-expression reader of ``rh-eval`` and :mod:`revhandlers.rh.sexp` resolve them).
Two representations differ from Coq on purpose and are checked by
``tests/test_ast_mirror.py``:

* the clause list of a handler is a Python tuple of :class:`CCons` (Coq's
  ``CNil``/``CCons`` chain);
* a function symbol is :class:`FSym` ``(k, prim)``, the executable instance's
  ``rd^k[p]`` (``theories/rh/instance.v``), with ``prim`` one of the primitives
  of :data:`revhandlers.rh.prims.PRIMS`.

Terms, commands, clauses, handlers and declarations parsed from the surface
syntax also carry ``pos``, the ``(line, column)`` (both from 1) where they
start in the text, or ``None``.  It is the last field, has a default and
takes no part in equality, hashing or ``repr``: ``Var("x")`` and a parsed
``x`` are equal, and ``parse(pretty(p)) == p``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Union

#: a source position ``(line, column)``, both counted from 1, or ``None``
Pos = Optional[tuple[int, int]]


def _pos():
    """The ``pos`` field of the nodes that carry one: last, with a default,
    and outside equality, hashing and ``repr`` (a new field per class)."""
    return field(default=None, compare=False, hash=False, repr=False)


# ----------------------------------------------------------------- types

@dataclass(frozen=True)
class TBase:
    """``Real(n)``: Coq ``TBase`` (signature.v); ``TBase(0)`` is the unit."""
    n: int


@dataclass(frozen=True)
class TProd:
    """``∏ A_i``: Coq ``TProd`` (signature.v); any arity, 1-tuples included."""
    items: tuple["Ty", ...]


Ty = Union[TBase, TProd]


def TPair(a: Ty, b: Ty) -> TProd:
    """``A × B``: Coq ``TPair``."""
    return TProd((a, b))


# ------------------------------------------------------- function symbols

@dataclass(frozen=True)
class Prim:
    """A primitive of the executable instance (Coq ``prim``, instance.v):
    ``name`` is one of :data:`revhandlers.rh.prims.PRIMS` and ``params`` its
    natural-number parameters, e.g. ``Prim("matmul", (4, 3, 1))``."""
    name: str
    params: tuple[int, ...]


@dataclass(frozen=True)
class FSym:
    """``rd^k[p]``: a function symbol of the executable instance (the pair
    ``(k, p)`` of instance.v)."""
    k: int
    prim: Prim


# ------------------------------------------------------------------ terms

@dataclass(frozen=True)
class Var:
    """A variable: Coq ``Var`` (syntax.v), here by name."""
    name: str
    pos: Pos = _pos()


@dataclass(frozen=True)
class Const:
    """The constant ``v̲ : Real(len(values))``: Coq ``Const`` (syntax.v)."""
    values: tuple[float, ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class App:
    """``f(M)``: Coq ``App`` (syntax.v)."""
    f: FSym
    arg: "Tm"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Add:
    """``M1 + M2`` at a base type: Coq ``Add`` (syntax.v)."""
    left: "Tm"
    right: "Tm"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Tuple:
    """``<M1, …, Mn>``: Coq ``Tuple`` (syntax.v)."""
    items: tuple["Tm", ...]
    pos: Pos = _pos()


@dataclass(frozen=True)
class Proj:
    """``proj_{index+1}(M)``: Coq ``Proj`` (syntax.v), 0-based like Coq."""
    index: int
    arg: "Tm"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Let:
    """``let var ← bound in body``: Coq ``Let`` (syntax.v)."""
    var: str
    bound: "Tm"
    body: "Tm"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Rd:
    """``cotangent.rd(var. body)(point)``: Coq ``Rd`` (syntax.v)."""
    cotangent: "Tm"
    var: str
    body: "Tm"
    point: "Tm"
    pos: Pos = _pos()


Tm = Union[Var, Const, App, Add, Tuple, Proj, Let, Rd]


# --------------------------------------------------------- operation symbols

@dataclass(frozen=True)
class OpUser:
    """A declared operation: Coq ``OpUser`` (signature.v)."""
    name: str


@dataclass(frozen=True)
class OpGet:
    """``Get[loc] : Real(0) ▷ Real(k)``: Coq ``OpGet`` (signature.v)."""
    loc: str


@dataclass(frozen=True)
class OpPut:
    """``Put[loc] : Real(k) ▷ Real(0)``: Coq ``OpPut`` (signature.v)."""
    loc: str


OpSym = Union[OpUser, OpGet, OpPut]


# --------------------------------------------------------------- commands

@dataclass(frozen=True)
class Ret:
    """``⌊M⌋``: Coq ``Ret`` (syntax.v)."""
    term: Tm
    pos: Pos = _pos()


@dataclass(frozen=True)
class Op:
    """``Op(M)``: Coq ``Op`` (syntax.v)."""
    op: OpSym
    arg: Tm
    pos: Pos = _pos()


@dataclass(frozen=True)
class CLet:
    """``let var ⇐ bound in body``: Coq ``CLet`` (syntax.v)."""
    var: str
    bound: "Cmd"
    body: "Cmd"
    pos: Pos = _pos()


@dataclass(frozen=True)
class RevHandle:
    """``rev handle(arg)<vars>. body with handler``: Coq ``RevHandle``
    (syntax.v); ``body`` sees only ``vars``."""
    arg: Tm
    vars: tuple[str, ...]
    body: "Cmd"
    handler: "Handler"
    pos: Pos = _pos()


@dataclass(frozen=True)
class CCons:
    """One explicit clause ``(x ↦ Q^f | y, z ↦ Q^b)`` for ``op`` with residual
    type ``residual`` (``D_Op``): Coq ``CCons`` (syntax.v)."""
    op: OpSym
    residual: Ty
    x: str
    fwd: "Cmd"
    y: str
    z: str
    bwd: "Cmd"
    pos: Pos = _pos()


@dataclass(frozen=True)
class Handler:
    """``{var ↦ ret} ∪ clauses``: Coq ``Handler`` (syntax.v).  Operations
    without a clause get the default clause."""
    var: str
    ret: "Cmd"
    clauses: tuple[CCons, ...] = ()
    pos: Pos = _pos()


Cmd = Union[Ret, Op, CLet, RevHandle]


# ---------------------------------------------------------------- programs

@dataclass(frozen=True)
class OpDecl:
    """A program's operation ``name : coarity ▷ arity``."""
    name: str
    coarity: Ty
    arity: Ty
    pos: Pos = _pos()


@dataclass(frozen=True)
class LocDecl:
    """A location ``name :: shape``, holding ``Real(∏ shape)``."""
    name: str
    shape: tuple[int, ...]
    pos: Pos = _pos()

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True)
class Program:
    """Declarations, an initial heap (others hold 0) and the main command."""
    main: Cmd
    ops: tuple[OpDecl, ...] = ()
    locs: tuple[LocDecl, ...] = ()
    heap: tuple[tuple[str, tuple[float, ...]], ...] = ()
    fuel: int | None = field(default=None)

    def op_decl(self, name: str) -> OpDecl | None:
        return next((d for d in self.ops if d.name == name), None)

    def loc_decl(self, name: str) -> LocDecl | None:
        return next((d for d in self.locs if d.name == name), None)


COQ_MIRRORED = (TBase, TProd, Var, Const, App, Add, Tuple, Proj, Let, Rd,
                OpUser, OpGet, OpPut, Ret, Op, CLet, RevHandle, Handler, CCons)
