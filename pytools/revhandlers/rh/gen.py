"""Type-directed generation of well-typed programs.

Every generator is given the goal type and a size budget and only builds
what the typing rules accept (QuickChick style: no generate-and-filter), so
every program it draws is well typed: terms with nested ``let``, tuples,
projections, primitives and their reverse derivatives, sums and nested
``rd``; commands with operations, ``let`` and nested ``rev handle``, whose
handlers have explicit clauses (which may perform other operations, and
``Get``/``Put``) and default clauses; declared operations and locations of
random shapes; initial heaps.  One program in eight is a chain of
operations (:func:`gen_chain`) whose backward clauses hand cotangents from
layer to layer, as in the paper's networks.

An operation may be performed where a handler will take it: under a
``rev handle`` whose handler has a clause for it, or whose default clause
passes it on to one that does; ``Get`` and ``Put`` anywhere.

The generators take their decisions from a *source* of choices, so that
one description of the programs serves three ways:

* :class:`RandomSource`, a seeded ``random.Random``: the fast campaign of
  ``revhandlers fuzz`` (Csmith style: program ``i`` of seed ``s`` is
  :func:`seeded_program` ``(s, i)``, whatever else the campaign did);
* :class:`ReplaySource`, a recorded sequence of choices: a divergence is
  shrunk by shrinking that sequence (:func:`shrink_choices`, in the manner
  of Hypothesis's internal reduction); every sequence gives a well-typed
  program, since the choices only steer the type-directed generator;
* Hypothesis: :func:`programs` and :func:`chains` are strategies (they
  need the ``test`` extra), for property tests and the input fuzzer.
"""

from __future__ import annotations

import random

from .prims import VERSION, fsym_cod, fsym_dom, generated
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl, OpGet, OpPut, OpUser,
                     Prim, Program, Proj, Rd, Ret, RevHandle, TBase, Tm, TProd, Tuple, Ty, Var)

Ctx = tuple[tuple[str, Ty], ...]

#: steps allowed to a generated program (out of fuel: skipped, not compared)
FUEL = 10_000

#: the interval of the generated numbers
LO, HI = -2.0, 2.0
#: numbers drawn more often than the others (rounding ties, zeros, the bounds)
SPECIAL = (0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0)


# ------------------------------------------------------------ sources

class RandomSource:
    """Choices from a seeded ``random.Random``."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.random = self.rng.random

    def choice(self, seq):
        return seq[int(self.random() * len(seq))]

    def integer(self, lo: int, hi: int) -> int:
        return lo + int(self.random() * (hi - lo + 1))

    def boolean(self) -> bool:
        return self.random() < 0.5

    def real(self, lo: float, hi: float) -> float:
        r = self.random()
        if r < 0.2:
            s = SPECIAL[int(r * 50)]
            if lo <= s <= hi:
                return s
        return lo + (hi - lo) * self.random()


class Overrun(Exception):
    """A replayed sequence of choices ran out before the program was complete."""


class RecordingSource(RandomSource):
    """A :class:`RandomSource` that records its choices (for :class:`ReplaySource`)."""

    def __init__(self, seed):
        super().__init__(seed)
        self.choices: list = []

    def choice(self, seq):
        i = int(self.rng.random() * len(seq))
        self.choices.append(i)
        return seq[i]

    def integer(self, lo, hi):
        v = super().integer(lo, hi)
        self.choices.append(v - lo)
        return v

    def boolean(self):
        v = super().boolean()
        self.choices.append(int(v))
        return v

    def real(self, lo, hi):
        v = super().real(lo, hi)
        self.choices.append(float(v))
        return v


class ReplaySource:
    """Choices read from a recorded sequence, clamped to what each decision
    allows (a shrunk sequence need not fit the decisions it now meets)."""

    def __init__(self, choices, limit: int | None = None):
        self.choices = list(choices)
        self.i = 0

    def _next(self):
        if self.i >= len(self.choices):
            raise Overrun()
        c = self.choices[self.i]
        self.i += 1
        return c

    def choice(self, seq):
        return seq[min(max(int(self._next()), 0), len(seq) - 1)]

    def integer(self, lo, hi):
        return lo + min(max(int(self._next()), 0), hi - lo)

    def boolean(self):
        return bool(self._next())

    def real(self, lo, hi):
        return min(max(float(self._next()), lo), hi)


class HypothesisSource:
    """Choices drawn by Hypothesis (inside a composite strategy)."""

    def __init__(self, draw):
        from hypothesis import strategies as st  # optional: the test extra
        self.draw, self.st = draw, st

    def choice(self, seq):
        return self.draw(self.st.sampled_from(seq))

    def integer(self, lo, hi):
        return self.draw(self.st.integers(lo, hi))

    def boolean(self):
        return self.draw(self.st.booleans())

    def real(self, lo, hi):
        return self.draw(self.st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False))


# -------------------------------------------------------------- types

_BASE = (TBase(1), TBase(1), TBase(2), TBase(2), TBase(3), TBase(0))   # Real(0) is rarer: its derivatives are trivial


def small_type(src, depth: int = 1) -> Ty:
    if depth <= 0 or src.integer(0, 2) < 2:
        return src.choice(_BASE)
    return TProd(tuple(small_type(src, depth - 1) for _ in range(src.integer(0, 3))))


def const(src, n: int) -> Const:
    real = src.real
    return Const(tuple([real(LO, HI) for _ in range(n)]))


def nonzero_const(src, n: int) -> Const:
    boolean, real = src.boolean, src.real
    return Const(tuple([(1.0 if boolean() else -1.0) * real(0.25, 2.0) for _ in range(n)]))


# -------------------------------------------------------------- terms

_PRIMS_TO: dict = {}


def fsyms_to(goal: Ty) -> list[FSym]:
    """Function symbols ``f`` (levels 0 to 2) with codomain ``goal``."""
    key = (goal, VERSION[0])                    # the table may gain a primitive (prims.registered)
    if key in _PRIMS_TO:
        return _PRIMS_TO[key]
    out = []
    if isinstance(goal, TBase):
        n = goal.n
        out += [FSym(0, p) for p in generated(n)]      # every primitive's instances, from its table entry
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
    out = [(f, fsym_dom(f)) for f in out if fsym_cod(f) == goal]
    _PRIMS_TO[key] = out
    return out


def _fresh(ctx: Ctx) -> str:
    return f"v{len(ctx)}"


#: ``rd`` bodies nested in a generated term, at most (two: an ``rd`` in the
#: body of another, as the R rewriting's R-Rd case needs)
MAX_RD_NESTING = 2

_TERM_SMALL = ("var", "var", "intro")
_TERM_BASE = _TERM_SMALL + ("let", "proj", "rd", "app", "app", "app", "add")
_TERM_PROD = _TERM_SMALL + ("let", "proj", "rd", "app", "app", "app")
_TERM_BASE_NO_RD = tuple(o for o in _TERM_BASE if o != "rd")
_TERM_PROD_NO_RD = tuple(o for o in _TERM_PROD if o != "rd")


def gen_term(src, ctx: Ctx, goal: Ty, size: int, rds: int = 0) -> Tm:
    """A term of type ``goal`` in ``ctx``; ``rds`` is how many ``rd`` bodies
    enclose it (at most :data:`MAX_RD_NESTING`: the R rewriting of nested
    ``rd`` grows exponentially with their depth)."""
    base = isinstance(goal, TBase)
    if size <= 0:
        options = _TERM_SMALL
    elif rds >= MAX_RD_NESTING or (rds and not base):
        # and an rd nested in another has a point of type Real(n)
        options = _TERM_BASE_NO_RD if base else _TERM_PROD_NO_RD
    else:
        options = _TERM_BASE if base else _TERM_PROD
    names = None                   # the visible binders of type goal, innermost first (found when needed)
    choice = src.choice
    while True:
        kind = choice(options)
        if kind == "var":
            if names is None:
                names, seen = [], set()
                for x, t in ctx:
                    if x not in seen:
                        seen.add(x)
                        if t == goal:
                            names.append(x)
            if names:   # the innermost binder (e.g. the variable an rd differentiates) more often
                return Var(choice(names[:1] * 3 + names))
            continue
        if kind == "intro":
            if base:
                return const(src, goal.n)
            k = max(len(goal.items), 1)
            return Tuple(tuple([gen_term(src, ctx, t, (size - 1) // k, rds) for t in goal.items]))
        half = (size - 1) // 2
        if kind == "add":
            return Add(gen_term(src, ctx, goal, half, rds), gen_term(src, ctx, goal, half, rds))
        if kind == "app":
            fs = fsyms_to(goal)
            if not fs:
                continue
            f, dom = choice(fs)
            return App(f, gen_term(src, ctx, dom, size - 1, rds))
        if kind == "let":
            b = small_type(src, 1)
            x = _fresh(ctx)
            return Let(x, gen_term(src, ctx, b, half, rds), gen_term(src, ((x, b),) + ctx, goal, half, rds))
        if kind == "proj":
            others = [small_type(src, 0) for _ in range(src.integer(0, 2))]
            i = src.integer(0, len(others))
            items = tuple(others[:i]) + (goal,) + tuple(others[i:])
            return Proj(i, gen_term(src, ctx, TProd(items), size - 1, rds))
        if kind == "rd":
            # a body of the point's type can mention an enclosing rd's variable
            b = goal if src.boolean() else small_type(src, 1 - min(rds, 1))
            x = _fresh(ctx)
            quarter = (size - 1) // 4
            cot = gen_term(src, ctx, b, quarter, rds)
            body = gen_term(src, ((x, goal),) + ctx, b, size - 1 - 2 * quarter, rds + 1)
            point = gen_term(src, ctx, goal, quarter, rds)
            return Rd(cot, x, body, point)


# ----------------------------------------------------------- commands

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


def gen_command(src, ctx: Ctx, goal: Ty, size: int, ops: tuple[OpDecl, ...], locs: tuple[LocDecl, ...],
                avail: frozenset[str], rds: int = 0) -> Cmd:
    """A command of type ``goal``; the user operations in ``avail`` are the
    ones some enclosing handler takes; ``rds`` differentiations enclose it
    (a ``rev handle`` body counts as an ``rd`` body for :data:`MAX_RD_NESTING`)."""
    options = ["ret", "op"]
    if size > 0:
        options += ["let", "let", "op"] + (["revhandle", "revhandle"] if isinstance(goal, TProd) else [])
    while True:
        kind = src.choice(options)
        if kind == "ret":
            return Ret(gen_term(src, ctx, goal, max(size - 1, 0), rds))
        if kind == "op":
            cands = [OpUser(d.name) for d in ops if d.name in avail and d.arity == goal]
            cands += [OpGet(d.name) for d in locs if type(goal) is TBase and d.size == goal.n]
            cands += [OpPut(d.name) for d in locs if goal == TBase(0)]
            if not cands:
                continue
            o = src.choice(cands)
            return Op(o, gen_term(src, ctx, _coar(o, ops, locs), max(size - 1, 0), rds))
        half = (size - 1) // 2
        if kind == "let":
            b = small_type(src, 1)
            x = _fresh(ctx)
            return CLet(x, gen_command(src, ctx, b, half, ops, locs, avail, rds),
                        gen_command(src, ((x, b),) + ctx, goal, half, ops, locs, avail, rds))
        if kind == "revhandle":
            arg = gen_term(src, ctx, goal, half // 2, rds)
            xs = tuple(f"x{i}" for i in range(len(goal.items)))
            inner = small_type(src, 1)
            pool = [OpUser(d.name) for d in ops] + [OpGet(d.name) for d in locs] + [OpPut(d.name) for d in locs]
            explicit = []
            for _ in range(src.integer(0, min(2, len(pool)))):
                explicit.append(pool.pop(src.integer(0, len(pool) - 1)))
            clauses = []
            for o in explicit:
                a, b = _coar(o, ops, locs), _ar(o, ops, locs)
                if a == b and src.boolean():
                    # a layer passing its cotangent straight through (as the STE does),
                    # so that cotangents flow along chains of operations
                    clauses.append(CCons(o, a, "x", Ret(Tuple((Var("x"), Var("x")))), "y", "z", Ret(Var("y"))))
                    continue
                d = small_type(src, 0)
                qf = gen_command(src, (("x", a),), TProd((b, d)), half // 3, ops, locs, avail, rds)
                qb = gen_command(src, (("y", b), ("z", d)), a, half // 3, ops, locs, avail, rds)
                clauses.append(CCons(o, d, "x", qf, "y", "z", qb))
            body_avail = avail | {o.name for o in explicit if isinstance(o, OpUser)}
            body = gen_command(src, tuple(zip(xs, goal.items)), inner, half, ops, locs, frozenset(body_avail), rds + 1)
            ret = gen_command(src, (("r", inner),), inner, half // 3, ops, locs, avail, rds)
            return RevHandle(arg, xs, body, Handler("r", ret, tuple(clauses)))


# ------------------------------------------------------------- chains

def gen_through(src, ctx: Ctx, v: str, n: int, size: int, rds: int = 0) -> Tm:
    """A term of type ``Real(n)`` built around the variable ``v : Real(n)``
    by smooth maps whose derivative is not zero in general (swish, a scaling
    by a nonzero constant, a sum or difference with another term), so a
    cotangent of the term reaches ``v``; ``rds`` as for :func:`gen_term`."""
    m: Tm = Var(v)
    for _ in range(src.integer(0, 2)):
        kind = src.choice(("swish", "transpose", "smul", "add", "sub", "let"))
        if kind == "swish":
            m = App(FSym(0, Prim("swish", (n,))), m)
        elif kind == "transpose":
            m = App(FSym(0, Prim("transpose", (1, n))), m)
        elif kind == "smul":
            m = App(FSym(0, Prim("smul", (n,))), Tuple((nonzero_const(src, 1), m)))
        elif kind == "add":
            m = Add(m, gen_term(src, ctx, TBase(n), size, rds))
        elif kind == "sub":
            m = App(FSym(0, Prim("sub", (n,))), Tuple((gen_term(src, ctx, TBase(n), size, rds), m)))
        else:
            x = _fresh(ctx)
            m = Let(x, m, Add(Var(x), App(FSym(0, Prim("swish", (n,))), Var(x))))
    return m


def gen_chain(src, size: int) -> Program:
    """A layered network in miniature: a ``rev handle`` whose body performs
    ``Chain : Real(n) ▷ Real(n)`` two to four times, each link's argument a
    term of the previous link's result, and whose clause for ``Chain``
    either passes its cotangent through or computes it from ``y`` (and the
    residual), optionally writing to a location on the way back.  The
    cotangent of each link comes from the backward clause of the next one,
    so these programs fail if the backward clauses run in any order but the
    reverse, or if the contributions to a cotangent are not summed."""
    n = src.integer(1, 3)
    a = TBase(n)
    chain = OpDecl("Chain", a, a)
    loc = LocDecl("l0", (src.choice((n, n, 1, 2, 3)),))
    heap = ((loc.name, tuple(src.real(LO, HI) for _ in range(loc.size))),)
    small = max(1, min(size, 3))
    inputs = [a] + [small_type(src, 0) for _ in range(src.integer(0, 1))]
    xs = tuple(f"x{i}" for i in range(len(inputs)))
    ctx: Ctx = tuple(reversed(list(zip(xs, inputs))))
    links, prev = [], "x0"
    for _ in range(src.integer(2, 4)):
        y = _fresh(ctx)
        links.append((y, Op(OpUser("Chain"), gen_through(src, ctx, prev, n, small, 1))))
        ctx, prev = ((y, a),) + ctx, y
    out = src.choice(("same", "dot", "pair"))
    if out == "same":
        inner, result = a, gen_through(src, ctx, prev, n, small, 1)
    elif out == "dot":
        inner = TBase(1)
        result = App(FSym(0, Prim("matmul", (1, n, 1))), Tuple((nonzero_const(src, n), gen_through(src, ctx, prev, n, small, 1))))
    else:
        other = src.choice([y for y, _ in links] + ["x0"])
        inner = TProd((a, a))
        result = Tuple((gen_through(src, ctx, prev, n, small, 1), gen_through(src, ctx, other, n, small, 1)))
    body: Cmd = Ret(result)
    for y, link in reversed(links):
        body = CLet(y, link, body)
    if src.boolean():
        clause = CCons(OpUser("Chain"), a, "x", Ret(Tuple((Var("x"), Var("x")))), "y", "z", Ret(Var("y")))
    else:
        d = src.choice((a, a, TBase(0), TBase(1)))
        fctx, bctx = (("x", a),), (("y", a), ("z", d))
        first = gen_through(src, fctx, "x", n, small)
        qf = Ret(Tuple((first, gen_through(src, fctx, "x", n, small) if d == a else gen_term(src, fctx, d, small))))
        back = gen_through(src, bctx, "y", n, small)
        if d == a and src.boolean():
            back = Add(back, gen_through(src, bctx, "z", n, small))
        qb: Cmd = Ret(back)
        if src.boolean():
            # a backward clause with an effect: the order of the writes shows
            put = (gen_through(src, bctx, "y", n, small) if loc.size == n
                   else gen_term(src, bctx, TBase(loc.size), small))
            qb = CLet("u", Op(OpPut(loc.name), put), qb)
        clause = CCons(OpUser("Chain"), d, "x", qf, "y", "z", qb)
    if src.boolean():
        ret = Ret(Var("r"))
    elif inner == a:
        ret = Ret(nonzero_const(src, n))
    elif inner == TBase(1):
        ret = Ret(nonzero_const(src, 1))
    else:
        ret = Ret(Tuple((nonzero_const(src, n), nonzero_const(src, n))))
    arg = Tuple(tuple(const(src, t.n) for t in inputs))
    main = RevHandle(arg, xs, body, Handler("r", ret, (clause,)))
    return Program(main, (chain,), (loc,), heap, fuel=FUEL)


# ----------------------------------------------------------- programs

def gen_program(src, max_size: int = 10) -> Program:
    if src.integer(0, 7) == 0:
        return gen_chain(src, max_size)
    ops = []
    for i in range(src.integer(0, 2)):
        a = small_type(src, 1)
        ops.append(OpDecl(f"Op{i}", a, a if src.boolean() else small_type(src, 1)))
    ops = tuple(ops)
    locs = tuple(LocDecl(f"l{i}", (src.integer(1, 3),)) for i in range(src.integer(0, 2)))
    heap = tuple((d.name, tuple(src.real(LO, HI) for _ in range(d.size))) for d in locs if src.boolean())
    size = src.integer(1, max_size)
    if src.integer(0, 3) == 0:
        # a reverse derivative of a body that depends on its variable
        a = TBase(src.integer(1, 3))
        b = a if src.boolean() else small_type(src, 1)
        x = "v0"
        body = gen_term(src, ((x, a),), b, size + 2, 1)
        main = Ret(Rd(gen_term(src, (), b, 1), x, body, gen_term(src, (), a, 1)))
    else:
        goal = small_type(src, 1)
        main = gen_command(src, (), goal, size, ops, locs, frozenset())
    # A few programs blow up under the RH rewriting (see "Cost of the
    # evaluator" in docs/decisions.md); a campaign skips those (fuel here,
    # and a time limit per program) instead of spending minutes on one.
    return Program(main, ops, locs, heap, fuel=FUEL)


def program_seed(seed: int, index: int) -> int:
    """The ``random.Random`` seed of program ``index`` of a campaign's ``seed``."""
    return (seed << 40) ^ index


def seeded_program(seed: int, index: int, max_size: int = 10) -> Program:
    """Program ``index`` of the campaign of ``seed``: the same on every machine."""
    return gen_program(RandomSource(program_seed(seed, index)), max_size)


def recorded_program(seed: int, index: int, max_size: int = 10) -> tuple[Program, list]:
    """:func:`seeded_program` and the choices that made it."""
    src = RecordingSource(program_seed(seed, index))
    return gen_program(src, max_size), src.choices


def replayed_program(choices, max_size: int = 10) -> Program:
    """The program a sequence of choices makes (raises :class:`Overrun`)."""
    return gen_program(ReplaySource(choices), max_size)


# ---------------------------------------------------------- shrinking

def _simpler(c):
    """Candidate replacements of one choice, simplest first."""
    if isinstance(c, float):
        out = [0.0, 1.0, -1.0, float(round(c)), round(c, 1)]
        return [x for x in out if abs(x) < abs(c) or (abs(x) == abs(c) and x > c) or
                (x != c and len(repr(x)) < len(repr(c)))]
    return [v for v in (0, c // 2, c - 1) if 0 <= v < c]


def _key(choices):
    return (len(choices), [abs(c) if isinstance(c, float) else c for c in choices])


def shrink_choices(choices: list, fails, budget: int = 2000) -> list:
    """A smaller sequence of choices on which ``fails`` still holds
    (``fails(choices) -> bool``; it must catch :class:`Overrun` itself or
    let :func:`replayed_program` raise it, which counts as not failing):
    greedy deletion of runs of choices, then simpler values for each one,
    until neither helps or ``budget`` candidates were tried."""
    best = list(choices)
    tried = 0

    def attempt(cand) -> bool:
        nonlocal tried, best
        if tried >= budget or _key(cand) >= _key(best):
            return False
        tried += 1
        try:
            ok = fails(cand)
        except Overrun:
            ok = False
        if ok:
            best = cand
        return ok

    improved = True
    while improved and tried < budget:
        improved = False
        for k in (32, 16, 8, 4, 2, 1):
            i = len(best) - k
            while i >= 0 and tried < budget:
                if attempt(best[:i] + best[i + k:]):
                    improved = True
                i = min(i, len(best) - k) - 1
        for i in range(len(best)):
            if i >= len(best) or tried >= budget:
                break
            for v in _simpler(best[i]):
                if attempt(best[:i] + [v] + best[i + 1:]):
                    improved = True
                    break
    return best


# ---------------------------------------------------- Hypothesis strategies

def _composite(fn):
    """A Hypothesis strategy drawing ``fn(source, *args)``."""
    from hypothesis import strategies as st  # optional: the test extra
    return st.composite(lambda draw, *args: fn(HypothesisSource(draw), *args))


def programs(max_size: int = 10):
    """Hypothesis strategy: :func:`gen_program`."""
    return _composite(gen_program)(max_size)


def chains(size: int):
    """Hypothesis strategy: :func:`gen_chain`."""
    return _composite(gen_chain)(size)


def terms(ctx: Ctx, goal: Ty, size: int):
    """Hypothesis strategy: :func:`gen_term`."""
    return _composite(gen_term)(ctx, goal, size)
