"""The pullback language's syntax (revhandlers.pullback): the AST mirrors the
Coq constructors, the surface syntax reads the paper's notation (Unicode
and ASCII), ``parse(pretty(t)) == t`` and ``from_sexp(to_sexp(t)) == t``
for every term (Hypothesis), the S-expression format is exactly the
driver's grammar, and every error class has a clear message."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revhandlers.errors import BadInput, RevHandlersError, TypeCheckError
from revhandlers.rh.nesting import MAX_NESTING, room
from revhandlers.pullback import gen, syntax
from revhandlers.pullback.sexp import (Result, from_sexp, read_answer, read_request, read_term_or_request,
                                       request_sexp, to_sexp)
from revhandlers.pullback.surface import parse, parse_type, pretty, pretty_type
from revhandlers.pullback.syntax import (NP, NR, NZ, App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, R,
                                         Real, Rn, TArr, TDual, TOmega, TProd, Var, Zero, free_vars, vec)

ROOT = Path(__file__).resolve().parents[2]
RANDOM = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))


# ------------------------------------------------------------ the AST mirrors Coq

def _constructors(inductive: str) -> list[str]:
    text = (ROOT / "theories" / "pullback" / "syntax.v").read_text()
    body = re.search(rf"Inductive {inductive}\b[^\n]*:=\n(.*?)\.\n", text, re.S).group(1)
    return re.findall(r"^\|\s*(\w+)", body, re.M)


@pytest.mark.parametrize("inductive, classes", [("tm", syntax.TM_CONSTRUCTORS), ("ty", syntax.TY_CONSTRUCTORS),
                                                ("num", syntax.NUM_CONSTRUCTORS)])
def test_constructors_mirror_coq(inductive, classes):
    """One frozen dataclass per Coq constructor, with the same name, in the
    same order, each documented with its Coq name."""
    coq = _constructors(inductive)
    assert coq and [c.__name__ for c in classes] == coq
    for c in classes:
        assert dataclasses.is_dataclass(c) and c.__dataclass_params__.frozen
        assert f"Coq ``{c.__name__}``" in c.__doc__


def test_binder_types_are_the_only_additions():
    """Fields are Coq's arguments, plus the binder type of Lam, Dual, Pb."""
    with_type = {c.__name__ for c in syntax.TM_CONSTRUCTORS if "ty" in [f.name for f in dataclasses.fields(c)]}
    assert with_type == {"Lam", "Dual", "Pb"}


# ------------------------------------------------------------ the paper's notation

CTX = ("ω", "f", "x")          # ω is index 0, f index 1, x index 2


@pytest.mark.parametrize("text, term", [
    ("λx:R. x", Lam(R, Var(0))),
    (r"\x:R. x", Lam(R, Var(0))),
    ("f x ω", App(App(Var(1), Var(2)), Var(0))),
    ("π1(x)", Proj(1, Var(2))),
    ("pi2(x)", Proj(2, Var(2))),
    ("⟨x, ω⟩", Pair(Var(2), Var(0))),
    ("<x, ω, f>", Pair(Pair(Var(2), Var(0)), Var(1))),
    ("⟨⟨x, ω⟩, f⟩", Pair(Pair(Var(2), Var(0)), Var(1))),
    ("3", Real(3.0)),
    ("-2.5e-1", Real(-0.25)),
    ("zero", Zero()),
    ("0", Real(0.0)),
    ("0.", Real(0.0)),
    ("0.0", Real(0.0)),
    ("-0", Real(-0.0)),
    ("⟨0, 0⟩", Pair(Real(0.0), Real(0.0))),
    ("⟨0., 1.⟩", Pair(Real(0.0), Real(1.0))),
    ("<0., 1.>", Pair(Real(0.0), Real(1.0))),
    ("[0., -1.]*", NDual(NP(NR(0.0), NR(-1.0)))),
    ("zero*", NDual(NZ())),
    ("sin(x)", Fun("sin", Var(2))),
    ("add(x, 1)", Fun("add", Pair(Var(2), Real(1.0)))),
    ("add(⟨x, 1⟩)", Fun("add", Pair(Var(2), Real(1.0)))),
    ("J mul · x", Jac("mul", Var(2))),
    ("J mul . x", Jac("mul", Var(2))),
    ("(J sin · x) 2", App(Jac("sin", Var(2)), Real(2.0))),
    ("(λv:R. v)* · ω", Dual(R, Var(0), Var(0))),
    (r"(\v:R. v)* . ω", Dual(R, Var(0), Var(0))),
    ("(Ω λy:R. sin(y)) · ω", Pb(R, Fun("sin", Var(0)), Var(0))),
    (r"(Omega \y:R. sin(y)) . ω", Pb(R, Fun("sin", Var(0)), Var(0))),
    ("(λv:R. v + ω)* · ω", Dual(R, Plus(Var(0), Var(1)), Var(0))),
    ("[660, 528]*", NDual(NP(NR(660.0), NR(528.0)))),
    ("⟨660, 528⟩*", NDual(NP(NR(660.0), NR(528.0)))),
    ("[1]*", NDual(NR(1.0))),
    ("⟨⟨zero, zero⟩, ⟨660, 528⟩⟩*", NDual(NP(NP(NZ(), NZ()), NP(NR(660.0), NR(528.0))))),
    ("⟨⟨0, 0⟩, ⟨660, 528⟩⟩*", NDual(NP(NP(NR(0.0), NR(0.0)), NP(NR(660.0), NR(528.0))))),
    ("[1, 2, 3]", Pair(Pair(Real(1.0), Real(2.0)), Real(3.0))),
    ("x + ω + zero", Plus(Var(2), Plus(Var(0), Zero()))),
    ("x + ω + 0", Plus(Var(2), Plus(Var(0), Real(0.0)))),
    ("let z = x in z", Let(Var(2), Var(0))),
    ("λ⟨a, b⟩:R^2. b", Lam(Rn(2), Proj(2, Var(0)))),
    ("λ⟨a, b, c⟩:R^3. a", Lam(Rn(3), Proj(1, Proj(1, Var(0))))),
    ("λ⟨a, b, c⟩:R^3. b", Lam(Rn(3), Proj(2, Proj(1, Var(0))))),
    ("(Ω λ⟨a, b⟩:R^2. a) · ω", Pb(Rn(2), Proj(1, Var(0)), Var(0))),
    ("(Ω λy:R. y) · (Ω λy:R. y) · ω", Pb(R, Var(0), Pb(R, Var(0), Var(0)))),
    ("J sin · (λv:R. v)* · ω", Jac("sin", Dual(R, Var(0), Var(0)))),
    ("λx:?. x", Lam(None, Var(0))),
])
def test_paper_notation(text, term):
    assert parse(text, CTX) == term
    assert parse(pretty(term, context=CTX), CTX) == term
    assert parse(pretty(term, ascii=True, context=CTX), CTX) == term


@pytest.mark.parametrize("text, ty", [
    ("R", R), ("R^1", R), ("R^3", Rn(3)), ("R × R × R", Rn(3)), ("R * R * R", Rn(3)),
    ("R ⇒ R ⇒ R", TArr(R, TArr(R, R))), ("R -> R -> R", TArr(R, TArr(R, R))), ("(R ⇒ R) ⇒ R", TArr(TArr(R, R), R)),
    ("R*", TDual(R)), ("R**", TDual(TDual(R))), ("(R^2)*", TDual(Rn(2))), ("R* * R", TProd(TDual(R), R)),
    ("R * R*", TProd(R, TDual(R))), ("Ω R", TOmega(R)), ("Omega R^2", TOmega(Rn(2))),
    ("Ω R × R", TProd(TOmega(R), R)), ("Ω (R × R)", TOmega(Rn(2))), ("R × R ⇒ R", TArr(Rn(2), R)), ("?", None),
])
def test_types(text, ty):
    assert parse_type(text) == ty
    assert parse_type(pretty_type(ty)) == ty and parse_type(pretty_type(ty, ascii=True)) == ty


def test_printing_is_the_papers():
    q = parse("((Ω λ⟨x, y⟩:R^2. sq(mul(add(x, 1), add(mul(2, x), sq(y))))) · (λz:R. [1]*)) ⟨1, 3⟩")
    assert pretty(q) == ("((Ω λy:R^2. sq(mul(add(π1(y), 1), add(mul(2, π1(y)), sq(π2(y)))))) · (λx:R. [1]*)) "
                         "⟨1, 3⟩")
    assert pretty(q, ascii=True) == ("((Omega \\y:R^2. sq(mul(add(pi1(y), 1), add(mul(2, pi1(y)), sq(pi2(y)))))) "
                                     ". (\\x:R. [1]*)) <1, 3>")
    assert pretty(NDual(vec(660, 528))) == "[660, 528]*"
    assert pretty(Real(0.0)) == "0" and pretty(Real(-0.0)) == "-0.0" and pretty(Zero()) == "zero"
    assert pretty(NDual(NP(NZ(), NR(0.0)))) == "⟨zero, 0⟩*" and pretty(NDual(NZ())) == "zero*"
    assert pretty_type(TDual(Rn(2))) == "(R^2)*" and pretty_type(TOmega(R)) == "Ω R"
    # no shadowing: every binder gets a fresh name
    assert pretty(Lam(R, Lam(R, Var(1)))) == "λx:R. λx1:R. x"


# ------------------------------------------------------------ round trips

@RANDOM
@given(st.integers(0, 3).flatmap(lambda k: st.tuples(st.just(k), gen.terms(free=k))))
def test_parse_pretty_roundtrip(case):
    """``parse(pretty(t)) == t`` for every term, Unicode and ASCII, open ones
    too (with names for the free variables); bitwise for the numbers."""
    k, t = case
    ctx = tuple(f"a{i}" for i in range(k))
    assert free_vars(t) <= set(range(k))
    for ascii in (False, True):
        back = parse(pretty(t, ascii=ascii, context=ctx), ctx)
        assert back == t and to_sexp(back) == to_sexp(t)


@RANDOM
@given(st.integers(0, 3).flatmap(lambda k: st.tuples(st.just(k), gen.terms(free=k))))
def test_sexp_roundtrip(case):
    k, t = case
    s = to_sexp(t)
    assert "\n" not in s
    assert from_sexp(s, free=k) == t and to_sexp(from_sexp(s, free=k)) == s


@settings(RANDOM, max_examples=60)
@given(gen.typed_terms())
def test_roundtrip_well_typed(t):
    assert parse(pretty(t)) == t and parse(pretty(t, ascii=True)) == t and from_sexp(to_sexp(t)) == t


@RANDOM
@given(gen.types())
def test_type_roundtrip(ty):
    assert parse_type(pretty_type(ty)) == ty and parse_type(pretty_type(ty, ascii=True)) == ty


def test_deep_terms_roundtrip():
    """Nesting up to the drivers' limit, in both formats."""
    t = Real(1.0)
    for i in range(MAX_NESTING - 2):
        t = Plus(t, Zero()) if i % 2 else Lam(R, t)
    with room():
        assert parse(pretty(t)) == t
        assert from_sexp(to_sexp(t)) == t


# ------------------------------------------------------------ the S-expression format

def test_sexp_grammar():
    """Exactly the grammar the driver reads."""
    q = parse("((Ω λy:R^2. sq(mul(y))) · (λx:R. [1]*)) ⟨1, 3⟩")
    assert to_sexp(q) == ("(app (pullback (* R R) (fun sq (fun mul (var 0))) (lam R (ndual 1.0))) "
                          "(pair 1.0 3.0))")
    t = parse("λf:R ⇒ R*. let z = (λv:R. v + zero)* · ⟨⟨1, zero⟩, 2⟩* in π2(⟨z, J neg · 1⟩)")
    assert to_sexp(t) == ("(lam (-> R (dual R)) (let (dual-map R (+ (var 0) zero) (ndual ((1.0 zero) 2.0))) "
                          "(proj 2 (pair (var 0) (jac neg 1.0)))))")
    assert to_sexp(Real(1e-5)) == "1e-05" and to_sexp(Real(-0.0)) == "-0.0"
    assert request_sexp("run", Real(2.0)) == "(run 2.0)"
    assert read_request("(check (lam R (var 0)))") == ("check", Lam(R, Var(0)))
    assert read_term_or_request("(trace 1.5)") == Real(1.5)
    assert from_sexp("(lam ? (var 0))") == Lam(None, Var(0))
    assert from_sexp("(ndual ((1. zero) 2e3))") == NDual(NP(NP(NR(1.0), NZ()), NR(2000.0)))
    assert from_sexp("(+ 1e0 zero)") == Plus(Real(1.0), Zero())


def test_answers():
    r = read_answer("(result (value (ndual (660. 528.))) (type (dual (* R R))) (steps 42))")
    assert r == Result(NDual(vec(660, 528)), TDual(Rn(2)), 42)
    r = read_answer("(result (value (lam ? (dual-map ? (var 0) (ndual 1.)))) (type (-> R (dual R))) (steps 3))")
    assert r.value == Lam(None, Dual(None, Var(0), NDual(NR(1.0))))
    assert read_answer("(ok (type (-> R R)))") == TArr(R, R)
    with pytest.raises(TypeCheckError) as e:
        read_answer('(error (kind type) (rule typed_dual) (message "the body is not linear"))')
    assert e.value.rule == "typed_dual" and e.value.message == "the body is not linear"
    with pytest.raises(BadInput) as e:
        read_answer('(error (kind unbound) (rule none) (message "unknown function symbol g"))')
    assert e.value.kind == "unbound"
    with pytest.raises(RevHandlersError) as e:
        read_answer("(what)")
    assert e.value.kind == "internal"


# ------------------------------------------------------------ errors

# Every reader error: (reader, text, kind, message); the message is a part of
# the error's message.  test_command.py runs the same table through the
# command line.
READ_ERRORS = [
    ("surface", "λx:R. x +", "parse", "line 1, column 10: expected a term, found the end of the input"),
    ("surface", "λx:R.\n  x ) ", "parse", "line 2, column 5: expected the end of the input, found ')'"),
    ("surface", "λx R. x", "parse", "line 1, column 4: expected ':' and the binder's type, found 'R'"),
    ("surface", "λx:R. x $ 1", "parse", "line 1, column 9: unexpected character '$'"),
    ("surface", "⟨1⟩", "parse", "line 1, column 1: a tuple ⟨…⟩ has at least two components"),
    ("surface", "λx:R^0. x", "parse", "line 1, column 6: R^n takes a whole number n from 1"),
    ("surface", "sin(1)*", "parse", "only a tuple of numbers r makes a numeric dual r*"),
    ("surface", "λlet:R. 1", "parse", "'let' is a keyword, not a variable name"),
    ("surface", "λ⟨a, a⟩:R^2. a", "parse", "the name a occurs twice in a pattern"),
    ("surface", "λx:R. x + λy:R. y", "parse", "an abstraction or a let after '+' needs parentheses"),
    ("surface", "(Ω λy:R. y) · λx:R. [1]*", "parse", "an abstraction or a let after '·' needs parentheses"),
    ("surface", "f (λv:R. v)* · 1", "unbound", "unbound variable f"),
    ("surface", "λx:R. y", "unbound", "line 1, column 7: unbound variable y"),
    ("surface", "g(1)", "unbound", "unbound variable g (the function symbols are add, cos, exp, mul, neg, sin, sq)"),
    ("surface", "J g · 1", "unbound", "J takes a function symbol"),
    ("surface", "1e400", "number", "not a finite number: 1e400"),
    ("surface", "λx:R.\n  x +", "parse", "line 2, column 6: expected a term, found the end of the input"),
    ("surface", "1e999", "number", "line 1, column 1: not a finite number"),
    ("sexp", "(app 1 2)", "syntax", "a number is a float atom, with a '.' or an exponent (write 1.0)"),
    ("sexp", "(lam (* R) 1.)", "syntax", "not a type: (* R)"),
    ("sexp", "(proj 3 1.)", "syntax", "a projection is (proj 1 TERM) or (proj 2 TERM)"),
    ("sexp", "(pair 1.)", "syntax", "(pair …) takes 2 arguments"),
    ("sexp", "(frob 1.)", "syntax", "not a term: (frob 1.)"),
    ("sexp", "(ndual (1. 2. 3.))", "syntax", "a numeric tuple is NUMBER, zero or (NUM NUM)"),
    ("sexp", "(var x)", "syntax", "expected a de Bruijn index"),
    ("sexp", "(lam R (var 1))", "unbound", "(var 1) under 1 binder is unbound"),
    ("sexp", "(fun g 1.)", "unbound", "unknown function symbol g"),
    ("sexp", "nan", "number", "not a finite number: nan"),
    ("sexp", "(ndual -inf)", "number", "not a finite number"),
    ("sexp", "(app 1.", "parse", "unclosed parentheses"),
    ("sexp", "(app (lam R", "parse", "unclosed parentheses"),
    ("sexp", "1. 2.", "parse", "more than one S-expression"),
]


@pytest.mark.parametrize("reader, text, kind, message", READ_ERRORS)
def test_read_errors(reader, text, kind, message):
    with pytest.raises(BadInput) as e:
        {"surface": parse, "sexp": from_sexp}[reader](text)
    assert e.value.kind == kind and message in e.value.message


def test_sexp_trailing_space():
    assert from_sexp("(lam ? (var 0)) ") == Lam(None, Var(0))


def test_too_deep():
    """Terms nested deeper than the drivers' limit; parentheses alone do not
    nest a term."""
    assert parse("(" * 3000 + "1" + ")" * 3000) == Real(1.0)
    with pytest.raises(BadInput) as e:
        parse("sin(" * 3000 + "1" + ")" * 3000)
    assert e.value.kind == "too-deep"
    with pytest.raises(BadInput) as e:
        parse("(" * 40_000 + "1" + ")" * 40_000)
    assert e.value.kind == "too-deep"
    with pytest.raises(BadInput) as e:
        from_sexp("(+ zero " * 3000 + "1." + ")" * 3000)
    assert e.value.kind == "too-deep"


def test_contexts_and_open_terms():
    assert parse("x y", ("y", "x")) == App(Var(1), Var(0))
    assert pretty(App(Var(1), Var(0)), context=("y", "x")) == "x y"
    with pytest.raises(BadInput) as e:
        pretty(Var(0))
    assert e.value.kind == "unbound"
    with pytest.raises(BadInput) as e:
        parse("x", ("let",))
    assert e.value.kind == "syntax"
    assert from_sexp("(var 1)", free=2) == Var(1)
