"""pullback-eval, the extracted evaluator of the pullback language
(theories/pullback, docs/sexp-format.md "pullback-eval").

The binary is the one of this checkout's build tree
(_build/default/extracted/pullback-eval), run as a subprocess.  Expected
numbers are computed here, independently of the driver: the paper's
[660 528] by the symbolic partial derivatives of spec §9.1, the others by
hand-written derivatives over Python's math module."""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BINARY = ROOT / "_build" / "default" / "extracted" / "pullback-eval"

ERROR_LINE = re.compile(r'^\(error \(kind ([a-z-]+)\) \(rule none\) \(message "(?:[^"\\]|\\.)*"\)\)$')


@pytest.fixture(scope="module", autouse=True)
def built():
    if not BINARY.exists():
        pytest.fail(f"{BINARY} is not built: run `dune build extracted/pullback-eval`")


def run(text: str, *flags: str, input_file: str | None = None) -> tuple[int, list[str], str]:
    args = [str(BINARY), *flags] + ([input_file] if input_file else [])
    proc = subprocess.run(args, input=text, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


# ---------- reading the answers ----------

TOKEN = re.compile(r'\s*(?:(\()|(\))|("(?:[^"\\]|\\.)*")|([^\s()"]+))')


def parse(text: str):
    """One S-expression: nested lists of atoms (strings)."""
    pos, stack, out = 0, [[]], None
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        assert m, text[pos:]
        pos = m.end()
        if m.group(1):
            stack.append([])
        elif m.group(2):
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(m.group(3) or m.group(4))
    assert len(stack) == 1 and len(stack[0]) == 1, text
    out = stack[0][0]
    return out


def field(answer, name):
    for x in answer[1:]:
        if isinstance(x, list) and x and x[0] == name:
            return x[1:]
    raise KeyError(name)


def result(text: str, *flags: str):
    """The value, type and step count of a successful run."""
    code, lines, err = run(text, *flags)
    assert code == 0 and err == "" and len(lines) == 1, (code, lines, err)
    ans = parse(lines[0])
    assert ans[0] == "result", lines
    return field(ans, "value")[0], field(ans, "type")[0], int(field(ans, "steps")[0])


def ndual(value) -> list[float]:
    """The numbers of a numeric dual (ndual NUM), flattened left to right."""
    assert isinstance(value, list) and value[0] == "ndual", value

    def flat(n):
        if isinstance(n, str):
            return [0.0] if n == "zero" else [float(n)]
        return [x for m in n for x in flat(m)]

    return flat(value[1])


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


ONE = "(lam R (ndual 1.0))"   # Ω[1] = λx.[1]*


def query(ty: str, body: str, point: str, omega: str = ONE) -> str:
    """((Ω λy:ty. body) · omega) point"""
    return f"(app (pullback {ty} {body} {omega}) {point})"


def x_(): return "(proj 1 (var 0))"
def y_(): return "(proj 2 (var 0))"
def f(name, arg): return f"(fun {name} {arg})"
def pair(a, b): return f"(pair {a} {b})"


# ---------- the paper's example ----------

# f(x, y) = ((x+1)(2x+y²))², as  sq(mul(⟨add⟨x, 1⟩, add⟨add⟨x, x⟩, sq y⟩⟩))
PAPER_BODY = f("sq", f("mul", pair(f("add", pair(x_(), "1.0")),
                                   f("add", pair(f("add", pair(x_(), x_())), f("sq", y_()))))))
PAPER_QUERY = query("(* R R)", PAPER_BODY, "(pair 1.0 3.0)")


def test_paper_example_660_528():
    x, y = 1.0, 3.0
    # spec §9.1: the partial derivatives, symbolically
    dfdx = 2 * (x + 1) * (2 * x + y * y) * (2 * x + y * y + 2 * (x + 1))
    dfdy = 2 * (x + 1) * (2 * x + y * y) * (2 * y * (x + 1))
    assert (dfdx, dfdy) == (660.0, 528.0)   # the paper's numbers
    value, ty, steps = result(PAPER_QUERY)
    assert ndual(value) == [660.0, 528.0]
    assert value == ["ndual", ["660.0", "528.0"]]
    assert ty == ["dual", ["*", "R", "R"]]
    assert steps > 0


def test_paper_example_check_and_request_forms():
    code, lines, _ = run(PAPER_QUERY, "--check")
    assert code == 0 and lines == ["(ok (type (dual (* R R))))"]
    code, lines2, _ = run(f"(check {PAPER_QUERY})")
    assert code == 0 and lines2 == lines
    assert result(f"(run {PAPER_QUERY})") == result(PAPER_QUERY)


# ---------- first-order queries against hand-computed Jacobians ----------

FIRST_ORDER = [
    # (type, body, point, omega, the expected cotangent)
    ("R", f("sin", "(var 0)"), "0.5", ONE, lambda: [math.cos(0.5)]),
    ("R", f("cos", "(var 0)"), "0.3", ONE, lambda: [-math.sin(0.3)]),
    ("R", f("exp", "(var 0)"), "1.2", ONE, lambda: [math.exp(1.2)]),
    ("R", f("neg", f("sq", "(var 0)")), "-2.5", ONE, lambda: [-2 * -2.5]),
    ("R", f("sin", f("exp", f("cos", "(var 0)"))), "0.7", "(lam R (ndual 2.0))",
     lambda: [2.0 * math.cos(math.exp(math.cos(0.7))) * math.exp(math.cos(0.7)) * -math.sin(0.7)]),
    # f(x, y) = sin(x y) + exp(x)
    ("(* R R)", f("add", pair(f("sin", f("mul", pair(x_(), y_()))), f("exp", x_()))), "(pair 0.4 1.5)", ONE,
     lambda: [1.5 * math.cos(0.6) + math.exp(0.4), 0.4 * math.cos(0.6)]),
    # f(x, y) = x² y - cos(y)
    ("(* R R)", f("add", pair(f("mul", pair(f("sq", x_()), y_())), f("neg", f("cos", y_())))), "(pair -1.25 2.0)",
     ONE, lambda: [2 * -1.25 * 2.0, (-1.25) ** 2 + math.sin(2.0)]),
    # a vector output: f(x) = ⟨sin x, x²⟩ pulled back along ω = λ_.(2, 3)*
    ("R", pair(f("sin", "(var 0)"), f("sq", "(var 0)")), "0.9", "(lam (* R R) (ndual (2.0 3.0)))",
     lambda: [2.0 * math.cos(0.9) + 3.0 * 2 * 0.9]),
]


@pytest.mark.parametrize("ty,body,point,omega,expected", FIRST_ORDER,
                         ids=[str(i) for i in range(len(FIRST_ORDER))])
def test_first_order_jacobians(ty, body, point, omega, expected):
    value, rty, _ = result(query(ty, body, point, omega))
    got = ndual(value)
    want = expected()
    assert len(got) == len(want)
    assert all(close(a, b) for a, b in zip(got, want)), (got, want)
    assert rty == ["dual", parse(ty)] if ty.startswith("(") else rty == ["dual", ty]


def test_plain_evaluation():
    value, ty, steps = result("(app (lam R (fun mul (pair (var 0) (fun sin (var 0))))) 2.0)")
    assert ty == "R" and close(float(value), 2.0 * math.sin(2.0)) and steps == 3
    value, ty, _ = result("(proj 2 (pair 1.0 (fun exp 0.5)))")
    assert ty == "R" and close(float(value), math.exp(0.5))


# ---------- higher order ----------

def test_higher_order_d_eval():
    """((Ω λy. y^π1 y^π2) · Ω[1]) ⟨λz. z², 3⟩ (examples.v, ho_query_result):
    rule 19b gives the derivative of f x along ⟨δf, δx⟩, δf(3) + (J sq · δx) 3."""
    q = query("(* (-> R R) R)", "(app (proj 1 (var 0)) (proj 2 (var 0)))", "(pair (lam R (fun sq (var 0))) 3.0)")
    value, ty, _ = result(q)
    assert ty == ["dual", ["*", ["->", "R", "R"], "R"]]
    assert value == ["dual-map", "?",
                     ["+", ["app", ["proj", "1", ["var", "0"]], "3.0"],
                      ["app", ["jac", "sq", ["proj", "2", ["var", "0"]]], "3.0"]],
                     ["ndual", "1.0"]]


def linear_coefficient(body) -> float:
    """Read a dual-map body over R, linear in (var 0), as its coefficient:
    (var 0) is 1, (app zero _) and zero are 0, ((jac f S) r) is f'(r) S."""
    deriv = {"sin": math.cos, "cos": lambda r: -math.sin(r), "exp": math.exp, "sq": lambda r: 2 * r,
             "neg": lambda r: -1.0}
    if body == ["var", "0"] or body == "zero":
        return 1.0 if body != "zero" else 0.0
    head = body[0]
    if head == "+":
        return linear_coefficient(body[1]) + linear_coefficient(body[2])
    if head == "app" and body[1] == "zero":
        return 0.0
    if head == "app" and isinstance(body[1], list) and body[1][0] == "jac":
        return deriv[body[1][1]](float(body[2])) * linear_coefficient(body[1][2])
    raise AssertionError(f"not a linear body: {body}")


def test_higher_order_local_functions():
    """sin(sin y) written with two β-redexes: the functions are values of
    the body's environment, applied by rule 19b; the result is a dual map
    whose body is the derivative (the tangent of a constant function shows
    as (app zero _), which is 0)."""
    body = "(app (lam R (fun sin (var 0))) (app (lam R (fun sin (var 0))) (var 0)))"
    value, ty, _ = result(query("R", body, "0.5"))
    assert ty == ["dual", "R"]
    assert value[0] == "dual-map" and value[3] == ["ndual", "1.0"]
    assert close(linear_coefficient(value[2]), math.cos(math.sin(0.5)) * math.cos(0.5))


# ---------- errors: every class, one line, its exit code ----------

STUCK = query("(* (-> R R) (* R R))", "(app (proj 1 (var 0)) (proj 2 (proj 2 (var 0))))",
              "(pair (lam R (fun sin (var 0))) zero)")

ERRORS = [
    ("(fun sin 1.0", (), "parse", 2),
    ("", (), "parse", 2),
    ("(fun sin 1.0) (fun sin 2.0)", (), "parse", 2),
    ("(fun sin 1.0 2.0)", (), "syntax", 2),
    ("(lam ? (var 0))", (), "syntax", 2),
    ("(lam real (var 0))", (), "syntax", 2),
    ("(proj 3 (pair 1 2))", (), "syntax", 2),
    ("hello", (), "syntax", 2),
    ("(run)", (), "syntax", 2),
    ("(var 0)", (), "unbound", 2),
    ("(lam R (var 1))", (), "unbound", 2),
    ("(fun tan 1.0)", (), "unbound", 2),
    ("(fun sin nan)", (), "number", 2),
    ("(fun sin inf)", (), "number", 2),
    ("(fun sin -inf)", (), "number", 2),
    ("(fun sin 1e400)", (), "number", 2),
    ("(ndual (1.0 nan))", (), "number", 2),
    ("(ndual " + "(1.0 " * 2100 + "1.0" + ")" * 2101, (), "too-deep", 2),
    ("(lam " + "(-> R " * 2100 + "R" + ")" * 2100 + " zero)", (), "too-deep", 2),
    ("(fun neg " * 2001 + "1.0" + ")" * 2001, (), "too-deep", 2),
    ("(fun sin (pair 1.0 2.0))", (), "type", 2),
    ("(app (lam R (var 0)) (lam R (var 0)))", (), "type", 2),
    ("zero", (), "type", 2),
    ("(dual-map R (fun sin (var 0)) (ndual 1.0))", (), "type", 2),   # not linear in x
    (STUCK, (), "stuck", 1),
    (f"(run-fuel {PAPER_QUERY})", ("--fuel", "3"), "out-of-fuel", 1),
    ("(run-fuel 1.0 2.0)", (), "syntax", 2),
]


@pytest.mark.parametrize("text,flags,kind,code", ERRORS,
                         ids=[f"{i}-{e[2]}" for i, e in enumerate(ERRORS)])
def test_error_classes(text, flags, kind, code):
    rc, lines, err = run(text, *flags)
    assert rc == code, (rc, lines, err)
    assert len(lines) == 1 and ERROR_LINE.match(lines[0]), lines
    assert ERROR_LINE.match(lines[0]).group(1) == kind, lines
    assert err == ""


def test_io_error():
    rc, lines, _ = run("", input_file=str(ROOT / "no" / "such" / "file.sexp"))
    assert rc == 2 and ERROR_LINE.match(lines[0]).group(1) == "io"


def test_file_input(tmp_path):
    p = tmp_path / "q.sexp"
    p.write_text(PAPER_QUERY + "\n")
    rc, lines, _ = run("", input_file=str(p))
    assert rc == 0 and ndual(field(parse(lines[0]), "value")[0]) == [660.0, 528.0]


def test_bad_flags():
    rc, lines, err = run("1.0", "--fuel", "x")
    assert rc == 2 and lines == [] and "usage" in err
    rc, lines, err = run("1.0", "--frobnicate")
    assert rc == 2 and "usage" in err


# ---------- fuel, trace, serve ----------

def test_fuel_bounds_the_steps():
    """``--fuel`` bounds the fuelled normaliser (``(run-fuel TERM)``); a
    query of the first-order fragment, such as the paper's, runs without
    fuel (``fo_run.v``): ``(run TERM)`` reaches its value whatever the
    fuel, after the same number of steps."""
    fuelled = f"(run-fuel {PAPER_QUERY})"
    _, _, steps = result(fuelled)
    assert result(fuelled, "--fuel", str(steps))[2] == steps
    rc, lines, _ = run(fuelled, "--fuel", str(steps - 1))
    assert rc == 1 and ERROR_LINE.match(lines[0]).group(1) == "out-of-fuel"
    assert result(PAPER_QUERY, "--fuel", "0") == result(fuelled)
    assert result("2.5", "--fuel", "0") == ("2.5", "R", 0)


TRACED = [PAPER_QUERY, query("R", f("sin", "(var 0)"), "0.5"),
          "(app (lam R (fun mul (pair (var 0) (fun sin (var 0))))) 2.0)", "1.0",
          query("(* (-> R R) R)", "(app (proj 1 (var 0)) (proj 2 (var 0)))", "(pair (lam R (fun sq (var 0))) 3.0)")]


@pytest.mark.parametrize("text", TRACED, ids=[str(i) for i in range(len(TRACED))])
def test_trace_counts_the_steps(text):
    """--trace prints one line per step (the term after it), then the
    result line, whose step count is the number of step lines and whose
    value is the last term."""
    value, ty, steps = result(text)
    rc, lines, err = run(text, "--trace")
    assert rc == 0 and err == ""
    assert len(lines) == steps + 1
    terms = [parse(line) for line in lines[:-1]]
    assert all(t[0] == "step" and len(t) == 3 and t[1][0] == "rule" and t[1][1] in RULES for t in terms)
    final = parse(lines[-1])
    assert final[0] == "result" and field(final, "value")[0] == value and int(field(final, "steps")[0]) == steps
    if steps:
        assert terms[-1][2] == value
    assert len(set(lines[:-1])) == len(lines) - 1   # every step changes the term
    rc, lines2, _ = run(f"(trace {text})")
    assert rc == 0 and lines2 == lines


#: the rule names of pullback-eval (cps.v, ``rule``)
RULES = {"1", "2", "3", "4", "5", "6", "let", "A", "7", "8", "9", "10a", "10a-mirror", "10b", "11", "12", "13a",
         "13b", "13c", "14", "15", "16a", "16b", "16c", "17", "18", "19a", "19b", "19c", "20a", "20b"}


def test_trace_names_the_rules():
    """The rule of each step, derived by hand from Fig. 3 for
    ((Ω λy. sin y) · (λx.[1]*)) 0.5: the body sin(y) is elementary (f(z)),
    so it is not A-normalised; 15 emits (λv. (J sin · v) 0.5)* · (ω sin(0.5));
    CBV then computes sin 0.5 (3), applies the 1-form (1), and (5)
    transposes: [15, 3, 1, 5]."""
    text = query("R", f("sin", "(var 0)"), "0.5")
    rc, lines, _ = run(text, "--trace")
    assert rc == 0 and [parse(line)[1][1] for line in lines[:-1]] == ["15", "3", "1", "5"]


def test_machine_agrees_and_counts_the_rules():
    """--machine cps (and the request (cps TERM)) answers what the
    normaliser answers, with how often each rule fired: (λx. x·sin x) 2 is
    one β (1), then f(r) twice (3: sin 2, then mul), so 1 once and 3 twice,
    in that order of first firing."""
    text = "(app (lam R (fun mul (pair (var 0) (fun sin (var 0))))) 2.0)"
    rc, lines, _ = run(text, "--machine", "cps")
    answer = parse(lines[0])
    assert rc == 0 and field(answer, "value")[0] == parse(run(text)[1][0])[1][1]
    assert field(answer, "rules") == [["1", "1"], ["3", "2"]]
    assert int(field(answer, "steps")[0]) == 3
    rc, lines2, _ = run(f"(cps {text})")
    assert rc == 0 and lines2 == lines
    rc, lines, _ = run(STUCK, "--machine", "cps")
    assert rc == 1 and ERROR_LINE.match(lines[0]).group(1) == "stuck"


def test_machine_counts_the_rules_of_premises():
    """On the paper's query the body applies six function symbols (sq, mul,
    and add three times, sq of y): 15 fires once for each (five times in
    the premise of 20a, once at the end of the chain), and each forward
    value f(r) is computed once (3, six times): call-by-value computes
    1+1 once (Example 3.7).  The trace, which names the top-level steps
    only, shows 15 once."""
    rc, lines, _ = run(PAPER_QUERY, "--machine", "cps")
    counts = {name: int(c) for name, c in field(parse(lines[0]), "rules")}
    assert rc == 0 and counts["15"] == 6 and counts["3"] == 6
    rc, lines, _ = run(PAPER_QUERY, "--trace")
    assert [parse(line)[1][1] for line in lines[:-1]].count("15") == 1


def test_trace_of_a_failure():
    rc, lines, _ = run(PAPER_QUERY, "--trace", "--fuel", "5")
    assert rc == 1 and len(lines) == 6
    assert all(line.startswith("(step (rule ") for line in lines[:-1])
    assert ERROR_LINE.match(lines[-1]).group(1) == "out-of-fuel"


def test_serve_goes_on_after_bad_lines():
    requests = [
        PAPER_QUERY,
        "(fun sin 1.0",
        "(check (lam R (var 0)))",
        "(fun sin nan)",
        "",
        f"(trace {query('R', f('sin', '(var 0)'), '0.5')})",
        "(var 3)",
        STUCK,
        "(run (fun cos 0.0))",
        "(fun sin (pair 1.0 2.0))",
    ]
    rc, lines, err = run("\n".join(requests) + "\n", "--serve")
    assert rc == 0 and err == ""
    assert len(lines) == len(requests) - 1   # the blank line gets no answer
    assert ndual(field(parse(lines[0]), "value")[0]) == [660.0, 528.0]
    assert ERROR_LINE.match(lines[1]).group(1) == "parse"
    assert lines[2] == "(ok (type (-> R R)))"
    assert ERROR_LINE.match(lines[3]).group(1) == "number"
    tr = parse(lines[4])
    assert tr[0] == "trace" and all(s[0] == "step" for s in tr[1:-1]) and tr[-1][0] == "result"
    assert int(field(tr[-1], "steps")[0]) == len(tr) - 2
    assert close(ndual(field(tr[-1], "value")[0])[0], math.cos(0.5))
    assert ERROR_LINE.match(lines[5]).group(1) == "unbound"
    assert ERROR_LINE.match(lines[6]).group(1) == "stuck"
    assert field(parse(lines[7]), "value")[0] == "1.0"
    assert ERROR_LINE.match(lines[8]).group(1) == "type"


def test_serve_trace_of_a_failure():
    rc, lines, _ = run(f"(trace {PAPER_QUERY})\n", "--serve", "--fuel", "2")
    assert rc == 0 and len(lines) == 1
    tr = parse(lines[0])
    assert tr[0] == "trace" and len(tr) == 4 and tr[-1][0] == "error"


def test_numbers_print_as_floats():
    assert result("3")[0] == "3.0"
    assert result("-0.0")[0] == "-0.0"
    assert result("(fun mul (pair 1e300 1e300))")[0] == "inf"
    assert result("(fun add (pair 0.1 0.2))")[0] == "0.30000000000000004"
    assert float(result("(fun exp 1.0)")[0]) == math.exp(1.0)


# ---------- random first-order queries against forward-mode dual numbers ----------

class Dual:
    """a + b ε with ε² = 0: forward mode, one tangent direction."""

    def __init__(self, a: float, b: float):
        self.a, self.b = a, b


PRIMS = {
    "neg": lambda u: Dual(-u.a, -u.b),
    "sin": lambda u: Dual(math.sin(u.a), math.cos(u.a) * u.b),
    "cos": lambda u: Dual(math.cos(u.a), -math.sin(u.a) * u.b),
    "exp": lambda u: Dual(math.exp(u.a), math.exp(u.a) * u.b),
    "sq": lambda u: Dual(u.a * u.a, 2 * u.a * u.b),
}


def random_expr(rng, depth: int):
    """(sexp, forward evaluator on a pair of duals) of a random expression in x, y."""
    choice = rng.random()
    if depth == 0 or choice < 0.2:
        leaf = rng.choice(["x", "y", "c"])
        if leaf == "x":
            return x_(), lambda x, y: x
        if leaf == "y":
            return y_(), lambda x, y: y
        c = round(rng.uniform(-2, 2), 3)
        return repr(c), lambda x, y, c=c: Dual(c, 0.0)
    if choice < 0.55:
        op = rng.choice(["add", "mul"])
        (sa, fa), (sb, fb) = random_expr(rng, depth - 1), random_expr(rng, depth - 1)
        if op == "add":
            ev = lambda x, y: (lambda u, v: Dual(u.a + v.a, u.b + v.b))(fa(x, y), fb(x, y))
        else:
            ev = lambda x, y: (lambda u, v: Dual(u.a * v.a, u.a * v.b + u.b * v.a))(fa(x, y), fb(x, y))
        return f("{}".format(op), pair(sa, sb)), ev
    name = rng.choice(sorted(PRIMS))
    sa, fa = random_expr(rng, depth - 1)
    return f(name, sa), lambda x, y: PRIMS[name](fa(x, y))


def test_random_first_order_queries_against_forward_mode():
    import random
    rng = random.Random(20260212)
    cases = []
    for _ in range(120):
        s, ev = random_expr(rng, 4)
        x, y = round(rng.uniform(-1.5, 1.5), 3), round(rng.uniform(-1.5, 1.5), 3)
        gx = ev(Dual(x, 1.0), Dual(y, 0.0)).b
        gy = ev(Dual(x, 0.0), Dual(y, 1.0)).b
        cases.append((query("(* R R)", s, f"(pair {x!r} {y!r})"), gx, gy))
    rc, lines, err = run("\n".join(q for q, _, _ in cases) + "\n", "--serve")
    assert rc == 0 and err == "" and len(lines) == len(cases)
    compared = 0
    for (q, gx, gy), line in zip(cases, lines):
        ans = parse(line)
        assert ans[0] == "result", (q, line)
        value = field(ans, "value")[0]
        got = [0.0, 0.0] if value == "zero" else ndual(value)   # rule 9: a constant body
        if not all(math.isfinite(g) for g in (gx, gy)):
            continue
        # the variable that does not occur leaves a zero entry
        assert len(got) == 2 or got == [0.0], (q, line)
        got = got if len(got) == 2 else [0.0, 0.0]
        assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(got, [gx, gy])), (q, got, gx, gy)
        compared += 1
    assert compared >= 100


def test_last_is_the_end_of_the_trace():
    """``(last TERM)``: the term a run ends with, whole, its step count and
    outcome: the last step of the trace, for a value, a stuck term and a
    run out of fuel."""
    cases = [(PAPER_QUERY, (), "value"), (STUCK, (), "stuck"), (PAPER_QUERY, ("--fuel", "5"), "out-of-fuel")]
    for text, flags, outcome in cases:
        rc, lines, err = run(f"(last {text})\n(trace {text})\n", "--serve", *flags)
        assert rc == 0 and err == "" and len(lines) == 2
        last, tr = parse(lines[0]), parse(lines[1])
        assert last[0] == "last" and field(last, "outcome") == [outcome]
        steps = [s for s in tr[1:] if s[0] == "step"]
        assert int(field(last, "steps")[0]) == len(steps)
        if steps:
            assert field(last, "term")[0] == steps[-1][2]
        else:       # the query itself, its binder types erased
            assert lines[0].startswith("(last (term (app (pullback ? ")
    rc, lines, _ = run("(last (var 0))\n(last 1.0 2.0)\n", "--serve")
    assert [ERROR_LINE.match(x).group(1) for x in lines] == ["unbound", "syntax"]
