"""The pullback language extracted from Coq, from Python: a long-lived
``pullback-eval --serve`` process (:class:`PullbackEvaluator`), whose type
checker (``infer``, ``theories/pullback/infer.v``) and normaliser
(``normalize``, ``normalize.v``, over the step function of ``step_fn.v``)
and continuation machine (``cps_run``, ``cps.v``) are the Coq definitions.

Terms travel as S-expressions (:mod:`.sexp`, ``docs/sexp-format.md``,
"pullback-eval"); errors come back as the project's errors
(:func:`revhandlers.errors.make_error`): bad input (exit code 2, kinds
``parse``, ``syntax``, ``unbound``, ``number``, ``too-deep``, ``type``, …)
or runtime failures (exit code 1: ``stuck``, ``out-of-fuel``, ``internal``,
``answer-too-large`` for an answer longer than
:data:`~.sexp.MAX_ANSWER` characters, which is not read, and ``timeout``
when the process gives no answer in time)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import sexpdata

from ..errors import BadInput, RevHandlersError, RuntimeFailure
from ..paths import driver_path
from ..process import ServeProcess, lazily
from ..sexpio import loads, ocaml_float
from .sexp import (MAX_NAT, Result, from_sexp, read_answer, read_rules, read_type, request_sexp,
                   too_large_answer)
from .syntax import (NP, NR, NZ, App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, Real, TArr, TDual,
                     Tm, TProd, TR, Ty, Var, Zero)
from .syntax import FUNCTIONS


def pullback_eval_path():
    """The extracted driver: ``PULLBACK_EVAL``, the checkout's build, or
    ``PATH`` (:func:`revhandlers.paths.driver_path`)."""
    return driver_path("pullback-eval", "PULLBACK_EVAL")


@dataclass(frozen=True)
class Trace:
    """The answer to ``(trace TERM)``: the term after each step (its
    S-expression text when it holds ``nan`` or an infinity), and the final
    answer, a :class:`~.sexp.Result` or the error the run ended with
    (``stuck``, ``out-of-fuel``); ``rules``: the rule of each step
    (``step_rule``, ``cps.v``)."""
    steps: list
    outcome: Result | RevHandlersError
    rules: list = field(default_factory=list)

    @property
    def result(self) -> Result:
        """The result, or raises the error the run ended with."""
        if isinstance(self.outcome, RevHandlersError):
            raise self.outcome
        return self.outcome


class PullbackEvaluator(ServeProcess):
    """A ``pullback-eval --serve`` process: the type checker and the
    normaliser extracted from Coq.  ``fuel`` bounds the steps (the driver's
    default is 1,000,000); ``timeout`` the seconds per request."""

    def __init__(self, path=None, timeout: float | None = None, fuel: int | None = None):
        extra = ("--fuel", str(int(fuel))) if fuel is not None else ()
        super().__init__(path or pullback_eval_path(), timeout=timeout, flags=extra)
        self.fuel = fuel

    def _ask(self, kind: str, term: Tm | str) -> str:
        """The answer line to a request on ``term`` (a term, or the text of
        one S-expression term)."""
        return self.request(f"({kind} {term})" if isinstance(term, str) else request_sexp(kind, term))

    def result(self, term: Tm | str) -> Result:
        """The :class:`~.sexp.Result` of running ``term``: its value (binder
        types erased, ``None``), its type and the number of steps."""
        return _result(self._ask("run", term))

    def result_line(self, term: Tm | str) -> tuple[Result, str]:
        """:meth:`result` and the answer line it was read from."""
        line = self._ask("run", term)
        return _result(line), line

    def cps_line(self, term: Tm | str) -> str:
        """The answer line of the continuation machine on ``term``, not
        read (:func:`result_of` reads it)."""
        return self._ask("cps", term)

    def run(self, term: Tm | str) -> tuple[Tm, Ty, int]:
        """``(value, type, steps)``: the normal form ``term`` reaches (a
        value), its type and the number of steps."""
        r = self.result(term)
        return r.value, r.type, r.steps

    def cps(self, term: Tm | str) -> Result:
        """The :class:`~.sexp.Result` of running ``term`` on the continuation
        machine (``cps_run``): value, type, steps and the rules that fired."""
        return _result(self._ask("cps", term))

    def check(self, term: Tm | str) -> Ty:
        """The type the extracted checker gives ``term``."""
        return read_answer(self._ask("check", term))

    def zcheck(self, term: Tm | str) -> Ty:
        """The type the extracted checker gives ``term`` once the extracted
        ``zcheck`` accepts it at that type (the typed premise ``ztyped``,
        ``theories/pullback/ztyped.v``); outside it the bad input
        ``ill-formed`` with the rule ``ztyped`` is raised."""
        return read_answer(self._ask("zcheck", term))

    def trace(self, term: Tm | str) -> Trace:
        """The term after each step and the final answer (a failure at run
        time is kept in :attr:`Trace.outcome`; bad input raises, and so
        does a trace longer than :data:`~.sexp.MAX_ANSWER` characters,
        ``answer-too-large``)."""
        line = self._ask("trace", term).rstrip()
        too_large = too_large_answer(line)
        if too_large is not None:
            raise too_large
        if not line.startswith("(trace "):
            return Trace([], read_answer(line))     # an error about the input itself: raises it
        # (trace (step TERM) … ANSWER): no term holds "(step " or a string,
        # and the answer is the last "(result (value " or "(error (kind "
        end = max(line.rfind(" (result (value "), line.rfind(" (error (kind "))
        parts = [_STEP.fullmatch(part.rstrip()[:-1]) for part in line[:end].split("(step ")[1:]]
        if not all(parts):
            raise RevHandlersError("internal", f"unexpected trace from pullback-eval: {line[:200]}")
        steps = [m.group(2) for m in parts]
        try:
            outcome = _result(line[end + 1:-1])
        except RevHandlersError as e:
            if e.exit_code == 2:
                raise
            outcome = e
        return Trace([_step(x) for x in steps], outcome, [m.group(1) for m in parts])


    def last_term(self, term: Tm | str):
        """The term a run of ``term`` ends with (``(last TERM)``: its
        value, the stuck term or the term where the fuel ran out, whole),
        its S-expression text when it holds ``nan`` or an infinity.  Bad
        input and an answer past :data:`~.sexp.MAX_ANSWER` characters
        raise."""
        return read_last(self._ask("last", term), term)


def read_last(line: str, term: Tm | str):
    """:meth:`PullbackEvaluator.last_term` from the answer ``line`` to
    ``(last TERM)``."""
    line = line.rstrip()
    too_large = too_large_answer(line)
    if too_large is not None:
        raise too_large
    end = line.rfind(") (steps ")
    if not line.startswith("(last (term ") or end < 0:
        read_answer(line)                       # an error: raises it
        raise RevHandlersError("internal", f"unexpected answer from pullback-eval: {line[:200]}")
    return _step(line[len("(last (term "):end])


def result_of(line: str) -> Result:
    """An answer line of ``(run TERM)`` or ``(cps TERM)`` read as
    :meth:`PullbackEvaluator.result` reads it (errors raise)."""
    return _result(line)


def same_run(run_line: str, cps_line: str) -> tuple | None:
    """The rules of the machine's answer ``cps_line`` when it gives the
    value, type and steps of the normaliser's answer ``run_line`` (the same
    text, the machine's ``(rules …)`` added); ``None`` otherwise.  Only the
    rules are read."""
    head = run_line.rstrip()
    if not head.startswith("(result (value ") or not head.endswith(")"):
        return None
    head = head[:-1] + " (rules "
    if not cps_line.startswith(head):
        return None
    rules = cps_line.rstrip()[len(head) - len("(rules "):-1]
    if _RULES.fullmatch(rules):
        return tuple((name, int(count)) for name, count in _RULE.findall(rules))
    return read_rules(loads(rules, program=True)[1:])


#: pullback-eval's spelling of ``(rules (NAME COUNT) …)``, read without
#: :func:`~.sexp.read_rules` (which reads any spelling)
_RULES = re.compile(r"\(rules(?: \([A-Za-z0-9-]+ [0-9]{1,9}\))*\)")
_RULE = re.compile(r"\(([A-Za-z0-9-]+) ([0-9]+)\)")


#: a step of a trace, ``(rule NAME) TERM``
_STEP = re.compile(r"\(rule ([^ ()]+)\) (.*)", re.S)


def _result(line: str):
    """:func:`~.sexp.read_answer`, and a value that holds ``nan`` or an
    infinity (which :func:`~.sexp.from_sexp` does not read: input numbers
    are finite) when it is a number or a numeric dual.  A result line is
    read first by :func:`fast_result`."""
    if line.startswith("(result (value ") and too_large_answer(line) is None:
        try:
            return fast_result(line)
        except _Slow:
            pass
    try:
        return read_answer(line)
    except BadInput as e:
        if e.kind != "number" or not line.startswith("(result "):
            raise
    s = loads(line, program=True)
    fields = {f[0].value(): f[1] for f in s[1:] if isinstance(f, list) and len(f) == 2}
    v = fields.get("value")
    if isinstance(v, list) and len(v) == 2 and v[0] == sexpdata.Symbol("ndual"):
        value = NDual(_num(v[1]))
    elif v is not None and not isinstance(v, list):
        value = Real(_float(v))
    else:
        raise RuntimeFailure("non-finite", f"pullback-eval's value holds a non-finite number, which is read only "
                                           f"in a number or a numeric dual: {line[:300]}")
    rules = next((f[1:] for f in s[1:] if isinstance(f, list) and f and f[0] == sexpdata.Symbol("rules")), [])
    return Result(value, read_type(fields["type"], erased=False), int(fields["steps"]), read_rules(rules))


def _step(text: str):
    """The term of a step; its text when it holds a non-finite number
    (which :func:`~.sexp.from_sexp` does not read)."""
    try:
        return fast_term(text)
    except _Slow:
        pass
    try:
        return from_sexp(text)
    except BadInput as e:
        if e.kind != "number":
            raise
        return text


def _float(x) -> float:
    f = ocaml_float(x.value()) if isinstance(x, sexpdata.Symbol) else float(x)
    if f is None:
        raise BadInput("syntax", f"not a number in an answer of pullback-eval: {x}")
    return f


def _num(x):
    if x == sexpdata.Symbol("zero"):
        return NZ()
    if isinstance(x, list) and len(x) == 2:
        return NP(_num(x[0]), _num(x[1]))
    return NR(_float(x))


# ------------------------------------------------ the fast reader of answers
#
# The campaign reads a value from every answer; the general reader
# (:func:`~.sexp.from_sexp` over :func:`revhandlers.sexpio.loads`) accepts
# every spelling of the S-expression format and says what is wrong with a
# bad one.  pullback-eval prints one spelling only (docs/sexp-format.md:
# binder types ``?``, numbers by ``%.17g`` with a ``.`` or an exponent), and
# the reader below reads that spelling in one pass over its tokens, into
# the same terms; anything else (a non-finite number, an integer where a
# number is expected, a nesting past :data:`_FAST_DEPTH`, a malformed line)
# raises :class:`_Slow`, and the general reader decides, errors included.
# ``tests/pullback/test_pullback_campaign.py`` checks that both read the
# campaign's answers into the same terms.

_FLOAT = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?")
#: the deepest nesting the fast reader reads (deeper: the general reader, which also bounds it)
_FAST_DEPTH = 400
_TWO = {"app": App, "pair": Pair, "+": Plus}


class _Slow(Exception):
    """Not the spelling :func:`fast_term` reads: the general reader decides."""


#: the leaves the fast reader shares between the terms it reads (they are
#: frozen: equal values, one object): a number by its spelling (the table
#: emptied when it grows past :data:`_LEAVES`), a variable by its index
_REALS: dict[str, Real] = {}
_VARS: dict[str, Var] = {}
_LEAVES = 1 << 14
_ZERO = Zero()


def _real(tok: str) -> Real:
    r = _REALS.get(tok)
    if r is None:
        if len(_REALS) >= _LEAVES:
            _REALS.clear()
        r = _REALS[tok] = Real(_number(tok))
    return r


def _var(n: str, level: int) -> Var:
    v = _VARS.get(n)
    if v is None:
        if not (n.isdigit() and n.isascii()):
            raise _Slow
        if len(_VARS) >= _LEAVES:
            _VARS.clear()
        v = _VARS[n] = Var(int(n))
    if v.n >= level:
        raise _Slow
    return v


def _number(tok: str) -> float:
    if ("." in tok or "e" in tok) and _FLOAT.fullmatch(tok):
        return float(tok)
    raise _Slow


def _reader(text: str):
    # the tokens: a parenthesis, or a run of other non-blank characters
    # (str.split takes a third of the time of a regular expression's findall)
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    nxt = iter(tokens).__next__

    def close() -> None:
        if nxt() != ")":
            raise _Slow

    def start(d: int) -> str:
        # the first token of a part at depth d
        if d > _FAST_DEPTH:
            raise _Slow
        return nxt()

    def num(d: int):
        tok = start(d)
        if tok == "zero":
            return NZ()
        if tok != "(":
            return NR(_number(tok))
        a = num(d + 1)
        b = num(d + 1)
        close()
        return NP(a, b)

    def ty(d: int):
        tok = start(d)
        if tok == "R":
            return TR()
        if tok != "(":
            raise _Slow
        head = nxt()
        if head == "dual":
            a = ty(d + 1)
            close()
            return TDual(a)
        if head not in ("*", "->"):
            raise _Slow
        a = ty(d + 1)
        b = ty(d + 1)
        close()
        return TProd(a, b) if head == "*" else TArr(a, b)

    def term(level: int, d: int) -> Tm:
        # the heads in the order of their frequency in the campaign's answers
        tok = start(d)
        if tok != "(":
            return _ZERO if tok == "zero" else _real(tok)
        head = nxt()
        d += 1
        if head == "var":
            out = _var(nxt(), level)
        elif head in _TWO:
            a = term(level, d)
            out = _TWO[head](a, term(level, d))
        elif head == "let":
            a = term(level, d)
            out = Let(a, term(level + 1, d))
        elif head == "lam":
            if nxt() != "?":
                raise _Slow
            out = Lam(None, term(level + 1, d))
        elif head == "proj":
            i = nxt()
            if i not in ("1", "2"):
                raise _Slow
            out = Proj(int(i), term(level, d))
        elif head in ("fun", "jac"):
            f = nxt()
            if f not in FUNCTIONS:
                raise _Slow
            out = (Fun if head == "fun" else Jac)(f, term(level, d))
        elif head in ("dual-map", "pullback"):
            if nxt() != "?":
                raise _Slow
            body = term(level + 1, d)
            out = (Dual if head == "dual-map" else Pb)(None, body, term(level, d))
        elif head == "ndual":
            out = NDual(num(d))
        else:
            raise _Slow
        close()
        return out

    return nxt, close, term, ty


def fast_term(text: str) -> Tm:
    """The closed term ``text`` prints, as :func:`~.sexp.from_sexp` reads
    it, in pullback-eval's spelling; :class:`_Slow` otherwise."""
    nxt, _, term, _ = _reader(text)
    try:
        t = term(0, 1)
        for _ in iter(nxt, None):
            raise _Slow                 # something after the term
    except StopIteration:
        raise _Slow from None
    return t


def fast_result(line: str) -> Result:
    """A ``(result (value V) (type T) (steps K) [(rules …)])`` line, as
    :func:`~.sexp.read_answer` reads it; :class:`_Slow` for another line or
    spelling."""
    nxt, close, term, ty = _reader(line)
    try:
        if (nxt(), nxt(), nxt()) != ("(", "result", "("):
            raise _Slow
        if nxt() != "value":
            raise _Slow
        value = term(0, 1)
        close()
        if (nxt(), nxt()) != ("(", "type"):
            raise _Slow
        typ = ty(1)
        close()
        if (nxt(), nxt()) != ("(", "steps"):
            raise _Slow
        k = nxt()
        if not (k.isdigit() and k.isascii()) or int(k) > MAX_NAT:
            raise _Slow
        close()
        rules = []
        tok = nxt()
        if tok == "(":
            if nxt() != "rules":
                raise _Slow
            while (tok := nxt()) == "(":
                name, count = nxt(), nxt()
                if name in "()" or not (count.isdigit() and count.isascii()) or int(count) > MAX_NAT:
                    raise _Slow
                rules.append((name, int(count)))
                close()
            if tok != ")":
                raise _Slow
            tok = nxt()
        if tok != ")":
            raise _Slow
        for _ in iter(nxt, None):
            raise _Slow
    except StopIteration:
        raise _Slow from None
    return Result(value, typ, int(k), tuple(rules))


#: the process shared by ``revhandlers pullback run``
default_evaluator = lazily(PullbackEvaluator)
