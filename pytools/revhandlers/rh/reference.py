"""An independent reference semantics in numpy.

It shares with the verified evaluator only the meaning of the primitive
functions (their forward maps); everything else is computed another way:

* terms are evaluated directly (no small steps, no substitution);
* ``M.rd(x.N)(L)`` and ``rd[f]`` are computed by this module's own
  reverse-mode differentiation (:mod:`revhandlers.rh.autodiff`, a tape over
  numpy, differentiable again for nested ``rd``), not by the rewriting
  ``W.R_V(x.N)``; the vector–Jacobian products of the primitives are written
  from their definitions, not from the Coq formulas of ``rd[f]`` and
  ``rd[rd[f]]``;
* ``rev handle(V)<x⃗>.R with H`` runs as a continuation transformation, not
  by the ``RH`` rewriting: ``R`` runs forward, each operation it performs
  running its forward clause ``Q^f`` (outside ``H``); the return clause
  ``P`` gives the cotangent of the result; then, from the last operation
  to the first, the cotangent of the operation's result is the gradient of
  what follows, its backward clause ``Q^b`` turns it into the cotangent of
  the operation's input, and the cotangents of the inputs ``x⃗`` are summed;
* the heap is a mapping from locations to numpy arrays.

The program is first validated and type-checked by
:mod:`revhandlers.rh.typecheck`, so bad input fails as in ``rh-eval``.  Like
the executable instance, ``Ev`` of ``rd[rd[rd[f]]]`` is undefined.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import BadInput, RuntimeFailure
from ..heapio import heap_numbers
from . import autodiff as ad, prims
from .nesting import deep
from .sexp import Result
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, Op, OpGet, OpPut, OpSym, OpUser, Program,
                     Proj, Rd, Ret, RevHandle, TBase, Tm, Tuple, Ty, Var)
from .typecheck import check_program, coar

#: rh-eval's ``max_heap_size`` (theories/rh/frontend.v): all locations together
MAX_HEAP_SIZE = 100_000_000

#: Called as ``observer(term, env, cotangent, point, result)`` after every
#: ``rd`` term is evaluated (the fuzzer checks it against finite differences).
rd_observer = None


# --------------------------------------------------------------- values

def leaves(v) -> list[ad.Node]:
    if isinstance(v, ad.Node):
        return [v]
    return [leaf for x in v for leaf in leaves(x)]


def rebuild(like, flat: list[ad.Node]):
    return _refill(like, iter(flat))


def _refill(s, it):
    """``s`` with its leaves taken from ``it`` in order (a module-level
    function: a nested one that calls itself is a reference cycle, and its
    nodes would wait for the cyclic collector instead of being freed)."""
    if isinstance(s, ad.Node):
        return next(it)
    return tuple([_refill(x, it) for x in s])


def cut_value(v, level: int):
    if isinstance(v, ad.Node):
        return ad.cut(v, level)
    return rebuild(v, [ad.cut(n, level) for n in leaves(v)])


def zero_of(t: Ty):
    """``0_A``: the structural zero cotangent, ``-0.0`` at every leaf."""
    if isinstance(t, TBase):
        return ad.czeros(t.n)
    return tuple(zero_of(a) for a in t.items)


def numpy_value(v):
    if isinstance(v, ad.Node):
        return v.value.copy()
    return tuple(numpy_value(x) for x in v)


def grad_value(seeds: list[tuple[object, object]], target, level: int, zero=ad.zeros):
    """Cotangent of the structured value ``target`` from structured seeds;
    a leaf no seed reaches gets ``zero`` (:func:`~.autodiff.grad`)."""
    pairs = [(n, g) for out, cot in seeds for n, g in zip(leaves(out), leaves(cot))]
    if isinstance(target, ad.Node):
        return ad.grad(pairs, [target], level, zero)[0]
    return rebuild(target, ad.grad(pairs, leaves(target), level, zero))


# --------------------------------------------------------------- primitives

def prim_forward(f: FSym, xs: list[ad.Node]) -> ad.Node:
    """The forward map of ``f``'s primitive (its entry of :data:`~.prims.TABLE`)."""
    p = f.prim
    if p.name not in prims.TABLE:
        raise RuntimeFailure("ev-undefined", f"no primitive {p.name}")
    return prims.TABLE[p.name].forward(p.params, xs)


def apply_fsym(f: FSym, v, depth: int = 0):
    """``Ev(rd^k[p], v)``: the forward map for ``k = 0``, else the VJP of the
    level below, by the reference's own differentiation.

    ``depth`` is how many differentiations enclose the application (bodies
    of ``rd`` terms and of ``rev handle``): it needs ``rd^(k+depth)[p]``,
    which the executable instance defines at every order (rdcore.v), and
    the reference computes by differentiating its own recorded graph as
    many times."""
    if f.k == 0:
        return prim_forward(f, leaves(v))
    point, cotangent = v
    level = ad.fresh_level()
    x = cut_value(point, level)
    out = apply_fsym(FSym(f.k - 1, f.prim), x)
    return grad_value([(out, cotangent)], x, level)


# ------------------------------------------------------------------ terms

#: the arrays of the constants met, by their numbers: a tuple holding a zero
#: is not kept (``0.0 == -0.0``: it would confuse them); a NaN only meets
#: itself (tuples compare items by identity first), the same bits
_CONSTS: dict[tuple, np.ndarray] = {}


def _const(values: tuple) -> ad.Node:
    """The constant ``values``: one read-only array per tuple of numbers,
    shared by every evaluation of it (nothing writes into a node's value;
    a write would raise)."""
    a = _CONSTS.get(values)
    if a is None:
        a = np.array(values, dtype=float)
        if 0.0 in values:
            return ad.Node(a)
        a.setflags(write=False)
        if len(_CONSTS) >= 1 << 14:
            _CONSTS.clear()
        _CONSTS[values] = a
    return ad.Node(a)


def eval_tm(m: Tm, env: dict, depth: int = 0):
    """The value of ``m``; ``depth`` differentiations enclose it.  The
    common kinds are told apart by their exact class first (cheaper than
    the ``match`` below, which does the same and handles the rest)."""
    kind = type(m)
    if kind is Var:
        return env[m.name]
    if kind is Proj:
        return eval_tm(m.arg, env, depth)[m.index]
    if kind is Tuple:
        return tuple([eval_tm(x, env, depth) for x in m.items])
    if kind is App:
        return apply_fsym(m.f, eval_tm(m.arg, env, depth), depth)
    if kind is Add:
        return ad.add(eval_tm(m.left, env, depth), eval_tm(m.right, env, depth))
    if kind is Let:
        return eval_tm(m.body, {**env, m.var: eval_tm(m.bound, env, depth)}, depth)
    if kind is Const:
        return _const(m.values)
    match m:
        case Var(x):
            return env[x]
        case Const(values):
            return _const(values)
        case App(f, arg):
            return apply_fsym(f, eval_tm(arg, env, depth), depth)
        case Add(a, b):
            return ad.add(eval_tm(a, env, depth), eval_tm(b, env, depth))
        case Tuple(items):
            return tuple(eval_tm(x, env, depth) for x in items)
        case Proj(i, arg):
            return eval_tm(arg, env, depth)[i]
        case Let(x, bound, body):
            return eval_tm(body, {**env, x: eval_tm(bound, env, depth)}, depth)
        case Rd(cot, x, body, point):
            c = eval_tm(cot, env, depth)
            p = eval_tm(point, env, depth)
            level = ad.fresh_level()
            px = cut_value(p, level)
            out = eval_tm(body, {**env, x: px}, depth + 1)
            result = grad_value([(out, c)], px, level, ad.czeros)
            if rd_observer is not None:
                rd_observer(m, env, c, p, result)
            return result
    raise TypeError(f"not a term: {m!r}")


# --------------------------------------------------------------- commands

@dataclass
class _Record:
    op: OpSym
    arg: object        # the operation's input (a traced value)
    result: object     # its result, an independent variable at the handler's level
    residual: object   # z, from the forward clause
    clause: CCons | None


@dataclass
class _Frame:
    handler: Handler
    parent: "_Frame | None"
    level: int
    records: list = field(default_factory=list)

    @property
    def depth(self) -> int:
        """Differentiations enclosing the handled body (one per handler)."""
        return 1 + (self.parent.depth if self.parent is not None else 0)


    def clause(self, o: OpSym) -> CCons | None:
        return next((c for c in self.handler.clauses if c.op == o), None)


def _depth(frame: "_Frame | None") -> int:
    return frame.depth if frame is not None else 0


class _Machine:
    def __init__(self, prog: Program, heap: dict[str, np.ndarray]):
        self.prog = prog
        self.heap = heap

    def perform(self, o: OpSym, v, frame: _Frame | None):
        if frame is None:
            match o:
                case OpGet(loc):
                    return ad.const(self.heap[loc])
                case OpPut(loc):
                    self.heap[loc] = ad.const(v.value).value.copy()
                    return ad.zeros(0)
                case OpUser(name):
                    raise RuntimeFailure("unhandled-operation",
                                         f"operation {name} is handled by no handler")
        clause = frame.clause(o)
        if clause is None:
            # the default clause: perform the operation outside the handler,
            # zero residual (Real(0)) and, backwards, a zero cotangent
            y, z = self.perform(o, v, frame.parent), ad.zeros(0)
        else:
            out = self.exec(clause.fwd, {clause.x: v}, frame.parent)
            y, z = out[0], out[1]
        y = cut_value(y, frame.level)
        frame.records.append(_Record(o, v, y, z, clause))
        return y

    def exec(self, p: Cmd, env: dict, frame: _Frame | None):
        kind = type(p)      # the common kinds first, as in eval_tm
        if kind is CLet:
            v = self.exec(p.bound, env, frame)
            return self.exec(p.body, {**env, p.var: v}, frame)
        d = _depth(frame)
        if kind is Ret:
            return eval_tm(p.term, env, d)
        match p:
            case Ret(m):
                return eval_tm(m, env, d)
            case Op(o, m):
                return self.perform(o, eval_tm(m, env, d), frame)
            case CLet(x, bound, body):
                v = self.exec(bound, env, frame)
                return self.exec(body, {**env, x: v}, frame)
            case RevHandle(arg, xs, body, h):
                return self.rev_handle(eval_tm(arg, env, d), xs, body, h, frame)
        raise TypeError(f"not a command: {p!r}")

    def rev_handle(self, v, xs, body: Cmd, h: Handler, outer: _Frame | None):
        frame = _Frame(h, outer, ad.fresh_level())
        inputs = tuple(cut_value(x, frame.level) for x in v)
        # forward: R, each operation running its forward clause outside H
        r = self.exec(body, dict(zip(xs, inputs)), frame)
        # the return clause gives the cotangent of the result
        seeds = [(r, self.exec(h.ret, {h.var: r}, outer))]
        # backward: from the last operation to the first
        for rec in reversed(frame.records):
            ybar = grad_value(seeds, rec.result, frame.level, ad.czeros)
            if rec.clause is None:
                xbar = zero_of(coar(rec.op, self.prog))
            else:
                c = rec.clause
                xbar = self.exec(c.bwd, {c.y: ybar, c.z: rec.residual}, outer)
            seeds.append((rec.arg, xbar))
        # the cotangents of the inputs, summed over all contributions
        return grad_value(seeds, inputs, frame.level, ad.czeros)


def _heap_override(prog: Program, heap: dict | None) -> dict[str, np.ndarray]:
    """The locations ``heap`` sets, checked as rh-eval checks the entries of
    a program's heap (in the order the verified engine sends them: declared
    locations in declaration order, then unknown names): a declared location
    (``unbound``), numbers (``number``), finite (``number``), as many as the
    location holds (``shape``)."""
    if not heap:
        return {}
    order = [d.name for d in prog.locs if d.name in heap] + [n for n in heap if prog.loc_decl(n) is None]
    given = {}
    for name in order:
        decl = prog.loc_decl(name)
        if decl is None:
            raise BadInput("unbound", f"unknown location {name} in the heap")
        a = heap_numbers(name, heap[name])
        if not np.all(np.isfinite(a)):
            raise BadInput("number", f"not a finite number in the heap entry for location {name}")
        if a.size != decl.size:
            raise BadInput("shape", f"location {name} holds {decl.size} numbers, the heap gives {a.size}")
        given[name] = a.copy()
    return given


@deep
def run_reference(prog: Program, heap: dict[str, np.ndarray] | None = None) -> Result:
    """Run ``prog`` (its heap, updated by ``heap``) in the reference
    semantics: the result value and the final heap, as numpy arrays (under
    :func:`revhandlers.rh.nesting.room`: the evaluation recurses on the syntax)."""
    check_program(prog)
    given = _heap_override(prog, heap)
    total = sum(d.size for d in prog.locs)
    if total > MAX_HEAP_SIZE:
        raise BadInput("shape", f"the locations hold {total} numbers in all, more than the "
                                f"{MAX_HEAP_SIZE} a heap may hold")
    try:
        state = {d.name: np.zeros(d.size) for d in prog.locs}
        for name, values in prog.heap:
            state[name] = np.array(values, dtype=float)
        state.update(given)
        machine = _Machine(prog, state)
        value = machine.exec(prog.main, {}, None)
    except MemoryError:
        raise RuntimeFailure("out-of-memory", "the evaluation ran out of memory") from None
    return Result(numpy_value(value), {d.name: state[d.name] for d in prog.locs}, None)
