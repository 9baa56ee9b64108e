"""Input fuzzing of every entry point: malformed, mutated and extreme
inputs for the Python S-expression reader, the surface parser, rh-eval
(one ``--serve`` process, plus one-shot runs) and the ``revhandlers``
command line; counts of the outcomes by class.

    python3 scripts/input-fuzz.py --n 100000 [--seed 0] [--start 0] [--jobs 1] [--cli-every 5000]
                                 [--oneshot-every 500] [--batch 50] [--max-seconds S]

An input is a seed program (the examples, and programs drawn by
``revhandlers.rh.gen``) as an S-expression or in the surface syntax, or a
random S-expression over the grammar's words, then a few mutations:
subtrees deleted, duplicated or swapped, atoms replaced (odd numbers, huge
numbers, names with quotes and line breaks), bytes inserted or deleted
(including bytes that are not UTF-8), nesting wrapped just past the limits.

A **failure** is a Python traceback (or any exception that is not a
``RevHandlersError``), an ``error (internal)``, a signal or an exit code
outside {0, 1, 2}, no answer within the bound, or an rh-eval answer that is
not one well-formed line ``(result …)``, ``(ok …)`` or ``(error …)``.
Every other outcome is counted by its class: ``ok``, ``bad-input:KIND``,
``runtime:KIND``.  Exit code 1 if there was a failure (the first few are
printed with their input), else 0.

The ``--serve`` requests of ``--batch`` inputs go to rh-eval in one write
and are answered in order, each within the bound; the first request left
without an answer (a hang, or the process gone) is the failure, and the
requests after it go to a new process.  ``--max-seconds`` ends the
campaign early, with the counts of the inputs it reached.

Input ``I`` of seed ``S`` is drawn by its own generator (seeded with ``S``
and ``I``): it is the same whatever ran before it, ``--jobs J`` splits the
indices ``START`` to ``START+N-1`` into ``J`` ranges, one process (and one
rh-eval) each, and merges the counts; a failure is printed with the command
that replays it (``--seed S --start I --n 1``, and ``--programs`` if it is
not the default: the seed programs depend on it).

``tests/test_input_fuzz.py`` uses the same mutations and drivers under
Hypothesis, with a fixed seed and a small budget."""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import select
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pytools"))

from revhandlers import interrupt  # noqa: E402
from revhandlers.errors import BAD_INPUT_KINDS, RUNTIME_KINDS, RevHandlersError  # noqa: E402
from revhandlers.paths import rh_eval_path  # noqa: E402
from revhandlers.rh import sexp, surface  # noqa: E402

#: address space of every process started (rh-eval, the CLI): a bound on memory
MEMORY_LIMIT = 3 << 30
#: seconds an rh-eval request may take; the CLI gets --timeout TIMEOUT and TIMEOUT + 30 s in all
TIMEOUT = 20.0

# ----------------------------------------------------------------- words

KEYWORDS = ["program", "ops", "locs", "heap", "fuel", "main", "ret", "op", "let", "revhandle", "handler",
            "return", "clause", "const", "app", "add", "tuple", "proj", "rd", "get", "put", "real", "prod",
            "f64", "swish", "smul", "sub", "matmul", "transpose", "round", "pad", "upscale", "concat", "conv1d",
            "maxpool", "run", "check", "trace", "load", "exec", "set", "read", "value", "unload"]
NAMES = ["x", "y", "z", "v0", "l", "l0", "F", "Op0", "r", '"x y"', '"a\\nb"', '"\\""', '"é"', '""', "λ",
         '"\\065"', '"\\xff"', "x'", "_", "[x]", "{", "#|", "|#", "#;", "'x", "`"]
NUMBERS = ["0", "1", "2", "3", "-1", "-0", "+0", "1.5", "-2.25e3", ".5", "5.", "1e5", "1E5", "1_0", "0x10",
           "0x1p-1074", "0b11", "0o7", "nan", "-nan", "inf", "-inf", "infinity", "1e400", "-1e400", "1e-400",
           "٣", "１", "1,5", "1e", "+-1", "1000000", "1000001", "4611686018427387904", "9" * 400, "9" * 5000,
           "0.1e99999", "0x1p99999999999", '"1.5"', '" 2"', "2.4703282292062328e-324"]
BYTES = [b"(", b")", b"((", b"))", b'"', b"\\", b";", b"\n", b"\r\n", b"\t", b" ", b"\x00", b"\xff", b"\xc3",
         b"\xe2\x82", b"\xed\xa0\x80", b"#|", b"|#", b"#;", b"'", b"[", b"]", b"\x1b[0m", "λ".encode(),
         "\u2028".encode(), b"\xef\xbb\xbf"]
SURFACE_WORDS = ["let", "in", "<-", "<=", "[|", "|]", "<", ">", "rev", "handle", "with", "return", "->", "|",
                 "proj_1", "proj_0", "proj_99999999999999999999", "Real(1000001)", "Real(99999999999999999999999)",
                 "Prod()", "rd[", "swish[3]", "matmul[1000000,1000000,1000000]", "Get[l]()", "Put[l]",
                 "param n = 99999999999999999999", "[1e400]", "[nan]", "{", "}", ";", ".rd(x. x)(x)", "⌊", "⌋",
                 "#", "op F : Real(1) ~> Real(1)", "loc l :: (1000000, 1000000)", "fuel 0"]

# ------------------------------------------------------------- structure


PARENS = re.compile(rb"[()]")


def spans(text: bytes) -> list[tuple[int, int]]:
    """The balanced parenthesised spans of ``text`` (strings and comments
    not understood: a mutation need not respect them)."""
    out, stack = [], []
    for m in PARENS.finditer(text):
        i = m.start()
        if text[i] == 0x28:
            stack.append(i)
        elif stack:
            out.append((stack.pop(), i + 1))
    return out


ATOM = re.compile(rb"[^\s()\"]+")


def atoms(text: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in ATOM.finditer(text)]


def deep(depth: int, kind: int) -> tuple[bytes, bytes]:
    """A prefix and a suffix that nest ``depth`` levels around a term
    (kinds 0 to 2) or a command (kind 3: a well-formed chain of lets, deep
    but within the limit for the smaller depths)."""
    if kind == 0:
        return b"(tuple " * depth, b")" * depth
    if kind == 1:
        return b"(add (const 1.0) " * depth, b")" * depth
    if kind == 2:
        return b"(let x " * depth, b" x)" * depth
    return b"(let x " * depth, b" (ret x))" * depth


DEPTHS = [500, 1990, 1999, 2000, 2001, 8001, 8002, 30000]

# A mutation is a tuple (name, *numbers): the numbers are fractions in
# [0, 1) or indices, so that Hypothesis can draw them and shrink them.
MUTATIONS = ["insert_bytes", "delete_bytes", "dup_bytes", "delete_span", "dup_span", "swap_spans",
             "replace_atom_number", "replace_atom_name", "replace_atom_keyword", "wrap_deep", "wide_const",
             "surface_word", "truncate"]


def mutate(text: bytes, op: tuple, surface_text: bool = False) -> bytes:
    name, a, b, c = op
    n = len(text)
    pos = int(a * (n + 1)) if n else 0
    if name == "insert_bytes":
        return text[:pos] + BYTES[c % len(BYTES)] + text[pos:]
    if name == "delete_bytes":
        return text[:pos] + text[pos + 1 + int(b * 8):]
    if name == "dup_bytes":
        piece = text[pos:pos + 1 + int(b * 16)]
        return text[:pos] + piece + piece + text[pos + len(piece):]
    if name == "truncate":
        return text[:pos]
    if name == "surface_word":
        return text[:pos] + b" " + SURFACE_WORDS[c % len(SURFACE_WORDS)].encode() + b" " + text[pos:]
    sp = spans(text)
    if name in ("delete_span", "dup_span", "swap_spans") and sp:
        i, j = sp[c % len(sp)]
        if name == "delete_span":
            return text[:i] + text[j:]
        if name == "dup_span":
            return text[:j] + b" " + text[i:j] + text[j:]
        k, l = sp[int(b * len(sp))]
        if j <= k:
            return text[:i] + text[k:l] + text[j:k] + text[i:j] + text[l:]
        return text
    at = atoms(text)
    if name.startswith("replace_atom") and at:
        i, j = at[c % len(at)]
        pool = NUMBERS if name.endswith("number") else NAMES if name.endswith("name") else KEYWORDS
        return text[:i] + pool[int(b * len(pool))].encode() + text[j:]
    if name == "wrap_deep" and sp:
        i, j = sp[c % len(sp)]
        pre, post = deep(DEPTHS[int(b * len(DEPTHS))], c % 4)
        return text[:i] + pre + text[i:j] + post + text[j:]
    if name == "wide_const":
        k = [0, 1, 260_000, 300_000][int(b * 4)]
        return text[:pos] + b"(const" + b" 1.5" * k + b")" + text[pos:]
    return text


# ------------------------------------------------------------- generation

def random_sexp(rng: random.Random, budget: int = 30) -> str:
    """A random S-expression over the format's words."""
    def go(depth: int) -> str:
        nonlocal budget
        budget -= 1
        if depth > 6 or budget <= 0 or rng.random() < 0.3:
            pool = rng.choice((KEYWORDS, NAMES, NUMBERS))
            return rng.choice(pool)
        items = [rng.choice(KEYWORDS)] + [go(depth + 1) for _ in range(rng.randint(0, 4))]
        return "(" + " ".join(items) + ")"
    return go(0)


def seed_programs(count: int, seed: int) -> list:
    """The example programs and programs ``0 … count-1`` of ``seed`` of revhandlers.rh.gen."""
    import revhandlers as rh
    progs = [rh.load(p) for p in sorted((ROOT / "examples").glob("*.rh"))]
    progs += [rh.load(p) for p in sorted((ROOT / "examples" / "sexp").glob("*.sexp"))]
    if count:
        from revhandlers.rh import gen
        progs += [gen.seeded_program(seed, i, max_size=8) for i in range(count)]
    return progs


def seed_texts(progs) -> list[tuple[bytes, bool]]:
    """Each program as an S-expression and in the surface syntax: (text, is_surface)."""
    out = []
    for p in progs:
        out.append((sexp.program_sexp(p).encode(), False))
        try:
            out.append((surface.pretty(p).encode(), True))
        except RevHandlersError:
            pass
    return out


# ----------------------------------------------------------------- drivers

def classify_error(e: RevHandlersError) -> str:
    if e.kind in BAD_INPUT_KINDS:
        return f"bad-input:{e.kind}"
    if e.kind in RUNTIME_KINDS and e.kind != "internal":
        return f"runtime:{e.kind}"
    return f"FAIL:{e.kind}: {e.message[:200]}"


def python_reader(text: bytes) -> str:
    """The Python S-expression reader and the mirrored checks and type checker."""
    from revhandlers.rh.typecheck import check_program
    try:
        s = text.decode("utf-8")
    except UnicodeDecodeError:
        return "bad-input:not-utf8"      # the CLI's answer (tested there)
    try:
        check_program(sexp.parse_program(s))
        return "ok"
    except RevHandlersError as e:
        return classify_error(e)
    except Exception as e:  # noqa: BLE001 - a failure to report
        return f"FAIL:{type(e).__name__}: {str(e)[:200]}"


def surface_parser(text: bytes) -> str:
    from revhandlers.rh.typecheck import check_program
    try:
        s = text.decode("utf-8")
    except UnicodeDecodeError:
        return "bad-input:not-utf8"
    try:
        check_program(surface.parse(s))
        return "ok"
    except RevHandlersError as e:
        return classify_error(e)
    except Exception as e:  # noqa: BLE001
        return f"FAIL:{type(e).__name__}: {str(e)[:200]}"


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


ANSWER = re.compile(rb"\((result|ok|error) .*\)\n\Z", re.S)


def check_answer(line: bytes) -> str:
    """The class of one answer line of rh-eval, or a FAIL."""
    if not ANSWER.match(line) or line.count(b"\n") != 1:
        return f"FAIL:malformed answer {line[:200]!r}"
    try:
        s = sexp.loads(line.decode("utf-8", errors="replace"))
    except RevHandlersError as e:
        return f"FAIL:unreadable answer ({e.message[:100]}) {line[:200]!r}"
    head = s[0].value() if isinstance(s, list) and s and hasattr(s[0], "value") else None
    if head == "error":
        fields = {f[0].value(): f[1] for f in s[1:] if isinstance(f, list) and len(f) == 2 and hasattr(f[0], "value")}
        kind = fields.get("kind")
        kind = kind.value() if hasattr(kind, "value") else None
        if kind is None or "message" not in fields:
            return f"FAIL:error without kind or message {line[:200]!r}"
        if kind in BAD_INPUT_KINDS:
            return f"bad-input:{kind}"
        if kind in RUNTIME_KINDS and kind != "internal":
            return f"runtime:{kind}"
        return f"FAIL:error kind {kind} {line[:300]!r}"
    return "ok"


class Server:
    """One ``rh-eval --serve`` process, bytes in and out, restarted after a
    failure; a request without an answer within ``timeout`` is a hang."""

    def __init__(self, timeout: float = TIMEOUT):
        self.timeout = timeout
        self.proc = None

    def _start(self):
        with interrupt.deferred():       # a signal meanwhile: raised once the process is tracked
            self.proc = subprocess.Popen([str(rh_eval_path()), "--serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_limit_memory,
                                         **interrupt.POPEN_OPTIONS)
            interrupt.track(self.proc)
        self.buf = b""

    def _reset(self) -> str:
        p, self.proc = self.proc, None
        if p is None:
            return ""
        if p.poll() is None:
            p.kill()
        code = p.wait()
        err = p.stderr.read()[-300:] if p.stderr else b""
        for f in (p.stdin, p.stdout, p.stderr):
            try:
                f.close()
            except OSError:
                pass
        return f"exit code {code}, stderr {err!r}"

    def ask(self, line: bytes) -> str:
        """The class of rh-eval's answer to one request line (no line break in it)."""
        if line.strip(b" \t\x0c") == b"":
            return "skipped:blank line"      # rh-eval --serve skips blank lines, without answering
        if self.proc is None or self.proc.poll() is not None:
            self._reset()
            self._start()
        try:
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            return "FAIL:rh-eval died before reading the request: " + self._reset()
        deadline = time.monotonic() + self.timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self._reset()
                return f"FAIL:hang: no answer within {self.timeout:g} s"
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return "FAIL:rh-eval stopped: " + self._reset()
            self.buf += chunk
        i = self.buf.index(b"\n")
        answer, self.buf = self.buf[:i + 1], self.buf[i + 1:]
        if self.buf:
            self._reset()
            return f"FAIL:more than one answer line {answer[:100]!r} {self.buf[:100]!r}"
        return check_answer(answer)

    def ask_many(self, lines: list[bytes]) -> list[str]:
        """The classes of rh-eval's answers to several request lines, sent in
        one write (from a thread) and answered in order, each within the
        bound; after a request left without an answer the process is
        restarted and the later requests sent again."""
        import threading
        out: list[str | None] = [None] * len(lines)
        todo = []
        for i, line in enumerate(lines):
            if line.strip(b" \t\x0c") == b"":
                out[i] = "skipped:blank line"
            else:
                todo.append(i)
        while todo:
            if self.proc is None or self.proc.poll() is not None:
                self._reset()
                self._start()
            data = b"".join(lines[i] + b"\n" for i in todo)
            proc = self.proc

            def write():
                try:
                    proc.stdin.write(data)
                    proc.stdin.flush()
                except (OSError, ValueError):
                    pass

            threading.Thread(target=write, daemon=True).start()
            fd = self.proc.stdout.fileno()
            done = 0
            for i in todo:
                deadline = time.monotonic() + self.timeout
                why = None
                while b"\n" not in self.buf:
                    left = deadline - time.monotonic()
                    if left <= 0 or not select.select([fd], [], [], left)[0]:
                        why = f"FAIL:hang: no answer within {self.timeout:g} s"
                        break
                    chunk = os.read(fd, 1 << 20)
                    if not chunk:
                        why = "FAIL:rh-eval stopped"
                        break
                    self.buf += chunk
                if why is not None:
                    out[i] = why + ": " + self._reset() if why.startswith("FAIL:rh-eval") else why
                    if why.startswith("FAIL:hang"):
                        self._reset()
                    done += 1
                    break
                j = self.buf.index(b"\n")
                answer, self.buf = self.buf[:j + 1], self.buf[j + 1:]
                out[i] = check_answer(answer)
                done += 1
            else:
                if self.buf:
                    out[todo[-1]] = f"FAIL:more answer lines than requests {self.buf[:100]!r}"
                    self._reset()
            todo = todo[done:]
        return out

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except Exception:  # noqa: BLE001
                self.proc.kill()
            self._reset()


def request_line(text: bytes, form: int) -> bytes:
    """``text`` as one request line: run, check or a bare program."""
    one = text.replace(b"\r", b" ").replace(b"\n", b" ")
    return [b"(run " + one + b")", b"(check " + one + b")", one][form % 3]


def oneshot(text: bytes, via_file: bool, timeout: float = TIMEOUT) -> str:
    """``rh-eval FILE`` or ``rh-eval < text``: exit code and one answer line."""
    with tempfile.NamedTemporaryFile(suffix=".sexp") as f:
        f.write(text)
        f.flush()
        args = [str(rh_eval_path())] + ([f.name] if via_file else [])
        try:
            p = subprocess.run(args, input=None if via_file else text, capture_output=True, timeout=timeout,
                               preexec_fn=_limit_memory)
        except subprocess.TimeoutExpired:
            return f"FAIL:hang: rh-eval ran past {timeout:g} s"
    if p.returncode not in (0, 1, 2):
        return f"FAIL:exit code {p.returncode} {p.stderr[-300:]!r}"
    return check_answer(p.stdout)


CLI_COMMANDS = [["check"], ["run"], ["trace"], ["fmt"], ["run", "--engine", "reference"],
                ["check", "--engine", "reference"], ["fmt", "--to", "sexp"]]


def cli(text: bytes, command: list[str], surface_text: bool, timeout: float = TIMEOUT) -> str:
    """``python -m revhandlers.cli COMMAND FILE``: exit code in {0, 1, 2},
    no traceback, no internal error."""
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / ("p.rh" if surface_text else "p.sexp")
        path.write_bytes(text)
        args = [sys.executable, "-m", "revhandlers.cli", *command, str(path)]
        if command[0] in ("run", "check", "trace"):
            args += ["--timeout", f"{timeout:g}"]
        try:
            env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "pytools"), os.environ.get("PYTHONPATH", "")])}
            p = subprocess.run(args, capture_output=True, timeout=timeout + 30, preexec_fn=_limit_memory, cwd=d,
                               env=env)
        except subprocess.TimeoutExpired:
            return f"FAIL:hang: revhandlers {' '.join(command)} ran past {timeout + 30:g} s"
    err = p.stderr.decode("utf-8", errors="replace")
    if "Traceback" in err or "error (internal)" in err:
        return f"FAIL:{err[-600:]}"
    if p.returncode not in (0, 1, 2):
        return f"FAIL:exit code {p.returncode}: {err[-300:]}"
    if p.returncode == 0:
        return "ok"
    m = re.search(r"error \(([a-z-]+)\)", err)
    kind = m.group(1) if m else "?"
    return f"{'bad-input' if p.returncode == 2 else 'runtime'}:{kind}"


# ---------------------------------------------------------------- campaign

HEAVY = ("wrap_deep", "wide_const")
LIGHT = [m for m in MUTATIONS if m not in HEAVY]


def random_ops(rng: random.Random) -> list[tuple]:
    """0 to 5 mutations; the heavy ones (deep nesting, wide vectors: large
    inputs, slow to read) in one input in 100."""
    ops = [(rng.choice(LIGHT), rng.random(), rng.random(), rng.randrange(1 << 30))
           for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 5]))]
    if rng.random() < 0.01:
        ops.insert(rng.randrange(len(ops) + 1), (rng.choice(HEAVY), rng.random(), rng.random(), rng.randrange(1 << 30)))
    return ops


def input_rng(seed: int, i: int) -> random.Random:
    """The random choices of input ``i`` of campaign ``seed``: its own
    generator, so that an input is the same whatever ran before it (in this
    process or another job), and ``--seed S --start I --n 1`` replays it."""
    return random.Random(f"input-fuzz:{seed}:{i}")


def make_input(seeds, seed: int, i: int) -> dict:
    """Input ``i`` of campaign ``seed``: its text, whether it is in the
    surface syntax, and every later choice of the drivers (the request form
    for rh-eval --serve, file or standard input for one-shot rh-eval, the CLI
    command)."""
    rng = input_rng(seed, i)
    if rng.random() < 0.15:
        text, is_surface = random_sexp(rng).encode(), False
    else:
        text, is_surface = rng.choice(seeds)
    for op in random_ops(rng):
        text = mutate(text, op, is_surface)
    return {"i": i, "text": text, "surface": is_surface, "form": None if is_surface else rng.randrange(3),
            "via_file": rng.random() < 0.5, "cli": rng.choice(CLI_COMMANDS), "outcomes": {}}


TARGETS = ("python-reader", "surface", "rh-eval-serve", "rh-eval-oneshot", "cli")

#: the seed texts, made before the jobs start (each job inherits them)
_SEEDS: list = []


def replay(args, i: int) -> str:
    """The command that runs input ``i`` again (the seed texts depend on
    ``--seed`` and ``--programs``)."""
    programs = f" --programs {args.programs}" if args.programs != 300 else ""
    return f"scripts/input-fuzz.py --seed {args.seed}{programs} --start {i} --n 1"


def run_range(args, start: int, stop: int, job: int, deadline: float | None) -> dict:
    """Inputs ``start`` to ``stop - 1``: the counts of their outcomes, the
    failures, the agreement of the two checkers, and how far it got (it
    stops at the end of a batch once ``deadline`` has passed)."""
    counts = {t: Counter() for t in TARGETS}
    failures = []
    agreement, disagreements, examples = Counter(), Counter(), {}
    server = Server(args.timeout)
    begun = time.monotonic()
    done = 0
    reached = start
    stopped = None
    try:
        try:  # an interrupt: the counts of the inputs done, as with --max-seconds
            print(f"input-fuzz: job {job} begins at input {start}", file=sys.stderr, flush=True)
            for b0 in range(start, stop, args.batch):
                if deadline is not None and time.monotonic() > deadline:
                    break
                batch = [make_input(_SEEDS, args.seed, i) for i in range(b0, min(stop, b0 + args.batch))]
                for x in batch:
                    x["outcomes"]["surface" if x["surface"] else "python-reader"] = \
                        (surface_parser if x["surface"] else python_reader)(x["text"])
                served = [x for x in batch if x["form"] is not None]
                for x, answer in zip(served, server.ask_many([request_line(x["text"], x["form"]) for x in served])):
                    x["outcomes"]["rh-eval-serve"] = answer
                for x in batch:
                    i, text, outcomes = x["i"], x["text"], x["outcomes"]
                    if x["form"] == 1 and not any(o.startswith(("FAIL", "skipped")) for o in outcomes.values()) \
                            and outcomes["python-reader"] not in ("bad-input:parse", "bad-input:not-utf8"):
                        # (check P), for P one S-expression of UTF-8 text: the two readers
                        # and checkers, class for class (information, not a failure)
                        pair = (outcomes["python-reader"], outcomes["rh-eval-serve"])
                        agreement["same class" if pair[0] == pair[1] else "different classes"] += 1
                        if pair[0] != pair[1]:
                            disagreements[pair] += 1
                            examples.setdefault(pair, text[:300])
                    if not x["surface"] and i % args.oneshot_every == 0:
                        outcomes["rh-eval-oneshot"] = oneshot(text, via_file=x["via_file"], timeout=args.timeout)
                    if i % args.cli_every == 0:
                        outcomes["cli"] = cli(text, x["cli"], x["surface"], args.timeout)
                    for target, outcome in outcomes.items():
                        cls = "FAIL" if outcome.startswith("FAIL") else outcome
                        counts[target][cls] += 1
                        if cls == "FAIL":
                            failures.append((i, target, outcome, text))
                            print(f"FAILURE at input {i} of seed {args.seed} ({target}): {outcome[:300]}\n"
                                  f"    {text[:300]!r}\n    replay: {replay(args, i)}", file=sys.stderr, flush=True)
                    done += 1
                    if done % 10_000 == 0:
                        print(f"... job {job}: {done} inputs, {len(failures)} failures, "
                              f"{time.monotonic() - begun:.0f} s", file=sys.stderr, flush=True)
                reached = batch[-1]["i"] + 1
        except interrupt.Interrupted as e:
            stopped = e.signum
            reached = start + done
    finally:
        server.close()
    return {"counts": counts, "failures": failures, "agreement": agreement, "disagreements": disagreements,
            "examples": examples, "done": done, "start": start, "reached": reached, "stop": stop,
            "interrupted": stopped}


def _job(queue, job_args):
    """One job of ``--jobs``, in a forked process: its results on ``queue``
    (interrupted before it began: none, and the signal)."""
    interrupt.reset()
    try:
        queue.put(run_range(*job_args))
    except interrupt.Interrupted as e:
        args, start, stop = job_args[:3]
        queue.put({"counts": {t: Counter() for t in TARGETS}, "failures": [], "agreement": Counter(),
                   "disagreements": Counter(), "examples": {}, "done": 0, "start": start, "reached": start,
                   "stop": stop, "interrupted": e.signum})
    except BaseException:  # noqa: BLE001 - reported by the parent
        import traceback
        queue.put({"job": job_args[3], "error": traceback.format_exc()})


def run_jobs(ranges) -> list[dict]:
    """The ranges in parallel, one forked process each (nothing pickled but
    the results); a job that dies without results is an error.  A signal
    meanwhile is passed on to the jobs (SIGTERM), which send the results
    of the inputs they reached."""
    import multiprocessing
    import queue as queues
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    results: list[dict] = []
    with interrupt.deferred():       # polled below: the jobs are ended once, their results still collected
        procs = [ctx.Process(target=_job, args=(q, r), daemon=True) for r in ranges]
        for p in procs:
            p.start()
        ended = False
        waited = 0.0
        while len(results) < len(procs):
            if interrupt.pending() is not None and not ended:
                for p in procs:
                    if p.exitcode is None:
                        p.terminate()
                ended = True
            try:
                results.append(q.get(timeout=0.2))
                waited = 0.0
            except queues.Empty:
                waited += 0.2
                if all(p.exitcode is not None for p in procs) and waited > 5:
                    raise SystemExit(f"a job ended without its results (exit codes "
                                     f"{[p.exitcode for p in procs]})") from None
        for p in procs:
            p.join()
        signum = interrupt.take()     # passed on to the jobs: their results say they were interrupted
    if signum is not None:
        for r in results:
            r["interrupted"] = signum
    for r in results:
        if "error" in r:
            raise SystemExit(f"job {r['job']} failed:\n{r['error']}")
    return sorted(results, key=lambda r: r["start"])


def main(argv=None) -> int:
    """The campaign; SIGINT or SIGTERM stops it with the counts of the
    inputs reached (the summary, then one line on stderr; exit code 130 or
    143)."""
    with interrupt.handled():
        try:
            return _main(argv)
        except interrupt.Interrupted as e:   # before the campaign started, or while summing up
            interrupt.end_children()
            print(interrupt.message(e, "input-fuzz"), file=sys.stderr)
            return e.exit_code


def _main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="number of inputs (default 10000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0,
                    help="index of the first input (inputs START to START+N-1; --start I --n 1 replays input I)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="processes, each over its own range of input indices (default 1)")
    ap.add_argument("--programs", type=int, default=300, help="programs drawn by revhandlers.rh.gen as seeds")
    ap.add_argument("--cli-every", type=int, default=5000, help="one input in K also through the CLI")
    ap.add_argument("--oneshot-every", type=int, default=500, help="one input in K also through rh-eval FILE")
    ap.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per rh-eval request or CLI run")
    ap.add_argument("--batch", type=int, default=50, help="rh-eval --serve requests per write (default 50)")
    ap.add_argument("--max-seconds", type=float, default=None,
                    help="stop after this many seconds (at the end of a batch), with the counts reached")
    args = ap.parse_args(argv)
    if (args.n < 1 or args.start < 0 or args.jobs < 1 or args.cli_every < 1 or args.oneshot_every < 1
            or not args.timeout > 0 or args.batch < 1):
        ap.error("--n, --jobs, --cli-every, --oneshot-every and --batch are at least 1, --start at least 0, "
                 "--timeout above 0")
    begun = time.monotonic()
    deadline = begun + args.max_seconds if args.max_seconds is not None else None
    _SEEDS[:] = seed_texts(seed_programs(args.programs, args.seed))
    stop = args.start + args.n
    jobs = min(args.jobs, args.n)
    cuts = [args.start + args.n * j // jobs for j in range(jobs + 1)]
    ranges = [(args, cuts[j], cuts[j + 1], j, deadline) for j in range(jobs)]
    results = [run_range(*ranges[0])] if jobs == 1 else run_jobs(ranges)
    seconds = time.monotonic() - begun
    counts = {t: Counter() for t in TARGETS}
    failures, agreement, disagreements, examples = [], Counter(), Counter(), {}
    for r in results:
        for t in TARGETS:
            counts[t] += r["counts"][t]
        failures += r["failures"]
        agreement += r["agreement"]
        disagreements += r["disagreements"]
        for k, v in r["examples"].items():
            examples.setdefault(k, v)
    done = sum(r["done"] for r in results)
    interrupted = next((interrupt.SIGNALS.get(r["interrupted"]) for r in results if r.get("interrupted")), None)
    stopped = (f", stopped by {interrupted}" if interrupted
               else f", stopped by --max-seconds {args.max_seconds:g}" if done < args.n else "")
    print(f"inputs: {done} of {args.n} (seed {args.seed}, indices {args.start} to {stop - 1}, {jobs} job"
          f"{'s' if jobs > 1 else ''}) in {seconds:.0f} s ({done / max(seconds, 1e-9):.1f} inputs/s){stopped}")
    if done < args.n:
        print("indices reached: " + ", ".join(f"{r['start']} to {r['reached'] - 1}" if r["reached"] > r["start"]
                                              else f"none of {r['start']} to {r['stop'] - 1}" for r in results))
    for target, c in counts.items():
        print(f"{target}: {sum(c.values())}")
        for cls, k in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {cls}: {k}")
    print(f"Python reader and checker against rh-eval's (check P), by outcome class: {dict(agreement)}")
    for (ours, theirs), k in disagreements.most_common(8):
        print(f"  Python {ours}, rh-eval {theirs}: {k}, e.g. {examples[(ours, theirs)][:160]!r}")
    failures.sort(key=lambda f: f[0])
    print(f"failures: {len(failures)}")
    for i, target, outcome, text in failures[:10]:
        print(f"  input {i} ({target}): {outcome[:400]}")
        print(f"    {text[:300]!r}")
        print(f"    replay: {replay(args, i)}")
    signums = [r["interrupted"] for r in results if r.get("interrupted")]
    if signums:
        sys.stdout.flush()
        e = interrupt.Interrupted(signums[0], f"the counts above are those of the {done} inputs reached; "
                                              "continue with --start at the indices not reached")
        print(interrupt.message(e, "input-fuzz"), file=sys.stderr)
        return e.exit_code
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
