"""Type-directed generation of well-typed programs (Hypothesis strategies).

Every strategy is given the goal type and a size budget and only builds
what the typing rules accept (QuickChick style: no generate-and-filter), so
every program it draws is well typed: terms with nested ``let``, tuples,
projections, primitives and their reverse derivatives, sums and nested
``rd``; commands with operations, ``let`` and nested ``rev handle``, whose
handlers have explicit clauses (which may perform other operations, and
``Get``/``Put``) and default clauses; declared operations and locations of
random shapes; initial heaps.  One program in eight is a chain of
operations (:func:`chains`) whose backward clauses hand cotangents from
layer to layer, as in the paper's networks.  (Requires the ``test`` extra.)

An operation may be performed where a handler will take it: under a
``rev handle`` whose handler has a clause for it, or whose default clause
passes it on to one that does; ``Get`` and ``Put`` anywhere."""

from __future__ import annotations

from hypothesis import strategies as st

from .ast import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl, OpGet,
                  OpPut, OpUser, Prim, Program, Proj, Rd, Ret, RevHandle, TBase, TProd, Tm, Tuple, Ty,
                  Var)
from .prims import fsym_cod, fsym_dom

Ctx = tuple[tuple[str, Ty], ...]

#: steps allowed to a generated program (out of fuel: skipped, not compared)
FUEL = 100_000

values = st.floats(min_value=-2, max_value=2, allow_nan=False, allow_infinity=False)


def small_types(depth: int = 1) -> st.SearchStrategy[Ty]:
    base = st.sampled_from([1, 1, 2, 2, 3, 0]).map(TBase)   # Real(0) is rarer: its derivatives are trivial
    if depth <= 0:
        return base
    return st.one_of(base, base, st.lists(small_types(depth - 1), min_size=0, max_size=3)
                     .map(lambda xs: TProd(tuple(xs))))


def const(n: int) -> st.SearchStrategy[Tm]:
    return st.lists(values, min_size=n, max_size=n).map(lambda xs: Const(tuple(xs)))


def _prims_to(goal: Ty) -> list[FSym]:
    """Function symbols ``f`` (levels 0 to 2) with codomain ``goal``."""
    out = []
    if isinstance(goal, TBase):
        n = goal.n
        cands = [Prim("swish", (n,)), Prim("sub", (n,)), Prim("smul", (n,)), Prim("round", (n,)),
                 Prim("transpose", (1, n)), Prim("matmul", (n, 1, 1)), Prim("matmul", (n, 2, 1)),
                 Prim("pad", (1, 2, n)), Prim("upscale", (1, 2, n)),
                 Prim("relu", (n,)), Prim("sigmoid", (n,)), Prim("tanh", (n,)), Prim("mul", (n,))]
        if n == 1:
            cands += [Prim("sum", (2,)), Prim("sce", (2,))]
        if n % 2 == 0:
            cands.append(Prim("concat", (1, 1, n // 2)))
        if n >= 1:
            cands += [Prim("conv1d", (1, 1, n + 1, 2)), Prim("maxpool", (1, 2 * n, 2))]
        out += [FSym(0, p) for p in cands if p.name != "upscale" or n > 0]
        # rd[f] with dom f = Real(n) and rd[rd[f]] landing in Real(n) are products; rd[f] : Real(n) here
        out += [FSym(1, Prim("swish", (n,))), FSym(1, Prim("transpose", (1, n))),
                FSym(1, Prim("pad", (1, n, 2))), FSym(1, Prim("round", (n,))),
                FSym(1, Prim("tanh", (n,))), FSym(1, Prim("sum", (n,)))]
    elif isinstance(goal, TProd) and len(goal.items) == 2 and all(isinstance(t, TBase) for t in goal.items):
        a, b = goal.items[0].n, goal.items[1].n
        if a == b:
            out += [FSym(1, Prim("sub", (a,))), FSym(1, Prim("concat", (1, 1, a))),
                    FSym(2, Prim("swish", (a,))), FSym(2, Prim("transpose", (1, a))),
                    FSym(1, Prim("mul", (a,))), FSym(1, Prim("sce", (a,))), FSym(2, Prim("sigmoid", (a,)))]
        if a == 1:
            out.append(FSym(1, Prim("smul", (b,))))
        if a == b * 2 and b > 0:
            out.append(FSym(1, Prim("matmul", (2, b, 1))))
    return [f for f in out if fsym_cod(f) == goal]


def _lookup(ctx: Ctx, x: str) -> Ty | None:
    for y, t in ctx:
        if y == x:
            return t
    return None


def _fresh(ctx: Ctx) -> str:
    return f"v{len(ctx)}"


@st.composite
def terms(draw, ctx: Ctx, goal: Ty, size: int) -> Tm:
    options = ["var", "var", "intro"]
    if size > 0:
        options += ["let", "proj", "rd", "app", "app", "app"] + (["add"] if isinstance(goal, TBase) else [])
    names = [x for x, t in ctx if _lookup(ctx, x) == t and t == goal]
    while True:
        kind = draw(st.sampled_from(options))
        if kind == "var":
            if names:   # the innermost binder (e.g. the variable an rd differentiates) more often
                return Var(draw(st.sampled_from(names[:1] * 3 + names)))
            continue
        if kind == "intro":
            if isinstance(goal, TBase):
                return draw(const(goal.n))
            k = max(len(goal.items), 1)
            return Tuple(tuple(draw(terms(ctx, t, (size - 1) // k)) for t in goal.items))
        half = (size - 1) // 2
        if kind == "add":
            return Add(draw(terms(ctx, goal, half)), draw(terms(ctx, goal, half)))
        if kind == "app":
            fs = _prims_to(goal)
            if not fs:
                continue
            f = draw(st.sampled_from(fs))
            return App(f, draw(terms(ctx, fsym_dom(f), size - 1)))
        if kind == "let":
            b = draw(small_types(1))
            x = _fresh(ctx)
            return Let(x, draw(terms(ctx, b, half)), draw(terms(((x, b),) + ctx, goal, half)))
        if kind == "proj":
            others = draw(st.lists(small_types(0), max_size=2))
            i = draw(st.integers(0, len(others)))
            items = tuple(others[:i]) + (goal,) + tuple(others[i:])
            return Proj(i, draw(terms(ctx, TProd(items), size - 1)))
        if kind == "rd":
            # a body of the point's type can mention an enclosing rd's variable
            b = draw(st.one_of(st.just(goal), small_types(1)))
            x = _fresh(ctx)
            quarter = (size - 1) // 4
            cot = draw(terms(ctx, b, quarter))
            body = draw(terms(((x, goal),) + ctx, b, size - 1 - 2 * quarter))
            point = draw(terms(ctx, goal, quarter))
            return Rd(cot, x, body, point)


def _coar(o, prog_ops, prog_locs) -> Ty:
    match o:
        case OpUser(name):
            return next(d.coarity for d in prog_ops if d.name == name)
        case OpGet(_):
            return TBase(0)
        case OpPut(loc):
            return TBase(next(d.size for d in prog_locs if d.name == loc))


def _ar(o, prog_ops, prog_locs) -> Ty:
    match o:
        case OpUser(name):
            return next(d.arity for d in prog_ops if d.name == name)
        case OpGet(loc):
            return TBase(next(d.size for d in prog_locs if d.name == loc))
        case OpPut(_):
            return TBase(0)


@st.composite
def commands(draw, ctx: Ctx, goal: Ty, size: int, ops: tuple[OpDecl, ...], locs: tuple[LocDecl, ...],
             avail: frozenset[str]) -> Cmd:
    """A command of type ``goal``; the user operations in ``avail`` are the
    ones some enclosing handler takes."""
    options = ["ret", "op"]
    if size > 0:
        options += ["let", "let", "op"] + (["revhandle", "revhandle"] if isinstance(goal, TProd) else [])
    while True:
        kind = draw(st.sampled_from(options))
        if kind == "ret":
            return Ret(draw(terms(ctx, goal, max(size - 1, 0))))
        if kind == "op":
            cands = [OpUser(d.name) for d in ops if d.name in avail and d.arity == goal]
            cands += [OpGet(d.name) for d in locs if TBase(d.size) == goal]
            cands += [OpPut(d.name) for d in locs if goal == TBase(0)]
            if not cands:
                continue
            o = draw(st.sampled_from(cands))
            return Op(o, draw(terms(ctx, _coar(o, ops, locs), max(size - 1, 0))))
        half = (size - 1) // 2
        if kind == "let":
            b = draw(small_types(1))
            x = _fresh(ctx)
            return CLet(x, draw(commands(ctx, b, half, ops, locs, avail)),
                        draw(commands(((x, b),) + ctx, goal, half, ops, locs, avail)))
        if kind == "revhandle":
            arg = draw(terms(ctx, goal, half // 2))
            xs = tuple(f"x{i}" for i in range(len(goal.items)))
            inner = draw(small_types(1))
            explicit = draw(st.lists(st.sampled_from([OpUser(d.name) for d in ops] + [OpGet(d.name) for d in locs]
                                                     + [OpPut(d.name) for d in locs]) if (ops or locs) else st.nothing(),
                                     max_size=2, unique=True)) if (ops or locs) else []
            clauses = []
            for o in explicit:
                a, b = _coar(o, ops, locs), _ar(o, ops, locs)
                if a == b and draw(st.booleans()):
                    # a layer passing its cotangent straight through (as the STE does),
                    # so that cotangents flow along chains of operations
                    clauses.append(CCons(o, a, "x", Ret(Tuple((Var("x"), Var("x")))), "y", "z", Ret(Var("y"))))
                    continue
                d = draw(small_types(0))
                qf = draw(commands((("x", a),), TProd((b, d)), half // 3, ops, locs, avail))
                qb = draw(commands((("y", b), ("z", d)), a, half // 3, ops, locs, avail))
                clauses.append(CCons(o, d, "x", qf, "y", "z", qb))
            body_avail = avail | {o.name for o in explicit if isinstance(o, OpUser)}
            body = draw(commands(tuple(zip(xs, goal.items)), inner, half, ops, locs, frozenset(body_avail)))
            ret = draw(commands((("r", inner),), inner, half // 3, ops, locs, avail))
            return RevHandle(arg, xs, body, Handler("r", ret, tuple(clauses)))


nonzero = st.builds(lambda sign, m: sign * m, st.sampled_from([1.0, -1.0]), st.floats(0.25, 2.0))


def nonzero_const(n: int) -> st.SearchStrategy[Tm]:
    return st.lists(nonzero, min_size=n, max_size=n).map(lambda xs: Const(tuple(xs)))


@st.composite
def through(draw, ctx: Ctx, v: str, n: int, size: int) -> Tm:
    """A term of type ``Real(n)`` built around the variable ``v : Real(n)``
    by smooth maps whose derivative is not zero in general (swish, a scaling
    by a nonzero constant, a sum or difference with another term), so a
    cotangent of the term reaches ``v``."""
    m: Tm = Var(v)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["swish", "transpose", "smul", "add", "sub", "let"]))
        if kind == "swish":
            m = App(FSym(0, Prim("swish", (n,))), m)
        elif kind == "transpose":
            m = App(FSym(0, Prim("transpose", (1, n))), m)
        elif kind == "smul":
            m = App(FSym(0, Prim("smul", (n,))), Tuple((draw(nonzero_const(1)), m)))
        elif kind == "add":
            m = Add(m, draw(terms(ctx, TBase(n), size)))
        elif kind == "sub":
            m = App(FSym(0, Prim("sub", (n,))), Tuple((draw(terms(ctx, TBase(n), size)), m)))
        else:
            x = _fresh(ctx)
            m = Let(x, m, Add(Var(x), App(FSym(0, Prim("swish", (n,))), Var(x))))
    return m


@st.composite
def chains(draw, size: int) -> Program:
    """A layered network in miniature: a ``rev handle`` whose body performs
    ``Chain : Real(n) ▷ Real(n)`` two to four times, each link's argument a
    term of the previous link's result, and whose clause for ``Chain``
    either passes its cotangent through or computes it from ``y`` (and the
    residual), optionally writing to a location on the way back.  The
    cotangent of each link comes from the backward clause of the next one,
    so these programs fail if the backward clauses run in any order but the
    reverse, or if the contributions to a cotangent are not summed."""
    n = draw(st.integers(1, 3))
    a = TBase(n)
    chain = OpDecl("Chain", a, a)
    loc = LocDecl("l0", (draw(st.sampled_from([n, n, 1, 2, 3])),))
    heap = ((loc.name, tuple(draw(st.lists(values, min_size=loc.size, max_size=loc.size)))),)
    small = max(1, min(size, 3))
    inputs = [a] + draw(st.lists(small_types(0), max_size=1))
    xs = tuple(f"x{i}" for i in range(len(inputs)))
    ctx: Ctx = tuple(reversed(list(zip(xs, inputs))))
    links, prev = [], "x0"
    for _ in range(draw(st.integers(2, 4))):
        y = _fresh(ctx)
        links.append((y, Op(OpUser("Chain"), draw(through(ctx, prev, n, small)))))
        ctx, prev = ((y, a),) + ctx, y
    out = draw(st.sampled_from(["same", "dot", "pair"]))
    if out == "same":
        inner, result = a, draw(through(ctx, prev, n, small))
    elif out == "dot":
        inner = TBase(1)
        result = App(FSym(0, Prim("matmul", (1, n, 1))), Tuple((draw(nonzero_const(n)), draw(through(ctx, prev, n, small)))))
    else:
        other = draw(st.sampled_from([y for y, _ in links] + ["x0"]))
        inner = TProd((a, a))
        result = Tuple((draw(through(ctx, prev, n, small)), draw(through(ctx, other, n, small))))
    body: Cmd = Ret(result)
    for y, link in reversed(links):
        body = CLet(y, link, body)
    if draw(st.booleans()):
        clause = CCons(OpUser("Chain"), a, "x", Ret(Tuple((Var("x"), Var("x")))), "y", "z", Ret(Var("y")))
    else:
        d = draw(st.sampled_from([a, a, TBase(0), TBase(1)]))
        fctx, bctx = (("x", a),), (("y", a), ("z", d))
        qf = Ret(Tuple((draw(through(fctx, "x", n, small)),
                        draw(through(fctx, "x", n, small)) if d == a else draw(terms(fctx, d, small)))))
        back = draw(through(bctx, "y", n, small))
        if d == a and draw(st.booleans()):
            back = Add(back, draw(through(bctx, "z", n, small)))
        qb: Cmd = Ret(back)
        if draw(st.booleans()):
            # a backward clause with an effect: the order of the writes shows
            put = (through(bctx, "y", n, small) if loc.size == n else terms(bctx, TBase(loc.size), small))
            qb = CLet("u", Op(OpPut(loc.name), draw(put)), qb)
        clause = CCons(OpUser("Chain"), d, "x", qf, "y", "z", qb)
    cot = nonzero_const(n) if inner == a else nonzero_const(1) if inner == TBase(1) else \
        st.tuples(nonzero_const(n), nonzero_const(n)).map(Tuple)
    ret = Ret(Var("r") if draw(st.booleans()) else draw(cot))
    arg = Tuple(tuple(draw(const(t.n)) for t in inputs))
    main = RevHandle(arg, xs, body, Handler("r", ret, (clause,)))
    return Program(main, (chain,), (loc,), heap, fuel=FUEL)


@st.composite
def programs(draw, max_size: int = 10) -> Program:
    if draw(st.integers(0, 7)) == 0:
        return draw(chains(max_size))
    n_ops = draw(st.integers(0, 2))
    def op_decl(i):
        a = draw(small_types(1))
        return OpDecl(f"Op{i}", a, a if draw(st.booleans()) else draw(small_types(1)))

    ops = tuple(op_decl(i) for i in range(n_ops))
    n_locs = draw(st.integers(0, 2))
    locs = tuple(LocDecl(f"l{i}", (draw(st.integers(1, 3)),)) for i in range(n_locs))
    heap = tuple((d.name, tuple(draw(st.lists(values, min_size=d.size, max_size=d.size))))
                 for d in locs if draw(st.booleans()))
    size = draw(st.integers(1, max_size))
    if draw(st.integers(0, 3)) == 0:
        # a reverse derivative of a body that depends on its variable
        a = TBase(draw(st.integers(1, 3)))
        b = draw(st.one_of(st.just(a), small_types(1)))
        x = "v0"
        body = draw(terms(((x, a),), b, size + 2))
        main = Ret(Rd(draw(terms((), b, 1)), x, body, draw(terms((), a, 1))))
    else:
        goal = draw(small_types(1))
        main = draw(commands((), goal, size, ops, locs, frozenset()))
    # A few programs blow up under the RH rewriting (see "Cost of the
    # evaluator" in docs/decisions.md); a campaign skips those (fuel here,
    # and a time limit per program) instead of spending minutes on one.
    return Program(main, ops, locs, heap, fuel=FUEL)
