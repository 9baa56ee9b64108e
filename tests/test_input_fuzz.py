"""Input fuzzing of every entry point, with a fixed seed and a small budget
(the longer campaign is ``scripts/input-fuzz.py --n N [--jobs J] [--max-seconds S]``): S-expressions
over the format's grammar, programs drawn by ``revhandlers.rh.gen`` (as
S-expressions and in the surface syntax), then subtree and byte-level
mutations (insertions, deletions, duplications, bytes that are not UTF-8,
huge numbers, nesting just past the limits).  They drive the Python
S-expression reader, the surface parser, one ``rh-eval --serve`` process
(a bound per request) and one-shot runs of ``rh-eval``, and every command
of the ``revhandlers`` command line in a subprocess.  A test fails on a
Python exception that is not a ``RevHandlersError`` (a traceback), an
``error (internal)``, a signal or an exit code outside {0, 1, 2}, a hang
past its bound, or an rh-eval answer that is not one well-formed line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from revhandlers.rh import gen, sexp, surface
from revhandlers.errors import RevHandlersError

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("input_fuzz", ROOT / "scripts" / "input-fuzz.py")
F = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(F)

def fixed(n: int) -> settings:
    """A fixed-seed run of ``n`` examples (derandomized, no example database)."""
    return settings(max_examples=n, derandomize=True, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))

# ---------------------------------------------------------------- strategies

words = st.sampled_from(F.KEYWORDS + F.NAMES + F.NUMBERS)
grammar_sexps = st.recursive(
    words, lambda kids: st.lists(kids, max_size=5).map(lambda xs: "(" + " ".join(xs) + ")"), max_leaves=25)
programs_as_sexp = gen.programs(max_size=5).map(sexp.program_sexp)
examples = [F.seed_texts(F.seed_programs(0, 0))]
example_sexps = st.sampled_from([t for t, is_surface in examples[0] if not is_surface])
example_rh = st.sampled_from([t for t, is_surface in examples[0] if is_surface])


def _pretty(p):
    try:
        return surface.pretty(p)
    except RevHandlersError:
        return "[| [] |]"


programs_as_rh = gen.programs(max_size=5).map(_pretty)

fraction = st.floats(0, 1, exclude_max=True)
mutation = st.one_of(
    st.tuples(st.sampled_from(F.MUTATIONS), fraction, fraction, st.integers(0, 1 << 30)),
    st.tuples(st.just("raw"), fraction, st.binary(min_size=1, max_size=12)),
)


def apply(text: bytes, ops, is_surface: bool = False) -> bytes:
    for op in ops:
        if op[0] == "raw":
            pos = int(op[1] * (len(text) + 1))
            text = text[:pos] + op[2] + text[pos:]
        else:
            text = F.mutate(text, op, is_surface)
    return text


mutations = st.lists(mutation, max_size=4)
sexp_inputs = st.builds(apply, st.one_of(grammar_sexps.map(str.encode), programs_as_sexp.map(str.encode),
                                         example_sexps), mutations)
rh_inputs = st.builds(lambda t, ops: apply(t, ops, True),
                      st.one_of(programs_as_rh.map(str.encode), example_rh), mutations)


def ok(outcome: str) -> None:
    assert not outcome.startswith("FAIL"), outcome


# -------------------------------------------------------- in-process readers

@fixed(300)
@given(sexp_inputs)
def test_python_sexp_reader(text):
    ok(F.python_reader(text))


@fixed(200)
@given(rh_inputs)
def test_surface_parser(text):
    ok(F.surface_parser(text))


EDGES = [
    b"", b" ", b"(", b")", b'"', b"(program", b"\xff\xfe", b"(program (main (ret (const \xff))))",
    b"(program (main (ret (const " + b"9" * 5000 + b"))))",
    b"(program (main (ret (const 1e400))))", b"(program (main (ret (const 0x1p99999999999))))",
    b"(program (locs (l (1000001))) (main (ret (const))))",
    b"(program (locs (l (100000 100000))) (main (ret (const))))",
    b"(program (main (ret (app (pad 1 1 1000000) (app (pad 1 1 1000000) (const 1.0))))))",
    b'(program (main (let "a\\nb" (ret (const 1)) (ret "a\\nb"))))',
    b'(program (main (ret "unterminated',
    b"(program (main (ret " + b"(tuple " * 1999 + b"(const)" + b")" * 1999 + b")))",
    b"(program (main (ret " + b"(tuple " * 2000 + b"(const)" + b")" * 2000 + b")))",
    b"(program (main (ret " + b"(tuple " * 8001 + b"(const)" + b")" * 8001 + b")))",
    b"(" * 100_000 + b")" * 100_000,
    b"(program (main (ret (const" + b" 1.5" * 300_000 + b"))))",
    # within the limit (tuples at levels 2 to 1999, the constant at 2000): read and checked, no RecursionError
    b"(program (main (ret " + b"(tuple " * 1998 + b"(const)" + b")" * 1998 + b")))",
    b"(program (main " + b"(let x (ret (const 1.0)) " * 1998 + b"(ret x)" + b")" * 1998 + b"))",
]


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_edges_on_the_python_reader(text):
    ok(F.python_reader(text))


RH_EDGES = [
    b"[| " + b"(" * 2001 + b"[]" + b")" * 2001 + b" |]",
    b"[| " + b"<" * 2001 + b"[]" + b">" * 2001 + b" |]",
    b"[| " + b"(" * 100_000 + b"[]" + b")" * 100_000 + b" |]",
    b"[| proj_99999999999999999999999(<[]>) |]", b"param n = " + b"9" * 5000 + b"\n[| [] |]",
    b"loc l :: (1000000, 1000000)\n[| [] |]", b"[| [1e400] |]", b"[| [" + b"9" * 5000 + b"] |]",
    b"[| swish[" + b"9" * 5000 + b"]([1.0]) |]",
]


@pytest.mark.parametrize("text", RH_EDGES, ids=range(len(RH_EDGES)))
def test_edges_on_the_surface_parser(text):
    ok(F.surface_parser(text))


# ------------------------------------------------------------------ rh-eval

@pytest.fixture(scope="module")
def server():
    s = F.Server(timeout=30)
    yield s
    s.close()


@fixed(300)
@given(text=sexp_inputs, form=st.integers(0, 2))
def test_rh_eval_serve_answers_every_request(server, text, form):
    ok(server.ask(F.request_line(text, form)))


@pytest.mark.parametrize("text", EDGES, ids=range(len(EDGES)))
def test_edges_on_rh_eval_serve(server, text):
    ok(server.ask(F.request_line(text, 0)))


def test_rh_eval_serve_answers_a_batch_as_one_at_a_time(server):
    """The campaign's batches (one write, answers in order) classify every
    request as requests sent one at a time do; blank lines get no answer."""
    lines = [F.request_line(t, k) for k, t in enumerate(EDGES)] + [b"", b"  "]
    one = [server.ask(line) for line in lines]
    assert server.ask_many(lines) == one
    assert one[-2:] == ["skipped:blank line"] * 2
    for outcome in one:
        ok(outcome)


@pytest.mark.parametrize("i", range(6))
def test_rh_eval_one_shot(i):
    text = [EDGES[7], EDGES[18], EDGES[19], b"", EDGES[14],
            F.mutate(b"(program (main (ret (const 1.0))))", ("insert_bytes", 0.5, 0, 10))][i]
    ok(F.oneshot(text, via_file=i % 2 == 0, timeout=60))


# --------------------------------------------------------- the command line

@fixed(28)
@given(source=st.one_of(sexp_inputs.map(lambda t: (t, False)), rh_inputs.map(lambda t: (t, True))),
       command=st.sampled_from(F.CLI_COMMANDS))
def test_every_cli_command(source, command):
    text, is_surface = source
    ok(F.cli(text, command, is_surface, timeout=30))


@pytest.mark.parametrize("text, is_surface, command", [
    (EDGES[7], False, ["run"]), (EDGES[18], False, ["check", "--engine", "reference"]),
    (EDGES[14], False, ["fmt"]), (RH_EDGES[0], True, ["run", "--engine", "reference"]),
    (RH_EDGES[3], True, ["trace"]),
])
def test_edges_on_the_cli(text, is_surface, command):
    ok(F.cli(text, command, is_surface, timeout=30))


# ------------------------------------------------------------- the campaign

def test_an_input_is_the_same_in_any_campaign_range():
    """Input I of seed S is drawn by its own generator: the same text and
    choices whatever ran before it (another range, another job)."""
    seeds = F.seed_texts(F.seed_programs(3, 0))
    a = [F.make_input(seeds, 5, i) for i in range(40, 60)]
    b = [F.make_input(seeds, 5, i) for i in reversed(range(50, 60))]
    assert a[10:] == b[::-1]
    assert len({x["text"] for x in a}) > 10             # the inputs differ from one another
    assert F.make_input(seeds, 6, 41)["text"] != a[1]["text"] or F.make_input(seeds, 6, 42)["text"] != a[2]["text"]


def test_jobs_cover_the_range_and_merge_the_counts(capsys):
    assert F.main(["--n", "30", "--start", "7", "--jobs", "2", "--programs", "2", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "inputs: 30 of 30 (seed 4, indices 7 to 36, 2 jobs)" in out
    served = int(out.split("\nrh-eval-serve: ")[1].split("\n")[0])
    reader = int(out.split("\npython-reader: ")[1].split("\n")[0])
    surface_ = int(out.split("\nsurface: ")[1].split("\n")[0])
    assert reader + surface_ == 30 and served == reader


def test_a_failure_is_reported_with_the_command_that_replays_it(monkeypatch, capsys):
    monkeypatch.setattr(F, "surface_parser", lambda text: "FAIL:planted")
    monkeypatch.setattr(F, "python_reader", lambda text: "ok")
    assert F.main(["--n", "20", "--jobs", "2", "--programs", "2", "--seed", "9"]) == 1
    out = capsys.readouterr().out
    seeds = F.seed_texts(F.seed_programs(2, 9))
    planted = [i for i in range(20) if F.make_input(seeds, 9, i)["surface"]]
    assert planted and f"failures: {len(planted)}" in out
    for i in planted[:10]:
        assert f"replay: scripts/input-fuzz.py --seed 9 --programs 2 --start {i} --n 1" in out
