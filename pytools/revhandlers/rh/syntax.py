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
start in the text, or ``None`` (:class:`Located`).  It is given by keyword
(``Var("x", pos=(1, 1))``), has a default and takes no part in equality,
hashing, ``repr`` or positional patterns: ``Var("x")`` and a parsed ``x``
are equal, and ``parse(pretty(p)) == p``.

Every class is a frozen dataclass through :class:`revhandlers.tree.Node`.
"""

from __future__ import annotations

from dataclasses import field
from typing import Optional, Union

from ..tree import Node

#: a source position ``(line, column)``, both counted from 1, or ``None``
Pos = Optional[tuple[int, int]]


class Located(Node):
    """A node that may carry its source position ``pos``: by keyword only,
    with a default, and outside equality, hashing, ``repr`` and positional
    patterns."""
    pos: Pos = field(default=None, compare=False, hash=False, repr=False, kw_only=True)


# ----------------------------------------------------------------- types

class TBase(Node):
    """``Real(n)``: Coq ``TBase`` (signature.v); ``TBase(0)`` is the unit."""
    n: int


class TProd(Node):
    """``∏ A_i``: Coq ``TProd`` (signature.v); any arity, 1-tuples included."""
    items: tuple["Ty", ...]


Ty = Union[TBase, TProd]


def TPair(a: Ty, b: Ty) -> TProd:
    """``A × B``: Coq ``TPair``."""
    return TProd((a, b))


# ------------------------------------------------------- function symbols

class Prim(Node):
    """A primitive of the executable instance (Coq ``prim``, instance.v):
    ``name`` is one of :data:`revhandlers.rh.prims.PRIMS` and ``params`` its
    natural-number parameters, e.g. ``Prim("matmul", (4, 3, 1))``."""
    name: str
    params: tuple[int, ...]


class FSym(Node):
    """``rd^k[p]``: a function symbol of the executable instance (the pair
    ``(k, p)`` of instance.v)."""
    k: int
    prim: Prim


# ------------------------------------------------------------------ terms

class Var(Located):
    """A variable: Coq ``Var`` (syntax.v), here by name."""
    name: str


class Const(Located):
    """The constant ``v̲ : Real(len(values))``: Coq ``Const`` (syntax.v)."""
    values: tuple[float, ...]


class App(Located):
    """``f(M)``: Coq ``App`` (syntax.v)."""
    f: FSym
    arg: "Tm"


class Add(Located):
    """``M1 + M2`` at a base type: Coq ``Add`` (syntax.v)."""
    left: "Tm"
    right: "Tm"


class Tuple(Located):
    """``<M1, …, Mn>``: Coq ``Tuple`` (syntax.v)."""
    items: tuple["Tm", ...]


class Proj(Located):
    """``proj_{index+1}(M)``: Coq ``Proj`` (syntax.v), 0-based like Coq."""
    index: int
    arg: "Tm"


class Let(Located):
    """``let var ← bound in body``: Coq ``Let`` (syntax.v)."""
    var: str
    bound: "Tm"
    body: "Tm"


class Rd(Located):
    """``cotangent.rd(var. body)(point)``: Coq ``Rd`` (syntax.v)."""
    cotangent: "Tm"
    var: str
    body: "Tm"
    point: "Tm"


Tm = Union[Var, Const, App, Add, Tuple, Proj, Let, Rd]


# --------------------------------------------------------- operation symbols

class OpUser(Node):
    """A declared operation: Coq ``OpUser`` (signature.v)."""
    name: str


class OpGet(Node):
    """``Get[loc] : Real(0) ▷ Real(k)``: Coq ``OpGet`` (signature.v)."""
    loc: str


class OpPut(Node):
    """``Put[loc] : Real(k) ▷ Real(0)``: Coq ``OpPut`` (signature.v)."""
    loc: str


OpSym = Union[OpUser, OpGet, OpPut]


# --------------------------------------------------------------- commands

class Ret(Located):
    """``⌊M⌋``: Coq ``Ret`` (syntax.v)."""
    term: Tm


class Op(Located):
    """``Op(M)``: Coq ``Op`` (syntax.v)."""
    op: OpSym
    arg: Tm


class CLet(Located):
    """``let var ⇐ bound in body``: Coq ``CLet`` (syntax.v)."""
    var: str
    bound: "Cmd"
    body: "Cmd"


class RevHandle(Located):
    """``rev handle(arg)<vars>. body with handler``: Coq ``RevHandle``
    (syntax.v); ``body`` sees only ``vars``."""
    arg: Tm
    vars: tuple[str, ...]
    body: "Cmd"
    handler: "Handler"


class CCons(Located):
    """One explicit clause ``(x ↦ Q^f | y, z ↦ Q^b)`` for ``op`` with residual
    type ``residual`` (``D_Op``): Coq ``CCons`` (syntax.v)."""
    op: OpSym
    residual: Ty
    x: str
    fwd: "Cmd"
    y: str
    z: str
    bwd: "Cmd"


class Handler(Located):
    """``{var ↦ ret} ∪ clauses``: Coq ``Handler`` (syntax.v).  Operations
    without a clause get the default clause."""
    var: str
    ret: "Cmd"
    clauses: tuple[CCons, ...] = ()


Cmd = Union[Ret, Op, CLet, RevHandle]


# ---------------------------------------------------------------- programs

class OpDecl(Located):
    """A program's operation ``name : coarity ▷ arity``."""
    name: str
    coarity: Ty
    arity: Ty


class LocDecl(Located):
    """A location ``name :: shape``, holding ``Real(∏ shape)``."""
    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n


class Program(Node):
    """Declarations, an initial heap (others hold 0) and the main command."""
    main: Cmd
    ops: tuple[OpDecl, ...] = ()
    locs: tuple[LocDecl, ...] = ()
    heap: tuple[tuple[str, tuple[float, ...]], ...] = ()
    fuel: int | None = None

    def op_decl(self, name: str) -> OpDecl | None:
        return next((d for d in self.ops if d.name == name), None)

    def loc_decl(self, name: str) -> LocDecl | None:
        return next((d for d in self.locs if d.name == name), None)


COQ_MIRRORED = (TBase, TProd, Var, Const, App, Add, Tuple, Proj, Let, Rd,
                OpUser, OpGet, OpPut, Ret, Op, CLet, RevHandle, Handler, CCons)
