"""The commands of the main calculus on the ``revhandlers`` command line
(:mod:`revhandlers.cli` dispatches to them).

Exit codes are those of ``rh-eval``: 0 success, 1 runtime failure of a
well-typed program, 2 bad input (including a bad command line)."""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading

import numpy as np

from ..errors import BadInput, RevHandlersError, RuntimeFailure, format_diagnostic
from ..heapio import read_npz
from ..source import comments, is_sexp_program, read_source, write_formatted
from . import campaign, diagram, train
from .engine import VerifiedEvaluator, with_heap
from .fmt import format_source, has_params, source_tokens
from .initial import describe_init, initial_heap, random_locations
from .nesting import room
from .program import load, parse
from .reference import run_reference
from .session import ENGINES
from .sexp import loads, program_sexp, read_answer, read_cmd, read_heap
from .surface import pretty, pretty_cmd, pretty_ty
from .typecheck import LOCATABLE, check_whole_program, effect_error, handler_checks, locate, unhandled_operations

#: the default time limit of ``run``, ``check`` and ``trace``, in seconds
DEFAULT_TIMEOUT = 60.0


class _Timeout(Exception):
    pass


def bounded(seconds: float, fn, *args):
    """``fn(*args)`` within ``seconds`` of wall-clock time, else a
    ``timeout`` runtime failure (for the reference engine, which runs in
    this process: SIGALRM, when this is the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)

    def alarm(signum, frame):
        raise _Timeout()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    except _Timeout:
        raise RuntimeFailure("timeout", f"no result within {seconds:g} s (--timeout)") from None
    except RuntimeFailure as e:
        # the driver's own time limit (the same --timeout) can strike first
        if e.kind == "timeout" and "--timeout" not in e.detail:
            raise RuntimeFailure("timeout", f"{e.detail} (--timeout)") from None
        raise
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _evaluator(args):
    return VerifiedEvaluator(timeout=args.timeout, fuel=getattr(args, "fuel", None))


def _fmt_value(v) -> str:
    if isinstance(v, np.ndarray):
        return np.array2string(v, precision=6, separator=", ", max_line_width=100, threshold=40)
    return "<" + ", ".join(_fmt_value(x) for x in v) + ">"


def _print_result(res, out) -> None:
    print(f"value: {_fmt_value(res.value)}", file=out)
    for name, arr in res.heap.items():
        print(f"heap {name}: {_fmt_value(arr)}", file=out)
    if res.steps is not None:
        print(f"steps: {res.steps}", file=out)


def _load_heap(path: str | None) -> dict | None:
    if path is None:
        return None
    return read_npz(path)


def cmd_check(args, out) -> int:
    """The checker of a whole program, Coq ``check_program``
    (theories/rh/never_stuck.v), which accepts exactly the programs
    ``check_program_never_stuck`` speaks of: well typed (kind ``type``),
    no operation that no enclosing handler covers (``effect``), all bad
    input (exit 2); ``rd`` nested at any depth.  By default ``rh-eval``'s
    ``(check-program P)``, the checker extracted from Coq, with the verdict's kind compared with the Python
    mirror's (typecheck.check_whole_program), which locates the error; with
    ``--engine reference`` the mirror alone.  Unhandled operations are
    reported one per place."""
    prog = load(args.file)
    handler_checks(prog)    # a second clause for one operation in one handler: an error (raised)
    mine: RevHandlersError | None = None
    try:
        t = bounded(args.timeout, check_whole_program, prog)
    except RevHandlersError as e:
        mine = e
    if args.engine == "reference":
        verdict = mine
    else:
        ev = _evaluator(args)
        try:
            verdict = None
            t = read_answer(ev.request(f"(check-program {program_sexp(prog)})"))
        except RevHandlersError as e:
            verdict = e
        finally:
            ev.close()
        if (verdict is not None and verdict.kind == "effect") or (mine is not None and mine.kind == "effect"):
            if verdict is None or mine is None or verdict.kind != mine.kind:
                raise RevHandlersError("internal", f"the verified checker answers {verdict or 'ok'}, "
                                       f"its Python mirror {mine or 'ok'}")
    if verdict is None:
        print(f"{args.file}: well typed, {pretty_ty(t)}", file=out)
        return 0
    path = args.file
    if verdict.kind == "effect":
        errors = [effect_error(o.name, pos) for o, pos in unhandled_operations(prog)]
    else:
        raise verdict       # located by describe_error (typecheck.locate)
    source = _source(path) if path else None
    for e in errors:        # every place, not only the first
        print(format_diagnostic(e, path, source if e.pos else None), file=sys.stderr)
    return 2


def cmd_run(args, out) -> int:
    prog = load(args.file)
    handler_checks(prog)
    heap = _load_heap(args.heap)
    if args.init_seed is not None:
        # the heap `revhandlers train --seed S` starts from, then --heap
        print(describe_init(prog, heap), file=sys.stderr)
        heap = {**initial_heap(prog, args.init_seed), **(heap or {})}
    else:
        zero = [n for n in random_locations(prog) if n not in (heap or {})]
        if zero:
            print(f"note: {', '.join(zero)} start at zero here; `revhandlers train` draws them at random "
                  f"(--init-seed S starts from its heap)", file=sys.stderr)
    if args.engine == "reference":
        res = bounded(args.timeout, run_reference, prog, heap)
    else:
        ev = _evaluator(args)
        try:
            res = ev.run(with_heap(prog, heap))
        finally:
            ev.close()
    print(f"engine: {args.engine}", file=out)
    _print_result(res, out)
    return 0


def cmd_trace(args, out) -> int:
    prog = load(args.file)
    handler_checks(prog)
    heap = _load_heap(args.heap)

    def traced():
        # the trace and its rendering within --timeout: its text grows with
        # the number of steps times the program's size
        ev = _evaluator(args)
        try:
            steps, res = ev.trace(with_heap(prog, heap))
        finally:
            ev.close()
        lines = []
        for line in steps:
            s = loads(line)
            hp = read_heap(s[2])
            lines.append(f"── step {s[1]}  " + "  ".join(f"{k} = {_fmt_value(v)}" for k, v in hp.items()))
            lines.append(pretty_cmd(read_cmd(s[3][1])))
        return lines, res

    lines, res = bounded(args.timeout, traced)
    for line in lines:
        print(line, file=out)
    print("── result", file=out)
    _print_result(res, out)
    return 0


def cmd_fmt(args, out) -> int:
    """A ``.rh`` file in the surface syntax is laid out again keeping its
    comments, ``param`` declarations and notation (revhandlers.rh.fmt); any
    other conversion prints the program itself, and ``-i`` refuses it when
    the file has what the output cannot keep (comments, parameters)."""
    source = read_source(args.file)
    surface = not is_sexp_program(source)
    if surface and args.to == "rh":
        try:
            text = format_source(source)
        except BadInput as e:
            if e.kind != "fmt":
                raise
            raise BadInput("fmt", f"{args.file}: {e.message}") from None
    else:
        prog = parse(source)
        text = program_sexp(prog) + "\n" if args.to == "sexp" else pretty(prog)
        if args.in_place:
            lost = _lost_by_conversion(source, surface, args.to)
            if lost:
                raise BadInput("fmt", f"fmt -i would delete the {lost} of {args.file} (the "
                                      f"{'S-expression' if args.to == 'sexp' else 'surface'} output cannot keep "
                                      f"them); the file is left as it is (without -i the output goes to "
                                      f"standard output)")
    write_formatted(args.file, text, args.in_place, out)
    return 0


def _lost_by_conversion(source: str, surface: bool, to: str) -> str:
    """What printing ``source`` in the notation ``to`` leaves out: its
    comments, its ``param`` declarations (as words), or ''."""
    lost = []
    if surface:
        if any(t.startswith("#") for t in source_tokens(source)):
            lost.append("comments")
        if has_params(source):
            lost.append("param declarations")
    elif _sexp_has_comment(source):
        lost.append("comments")
    return " and ".join(lost)


def _sexp_has_comment(text: str) -> bool:
    """Whether an S-expression text has a ``;`` comment (outside strings)."""
    return bool(comments(text, True))


def _seconds(text: str) -> float:
    """A time limit: a finite number of seconds, more than 0."""
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"a time limit is a finite number of seconds above 0, not {text}")
    return x


# Options that argparse reads as integers, and the least value each takes
# (a bad value is bad input, checked before the command runs).
_AT_LEAST = {"fuzz": {"n": 1, "jobs": 1, "max_size": 1}, "run": {"fuel": 0}, "trace": {"fuel": 0}}
_POSITIVE_SECONDS = {"fuzz": ("timeout",)}


def check_options(args) -> None:
    """Bad values of integer options and time limits, as bad input."""
    for dest, least in _AT_LEAST.get(args.command, {}).items():
        value = getattr(args, dest, None)
        if value is not None and value < least:
            raise BadInput("syntax", f"--{dest.replace('_', '-')} must be at least {least}, not {value}")
    for dest in _POSITIVE_SECONDS.get(args.command, ()):
        value = getattr(args, dest, None)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise BadInput("syntax", f"--{dest} is a finite number of seconds above 0, not {value}")


def register(sub) -> None:
    """The commands of the main calculus: ``check``, ``run``, ``trace``,
    ``fmt``, ``train``, ``fuzz`` and ``diagram``."""
    timeout_help = (f"time limit in seconds (default {DEFAULT_TIMEOUT:g}); past it the command fails "
                    "with a timeout runtime failure (exit code 1)")

    fuel_help = ("at most N steps of the verified evaluator (default: no bound, a well-typed program "
                 "always finishes); past it the command fails with out-of-fuel (exit code 1)")

    c = sub.add_parser("check", help="type-check a program (.rh or .sexp)")
    c.add_argument("file")
    c.add_argument("--engine", choices=ENGINES, default="verified",
                   help="the extracted checker (default) or the Python mirror")
    c.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=timeout_help)
    c.set_defaults(func=cmd_check)

    r = sub.add_parser("run", help="run a program and print its value and final heap")
    r.add_argument("file")
    r.add_argument("--heap", metavar="H.npz", help="initial values of locations (one array per location)")
    r.add_argument("--init-seed", type=int, metavar="S",
                   help="start from the heap `revhandlers train --seed S` starts from (then --heap)")
    r.add_argument("--engine", choices=ENGINES, default="verified")
    r.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=timeout_help)
    r.add_argument("--fuel", type=int, metavar="N", help=fuel_help)
    r.set_defaults(func=cmd_run)

    t = sub.add_parser("trace", help="print every small step of the verified evaluator")
    t.add_argument("file")
    t.add_argument("--heap", metavar="H.npz")
    t.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS", help=timeout_help)
    t.add_argument("--fuel", type=int, metavar="N", help=fuel_help)
    t.set_defaults(func=cmd_trace)

    f = sub.add_parser("fmt", help="print a program in the surface syntax (or as an S-expression); "
                                   "a .rh file keeps its comments and param declarations")
    f.add_argument("file")
    f.add_argument("--to", choices=("rh", "sexp"), default="rh")
    f.add_argument("-i", "--in-place", action="store_true",
                   help="rewrite the file (refused, exit code 2, when the output would lose comments or "
                        "parameters)")
    f.set_defaults(func=cmd_fmt)

    train.register(sub)
    campaign.register(sub)
    diagram.register(sub)


# ------------------------------------------------------ printing errors

#: the commands whose errors on FILE (a program that :func:`load` reads)
#: the Python checker locates
_PROGRAM_COMMANDS = ("check", "run", "trace")


def _source(path):
    try:
        return read_source(path)
    except RevHandlersError:
        return None


def describe_error(e: RevHandlersError, args) -> str:
    """``FILE:LINE:COL: error (KIND) [RULE]: MESSAGE``, the source line and
    a caret, and notes (err.format_diagnostic).  An error of rh-eval on a
    program (no position) is first located by the Python checker
    (typecheck.locate), which renders it in the surface syntax."""
    try:
        path = getattr(args, "file", None)
        if not isinstance(path, str):
            path = None
        if (path and e.pos is None and e.checker is None and getattr(args, "command", None) in _PROGRAM_COMMANDS
                and (e.kind in LOCATABLE or e.kind == "unhandled-operation")):
            try:
                with room():
                    e = locate(load(path), e)
            except (RevHandlersError, RecursionError):
                pass
        return format_diagnostic(e, path, _source(path) if (path and e.pos) else None)
    except Exception:              # a bug in the rendering: the error as rh-eval gave it, never a traceback
        if os.environ.get("REVHANDLERS_TRACEBACK"):
            raise
        rule = f" [{e.rule}]" if e.rule != "none" else ""
        return f"error ({e.kind}){rule}: {e.message}"
