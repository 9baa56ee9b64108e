"""S-expressions as the extracted drivers write and read them (OCaml's
lexical conventions): names as atoms, numbers as ``rh-eval`` reads them,
and a reader (:func:`loads`) that never recurses past the nesting limit.
Each system's own S-expressions (programs, queries, answers) are read and
written on top of it (``revhandlers.rh.sexp``, ``revhandlers.pullback.sexp``)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Any

import sexpdata

from .depth import MAX_NESTING, room, too_deep
from .errors import BadInput

#: an S-expression as read: a list, a symbol (``sexpdata.Symbol``), a string
#: or a number (sexpdata is not annotated)
Sexp = Any


def fnum(x: float) -> str:
    """A float that reads back as a float: always a ``.`` or an exponent,
    ``nan``, ``inf``, ``-inf`` spelled out."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b"}
_TO_ESCAPE = re.compile(r'[\\"\n\r\t\b]')


def name_sexp(name: str) -> str:
    """A name as an atom; quoted unless it is a plain identifier.  Inside
    the quotes, backslash, double quote, newline, carriage return, tab and
    backspace are written as the escapes ``\\\\ \\" \\n \\r \\t \\b``, which
    ``rh-eval`` (OCaml's lexical conventions) and :func:`loads` read back the
    same way, so that a program is always one line."""
    if _PLAIN.match(name):
        return name
    return '"' + _TO_ESCAPE.sub(lambda m: _ESCAPES[m.group()], name) + '"'



# ----------------------------------------------------------------- reading

def symbol(x: Sexp) -> str | None:
    return str(x.value()) if isinstance(x, sexpdata.Symbol) else None


def head(x: Sexp) -> str | None:
    return symbol(x[0]) if isinstance(x, list) and x else None


def _show_atom(x: Sexp) -> str:
    if isinstance(x, sexpdata.Symbol):
        return str(x.value())
    if isinstance(x, str):
        return name_sexp(x) if x else '""'
    if isinstance(x, FloatAtom):
        return x.text
    if isinstance(x, (int, float)):
        return str(x)
    return repr(x)


def show(x: Sexp, limit: int = 300) -> str:
    """``x`` as an S-expression for a message: without recursion (a subterm
    may be nested thousands of levels) and abbreviated after ``limit``
    characters."""
    parts: list[str] = []
    size = 0
    stack = [iter((x,))]
    space = False
    while stack:
        if size > limit:
            return "".join(parts)[:limit] + " ..."
        try:
            item = next(stack[-1])
        except StopIteration:
            stack.pop()
            if stack:
                parts.append(")")
                size += 1
                space = True
            continue
        if space:
            parts.append(" ")
            size += 1
        if isinstance(item, list):
            parts.append("(")
            size += 1
            stack.append(iter(item))
            space = False
        else:
            a = _show_atom(item)
            parts.append(a)
            size += len(a)
            space = True
    return "".join(parts)[:limit] + (" ..." if size > limit else "")


def read_name(x: Sexp) -> str:
    if isinstance(x, FloatAtom):
        return x.text         # an atom such as 1.5, read as a number
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)         # an atom such as 12 (read as a number: no sign, no leading zero)
    s = x.value() if isinstance(x, sexpdata.Symbol) else x if isinstance(x, str) else None
    if s is None:
        raise BadInput("syntax", f"expected a name, found {show(x)}")
    return s


# ------------------------------------------------------------ number atoms
#
# The grammar of number atoms is rh-eval's: OCaml's ``float_of_string`` for
# numbers and ``int_of_string`` for natural numbers (docs/sexp-format.md,
# "Number atoms"); the functions below implement exactly what they accept.

#: rh-eval's ``max_nat`` (theories/rh/frontend.v): the largest natural number (dimension, index, fuel)
MAX_NAT = 1_000_000

_C_SPACE = " \t\n\x0b\x0c\r"     # isspace() in the C locale
_DEC = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_SPECIAL = re.compile(r"[+-]?(?:inf|infinity|nan(?:\([0-9A-Za-z]*\))?)\Z", re.I)
_C_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP]([+-]?[0-9]+))?\Z")
_OCAML_HEX = re.compile(r"([+-]?)0[xX]([0-9a-fA-F.]*)(?:[pP]([" + _C_SPACE + r"]*[+-]?[0-9]+))?\Z")
_OCAML_INT = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F][0-9a-fA-F_]*)|0[oO]([0-7][0-7_]*)|0[bB]([01][01_]*)"
                        r"|0[uU]([0-9][0-9_]*)|([0-9][0-9_]*))\Z")


def _hex_value(sign: str, mantissa: str, exponent: str | None) -> float:
    """``±0x{mantissa}p{exponent}``, correctly rounded, ±inf on overflow."""
    digits = mantissa.replace(".", "")
    exp = int(exponent.strip(_C_SPACE)) if exponent is not None else 0
    frac = len(mantissa) - 1 - mantissa.index(".") if "." in mantissa else 0
    nonzero = digits.strip("0") != ""
    bound = 4 * len(digits) + 4096
    if not nonzero or exp < -bound:
        x = 0.0
    elif exp > bound:
        x = math.inf
    else:
        try:
            x = float.fromhex(f"0x{digits}p{exp - 4 * frac}")
        except OverflowError:
            x = math.inf
    return -x if sign == "-" else x


def ocaml_float(text: str) -> float | None:
    """What OCaml's ``float_of_string_opt`` (rh-eval's reading of a number
    atom) gives for ``text``: ``None`` if it is not a number, else the float
    (possibly ``inf`` or ``nan``, which rh-eval then rejects)."""
    s = text.replace("_", "")
    if not s or not s.isascii():
        return None
    if re.match(r"[+-]?0[xX]", s):          # OCaml's own hexadecimal reader decides
        m = _OCAML_HEX.match(s)
        if not m:
            return None
        sign, mantissa, exponent = m.groups()
        if mantissa.count(".") > 1 or mantissa.replace(".", "") == "":
            return None
        return _hex_value(sign, mantissa, exponent)
    body = s.lstrip(_C_SPACE)                # strtod: leading white space, then the number
    if _DEC.match(body):
        return float(body)
    if _SPECIAL.match(body):
        x = math.nan if body.lstrip("+-")[:1] in "nN" else math.inf
        return -x if body.startswith("-") else x
    m = _C_HEX.match(body)
    if m:
        return _hex_value(*m.groups())
    return None


def ocaml_int(text: str) -> int | None:
    """What OCaml's ``int_of_string_opt`` gives for ``text`` (63-bit ints:
    decimal up to 2^62 - 1, other bases up to 2^63 - 1, wrapping)."""
    if len(text) > 200 or not text.isascii():
        return None
    m = _OCAML_INT.match(text)
    if not m:
        return None
    sign, hx, oc, bi, un, dec = m.groups()
    if dec is not None or un is not None:
        v = int((dec if dec is not None else un).replace("_", ""))
        if v > (1 << 62) - (sign != "-"):
            return None
        return -v if sign == "-" else v
    base, digits = (16, hx) if hx is not None else (8, oc) if oc is not None else (2, bi)
    v = int(digits.replace("_", ""), base)
    if v >= 1 << 63:
        return None
    if v >= 1 << 62:
        v -= 1 << 63
    v = -v if sign == "-" else v
    return ((v + (1 << 62)) % (1 << 63)) - (1 << 62)


def _atom_text(x: Sexp) -> str | None:
    """The text of an atom that is not read as a number here."""
    if isinstance(x, sexpdata.Symbol):
        return str(x.value())
    if isinstance(x, str):
        return x
    return None


def read_nat(x: Sexp) -> int:
    n: int | None
    if isinstance(x, int) and not isinstance(x, bool):
        n = x
    else:
        text = _atom_text(x)
        n = ocaml_int(text) if text is not None else None
    if n is None or n < 0 or n > MAX_NAT:
        raise BadInput("syntax", f"expected a natural number (0 to {MAX_NAT}), found {show(x)}")
    return n


def read_num(x: Sexp) -> float:
    if isinstance(x, bool):
        raise BadInput("syntax", f"expected a number, found {show(x)}")
    f: float | None
    if isinstance(x, (int, float)):
        f = float(x)
    else:
        text = _atom_text(x)
        f = ocaml_float(text) if text is not None else None
        if f is None:
            raise BadInput("syntax", f"expected a number, found {show(x)}")
    if not math.isfinite(f):
        raise BadInput("number", f"not a finite number: {show(x)}")
    return f


def _paren_depth(text: str, limit: int | None = None) -> int:
    """How deeply the parentheses of ``text`` nest (outside strings and
    comments), without recursion; as soon as it is beyond ``limit``, a
    depth beyond it."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif c == "(":
            depth += 1
            if depth > deepest:
                deepest = depth
                if limit is not None and deepest > limit:
                    return deepest
        elif c == ")":
            depth -= 1
        i += 1
    return deepest


# What the fast reader leaves to sexpdata: brackets, quotes, comments, escapes.
_SLOW = re.compile(r"[\[\]{};'\\]")
_TOKENS = re.compile(r'\(|\)|"[^"]*"|[^ \t\n\r\x0b\x0c()"]+')


def _read_atom(token: str) -> Sexp:
    """sexpdata's reading of an atom: an int, else a float, else a symbol."""
    if "." not in token:
        try:
            return int(token)
        except ValueError:
            pass
    try:
        return float(token)
    except ValueError:
        return sexpdata.Symbol(token)


# Atoms of programs: a number only where Python's reading of the token is
# OCaml's (and the text is recoverable: ints without sign or leading zero);
# every other atom stays a symbol, read as a number by read_num/read_nat with
# rh-eval's grammar (ocaml_float, ocaml_int).
_CANON_INT = re.compile(r"(?:0|[1-9][0-9]{0,17})\Z")
_CANON_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)\Z")


class FloatAtom(float):
    """A float atom of a program, with its text (for an atom used as a name)."""

    text: str


def _program_atom(token: str) -> Sexp:
    if _CANON_INT.match(token):
        return int(token)
    if _CANON_FLOAT.match(token):
        x = FloatAtom(token)
        x.text = token
        return x
    return sexpdata.Symbol(token)


def _fast_loads(text: str, atom: Callable[[str], Sexp] = _read_atom) -> Sexp:
    """What ``sexpdata.loads`` reads from ``text`` (lists, symbols, ints,
    floats, strings), without recursion and several times faster, for text
    made of parentheses, atoms and strings without escapes (the lines of
    ``rh-eval``); ``None`` for anything else, which sexpdata then reads.
    ``atom`` reads an atom's token."""
    if _SLOW.search(text) or text.count('"') % 2:
        return None
    stack: list[list[Sexp]] = []
    top: list[Sexp] = []
    cur = top
    read: dict[str, Sexp] = {}                     # each distinct atom read once (a vector repeats its numbers)
    if len(text) <= 1 << 23 or text.count("(") <= 4 * MAX_NESTING:
        tokens: Iterable[str] = _TOKENS.findall(text)
    else:                               # large and perhaps far too deep: token by token, to stop at the limit
        tokens = (m.group() for m in _TOKENS.finditer(text))
    for t in tokens:                    # with an even number of ", nothing but whitespace is skipped
        if t == "(":
            stack.append(cur)
            cur = []
            if len(stack) > 4 * MAX_NESTING:       # far deeper than a program may be
                raise too_deep()
        elif t == ")":
            if not stack:
                return None
            done, cur = cur, stack.pop()
            cur.append(done)
        elif t[0] == '"':
            cur.append(t[1:-1])
        else:
            a = read.get(t)
            if a is None:
                a = read[t] = atom(t)
            cur.append(a)
    if stack or len(top) != 1:
        return None
    return top[0]


# What the fast reader cannot read as rh-eval reads a program: comments,
# escapes, brackets and quotes (atom characters for rh-eval), \x0b (white
# space for the fast reader only).
_PX_SPECIAL = re.compile(r"[#|\[\]{};'\\\x0b]")

_OCAML_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", "r": "\r", " ": " ", "\\": "\\", '"': '"', "'": "'"}


_PX_SPACE = " \t\n\r\x0c"
_PX_BLANKS = re.compile(r"[ \t\n\r\x0c]+")
#: an atom: up to white space, a parenthesis, a quote or ``;`` (``\x0b`` is an atom character)
_PX_ATOM = re.compile(r'[^ \t\n\r\x0c()";]+')


def _ocaml_string(text: str, i: int) -> tuple[int, str]:
    r"""The quoted string starting at ``text[i] == '"'``, with OCaml's escapes
    (as rh-eval reads it): ``\n \t \b \r \<space> \\ \" \'``, ``\DDD``
    (decimal), ``\xHH``, ``\oOOO``; a backslash before a newline skips it
    and the blanks after it; any other backslash stands for itself.
    Returns the index after the closing quote and the string."""
    n = len(text)
    out = []
    j = i + 1
    while True:
        k = j
        while k < n and text[k] not in '"\\':
            k += 1
        out.append(text[j:k])
        if k >= n:
            raise BadInput("parse", f"unterminated string starting at offset {i}")
        if text[k] == '"':
            return k + 1, "".join(out)
        c = text[k + 1] if k + 1 < n else ""
        if c in _OCAML_ESCAPES:
            out.append(_OCAML_ESCAPES[c])
            j = k + 2
        elif c == "\n":
            j = k + 2
            while j < n and text[j] in " \t":
                j += 1
        elif re.match(r"[0-9]{3}", text[k + 1:k + 4]) and int(text[k + 1:k + 4]) < 256:
            out.append(chr(int(text[k + 1:k + 4])))
            j = k + 4
        elif c == "x" and re.match(r"[0-9a-fA-F]{2}", text[k + 2:k + 4]):
            out.append(chr(int(text[k + 2:k + 4], 16)))
            j = k + 4
        elif c == "o" and re.match(r"[0-3][0-7]{2}", text[k + 2:k + 5]):
            out.append(chr(int(text[k + 2:k + 5], 8)))
            j = k + 5
        else:
            out.append("\\")
            j = k + 1


def _end(pattern: re.Pattern[str], text: str, i: int) -> int:
    """Where the match of ``pattern`` at ``i`` ends (the caller knows one starts there)."""
    m = pattern.match(text, i)
    assert m is not None
    return m.end()


def _program_loads(text: str) -> Sexp:
    """One S-expression read as rh-eval reads a program (OCaml's Parsexp),
    without recursion: atoms end at white space, parentheses, ``"`` and
    ``;`` (``[ ] { } '`` are atom characters); ``;`` starts a line comment,
    ``#|`` … ``|#`` a block comment (nested, strings inside it read as
    strings), ``#;`` comments out the next S-expression; ``#|`` or ``|#``
    inside an atom is an error; strings have OCaml's escapes; numbers are
    read by :func:`_program_atom`."""
    n = len(text)
    stack: list[tuple[list[Sexp], int]] = []  # (list being built, pending #; comments) of each open level
    cur: list[Sexp] = []
    pending = 0
    i = 0

    def add(item: Sexp) -> None:
        nonlocal pending
        if pending:
            pending -= 1                     # commented out by #;
        else:
            cur.append(item)

    read: dict[str, Sexp] = {}               # each distinct atom read once
    while i < n:
        c = text[i]
        if c in _PX_SPACE:
            i = _end(_PX_BLANKS, text, i)
        elif c == ";":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif c == "(":
            stack.append((cur, pending))
            if len(stack) > 4 * MAX_NESTING:
                raise too_deep()
            cur, pending = [], 0
            i += 1
        elif c == ")":
            if not stack:
                raise BadInput("parse", f"unexpected ')' at offset {i}")
            if pending:
                raise BadInput("parse", f"unterminated S-expression comment (#;) before offset {i}")
            done = cur
            cur, pending = stack.pop()
            add(done)
            i += 1
        elif c == '"':
            i, string = _ocaml_string(text, i)
            add(string)
        elif text.startswith("#|", i):
            depth, j = 1, i + 2
            while depth:
                if j >= n:
                    raise BadInput("parse", f"unterminated block comment starting at offset {i}")
                if text.startswith("#|", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("|#", j):
                    depth, j = depth - 1, j + 2
                elif text[j] == '"':
                    j, _ = _ocaml_string(text, j)
                else:
                    j += 1
            i = j
        elif text.startswith("#;", i):
            pending += 1
            i += 2
        else:
            j = _end(_PX_ATOM, text, i)
            token = text[i:j]
            if "|#" in token or "#|" in token[1:]:
                raise BadInput("parse", f"comment tokens in an unquoted atom at offset {i}: {token[:40]!r}")
            a = read.get(token)
            if a is None:
                a = read[token] = _program_atom(token)
            add(a)
            i = j
    if stack:
        raise BadInput("parse", "unclosed parentheses at the end of the input")
    if pending:
        raise BadInput("parse", "unterminated S-expression comment (#;) at the end of the input")
    if not cur:
        raise BadInput("parse", "empty input")
    if len(cur) > 1:
        raise BadInput("parse", "more than one S-expression")
    return cur[0]


class _Parser(sexpdata.Parser):  # type: ignore[misc]  # sexpdata is not annotated
    """sexpdata's parser, with a clear message for an unterminated string."""

    def parse_str(self, i: int) -> Sexp:
        if self.quote_or_escape_re.search(self.string, i + 1) is None:
            raise BadInput("parse", f"unterminated string starting at offset {i}")
        try:
            return super().parse_str(i)
        except (AttributeError, IndexError):
            raise BadInput("parse", f"unterminated string starting at offset {i}") from None


def loads(text: str, program: bool = False) -> Sexp:
    """Parse one S-expression (as sexpdata does), as a :class:`BadInput` on
    failure.  The reader recurses: text nested far beyond what a program
    may be is rejected before it is read.  With ``program``, atoms and
    strings are read as rh-eval reads a program (numbers by
    :func:`ocaml_float` / :func:`ocaml_int`, OCaml's escapes)."""
    if program:
        if not _PX_SPECIAL.search(text):
            fast = _fast_loads(text, _program_atom)
            if fast is not None:
                return fast
        return _program_loads(text)
    fast = _fast_loads(text, _read_atom)
    if fast is not None:
        return fast
    if text.count("(") > 4 * MAX_NESTING and _paren_depth(text, 4 * MAX_NESTING) > 4 * MAX_NESTING:
        raise too_deep()
    parser = _Parser(text, true=None, false=None, nil=None)
    try:
        with room():
            items = parser.parse()
    except BadInput:
        raise
    except Exception as e:  # sexpdata raises several exception types
        detail = str(e) or type(e).__name__
        raise BadInput("parse", f"malformed S-expression: {detail}") from None
    if not items:
        raise BadInput("parse", "empty input")
    if len(items) > 1:
        raise BadInput("parse", "more than one S-expression")
    return items[0]


def read_float(x: Sexp) -> float:
    if isinstance(x, float):
        return x
    s = symbol(x)
    if s in ("nan", "inf", "-inf"):
        return float(s)
    raise BadInput("syntax", f"{show(x)} is not a float (rh-eval always prints a '.' or an exponent)")


def is_atom(s: Sexp) -> bool:
    """An atom (every atom may be a name, as in rh-eval: ``5`` is a variable
    in term position)."""
    return isinstance(s, (sexpdata.Symbol, str, FloatAtom)) or (isinstance(s, int) and not isinstance(s, bool))
