"""Mutation check of the differential tester: apply deliberate bugs to a
copy of the reference semantics or of the verified evaluator, run a short
campaign against each, and report which mutants the campaign catches.

    python3 scripts/mutation-check.py [--n 3000] [--seed 0]

Reference mutants patch a copy of pytools/revhandlers; evaluator mutants
patch a copy of the repository (theories/ or extracted/) and rebuild it
with dune, so the mutated evaluator is still extracted from Coq (the copy
starts from the checkout's _build, so only what the mutant changes is
rebuilt; --fresh-build builds everything).  A bug in
the executable instance (theories/rh/instance.v) keeps every proof valid (the
theorems hold for any Ev); after a bug in the calculus itself
(theories/rh/rh.v) the proof scripts no longer go through, and to see whether
a campaign would catch it too, the throwaway copy of that one file is then
built with its Qed proofs left unchecked.  Exit code 0 when every mutant is caught."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# name: (where, file, original text, mutated text, what it breaks)
MUTANTS = {
    "rd-sub-sign": ("evaluator", "theories/rh/instance.v",
                    "| 1, [u; v; w] => Some [w; v_neg vo w]", "| 1, [u; v; w] => Some [w; w]",
                    "wrong sign in rd[sub] (the evaluator's reverse derivative of u − v)"),
    "rh-drop-accumulation": ("evaluator", "theories/rh/rh.v",
                             "if Nat.eqb i k then plus Bk (Proj (S i) (Var 1)) (Var 0)",
                             "if Nat.eqb i k then Var 0",
                             "RH-2 drops the y'_k + of <y'_1, …, y'_k + y'', …, y'_m> (the verified evaluator's RH)"),
    "argmax-is-argmin": ("evaluator", "extracted/vec.ml",
                         "if !bv < a then", "if !bv > a then",
                         "max pooling on float arrays picks the minimum (extracted/vec.ml)"),
    "list-model-argmin": ("evaluator", "extracted/vec.ml",
                          "s_lt = (fun (a : float) b -> a < b)", "s_lt = (fun (a : float) b -> a > b)",
                          "the scalars of the list model compare the wrong way round (max pooling of the model)"),
    "matvec-sum-order": ("evaluator", "extracted/vec.ml",
                         "        for t = 0 to n - 1 do\n          acc := !acc +. (get a (base + t) *. get b t)",
                         "        for t = n - 1 downto 0 do\n          acc := !acc +. (get a (base + t) *. get b t)",
                         "a matrix-vector product sums in the reverse order (differs only in rounding)"),
    "backward-order": ("reference", "reference.py",
                       "for rec in reversed(frame.records):", "for rec in frame.records:",
                       "backward clauses run in program order instead of reverse order"),
    "drop-accumulation": ("reference", "autodiff.py",
                          "cot[id(node)] = g if prev is None else add(prev, g)", "cot[id(node)] = g",
                          "cotangents are overwritten instead of summed (the y'_k + y'' of RH)"),
    "pad-off-by-one": ("reference", "autodiff.py",
                       "k = min(n, m)\n", "k = max(min(n, m) - 1, 0)\n",
                       "pad copies one element too few"),
    "put-lost": ("reference", "reference.py",
                 "self.heap[loc] = ad.const(v.value).value.copy()", "pass",
                 "Put does not write to the heap"),
    "swish-derivative": ("reference", "autodiff.py",
                         "d1 = s * (1 - s)                      # σ'", "d1 = s * (1 + s)                      # σ'",
                         "a wrong derivative of the sigmoid"),
}


def run_campaign(env: dict, n: int, seed: int, corpus: Path) -> tuple[bool, str]:
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", str(n), "--seed", str(seed),
                           "--allow-holes", "--corpus", str(corpus)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    caught = proc.returncode == 1 and "DIVERGENCE" in proc.stdout
    first = next((line for line in proc.stdout.splitlines() if line.startswith("DIVERGENCE")), "")
    return caught, first or proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else proc.stderr[-300:]


def patch(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    if text.count(old) != 1:
        raise SystemExit(f"mutant does not apply: {old!r} occurs {text.count(old)} times in {path}")
    path.write_text(text.replace(old, new))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--fresh-build", action="store_true",
                    help="build each evaluator mutant from scratch (default: from a copy of the checkout's _build)")
    args = ap.parse_args()
    rows = []
    for name, (where, rel, old, new, what) in MUTANTS.items():
        if args.only and name not in args.only:
            continue
        start = time.time()
        proofs_reject = False
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            env = dict(os.environ)
            if where == "reference":
                pkg = tmp / "pkg" / "revhandlers"
                shutil.copytree(ROOT / "pytools" / "revhandlers", pkg)
                patch(pkg / rel, old, new)
                env["PYTHONPATH"] = str(tmp / "pkg")
                env["RH_EVAL"] = str(ROOT / "_build" / "default" / "extracted" / "rh-eval")
            else:
                repo = tmp / "repo"
                shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns("_build", ".git", "results", "*.egg-info"))
                if (ROOT / "_build").is_dir() and not args.fresh_build:
                    # the checkout's build, so that dune rebuilds only what the mutant changes
                    shutil.copytree(ROOT / "_build", repo / "_build", symlinks=True,
                                    ignore=shutil.ignore_patterns("log", ".lock"))
                patch(repo / rel, old, new)
                target = "extracted/rh-eval"
                build = subprocess.run(["dune", "build", target], cwd=repo, capture_output=True, text=True)
                if build.returncode != 0 and rel.endswith(".v"):
                    # The proofs about the mutated definition no longer go
                    # through (as they should not).  To see whether the
                    # campaign catches the bug too, this throwaway copy's
                    # file is built with its proofs left unchecked.
                    proofs_reject = True
                    mutated = repo / rel
                    mutated.write_text(re.sub(r"Proof\.(?:(?!Proof\.|Defined\.).)*?Qed\.", "Proof. Admitted.",
                                              mutated.read_text(), flags=re.S))
                    build = subprocess.run(["dune", "build", target], cwd=repo, capture_output=True, text=True)
                if build.returncode != 0:
                    raise SystemExit(f"the mutated evaluator does not build:\n{build.stderr[-2000:]}")
                env["RH_EVAL"] = str(repo / "_build" / "default" / "extracted" / "rh-eval")
            caught, detail = run_campaign(env, args.n, args.seed, tmp / "corpus")
        rows.append((name, where, what, caught, detail, time.time() - start))
        proofs = " (and the Coq proofs no longer go through)" if proofs_reject else ""
        print(f"{name:20s} {where:9s} {'CAUGHT' if caught else 'missed':7s} {time.time() - start:6.1f} s  "
              f"{detail[:100]}{proofs}", flush=True)
    score = sum(1 for r in rows if r[3])
    print(f"mutation score: {score}/{len(rows)}")
    return 0 if score == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
