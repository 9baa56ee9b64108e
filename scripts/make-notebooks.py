"""Write the notebooks under notebooks/ (without outputs); `make test`
executes them (tests/test_notebooks.py).  Re-run after editing this file."""

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
COQ = {"kernelspec": {"name": "coq-revhandlers", "display_name": "Coq (RevHandlers)", "language": "coq"},
       "language_info": {"name": "coq"}}
PY = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
      "language_info": {"name": "python"}}


def nb(cells, meta):
    book = new_notebook(cells=[new_markdown_cell(c[len("#md"):]) if c.startswith("#md") else new_code_cell(c.strip())
                               for c in cells])
    book.metadata.update(meta)
    return book


IMPORTS = ("From RevHandlers Require Import prelude signature syntax subst typing typing_lemmas\n"
           "  rd term_sem cmd_ctx rh cmd_sem typecheck interp interp_facts progress instance examples.")

syntax = nb([
    "#md# 1. Syntax and typing\n\nThe grammar of the paper's §3 and the typing rules of its Figures 2-3, as "
    "mechanized in `theories/rh/syntax.v` and `theories/rh/typing.v` (de Bruijn indices: `Var 0` is the most "
    "recent binder).",
    IMPORTS,
    "#md## Types, terms, commands, handlers",
    "Print ty.",
    "Print tm.",
    "Print cmd.",
    "#md## The typing rules\n\nEach constructor is a rule; its name is the one the type checkers report.",
    "Print typed_tm.",
    "Print typed_cmd.",
    "Print typed_handler.",
    "#md## Well-typed and ill-typed examples\n\nThe executable instance with natural-number scalars "
    "(`theories/rh/walkthrough.v`) lets the verified checker `check_tm` compute: a type, or the rule that "
    "failed.",
    "From RevHandlers Require Import walkthrough.",
    "Compute check_tm [] (Tuple [Const (1, [3]); Const (2, [1; 2])]).",
    "Compute check_tm [] (Proj 2 (Tuple [Const (1, [3])])).",
    "Compute check_tm [] (App (0, PSwish 3) (Const (2, [1; 2]))).",
    "Compute check_tm [] (Add (Const (1, [3])) (Const (2, [1; 2]))).",
    "Compute check_tm [] (Let (Const (1, [3])) (Var 0)).",
    "Compute check_tm [] (Var 0).",
    "Compute check_tm [] rd_square.",
    "Compute check_tm [] (Rd (Const (2, [1; 1])) (App square (Tuple [Var 0; Var 0])) (Const (1, [2]))).",
    "Compute check_cmd [] one_layer.",
    "Compute check_cmd [] (RevHandle (Const (2, [1; 1])) (Op FC (Var 0)) H1).",
    "Compute check_cmd [] (Op FC (Const (1, [1]))).",
    "#md## The checker is the typing relation\n\nSound and complete, so a `reflexivity` proves typing:",
    "Check check_cmd_correct.",
    "Check one_layer_typed.",
    "Print Assumptions check_cmd_correct.",
], COQ)

rd_nb = nb([
    "#md# 2. The reverse derivative `W.R_V(x.N)`\n\n`theories/rh/rd.v` defines the rewriting of the "
    "paper's Figure 4, in its multi-variable form (`rdr`): the chain rule for `let` differentiates the body "
    "in all variables at once.",
    IMPORTS,
    "From RevHandlers Require Import walkthrough.",
    "#md## `3.rd(x. x·x)(2)`\n\nThe reduction `W.rd(x.N)(V) → W.R_V(x.N)`; then the rewritten term runs "
    "to `3 · (d/dx x²)(2) = 12`.",
    "Print rd_square.",
    "Compute rd_square_rewritten.",
    "Check rd_square_steps.",
    "Compute run 100 0 [] (Ret rd_square).",
    "Check rd_square_is_12.",
    "#md## The chain rule\n\n`1.rd(x. let y ← x·x in y·y)(2)` is `(d/dx x⁴)(2) = 32`.  In the rewriting, "
    "the forward value `x·x` is computed once and bound (the multi-variable let rule), then `rd[smul]` is "
    "applied for `y·y` and for `x·x`, in reverse order, and the contributions summed.",
    "Print chain.",
    "Compute chain_rewritten.",
    "Compute run 100 0 [] (Ret chain).",
    "Check chain_is_32.",
    "#md## The typing lemma (paper §5.1)",
    "Check rd_rewrite_typed.",
    "Print Assumptions rd_rewrite_typed.",
], COQ)

rh_nb = nb([
    "#md# 3. Reverse handlers and the `RH` rewriting\n\n`theories/rh/rh.v` defines `RH` (the paper's "
    "Figure 5) as an inductive relation, one constructor per case; `theories/rh/interp.v` as a function.",
    IMPORTS,
    "Print rh.",
    "#md## The paper's one-layer example (§5.2)\n\n`rev handle(<v>)<x>.FC[ℓ](x) with H_MLP` steps to the "
    "let-chain the paper prints (`paper_chain`, `theories/rh/examples.v`):",
    "Print paper_chain.",
    "Check one_layer_rh.",
    "Check one_layer_step.",
    "#md## The same, computed\n\nOn the executable instance with natural numbers (`theories/rh/walkthrough.v`): "
    "RH-2 then RH-1a give the chain of lets: forward clause, return clause, backward clause, sum.",
    "From RevHandlers Require Import walkthrough.",
    "Compute one_layer_rewritten.",
    "Compute one_layer_run.",
    "#md## The theorems\n\nDepth decreases, `RH` preserves typing, preservation, progress, and the "
    "evaluator is sound; each is closed (it assumes nothing beyond the signature it quantifies over).",
    "Check rh_depth_lt.",
    "Print Assumptions rh_depth_lt.",
    "Check rh_typed.",
    "Print Assumptions rh_typed.",
    "Check step_conf_preservation.",
    "Print Assumptions step_conf_preservation.",
    "Check progress.",
    "Print Assumptions progress.",
    "Check type_safety.",
    "Print Assumptions type_safety.",
    "Check run_sound.",
    "Print Assumptions run_sound.",
], COQ)

py_nb = nb([
    "#md# 4. Training from Python\n\nThe paper's MLP (`examples/mlp.rh`) run through the verified "
    "evaluator (the extracted `rh-eval`) and through the independent numpy reference, then trained on the "
    "handwritten digits.",
    "import numpy as np\nimport revhandlers as rh\nfrom revhandlers.paths import repo_root\n"
    "ROOT = repo_root()\nprog = rh.load(ROOT / 'examples' / 'mlp.rh', params={'hidden': 16})\nrh.check(prog)",
    "#md## One training step, two engines",
    "rng = np.random.default_rng(0)\n"
    "heap = {'l0': rng.normal(0, 0.125, 16 * 64), 'l1': rng.normal(0, 0.25, 10 * 16),\n"
    "        'input': rng.random(64), 'target': np.eye(10)[3], 'lr': [0.05]}\n"
    "a = rh.run(prog, heap=heap)\n"
    "b = rh.run(prog, heap=heap, engine='reference')\n"
    "print('steps of the verified evaluator:', a.steps)\n"
    "print('largest difference:', max(float(np.abs(a.heap[k] - b.heap[k]).max()) for k in a.heap))\n"
    "assert all(np.allclose(a.heap[k], b.heap[k], rtol=1e-9, atol=1e-12) for k in a.heap)",
    "#md## A short training run",
    "from revhandlers import train\n"
    "hist, weights = train(prog, epochs=2, lr=0.05, seed=0, train_size=300, quiet=True)\n"
    "print('epoch losses:', [round(x, 4) for x in hist.train_loss])\n"
    "print('held-out accuracy:', hist.test_accuracy)\n"
    "assert hist.train_loss[-1] < hist.train_loss[0]",
    "%matplotlib inline\nimport matplotlib.pyplot as plt\n"
    "losses = np.array(hist.sample_loss)\n"
    "plt.figure(figsize=(6, 3))\n"
    "plt.plot(np.convolve(losses, np.ones(25) / 25, mode='valid'))\n"
    "plt.xlabel('sample'); plt.ylabel('loss (moving mean)'); plt.yscale('log'); plt.show()",
], PY)

for name, book in [("01-syntax-and-typing", syntax), ("02-reverse-derivative", rd_nb),
                   ("03-reverse-handlers", rh_nb), ("04-training-from-python", py_nb)]:
    nbformat.write(book, ROOT / "notebooks" / f"{name}.ipynb")
    print("wrote", name)
