"""The type checker (revhandlers.pullback.typecheck) against the typing
rules of theories/pullback/typing.v: the rule names are the Coq
constructors', and every rule has hand-built examples it accepts and
rejects (with the rule named in the error), including the linearity side
condition of (dual) with ``lin`` of syntax.v, ``0`` at every type, and
erased binder types."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from revhandlers.errors import BadInput, TypeCheckError
from revhandlers.pullback import gen
from revhandlers.pullback.surface import parse, parse_type
from revhandlers.pullback.syntax import (NP, NR, NZ, App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, R,
                                         Real, Rn, TArr, TDual, TOmega, TProd, Var, Zero)
from revhandlers.pullback.typecheck import (IS0, RULES, TVar, ext, ground, has_type, lift, lin, nocc, show, type_of,
                                            well_typed)

ROOT = Path(__file__).resolve().parents[2]
RANDOM = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))


def test_rule_names_are_coqs():
    """RULES are the constructors of ``typed``, in typing.v's order, and
    every one is cited in the checker."""
    text = (ROOT / "theories" / "pullback" / "typing.v").read_text()
    body = re.search(r"Inductive typed :.*?:=(.*?)\.\n\n", text, re.S).group(1)
    assert re.findall(r"^\|\s*(typed_\w+)", body, re.M) == list(RULES)
    source = (ROOT / "pytools" / "revhandlers" / "pullback" / "typecheck.py").read_text()
    for rule in RULES:
        assert source.count(rule) >= 2, rule


def ty(text: str):
    return parse_type(text)


def accepts(text: str, expected: str, ctx: tuple = ()) -> None:
    names = tuple(n for n, _ in ctx)
    t = parse(text, names)
    got = type_of(t, tuple(ty(s) for _, s in ctx))
    assert got == ty(expected), f"{text}: {show(got)}"
    has_type(t, ty(expected), tuple(ty(s) for _, s in ctx))


def refused(rule: str, check, *args, message: str = "") -> None:
    """``check(*args)`` (``type_of`` or ``has_type``) raises the type error
    of ``rule``, with ``message`` in its text."""
    with pytest.raises(TypeCheckError) as e:
        check(*args)
    assert e.value.kind == "type" and e.value.rule == rule and message in e.value.message, e.value


def rejects(text: str, rule: str, message: str = "", ctx: tuple = ()) -> None:
    names = tuple(n for n, _ in ctx)
    refused(rule, type_of, parse(text, names), tuple(ty(s) for _, s in ctx), message=message)


# ------------------------------------------------------------ rule by rule

def test_typed_zero():
    """(zero) Γ ⊢ 0 : σ for every σ: checked at any type, a type variable
    when inferred alone."""
    for s in ("R", "R^3", "R ⇒ R*", "(R^2)*", "Ω R × (R ⇒ R)"):
        has_type(Zero(), ty(s))
        has_type(Pair(Zero(), Real(1.0)), TProd(ty(s), R))
    assert isinstance(type_of(Zero()), TVar) and not ground(type_of(Zero()))
    accepts("⟨zero, 1⟩ + ⟨⟨2, 3⟩, zero⟩", "R^2 × R")
    accepts("(λf:R ⇒ R. f 1) zero", "R")
    accepts("π1(zero) + 1", "R")
    accepts("zero 1 + 2", "R")


def test_typed_plus():
    accepts("1 + 2 + zero", "R")
    accepts("⟨1, 2⟩ + ⟨3, 4⟩", "R^2")
    accepts("(λx:R. x) + (λx:R. sin(x))", "R ⇒ R")
    accepts("[1]* + (λv:R. v)* · [2]*", "R*")
    rejects("1 + ⟨1, 2⟩", "typed_plus", "the right operand of +")
    rejects("(λx:R. x) + 1", "typed_plus")


def test_typed_var():
    accepts("x", "R ⇒ R", ctx=(("x", "R ⇒ R"),))
    accepts("λy:R. x", "R ⇒ R^2", ctx=(("x", "R^2"),))
    refused("typed_var", type_of, Var(0), message="not bound")
    refused("typed_var", type_of, Lam(R, Var(1)), (R,) * 0)


def test_typed_lam():
    accepts("λx:R. x", "R ⇒ R")
    accepts("λf:R ⇒ R. λx:R. f (f x)", "(R ⇒ R) ⇒ R ⇒ R")
    accepts("λx:?. sin(x)", "R ⇒ R")                       # an erased type is inferred
    refused("typed_lam", has_type, parse("λx:R. x"), ty("R^2 ⇒ R^2"))
    refused("typed_lam", has_type, parse("λx:R. x"), R)


def test_typed_app():
    accepts("(λx:R. ⟨x, x⟩) 3", "R^2")
    accepts("(λf:R ⇒ R. f) (λx:R. x) 2", "R")
    rejects("1 2", "typed_app", "the function has type R, not an arrow")
    rejects("(λx:R. x) ⟨1, 2⟩", "typed_app", "the argument has type R^2, expected R")
    rejects("λx:?. x x", "typed_app")                     # no infinite type


def test_typed_proj():
    accepts("π1(⟨1, λx:R. x⟩)", "R")
    accepts("π2(⟨1, λx:R. x⟩)", "R ⇒ R")
    rejects("π1(1)", "typed_proj1", "π1 of a term of type R, not a product")
    rejects("π2(λx:R. x)", "typed_proj2")


def test_typed_pair():
    accepts("⟨1, ⟨2, 3⟩⟩", "R × R^2")
    accepts("⟨1, 2, 3⟩", "R^3")
    refused("typed_pair", has_type, parse("⟨1, 2⟩"), ty("R ⇒ R"))


def test_typed_real():
    accepts("-2.5", "R")
    refused("typed_real", has_type, Real(1.0), ty("R^2"))


def test_typed_fun():
    """f : R^n → R^m: add, mul on R^2; neg, sin, cos, exp, sq on R."""
    for f in ("add", "mul"):
        accepts(f"{f}(1, 2)", "R")
        rejects(f"{f}(1)", "typed_fun", f"the argument of {f} has type R, expected R^2")
    for f in ("neg", "sin", "cos", "exp", "sq"):
        accepts(f"{f}(1)", "R")
        rejects(f"{f}(⟨1, 2⟩)", "typed_fun", f"the argument of {f} has type R^2, expected R")
    with pytest.raises(BadInput) as e:
        type_of(Fun("g", Real(1.0)))
    assert e.value.kind == "unbound"


def test_typed_jac():
    """J f · S : R^n ⇒ R^m (the base point is the argument)."""
    accepts("J mul · ⟨1, zero⟩", "R^2 ⇒ R")
    accepts("(J sin · 1) 2", "R")
    rejects("J mul · 1", "typed_jac", "the direction of J mul has type R, expected R^2")
    rejects("(J sin · 1) ⟨1, 2⟩", "typed_app")


def test_typed_ndual():
    """r* : σ* for a numeric tuple r of shape σ; NZ has every shape."""
    accepts("[660, 528]*", "(R^2)*")
    accepts("[1]*", "R*")
    accepts("⟨⟨1, 2⟩, 3⟩*", "(R^3)*")
    has_type(NDual(NZ()), ty("(R^2 × R)*"))
    has_type(NDual(NP(NZ(), NR(1.0))), ty("(R^3)*"))
    refused("typed_ndual", has_type, NDual(NP(NR(1.0), NR(2.0))), ty("R*"))
    refused("typed_ndual", has_type, NDual(NR(1.0)), R)


def test_typed_dual():
    """(dual) σ :: Γ ⊢ S1 : τ, Γ ⊢ S2 : τ*, x ∈ lin(S1) ⟹ Γ ⊢ (λx:σ. S1)* · S2 : σ*."""
    accepts("(λv:R^2. π1(v))* · [1]*", "(R^2)*")
    accepts("(λv:R^2. ⟨v, zero⟩)* · ⟨⟨zero, zero⟩, ⟨660, 528⟩⟩*", "(R^2)*")  # τ from the functional
    accepts("(λv:R. (J sin · v) 2)* · [1]*", "R*")
    accepts("(λv:R. v + v)* · [1]*", "R*")
    accepts("(λv:R. zero)* · [1]*", "R*")                                    # lin(0) is every variable
    accepts("(λv:R*. (λw:R. w)* · v)* · zero", "R**")                       # linear in the functional
    accepts("λω:R*. (λv:R. v)* · ω", "R* ⇒ R*")
    # linearity violations
    rejects("(λv:R. 1)* · [1]*", "typed_dual", "not linear in its bound variable")
    rejects("(λv:R. sin(v))* · [1]*", "typed_dual", "not linear")
    rejects("(λv:R. mul(v, v))* · [1]*", "typed_dual", "not linear")
    rejects("(λv:R. ⟨v, 1⟩)* · ⟨1, 2⟩*", "typed_dual", "not linear")      # a pair is linear only jointly
    rejects("(λv:R. (J sin · 1) v)* · [1]*", "typed_dual", "not linear")   # v as the base point
    rejects("(λv:R. (λx:R. x) v)* · [1]*", "typed_dual", "not linear")     # lin(S P) needs v ∉ FV(P)
    rejects("(λv:R. let z = sin(v) in z)* · [1]*", "typed_dual", "not linear")
    rejects("(λv:R. ((Ω λy:R. y) · (λx:R. [1]*)) v)* · zero", "typed_dual", "not linear")   # lin(pullback) = ∅
    # types
    rejects("(λv:R^2. v)* · [1]*", "typed_dual", "the functional has type R*, expected (R^2)*")
    rejects("(λv:R. v)* · 1", "typed_dual", "the functional has type R, not a dual type")
    refused("typed_dual", has_type, parse("(λv:R. v)* · [1]*"), R)


def test_typed_pb():
    """(pb) σ :: Γ ⊢ P : τ, Γ ⊢ S : Ω τ ⟹ Γ ⊢ (Ω λx:σ. P) · S : Ω σ."""
    accepts("(Ω λy:R^2. mul(y)) · (λx:R. [1]*)", "Ω R^2")
    accepts("((Ω λy:R^2. mul(y)) · (λx:R. [1]*)) ⟨1, 3⟩", "(R^2)*")
    accepts("(Ω λy:R. ⟨y, zero⟩) · (Ω λz:R^2. π1(z)) · (λx:R. [1]*)", "Ω R")
    accepts("(Ω λy:R. sin(y)) · zero", "Ω R")
    accepts("(Ω λy:R. zero) · (λx:R^2. [1, 2]*)", "Ω R")        # τ from the 1-form
    accepts("(Ω λl:(R ⇒ R ⇒ R) ⇒ R ⇒ R. l (λa:R. λb:R. a + b) zero) · (λx:R. [1]*)",
            "Ω ((R ⇒ R ⇒ R) ⇒ R ⇒ R)")
    accepts("λω:Ω R. (Ω λy:R. sq(y)) · ω", "Ω R ⇒ Ω R")
    rejects("(Ω λy:R. y) · (λx:R. [1, 2]*)", "typed_pb", "the 1-form has type R ⇒ (R^2)*, expected Ω R")
    rejects("(Ω λy:R. y) · 1", "typed_pb", "not Ω τ")
    rejects("(Ω λy:R^2. y) · (λx:R. [1]*)", "typed_pb")
    refused("typed_pb", has_type, parse("(Ω λy:R. y) · (λx:R. [1]*)"), ty("Ω R^2"))


def test_typed_let():
    accepts("let z = ⟨1, 2⟩ in π2(z)", "R")
    accepts("let f = λx:R. sq(x) in f (f 2)", "R")
    rejects("let z = 1 in π1(z)", "typed_proj1")
    # one type per let-bound variable, even when it comes from a 0
    rejects("let z = zero in ⟨z + 1, π1(z)⟩", "typed_proj1")
    accepts("let z = zero in ⟨z + 1, sin(z)⟩", "R^2")


def test_the_papers_terms():
    accepts("((Ω λ⟨x, y⟩:R^2. sq(mul(add(x, 1), add(mul(2, x), sq(y))))) · (λz:R. [1]*)) ⟨1, 3⟩", "(R^2)*")
    accepts("((Ω λy:(R ⇒ R) × R. π1(y) π2(y)) · (λx:R. [1]*)) ⟨λz:R. sq(z), 3⟩", "((R ⇒ R) × R)*")
    for name in ("paper_f", "example_3_3", "example_3_9", "sum_gradient"):
        t = parse((ROOT / "examples" / "pullback" / f"{name}.pb").read_text())
        assert type_of(t) == TDual(Rn(2))


# ------------------------------------------------------------ lin and nocc (syntax.v)

def test_lin_of_the_spec():
    """lin(x z (y z)) = {x} (spec §2.2), with x, y, z the indices 2, 1, 0."""
    t = App(App(Var(2), Var(0)), App(Var(1), Var(0)))
    assert [lin(frozenset({n}), t) for n in (2, 1, 0)] == [True, False, False]


def test_lin_clauses():
    x = frozenset({0})
    assert lin(x, Var(0)) and not lin(x, Var(1))
    assert lin(x, Lam(R, Var(1))) and not lin(x, Lam(R, Var(0)))
    assert lin(x, Proj(1, Var(0))) and lin(x, Jac("sin", Var(0)))
    assert lin(x, Pair(Var(0), Zero())) and not lin(x, Pair(Var(0), Real(1.0)))
    assert lin(x, Plus(Var(0), Var(0))) and lin(x, Zero())
    assert not any(lin(x, t) for t in (Real(1.0), Fun("sin", Var(0)), Pb(R, Var(0), Var(0)), NDual(NR(1.0))))
    # (λy.S1)* · S2: linear through S1 (S2 free of x) or through S2 (S1 free of x)
    assert lin(x, Dual(R, Var(1), NDual(NR(1.0))))
    assert lin(x, Dual(R, Var(0), Var(0)))
    assert not lin(x, Dual(R, Var(1), Var(0)))
    # let z = E in L: E linear and L jointly linear in {x, z}, or E free of x
    assert lin(x, Let(Var(0), Plus(Var(0), Var(1))))
    assert lin(x, Let(Real(1.0), App(Jac("sin", Var(1)), Var(0))))
    assert not lin(x, Let(Fun("sin", Var(0)), Var(0)))
    # joint linearity: x + x is linear in x, variable by variable its let form is not
    anf = Let(Var(0), Let(Var(1), Plus(Var(1), Var(0))))
    assert lin(x, anf)
    assert lift(x) == frozenset({1}) and ext(x) == frozenset({0, 1}) and IS0 == x
    assert nocc(x, Var(1)) and not nocc(x, Lam(R, Var(1))) and nocc(x, Lam(R, Var(0)))


# ------------------------------------------------------------ generated terms

@RANDOM
@given(gen.typed_terms())
def test_generated_terms_are_well_typed(t):
    assert well_typed(t)


@RANDOM
@given(gen.types())
def test_zero_at_every_type(a):
    has_type(Zero(), a)
    has_type(Plus(Zero(), Zero()), a)
    has_type(Lam(a, Zero()), TArr(a, a))
    has_type(Lam(a, Var(0)), TArr(a, a))
    has_type(Dual(a, Zero(), NDual(NZ())), TDual(a))
    assert type_of(Lam(a, Var(0))) == TArr(a, a)
    assert type_of(Pb(a, Zero(), Lam(R, NDual(NR(1.0))))) == TOmega(a)


# ------------------------------------------- well-formed terms (wf.v)

def test_wf_rules_are_coqs():
    """The rule names of ill-formed terms are the Coq judgments (anf.v's
    wf_let, wf.v's jac_app_free and param_app_free), in the order
    pullback-eval checks them (pb_lets_ok, pb_jac_ok, then pb_param_ok)."""
    from revhandlers.pullback.typecheck import WF_RULES
    source = "".join((ROOT / "theories" / "pullback" / f).read_text() for f in ("anf.v", "wf.v"))
    for name in WF_RULES:
        assert re.search(rf"^Fixpoint {name} ", source, flags=re.M), name
    assert WF_RULES == ("wf_let", "jac_app_free", "param_app_free")


_OMEGA = Lam(R, NDual(NR(1.0)))
#: terms and the condition of wf_tm (wf.v) each fails, read off the
#: definition: the lets and applied Jacobians of pullback bodies only,
#: wherever the pullback is
_WF_CASES = [
    # a let series in a body: well formed (Example 3.3's shape)
    (Pb(R, Let(Fun("sin", Var(0)), Var(0)), _OMEGA), None),
    (Pb(R, Let(Fun("sin", Var(0)), Let(Fun("cos", Var(0)), Var(0))), _OMEGA), None),
    # a let binding a pair with a constant: not a let series
    (Pb(R, Let(Pair(Var(0), Real(1.0)), Proj(1, Var(0))), _OMEGA), "wf_let"),
    # a let whose body is not a series (it ends in a projection)
    (Pb(R, Let(Var(0), Proj(1, Pair(Var(0), Var(0)))), _OMEGA), "wf_let"),
    # lets and applied Jacobians outside pullback bodies are allowed
    (App(Lam(R, Let(Pair(Var(0), Real(1.0)), Proj(1, Var(0)))), Real(2.0)), None),
    (App(Jac("sin", Real(1.0)), Real(2.0)), None),
    # a Jacobian applied in a body, and under a λ, in a dual map, in a nested pullback
    (Pb(R, App(Jac("sin", Var(0)), Real(1.0)), _OMEGA), "jac_app_free"),
    (Lam(R, Pb(R, App(Jac("sin", Var(1)), Var(0)), _OMEGA)), "jac_app_free"),
    (Pb(R, Dual(R, App(Jac("sin", Var(0)), Var(1)), Var(0)), _OMEGA), "jac_app_free"),
    (Pb(R, Pb(R, App(Jac("sin", Var(0)), Var(1)), Var(0)), _OMEGA), "jac_app_free"),
    # an unapplied Jacobian in a body is fine (rule 14)
    (Pb(R, Jac("sin", Var(0)), _OMEGA), None),
    # both: the let is reported first, as pullback-eval does
    (Pb(R, Pair(Let(Pair(Var(0), Real(1.0)), Var(0)), App(Jac("sin", Var(0)), Real(1.0))), _OMEGA), "wf_let"),
    # a parameter applied to the pullback's variable: (λf. f y) (λx. x) (Remark 3.6, value 1)
    (Pb(R, App(Lam(TArr(R, R), App(Var(0), Var(1))), Lam(R, Var(0))), _OMEGA), "param_app_free"),
    # ... to a constant, or a function bound outside the pullback applied: fine
    (Pb(R, App(Lam(TArr(R, R), App(Var(0), Real(1.0))), Lam(R, Var(1))), _OMEGA), None),
    (Lam(TArr(R, R), Pb(R, App(Var(1), Var(0)), _OMEGA)), None),
    # a dual map's variable applied to the pullback's variable
    (Pb(R, Dual(TArr(R, R), App(Var(0), Var(1)), Var(0)), _OMEGA), "param_app_free"),
    # a parameter applied to a variable bound inside its own abstraction: fine (19a once applied) ...
    (Pb(R, Lam(TArr(R, R), Lam(R, App(Var(1), Var(0)))), _OMEGA), None),
    # ... to the pullback's variable under an inner λ: not
    (Pb(R, Lam(TArr(R, R), Lam(R, App(Var(1), Var(2)))), _OMEGA), "param_app_free"),
]


@pytest.mark.parametrize("t, rule", _WF_CASES)
def test_ill_formed_cases(t, rule):
    from revhandlers.pullback.typecheck import ill_formed, well_formed
    assert ill_formed(t) == rule
    if rule is None:
        well_formed(t)
    else:
        with pytest.raises(BadInput) as e:
            well_formed(t)
        assert (e.value.kind, e.value.rule) == ("ill-formed", rule)


#: the closed, well-typed ones of the cases (a body of type R, so that
#: ``λu:R. [1.0]*`` is its 1-form)
_WF_COQ = [c for i, c in enumerate(_WF_CASES) if i in (0, 1, 2, 4, 5, 6, 7, 12, 13)]


@pytest.mark.parametrize("t, rule", _WF_COQ)
def test_ill_formed_agrees_with_pullback_eval(t, rule):
    """The same verdict from pullback-eval's check (wf.v's extracted
    deciders, after its type checker)."""
    from revhandlers.pullback.engine import PullbackEvaluator
    assert well_typed(t)
    with PullbackEvaluator(timeout=30) as ev:
        try:
            ev.check(t)
            got = None
        except BadInput as e:
            got = e.rule if e.kind == "ill-formed" else f"other: {e.kind}"
    assert got == rule
