"""``revhandlers pullback``: programs of the pullback language from files.

    revhandlers pullback check examples/pullback/paper_f.pb       # the type
    revhandlers pullback check --gradient examples/pullback/paper_f.pb  # and fo_query_ndual's premises
    revhandlers pullback check --ztyped examples/pullback/paper_f.pb    # and the typed premise ztyped
    revhandlers pullback fmt examples/pullback/paper_f.pb         # laid out again, comments kept
    revhandlers pullback fmt -i --ascii examples/pullback/paper_f.pb  # rewritten in ASCII
    revhandlers pullback sexp examples/pullback/paper_f.pb        # the driver's S-expression
    revhandlers pullback reference examples/pullback/paper_f.pb   # [660, 528]*
    revhandlers pullback run examples/pullback/paper_f.pb         # [660, 528]*, by pullback-eval
    revhandlers pullback run --trace examples/pullback/paper_f.pb # and each step: [its rule] the term
    revhandlers pullback run --machine cps examples/pullback/paper_f.pb  # by the continuation machine
    revhandlers pullback fuzz --n 1000 --seed 1                   # pullback-eval against the reference

A file ending in ``.sexp`` holds a term (or a request ``(run TERM)``) in the
S-expression format; any other file holds a term in the surface syntax.
Bad input (unreadable files, syntax, unbound names, type errors) exits with
code 2 and one line on standard error, as every ``revhandlers`` command;
``run`` exits with code 1 when the run is stuck, out of fuel, past its
time limit or its answer longer than pullback-eval's limit
(``answer-too-large``)."""

from __future__ import annotations

import math

from ..errors import BadInput, RevHandlersError
from ..source import read_source, write_formatted
from .campaign import register as register_fuzz
from .engine import PullbackEvaluator, default_evaluator
from .fmt import format_source
from .premise import gradient_rule, progress_rule, require
from .reference import Opaque, query_meaning, run
from .sexp import read_term_or_request, request_sexp, to_sexp
from .surface import parse, pretty, pretty_type
from .syntax import TDual, Tm, free_vars
from .typecheck import outside_ztyped, type_of, well_formed

#: the largest ``--fuel`` pullback-eval takes
MAX_FUEL = 1_000_000_000


def read_text(path: str) -> str:
    """The UTF-8 text of ``path``, at most ``revhandlers.cli.MAX_INPUT`` bytes."""
    return read_source(path)


def load(path: str) -> Tm:
    """The term of the file ``path`` (surface syntax, or S-expression for
    ``.sexp``)."""
    text = read_text(path)
    if path.endswith(".sexp"):
        return read_term_or_request(text)
    return parse(text)


def require_ztyped(t: Tm) -> None:
    """The typed premise ``ztyped`` (``theories/pullback/ztyped.v``),
    decided by pullback-eval's extracted ``zcheck``; outside it, the bad
    input ``ill-formed`` naming the ``0`` (``zt_zero``) or the sum
    (``zt_plus``) at a type that is not a dual type
    (:func:`.typecheck.outside_ztyped`), or ``ztyped`` when no single one
    is to blame (a term whose types the annotations do not determine)."""
    where = outside_ztyped(t)
    try:
        default_evaluator().zcheck(t)
    except BadInput as e:
        if e.rule != "ztyped":
            raise
        if where is None:
            raise BadInput("ill-formed", "outside the typed premise ztyped (theories/pullback/ztyped.v): zcheck "
                                         "refuses the term at its type (the types of its 0s and sums are not "
                                         "determined by its annotations; infer_complete.v, chk)", "ztyped") from None
        rule, u, ty = where
        what = "the zero term" if rule == "zt_zero" else "the sum"
        # its free variables (bound outside it) named v0, v1, … from the innermost
        names = tuple(f"v{i}" for i in range(max(free_vars(u), default=-1) + 1))
        shown = pretty(u, ascii=True, context=names, lenient=True)
        raise BadInput("ill-formed", f"outside the typed premise ztyped (theories/pullback/ztyped.v, {rule}): "
                                     f"{what} `{shown}` stands at type {ty}, not a dual type, outside the body of "
                                     f"a dual map (progress is proved under ztyped; such a 0 or sum can leave a "
                                     f"term stuck, as f(r + r))",
                       rule) from None
    if where is not None:
        raise RevHandlersError("internal", f"zcheck accepts a term whose {where[0]} the Python twin "
                                           f"(outside_ztyped) blames: please report it")


def cmd_check(args, out) -> int:
    """The file's type; ``--progress``: also the premises of ``fo_progress``
    (:func:`.premise.progress_rule`), ``--gradient``: those of
    ``fo_query_ndual`` and a dual type (:func:`.premise.gradient_rule`),
    ``--ztyped``: the typed premise ``ztyped`` (:func:`require_ztyped`); a
    premise that fails is the bad input ``ill-formed`` naming it."""
    t = load(args.file)
    ty = type_of(t)
    well_formed(t)
    covered = []
    if args.progress:
        require(t, progress_rule(t), "fo_progress")
        covered.append("fo_progress")
    if args.gradient:
        require(t, gradient_rule(t), "fo_query_ndual")
        if not isinstance(ty, TDual):
            raise BadInput("ill-formed", f"outside the premises of fo_query_ndual: the query's type "
                                         f"{pretty_type(ty, ascii=True)} is not a dual type", "fo_grad_query")
        covered.append("fo_query_ndual")
    if args.ztyped:
        require_ztyped(t)
        covered.append("ztyped")
    note = f" (premises of {', '.join(covered)} hold)" if covered else ""
    print(f"{args.file}: well typed, {pretty_type(ty, ascii=args.ascii)}{note}", file=out)
    return 0


def cmd_fmt(args, out) -> int:
    """A file of the surface syntax laid out again from its own text,
    keeping its comments, names and notation (:mod:`.fmt`; ``--ascii``,
    ``--unicode``: the symbols respelled); a ``.sexp`` file's term printed
    in the surface syntax (``-i`` refuses it when the file has comments)."""
    if args.ascii and args.unicode:
        raise BadInput("syntax", "fmt takes --ascii or --unicode, not both")
    if args.file.endswith(".sexp"):
        text = pretty(load(args.file), ascii=args.ascii) + "\n"
    else:
        try:
            text = format_source(read_text(args.file), "ascii" if args.ascii else "unicode" if args.unicode else None)
        except BadInput as e:
            if e.kind != "fmt":
                raise
            raise BadInput("fmt", f"{args.file}: {e.message}") from None
    write_formatted(args.file, text, args.in_place, out)
    return 0


def cmd_sexp(args, out) -> int:
    t = load(args.file)
    print(request_sexp(args.request, t) if args.request else to_sexp(t), file=out)
    return 0


def cmd_reference(args, out) -> int:
    t = load(args.file)
    res = run(t)
    shown = str(res.value) if isinstance(res.value, Opaque) else pretty(res.value, ascii=args.ascii, lenient=True)
    print(f"value: {shown}", file=out)
    print(f"type: {pretty_type(res.type, ascii=args.ascii)}", file=out)
    if args.jacobian:
        fwd = query_meaning(t, "forward")
        fd = query_meaning(t, "fd")
        print(f"J^T c (forward mode): {pretty(fwd, ascii=args.ascii, lenient=True)}", file=out)
        print(f"J^T c (finite differences): {pretty(fd, ascii=args.ascii, lenient=True)}", file=out)
    return 0


def cmd_run(args, out) -> int:
    """The file's term run by pullback-eval (the normaliser extracted from
    Coq, or with ``--machine cps`` the continuation machine, which also
    counts the rules): the value in the surface syntax, its type and the
    step count; with ``--trace``, each step first: the rule that fired and
    the term after it."""
    if args.fuel is not None and not 0 <= args.fuel <= MAX_FUEL:
        raise BadInput("syntax", f"--fuel is between 0 and {MAX_FUEL}, not {args.fuel}")
    if args.timeout is not None and not (args.timeout > 0 and math.isfinite(args.timeout)):
        raise BadInput("syntax", f"--timeout is a positive number of seconds, not {args.timeout}")
    t = load(args.file)
    own = args.fuel is not None or args.timeout is not None
    ev = PullbackEvaluator(timeout=args.timeout, fuel=args.fuel) if own else default_evaluator()

    def show(u):
        return u if isinstance(u, str) else pretty(u, ascii=args.ascii, lenient=True)

    try:
        if args.trace:
            tr = ev.trace(t)
            width = len(str(len(tr.steps)))
            for i, (u, rule) in enumerate(zip(tr.steps, tr.rules), 1):
                print(f"{i:>{width}} [{rule}]: {show(u)}", file=out)
            res = tr.result
        elif args.machine == "cps":
            res = ev.cps(t)
        else:
            res = ev.result(t)
    finally:
        if own:
            ev.close()
    print(f"value: {show(res.value)}", file=out)
    print(f"type: {pretty_type(res.type, ascii=args.ascii)}", file=out)
    print(f"steps: {res.steps}", file=out)
    if args.machine == "cps" and not args.trace:
        print("rules: " + ", ".join(f"{name} ×{count}" if not args.ascii else f"{name} x{count}"
                                    for name, count in res.rules), file=out)
    return 0


def register(sub) -> None:
    p = sub.add_parser("pullback", help="the differential-form pullback language of Mak and Ong",
                       description="Programs of the pullback language (surface syntax, or S-expressions in a "
                                   ".sexp file).  Exit codes: 0 success, 1 runtime failure, 2 bad input.")
    s = p.add_subparsers(dest="pullback_command", required=True, metavar="{check,fmt,sexp,reference,run,fuzz}")
    c = s.add_parser("check", help="type-check a program and print its type")
    for flag, text in (
            ("--progress", "also check the premises of the progress theorem fo_progress (the first-order fragment "
                           "fq, no 0 or sum outside dual maps' bodies: nzq); exit code 2 naming the one that fails"),
            ("--gradient", "also check the premises of fo_query_ndual (a gradient query ((pullback y P) (lam x r*)) "
                           "r0, P first order without 0, sum or a constant at its end); exit code 2 naming the "
                           "one that fails"),
            ("--ztyped", "also check the typed premise ztyped (0 and sums only at dual types outside dual maps' "
                         "bodies), by pullback-eval's zcheck; exit code 2 naming the 0 or sum (zt_zero, "
                         "zt_plus)")):
        c.add_argument(flag, action="store_true", help=text)
    c.set_defaults(func=cmd_check)
    f = s.add_parser("fmt", help="lay a program out again, keeping its comments, names and notation "
                                 "(a .sexp file: print its term in the surface syntax)")
    f.add_argument("-i", "--in-place", action="store_true", help="rewrite the file")
    f.add_argument("--unicode", action="store_true", help="spell the symbols in Unicode (λ, Ω, ·, ⟨⟩, ⇒, ×, π1)")
    f.set_defaults(func=cmd_fmt)
    x = s.add_parser("sexp", help="print a program as the S-expression the driver reads")
    x.add_argument("--request", choices=("run", "check", "trace"), help="wrap it in a request")
    x.set_defaults(func=cmd_sexp)
    r = s.add_parser("reference", help="the meaning of a program by the numpy reference (no pullback reduction)")
    r.add_argument("--jacobian", action="store_true",
                   help="for a query ((Ω λy. P) · ω) V, also Jᵀ c computed from the Jacobian matrix by forward "
                        "mode and by finite differences")
    r.set_defaults(func=cmd_reference)
    u = s.add_parser("run", help="run a program with pullback-eval, the normaliser extracted from Coq")
    u.add_argument("--trace", action="store_true", help="print each step first: its rule and the term after it")
    u.add_argument("--machine", choices=("step", "cps"), default="step",
                   help="the normaliser over the step function (default) or the continuation machine, "
                        "which also counts the rules that fired (premises included)")
    u.add_argument("--fuel", type=int, help="steps at most (pullback-eval's default: 1000000)")
    u.add_argument("--timeout", type=float, help="seconds at most (default: no limit)")
    u.set_defaults(func=cmd_run)
    for q in (c, f, x, r, u):
        q.add_argument("file", help="a program: surface syntax (.pb), or an S-expression (.sexp)")
        if q is not x:
            q.add_argument("--ascii", action="store_true", help="print in ASCII rather than Unicode")
    register_fuzz(s)
