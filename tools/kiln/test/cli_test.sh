#!/usr/bin/env bash
# The kiln tool's contract with its users: exit codes, help and error text.
# Usage: cli_test.sh path/to/kiln path/to/repository path/to/npz_compare ONEDNN
# ONEDNN: ON when the kiln under test is built with OneDnnBackend, OFF when not.
set -u
kiln="$1"
fixtures="$2/tests/fixtures"
npz_compare="$3"
onednn="${4:?cli_test.sh needs ON or OFF: whether kiln has OneDnnBackend}"
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
expect "inspect needs a file" 2 "'kiln inspect' needs a .pt2 or .pte file" -- inspect
expect "inspect prints the graph" 0 "torch.ops.aten.convolution.default(x, p_conv_layer_conv1_weight" -- inspect "$fixtures/conv_relu_tan/model.core.pt2"
expect "inspect prints range constraints" 0 "Range constraints: {s77: VR[1, 8]}" -- inspect "$fixtures/dynamic_batch/model.pt2"
expect "inspect shows tied weights" 0 "(shares storage with decoder.weight)" -- inspect "$fixtures/tied_weights/model.pt2"
expect "inspect a missing file" 1 "nonexistent.pt2: cannot open" -- inspect "$scratch/nonexistent.pt2"
echo "not a zip" > "$scratch/text.pt2"
expect "inspect a non-zip" 1 "not a zip archive" -- inspect "$scratch/text.pt2"
expect "inspect an unknown model name" 1 "the archive has no program 'other' (it has: model)" -- inspect "$fixtures/mlp/model.pt2" --model other

# run
expect "run help" 0 "Usage: kiln run MODEL.pt2 --inputs INPUTS.npz" -- run --help
expect "run help tells of .pte" 0 "kiln run MODEL.pte [--method NAME] [--inputs INPUTS.npz] [--output OUT.npz] [--seed N] [--iterations N]" -- run --help
expect "run help tells of --seed" 0 "as torch.manual_seed(N) seeds PyTorch's" -- run --help
expect "run needs a file" 2 "'kiln run' needs a .pt2 or .pte file" -- run --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run needs inputs" 2 "'kiln run' needs --inputs FILE.npz" -- run "$fixtures/mlp/model.core.pt2"
expect "run prints outputs" 0 "output_0: f32[2, 4]" -- run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run the training IR (decomposed first)" 0 "output_0: f32[2, 10]" -- run "$fixtures/small_cnn/model.pt2" --inputs "$fixtures/small_cnn/case0.inputs.npz"
expect "run nested structure" 0 "TreeSpec(dict, ['scaled', 'parts']" -- run "$fixtures/nested_io/model.pt2" --inputs "$fixtures/nested_io/case0.inputs.npz"
expect "run writes an npz" 0 "wrote $scratch/out.npz" -- run "$fixtures/buffer_mutation/model.core.pt2" --inputs "$fixtures/buffer_mutation/case0.inputs.npz" --output "$scratch/out.npz"
expect "run wrong input count" 1 "holds 1 arrays, but the program takes 2 user inputs (x, y)" -- run "$fixtures/input_mutation/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run wrong input rank" 1 "input 'x' (args[0]) must have 2 dimensions (f32[2, 16]), got 4 (f32[1, 3, 32, 32])" -- run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/conv_relu_tan/case0.inputs.npz"
expect "run wrong static size" 1 "input 'x' (args[0]) dim 1 must be 8 (f32[s77, 8]), got 4 (f32[3, 4])" -- run "$fixtures/dynamic_batch/model.core.pt2" --inputs "$fixtures/buffer_mutation/case0.inputs.npz"
expect "run inputs not an npz" 1 "not a zip archive" -- run "$fixtures/mlp/model.core.pt2" --inputs "$scratch/text.pt2"

# run on .pte: Kiln's runtime
# compare NAME ACTUAL.npz EXPECTED.npz [ACTUAL_KEY=EXPECTED_KEY ...]: npz_compare must pass.
compare() {
  local name="$1"
  shift
  local output
  if output=$("$npz_compare" "$@" 2>&1); then
    passes=$((passes + 1))
  else
    echo "FAIL $name: outputs differ from the expected ones:"; echo "$output"
    failures=$((failures + 1))
  fi
}
# npz_compare itself: element by element, each within 1e-5 + 1e-5 * |expected|
# (tools/kiln/test/data/make_npz_compare_cases.py).
cases="$2/tools/kiln/test/data/npz_compare"
compare "npz_compare passes close arrays" "$cases.close.npz" "$cases.expected.npz"
for bad in small_element_off infinity_missed nan_missed imaginary_off; do
  if output=$("$npz_compare" "$cases.$bad.npz" "$cases.expected.npz" 2>&1); then
    echo "FAIL npz_compare passes $bad:"; echo "$output"
    failures=$((failures + 1))
  else
    passes=$((passes + 1))
  fi
done
pte="$fixtures/pte"
# ExecuTorch-written programs (tests/fixtures/pte, manifest.json); the two-call ones run twice and
# their second output is compared (buffer state carries over from call to call).
for name in add linear small_conv_net input_mutation two_outputs dynamic_batch copy_and_clone; do
  expect "run ExecuTorch's $name.pte" 0 "wrote $scratch/et_$name.npz" -- \
    run "$pte/$name.pte" --inputs "$pte/$name.inputs.npz" --output "$scratch/et_$name.npz"
  compare "ExecuTorch's $name.pte on Kiln's runtime" "$scratch/et_$name.npz" "$pte/$name.expected.npz"
done
for name in buffer_mutation buffer_init; do
  expect "run ExecuTorch's $name.pte twice" 0 "wrote $scratch/et_$name.npz" -- \
    run "$pte/$name.pte" --inputs "$pte/$name.inputs.npz" --output "$scratch/et_$name.npz" --iterations 2
  compare "ExecuTorch's $name.pte, second call" "$scratch/et_$name.npz" "$pte/$name.expected.npz" output_0=call1_output_0
done
expect "run a warm-up call first" 0 "execute: median" -- \
  run "$pte/buffer_mutation.pte" --inputs "$pte/buffer_mutation.inputs.npz" --output "$scratch/warm.npz" --warmup 1
compare "a warm-up call carries the state too" "$scratch/warm.npz" "$pte/buffer_mutation.expected.npz" output_0=call1_output_0
# A channels-last input (dim order 0,2,3,1): the row-major .npz array is laid out in that order, and
# the channels-last output is read back row-major (tools/kiln/test/data/make_channels_last.py).
data="$2/tools/kiln/test/data"
expect "run a channels-last .pte" 0 "wrote $scratch/channels_last.npz" -- \
  run "$data/channels_last.pte" --inputs "$data/channels_last.inputs.npz" --output "$scratch/channels_last.npz"
compare "channels-last input and output" "$scratch/channels_last.npz" "$data/channels_last.expected.npz"
expect "run prints the .pte's output" 0 "output_0: f32[1, 5]" -- run "$pte/small_conv_net.pte" --inputs "$pte/small_conv_net.inputs.npz"
expect "run prints the load time" 0 "load: " -- run "$pte/add.pte" --inputs "$pte/add.inputs.npz"
expect "run prints the execute times" 0 "over 3 iterations (1 warm-up)" -- run "$pte/add.pte" --iterations 3 --warmup 1
expect "run takes a seed" 0 "output_0" -- run "$pte/add.pte" --seed 42
expect "run refuses a negative seed" 2 "--seed expects an integer from 0 to 9223372036854775807, got '-1'" -- \
  run "$pte/add.pte" --seed -1
expect "run refuses a seed that is no number" 2 "--seed expects an integer" -- run "$pte/add.pte" --seed ab
expect "run --chrome-trace writes one event per call" 0 "wrote $scratch/trace.json: 6 calls, 0 backend events" -- \
  run "$pte/small_conv_net.pte" --inputs "$pte/small_conv_net.inputs.npz" --chrome-trace "$scratch/trace.json"
expect "run --chrome-trace applies to .pte programs" 2 "--chrome-trace applies to .pte programs" -- \
  run "$fixtures/mlp/model.pt2" --inputs "$fixtures/mlp/case0.inputs.npz" --chrome-trace "$scratch/trace.json"
expect "run --help tells of --json" 0 "--json            (.pte) also print the timings as one line of JSON" -- run --help
expect "run --json counts the timed calls" 0 '"iterations": 3, "warmup": 1, "median_ms": ' -- \
  run "$pte/add.pte" --iterations 3 --warmup 1 --json
# The JSON line is the last line printed, with every field a script reads.
json_line=$("$kiln" run "$pte/add.pte" --inputs "$pte/add.inputs.npz" --iterations 2 --json 2>&1 | tail -n 1)
if [[ "$json_line" == '{"load_ms": '*'"first_ms": '*'"median_ms": '*'"min_ms": '*'"max_ms": '*'"planned_bytes": '*'"peak_rss_kb": '*'}' ]]; then
  passes=$((passes + 1))
else
  echo "FAIL run --json: last line is not the timings' JSON: $json_line"; failures=$((failures + 1))
fi
expect "run without --json prints no JSON" 0 "over 1 iteration (0 warm-up)" -- run "$pte/add.pte"
if "$kiln" run "$pte/add.pte" 2>&1 | grep -q '"median_ms"'; then
  echo "FAIL run without --json printed the timings' JSON"; failures=$((failures + 1))
else
  passes=$((passes + 1))
fi
expect "--json is for .pte programs" 2 "--json applies to .pte programs (Kiln's runtime)" -- \
  run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz" --json
expect "run a dynamic input at its own size" 0 "output_0: f32[3, 3]" -- run "$pte/dynamic_batch.pte" --inputs "$pte/dynamic_batch.inputs.npz"
expect "run without inputs says so" 0 "no --inputs: every input is ones at its planned shape" -- run "$pte/add.pte"
expect "run without inputs adds ones" 0 "output_0: f32[2, 3]  min=2 max=2 mean=2" -- run "$pte/add.pte"
# Kiln-written programs: kiln lower, then kiln run, against PyTorch's outputs. A mutated user input
# is the method's first output.
for name in mlp conv_relu_tan dynamic_batch split_cast text_model decoder2d; do
  expect "lower $name for the runtime" 0 "Wrote $scratch/kiln_$name.pte" -- lower "$fixtures/$name/model.core.pt2" -o "$scratch/kiln_$name.pte"
  expect "run Kiln's $name.pte" 0 "wrote $scratch/kiln_$name.npz" -- \
    run "$scratch/kiln_$name.pte" --inputs "$fixtures/$name/case0.inputs.npz" --output "$scratch/kiln_$name.npz"
done
compare "Kiln's mlp.pte" "$scratch/kiln_mlp.npz" "$fixtures/mlp/case0.expected.npz" output_0=output_0
compare "Kiln's conv_relu_tan.pte" "$scratch/kiln_conv_relu_tan.npz" "$fixtures/conv_relu_tan/case0.expected.npz" output_0=output_0
compare "Kiln's dynamic_batch.pte" "$scratch/kiln_dynamic_batch.npz" "$fixtures/dynamic_batch/case0.expected.npz" output_0=output_0
compare "Kiln's split_cast.pte" "$scratch/kiln_split_cast.npz" "$fixtures/split_cast/case0.expected.npz" \
  output_0=output_0 output_1=output_1 output_2=output_2
compare "Kiln's text_model.pte" "$scratch/kiln_text_model.npz" "$fixtures/text_model/case0.expected.npz" \
  output_0=output_0 output_1=output_1
compare "Kiln's decoder2d.pte" "$scratch/kiln_decoder2d.npz" "$fixtures/decoder2d/case0.expected.npz" \
  output_0=output_0 output_1=output_1
expect "lower input_mutation for the runtime" 0 "Wrote $scratch/kiln_input_mutation.pte" -- \
  lower "$fixtures/input_mutation/model.core.pt2" -o "$scratch/kiln_input_mutation.pte"
expect "run Kiln's input_mutation.pte" 0 "2 outputs" -- run "$scratch/kiln_input_mutation.pte" \
  --inputs "$fixtures/input_mutation/case0.inputs.npz" --output "$scratch/kiln_input_mutation.npz"
compare "Kiln's input_mutation.pte" "$scratch/kiln_input_mutation.npz" "$fixtures/input_mutation/case0.expected.npz" \
  output_0=input_0 output_1=output_0
expect "lower buffer_mutation for the runtime" 0 "Wrote $scratch/kiln_buffer_mutation.pte" -- \
  lower "$fixtures/buffer_mutation/model.core.pt2" -o "$scratch/kiln_buffer_mutation.pte"
expect "run Kiln's buffer_mutation.pte" 0 "wrote" -- run "$scratch/kiln_buffer_mutation.pte" \
  --inputs "$fixtures/buffer_mutation/case0.inputs.npz" --output "$scratch/kiln_buffer_mutation.npz"
compare "Kiln's buffer_mutation.pte" "$scratch/kiln_buffer_mutation.npz" "$fixtures/buffer_mutation/case0.expected.npz" \
  output_0=output_0
# Kiln-written programs with DemoBackend delegates: the blobs run on DemoBackend's runtime half.
# conv_relu_tan's delegate needs more of the method allocator at init than the tool first gives
# (the backend reports DelegateMemoryAllocationFailed, and the tool grows the pool for that too).
for name in buffer_mutation small_cnn mlp conv_relu_tan; do
  expect "lower $name to DemoBackend" 0 "Wrote $scratch/demo_$name.pte" -- \
    lower "$fixtures/$name/model.core.pt2" --backend DemoBackend -o "$scratch/demo_$name.pte"
  expect "run $name's DemoBackend .pte" 0 "wrote $scratch/demo_$name.npz" -- \
    run "$scratch/demo_$name.pte" --inputs "$fixtures/$name/case0.inputs.npz" --output "$scratch/demo_$name.npz"
  compare "$name's DemoBackend .pte" "$scratch/demo_$name.npz" "$fixtures/$name/case0.expected.npz" output_0=output_0
done
# Bad input to kiln run on a .pte: each is named.
expect "run .pte wrong input count" 1 "add.inputs.npz holds 2 arrays, but the program takes 1 inputs" -- \
  run "$pte/linear.pte" --inputs "$pte/add.inputs.npz"
expect "run .pte wrong dtype" 1 "input 0 must be f32 (f32[2, 8]), got i64 (i64[2, 7])" -- \
  run "$pte/linear.pte" --inputs "$fixtures/text_model/case0.inputs.npz"
expect "run .pte wrong rank" 1 "input 0 must have 2 dimensions (f32[2, 8]), got 4 (f32[1, 3, 8, 8])" -- \
  run "$pte/linear.pte" --inputs "$pte/small_conv_net.inputs.npz"
expect "run .pte wrong static size" 1 "input 0 dim 1 must be 8 (f32[2, 8]), got 3 (f32[2, 3])" -- \
  run "$pte/linear.pte" --inputs "$pte/two_outputs.inputs.npz"
expect "run .pte dynamic size past its bound" 1 "input 0 dim 1 must be at most 4 (f32[8, 4] are the planned upper bounds), got 16 (f32[2, 16])" -- \
  run "$pte/dynamic_batch.pte" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run .pte inputs not an npz" 1 "not a zip archive" -- run "$pte/add.pte" --inputs "$scratch/text.pt2"
expect "run a missing .pte" 1 "nonexistent.pte: cannot open" -- run "$scratch/nonexistent.pte"
head -c 1000 "$pte/small_conv_net.pte" > "$scratch/truncated_net.pte"
expect "run a truncated .pte" 1 "truncated_net.pte' is not a program Kiln can load: InvalidProgram" -- run "$scratch/truncated_net.pte"
head -c 6 "$pte/add.pte" > "$scratch/tiny.pte"
expect "run a 6-byte .pte" 1 "tiny.pte' is not a program Kiln can load" -- run "$scratch/tiny.pte"
echo "neither" > "$scratch/model.bin"
expect "run a file of neither kind" 1 "model.bin is neither a .pt2 archive (a zip file) nor a .pte program" -- run "$scratch/model.bin"
expect "run .pte zero iterations" 2 "--iterations expects an integer from 1 to 100000, got '0'" -- run "$pte/add.pte" --iterations 0
expect "run .pte negative warm-up" 2 "--warmup expects an integer from 0 to 100000, got '-1'" -- run "$pte/add.pte" --warmup -1
expect "run .pte iterations without a value" 2 "--iterations needs a value" -- run "$pte/add.pte" --iterations
expect "run .pte unknown flag" 2 "unknown option '--fast' for 'kiln run'" -- run "$pte/add.pte" --fast
expect "run .pte with --model" 2 "--model applies to .pt2 archives" -- run "$pte/add.pte" --model other
expect "run .pt2 with --iterations" 2 "--iterations applies to .pte programs" -- \
  run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz" --iterations 2
expect "run .pte to an unwritable output" 1 "$scratch/no/such/dir/out.npz" -- \
  run "$pte/add.pte" --output "$scratch/no/such/dir/out.npz"
expect "demo runs the .pte on the runtime" 0 "runtime vs interpreter: max abs difference" -- demo --batch 1 --size 8 --quiet

# lower
expect "help lists lower" 0 "lower      split a .pt2 program across backends" -- help
expect "lower help" 0 "Usage: kiln lower MODEL.pt2 [--backend NAME[,NAME...]] [-o MODEL.pte]" -- lower --help
expect "lower help lists the backends" 0 "Registered backends: BackendWithDelegateMappingDemo, DemoBackend" -- lower --help
expect "lower needs a file" 2 "'kiln lower' needs a .pt2 file" -- lower --backend DemoBackend
expect "lower needs something to do" 2 "'kiln lower' needs --backend NAME[,NAME...], -o FILE.pte or --print-memory" -- lower "$fixtures/mlp/model.core.pt2"
expect "lower an empty backend name" 2 "--backend has an empty name in 'DemoBackend,'" -- lower "$fixtures/mlp/model.core.pt2" --backend DemoBackend,
expect "lower a missing file" 1 "nonexistent.pt2: cannot open" -- lower "$scratch/nonexistent.pt2" --backend DemoBackend
expect "lower a non-zip" 1 "not a zip archive" -- lower "$scratch/text.pt2" --backend DemoBackend
expect "lower the seed model whole" 0 "lowered_module_0: BackendWithDelegateMappingDemo, 5 ops (convolution x2, relu x2, tan), 1 input, 1 output" -- lower "$fixtures/conv_relu_tan/model.core.pt2" --backend BackendWithDelegateMappingDemo
expect "lower lists the weights a delegate took" 0 "conv_layer.conv2.weight (PARAMETER, f32[32, 16, 3, 3])" -- lower "$fixtures/conv_relu_tan/model.core.pt2" --backend BackendWithDelegateMappingDemo
expect "lower shows the debug handles" 0 "debug handles:   {0: (1, 2), 1: (3, 4), 2: (5,), 3: (5,), 4: (5,)}" -- lower "$fixtures/conv_relu_tan/model.core.pt2" --backend BackendWithDelegateMappingDemo
expect "lower says why a node stayed" 0 "DemoBackend: 'add' is f32[1] but the result is f32[3, 4]; DemoBackend does not broadcast" -- lower "$fixtures/buffer_mutation/model.core.pt2" --backend DemoBackend
expect "lower with two backends" 0 "BackendWithDelegateMappingDemo: aten::mean.dim is not an op of BackendWithDelegateMappingDemo" -- lower "$fixtures/buffer_mutation/model.core.pt2" --backend DemoBackend,BackendWithDelegateMappingDemo
expect "lower --print shows the delegate call" 0 "torch.ops.higher_order.executorch_call_delegate(lowered_module_0, b_count, b_running_mean, mean)" -- lower "$fixtures/buffer_mutation/model.core.pt2" --backend DemoBackend --print
expect "lower the training IR (decomposed first)" 0 "Lowered $fixtures/small_cnn/model.pt2 to DemoBackend: 2 delegates" -- lower "$fixtures/small_cnn/model.pt2" --backend DemoBackend
expect "lower help lists --explain" 0 "--explain                print every op node's decision" -- lower --help
expect "lower help says -o refuses ops no kernel runs" 0 "is refused, naming every such node, before anything is" -- lower --help
expect "demo prints the delegate mapping" 0 "debug handle map: {0: (1, 2), 1: (3, 4), 2: (5,), 3: (5,), 4: (5,)}" -- demo --batch 1 --size 4 --quiet
expect "demo prints the delegate blob" 0 "blob:             5#conv_relu_op,0,conv_relu_op,1,sin_decomp_from_tan,2," -- demo --batch 1 --size 4 --quiet
# lower -o: .pte programs, and inspect on them
expect "lower writes a .pte" 0 "Wrote $scratch/mlp.pte" -- lower "$fixtures/mlp/model.core.pt2" -o "$scratch/mlp.pte"
expect "inspect reads Kiln's .pte" 0 "aten::addmm.out" -- inspect "$scratch/mlp.pte"
expect "inspect shows the memory plan" 0 "memory plan: 1 arenas: arena 1 = " -- inspect "$scratch/mlp.pte"
expect "inspect reads ExecuTorch's .pte" 0 "0: aten::convolution.out" -- inspect "$fixtures/pte/small_conv_net.pte"
expect "inspect caps the values" 0 "... 1 more" -- inspect "$fixtures/pte/add.pte" --values 3
expect "lower a delegated program to .pte" 0 "1 delegates" -- lower "$fixtures/conv_relu_tan/model.core.pt2" --backend BackendWithDelegateMappingDemo -o "$scratch/seed.pte"
expect "inspect shows the delegate" 0 "#0 'BackendWithDelegateMappingDemo', blob" -- inspect "$scratch/seed.pte"
expect "lower --print-memory" 0 "peak" -- lower "$fixtures/small_cnn/model.pt2" --print-memory
expect "lower to an unwritable path" 1 "cannot write '$scratch/no/such/dir/x.pte'" -- lower "$fixtures/mlp/model.core.pt2" -o "$scratch/no/such/dir/x.pte"
expect "lower a bad alignment" 2 "--segment-alignment must be a power of two, got 100" -- lower "$fixtures/mlp/model.core.pt2" -o "$scratch/x.pte" --segment-alignment 100
mkdir -p "$scratch/a_directory"
expect "lower onto a directory" 1 "cannot write '$scratch/a_directory'" -- lower "$fixtures/mlp/model.core.pt2" -o "$scratch/a_directory"
if ls "$scratch"/*.tmp-* >/dev/null 2>&1; then
  echo "FAIL a failed lower left a file behind"; failures=$((failures + 1))
else
  passes=$((passes + 1))
fi
head -c 200 "$scratch/mlp.pte" > "$scratch/truncated.pte"
expect "inspect a truncated .pte" 1 "lies outside the file's 200 bytes" -- inspect "$scratch/truncated.pte"
expect "demo prints the memory plan" 0 "mem_id 1: 4096 bytes, peak live 4096 bytes" -- demo --batch 1 --size 4 --quiet
expect "demo writes the .pte" 0 "wrote $scratch/demo.pte" -- demo --batch 1 --size 4 --quiet -o "$scratch/demo.pte"
expect "the demo's .pte reads back" 0 "aten::convolution.out" -- inspect "$scratch/demo.pte"

# Several methods in one .pte: constant methods from the archive's extra file (kv_cache_index_copy
# carries kiln/constant_methods.json, tools/fixtures/generate.py), from --constant-methods over them,
# and program methods from other archives (--method NAME=FILE.pt2); inspect and run read them.
kv="$fixtures/kv_cache_index_copy/model.core.pt2"
expect "lower help tells of --constant-methods" 0 "--constant-methods FILE  with -o: constant methods from a JSON file" -- lower --help
expect "lower help tells of --method" 0 "--method NAME=FILE.pt2   with -o: FILE.pt2's program as one more method NAME" -- lower --help
expect "lower help tells of the archive's extra file" 0 "extra file kiln/constant_methods.json" -- lower --help
expect "lower writes the archive's constant methods" 0 "  get_eos_ids = [2, 3]" -- lower "$kv" -o "$scratch/kv.pte"
expect "inspect lists every method" 0 "  forward: 2 inputs, 1 outputs, " -- inspect "$scratch/kv.pte"
expect "inspect prints a constant method's value" 0 '  get_name: constant "kv_cache_index_copy"' -- inspect "$scratch/kv.pte"
expect "inspect prints a list constant" 0 "  get_eos_ids: constant [2, 3]" -- inspect "$scratch/kv.pte"
expect "inspect marks a constant method in its section" 0 "  constant method: 0.5" -- inspect "$scratch/kv.pte"
expect "inspect help tells of the methods" 0 "each constant method's value" -- inspect --help
expect "run --help tells of --method" 0 "--method NAME     (.pte) the method to run" -- run --help
expect "run an int constant method" 0 "output_0: 6" -- run "$scratch/kv.pte" --method get_max_seq_len
expect "run a list constant: one output per item" 0 "output_1: 3" -- run "$scratch/kv.pte" --method get_eos_ids
expect "run a string constant" 0 "output_0: 'kv_cache_index_copy'" -- run "$scratch/kv.pte" --method get_name
expect "run a bool constant" 0 "output_0: True" -- run "$scratch/kv.pte" --method use_kv_cache
expect "a constant method takes no inputs" 0 "method 'get_scale': 0 inputs, 1 outputs, 0 instructions" -- \
  run "$scratch/kv.pte" --method get_scale
printf '{"get_max_seq_len": 4, "get_bos_id": 1}' > "$scratch/constants.json"
expect "--constant-methods replaces and adds" 0 "  get_max_seq_len = 4" -- \
  lower "$kv" -o "$scratch/kv2.pte" --constant-methods "$scratch/constants.json" --method decode="$fixtures/mlp/model.core.pt2"
expect "--method adds a program method" 0 "method 'decode': 9 values, 3 instructions" -- \
  lower "$kv" -o "$scratch/kv2.pte" --constant-methods "$scratch/constants.json" --method decode="$fixtures/mlp/model.core.pt2"
expect "run a program method by name" 0 "wrote $scratch/decode.npz" -- \
  run "$scratch/kv2.pte" --method decode --inputs "$fixtures/mlp/case0.inputs.npz" --output "$scratch/decode.npz"
compare "the added method computes its program" "$scratch/decode.npz" "$fixtures/mlp/case0.expected.npz" output_0=output_0
expect "run 'forward' by default" 0 "method 'forward': 2 inputs" -- run "$scratch/kv2.pte"
expect "run an unknown method" 1 "kv2.pte has no method 'backward' (it has: decode, forward, get_bos_id, get_eos_ids," -- \
  run "$scratch/kv2.pte" --method backward
expect "run --method applies to .pte programs" 2 "--method applies to .pte programs" -- \
  run "$fixtures/mlp/model.core.pt2" --inputs "$fixtures/mlp/case0.inputs.npz" --method forward
expect "inspect ExecuTorch's constant methods" 0 "  get_eos_ids: constant [2, 7]" -- inspect "$pte/constant_methods.pte"
expect "run ExecuTorch's string constant" 0 "output_0: 'tiny'" -- run "$pte/constant_methods.pte" --method get_name
expect "run ExecuTorch's second program method" 0 "output_0: f32[2, 3]  min=3 max=3 mean=3" -- \
  run "$pte/constant_methods.pte" --method decode
# The debug record, profile and compare describe the main method of a file with several.
seed_model="$fixtures/conv_relu_tan/model.pt2"
expect "lower several methods with a debug record" 0 "Wrote $scratch/dvm.kdbg" -- \
  lower "$seed_model" --backend DemoBackend -o "$scratch/dvm.pte" --debug-record "$scratch/dvm.kdbg" \
  --method another="$fixtures/mlp/model.core.pt2" --constant-methods "$scratch/constants.json"
expect "profile runs the main method of several" 0 "conv2d_1" -- \
  profile "$scratch/dvm.pte" --debug-record "$scratch/dvm.kdbg" --iterations 1
expect "compare runs the main method of several" 0 "Every compared op is above 60.0 dB." -- \
  compare "$scratch/dvm.pte" --debug-record "$scratch/dvm.kdbg" --reference "$seed_model"
# Refusals: each names the flag, the file, the key or the name.
expect "--constant-methods needs -o" 2 "--constant-methods adds methods to a .pte program: give -o FILE.pte too" -- \
  lower "$kv" --backend DemoBackend --constant-methods "$scratch/constants.json"
expect "--method needs -o" 2 "--method adds methods to a .pte program: give -o FILE.pte too" -- \
  lower "$kv" --backend DemoBackend --method decode="$kv"
expect "--method needs NAME=FILE" 2 "--method expects NAME=FILE.pt2, got 'decode'" -- lower "$kv" -o "$scratch/x.pte" --method decode
expect "--method with an empty name" 2 "--method expects NAME=FILE.pt2, got '=x.pt2'" -- lower "$kv" -o "$scratch/x.pte" --method =x.pt2
expect "--method forward is the main program" 1 "'forward' is the main program's method" -- \
  lower "$kv" -o "$scratch/x.pte" --method forward="$kv"
expect "a program method named twice" 1 "two program methods are named 'decode'" -- \
  lower "$kv" -o "$scratch/x.pte" --method decode="$kv" --method decode="$kv"
expect "--method of a missing file" 1 "$scratch/none.pt2: cannot open" -- lower "$kv" -o "$scratch/x.pte" --method decode="$scratch/none.pt2"
printf '{"decode": 1}' > "$scratch/clash.json"
expect "a constant method named as a program method" 1 "constant method 'decode' has the name of a program method" -- \
  lower "$kv" -o "$scratch/x.pte" --method decode="$kv" --constant-methods "$scratch/clash.json"
expect "a missing constant methods file" 1 "$scratch/none.json: cannot open" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/none.json"
printf '{"get_bos_id": 1,' > "$scratch/truncated.json"
expect "constant methods that are not JSON" 1 "$scratch/truncated.json: not valid JSON" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/truncated.json"
printf '[1, 2]' > "$scratch/list.json"
expect "constant methods that are not an object" 1 "list.json: expected a JSON object of method name -> value, got a list" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/list.json"
printf '{"get_config": {"layers": 2}}' > "$scratch/nested.json"
expect "a nested object" 1 "nested.json: 'get_config' is an object; a constant method returns an integer, a float" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/nested.json"
printf '{"get_eos_ids": [2, "x"]}' > "$scratch/mixed.json"
expect "a mixed list" 1 "mixed.json: 'get_eos_ids'[1] is a string (\"x\") in a list of integers" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/mixed.json"
printf '{"get_eos_ids": [2, 2.5]}' > "$scratch/float.json"
expect "a float in a list of integers" 1 "float.json: 'get_eos_ids'[1] is a float (2.5) in a list of integers" -- \
  lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/float.json"
printf '{"get_bos_id": null}' > "$scratch/null.json"
expect "a null constant" 1 "null.json: 'get_bos_id' is null" -- lower "$kv" -o "$scratch/x.pte" --constant-methods "$scratch/null.json"
if [ -e "$scratch/x.pte" ]; then
  echo "FAIL a refused lower wrote its .pte"; failures=$((failures + 1))
else
  passes=$((passes + 1))
fi

# ops
expect "help lists ops" 0 "ops        list the ops Kiln knows" -- help
expect "ops help" 0 "Usage: kiln ops [--all] [--markdown]" -- ops --help
expect "ops unknown flag" 2 "unknown option '--html' for 'kiln ops'" -- ops --html
expect "ops stray argument" 2 "unexpected argument 'relu' for 'kiln ops'" -- ops relu
expect "ops lists an op with its out variant" 0 "aten::add.out" -- ops
expect "ops lists view ops as their copies" 0 "as aten::view_copy: portable" -- ops
expect "ops lists training-IR ops as decomposed" 0 "lowered by decompositions" -- ops
expect "ops --all names why an op is refused" 0 "no kernel: a LAPACK-class factorization" -- ops --all
expect "ops markdown is a table" 0 "| op | core | out variant | portable dtypes | runs on |" -- ops --markdown
# The devtools: debug record, Kiln trace, profile, compare
crt="$fixtures/conv_relu_tan"
expect "lower writes a debug record" 0 "Wrote $scratch/dv.kdbg: 4 instructions and 2 delegates mapped to 5 source ops" -- \
  lower "$crt/model.pt2" --backend DemoBackend -o "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg"
expect "debug record needs -o" 2 "--debug-record describes a .pte program: give -o FILE.pte too" -- \
  lower "$crt/model.pt2" --backend DemoBackend --debug-record "$scratch/x.kdbg"
expect "profile help" 0 "Usage: kiln profile MODEL.pte --debug-record MODEL.kdbg" -- profile --help
expect "profile attributes time to source ops" 0 "conv2d_1" -- \
  profile "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --inputs "$crt/case0.inputs.npz" --iterations 3 --warmup 0
expect "profile shows the delegate's time outside its ops" 0 "delegate 1 (DemoBackend): outside its ops" -- \
  profile "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --iterations 2
expect "profile --top cuts the table" 0 "(5 more rows; --top 0 shows all)" -- \
  profile "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --iterations 1 --top 2
expect "profile per-module totals" 0 "conv_layer" -- \
  profile "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --iterations 1 --module-depth 2
expect "profile needs a debug record" 2 "'kiln profile' needs --debug-record FILE" -- profile "$scratch/dv.pte"
expect "profile refuses another program's record" 1 "the debug record was written for another program" -- \
  profile "$scratch/mlp.pte" --debug-record "$scratch/dv.kdbg"
printf '{"format": "kiln-debug-record", "version": 7}' > "$scratch/v7.kdbg"
expect "profile refuses a newer record" 1 "is a debug record of version 7; this kiln reads version 1" -- \
  profile "$scratch/dv.pte" --debug-record "$scratch/v7.kdbg"
expect "profile refuses a record that is not JSON" 1 "is not a debug record: not JSON" -- \
  profile "$scratch/dv.pte" --debug-record "$crt/model.pt2"
expect "run --trace writes a Kiln trace" 0 "wrote $scratch/dv.kdump: 3 runs, 12 calls, 9 backend events" -- \
  run "$scratch/dv.pte" --iterations 3 --trace "$scratch/dv.kdump"
expect "profile reads a Kiln trace" 0 "3 runs:" -- profile --trace "$scratch/dv.kdump" --debug-record "$scratch/dv.kdbg"
"$kiln" run "$scratch/mlp.pte" --trace "$scratch/mlp.kdump" > /dev/null 2>&1
expect "profile refuses a trace of another program" 1 "was recorded from another program than the debug record" -- \
  profile --trace "$scratch/mlp.kdump" --debug-record "$scratch/dv.kdbg"
expect "profile --trace takes no run flags" 2 "--inputs, --iterations, --warmup and --threads apply to a run" -- \
  profile --trace "$scratch/dv.kdump" --debug-record "$scratch/dv.kdbg" --iterations 3
expect "profile refuses a trace that is not one" 1 "is not a Kiln trace" -- \
  profile --trace "$scratch/dv.kdbg" --debug-record "$scratch/dv.kdbg"
# ETDump: written by run, read by profile and compare without running the program again.
expect "run --etdump writes an ETDump" 0 "wrote $scratch/dv.etdp: ETDump, 3 runs, 21 events" -- \
  run "$scratch/dv.pte" --iterations 3 --etdump "$scratch/dv.etdp"
expect "profile reads an ETDump" 0 "3 runs:" -- profile --etdump "$scratch/dv.etdp" --debug-record "$scratch/dv.kdbg"
expect "profile attributes an ETDump's backend ops" 0 "DemoBackend" -- \
  profile --etdump "$scratch/dv.etdp" --debug-record "$scratch/dv.kdbg"
"$kiln" run "$scratch/mlp.pte" --etdump "$scratch/mlp.etdp" > /dev/null 2>&1
expect "profile refuses an ETDump of another program" 1 "mlp.etdp was recorded from another program than the debug record" -- \
  profile --etdump "$scratch/mlp.etdp" --debug-record "$scratch/dv.kdbg"
expect "profile refuses a file that is no ETDump" 1 "dv.kdump is not an ETDump: identifier" -- \
  profile --etdump "$scratch/dv.kdump" --debug-record "$scratch/dv.kdbg"
head -c 100 "$scratch/dv.etdp" > "$scratch/cut.etdp"
expect "profile refuses a truncated ETDump" 1 "cut.etdp is truncated: its size prefix says" -- \
  profile --etdump "$scratch/cut.etdp" --debug-record "$scratch/dv.kdbg"
expect "profile --etdump takes no run flags" 2 "--etdump reads one that is done" -- \
  profile --etdump "$scratch/dv.etdp" --debug-record "$scratch/dv.kdbg" --warmup 1
expect "profile takes one source of events" 2 "takes one of a .pte to run, --etdump FILE and --trace FILE" -- \
  profile "$scratch/dv.pte" --etdump "$scratch/dv.etdp" --debug-record "$scratch/dv.kdbg"
expect "run --debug-buffer needs --etdump" 2 "--debug-buffer goes with --etdump FILE" -- \
  run "$scratch/dv.pte" --debug-buffer "$scratch/dv.bin"
expect "run --etdump and --trace exclude each other" 2 "--etdump and --trace cannot be given together" -- \
  run "$scratch/dv.pte" --etdump "$scratch/x.etdp" --trace "$scratch/x.kdump"
expect "run --etdump applies to .pte programs" 2 "--etdump applies to .pte programs" -- \
  run "$crt/model.pt2" --inputs "$crt/case0.inputs.npz" --etdump "$scratch/x.etdp"
expect "run --etdump to a file it cannot write" 1 "cannot write '$scratch/no/such/dir.etdp'" -- \
  run "$scratch/dv.pte" --etdump "$scratch/no/such/dir.etdp"
expect "run --etdump --debug-buffer logs the outputs" 0 "dv.bin: " -- \
  run "$scratch/dv.pte" --inputs "$crt/case0.inputs.npz" --etdump "$scratch/dvo.etdp" --debug-buffer "$scratch/dv.bin"
expect "compare reads an ETDump and its debug buffer" 0 "Every compared op is above 60.0 dB." -- \
  compare --etdump "$scratch/dvo.etdp" --debug-buffer "$scratch/dv.bin" --debug-record "$scratch/dv.kdbg" \
  --reference "$crt/model.pt2" --inputs "$crt/case0.inputs.npz"
expect "compare --etdump needs the debug buffer" 2 "--etdump needs --debug-buffer FILE" -- \
  compare --etdump "$scratch/dvo.etdp" --debug-record "$scratch/dv.kdbg" --reference "$crt/model.pt2"
expect "compare refuses an ETDump without outputs" 1 "the recorded run logged no output to compare" -- \
  compare --etdump "$scratch/dv.etdp" --debug-buffer "$scratch/dv.bin" --debug-record "$scratch/dv.kdbg" \
  --reference "$crt/model.pt2"
expect "compare refuses an ETDump of another program" 1 "was recorded from another program" -- \
  compare --etdump "$scratch/mlp.etdp" --debug-buffer "$scratch/dv.bin" --debug-record "$scratch/dv.kdbg" \
  --reference "$crt/model.pt2"
expect "compare help" 0 "Usage: kiln compare MODEL.pte --debug-record MODEL.kdbg --reference MODEL.pt2" -- compare --help
expect "compare finds every op exact on DemoBackend" 0 "Every compared op is above 60.0 dB." -- \
  compare "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --reference "$crt/model.pt2" --inputs "$crt/case0.inputs.npz"
expect "compare lists each op it compared" 0 "5 source op groups compared" -- \
  compare "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --reference "$crt/model.pt2"
expect "compare needs the reference" 2 "'kiln compare' needs --reference MODEL.pt2" -- \
  compare "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg"
expect "compare refuses another reference" 1 "is not the program the debug record was lowered from" -- \
  compare "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --reference "$fixtures/mlp/model.pt2"
expect "compare refuses a bad threshold" 2 "--threshold takes a number of dB, got 'loud'" -- \
  compare "$scratch/dv.pte" --debug-record "$scratch/dv.kdbg" --reference "$crt/model.pt2" --threshold loud

# OneDnnBackend, when built in; a kiln without it says so.
if [ "$onednn" = ON ]; then
  expect "demo times both .pte over 5 runs" 0 "(median of 5 runs, 1 thread)" -- demo --batch 1 --size 8 --quiet
  expect "lower --explain gives an earlier backend's reason for a node a later one took" 0 \
    "      refused by DemoBackend: aten::mean.dim is not an elementwise op DemoBackend has" -- \
    lower "$fixtures/buffer_mutation/model.core.pt2" --backend DemoBackend,OneDnnBackend --explain
  expect "demo lowers the seed model to OneDnnBackend" 0 "oneDNN:   lowered to OneDnnBackend: 1 delegate call; left on the portable kernels: aten::tan.default" -- demo --batch 1 --size 8 --quiet
  expect "demo runs the OneDnnBackend .pte on the runtime" 0 "oneDNN vs interpreter: max abs difference" -- demo --batch 2 --size 7 --quiet
  expect "demo prints portable vs oneDNN execute time" 0 "execute time: portable " -- demo --batch 1 --size 8 --quiet
  expect "demo help tells of OneDnnBackend" 0 "lowers the model to OneDnnBackend" -- demo --help
  expect "lower an unknown backend" 2 "unknown backend 'Nope' (registered backends: BackendWithDelegateMappingDemo, DemoBackend, OneDnnBackend)" -- lower "$fixtures/mlp/model.core.pt2" --backend DemoBackend,Nope
  # A quantized program in int8: each quantized op's error also in quanta
  # of its grid; its int8 results logged dequantized.
  "$kiln" lower "$fixtures/quant_cnn/model.pt2" --backend OneDnnBackend -o "$scratch/q.pte" --debug-record "$scratch/q.kdbg" \
    > /dev/null 2>&1
  expect "compare counts a quantized op's error in quanta" 0 "quanta    max |ref|" -- \
    compare "$scratch/q.pte" --debug-record "$scratch/q.kdbg" --reference "$fixtures/quant_cnn/model.pt2" \
    --inputs "$fixtures/quant_cnn/case0.inputs.npz"
  expect "compare finds a quantized program's int8 ops exact" 0 "Every compared op is above 60.0 dB." -- \
    compare "$scratch/q.pte" --debug-record "$scratch/q.kdbg" --reference "$fixtures/quant_cnn/model.pt2" \
    --inputs "$fixtures/quant_cnn/case0.inputs.npz"
  # Without VNNI (oneDNN held to AVX2 here; some CPUs have no more) the
  # int8 kernels saturate: OneDnnBackend runs quantized ops in float32 on
  # the dequantized values there, as exact. Static and dynamic quantization.
  ONEDNN_MAX_CPU_ISA=AVX2 expect "compare finds a quantized program exact without VNNI" 0 \
    "Every compared op is above 60.0 dB." -- \
    compare "$scratch/q.pte" --debug-record "$scratch/q.kdbg" --reference "$fixtures/quant_cnn/model.pt2" \
    --inputs "$fixtures/quant_cnn/case1.inputs.npz"
  "$kiln" lower "$fixtures/quant_mlp/model.pt2" --backend OneDnnBackend -o "$scratch/qd.pte" \
    --debug-record "$scratch/qd.kdbg" > /dev/null 2>&1
  for isa in ALL AVX2; do
    ONEDNN_MAX_CPU_ISA=$isa expect "compare finds a dynamically quantized program exact ($isa)" 0 \
      "Every compared op is above 60.0 dB." -- \
      compare "$scratch/qd.pte" --debug-record "$scratch/qd.kdbg" --reference "$fixtures/quant_mlp/model.pt2" \
      --inputs "$fixtures/quant_mlp/case1.inputs.npz"
  done
  expect "lower --explain names the delegate that took a node" 0 "convolution (aten::convolution.default): taken by OneDnnBackend (lowered_module_0)" -- \
    lower "$fixtures/conv_relu_tan/model.core.pt2" --backend OneDnnBackend --explain
  expect "lower --explain gives the reason a node stayed" 0 "      refused by OneDnnBackend: aten::tan.default is not an op OneDnnBackend has" -- \
    lower "$fixtures/conv_relu_tan/model.core.pt2" --backend OneDnnBackend --explain
  expect "lower --explain names the oneDNN implementation of each operation" 0 "  operation 0 Convolution 'convolution': convolution " -- \
    lower "$fixtures/conv_relu_tan/model.core.pt2" --backend OneDnnBackend --explain
  expect "lower --print shows a oneDNN blob" 0 "MatMul (%" -- lower "$fixtures/small_cnn/model.core.pt2" --backend OneDnnBackend --print
  expect "lower to OneDnnBackend writes a .pte" 0 "1 delegates" -- \
    lower "$fixtures/small_cnn/model.pt2" --backend OneDnnBackend -o "$scratch/onednn_small_cnn.pte"
  expect "ops lists the delegate backends of an op" 0 "| \`aten::convolution\` | yes | \`aten::convolution.out\` | f32 f64 | portable, BackendWithDelegateMappingDemo, OneDnnBackend |" -- ops --markdown
else
  expect "demo skips oneDNN without it" 0 "oneDNN:   skipped: this kiln is built without OneDnnBackend" -- demo --batch 1 --size 4 --quiet
  expect "lower refuses OneDnnBackend without it" 2 "unknown backend 'OneDnnBackend' (registered backends: BackendWithDelegateMappingDemo, DemoBackend)" -- \
    lower "$fixtures/mlp/model.core.pt2" --backend OneDnnBackend
  expect "run --threads works without oneDNN" 0 "output_0" -- run "$pte/add.pte" --threads 2
fi

# kiln generate: the tiny language model fixture (tools/llm/export.py), its
# greedy ids equal to PyTorch's, and every bad input refused by name.
llm="$fixtures/llm/tiny_llama"
"$kiln" lower "$llm/model.pt2" -o "$scratch/tiny_llama.pte" > /dev/null
# The runtime-only suite generates from the lowered model checked in beside
# it (device_cli_test.sh): it must be what kiln lower writes today.
if cmp -s "$scratch/tiny_llama.pte" "$llm/model.pte"; then
  passes=$((passes + 1))
else
  echo "FAIL $llm/model.pte is not what 'kiln lower $llm/model.pt2' writes: lower it again (-o $llm/model.pte)"
  failures=$((failures + 1))
fi
expected_ids=$(python3 -c "import json; print(','.join(map(str, json.load(open('$llm/reference.json'))[0]['greedy_ids'][:20])))" 2>/dev/null || true)
expect "generate help" 0 "Usage: kiln generate MODEL.pte" -- generate --help
expect "generate needs a model" 2 "generate needs a MODEL.pte" -- generate --prompt-ids 1,2
expect "generate needs a prompt" 2 "generate needs either --prompt (with --tokenizer) or --prompt-ids" -- generate "$scratch/tiny_llama.pte"
expect "generate --prompt needs a tokenizer" 2 "--prompt needs --tokenizer" -- generate "$scratch/tiny_llama.pte" --prompt "hi"
expect "generate refuses top-p 0" 2 "top-p 0.000000 must be in (0, 1]" -- generate "$scratch/tiny_llama.pte" --prompt-ids 1 --top-p 0
expect "generate refuses a negative temperature" 2 "temperature -1.000000 must be 0" -- generate "$scratch/tiny_llama.pte" --prompt-ids 1 --temperature -1
expect "generate refuses bad ids" 2 "--prompt-ids expects an integer" -- generate "$scratch/tiny_llama.pte" --prompt-ids 1,x
expect "generate refuses a prompt longer than the cache" 1 "the prompt has 65 tokens; the model's cache holds 64" -- \
  generate "$scratch/tiny_llama.pte" --prompt-ids "$(python3 -c "print(','.join(['3'] * 65))" 2>/dev/null)"
expect "generate refuses an id outside the vocabulary" 1 "prompt token id 256 is outside the vocabulary (0 to 255)" -- \
  generate "$scratch/tiny_llama.pte" --prompt-ids 1,256
expect "generate refuses a file that is no tokenizer" 1 "kiln generate: error:" -- \
  generate "$scratch/tiny_llama.pte" --prompt "hi" --tokenizer "$fixtures/manifest.json"
# A Qwen-style tokenizer in the model's 256 ids (tools/llm/tokenizer_cases.py): its NFC normalizer makes
# the decomposed "e\u0301" one character, so both spellings of "Café" take 5 tokens, as in tokenizers.
expect "generate encodes with a Qwen-style tokenizer (NFC)" 0 "11 prompt tokens" -- \
  generate "$scratch/tiny_llama.pte" --tokenizer "$fixtures/tokenizer/qwen_tiny.json" \
  --prompt "$(printf 'Cafe\xcc\x81 Caf\xc3\xa9')" --max-new-tokens 8
expect "generate refuses a program that is no language model" 1 "is not a language model's (token ids [1, seq], cache positions [seq]) -> logits" -- \
  generate "$pte/add.pte" --prompt-ids 1
expect "generate reads the cache's length from the program" 0 "cache 64 positions" -- \
  generate "$scratch/tiny_llama.pte" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 3
if [ -n "$expected_ids" ]; then
  expect "generate's greedy ids are PyTorch's" 0 "$expected_ids" -- \
    generate "$scratch/tiny_llama.pte" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 20
fi
expect "generate stops at the cache's end and says so" 0 "the cache is full (64 positions)" -- \
  generate "$scratch/tiny_llama.pte" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 100 --ignore-eos
"$kiln" lower "$llm/model.pt2" -o "$scratch/tiny_llama_dr.pte" --debug-record "$scratch/tiny_llama.kdbg" > /dev/null
expect "generate --etdump writes one run per call" 0 "wrote $scratch/gen.etdp: ETDump, 3 runs" -- \
  generate "$scratch/tiny_llama_dr.pte" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 3 --ignore-eos \
  --etdump "$scratch/gen.etdp"
expect "profile reads generate's ETDump" 0 "3 runs:" -- \
  profile --etdump "$scratch/gen.etdp" --debug-record "$scratch/tiny_llama.kdbg"

# Where the EOS ids come from when the program names none (its get_eos_ids
# emptied here), each fallback said on standard error: a tokenizer of four
# tokens (the tiny model's ids past them are printed as ids), with no
# tokenizer_config.json beside it, one whose eos_token it lacks, one whose
# eos_token it has.
printf '{"get_eos_ids": []}' > "$scratch/no_eos.json"
"$kiln" lower "$llm/model.pt2" -o "$scratch/no_eos.pte" --constant-methods "$scratch/no_eos.json" > /dev/null
for dir in bare lacking having; do
  mkdir -p "$scratch/$dir"
  printf '%s' '{"model": {"type": "BPE", "vocab": {"<s>": 0, "</s>": 1, "h": 2, "i": 3}, "merges": []}}' \
    > "$scratch/$dir/tokenizer.json"
done
printf '{"eos_token": "<eos>"}' > "$scratch/lacking/tokenizer_config.json"
printf '{"eos_token": {"content": "</s>"}}' > "$scratch/having/tokenizer_config.json"
expect "generate says that no EOS id is known" 0 "note: no EOS id is known: generation stops only at the token limit" -- \
  generate "$scratch/no_eos.pte" --prompt-ids 1,17 --print-ids --max-new-tokens 2
expect "generate says that there is no tokenizer_config.json" 0 \
  "note: the program names no EOS ids (get_eos_ids), and there is no $scratch/bare/tokenizer_config.json to take the EOS token from" -- \
  generate "$scratch/no_eos.pte" --tokenizer "$scratch/bare/tokenizer.json" --prompt hi --print-ids --max-new-tokens 2
expect "generate says that the EOS token is not in the vocabulary" 0 \
  "the eos_token '<eos>' of $scratch/lacking/tokenizer_config.json is not in the vocabulary of $scratch/lacking/tokenizer.json" -- \
  generate "$scratch/no_eos.pte" --tokenizer "$scratch/lacking/tokenizer.json" --prompt hi --print-ids --max-new-tokens 2
expect "generate takes the EOS id from tokenizer_config.json and says so" 0 \
  "note: EOS id 1 ('</s>') from $scratch/having/tokenizer_config.json" -- \
  generate "$scratch/no_eos.pte" --tokenizer "$scratch/having/tokenizer.json" --prompt hi --print-ids --max-new-tokens 2
# The tiny language model quantized with torchao (tests/fixtures/manifest.json's
# language_models): kiln run on each .pt2 (the training IR, decomposed first,
# torchao's ops on their portable kernels; int4's core-ATen program as it is)
# gives PyTorch's logits for the prompt; OneDnnBackend leaves torchao's ops.
for name in tiny_llama_int8wo tiny_llama_int4wo tiny_llama_8da4w tiny_llama_8da4w_emb8; do
  model="$fixtures/llm/$name"
  expect "run $name" 0 "wrote $scratch/$name.npz" -- \
    run "$model/model.pt2" --inputs "$model/case0.inputs.npz" --output "$scratch/$name.npz"
  compare "$name's logits" "$scratch/$name.npz" "$model/case0.expected.npz" output_0=output_0
done
expect "run tiny_llama_int4wo's core-ATen program" 0 "wrote $scratch/int4wo_core.npz" -- \
  run "$fixtures/llm/tiny_llama_int4wo/model.core.pt2" --inputs "$fixtures/llm/tiny_llama_int4wo/case0.inputs.npz" \
  --output "$scratch/int4wo_core.npz"
compare "tiny_llama_int4wo's core-ATen logits" "$scratch/int4wo_core.npz" \
  "$fixtures/llm/tiny_llama_int4wo/case0.expected.npz" output_0=output_0
if [ "$onednn" = ON ]; then
  expect "OneDnnBackend leaves the quantized linears to Kiln's own kernels" 0 \
    "kiln::linear.default is not an op OneDnnBackend has" -- \
    lower "$fixtures/llm/tiny_llama_8da4w/model.pt2" -o "$scratch/8da4w.pte" --backend OneDnnBackend --explain
fi

# docs/ops.md is the output of 'kiln ops --markdown' (with every backend), committed.
if [ "$onednn" = OFF ]; then
  :
elif "$kiln" ops --markdown | diff -u "$2/docs/ops.md" - > "$scratch/ops.diff"; then
  passes=$((passes + 1))
else
  echo "FAIL docs/ops.md differs from 'kiln ops --markdown' (regenerate it: kiln ops --markdown > docs/ops.md):"
  cat "$scratch/ops.diff"
  failures=$((failures + 1))
fi

# Sampling: after --seed, what PyTorch drew after torch.manual_seed (the
# fixture's seed.json), through the interpreter, the runtime and OneDnnBackend.
sampling="$fixtures/sampling"
seed=$(sed -n 's/.*"seed": *\([0-9]*\).*/\1/p' "$sampling/seed.json")
for program in model.pt2 model.core.pt2; do
  expect "run $program draws as PyTorch after its seed" 0 "wrote" -- \
    run "$sampling/$program" --inputs "$sampling/case0.inputs.npz" --seed "$seed" --output "$scratch/sampling.npz"
  compare "sampling $program" "$scratch/sampling.npz" "$sampling/case0.expected.npz"
done
sampling_backends=("")
[ "$onednn" = ON ] && sampling_backends+=("OneDnnBackend")
for backend in "${sampling_backends[@]}"; do
  expect "lower the sampling program ${backend:-portable}" 0 "Wrote" -- \
    lower "$sampling/model.core.pt2" ${backend:+--backend "$backend"} -o "$scratch/sampling.pte"
  expect "run the sampling .pte ${backend:-portable}" 0 "wrote" -- \
    run "$scratch/sampling.pte" --inputs "$sampling/case0.inputs.npz" --seed "$seed" --output "$scratch/sampling.npz"
  compare "sampling .pte ${backend:-portable}" "$scratch/sampling.npz" "$sampling/case0.expected.npz"
done
"$kiln" run "$scratch/sampling.pte" --inputs "$sampling/case0.inputs.npz" --seed 1 --output "$scratch/other_seed.npz" \
  > /dev/null 2>&1
if "$npz_compare" "$scratch/other_seed.npz" "$sampling/case0.expected.npz" > /dev/null 2>&1; then
  echo "FAIL another seed draws the same numbers"
  failures=$((failures + 1))
else
  passes=$((passes + 1))
fi

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
