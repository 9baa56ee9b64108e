"""The ``revhandlers`` command line (``python -m revhandlers``, console
script ``revhandlers``): the main calculus's commands
(:mod:`revhandlers.rh.command`), ``revhandlers pullback``
(:mod:`revhandlers.pullback.command`) and ``revhandlers dbr``
(:mod:`revhandlers.dbr.command`).

Exit codes are those of ``rh-eval``: 0 success, 1 runtime failure of a
well-typed program, 2 bad input (including a bad command line)."""

from __future__ import annotations

import argparse
import os
import sys
from importlib.metadata import PackageNotFoundError, version

from . import interrupt
from .dbr import command as dbr_command
from .errors import RevHandlersError
from .pullback import command as pullback_command
from .rh import command
from .rh.nesting import room


def package_version() -> str:
    """The package's version (pyproject.toml), as installed."""
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
    command.register(sub)
    dbr_command.register(sub)
    pullback_command.register(sub)
    return p


def main(argv: list[str] | None = None, out=None) -> int:
    """Run a command; SIGINT and SIGTERM end it with one line saying what
    was kept and exit code 130 or 143 (:mod:`revhandlers.interrupt`)."""
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
        command.check_options(args)
        with room():
            return args.func(args, out)
    except RevHandlersError as e:
        print(command.describe_error(e, args), file=sys.stderr)
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
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 0
    sys.exit(code)
