"""Bad input gets a clear error from every Python entry point, never a
traceback: one regression test per case found, and the agreement of the two
S-expression readers (Python's and rh-eval's) on number atoms."""

from __future__ import annotations

import math
import os
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh
from revhandlers.rh import sexp
from revhandlers.rh.syntax import Const, Let, Program, Ret, Var
from revhandlers.rh.command import bounded
from revhandlers.cli import main as cli_main
from revhandlers.errors import BadInput, RevHandlersError, RuntimeFailure
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.paths import rh_eval_path

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator(timeout=60)
    yield ev
    ev.close()


ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "pytools")] + [os.environ.get("PYTHONPATH", "")])}


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m revhandlers.cli ARGS`` in a subprocess (this checkout's package)."""
    return subprocess.run([sys.executable, "-m", "revhandlers.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=ENV)


def assert_clean(p: subprocess.CompletedProcess, code: int, *words: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    for w in words:
        assert w in p.stderr, (w, p.stderr)


# ------------------------------------------------------------- input files

def test_a_file_that_is_not_utf8_is_bad_input(tmp_path):
    f = tmp_path / "latin1.sexp"
    f.write_bytes(b"(program (main (ret (const 1.0))))\n; caf\xe9\n")
    for command in ("check", "run", "fmt", "trace"):
        assert_clean(cli(command, str(f)), 2, "not UTF-8", "line 2")
    g = tmp_path / "latin1.rh"
    g.write_bytes(b"# caf\xe9\n[| [1.0] |]\n")
    assert_clean(cli("run", str(g), "--engine", "reference"), 2, "not UTF-8", "line 1")


def test_a_missing_file_or_a_directory_is_bad_input(tmp_path):
    assert_clean(cli("run", str(tmp_path / "nope.rh")), 2, "(io)")
    assert_clean(cli("check", str(tmp_path)), 2, "(io)")


# ----------------------------------------------------- names with newlines

def test_a_name_with_a_newline_is_escaped_on_one_line(verified):
    prog = Program(Ret(Let("a\nb\t\"c\\", Const((1.0,)), Var("a\nb\t\"c\\"))))
    text = sexp.program_sexp(prog)
    assert "\n" not in text and '"a\\nb\\t\\"c\\\\"' in text
    assert sexp.parse_program(text) == prog                 # Python reads it back
    res = verified.run(prog)                                 # and so does rh-eval
    assert res.value.tolist() == [1.0]


def test_a_sexp_file_with_a_newline_in_a_name_runs_on_both_engines(tmp_path):
    f = tmp_path / "nl.sexp"
    f.write_text('(program (main (let "a\\nb" (ret (const 2.5)) (ret "a\\nb"))))\n')
    for engine in ("verified", "reference"):
        p = cli("run", str(f), "--engine", engine)
        assert_clean(p, 0)
        assert "value: [2.5]" in p.stdout


@pytest.mark.parametrize("text", ["(check (program\n(main (ret (const)))))", "   "],
                         ids=["raw-line-break", "empty"])
def test_a_malformed_request_is_bad_input_not_a_value_error_or_a_hang(verified, text):
    with pytest.raises(BadInput):
        verified.request(text)


def test_fmt_refuses_names_the_surface_syntax_cannot_write(tmp_path):
    f = tmp_path / "space.sexp"
    f.write_text('(program (main (let "x y" (ret (const 1.0)) (ret "x y"))))\n')
    assert_clean(cli("fmt", str(f)), 2, "cannot be written in the surface syntax")
    p = cli("fmt", "--to", "sexp", str(f))
    assert_clean(p, 0)
    assert sexp.parse_program(p.stdout) == sexp.parse_program(f.read_text())


# ------------------------------------------------------- primitive corners

def test_conv1d_with_no_input_channel_on_the_reference(verified):
    # the kernel's gradient of a convolution with c = 0: an empty vector
    prog = rh.parse("[| [1.0, 2.0].rd(k. conv1d[0,1,3,2](<k, []>))([]) |]")
    ref = rh.run(prog, engine="reference")
    assert ref.value.shape == (0,)
    assert verified.run(prog).value.shape == (0,)
    # ... and with c' = 0: no output channel
    prog = rh.parse("[| [].rd(k. conv1d[1,0,3,2](<k, [1.0, 2.0, 3.0]>))([]) |]")
    assert rh.run(prog, engine="reference").value.shape == (0,)
    assert verified.run(prog).value.shape == (0,)


# ------------------------------------------------------------ heap archives

HEAP_PROG = "loc l :: (3)\nlet v <= Get[l]() in [| v |]\n"


@pytest.mark.parametrize("arrays, kind", [
    ({"l": np.array(["a", "b", "c"])}, "number"),            # strings
    ({"l": np.array([1.0, 2.0])}, "shape"),                  # too short
    ({"l": np.array([1.0, 2.0, 3.0, 4.0])}, "shape"),        # too long
    ({"m": np.array([1.0, 2.0, 3.0])}, "unbound"),           # no such location
    ({"l": np.array([1.0, np.nan, 3.0])}, "number"),         # NaN
    ({"l": np.array([1.0, np.inf, 3.0])}, "number"),
    ({"l": np.array([1 + 2j, 0, 0])}, "number"),             # complex
    ({"l": np.array([True, False, True])}, "number"),        # booleans
])
def test_bad_heap_archives_are_rejected_alike_by_both_engines(tmp_path, arrays, kind):
    prog_file = tmp_path / "p.rh"
    prog_file.write_text(HEAP_PROG)
    npz = tmp_path / "h.npz"
    np.savez(npz, **arrays)
    for engine in ("verified", "reference"):
        assert_clean(cli("run", str(prog_file), "--heap", str(npz), "--engine", engine), 2, f"({kind})")
    if kind in ("shape", "unbound") or arrays["l" if "l" in arrays else "m"].dtype.kind == "f":
        # the same through the API: the kind rh-eval gives
        prog = rh.parse(HEAP_PROG)
        heap = {k: v for k, v in arrays.items()}
        kinds = set()
        for engine in ("verified", "reference"):
            with pytest.raises(BadInput) as e:
                rh.run(prog, heap=heap, engine=engine)
            kinds.add(e.value.kind)
        assert kinds == {kind}


def test_a_good_heap_archive_of_any_shape(tmp_path):
    prog_file = tmp_path / "p.rh"
    prog_file.write_text(HEAP_PROG)
    npz = tmp_path / "h.npz"
    np.savez(npz, l=np.array([[1, 2, 3]], dtype=np.int32))
    for engine in ("verified", "reference"):
        p = cli("run", str(prog_file), "--heap", str(npz), "--engine", engine)
        assert_clean(p, 0)
        assert "value: [1., 2., 3.]" in p.stdout


def test_a_heap_file_that_is_not_an_archive(tmp_path):
    prog_file = tmp_path / "p.rh"
    prog_file.write_text(HEAP_PROG)
    junk = tmp_path / "h.npz"
    junk.write_bytes(b"PK\x03\x04 not really")
    assert_clean(cli("run", str(prog_file), "--heap", str(junk)), 2, "(io)")


# ----------------------------------------------------- degenerate options

@pytest.mark.parametrize("args", [
    ["fuzz", "--n", "0"], ["fuzz", "--n", "-5"], ["fuzz", "--jobs", "0"], ["fuzz", "--max-size", "0"],
    ["fuzz", "--timeout", "0"], ["fuzz", "--timeout", "nan"], ["fuzz", "--timeout", "-1"],
    ["train", "examples/mlp.rh", "--train-size", "0"], ["train", "examples/mlp.rh", "--hidden", "0"],
    ["train", "examples/mlp.rh", "--epochs", "0"],
    ["run", "examples/one_layer.rh", "--timeout", "0"], ["run", "examples/one_layer.rh", "--timeout", "inf"],
    ["check", "examples/one_layer.rh", "--timeout", "x"],
])
def test_degenerate_options_are_bad_input(args, capsys):
    assert cli_main(args) == 2
    assert "Traceback" not in capsys.readouterr().err


# ------------------------------------------------------- a dead evaluator

def _wait_for(cond, what: str) -> None:
    for _ in range(1000):
        if cond():
            return
        time.sleep(0.01)
    raise AssertionError(what)


def test_an_evaluator_dead_before_the_request_is_written(tmp_path):
    """The process is alive but no longer reads: writing the request breaks
    the pipe, which is reported as a RevHandlersError (not BrokenPipeError),
    and the next request starts a new process."""
    ev = VerifiedEvaluator()
    proc = subprocess.Popen(["sh", "-c", "exec 0<&-; sleep 60"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    _wait_for(lambda: not os.path.exists(f"/proc/{proc.pid}/fd/0"), "the process closes its input")
    ev._proc = proc
    try:
        with pytest.raises(RevHandlersError) as e:
            ev.request("(check (program (main (ret (const)))))")
        assert "before reading the request" in e.value.message
        assert proc.poll() is not None                      # reaped
        assert ev.check(rh.parse("[| [1.0] |]")) is not None  # a fresh rh-eval answers
    finally:
        ev.close()
        if proc.poll() is None:
            proc.kill()


def test_an_evaluator_that_stops_without_answering(tmp_path):
    ev = VerifiedEvaluator()
    ev._proc = subprocess.Popen(["sh", "-c", "read x; exit 5"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        with pytest.raises(RevHandlersError) as e:
            ev.request("(check (program (main (ret (const)))))")
        assert "without answering" in e.value.message and "exit code 5" in e.value.message
    finally:
        ev.close()


def test_the_time_limit_covers_the_whole_answer():
    """An answer that starts in time but does not end is a timeout too."""
    ev = VerifiedEvaluator(timeout=0.5)
    ev._proc = subprocess.Popen(["sh", "-c", "read x; printf '(result'; exec sleep 60"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE)
    proc = ev._proc
    try:
        with pytest.raises(RuntimeFailure) as e:
            ev.request("(check (program (main (ret (const)))))")
        assert e.value.kind == "timeout" and proc.poll() is not None and ev._proc is None
    finally:
        ev.close()


def test_an_evaluator_that_cannot_be_started(tmp_path):
    script = tmp_path / "rh-eval"
    script.write_text("not a program")
    script.chmod(0o644)                                     # exists, not executable
    with pytest.raises(RevHandlersError):
        VerifiedEvaluator(path=script).request("(check (program (main (ret (const)))))")


# ------------------------------------------------------------ time limits

def test_the_time_limit_of_the_reference_engine():
    with pytest.raises(RuntimeFailure) as e:
        bounded(0.05, time.sleep, 30)
    assert e.value.kind == "timeout" and e.value.exit_code == 1
    assert bounded(5, lambda: 7) == 7
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)   # the alarm is off again


SLOW = ("loc a :: (1000, 1000)\n" + "".join(f"let m{i} <= Get[a]() in\n" for i in range(1))
        + "[| " + "matmul[1000,1000,1000](<" * 12 + "m0" + ", m0>)" * 12 + " |]\n")


@pytest.mark.parametrize("engine", ["verified", "reference"])
def test_run_stops_at_its_time_limit(tmp_path, engine):
    f = tmp_path / "slow.rh"
    f.write_text(SLOW)
    assert_clean(cli("run", str(f), "--engine", engine, "--timeout", "0.05"), 1, "(timeout)", "0.05")


def test_trace_and_check_take_a_time_limit(tmp_path):
    f = tmp_path / "slow.rh"
    f.write_text(SLOW)
    assert_clean(cli("trace", str(f), "--timeout", "0.05"), 1, "(timeout)")
    assert_clean(cli("check", str(f), "--timeout", "30"), 0)
    assert "--timeout SECONDS" in cli("run", "--help").stdout


# ------------------------------------------------------ S-expression reader

@pytest.mark.parametrize("text, detail", [
    ('(program (main (ret "abc', "unterminated string"),
    ("", "empty input"),
    ("(a) (b)", "more than one"),
    ("(a", "unclosed parentheses"),
    ("(a))", "unexpected ')'"),
])
def test_sexp_reader_messages(text, detail):
    with pytest.raises(BadInput) as e:
        sexp.parse_program(text)
    assert e.value.kind == "parse" and detail in e.value.message


# -------------------------------------------------- number atoms agree

# Each atom is read by rh-eval (OCaml's float_of_string / int_of_string)
# and by Python's reader; docs/sexp-format.md, "Number atoms".
NUMBER_ATOMS = [
    "1", "-0", "+0", "-0.0", "+1.5", "1e5", "1E5", "1.e5", ".5", "5.", "00012", "1_0", "_1", "1__2", "1e1_0",
    "0x10", "0X1p3", "0x1.8p1", "-0x0", "0x.8", "0x_1", "0x1p1_0", "0x1P-1074", "0x1p-1075",
    "0x1.0000000000000fffffffp0", "0x10000000000000000000000000p-100", "0x1.fffffffffffff8p1023",
    "4.9406564584124654e-324", "2.4703282292062328e-324", "2.4703282292062327e-324", "1e-400",
    "1e400", "0x1p5000", "0x1p99999999999", "inf", "-inf", "+inf", "infinity", "INF", "nan", "NaN", "-nan",
    "nan(123)", "1" * 400,
    "0b11", "0o7", "0x", "0x.p1", "0x1p", "0xg", "0x1.8.p1", "0x1.p", ".", "e5", "1e", "1e+", "+-1", "--1",
    "1.5f", "1,5", "_", "infinit", "nan(-)", "\u0661", "\u0661.5", "\uff11", "1\u00a0", "12.5\u2009",
    "0x1p 3", " 1", "1 ", "\t1", "\n1.5", "\x0b1.5", "\x0c1.5", "\r1.5", "\x0e1.5", " 0x10", " 0x1p 3",
    "0_x1p 3", "0x1p3 ", "0x1p\t3", "1.5\n", "",
]


def _quoted(atom: str) -> str:
    """An atom as both readers read it: bare if it is a plain token."""
    if atom and all(c not in ' \t\n\r\x0b\x0c()";\\\'[]{}' for c in atom) and atom.isprintable():
        return atom
    return sexp.name_sexp(atom) if atom else '""'


def _outcome(fn):
    try:
        return ("ok", fn())
    except RevHandlersError as e:
        return ("error", e.kind)


def _bits(v) -> tuple:
    return tuple(struct.pack("<d", x) for x in np.asarray(v, dtype=float).reshape(-1))


@pytest.mark.parametrize("atom", NUMBER_ATOMS)
def test_both_readers_read_a_number_atom_alike(verified, atom):
    text = f"(program (main (ret (const {_quoted(atom)}))))"
    ours = _outcome(lambda: _bits(sexp.parse_program(text).main.term.values))
    theirs = _outcome(lambda: _bits(sexp.read_answer(verified.request(f"(run {text})")).value))
    assert ours == theirs, (atom, ours, theirs)
    # and what Python reads follows the documented grammar
    x = sexp.ocaml_float(atom)
    if x is None:
        assert ours == ("error", "syntax")
    elif not math.isfinite(x):
        assert ours == ("error", "number")


NAT_ATOMS = ["0", "7", "-0", "+7", "0x10", "0X1f", "0b101", "0o17", "0u9", "1_0", "0_", "_1", "1e1", "1.0",
             "-1", "0x_1", "1000000", "1000001", "0x7FFFFFFFFFFFFFFF", "-0x7FFFFFFFFFFFFFFF", "9" * 30,
             "\u0661", "inf", "nan", " 1", "x"]


@pytest.mark.parametrize("atom", NAT_ATOMS)
def test_both_readers_read_a_natural_number_alike(verified, atom):
    # (pad 1 1 N) makes a vector of N numbers from one
    text = f"(program (main (ret (app (pad 1 1 {_quoted(atom)}) (const 1.0)))))"
    if sexp.ocaml_int(atom) is not None and sexp.ocaml_int(atom) > 1000:
        text = f"(program (main (ret (app (pad 1 1 {_quoted(atom)}) (const)))))"     # ill-typed unless N = 1
    ours = _outcome(lambda: len(rh.run(sexp.parse_program(text), engine="reference").value))
    theirs = _outcome(lambda: len(sexp.read_answer(verified.request(f"(run {text})")).value))
    assert ours == theirs, (atom, ours, theirs)


@pytest.mark.parametrize("name", ["5", "1.50", "-0", "0x10", "1e5"])
def test_an_atom_that_reads_as_a_number_is_a_name_where_a_name_is_expected(verified, name):
    text = f"(program (main (let {name} (ret (const 1.5)) (ret {name}))))"
    prog = sexp.parse_program(text)
    assert prog.main.var == name
    assert rh.run(prog, engine="reference").value.tolist() == [1.5]
    assert sexp.read_answer(verified.request(f"(run {text})")).value.tolist() == [1.5]
    with pytest.raises(BadInput) as e:
        rh.check(sexp.parse_program(f"(program (main (ret {name})))"), engine="reference")
    assert e.value.kind == "unbound"


# Comments and atom characters as rh-eval (OCaml's Parsexp) reads them.
LEXICAL = ['(program #| c |# (main (ret (const))))', '(program (main (ret (const 1 |#))))',
           '(program #;(fuel 1) (main (ret (const))))', '(program (main (ret (const a#|b |# 1))))',
           '(program (main (ret (const a|#b))))', '(program (main (ret (const #a 1))))',
           '(program (main (ret (const #|a #| b |# "|#" |# 1))))', '(program (main (ret (const #; 2 1))))',
           '(program (main (ret (const #;(1 2) 1))))', '(program (main (ret (const #;#;1 2 3))))',
           '(program (main (ret (const a;b\n 1))))', '(program (main (ret (const #;))))',
           '(program (main (ret (const 1#;2))))', '(program (main (ret (const |a))))',
           '(program (main (ret (const #|a))))', '(program (main (ret (const 1\x0b2))))',
           '(program (main (ret (const [1]))))', "(program (main (ret (const '1))))",
           '(program (main (let "a\\065" (ret (const 1)) (ret "aA"))))', '(program (main (ret (const #; #| x |# 1 2))))',
           '(program (main (ret (const 1 #;\n2))))', '#;(a) (program (main (ret (const))))',
           '(program (main (ret (const)))) #;(a)', '(program (main (ret (const 1)))) ;',
           '(program (main (ret (const 1\x0c2))))', '(program (main (ret (const "1"2))))']


@pytest.mark.parametrize("text", LEXICAL, ids=range(len(LEXICAL)))
def test_both_readers_read_comments_and_atoms_alike(text):
    """Each text is one S-expression for both readers or for neither (a
    parse error); when it is one, both give the same outcome class."""
    try:
        from revhandlers.rh.typecheck import check_program
        check_program(sexp.parse_program(text))
        ours = "ok"
    except RevHandlersError as e:
        ours = e.kind
    out = subprocess.run([str(rh_eval_path()), "--check"], input=text.encode(), capture_output=True).stdout.decode()
    theirs = "ok" if out.startswith("(ok") else out.split("(kind ", 1)[1].split(")", 1)[0]
    assert ours == theirs, (text, ours, out)


def test_a_message_quoting_a_deep_subterm_is_abbreviated_not_a_crash():
    """The reader accepts text nested up to 8000 levels before it measures
    the program; a message quoting such a subterm is built without recursion
    (it used to overflow the C stack: a segmentation fault)."""
    code = ("from revhandlers.rh import sexp\n"
            "t = '(program (main ' + '(tuple ' * 7990 + ')' * 7990 + '))'\n"
            "try:\n    sexp.parse_program(t)\nexcept sexp.BadInput as e:\n    print(e.kind, len(e.message))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, timeout=120)
    assert p.returncode == 0, p.stderr[-500:]
    kind, size = p.stdout.split()
    assert kind == "syntax" and int(size) < 400


def test_library_load_rejects_non_utf8_and_missing_files(tmp_path):
    """rh.load and rh.Session(path) answer a non-UTF-8 or missing file with
    BadInput (as the command line does), not UnicodeDecodeError."""
    import revhandlers as rh
    from revhandlers.errors import BadInput
    bad = tmp_path / "bad.rh"
    bad.write_bytes(b"\xff\xfe(program)")
    for call in (lambda: rh.load(bad), lambda: rh.Session(bad), lambda: rh.load(tmp_path / "missing.rh")):
        with pytest.raises(BadInput) as e:
            call()
        assert e.value.kind in ("parse", "io")


def test_rd_nested_four_deep_stops_at_the_time_limit():
    """rd nested four levels (its rewriting grows some thirty times per level)
    stops at rh-eval's --timeout with the runtime error timeout, exit 1,
    instead of running for minutes; the process answers."""
    from revhandlers.paths import rh_eval_path
    t = "(app (swish 1) (app (swish 1) y1))"
    for i in range(1, 5):
        t = f"(rd (const 1.0) y{i} {t} {'(const 0.3)' if i == 4 else f'y{i + 1}'})"
    # (four levels are within --max-rd-depth's default; their estimated size is within --max-rd-size's)
    proc = subprocess.run([str(rh_eval_path()), "--timeout", "2", "--max-rd-depth", "4"], input=f"(program (main (ret {t})))",
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 1, proc.stdout
    assert proc.stdout.startswith("(error (kind timeout)"), proc.stdout


def test_trace_keeps_its_time_limit_while_rendering(tmp_path):
    """A let chain of 997 additions: 1995 steps, each printed as the whole
    remaining program, so the rendering grows with the square of its size
    (about 45 s); `trace --timeout 2` stops it with the runtime error
    timeout, exit 1, and prints no partial trace."""
    k = 997
    body = f"x{k}"
    for i in range(k, 0, -1):
        body = f"(let x{i} (add x{i - 1} x{i - 1}) {body})"
    f = tmp_path / "chain.sexp"
    f.write_text(f"(program (main (ret (let x0 (const 1.0) {body}))))\n")
    p = cli("trace", "--timeout", "2", str(f), timeout=60)
    assert_clean(p, 1, "(timeout)", "--timeout")
    assert "── step" not in p.stdout
