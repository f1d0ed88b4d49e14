#!/usr/bin/env bash
# The kiln tool's contract with its users: exit codes, help and error text.
# Usage: cli_test.sh path/to/kiln path/to/repository
set -u
kiln="$1"
fixtures="$2/tests/fixtures"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
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

expect "version takes no arguments" 2 "'version' takes no arguments, got '--bogus'" -- version --bogus
expect "help lists inspect and run" 0 "inspect    print a .pt2 program" -- help

# inspect
expect "inspect help" 0 "Usage: kiln inspect MODEL.pt2" -- inspect --help
expect "inspect needs a file" 2 "'kiln inspect' needs a .pt2 file" -- inspect
expect "inspect prints the graph" 0 "torch.ops.aten.convolution.default(x, p_conv_layer_conv1_weight" -- inspect "$fixtures/conv_relu_tan/model.core.pt2"
expect "inspect prints range constraints" 0 "Range constraints: {s77: VR[1, 8]}" -- inspect "$fixtures/dynamic_batch/model.pt2"
expect "inspect shows tied weights" 0 "(shares storage with decoder.weight)" -- inspect "$fixtures/tied_weights/model.pt2"
expect "inspect a missing file" 1 "nonexistent.pt2: cannot open" -- inspect "$scratch/nonexistent.pt2"
echo "not a zip" > "$scratch/text.pt2"
expect "inspect a non-zip" 1 "not a zip archive" -- inspect "$scratch/text.pt2"
expect "inspect an unknown model name" 1 "the archive has no program 'other' (it has: model)" -- inspect "$fixtures/mlp/model.pt2" --model other

# run
expect "run help" 0 "Usage: kiln run MODEL.pt2 --inputs INPUTS.npz" -- run --help
expect "run needs inputs" 2 "'kiln run' needs --inputs FILE.npz" -- run "$fixtures/mlp/model.core.pt2"
expect "run prints outputs" 0 "output_0: f32[2, 4]" -- run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run the training IR (decomposed first)" 0 "output_0: f32[2, 10]" -- run "$fixtures/small_cnn/model.pt2" --inputs "$fixtures/small_cnn/case0.inputs.npz"
expect "run nested structure" 0 "TreeSpec(dict, ['scaled', 'parts']" -- run "$fixtures/nested_io/model.pt2" --inputs "$fixtures/nested_io/case0.inputs.npz"
expect "run writes an npz" 0 "wrote $scratch/out.npz" -- run "$fixtures/buffer_mutation/model.core.pt2" --inputs "$fixtures/buffer_mutation/case0.inputs.npz" --output "$scratch/out.npz"
expect "run wrong input count" 1 "holds 1 arrays, but the program takes 2 user inputs (x, y)" -- run "$fixtures/input_mutation/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run wrong input rank" 1 "input 'x' (args[0]) must have 2 dimensions (f32[2, 16]), got 4 (f32[1, 3, 32, 32])" -- run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/conv_relu_tan/case0.inputs.npz"
expect "run wrong static size" 1 "input 'x' (args[0]) dim 1 must be 8 (f32[s77, 8]), got 4 (f32[3, 4])" -- run "$fixtures/dynamic_batch/model.core.pt2" --inputs "$fixtures/buffer_mutation/case0.inputs.npz"
expect "run inputs not an npz" 1 "not a zip archive" -- run "$fixtures/mlp/model.core.pt2" --inputs "$scratch/text.pt2"

# ops
expect "help lists ops" 0 "ops        list the ops Kiln knows" -- help
expect "ops help" 0 "Usage: kiln ops [--markdown]" -- ops --help
expect "ops unknown flag" 2 "unknown option '--html' for 'kiln ops'" -- ops --html
expect "ops stray argument" 2 "unexpected argument 'relu' for 'kiln ops'" -- ops relu
expect "ops lists an op with its out variant" 0 "aten::add.out" -- ops
expect "ops lists view ops as their copies" 0 "as aten::view_copy: portable" -- ops
expect "ops lists training-IR ops as decomposed" 0 "lowered by decompositions" -- ops
expect "ops markdown is a table" 0 "| op | core | out variant | portable dtypes | runs on |" -- ops --markdown
# docs/ops.md is the output of 'kiln ops --markdown', committed.
if "$kiln" ops --markdown | diff -u "$2/docs/ops.md" - > "$scratch/ops.diff"; then
  passes=$((passes + 1))
else
  echo "FAIL docs/ops.md differs from 'kiln ops --markdown' (regenerate it: kiln ops --markdown > docs/ops.md):"
  cat "$scratch/ops.diff"
  failures=$((failures + 1))
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
