"""Print one line per headline theorem of tests/coq/headline.v with its
assumptions (`make headline` prints the statements in full)."""

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pytools"))
from revhandlers.coq import run_coqc  # noqa: E402

src = Path(__file__).resolve().parents[1] / "tests" / "coq" / "headline.v"
names = re.findall(r"^Print Assumptions (\w+)\.", src.read_text(), re.M)
res = run_coqc(src)
if not res.ok:
    sys.exit(res.stderr)
answers = [line for line in res.stdout.splitlines() if line.startswith(("Closed under", "Axioms:"))]
print(f"== {len(names)} headline theorems checked by Coq (tests/coq/headline.v; `make headline` shows them)")
for name, answer in zip(names, answers):
    print(f"   {name:28s} {answer}")
