#!/usr/bin/env bash
# Writes a case of runtime_recorded_outputs_test
# (src/runtime/module/test/recorded_outputs_test.cpp) into OUT_DIR for every
# .pt2 fixture (tests/fixtures/<fixture>/<program>.pt2, and the language
# models of tests/fixtures/llm that have cases: their quantized linears run on
# the tuned kernels) and each of its cases:
#   <fixture>.<program>.<case>.pte           the program lowered by KILN to
#                                            the portable kernels
#   <fixture>.<program>.<case>.inputs.npz    the case's inputs (the fixture's)
#   <fixture>.<program>.<case>.expected.npz  what KILN's runtime gives on them
#                                            (kiln run --output)
#   <fixture>.<program>.<case>.seed          for a fixture that samples: the
#                                            seed both runs draw after (--seed)
# and, for the tiny Llama's generation, tiny_llama.pte and
# tiny_llama.greedy_ids (the 20 ids KILN's greedy `kiln generate` gives
# after the prompt 1,17,42,99,7).
# `make test-aarch64` writes them with the host's kiln and runs them on the
# aarch64 build under qemu: the target's results against the host's.
#
# Usage: scripts/lower-fixtures.sh KILN OUT_DIR
set -euo pipefail
usage="usage: lower-fixtures.sh KILN OUT_DIR"
kiln=${1:?$usage}
out=${2:?$usage}
if [ ! -x "$kiln" ]; then
  echo "lower-fixtures: $kiln is not an executable (the host's kiln: make build)" >&2
  exit 1
fi
kiln=$(realpath "$kiln")
mkdir -p "$out"
out=$(realpath "$out")
cd "$(dirname "$0")/.."
rm -f "$out"/*.pte "$out"/*.npz "$out"/*.greedy_ids "$out"/*.seed

cases=0
for program in tests/fixtures/*/*.pt2 tests/fixtures/llm/*/*.pt2; do
  fixture=$(basename "$(dirname "$program")")
  # A language model without cases is checked by its generation instead.
  case $program in tests/fixtures/llm/*) [ -e "$(dirname "$program")/case0.inputs.npz" ] || continue ;; esac
  name=$fixture.$(basename "$program" .pt2)
  if ! "$kiln" lower "$program" -o "$out/$name.pte" > "$out/$name.log" 2>&1; then
    cat "$out/$name.log" >&2
    echo "lower-fixtures: kiln lower $program failed" >&2
    exit 1
  fi
  # A fixture that samples (tests/fixtures/sampling) runs after its seed
  # (seed.json), written beside its cases as <stem>.seed for the target.
  seed=""
  if [ -e "$(dirname "$program")/seed.json" ]; then
    seed=$(sed -n 's/.*"seed": *\([0-9]*\).*/\1/p' "$(dirname "$program")/seed.json")
  fi
  found=0
  for inputs in "$(dirname "$program")"/case*.inputs.npz; do
    [ -e "$inputs" ] || break
    stem=$out/$name.$(basename "$inputs" .inputs.npz)
    cp "$out/$name.pte" "$stem.pte"
    cp "$inputs" "$stem.inputs.npz"
    [ -z "$seed" ] || echo "$seed" > "$stem.seed"
    if ! "$kiln" run "$stem.pte" --inputs "$inputs" --output "$stem.expected.npz" ${seed:+--seed "$seed"} \
      > "$stem.log" 2>&1; then
      cat "$stem.log" >&2
      echo "lower-fixtures: kiln run $stem.pte --inputs $inputs failed" >&2
      exit 1
    fi
    rm "$stem.log"
    found=$((found + 1))
  done
  if [ "$found" -eq 0 ]; then
    echo "lower-fixtures: $program has no case (case<N>.inputs.npz beside it)" >&2
    exit 1
  fi
  rm "$out/$name.pte" "$out/$name.log"
  cases=$((cases + found))
done
llm=tests/fixtures/llm/tiny_llama
"$kiln" lower "$llm/model.pt2" -o "$out/tiny_llama.pte" > /dev/null
"$kiln" generate "$out/tiny_llama.pte" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 20 \
  2> /dev/null > "$out/tiny_llama.greedy_ids"

if [ "$cases" -eq 0 ]; then
  echo "lower-fixtures: no .pt2 fixture under tests/fixtures" >&2
  exit 1
fi
echo "lower-fixtures: $cases cases in $out"
