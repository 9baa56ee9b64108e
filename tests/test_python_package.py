"""The Python package: the AST mirrors the Coq constructors, S-expressions
and the surface syntax round-trip, the mirrored type checker agrees with the
extracted one, the numpy reference agrees with the verified evaluator on
every example program, and the command line behaves."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import revhandlers as rh
from revhandlers import sexpio
from revhandlers.rh import syntax as ast, sexp, surface
from revhandlers.errors import RevHandlersError
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.prims import PRIMS
from revhandlers.rh.strategies import programs
from revhandlers.rh.typecheck import check_program

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE_FILES = sorted((ROOT / "examples").rglob("*.rh")) + sorted((ROOT / "examples").rglob("*.sexp"))
TOL = dict(rtol=1e-9, atol=1e-12)


def coq_constructors(path: Path, inductive: str) -> list[str]:
    """Constructor names of ``Inductive inductive`` (up to the next ``with`` or ``.``)."""
    text = re.sub(r"\(\*.*?\*\)", "", path.read_text(), flags=re.S)
    m = re.search(rf"\b(?:Inductive|with)\s+{inductive}\b.*?:=(.*?)(?:\bwith\b|\.\s*$)", text, re.S | re.M)
    assert m, inductive
    return re.findall(r"\|\s*([A-Z][A-Za-z0-9_]*)", m.group(1))


def test_ast_mirrors_the_coq_constructors():
    coq = set()
    for path, ind in [("signature.v", "ty"), ("signature.v", "opsym"), ("syntax.v", "tm"),
                      ("syntax.v", "cmd"), ("syntax.v", "handler"), ("syntax.v", "clauses")]:
        names = coq_constructors(ROOT / "theories" / "rh" / path, ind)
        assert names, (path, ind)
        coq |= set(names)
    python = {cls.__name__ for cls in ast.COQ_MIRRORED}
    # documented differences: a Python tuple ends the clause list
    assert coq - python == {"CNil"}
    assert python - coq == set()
    for cls in ast.COQ_MIRRORED:
        assert cls.__doc__ and "Coq" in cls.__doc__, cls


def test_primitives_mirror_the_coq_prim_constructors():
    coq = set(coq_constructors(ROOT / "theories" / "rh" / "instance.v", "prim"))
    assert coq == {c for c, _ in PRIMS.values()}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_sexp_round_trip(prog):
    assert sexp.parse_program(sexp.program_sexp(prog)) == prog


def test_names_that_are_not_identifiers_are_quoted_and_read_back():
    prog = ast.Program(ast.Ret(ast.Let("x y", ast.Const((1.0,)), ast.Var("x y"))))
    text = sexp.program_sexp(prog)
    assert '(let "x y" (const 1.0) "x y")' in text
    assert sexp.parse_program(text) == prog


SEXP_PIECES = ["(", ")", "(", ")", " ", "\n", "\t", '"', "a", "b-1", "1", "-0", "+2", "1.5", ".5", "5.", "1e5",
               "1_0", "0x1", "nan", "-inf", "x y", ";", "'", "[", "]", "{", "\\", "\xa0"]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(SEXP_PIECES), max_size=25).map("".join))
def test_fast_sexp_reader_reads_what_sexpdata_reads(text):
    """The reader of rh-eval's answers either leaves a text to sexpdata or
    reads exactly what sexpdata reads (lists, symbols, ints, floats, strings)."""
    import sexpdata
    fast = sexpio._fast_loads(text)
    if fast is None:
        return
    assert repr(fast) == repr(sexpdata.loads(text, true=None, false=None, nil=None))


def test_fast_sexp_reader_reads_rh_eval_answers(verified):
    import sexpdata
    prog = rh.load(ROOT / "examples" / "mlp.rh")
    for line in [verified.request(f"(run {sexp.program_sexp(prog)})"),
                 verified.request(f"(coverage {sexp.program_sexp(prog)})"),
                 verified.request(f"(trace {sexp.program_sexp(rh.load(ROOT / 'examples' / 'one_layer.rh'))})"),
                 verified.request("(check (program (main (ret (app (swish 1) (const 1.0 2.0))))))")]:
        fast = sexpio._fast_loads(line)
        assert fast is not None and fast == sexpdata.loads(line, true=None, false=None, nil=None)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_surface_round_trip(prog):
    assert surface.parse(surface.pretty(prog)) == prog


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


def verdict(fn):
    try:
        return ("ok", fn())
    except RevHandlersError as e:
        return ("error", e.kind, e.rule)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_type_checkers_agree_on_generated_programs(verified, prog):
    assert verdict(lambda: check_program(prog)) == verdict(lambda: verified.check(prog))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_type_checkers_agree_on_examples(verified, path):
    prog = rh.load(path)
    ours = verdict(lambda: check_program(prog))
    assert ours[0] == "ok"
    assert ours == verdict(lambda: verified.check(prog))


HAND_WRITTEN_ILL_TYPED = {
    "typed_tm_app": "[| swish[3]([1.0]) |]",
    "typed_tm_add": "[| [1.0] + <[1.0]> |]",
    "typed_tm_proj": "[| proj_3(<[1.0], [2.0]>) |]",
    "typed_tm_rd": "[| [1.0, 2.0].rd(x. swish[1](x))([3.0]) |]",
    "typed_cmd_revhandle": "rev handle([1.0])<x>. [| x |] with { return x -> [| x |] }",
    "typed_handler_rev": "rev handle(<[1.0]>)<x>. [| x |] with { return x -> [| [1.0, 2.0] |] }",
}


@pytest.mark.parametrize("rule", sorted(HAND_WRITTEN_ILL_TYPED))
def test_hand_written_ill_typed_programs(verified, rule):
    prog = surface.parse(HAND_WRITTEN_ILL_TYPED[rule])
    assert verdict(lambda: check_program(prog)) == ("error", "type", rule)
    assert verdict(lambda: verified.check(prog)) == ("error", "type", rule)


def assert_same_value(a, b):
    if isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, **TOL)
    else:
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_same_value(x, y)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_reference_agrees_with_the_verified_evaluator(verified, path):
    prog = rh.load(path)
    a = verified.run(prog)
    b = rh.run(prog, engine="reference")
    assert_same_value(a.value, b.value)
    assert a.heap.keys() == b.heap.keys()
    for name in a.heap:
        np.testing.assert_allclose(a.heap[name], b.heap[name], **TOL)


def test_surface_and_sexp_examples_are_the_same_program():
    assert rh.load(ROOT / "examples" / "one_layer.rh") == rh.load(ROOT / "examples" / "sexp" / "one_layer.sexp")


@pytest.mark.parametrize("text,line,column", [
    ("rev handle(<[1.0]>)<x>. [| x |] with {\n  return x -> [| x |\n}", 2, 20),
    ("op F : Real(1) ~> Real(1)\n\nF([1.0) ", 3, 7),
    ("[| proj_0(<[1.0]>) |]", None, None),
])
def test_syntax_errors_name_line_and_column(text, line, column):
    with pytest.raises(RevHandlersError) as e:
        surface.parse(text)
    if line is None:
        assert e.value.kind == "syntax" and "count from 1" in e.value.message
    else:
        assert e.value.kind == "parse"
        assert f"line {line}, column {column}" in e.value.message


def test_unicode_and_ascii_spellings_agree():
    ascii_ = "let a <= [| let b <- <[1.0], [2.0]> in proj_1(b) + proj_2(b) |] in [| <a> |]"
    uni = "let a ⇐ ⌊let b ← ⟨[1.0], [2.0]⟩ in proj_1(b) + proj_2(b)⌋ in ⌊⟨a⟩⌋"
    assert surface.parse(ascii_) == surface.parse(uni)


def test_residual_type_is_inferred_from_the_forward_clause():
    explicit = rh.load(ROOT / "examples" / "sexp" / "one_layer.sexp")
    inferred = surface.parse((ROOT / "examples" / "one_layer.rh").read_text().replace(" : Real(6) * Real(2)", ""))
    assert inferred == explicit


def test_errors_become_python_exceptions(verified):
    with pytest.raises(rh.TypeCheckError) as e:
        verified.check(surface.parse("[| swish[3]([1.0]) |]"))
    assert e.value.rule == "typed_tm_app" and e.value.exit_code == 2
    with pytest.raises(rh.RuntimeFailure) as e:
        verified.run(surface.parse("op F : Real(1) ~> Real(1)\nF([1.0])"))
    assert e.value.kind == "unhandled-operation" and e.value.exit_code == 1
    with pytest.raises(rh.RuntimeFailure) as e2:
        rh.run(surface.parse("op F : Real(1) ~> Real(1)\nF([1.0])"), engine="reference")
    assert e2.value == e.value


def test_run_with_a_heap_override(tmp_path):
    prog = rh.load(ROOT / "examples" / "one_layer.rh")
    w = np.array([[0.5, 0.0], [0.0, 1.0], [1.0, 1.0]])
    a = rh.run(prog, heap={"l": w})
    b = rh.run(prog, heap={"l": w}, engine="reference")
    v = np.array([0.5, -1.0])
    u = 0.1 * (w @ v - np.array([1.0, 0.0, 0.0]))
    np.testing.assert_allclose(a.heap["l"], (w - np.outer(u, v)).ravel(), **TOL)
    np.testing.assert_allclose(b.heap["l"], (w - np.outer(u, v)).ravel(), **TOL)


# ------------------------------------------------------------- command line

def cli(*args: str) -> tuple[int, str, str]:
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def test_cli_run_prints_the_same_with_both_engines():
    c1, out1, _ = cli("run", "examples/one_layer.rh")
    c2, out2, _ = cli("run", "examples/one_layer.rh", "--engine", "reference")
    assert c1 == c2 == 0
    body1 = [line for line in out1.splitlines() if line.startswith(("value", "heap"))]
    body2 = [line for line in out2.splitlines() if line.startswith(("value", "heap"))]
    assert body1 == body2 and len(body1) == 2
    assert "steps: 28" in out1


def test_cli_exit_codes_and_messages(tmp_path):
    bad = tmp_path / "bad.rh"
    bad.write_text("[| swish[3]([1.0]) |]\n")
    code, _, err = cli("check", str(bad))
    assert code == 2 and "typed_tm_app" in err
    unhandled = tmp_path / "unhandled.rh"
    unhandled.write_text("op F : Real(1) ~> Real(1)\nF([1.0])\n")
    code, _, err = cli("run", str(unhandled))
    assert code == 1 and "unhandled-operation" in err
    code, _, _ = cli("run", str(tmp_path / "missing.rh"))
    assert code == 2
    code, out, _ = cli("--help")
    assert code == 0 and "check" in out and "trace" in out
    code, _, _ = cli("frobnicate")
    assert code == 2


def test_cli_heap_file(tmp_path):
    w = np.arange(6.0) / 10
    np.savez(tmp_path / "h.npz", l=w)
    code, out, _ = cli("run", "examples/one_layer.rh", "--heap", str(tmp_path / "h.npz"))
    assert code == 0
    ref = rh.run(rh.load(ROOT / "examples" / "one_layer.rh"), heap={"l": w}, engine="reference")
    shown = np.array([float(x) for x in re.findall(r"-?\d+\.\d*(?:e-?\d+)?", out.split("heap l:")[1])])
    np.testing.assert_allclose(shown, ref.heap["l"], rtol=1e-5, atol=1e-6)


def test_cli_fmt_round_trips(tmp_path):
    code, out, _ = cli("fmt", "examples/sexp/mlp_step.sexp")
    assert code == 0
    f = tmp_path / "mlp.rh"
    f.write_text(out)
    assert rh.load(f) == rh.load(ROOT / "examples" / "sexp" / "mlp_step.sexp")
    code, out2, _ = cli("fmt", str(f), "--to", "sexp")
    assert code == 0 and sexp.parse_program(out2) == rh.load(f)


def test_cli_trace_shows_the_lets_of_the_rewriting():
    code, out, _ = cli("trace", "examples/one_layer.rh")
    assert code == 0
    steps = out.split("── step ")
    assert steps[1].startswith("0") and "rev handle" in steps[1]
    assert steps[2].startswith("1") and "rev handle" not in steps[2] and steps[2].count("let") >= 3
    assert "── result" in out


def test_versions_agree():
    """revhandlers --version and every driver's --version print
    pyproject.toml's version."""
    import re
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    version = re.search(r'^version = "([^"]+)"', (root / "pyproject.toml").read_text(), re.M).group(1)
    runs = {"revhandlers": [sys.executable, "-m", "revhandlers", "--version"],
            "rh-eval": [str(root / "_build/default/extracted/rh-eval"), "--version"],
            "dbr-eval": [str(root / "_build/default/extracted/dbr-eval"), "--version"],
            "pullback-eval": [str(root / "_build/default/extracted/pullback-eval"), "--version"]}
    for name, cmd in runs.items():
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stdout.strip() == f"{name} {version}", (name, r.stdout, r.stderr)
