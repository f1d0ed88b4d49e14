#!/usr/bin/env bash
# kiln ops --used: the op list of a selective build, from .pte files.
# Usage: ops_used_test.sh path/to/kiln path/to/repository
set -u
kiln="$1"
repo="$2"
pte="$repo/tests/fixtures/pte"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
passes=0

fail() {
  echo "FAIL $1"
  failures=$((failures + 1))
}

# check NAME EXPECTED_EXIT EXPECTED_STDOUT_FILE EXPECTED_STDERR_TEXT -- ARGS...: the exit code,
# stdout exactly (a file; - for empty, '*' for any), and a text stderr must contain (- for any).
check() {
  local name="$1" want_code="$2" want_out="$3" want_err="$4"
  shift 5
  local code
  "$kiln" "$@" > "$scratch/out" 2> "$scratch/err"
  code=$?
  if [ "$code" -ne "$want_code" ]; then
    fail "$name: exit $code, expected $want_code; stderr:"; cat "$scratch/err"
  elif [ "$want_out" = - ] && [ -s "$scratch/out" ]; then
    fail "$name: stdout is not empty:"; cat "$scratch/out"
  elif [ "$want_out" != - ] && [ "$want_out" != '*' ] && ! diff -u "$want_out" "$scratch/out"; then
    fail "$name: stdout differs (above)"
  elif [ "$want_err" != - ] && ! grep -qF -- "$want_err" "$scratch/err"; then
    fail "$name: stderr lacks '$want_err'; stderr:"; cat "$scratch/err"
  else
    passes=$((passes + 1))
  fi
}

printf 'aten::add.out\n' > "$scratch/add.ops"
check "one program" 0 "$scratch/add.ops" - -- ops --used "$pte/add.pte"
# The union of two programs, sorted, each op once: the list selective_build_test is built from.
check "two programs: the committed list" 0 "$pte/selective_build.ops" - -- \
  ops --used "$pte/small_conv_net.pte" "$pte/copy_and_clone.pte"
check "the same program twice" 0 "$scratch/add.ops" - -- ops --used "$pte/add.pte" "$pte/add.pte"
check "-o writes the list" 0 - "wrote 12 operators to $scratch/list.ops" -- \
  ops --used "$pte/copy_and_clone.pte" "$pte/small_conv_net.pte" -o "$scratch/list.ops"
if diff -u "$pte/selective_build.ops" "$scratch/list.ops"; then passes=$((passes + 1)); else fail "-o: the file differs"; fi

# A delegated program: the delegate's ops are no kernels, so fewer are listed than for the same
# program lowered to the portable kernels alone, and the backend is named on stderr.
if "$kiln" lower "$repo/tests/fixtures/mlp/model.core.pt2" --backend DemoBackend -o "$scratch/demo_mlp.pte" \
  > "$scratch/lower.log" 2>&1 && "$kiln" lower "$repo/tests/fixtures/mlp/model.core.pt2" -o "$scratch/mlp.pte" \
  >> "$scratch/lower.log" 2>&1; then
  check "a delegated program names its backend" 0 '*' "also calls delegates of DemoBackend: link their backends" -- \
    ops --used "$scratch/demo_mlp.pte"
  delegated=$(wc -l < "$scratch/out")
  check "the same program on the portable kernels" 0 '*' - -- ops --used "$scratch/mlp.pte"
  portable=$(wc -l < "$scratch/out")
  if [ "$delegated" -lt "$portable" ]; then passes=$((passes + 1)); else
    fail "the delegated program lists $delegated operators, the portable one $portable"
  fi
else
  fail "kiln lower failed:"; cat "$scratch/lower.log"
fi

# Bad input: each named, a non-zero exit, nothing on stdout.
check "a missing file" 1 - "cannot read $scratch/nonexistent.pte: no such file" -- \
  ops --used "$pte/add.pte" "$scratch/nonexistent.pte"
echo "not a program" > "$scratch/text.pte"
check "a file that is no program" 1 - "$scratch/text.pte is not a .pte program Kiln's runtime can read" -- \
  ops --used "$scratch/text.pte"
head -c 200 "$pte/linear.pte" > "$scratch/truncated.pte"
check "a truncated program" 1 - "$scratch/truncated.pte is not a .pte program" -- ops --used "$scratch/truncated.pte"
check "a directory" 1 - "cannot read $scratch: it is a directory" -- ops --used "$scratch"
check "no program" 2 - "'kiln ops --used' needs one or more .pte files" -- ops --used
check "--used with --all" 2 - "no --all or --markdown" -- ops --used "$pte/add.pte" --all
check "-o without --used" 2 - "-o FILE goes with --used" -- ops -o "$scratch/x.ops"
check "-o without a value" 2 - "-o needs a value" -- ops --used "$pte/add.pte" -o
check "an unknown option" 2 - "unknown option '--frob' for 'kiln ops'" -- ops --used "$pte/add.pte" --frob
check "an unwritable output" 1 - "cannot write the op list $scratch/no/such/dir/x.ops" -- \
  ops --used "$pte/add.pte" -o "$scratch/no/such/dir/x.ops"
check "help tells of --used" 0 '*' - -- ops --help
grep -qF "kiln ops --used MODEL.pte [MODEL.pte ...] [-o FILE]" "$scratch/out" && passes=$((passes + 1)) ||
  fail "help lacks the --used usage line"

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
