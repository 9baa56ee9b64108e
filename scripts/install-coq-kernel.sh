#!/usr/bin/env bash
# Install the Jupyter kernel `coq-revhandlers`: coq-jupyter's kernel with
# coqidetop given `-Q <this checkout>/_build/default/theories/rh RevHandlers`.
# Re-run it for another checkout; it replaces the kernel spec.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-python3}"
"$PY" -W ignore::DeprecationWarning -m coq_jupyter.install --sys-prefix --kernel-name coq-revhandlers \
  --kernel-display-name "Coq (RevHandlers)" \
  --coqtop-args "-Q $(pwd -P)/_build/default/theories/rh RevHandlers" >/dev/null
