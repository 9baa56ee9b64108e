"""The premises of the pullback language's progress and gradient theorems,
decided on a term: ``revhandlers pullback check --progress`` and
``--gradient``.

Each function is the Python twin of a Coq predicate (and of its boolean
decider, proved equivalent in ``theories/pullback/nz_decide.v``):

* :func:`fq`: the first-order fragment (``fq``, ``fo.v``);
* :func:`nzp`, :func:`zsp0`, :func:`nzs`, :func:`nzq`: no ``0`` and no sum
  outside the bodies of dual maps, none in a pullback's body, a ``0`` on the
  spine of dual maps (``fo_progress.v``);
* :func:`lastv`: a pullback body whose let series does not end in a
  constant (``fo_grad.v``);
* :func:`progress_rule`: the premise of ``fo_progress`` (``fq`` and
  ``nzq``) that a term fails, by its name, or ``None``;
* :func:`gradient_rule`: the premise of ``fo_query_ndual`` (a gradient
  query ``((Ω λy.P) · (λx.e*)) r0``, ``P`` first order (``fo_body``), ``nzp
  P``, ``lastv P``, ``r0`` a tuple of numbers) that a term fails, or
  ``None`` (``fo_gradb``, nz_decide.v).

A term these accept, once well typed, is covered by the theorem: it is a
value of the paper's grammar or steps, and so is every term it reduces to
(``fo_progress``, ``fo_safety``); a gradient query reduces to ``r*``
(``fo_query_ndual``, ``exec_fo_gradb_ndual``).  Terms outside them are not
claimed stuck: no progress theorem speaks of them yet
(docs/decisions-pullback.md, "Progress beyond the first-order fragment")."""

from __future__ import annotations

from ..depth import room
from ..errors import BadInput
from .syntax import App, Dual, Fun, Lam, Let, NDual, Pair, Pb, Plus, Proj, Real, Tm, Var, Zero, children
from .typecheck import is_lets

#: the rules :func:`progress_rule` and :func:`gradient_rule` name
PREMISE_RULES = ("fq", "nzq", "fo_grad_query", "fo_body", "nzp", "lastv")

_MESSAGES = {
    "fq": "outside the first-order fragment fq (theories/pullback/fo.v), where progress is proved "
          "(fo_progress): a λ other than a 1-form λx.D, a dual map or a pullback elsewhere than in a query, "
          "or a pullback's body with an abstraction, an application or a Jacobian",
    "nzq": "a 0 or a sum outside the body of a dual map, or in a pullback's body (theories/pullback/"
           "fo_progress.v, nzq): the paper's sums and 0 are formal, no rule reduces f(r + r) or a point "
           "with a 0 in it",
    "fo_grad_query": "not a gradient query ((pullback y P) (lam x r*)) r0 with r0 a tuple of numbers "
                     "(theories/pullback/fo_progress.v, fo_grad_query)",
    "fo_body": "the body of the gradient query is not first order, or a let in it is not a let series "
               "(theories/pullback/fo.v, fo_body)",
    "nzp": "a 0 or a sum in the body of the gradient query (theories/pullback/fo_progress.v, nzp)",
    "lastv": "the body of the gradient query ends in a constant (theories/pullback/fo_grad.v, lastv): "
             "the query may end in (λv.S)* · 0, which no rule reduces",
}


def nzp(t: Tm) -> bool:
    """``nzp``: no ``0`` and no sum anywhere."""
    if isinstance(t, (Zero, Plus)):
        return False
    return all(nzp(c) for c in children(t))


def zsp0(t: Tm) -> bool:
    """``zsp0``: a ``0`` on the spine of dual maps."""
    while isinstance(t, Dual):
        t = t.s2
    return isinstance(t, Zero)


def nzs(t: Tm) -> bool:
    """``nzs``: no ``0`` and no sum outside the bodies of dual maps (a ``0``
    on the spine of dual maps allowed under a λ and after a dual map), none
    in a pullback's body."""
    match t:
        case Zero() | Plus():
            return False
        case Lam(_, a) | Dual(_, _, a):
            return nzs(a) or zsp0(a)
        case Pb(_, p, w):
            return nzp(p) and nzs(w)
    return all(nzs(c) for c in children(t))


def nzq(t: Tm) -> bool:
    """``nzq``: :func:`nzs`, or a ``0`` on the spine of dual maps."""
    return nzs(t) or zsp0(t)


def lastv(t: Tm) -> bool:
    """``lastv``: the term a let series (or ``t`` itself) ends with is not a
    constant."""
    while isinstance(t, Let):
        t = t.e if t.l == Var(0) else t.l
    return not isinstance(t, Real)


def flat(t: Tm) -> bool:
    """``flat``: no binder but ``let``, no dual map, no pullback."""
    if isinstance(t, (Lam, Dual, Pb)):
        return False
    return all(flat(c) for c in children(t))


def fob(t: Tm) -> bool:
    """``fob``: first-order pullback bodies (no Jacobian, no application)."""
    match t:
        case Var() | Real() | Zero():
            return True
        case Proj(_, a) | Fun(_, a):
            return fob(a)
        case Pair(a, b) | Plus(a, b) | Let(a, b):
            return fob(a) and fob(b)
    return False


def wf_let(t: Tm) -> bool:
    """``wf_let``: every ``let`` is a let series."""
    if isinstance(t, Let) and not is_lets(t):
        return False
    return all(wf_let(c) for c in children(t))


def fo_body(t: Tm) -> bool:
    """``fo_body``: :func:`fob` and :func:`wf_let`."""
    return fob(t) and wf_let(t)


def dflat(t: Tm) -> bool:
    """``dflat``: a chain of dual maps with first-order bodies."""
    while isinstance(t, Dual):
        if not flat(t.s1):
            return False
        t = t.s2
    return flat(t)


def form(t: Tm) -> bool:
    """``form``: a 1-form ``λx.D``, or a pullback of a first-order body
    along one."""
    match t:
        case Lam(_, b):
            return dflat(b)
        case Pb(_, p, w):
            return fo_body(p) and form(w)
    return False


def fq(t: Tm) -> bool:
    """``fq``: the first-order fragment."""
    if flat(t) or form(t):
        return True
    match t:
        case App(w, v):
            return form(w) and flat(v)
        case Dual(_, s, q):
            return flat(s) and fq(q)
    return False


def is_num(t: Tm) -> bool:
    """``t`` is ``num_tm r0`` for a tuple of numbers ``r0`` (``num_of``)."""
    if isinstance(t, Pair):
        return is_num(t.s1) and is_num(t.s2)
    return isinstance(t, Real)


def progress_rule(t: Tm) -> str | None:
    """The premise of ``fo_progress`` other than typing that ``t`` fails
    (``fq``, then ``nzq``), or ``None``."""
    with room():
        if not fq(t):
            return "fq"
        if not nzq(t):
            return "nzq"
    return None


def gradient_rule(t: Tm) -> str | None:
    """The premise of ``fo_query_ndual`` other than typing that ``t`` fails
    (``fo_grad_query``, ``fo_body``, ``nzp``, ``lastv``; ``fo_gradb``), or
    ``None``."""
    with room():
        match t:
            case App(Pb(_, p, Lam(_, NDual())), v) if is_num(v):
                pass
            case _:
                return "fo_grad_query"
        if not fo_body(p):
            return "fo_body"
        if not nzp(p):
            return "nzp"
        if not lastv(p):
            return "lastv"
    return None


def require(t: Tm, rule: str | None, theorem: str) -> None:
    """Raise the bad input ``ill-formed`` (exit code 2) naming ``rule``, the
    premise of ``theorem`` that ``t`` fails; nothing when ``rule`` is
    ``None``."""
    if rule is not None:
        raise BadInput("ill-formed", f"outside the premises of {theorem}: {_MESSAGES[rule]}", rule)


__all__ = ["PREMISE_RULES", "nzp", "zsp0", "nzs", "nzq", "lastv", "flat", "fob", "wf_let", "fo_body", "dflat",
           "form", "fq", "is_num", "progress_rule", "gradient_rule", "require"]
