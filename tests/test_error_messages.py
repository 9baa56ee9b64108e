"""Error messages of ``revhandlers check/run/trace FILE``: the line and
column of the offending node (counted by hand in each test's text), the
source line with a caret, terms and types in the surface syntax with the
program's names, the checker that found a type error, "did you mean"
suggestions, the checks of handlers (a second clause for one operation, an
operation no handler handles) and specific parse errors; exit codes 2 for
bad input, 1 for a runtime failure, 0 with a warning.  Positions in the AST
do not change equality: ``parse(pretty(p)) == p`` on every example."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import revhandlers as rh
from revhandlers.rh import sexp as rh_sexp
from revhandlers.rh import syntax as ast, surface
from revhandlers.cli import main as cli_main
from revhandlers.errors import BadInput, RevHandlersError
from revhandlers.rh.typecheck import check_program, handler_checks, unhandled_operations

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ("verified", "reference")
FOUND = {"verified": "note: found by the verified checker (rh-eval); located by its Python mirror (typecheck.py)",
         "reference": "note: found by the Python mirror of the Coq checker (typecheck.py)"}


def run_cli(tmp_path, capsys, text: str, *args: str, name: str = "prog.rh") -> tuple[int, str, list[str]]:
    """``revhandlers ARGS FILE`` in this process on ``text``: (exit code,
    stdout, stderr lines with the file's path shortened to its name)."""
    f = tmp_path / name
    f.write_text(text)
    out = io.StringIO()
    command, *rest = args
    capsys.readouterr()
    code = cli_main([command, str(f), *rest], out=out)
    err = capsys.readouterr().err.replace(str(f), name)
    return code, out.getvalue(), err.splitlines()


# --------------------------------------------------------------- type errors

SWISH = """\
op FC : Real(2) ~> Real(3)
rev handle(<[1.0, 2.0]>)<x>.
  FC(swish[3](x))
with {
  return r -> [| [0.0, 0.0, 0.0] |]
}
"""
# line 3 is "  FC(swish[3](x))": F at column 3, ( at 5, swish at 6


@pytest.mark.parametrize("command,engine", [("check", "verified"), ("check", "reference"), ("run", "verified"),
                                            ("run", "reference"), ("trace", "verified")])
def test_type_error_has_position_caret_surface_syntax_and_checker(tmp_path, capsys, command, engine):
    extra = ("--engine", engine) if command != "trace" else ()
    code, out, err = run_cli(tmp_path, capsys, SWISH, command, *extra)
    assert code == 2 and out == ""
    assert err == [
        "prog.rh:3:6: error (type) [typed_tm_app]: swish[3] expects Real(3), its argument x has type Real(2), "
        "in swish[3](x)",
        "  FC(swish[3](x))",
        "     ^",
        FOUND[engine],
    ]


PROJ = """\
rev handle(<[1.0, 2.0], <[1.0], [2.0]>>)<x, z>.
  [| proj_3(z) |]
with {
  return r -> [| r |]
}
"""
# line 2 is "  [| proj_3(z) |]": [| at columns 3-4, proj_3 at 6


@pytest.mark.parametrize("engine", ENGINES)
def test_projection_is_shown_from_1_with_names_not_de_bruijn(tmp_path, capsys, engine):
    code, _, err = run_cli(tmp_path, capsys, PROJ, "check", "--engine", engine)
    assert code == 2
    assert err[0] == ("prog.rh:2:6: error (type) [typed_tm_proj]: projection out of range: proj_3(z), but z has type "
                      "Real(1) * Real(1), a product with 2 components (proj_1 to proj_2)")
    assert err[1:3] == ["  [| proj_3(z) |]", "     ^"]
    assert "(proj 2" not in "\n".join(err) and "#1" not in "\n".join(err) and "(real" not in "\n".join(err)


def test_an_sexp_program_gets_names_not_de_bruijn_indices(tmp_path, capsys):
    sexp_text = rh_sexp.program_sexp(surface.parse(PROJ))
    code, _, err = run_cli(tmp_path, capsys, sexp_text, "check", name="prog.sexp")
    assert code == 2
    assert err == ["error (type) [typed_tm_proj]: projection out of range: proj_3(z), but z has type "
                   "Real(1) * Real(1), a product with 2 components (proj_1 to proj_2)", FOUND["verified"]]


ADD_IN_CLAUSE = """\
op Q : Real(1) ~> Real(1)
op P : Real(1) ~> Real(1)
rev handle(<[1.0]>)<x>. let a <= Q(x) in P(a) with {
  return r -> [| r |];
  Q : (x -> [| <x, x> |] | y, z -> [| y + z + [1.0, 2.0] |])
}
"""
# line 5: "  Q : (x -> [| <x, x> |] | y, z -> " is 37 characters, [| at 36-37, y at 39


@pytest.mark.parametrize("engine", ENGINES)
def test_type_error_in_a_backward_clause(tmp_path, capsys, engine):
    code, _, err = run_cli(tmp_path, capsys, ADD_IN_CLAUSE, "check", "--engine", engine)
    assert code == 2
    assert err == [
        "prog.rh:5:39: error (type) [typed_tm_add]: + needs two terms of one base type Real(n), found Real(1) + "
        "Real(2) in y + z + [1.0, 2.0]",
        "  Q : (x -> [| <x, x> |] | y, z -> [| y + z + [1.0, 2.0] |])",
        " " * 38 + "^",
        FOUND[engine],
    ]


CLAUSE_TYPE = """\
op Q : Real(1) ~> Real(1)
rev handle(<[1.0]>)<x>. Q(x) with {
  return r -> [| r |];
  Q : (x -> [| <x, x> |] | y, z : Real(2) -> [| y |])
}
"""
# line 4: "  Q : (x -> " is 12 characters: the forward command starts at 13


NO_RESIDUAL_PAIR = """\
op Q : Real(1) ~> Real(1)
rev handle(<[1.0]>)<x>. Q(x) with {
  return r -> [| r |];
  Q : (x -> [| x |] | y, z -> [| y |])
}
"""

CLAUSE_ERRORS = {
    # name: (program, the first line of the error)
    "clause-type": (CLAUSE_TYPE, "prog.rh:4:13: error (type) [typed_clauses_cons]: the forward clause of Q has type "
                                 "Real(1) * Real(1), expected Real(1) * Real(2) (the result of Q : Real(1) ~> Real(1) "
                                 "and the residual Real(2))"),
    "no-residual-pair": (NO_RESIDUAL_PAIR, "prog.rh:4:13: error (type) [typed_clauses_cons]: the forward clause of Q "
                                           "has type Real(1), expected Real(1) * D: a pair of the result of Q : "
                                           "Real(1) ~> Real(1) and a residual D (its type, left out, is inferred from "
                                           "this pair)"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(CLAUSE_ERRORS))
def test_clause_errors_name_the_operation_as_written(tmp_path, capsys, engine, case):
    """A clause's type error names the operation as the program writes it
    (never OpUser) and points at the forward command of line 4; a residual
    left out is described as inferred."""
    text, first = CLAUSE_ERRORS[case]
    code, _, err = run_cli(tmp_path, capsys, text, "check", "--engine", engine)
    assert code == 2
    assert err[0] == first
    assert err[1:3] == [text.splitlines()[3], " " * 12 + "^"]
    assert "OpUser" not in "\n".join(err)


def test_a_residual_left_out_is_inferred_from_a_pair():
    prog = surface.parse(NO_RESIDUAL_PAIR.replace("[| x |] |", "[| <x, [1.0, 2.0]> |] |"))
    assert prog.main.handler.clauses[0].residual == ast.TBase(2)


def test_python_api_errors_carry_the_position():
    with pytest.raises(rh.TypeCheckError) as e:
        rh.check(surface.parse(SWISH), engine="reference")
    assert e.value.pos == (3, 6) and e.value.rule == "typed_tm_app"
    assert e.value.message.startswith("line 3, column 6: swish[3] expects Real(3)")


# ------------------------------------------------------------- unknown names

UNKNOWN = {
    # name: (text, (line, column), first line's message, source line)
    "variable": ("op FC : Real(2) ~> Real(3)\nrev handle(<[1.0, 2.0]>)<input>.\n  FC(inptu)\n"
                 "with { return r -> [| r |] }\n", (3, 6),
                 "unbound variable inptu (a rev handle body and a handler clause see only their own binders); "
                 "did you mean input?", "  FC(inptu)"),
    "outer-variable": ("let w <= [| [1.0] |] in\nrev handle(<[2.0]>)<x>. [| w |] with { return r -> [| r |] }\n",
                       (2, 28),
                       "unbound variable w (w is bound outside: a rev handle body and a handler clause see only "
                       "their own binders (x))",
                       "rev handle(<[2.0]>)<x>. [| w |] with { return r -> [| r |] }"),
    "operation": ("op FC : Real(2) ~> Real(3)\nFD([1.0, 2.0])\n", (2, 1),
                  "unknown operation FD; did you mean FC?", "FD([1.0, 2.0])"),
    "location": ("loc weights :: (2)\nlet w <= Get[weight]() in [| w |]\n", (2, 10),
                 "unknown location weight; did you mean weights?", "let w <= Get[weight]() in [| w |]"),
    "primitive": ("[| swsh[2]([1.0, 2.0]) |]\n", (1, 4),
                  "unknown function symbol swsh with 1 parameters; did you mean swish?", "[| swsh[2]([1.0, 2.0]) |]"),
    "primitive-arity": ("[| swish[2,3]([1.0]) |]\n", (1, 4),
                        "unknown function symbol swish with 2 parameters (swish takes 1: swish[n])",
                        "[| swish[2,3]([1.0]) |]"),
    "primitive-as-operation": ("swish([1.0])\n", (1, 1),
                               "unknown operation swish; swish is a primitive, applied in a term: [| swish[n](…) |]",
                               "swish([1.0])"),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("case", sorted(UNKNOWN))
def test_unknown_names_have_a_position_and_a_suggestion(tmp_path, capsys, case, engine):
    text, (line, column), message, source = UNKNOWN[case]
    code, _, err = run_cli(tmp_path, capsys, text, "check", "--engine", engine)
    assert code == 2
    assert err[0] == f"prog.rh:{line}:{column}: error (unbound): {message}"
    assert err[1] == source
    assert err[2] == " " * (column - 1) + "^"
    assert err[3:] == [FOUND[engine]]


def test_unknown_parameter_has_a_position_and_a_suggestion():
    with pytest.raises(BadInput) as e:
        surface.parse("param hidden = 3\n[| swish[hiden]([1.0, 2.0, 3.0]) |]\n")
    assert e.value.kind == "unbound" and e.value.pos == (2, 10)
    assert e.value.detail == "unknown parameter hiden (declare it with `param hiden = N`); did you mean hidden?"


# ------------------------------------------------------------- handlers

DUPLICATE = """\
op Q : Real(1) ~> Real(1)
rev handle(<[1.0]>)<x>. Q(x) with {
  return r -> [| r |];
  Q : (x -> [| <x, x> |] | y, z -> [| y |]);
  Q : (x -> [| <x, x> |] | y, z -> [| y + y |])
}
"""


@pytest.mark.parametrize("command", ["check", "run"])
@pytest.mark.parametrize("engine", ENGINES)
def test_a_second_clause_for_one_operation_is_a_syntax_error(tmp_path, capsys, command, engine):
    code, out, err = run_cli(tmp_path, capsys, DUPLICATE, command, "--engine", engine)
    assert code == 2 and out == ""
    assert err == ["prog.rh:5:3: error (syntax): a second clause for Q in one handler (the first is at line 4, "
                   "column 3): a handler has at most one clause per operation",
                   "  Q : (x -> [| <x, x> |] | y, z -> [| y + y |])",
                   "  ^"]


def test_duplicate_get_clauses_are_named_as_written():
    prog = surface.parse("loc l :: (1)\nrev handle(<[1.0]>)<x>. Get[l]() with {\n  return r -> [| r |];\n"
                         "  Get[l] : (u -> [| <[1.0], u> |] | y, z -> [| z |]);\n"
                         "  Get[l] : (u -> [| <[2.0], u> |] | y, z -> [| z |])\n}\n")
    with pytest.raises(BadInput) as e:
        handler_checks(prog)
    assert e.value.kind == "syntax" and e.value.pos == (5, 3) and "a second clause for Get[l]" in e.value.detail


UNHANDLED = """\
op Q : Real(1) ~> Real(1)
op P : Real(1) ~> Real(1)
rev handle(<[1.0]>)<x>. let a <= Q(x) in P(a) with {
  return r -> [| r |];
  Q : (x -> [| <x, x> |] | y, z -> [| y |])
}
"""
# line 3: "rev handle(<[1.0]>)<x>. let a <= Q(x) in " is 41 characters: P at 42
EFFECT_ERROR = ("prog.rh:3:42: error (effect): operation P is handled by no enclosing handler (a handler without a "
                "clause for it passes it on to the enclosing ones): running it fails with unhandled-operation")


@pytest.mark.parametrize("engine", ENGINES)
def test_an_operation_no_handler_handles_is_an_error_of_check(tmp_path, capsys, engine):
    code, out, err = run_cli(tmp_path, capsys, UNHANDLED, "check", "--engine", engine)
    assert code == 2
    assert out == ""
    assert err == [EFFECT_ERROR, "rev handle(<[1.0]>)<x>. let a <= Q(x) in P(a) with {", " " * 41 + "^"]


TWO_UNHANDLED = """\
op Q : Real(1) ~> Real(1)
op P : Real(1) ~> Real(1)
let a <= P([1.0]) in
rev handle(<a>)<x>. Q(x) with { return r -> [| r |] }
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_each_unhandled_place_is_an_error_of_check(tmp_path, capsys, engine):
    code, out, err = run_cli(tmp_path, capsys, TWO_UNHANDLED, "check", "--engine", engine)
    assert code == 2 and out == ""
    heads = [line for line in err if "error (effect)" in line]
    assert [h.split(": error")[0].rsplit(":", 2)[1:] for h in heads] == [["3", "10"], ["4", "21"]]
    assert "operation P is handled" in heads[0] and "operation Q is handled" in heads[1]


@pytest.mark.parametrize("engine", ENGINES)
def test_running_it_fails_at_that_operation(tmp_path, capsys, engine):
    code, _, err = run_cli(tmp_path, capsys, UNHANDLED, "run", "--engine", engine)
    assert code == 1
    value = " performed on [1.0]" if engine == "verified" else ""
    assert err == [f"prog.rh:3:42: error (unhandled-operation): operation P{value} is handled by no handler",
                   "rev handle(<[1.0]>)<x>. let a <= Q(x) in P(a) with {", " " * 41 + "^"]


NESTED_DEFAULT = """\
op Q : Real(1) ~> Real(1)
op P : Real(1) ~> Real(1)
rev handle(<[1.0]>)<a>.
  rev handle(<a>)<x>. let b <= Q(x) in P(b) with {
    return r -> [| r |];
    Q : (x -> [| <x, x> |] | y, z -> [| y |])
  }
with {
  return r -> [| r |];
  P : (x -> [| <x, x> |] | y, z -> [| y |])
}
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_missing_clause_is_the_default_clause_when_an_enclosing_handler_handles_it(tmp_path, capsys, engine):
    """The paper's semantics: an operation without a clause is passed on to
    the enclosing handler; here the outer one handles P, so no warning and
    the run succeeds."""
    code, _, err = run_cli(tmp_path, capsys, NESTED_DEFAULT, "check", "--engine", engine)
    assert code == 0 and err == []
    code, out, err = run_cli(tmp_path, capsys, NESTED_DEFAULT, "run", "--engine", engine)
    assert code == 0 and err == [] and "value:" in out


def test_clauses_run_outside_their_handler():
    """An operation performed by a clause (or the return clause) of a
    handler is handled by the enclosing handlers only, and a clause runs
    only when its operation is performed."""
    prog = surface.parse("op Q : Real(1) ~> Real(1)\nop P : Real(1) ~> Real(1)\nop R : Real(1) ~> Real(1)\n"
                         "rev handle(<[1.0]>)<x>. Q(x) with {\n"
                         "  return r -> [| r |];\n"
                         "  Q : (x -> let u <= P(x) in [| <u, u> |] | y, z -> [| y |]);\n"
                         "  P : (x -> [| <x, x> |] | y, z -> [| y |]);\n"
                         "  R : (x -> let u <= R(x) in [| <u, u> |] | y, z -> [| y |])\n"
                         "}\n")
    # P at line 6: "  Q : (x -> let u <= " is 21 characters; R's clause never runs
    assert [(o.name, pos) for o, pos in unhandled_operations(prog)] == [("P", (6, 22))]


# ------------------------------------------------------------- parse errors

PARSE_ERRORS = {
    # name: (text, (line, column), message)
    "primitive-without-brackets": ("[| swish(u) |]\n", (1, 4),
                                   "the primitive swish needs its parameters in brackets: swish[n](…)"),
    "matmul-without-brackets": ("[| matmul(<a, b>) |]\n", (1, 4),
                                "the primitive matmul needs its parameters in brackets: matmul[m,n,k](…)"),
    "operation-in-a-term": ("op FC : Real(2) ~> Real(3)\nlet y <= [| FC([1.0, 2.0]) |] in [| y |]\n", (2, 13),
                            "FC is an operation: perform it in a command, `let y <= FC(…) in …`, not inside a term"),
    "missing-in": ("let x <= [| [1.0] |]\n[| x |]\n", (2, 1),
                   "missing `in` after the let at line 1, column 1 (`let x <= P in Q`); found '[|'"),
    "missing-retr": ("rev handle(<[1.0]>)<x>. [| x |] with {\n  return x -> [| x |\n}\n", (2, 20),
                     "missing `|]` to close the return `[|` at line 2, column 15; found '|'"),
    "missing-retr-at-end": ("[| [1.0]\n", (1, 9),
                            "missing `|]` to close the return `[|` at line 1, column 1; found the end of the input"),
    "missing-tupr": ("[| <[1.0], [2.0] |]\n", (1, 18),
                     "missing `>` to close the tuple `<` at line 1, column 4; found '|]'"),
    "missing-semicolon": ("op Q : Real(1) ~> Real(1)\nrev handle(<[1.0]>)<x>. Q(x) with {\n  return r -> [| r |]\n"
                          "  Q : (x -> [| <x, x> |] | y, z -> [| y |])\n}\n", (4, 3),
                          "missing `;` before this clause (the clauses of a handler are separated by `;`)"),
    "command-let-arrow": ("let x <- [1.0] in [| x |]\n", (1, 7),
                          "a command let binds with `<=` (`let x <= P in Q`); `<-` binds in a term let, inside "
                          "[| … |]"),
    "operation-arrow": ("op F : Real(1) -> Real(1)\nF([1.0])\n", (1, 16),
                        "an operation's type is written A ~> B (or A ▷ B), not with ->"),
    "no-main-command": ("op F : Real(1) ~> Real(1)\n", (1, 26),
                        "missing the main command: a program is declarations followed by one command"),
}


@pytest.mark.parametrize("case", sorted(PARSE_ERRORS))
def test_parse_errors_are_specific(tmp_path, capsys, case):
    text, (line, column), message = PARSE_ERRORS[case]
    code, _, err = run_cli(tmp_path, capsys, text, "check")
    assert code == 2
    assert err[0] == f"prog.rh:{line}:{column}: error (parse): {message}"
    assert err[1] == text.split("\n")[line - 1]
    assert err[2] == " " * (column - 1) + "^"
    assert len(err) == 3
    with pytest.raises(BadInput) as e:          # the API keeps "line L, column C" in the message
        surface.parse(text)
    assert e.value.message == f"line {line}, column {column}: {message}"


def test_proj_0_is_a_syntax_error_with_a_position(tmp_path, capsys):
    code, _, err = run_cli(tmp_path, capsys, "[| <[1.0], proj_0(<[1.0]>)> |]\n", "check")
    assert code == 2
    assert err == ["prog.rh:1:12: error (syntax): projections count from 1: proj_1, proj_2, … (proj_0 does not "
                   "exist; proj_1 is the first component)",
                   "[| <[1.0], proj_0(<[1.0]>)> |]",
                   " " * 11 + "^"]


def test_the_caret_lines_up_under_tabs(tmp_path, capsys):
    code, _, err = run_cli(tmp_path, capsys, "[|\tswish(u) |]\n", "check")
    assert code == 2
    assert err[0].startswith("prog.rh:1:4: error (parse): the primitive swish")
    assert err[1:] == ["[|\tswish(u) |]", "  \t^"]


def test_exit_codes_of_the_installed_command(tmp_path):
    """The real process: 2 for a type error or an unhandled operation at check time, 1 at run time."""
    cases = [(SWISH, "check", 2), (UNHANDLED, "check", 2), (UNHANDLED, "run", 1), (DUPLICATE, "check", 2),
             ("[| swish(u) |]\n", "run", 2)]
    for i, (text, command, code) in enumerate(cases):
        f = tmp_path / f"p{i}.rh"
        f.write_text(text)
        p = subprocess.run([sys.executable, "-m", "revhandlers", command, str(f)], capture_output=True, text=True,
                           timeout=120, cwd=ROOT)
        assert p.returncode == code, (text, p.stderr)
        assert "Traceback" not in p.stderr
        assert p.stderr.startswith(f"{f}:")


# ------------------------------------------------------------- positions in the AST

def test_positions_are_recorded_and_ignored_by_equality():
    prog = surface.parse("let a <= [| <[1.0], [2.0]> |] in\n  [| proj_1(a) + proj_2(a) |]\n")
    main = prog.main
    assert main.pos == (1, 1) and main.bound.pos == (1, 10) and main.bound.term.pos == (1, 13)
    assert main.body.pos == (2, 3) and main.body.term.pos == (2, 6)
    assert main.body.term.left.pos == (2, 6) and main.body.term.right.pos == (2, 18)
    assert main.body.term.left.arg.pos == (2, 13)
    # equality, hashing and repr ignore positions; constructions without one keep working
    bare = ast.CLet("a", ast.Ret(ast.Tuple((ast.Const((1.0,)), ast.Const((2.0,))))),
                    ast.Ret(ast.Add(ast.Proj(0, ast.Var("a")), ast.Proj(1, ast.Var("a")))))
    assert main == bare and hash(main) == hash(bare) and repr(main) == repr(bare)
    assert ast.Var("x", pos=(3, 4)) == ast.Var("x") and "pos" not in repr(ast.Var("x", pos=(3, 4)))


def test_clause_and_handler_positions():
    prog = surface.parse(DUPLICATE)
    h = prog.main.handler
    assert prog.main.pos == (2, 1) and h.pos == (2, 35)
    assert [c.pos for c in h.clauses] == [(4, 3), (5, 3)]
    assert h.clauses[0].fwd.pos == (4, 13) and h.clauses[0].bwd.pos == (4, 36)
    assert prog.ops[0].pos == (1, 1)


EXAMPLES = sorted((ROOT / "examples").glob("*.rh"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples_round_trip_check_and_have_no_handler_warnings(path):
    prog = rh.load(path)
    assert surface.parse(surface.pretty(prog)) == prog
    check_program(prog)
    assert handler_checks(prog) == []


def test_errors_still_compare_by_kind_and_rule():
    a = surface.parse(SWISH)
    with pytest.raises(RevHandlersError) as e:
        check_program(a)
    assert e.value == rh.TypeCheckError("typed_tm_app", "another message")
