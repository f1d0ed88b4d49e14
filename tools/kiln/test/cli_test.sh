#!/usr/bin/env bash
# The kiln tool's contract with its users: exit codes, help and error text.
# Usage: cli_test.sh path/to/kiln
set -u
kiln="$1"
failures=0
passes=0

# expect NAME EXPECTED_EXIT EXPECTED_TEXT -- ARGS...
expect() {
  local name="$1" want_code="$2" want_text="$3"
  shift 4
  local output code
  output=$("$kiln" "$@" 2>&1)
  code=$?
  if [ "$code" -ne "$want_code" ]; then
    echo "FAIL $name: exit $code, expected $want_code; output:"; echo "$output"
    failures=$((failures + 1))
  elif ! grep -qF -- "$want_text" <<<"$output"; then
    echo "FAIL $name: output lacks '$want_text'; output:"; echo "$output"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
}

expect "help lists demo" 0 "demo       build the seed model" -- --help
expect "help command" 0 "Usage: kiln <command>" -- help
expect "no arguments prints usage and fails" 2 "Usage: kiln <command>" --
expect "version" 0 "kiln 0.1.0" -- version
expect "unknown command" 2 "kiln: unknown command 'frobnicate'" -- frobnicate
expect "demo help" 0 "--batch N" -- demo --help
expect "demo unknown flag" 2 "unknown option '--fast' for 'kiln demo'" -- demo --fast
expect "demo flag without value" 2 "--batch needs a value" -- demo --batch
expect "demo non-numeric batch" 2 "--batch expects an integer from 1 to 1024, got 'four'" -- demo --batch four
expect "demo zero size" 2 "--size expects an integer from 1 to 4096, got '0'" -- demo --size 0
expect "demo negative seed" 2 "--seed expects an integer from 0 to" -- demo --seed -1
expect "demo seed zero is the default" 0 "output:" -- demo --seed 0 --batch 1 --size 4 --quiet
expect "demo runs and prints the program" 0 "p_conv_layer_conv1_weight: PARAMETER target='conv_layer.conv1.weight'" -- demo --batch 1 --size 8
expect "demo prints the output shape" 0 "output:   f32[2, 32, 16, 16]" -- demo --batch 2 --size 16 --quiet
expect "demo prints a checksum" 0 "checksum: sum=" -- demo --batch 1 --size 8 --quiet

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
