# RevHandlers: `make demo` and `make test` set everything up on a fresh
# Debian bookworm machine (see README.md).
SHELL := /bin/bash
PY ?= python3
COQ_THEORIES := _build/default/theories

.PHONY: all deps proofs demo headline test clean

all: proofs

## deps: install Debian's Coq/OCaml toolchain and the Python package if missing
deps:
	@PY=$(PY) bash scripts/install-deps.sh

## proofs: check every proof in theories/ (and report the time it took)
proofs: deps
	@start=$$(date +%s.%N); \
	dune build 2>&1; \
	end=$$(date +%s.%N); \
	printf 'proofs: theories/ checked in %.1f s\n' "$$(echo "$$end - $$start" | bc -l 2>/dev/null || $(PY) -c "print($$end - $$start)")"

## headline: print the headline theorems and their assumptions
headline: proofs
	@tmp=$$(mktemp -d); \
	coqc -Q $(COQ_THEORIES) RevHandlers -o $$tmp/headline.vo tests/coq/headline.v; \
	rm -rf $$tmp

## demo: the main job
demo: headline

## test: every test
test: proofs
	$(PY) -m pytest tests

clean:
	dune clean
