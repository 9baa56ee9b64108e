"""Reading program files and writing formatted ones, for every system's
command line and library: at most :data:`MAX_INPUT` bytes of UTF-8 text,
and ``fmt -i``'s refusal to drop a comment."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TextIO

from .errors import BadInput

#: the largest program file read (rh-eval's ``max_input``)
MAX_INPUT = 1 << 30

def read_source(path: str | os.PathLike[str]) -> str:
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


def code_text(text: str) -> str:
    """``text`` without its leading ``;`` comment lines and blanks."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";")).lstrip()


def is_sexp_program(text: str) -> bool:
    """Whether ``text`` is an S-expression program (as revhandlers.parse decides)."""
    return code_text(text).startswith("(program")


def comments(text: str, sexp_like: bool) -> list[str]:
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


def write_formatted(path: str, text: str, in_place: bool, out: TextIO) -> None:
    """``fmt``'s output: back into ``path`` (``-i``), else to ``out``.
    ``-i`` leaves the file as it is when one of its comments is missing from
    ``text`` (a ``bad input`` error, exit code 2)."""
    if not in_place:
        out.write(text)
        return
    original = read_source(path)
    sexp_like = is_sexp_program(original) or (str(path).endswith(".sexp") and code_text(original).startswith("("))
    missing = comments(original, sexp_like)
    for c in comments(text, sexp_like and is_sexp_program(text)):
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
