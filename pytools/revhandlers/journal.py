"""A campaign's journal: what every batch of cases gave, written as it
arrives, so that an interrupted campaign keeps its verdicts and resumes
(``--journal PATH``, ``--resume PATH``; ``docs/interrupts.md``).

The file is JSON lines.  The first line is the header::

    {"journal": 1, "command": "revhandlers fuzz", "options": {"n": 3000, "seed": 0, ...}}

then one line per batch of a job (seed ``seed`` of ``--jobs``), in the
order of its cases::

    {"seed": 0, "start": 100, "verdicts": ["agree", ...], "outcomes": {...},
     "coverage": {...}, "seconds": 1.2}

``verdicts`` names the outcome of cases ``start``, ``start + 1``, …;
``outcomes`` and ``coverage`` are what the batch added to the campaign's
other counters (rd checks, rule coverage, steps); a line
``{"seed": s, "divergence": MESSAGE, "corpus_file": PATH}`` ends a job that
found one.  Each line is one ``write`` to a file opened for appending, so
the jobs of ``--jobs`` (processes) may share a journal, and a line is
written whole or not at all; a last line cut by a crash is ignored.

Resuming reads the journal back: a job whose cases ``0 … k-1`` are in it
starts at case ``k`` (cases are drawn from the seed alone, so they are the
same cases), its report starting from the journal's counts; a job that
found a divergence, or checked all its cases, is not run again.  The
header's options must be those of the resumed command."""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import BadInput
from .report import Report

StrPath = str | os.PathLike[str]

VERSION = 1


@dataclass
class Job:
    """What the journal holds for one job (one seed)."""
    seed: int
    verdicts: list[str] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)
    coverage: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    divergence: str | None = None
    corpus_file: str | None = None

    @property
    def done(self) -> int:
        """How many cases are in the journal."""
        return len(self.verdicts)

    def report(self) -> Report:
        """The :class:`~revhandlers.harness.Report` of the cases in the journal."""
        r = Report(programs=len(self.verdicts), skipped=sum(v.startswith("skipped") for v in self.verdicts),
                   seconds=self.seconds, divergence=self.divergence, corpus_file=self.corpus_file)
        r.outcomes.update(Counter(self.verdicts))
        r.outcomes.update(self.outcomes)
        r.coverage.update(self.coverage)
        return r


class Journal:
    """The journal at ``path`` of a campaign (``command`` with ``options``)."""

    def __init__(self, path: StrPath, command: str, options: dict[str, Any], jobs: dict[int, Job] | None = None) -> None:
        self.path = Path(path)
        self.command = command
        self.options = options
        self.jobs: dict[int, Job] = jobs or {}

    # ------------------------------------------------------------ opening
    @classmethod
    def start(cls, path: StrPath, command: str, options: dict[str, Any]) -> Journal:
        """A new journal (an existing file is replaced)."""
        j = cls(path, command, options)
        try:
            j.path.parent.mkdir(parents=True, exist_ok=True)
            with open(j.path, "w") as f:
                f.write(json.dumps({"journal": VERSION, "command": command, "options": options}) + "\n")
        except OSError as e:
            raise BadInput("io", f"cannot write the journal {path}: {e.strerror or e}") from None
        return j

    @classmethod
    def resume(cls, path: StrPath, command: str, options: dict[str, Any]) -> Journal:
        """The journal at ``path``, read back, for the same command and options."""
        header, jobs = read(path)
        if header.get("command") != command:
            raise BadInput("syntax", f"the journal {path} is of `{header.get('command')}`, not `{command}`")
        theirs = header.get("options", {})
        differ = [k for k in sorted(set(theirs) | set(options)) if theirs.get(k) != options.get(k)]
        if differ:
            was = ", ".join(f"{k} {theirs.get(k)!r}" for k in differ)
            raise BadInput("syntax", f"--resume {path}: the journal's campaign has other options ({was}); "
                                     "resume it with the options it was started with")
        return cls(path, command, options, jobs)

    # ------------------------------------------------------------ writing
    def _append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record) + "\n").encode()
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
            finally:
                os.close(fd)
        except OSError as e:
            raise BadInput("io", f"cannot write the journal {self.path}: {e.strerror or e}") from None

    def job(self, seed: int) -> Job:
        return self.jobs.setdefault(seed, Job(seed))

    def add(self, seed: int, start: int, verdicts: list[str], outcomes: Mapping[str, int] | None = None,
            coverage: Mapping[str, int] | None = None, seconds: float = 0.0) -> None:
        """Cases ``start …`` of job ``seed`` gave ``verdicts``."""
        job = self.job(seed)
        if start != job.done:
            raise ValueError(f"journal: job {seed} is at case {job.done}, not {start}")
        rec: dict[str, Any] = {"seed": seed, "start": start, "verdicts": list(verdicts),
               "outcomes": {k: v for k, v in (outcomes or {}).items() if v},
               "coverage": {k: v for k, v in (coverage or {}).items() if v}, "seconds": round(seconds, 6)}
        self._append(rec)
        job.verdicts += rec["verdicts"]
        job.outcomes.update(rec["outcomes"])
        job.coverage.update(rec["coverage"])
        job.seconds += seconds

    def diverged(self, seed: int, message: str, corpus_file: str | None) -> None:
        """Job ``seed`` found a divergence (it ends there)."""
        self._append({"seed": seed, "divergence": message, "corpus_file": corpus_file})
        job = self.job(seed)
        job.divergence, job.corpus_file = message, corpus_file

    def reports(self, seeds: Iterable[int]) -> list[Report]:
        """The reports of the jobs ``seeds``, as read back from the file
        (the jobs of ``--jobs`` write from their own processes)."""
        _, jobs = read(self.path)
        return [jobs.get(s, Job(s)).report() for s in seeds]


def read(path: StrPath) -> tuple[dict[str, Any], dict[int, Job]]:
    """The header and the jobs of the journal at ``path``."""
    try:
        with open(path) as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise BadInput("io", f"cannot read the journal {path}: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise BadInput("io", f"{path} is not a journal (not text)") from None
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or header.get("journal") != VERSION:
        raise BadInput("io", f"{path} is not a campaign journal (version {VERSION})")
    j = Journal(path, str(header.get("command")), header.get("options", {}))
    body = lines[1:]
    for k, line in enumerate(body):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            if "divergence" in rec:
                j.job(rec["seed"]).divergence = rec["divergence"]
                j.job(rec["seed"]).corpus_file = rec.get("corpus_file")
            else:
                job = j.job(rec["seed"])
                if rec["start"] != job.done:
                    raise ValueError("a gap")
                job.verdicts += rec["verdicts"]
                job.outcomes.update(rec.get("outcomes", {}))
                job.coverage.update(rec.get("coverage", {}))
                job.seconds += rec.get("seconds", 0.0)
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
            if k == len(body) - 1 or all(not x.strip() for x in body[k + 1:]):
                break                       # the last line, cut by a crash: that batch is checked again
            raise BadInput("io", f"the journal {path} is damaged at line {k + 2}: {e}") from None
    return header, j.jobs


def default_path(corpus: StrPath) -> Path:
    """The journal beside the corpus directory: ``tests/corpus`` gives
    ``tests/corpus-journal.jsonl``."""
    where = Path(corpus)
    return where.with_name(where.name + "-journal.jsonl")


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--journal`` and ``--resume`` of a campaign's subcommand."""
    parser.add_argument("--journal", metavar="PATH",
                        help="where each batch's verdicts, coverage and divergences are written as they arrive "
                             "(default: beside the corpus, CORPUS-journal.jsonl)")
    parser.add_argument("--resume", metavar="PATH",
                        help="continue the campaign of this journal (same options): the cases it holds are not "
                             "checked again, and the summary is that of the whole campaign")


def open_for(args: argparse.Namespace, command: str, options: dict[str, Any]) -> Journal:
    """The journal of a campaign's command line: ``--resume`` (appended
    to), else ``--journal`` or the default path (started afresh)."""
    if args.resume:
        if args.journal and Path(args.journal).resolve() != Path(args.resume).resolve():
            raise BadInput("syntax", "--resume PATH continues that journal: --journal must be the same path or absent")
        return Journal.resume(args.resume, command, options)
    return Journal.start(args.journal or default_path(args.corpus), command, options)
