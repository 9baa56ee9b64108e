#!/usr/bin/env python3
"""Write docs/rules.md: the rules the main calculus's theorems speak of,
read from the Coq sources.

For every relation listed in RELATIONS (typing, term and command
reduction, heaps, the rewriting of Fig. 4 and the `RH` rewriting of
Fig. 5) and every constructor of it, in the order of the source: the
inference rule drawn in the comment above the constructor (the paper's
notation), the paper's name of the rule, the Coq constructor name, the
constructor itself as Coq states it, and where the mechanization departs
from the paper (NOTES).  Nothing is written by hand in docs/rules.md.

    python3 scripts/gen-rules.py            # write docs/rules.md
    python3 scripts/gen-rules.py --check    # exit 1 if docs/rules.md is not current

tests/test_rules_doc.py checks that the document is current and that the
constructors it names are exactly those Coq reports for each relation.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "rules.md"

# (file, relation, title): the relations, in the order of the document.
RELATIONS: list[tuple[str, str, str]] = [
    ("theories/rh/typing.v", "typed_tm", "Typing of terms (Fig. 2)"),
    ("theories/rh/typing.v", "typed_cmd", "Typing of commands (Fig. 3)"),
    ("theories/rh/typing.v", "typed_handler", "Typing of reverse handlers (Fig. 3)"),
    ("theories/rh/typing.v", "typed_clauses", "Typing of a handler's explicit clauses (Fig. 3)"),
    ("theories/rh/term_sem.v", "head_step_tm", "Term reduction at the head (§5.1)"),
    ("theories/rh/term_sem.v", "step_tm", "Term reduction in evaluation contexts (§5.1)"),
    ("theories/rh/rdr_rel.v", "rdr_rel", "The reverse-derivative rewriting W.R_θ(x⃗.N) (Fig. 4)"),
    ("theories/rh/rh.v", "rh", "The rewriting RH of a reverse handler (Fig. 5)"),
    ("theories/rh/cmd_sem.v", "step_cmd", "Command reduction (§5.2)"),
    ("theories/rh/cmd_sem.v", "step_conf", "Configurations with a heap (§5.3)"),
    ("theories/rh/cmd_sem.v", "steps_conf", "Runs: the reflexive-transitive closure"),
]

DECISIONS = "decisions.md"

# Where the mechanization departs from the paper, beside the relation (key:
# the relation's name) or the rule (key: the constructor's name) it touches.
NOTES: dict[str, str] = {
    "typed_cmd": (
        "The pure context `Γ` of commands is dropped: it is always empty "
        f"([decisions]({DECISIONS}#syntax)); contexts are lists of types, de Bruijn "
        "index 0 first."),
    "typed_handler_rev": (
        "A handler is a return clause and a finite list of explicit clauses carrying "
        "their residual types `D_Op`; an operation without a clause gets the default "
        f"clause, which re-performs it outwards ([decisions]({DECISIONS}#syntax))."),
    "head_step_tm_app": (
        "`Ev` beyond the paper: the executable instance defines `Ev` on `rd^k[p]` for "
        "`k ≤ 2` only (spec decision item 10); elsewhere `f(V)` is stuck "
        f"([decisions]({DECISIONS}#the-primitive-library-spec-decisions-item-10))."),
    "head_step_tm_rd": (
        "The one-variable instance of the multi-variable rewriting, projected "
        "(`rd_rewrite`); the type of the point is inferred, not written "
        f"([decisions]({DECISIONS}#the-reverse-derivative-fig-4))."),
    "rdr_rel": (
        "Multi-variable Fig. 4: the paper rewrites one variable `x`; here a block `x⃗` "
        "with a substitution `θ` that gives the point for the block and the place of "
        "every other free variable, so each recursive call but R-Rd is on an immediate "
        "subterm. R-Tuple projects the cotangent instead of binding it; R-Let binds the "
        "result tuple once. The relation has no bound; the executable `rdr` is bounded "
        "by the `rd`-depth and meets the relation from that bound on (`rdr_rel_rdr`, "
        f"`rdr_rel_eq`) ([decisions]({DECISIONS}#the-reverse-derivative-fig-4))."),
    "rdr_rel_proj": (
        "The product type of `M`, which the paper reads off the derivation, is a typing "
        "premise: the relation relates well-typed bodies only."),
    "rdr_rel_rd": (
        "The \"definedness lets\" of R-Rd: the point `L` and the cotangent `M` are "
        "let-bound before the inner rewriting is differentiated, so a stuck `L` or `M` "
        "stays stuck after the rewriting."),
    "rh": (
        "`RH` is a relation with one constructor per case of Fig. 5, not a function "
        "defined by the paper's size of derivations (not formalized): termination of "
        "the rewriting is the depth lemma `rh_depth_lt` and the lexicographic measure "
        "of `normalization.v`. The components `V⃗` are terms (`Vs`), not values: RH-2 "
        "and RH-4 extend them with `proj_0 z` and a variable; the binder types `Bs` "
        "are carried for the zeros and sums "
        f"([decisions]({DECISIONS}#commands-and-rh-fig-5))."),
    "rh_rev": (
        "Case 3 for a variable `y_j` as the seed states it; the components of the "
        "inner point are the projections of `y_j` (spec §8.3)."),
    "step_cmd_revhandle": (
        "The component types `Bs` of the value are inferred (`infer_tm`); they are the "
        "binder types by uniqueness of typing."),
    "step_conf_get": (
        "A heap is an association list; a location with no binding holds `0` "
        f"([decisions]({DECISIONS}#heaps))."),
}


@dataclass
class Constructor:
    name: str
    label: str | None        # the paper's name of the rule, if the comment gives one
    rule: str | None         # the inference rule drawn in the comment
    remark: str | None       # the comment's other text
    coq: str                 # the constructor as Coq states it


@dataclass
class Relation:
    file: str
    name: str
    title: str
    intro: str | None
    constructors: list[Constructor]


class RulesError(Exception):
    pass


def _blank_comments(text: str) -> str:
    """``text`` with every character inside a comment (nested) replaced by a
    space, newlines kept: positions stay the same."""
    out = list(text)
    depth = 0
    i = 0
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            out[i] = out[i + 1] = " "
            i += 2
            continue
        if depth and text.startswith("*)", i):
            depth -= 1
            out[i] = out[i + 1] = " "
            i += 2
            continue
        if depth and text[i] != "\n":
            out[i] = " "
        i += 1
    if depth:
        raise RulesError("unterminated comment")
    return "".join(out)


def _comments(text: str) -> list[str]:
    """The outermost comments of ``text``, without their delimiters."""
    found = []
    depth = 0
    start = 0
    i = 0
    while i < len(text):
        if text.startswith("(*", i):
            if depth == 0:
                start = i
            depth += 1
            i += 2
            continue
        if depth and text.startswith("*)", i):
            depth -= 1
            i += 2
            if depth == 0:
                body = text[start + 2:i - 2]
                found.append(body[1:] if body.startswith("*") else body)
            continue
        i += 1
    return found


LABEL = re.compile(r"\(((?:[A-Z][A-Za-z]*-)+[A-Za-z0-9]+)\)")
LEADING_LABEL = re.compile(r"^\s*((?:RH|R|T|C|H|E|S)-[0-9A-Za-z]+)\s*(\(([^)]*)\))?:?")


def _split_comment(comment: str) -> tuple[str | None, str | None, str | None]:
    """(label, rule, remark) of a comment above a constructor."""
    rule = None
    m = re.search(r"<<\n(.*?)\n\s*>>", comment, re.S)
    rest = comment
    if m:
        lines = m.group(1).splitlines()
        indent = min((len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()), default=0)
        rule = "\n".join(ln[indent:].rstrip() for ln in lines)
        rest = comment[:m.start()] + comment[m.end():]
    label = None
    lm = LEADING_LABEL.match(rest)
    if lm:
        label = lm.group(1) + (f" ({lm.group(3)})" if lm.group(3) else "")
        rest = rest[lm.end():]
    elif rule is not None:
        rm = LABEL.search(rule)
        if rm:
            label = rm.group(1)
    remark = " ".join(rest.split()) or None
    return label, rule, remark


def _inductive_span(text: str, blank: str, name: str) -> tuple[int, int]:
    """Start and end of the block ``Inductive name …`` or ``with name …`` up
    to the next ``with`` or the final period."""
    m = re.search(rf"^(Inductive|with)\s+{re.escape(name)}\s*:", blank, re.M)
    if not m:
        raise RulesError(f"no inductive {name}")
    start = m.start()
    nxt = re.search(r"^with\s+\w+\s*:", blank[m.end():], re.M)
    end_dot = re.search(r"\.(\s|$)", blank[m.end():])
    if end_dot is None:
        raise RulesError(f"{name}: no final period")
    end = m.end() + end_dot.start()
    if nxt and m.end() + nxt.start() < end:
        end = m.end() + nxt.start()
    return start, end


def read_relation(file: str, name: str, title: str) -> Relation:
    text = (ROOT / file).read_text()
    blank = _blank_comments(text)
    start, end = _inductive_span(text, blank, name)
    # The comment right before `Inductive` introduces the relation.
    before = text[:start].rstrip()
    intro = None
    if before.endswith("*)") and not blank[:start].rstrip().endswith(")"):
        cs = _comments(text[:start])
        if cs:
            intro = cs[-1]
    header = re.match(r"(Inductive|with)\s+\w+\s*:[^\n]*?:=", blank[start:end], re.S)
    if not header:
        raise RulesError(f"{name}: no ':=' in its header")
    body_start = start + header.end()
    bars = [m.start() + body_start for m in re.finditer(r"(?m)^\|", blank[body_start:end])]
    if not bars:
        raise RulesError(f"{name}: no constructor")
    cons = []
    prev = body_start
    for k, bar in enumerate(bars):
        stop = bars[k + 1] if k + 1 < len(bars) else end
        comment_text = text[prev:bar]
        own = blank[bar:stop]
        # A constructor's own text ends where the next rule's comment begins.
        own_end = bar + len(own.rstrip())
        coq = text[bar:own_end]
        cut = coq.find("(*")
        if cut >= 0:
            coq = coq[:cut]
        coq = coq.rstrip()
        cname = re.match(r"\|\s*(\w+)", coq)
        if not cname:
            raise RulesError(f"{name}: unreadable constructor at {file}:{text[:bar].count(chr(10)) + 1}")
        cs = _comments(comment_text)
        label = rule = remark = None
        if cs:
            label, rule, remark = _split_comment(cs[-1])
        cons.append(Constructor(cname.group(1), label, rule, remark, coq))
        prev = bar + len(coq)
    return Relation(file, name, title, intro, cons)


def read_all() -> list[Relation]:
    return [read_relation(f, n, t) for f, n, t in RELATIONS]


def render(relations: list[Relation]) -> str:
    known = {r.name for r in relations} | {c.name for r in relations for c in r.constructors}
    unknown = sorted(set(NOTES) - known)
    if unknown:
        raise RulesError(f"NOTES name what is not a relation or constructor: {', '.join(unknown)}")
    out = [
        "# The rules of the main calculus, as proved",
        "",
        "<!-- Generated by scripts/gen-rules.py from the Coq sources (`make rules`); do not edit. -->",
        "",
        "Every typing rule, reduction rule, rule of the reverse-derivative rewriting "
        "(Fig. 4) and case of the `RH` rewriting (Fig. 5) that the theorems of "
        "`theories/rh/` speak of, in the paper's notation, each with the Coq "
        "constructor that states it.  The drawings are the comments above the "
        "constructors; the Coq text below each is the constructor itself, which is "
        "what the proofs use.  Contexts and variables are de Bruijn indices in Coq "
        "(index 0 is the most recent binder; `Proj 0` is the paper's `proj_1`).  "
        "Where the paper gives a rule no name, the name is this project's.  "
        "Departures from the paper are marked **Departure**, beside the rule they touch.",
        "",
        "| Relation | Coq | Rules |",
        "|---|---|---|",
    ]
    for r in relations:
        anchor = r.name.replace("_", "-")
        out.append(f"| [{r.title}](#{anchor}) | `{r.name}` ({r.file}) | {len(r.constructors)} |")
    out.append("")
    for r in relations:
        out += [f'<a id="{r.name.replace("_", "-")}"></a>', "", f"## {r.title}: `{r.name}`", "",
                f"Source: `{r.file}`.", ""]
        if r.intro:
            # A section heading (`(** ** Head reduction …`) loses its stars.
            intro = re.sub(r"^\s*\*+\s*", "", r.intro).strip("\n")
            if "<<" in intro:
                head, _, rest = intro.partition("<<")
                block, _, tail = rest.partition(">>")
                if head.strip():
                    out += [" ".join(head.split()), ""]
                out += ["```", block.strip("\n"), "```", ""]
                if tail.strip():
                    out += [" ".join(tail.split()), ""]
            else:
                out += [" ".join(intro.split()), ""]
        if r.name in NOTES:
            out += [f"**Departure.** {NOTES[r.name]}", ""]
        for c in r.constructors:
            title = f"### `{c.name}`" + (f": {c.label}" if c.label else "")
            out += [title, ""]
            if c.rule:
                out += ["```", c.rule, "```", ""]
            if c.remark:
                out += [c.remark, ""]
            out += ["```coq", c.coq, "```", ""]
            if c.name in NOTES:
                out += [f"**Departure.** {NOTES[c.name]}", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write: exit 1 if docs/rules.md is not what the sources give")
    args = ap.parse_args(argv)
    try:
        text = render(read_all())
    except (RulesError, OSError) as e:
        print(f"gen-rules: {e}", file=sys.stderr)
        return 2
    if args.check:
        current = OUT.read_text() if OUT.exists() else ""
        if current != text:
            print("gen-rules: docs/rules.md is not current: run `make rules`", file=sys.stderr)
            return 1
        print("gen-rules: docs/rules.md is current")
        return 0
    OUT.write_text(text)
    n = sum(1 for line in text.splitlines() if line.startswith("### "))
    print(f"gen-rules: wrote {OUT.relative_to(ROOT)} ({n} rules)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
