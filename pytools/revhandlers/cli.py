"""The ``revhandlers`` command line.

Exit codes are those of ``rh-eval``: 0 success, 1 runtime failure of a
well-typed program, 2 bad input (including a bad command line)."""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path

import numpy as np

from . import ENGINES, parse
from .errors import BadInput, RevHandlersError, RuntimeFailure
from .nesting import room
from .sexp import loads, program_sexp, read_cmd, read_heap
from .surface import pretty, pretty_cmd, pretty_ty

#: the largest program file read (rh-eval's ``max_input``)
MAX_INPUT = 1 << 30
#: the default time limit of ``run``, ``check`` and ``trace``, in seconds
DEFAULT_TIMEOUT = 60.0


def load(path: str):
    """The program in the file ``path``: at most :data:`MAX_INPUT` bytes of
    UTF-8 text (an S-expression or the surface syntax)."""
    return parse(read_source(path))


def read_source(path) -> str:
    """The text of the file ``path``: at most :data:`MAX_INPUT` bytes of
    UTF-8 without NUL characters, else :class:`BadInput`."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_INPUT + 1)
    except OSError as e:
        raise BadInput("io", f"cannot read {path}: {e.strerror or e}") from None
    if len(data) > MAX_INPUT:
        raise BadInput("too-large", f"{path} is larger than {MAX_INPUT} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[:e.start].count(b"\n") + 1
        raise BadInput("parse", f"{path} is not UTF-8 text: byte 0x{data[e.start]:02x} at line {line} "
                                f"(offset {e.start})") from None
    if "\x00" in text:
        raise BadInput("parse", f"{path} contains a NUL character (offset {text.index(chr(0))})")
    return text


class _Timeout(Exception):
    pass


def _bounded(seconds: float, fn, *args):
    """``fn(*args)`` within ``seconds`` of wall-clock time, else a
    ``timeout`` runtime failure (for the reference engine, which runs in
    this process: SIGALRM, when this is the main thread)."""
    import signal
    import threading
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
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _evaluator(args):
    from .evaluator import VerifiedEvaluator
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
    from .session import read_npz
    return read_npz(path)


def cmd_check(args, out) -> int:
    """Well typed, and no operation left unhandled: a program that performs
    an operation no enclosing handler covers is an ``effect`` error (exit
    2), one per place, found by the verified ``unhandled`` of effects.v
    (``rh-eval``'s ``(effects P)``) or, with ``--engine reference``, by its
    Python mirror (typecheck.unhandled_operations), which locates it."""
    prog = load(args.file)
    from .typecheck import handler_checks, unhandled_operations
    handler_checks(prog)    # a second clause for one operation in one handler: an error (raised)
    places = unhandled_operations(prog)
    if args.engine == "reference":
        from .typecheck import check_program
        t = _bounded(args.timeout, check_program, prog)
        names = sorted({o.name for o, _ in places})
    else:
        ev = _evaluator(args)
        try:
            t = ev.check(prog)
            names = sorted(set(ev.effects(prog)))
        finally:
            ev.close()
        if names != sorted({o.name for o, _ in places}):
            raise RevHandlersError("internal", f"the verified checker finds the unhandled operations {names}, "
                                   f"its Python mirror {sorted({o.name for o, _ in places})}")
    if names:
        from .errors import format_diagnostic
        path = args.file
        source = _source(path) if path else None
        for o, pos in places:
            e = BadInput("effect", f"operation {o.name} is handled by no enclosing handler (a handler without a "
                         f"clause for it passes it on to the enclosing ones): running it fails with "
                         f"unhandled-operation", pos=pos)
            print(format_diagnostic(e, path, source if pos else None), file=sys.stderr)
        return 2
    print(f"{args.file}: well typed, {pretty_ty(t)}", file=out)
    return 0


def cmd_run(args, out) -> int:
    prog = load(args.file)
    from .typecheck import handler_checks
    handler_checks(prog)
    heap = _load_heap(args.heap)
    from .train import describe_init, initial_heap, random_locations
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
        from .reference import run_reference
        res = _bounded(args.timeout, run_reference, prog, heap)
    else:
        from .evaluator import with_heap
        ev = _evaluator(args)
        try:
            res = ev.run(with_heap(prog, heap))
        finally:
            ev.close()
    print(f"engine: {args.engine}", file=out)
    _print_result(res, out)
    return 0


def cmd_trace(args, out) -> int:
    from .evaluator import with_heap
    from .typecheck import handler_checks
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

    lines, res = _bounded(args.timeout, traced)
    for line in lines:
        print(line, file=out)
    print("── result", file=out)
    _print_result(res, out)
    return 0


def cmd_fmt(args, out) -> int:
    """A ``.rh`` file in the surface syntax is laid out again keeping its
    comments, ``param`` declarations and notation (revhandlers.fmt); any
    other conversion prints the program itself, and ``-i`` refuses it when
    the file has what the output cannot keep (comments, parameters)."""
    from .fmt import format_source
    source = read_source(args.file)
    surface = not _is_sexp(source)
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


def _code(text: str) -> str:
    """``text`` without its leading ``;`` comment lines and blanks."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";")).lstrip()


def _is_sexp(text: str) -> bool:
    """Whether ``text`` is an S-expression program (as revhandlers.parse decides)."""
    return _code(text).startswith("(program")


def _lost_by_conversion(source: str, surface: bool, to: str) -> str:
    """What printing ``source`` in the notation ``to`` leaves out: its
    comments, its ``param`` declarations (as words), or ''."""
    lost = []
    if surface:
        from .fmt import has_params, source_tokens
        if any(t.startswith("#") for t in source_tokens(source)):
            lost.append("comments")
        if has_params(source):
            lost.append("param declarations")
    elif _sexp_has_comment(source):
        lost.append("comments")
    return " and ".join(lost)


def _sexp_has_comment(text: str) -> bool:
    """Whether an S-expression text has a ``;`` comment (outside strings)."""
    return bool(_comments(text, True))


def _comments(text: str, sexp_like: bool) -> list[str]:
    """The comments of a program text (without trailing whitespace): ``;``
    to the end of the line outside strings in an S-expression, else ``#``
    to the end of the line."""
    if not sexp_like:
        return [m.group(0).rstrip() for m in re.finditer(r"#[^\n]*", text)]
    found, i, in_string, n = [], 0, False, len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == ";":
            end = text.find("\n", i)
            end = n if end < 0 else end
            found.append(text[i:end].rstrip())
            i = end
        i += 1
    return found


def write_formatted(path: str, text: str, in_place: bool, out) -> None:
    """``fmt``'s output: back into ``path`` (``-i``), else to ``out``.
    ``-i`` leaves the file as it is when one of its comments is missing from
    ``text`` (a ``bad input`` error, exit code 2)."""
    if not in_place:
        out.write(text)
        return
    original = read_source(path)
    sexp_like = _is_sexp(original) or (str(path).endswith(".sexp") and _code(original).startswith("("))
    missing = _comments(original, sexp_like)
    for c in _comments(text, sexp_like and _is_sexp(text)):
        if c in missing:
            missing.remove(c)
    if missing:
        raise BadInput("fmt", f"fmt -i would delete {len(missing)} comment(s) of {path} (the first: "
                              f"{missing[0][:60]!r}); the file is left as it is (without -i the output "
                              f"goes to standard output)")
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise BadInput("io", f"cannot write {path}: {e.strerror or e}") from None


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


def _check_options(args) -> None:
    for dest, least in _AT_LEAST.get(args.command, {}).items():
        value = getattr(args, dest, None)
        if value is not None and value < least:
            raise BadInput("syntax", f"--{dest.replace('_', '-')} must be at least {least}, not {value}")
    for dest in _POSITIVE_SECONDS.get(args.command, ()):
        value = getattr(args, dest, None)
        if value is not None and not (math.isfinite(value) and value > 0):
            raise BadInput("syntax", f"--{dest} is a finite number of seconds above 0, not {value}")


def package_version() -> str:
    """The package's version (pyproject.toml), as installed."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("revhandlers")
    except PackageNotFoundError:      # run from a checkout without installing
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="revhandlers",
        description="Run programs of the reverse-handler language through the verified evaluator "
                    "(extracted from Coq) or the numpy reference semantics.",
        epilog="Exit codes: 0 success, 1 runtime failure of a well-typed program, 2 bad input.")
    p.add_argument("--version", action="version", version=f"revhandlers {package_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

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

    _extend(sub)
    return p


def _extend(sub) -> None:
    """Further commands registered by other modules (training, fuzzing,
    diagrams) when they exist."""
    for mod in ("train", "fuzz", "diagram", "dbr", "pullback"):
        try:
            module = __import__(f"revhandlers.{mod}", fromlist=["register"])
        except ModuleNotFoundError as e:
            if e.name == f"revhandlers.{mod}":
                continue
            raise
        module.register(sub)


# ------------------------------------------------------ printing errors

#: the commands whose errors on FILE (a program that :func:`load` reads)
#: the Python checker locates
_PROGRAM_COMMANDS = ("check", "run", "trace")


def _source(path):
    try:
        return read_source(path)
    except RevHandlersError:
        return None


def _describe_error(e: RevHandlersError, args) -> str:
    """``FILE:LINE:COL: error (KIND) [RULE]: MESSAGE``, the source line and
    a caret, and notes (err.format_diagnostic).  An error of rh-eval on a
    program (no position) is first located by the Python checker
    (typecheck.locate), which renders it in the surface syntax."""
    try:
        from .errors import format_diagnostic
        from .typecheck import LOCATABLE, locate
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


def main(argv: list[str] | None = None, out=None) -> int:
    """Run a command; SIGINT and SIGTERM end it with one line saying what
    was kept and exit code 130 or 143 (:mod:`revhandlers.interrupt`)."""
    from . import interrupt
    with interrupt.handled():
        try:
            return _main(argv, out)
        except interrupt.Interrupted as e:
            interrupt.end_children()
            print(interrupt.message(e), file=sys.stderr)
            return e.exit_code


def _main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        _check_options(args)
        with room():
            return args.func(args, out)
    except RevHandlersError as e:
        print(_describe_error(e, args), file=sys.stderr)
        return e.exit_code
    except BrokenPipeError:
        raise                      # the reader of the output went away: entry() handles it
    except UnicodeDecodeError as e:  # a file read by another command (train, diagram) is not UTF-8
        print(f"error (parse): not UTF-8 text: {e}", file=sys.stderr)
        return 2
    except MemoryError:
        print("error (out-of-memory): the command ran out of memory", file=sys.stderr)
        return 1
    except Exception as e:         # a bug: reported in one line, never as a traceback
        if os.environ.get("REVHANDLERS_TRACEBACK"):
            raise
        print(f"error (internal): unexpected failure: {type(e).__name__}: {str(e)[:500]} "
              "(set REVHANDLERS_TRACEBACK=1 to see where)", file=sys.stderr)
        return 1


if __name__ == "__main__":  # python -m revhandlers.cli
    sys.exit(main())


def entry() -> None:  # console script
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (e.g. `| head`)
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
