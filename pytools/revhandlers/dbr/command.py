"""``revhandlers dbr``: evaluate and differentiate an expression given on
the command line with the define-by-run AD library.

    revhandlers dbr diff "(x+1)^3" --at 4 --order 3 --impl handlers
    revhandlers dbr grad "(x + y^2)^3" --at 2,1

Numbers are exact by default (``int``, or ``Fraction`` when a point is
written ``p/q`` or with a decimal point); ``--numbers float`` computes in
floats.  Bad expressions, points and options exit with code 2.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction

from ..errors import BadInput
from . import IMPLEMENTATIONS, diff_n, grad
from .campaign import register as register_fuzz
from .dictionary import INTS, NUMBERS, counting
from .engine import default_library
from .syntax import client, free_names, parse

MAX_ORDER = 8
MAX_WORK = 10 ** 6
MAX_PRINTED_BITS = 400_000      # about 120,000 decimal digits


_EXACT = re.compile(r"[+-]?(\d+(/\d+)?|\d*\.\d+|\d+\.)")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
MAX_POINT_LENGTH = 100


def _number(text: str, numbers: str):
    t = text.strip()
    kind = {"float": "a finite number", "int": "an integer"}.get(numbers, "a rational number (p, p/q or a decimal)")
    pattern = {"float": _FLOAT, "int": re.compile(r"[+-]?\d+")}.get(numbers, _EXACT)
    if len(t) > MAX_POINT_LENGTH or not pattern.fullmatch(t):
        raise BadInput("number", f"the point {text!r} is not {kind}")
    try:
        x = {"float": float, "int": int}.get(numbers, Fraction)(t)
    except (ValueError, ZeroDivisionError):
        raise BadInput("number", f"the point {text!r} is not {kind}") from None
    if isinstance(x, float) and not math.isfinite(x):
        raise BadInput("number", f"the point {text!r} is not {kind}")
    return x


def _points(text: str, numbers: str | None) -> tuple[list, str]:
    parts = text.split(",")
    if numbers is None:   # exact: int if every coordinate is one, else Fraction
        numbers = "int" if all(p.strip().lstrip("+-").isdigit() for p in parts) else "fraction"
    return [_number(p, numbers) for p in parts], numbers


def _show(v) -> str:
    if isinstance(v, float):
        return repr(v)
    try:
        return str(v)
    except ValueError:          # past Python's limit on printing long integers
        pass
    n = max(abs(v.numerator), v.denominator) if isinstance(v, Fraction) else abs(v)
    if n.bit_length() > MAX_PRINTED_BITS:
        return f"<a number of about {int(n.bit_length() * math.log10(2)) + 1} digits>"
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(v)
    finally:
        sys.set_int_max_str_digits(old)


def _check_work(f, order: int, arg) -> None:
    """Refuse runs that would take too long: each order of nested
    differentiation multiplies the operations by at most about 5."""
    d, counts = counting(INTS)
    f(d, arg)
    work = (counts["add"] + counts["mul"] + 1) * 5 ** order
    if work > MAX_WORK:
        raise BadInput("too-large", f"the expression makes {counts['add'] + counts['mul']} operations; "
                                    f"at order {order} that is past the limit of this command")


def _prime(k: int) -> str:
    return "f" + ("'" * k if k <= 3 else f"^({k})")


def cmd_diff(args, out) -> int:
    e = parse(args.expression)
    names = free_names(e)
    if len(names) > 1:
        raise BadInput("unbound", f"diff takes an expression of one variable, this one has {', '.join(names)} "
                                  "(use `revhandlers dbr grad`)")
    name = names[0] if names else "x"
    if not 0 <= args.order <= MAX_ORDER:
        raise BadInput("syntax", f"--order is between 0 and {MAX_ORDER}, not {args.order}")
    xs, numbers = _points(args.at, args.numbers)
    if len(xs) != 1:
        raise BadInput("shape", f"diff takes one point, not {len(xs)}")
    d = NUMBERS[numbers]
    f = client(e, [name])
    _check_work(f, args.order, 1)
    x = xs[0]
    engine = f"{args.impl}, {numbers}" + (", extracted from Coq" if args.engine == "coq" else "")
    print(f"{args.expression} at {name} = {_show(x)} ({engine})", file=out)
    for k in range(args.order + 1):
        if args.engine == "coq":
            v = default_library().diff(e, x, k, args.impl, var=name)
        else:
            v = diff_n(f, k, args.impl)(d, x)
        print(f"{_prime(k)}({_show(x)}) = {_show(v)}", file=out)
    return 0


def cmd_grad(args, out) -> int:
    e = parse(args.expression)
    names = [n.strip() for n in args.vars.split(",")] if args.vars else sorted(free_names(e))
    if not names:
        raise BadInput("unbound", "the expression has no variable: name the variables with --vars")
    if not all(re.fullmatch(r"[A-Za-z_][A-Za-z_0-9']*", n) for n in names):
        raise BadInput("syntax", f"--vars is a comma-separated list of variable names, not {args.vars!r}")
    if len(set(names)) != len(names):
        raise BadInput("syntax", f"a variable is named twice in --vars {args.vars}")
    xs, numbers = _points(args.at, args.numbers)
    if len(xs) != len(names):
        raise BadInput("shape", f"{len(names)} variable{'s' if len(names) > 1 else ''} ({', '.join(names)}) "
                                f"but {len(xs)} coordinate{'s' if len(xs) > 1 else ''} in --at {args.at}")
    d = NUMBERS[numbers]
    f = client(e, names) if len(names) > 1 else (lambda g: (lambda d, xs: g(d, xs[0])))(client(e, names))
    _check_work(f, 1, [1] * len(names))
    point = ", ".join(_show(x) for x in xs)
    if args.engine == "coq":
        if args.impl != "handlers":
            raise BadInput("syntax", "the library extracted from Coq computes gradients with --impl handlers "
                                     "(grad_correct is proved for the handler-based reverse mode)")
        lib = default_library()
        value, gradient = lib.value(e, names, xs), lib.grad(e, names, xs)
        engine = f"{args.impl}, {numbers}, extracted from Coq"
    else:
        value, gradient = f(d, xs), grad(f, args.impl)(d, xs)
        engine = f"{args.impl}, {numbers}"
    print(f"{args.expression} at ({', '.join(names)}) = ({point}) ({engine})", file=out)
    print(f"f({point}) = {_show(value)}", file=out)
    for n, g in zip(names, gradient):
        print(f"df/d{n} = {_show(g)}", file=out)
    return 0


def register(sub) -> None:
    p = sub.add_parser("dbr", help="differentiate an expression with the define-by-run AD library")
    s = p.add_subparsers(dest="dbr_command", required=True, metavar="{diff,grad,fuzz}")
    common = {"impl": dict(choices=tuple(IMPLEMENTATIONS), default="handlers",
                           help="reverse mode with effect handlers (default), with a tape, or forward mode"),
              "numbers": dict(choices=tuple(NUMBERS), default=None,
                              help="the numbers computed with (default: exact, int or Fraction after --at)")}
    dp = s.add_parser("diff", help="the value and the derivatives of an expression of one variable")
    dp.add_argument("expression", help='e.g. "(x+1)^3" or "let y = x*x in y*y"')
    dp.add_argument("--at", required=True,
                    help="the point, e.g. 4, -3, 1/3, 0.5 (write --at=-1/3 when it starts with - and is not an integer)")
    dp.add_argument("--order", type=int, default=1, help=f"highest derivative (0 to {MAX_ORDER}, default 1)")
    for name, kw in common.items():
        dp.add_argument(f"--{name}", **kw)
    dp.set_defaults(func=cmd_diff)
    gp = s.add_parser("grad", help="the value and the gradient of an expression of several variables")
    gp.add_argument("expression", help='e.g. "(x + y^2)^3"')
    gp.add_argument("--at", required=True, help="the point, comma-separated, e.g. 2,1 (--at=-2,1 when it starts with -)")
    gp.add_argument("--vars", help="the variables in the order of --at (default: alphabetical)")
    for name, kw in common.items():
        gp.add_argument(f"--{name}", **kw)
    gp.set_defaults(func=cmd_grad)
    for q in (dp, gp):
        q.add_argument("--engine", choices=("python", "coq"), default="python",
                       help="the Python library (default) or the library extracted from Coq (dbr-eval)")
    register_fuzz(s)
