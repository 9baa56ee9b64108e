"""The ``revhandlers`` command line.

Exit codes are those of ``rh-eval``: 0 success, 1 runtime failure of a
well-typed program, 2 bad input (including a bad command line)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import ENGINES, check, load, run, trace
from .errors import RevHandlersError
from .nesting import room
from .sexp import loads, program_sexp, read_cmd, read_heap
from .surface import pretty, pretty_cmd, pretty_ty


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
    t = check(load(args.file), engine=args.engine)
    print(f"{args.file}: well typed, {pretty_ty(t)}", file=out)
    return 0


def cmd_run(args, out) -> int:
    res = run(load(args.file), heap=_load_heap(args.heap), engine=args.engine)
    print(f"engine: {args.engine}", file=out)
    _print_result(res, out)
    return 0


def cmd_trace(args, out) -> int:
    steps, res = trace(load(args.file), heap=_load_heap(args.heap))
    for line in steps:
        s = loads(line)
        n = s[1]
        heap = read_heap(s[2])
        cmd = read_cmd(s[3][1])
        print(f"── step {n}  " + "  ".join(f"{k} = {_fmt_value(v)}" for k, v in heap.items()), file=out)
        print(pretty_cmd(cmd), file=out)
    print("── result", file=out)
    _print_result(res, out)
    return 0


def cmd_fmt(args, out) -> int:
    prog = load(args.file)
    text = program_sexp(prog) + "\n" if args.to == "sexp" else pretty(prog)
    if args.in_place:
        Path(args.file).write_text(text)
    else:
        out.write(text)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="revhandlers",
        description="Run programs of the reverse-handler language through the verified evaluator "
                    "(extracted from Coq) or the numpy reference semantics.",
        epilog="Exit codes: 0 success, 1 runtime failure of a well-typed program, 2 bad input.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    c = sub.add_parser("check", help="type-check a program (.rh or .sexp)")
    c.add_argument("file")
    c.add_argument("--engine", choices=ENGINES, default="verified",
                   help="the extracted checker (default) or the Python mirror")
    c.set_defaults(func=cmd_check)

    r = sub.add_parser("run", help="run a program and print its value and final heap")
    r.add_argument("file")
    r.add_argument("--heap", metavar="H.npz", help="initial values of locations (one array per location)")
    r.add_argument("--engine", choices=ENGINES, default="verified")
    r.set_defaults(func=cmd_run)

    t = sub.add_parser("trace", help="print every small step of the verified evaluator")
    t.add_argument("file")
    t.add_argument("--heap", metavar="H.npz")
    t.set_defaults(func=cmd_trace)

    f = sub.add_parser("fmt", help="print a program in the surface syntax (or as an S-expression)")
    f.add_argument("file")
    f.add_argument("--to", choices=("rh", "sexp"), default="rh")
    f.add_argument("-i", "--in-place", action="store_true", help="rewrite the file")
    f.set_defaults(func=cmd_fmt)

    _extend(sub)
    return p


def _extend(sub) -> None:
    """Further commands registered by other modules (training, fuzzing,
    diagrams) when they exist."""
    for mod in ("train", "fuzz", "diagram"):
        try:
            module = __import__(f"revhandlers.{mod}", fromlist=["register"])
        except ModuleNotFoundError as e:
            if e.name == f"revhandlers.{mod}":
                continue
            raise
        module.register(sub)


def main(argv: list[str] | None = None, out=None) -> int:
    out = out or sys.stdout
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        with room():
            return args.func(args, out)
    except RevHandlersError as e:
        rule = f" [{e.rule}]" if e.rule != "none" else ""
        print(f"error ({e.kind}){rule}: {e.message}", file=sys.stderr)
        return e.exit_code


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
