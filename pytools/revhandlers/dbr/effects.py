"""One-shot deep effect handlers on greenlets.

``perform(effect, payload)`` suspends the computation and hands the request
to the innermost enclosing handler of ``effect``; ``handle(body, ret,
clauses)`` runs ``body()`` under a handler whose clause ``clauses[effect](
payload, k)`` receives the continuation ``k``: ``k(answer)`` resumes the
computation at the ``perform``, still under the same handler (the handler
is *deep*), and returns when the rest of the handled computation has
finished, with its result.  A continuation resumes at most once (it is
*one-shot*), and only from inside its own clause.

Effects are *generative*: an :class:`Effect` is a new label each time one
is created, so two handlers of two labels never catch each other's
requests, as with OCaml effects declared locally.  A request passes through
every handler that has no clause for its label, and a clause (like the
return function) runs *outside* its handler: what it performs goes to the
handlers around ``handle``.

How it runs: the body runs in a greenlet of its own, and each clause in a
greenlet of its own, all children of the greenlet that called ``handle``
(the *driver*).  ``perform`` starts the clause of the handler it reaches
in a new greenlet.  When a clause calls ``k``, its greenlet is suspended on
a stack and the performer resumes; when the body returns, ``ret`` computes the
answer and the suspended clauses are resumed from the top of the stack,
each receiving the answer of the one above as the result of its ``k``.
This stack of suspended clauses *is* the tape of the reverse-mode
differentiator (:mod:`revhandlers.dbr.handlers`).  Nothing recurses on the
Python stack, so a computation may perform any number of requests.
"""

from __future__ import annotations

from typing import Any, Callable

from greenlet import getcurrent, greenlet


class Effect:
    """A label of requests.  Each instance is a new label."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<effect {self.name} {id(self):#x}>"


class Unhandled(RuntimeError):
    """A request that no enclosing handler handles."""


class ContinuationError(RuntimeError):
    """A continuation resumed twice, or from outside its clause."""


class _Frame:
    """An installed handler: its clauses, its driver greenlet, the handlers
    around it (those its clauses and return function see), and its clauses
    suspended in their continuations, innermost last."""

    __slots__ = ("clauses", "driver", "outer", "waiting")

    def __init__(self, clauses, driver, outer):
        self.clauses = clauses
        self.driver = driver
        self.outer = outer
        self.waiting: list = []


class _Return:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _Answer:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


def _frames(g) -> _Frame | None:
    """The handlers around the code running in ``g``: those of the nearest
    greenlet, ``g`` or a parent of it, that runs under ``handle`` (a
    greenlet the client made itself runs under its parent's)."""
    while g is not None:
        try:
            return g._dbr_frame
        except AttributeError:
            g = g.parent
    return None


def _run_clause(frame: _Frame, clause, payload, performer):
    """A clause, in a greenlet of its own whose parent is the driver: its
    answer goes to the driver when it returns."""
    me = getcurrent()
    used = False

    def k(answer):
        nonlocal used
        if used:
            raise ContinuationError("a one-shot continuation was resumed twice")
        if getcurrent() is not me:
            raise ContinuationError("a continuation resumes only from inside its clause")
        used = True
        frame.waiting.append(me)
        return performer.switch(answer).value   # the driver resumes us with an _Answer

    return _Answer(clause(payload, k))


def perform(effect: Effect, payload: Any = None) -> Any:
    """Perform a request; returns the answer its handler resumes with.

    The clause starts at once, in a new greenlet (the driver is waiting for
    the handled computation and is not involved)."""
    me = getcurrent()
    frame = _frames(me)
    while frame is not None and effect not in frame.clauses:
        frame = frame.outer
    if frame is None:
        raise Unhandled(f"no handler for {effect!r}")
    c = greenlet(_run_clause, parent=frame.driver)
    c._dbr_frame = frame.outer
    return c.switch(frame, frame.clauses[effect], payload, me)


def handle(body: Callable[[], Any], ret: Callable[[Any], Any],
           clauses: dict[Effect, Callable[[Any, Callable[[Any], Any]], Any]]) -> Any:
    """Run ``body()`` under a one-shot deep handler and return its answer:
    ``ret(v)`` if the body returns ``v`` without performing a request of
    ``clauses``; otherwise the answer of the clause of the first request."""
    driver = getcurrent()
    frame = _Frame(dict(clauses), driver, _frames(driver))
    waiting = frame.waiting

    def run_body():
        return _Return(body())

    g = greenlet(run_body, parent=driver)
    g._dbr_frame = frame
    error: BaseException | None = None
    try:
        msg = g.switch()
    except Exception as e:       # the body, or a clause that did not resume, raised
        msg, error = None, e
    while True:
        # What reaches the driver: the body's result, or the answer (or
        # error) of a clause that has returned.  The answer of the handled
        # computation from that point on is the result of the continuation
        # of the innermost suspended clause, or the result of handle.
        if error is None and isinstance(msg, _Return):
            try:
                msg = _Answer(ret(msg.value))
            except Exception as e:
                msg, error = None, e
        if not waiting:
            if error is not None:
                raise error
            assert isinstance(msg, _Answer), msg
            return msg.value
        c = waiting.pop()
        try:
            if error is not None:
                e, error = error, None
                msg = c.throw(e)
            else:
                msg = c.switch(msg)
        except Exception as e:
            msg, error = None, e
