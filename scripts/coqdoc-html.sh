#!/usr/bin/env bash
# The HTML documentation of the Coq theories (coqdoc), from the sources and
# .glob files dune leaves in _build/default/theories/ (run `make proofs`
# first): one page per file, named LOGICAL.FILE.html (RevHandlers.typing.html),
# every definition and lemma an anchor of its name (#preservation), an index
# and a table of contents.  Every directory theories/*/ with a dune file is
# documented under the logical name of its coq.theory stanza.
#   usage: scripts/coqdoc-html.sh [OUTPUT_DIR]   (default docs/html)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/html}"
build=_build/default/theories

args=()
files=()
for dir in theories/*/; do
  dir="${dir%/}"
  [ -f "$dir/dune" ] || continue
  name=$(sed -n 's/^ *(name \([A-Za-z0-9_.]*\)).*/\1/p' "$dir/dune" | head -n 1)
  [ -n "$name" ] || { echo "coqdoc-html: no (name …) in $dir/dune" >&2; exit 2; }
  compiled="$build/${dir#theories/}"
  found=""
  for v in "$compiled"/*.v; do
    # only the files dune compiled (extraction.v is compiled in extracted/)
    [ -f "${v%.v}.glob" ] || continue
    files+=("$v")
    found=yes
  done
  if [ -z "$found" ]; then
    echo "coqdoc-html: $dir is not compiled in $compiled (run make proofs)" >&2
    exit 2
  fi
  args+=(-R "$compiled" "$name")
done

mkdir -p "$out"
coqdoc --html --utf8 --toc --index index --title "RevHandlers: the Coq theories" \
  -d "$out" "${args[@]}" "${files[@]}" >/dev/null 2> >(grep -v 'missing newline after ">>" block' >&2)
echo "coqdoc-html: ${#files[@]} files documented in $out/ (start at $out/toc.html)"
