#!/usr/bin/env bash
# The runtime-only (device) build's kiln (KILN_BUILD_AOT=OFF): run, inspect,
# generate and ops --used work on .pte files (run's outputs checked with
# npz_compare against the recorded ones: ExecuTorch's runtime's for
# tests/fixtures/pte, and, when KILN_PTE_CASES_DIR names a folder, the
# host's kiln's for every case in it: make test-aarch64 runs this under qemu);
# every command, flag or input that needs the compiler is refused by name with
# a non-zero exit, and every bad input is named.
# Usage: device_cli_test.sh path/to/kiln path/to/repository path/to/npz_compare
set -u
kiln="$1"
fixtures="$2/tests/fixtures"
npz_compare="$3"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0
passes=0

# expect NAME EXPECTED_EXIT EXPECTED_TEXT -- ARGS... (as cli_test.sh)
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

needs="needs the compiler, and this kiln is the runtime-only (device) build: build Kiln with KILN_BUILD_AOT=ON"

# The help says which build this is and marks what it lacks.
expect "help says it is the device build" 0 "This kiln is the runtime-only (device) build" -- --help
expect "help marks lower" 0 "lower      [full build] split a .pt2 program across backends" -- help
expect "help lists run unmarked" 0 "run        run a .pt2 program" -- help
expect "help lists ops unmarked" 0 "ops        list the ops Kiln knows" -- help
expect "help lists inspect unmarked" 0 "inspect    print a .pt2 program" -- help
expect "help lists generate unmarked" 0 "generate   run a language model's .pte" -- help
expect "version" 0 "kiln 0.1.0" -- version
expect "unknown command" 2 "kiln: unknown command 'frobnicate'" -- frobnicate

# The commands that need the compiler.
for command in lower profile compare demo; do
  expect "$command needs the full build" 1 "kiln $command: error: kiln $command $needs" -- "$command" x
done
expect "the op table needs the full build" 1 "kiln ops: error: kiln ops (the op table; 'kiln ops --used' works here) $needs" -- ops
expect "ops --help says the op table needs the full build" 0 "it has 'kiln ops --used'" -- ops --help
expect "run on a .pt2 needs the full build" 1 "kiln run: error: kiln run on a .pt2 ($fixtures/mlp/model.pt2) $needs" -- \
  run "$fixtures/mlp/model.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run --trace needs the full build" 1 "kiln run: error: kiln run --trace (use --etdump on the device) $needs" -- \
  run "$fixtures/pte/add.pte" --trace "$scratch/run.kdump"
expect "run --chrome-trace needs the full build" 1 "kiln run --chrome-trace (use --etdump on the device) $needs" -- \
  run "$fixtures/pte/add.pte" --chrome-trace "$scratch/trace.json"
expect "run --help says a .pt2 needs the full build" 0 "it runs .pte programs; a .pt2" -- run --help

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

# run on .pte files: ExecuTorch's programs with their recorded inputs, against
# the outputs ExecuTorch's runtime gave (the two-call ones run twice, their
# second outputs compared: buffers keep their state from call to call).
pte="$fixtures/pte"
for name in add linear small_conv_net input_mutation two_outputs dynamic_batch copy_and_clone; do
  expect "run ExecuTorch's $name.pte" 0 "wrote $scratch/et_$name.npz" -- \
    run "$pte/$name.pte" --inputs "$pte/$name.inputs.npz" --output "$scratch/et_$name.npz"
  compare "ExecuTorch's $name.pte on the device kiln" "$scratch/et_$name.npz" "$pte/$name.expected.npz"
done
for name in buffer_mutation buffer_init; do
  expect "run ExecuTorch's $name.pte twice" 0 "wrote $scratch/et_$name.npz" -- \
    run "$pte/$name.pte" --inputs "$pte/$name.inputs.npz" --output "$scratch/et_$name.npz" --iterations 2
  compare "ExecuTorch's $name.pte, second call" "$scratch/et_$name.npz" "$pte/$name.expected.npz" output_0=call1_output_0
done
expect "run a warm-up call first" 0 "(1 warm-up)" -- \
  run "$pte/buffer_mutation.pte" --inputs "$pte/buffer_mutation.inputs.npz" --output "$scratch/warm.npz" --warmup 1
compare "a warm-up call carries the state too" "$scratch/warm.npz" "$pte/buffer_mutation.expected.npz" output_0=call1_output_0
data="$2/tools/kiln/test/data"
expect "run a channels-last .pte" 0 "wrote $scratch/channels_last.npz" -- \
  run "$data/channels_last.pte" --inputs "$data/channels_last.inputs.npz" --output "$scratch/channels_last.npz"
compare "channels-last input and output" "$scratch/channels_last.npz" "$data/channels_last.expected.npz"
expect "run prints the outputs" 0 "output_0: f32[1, 5]" -- run "$pte/small_conv_net.pte" --inputs "$pte/small_conv_net.inputs.npz"
expect "run without inputs adds ones" 0 "output_0: f32[2, 3]  min=2 max=2 mean=2" -- run "$pte/add.pte"
expect "run without inputs says so" 0 "no --inputs: every input is ones at its planned shape" -- run "$pte/add.pte"
expect "run times the calls" 0 "over 3 iterations (1 warm-up)" -- run "$pte/add.pte" --iterations 3 --warmup 1 --threads 2
json_line=$("$kiln" run "$pte/add.pte" --iterations 2 --json 2>&1 | tail -n 1)
if [[ "$json_line" == '{"load_ms": '*'"iterations": 2, '*'"peak_rss_kb": '*'}' ]]; then
  passes=$((passes + 1))
else
  echo "FAIL run --json: the last line is not the timings' JSON: $json_line"; failures=$((failures + 1))
fi
expect "run a constant method" 0 "output_0: 'tiny'" -- run "$pte/constant_methods.pte" --method get_name
expect "run an unknown method" 1 "constant_methods.pte has no method 'backward' (it has: " -- \
  run "$pte/constant_methods.pte" --method backward
expect "run --etdump on the device" 0 "wrote $scratch/run.etdp: ETDump, 2 runs" -- \
  run "$pte/small_conv_net.pte" --iterations 2 --etdump "$scratch/run.etdp" --debug-buffer "$scratch/run.bin"
if [ -s "$scratch/run.etdp" ] && [ -s "$scratch/run.bin" ]; then
  passes=$((passes + 1))
else
  echo "FAIL run --etdump wrote no ETDump or debug buffer"; failures=$((failures + 1))
fi

# Bad input to run: each is named, with a non-zero exit.
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
expect "run with a missing inputs file" 1 "missing.npz: cannot open (No such file or directory)" -- \
  run "$pte/add.pte" --inputs "$scratch/missing.npz"
echo "not an archive" > "$scratch/text.npz"
expect "run inputs not an npz" 1 "text.npz: not a zip archive, or a truncated one" -- run "$pte/add.pte" --inputs "$scratch/text.npz"
head -c 300 "$pte/add.inputs.npz" > "$scratch/cut.npz"
expect "run inputs cut short" 1 "kiln run: error: $scratch/cut.npz" -- run "$pte/add.pte" --inputs "$scratch/cut.npz"
expect "run a missing .pte" 1 "nonexistent.pte: cannot open" -- run "$scratch/nonexistent.pte"
head -c 200 "$pte/small_conv_net.pte" > "$scratch/truncated_net.pte"
expect "run a truncated .pte" 1 "truncated_net.pte' is not a program Kiln can load: InvalidProgram" -- run "$scratch/truncated_net.pte"
expect "run still checks its flags" 2 "--iterations expects an integer from 1 to 100000, got '0'" -- \
  run "$pte/add.pte" --iterations 0
expect "run .pte to an unwritable output" 1 "$scratch/no/such/dir/out.npz: cannot create the file" -- \
  run "$pte/add.pte" --output "$scratch/no/such/dir/out.npz"

# The cases of KILN_PTE_CASES_DIR (make test-aarch64: every .pt2 fixture's
# case lowered and run by the host's kiln, scripts/lower-fixtures.sh): the
# device kiln's outputs against the host's.
if [ -n "${KILN_PTE_CASES_DIR:-}" ]; then
  lowered=0
  for expected in "$KILN_PTE_CASES_DIR"/*.expected.npz; do
    [ -e "$expected" ] || break
    stem=${expected%.expected.npz}
    name=$(basename "$stem")
    seed=()
    [ -e "$stem.seed" ] && seed=(--seed "$(cat "$stem.seed")")
    expect "run the host's $name.pte" 0 "wrote $scratch/$name.npz" -- \
      run "$stem.pte" --inputs "$stem.inputs.npz" --output "$scratch/$name.npz" "${seed[@]}"
    compare "$name.pte: the device kiln against the host's" "$scratch/$name.npz" "$expected"
    lowered=$((lowered + 1))
  done
  if [ "$lowered" -eq 0 ]; then
    echo "FAIL KILN_PTE_CASES_DIR=$KILN_PTE_CASES_DIR holds no case"; failures=$((failures + 1))
  fi
fi

# ops --used: the operators of a program, with the runtime's reader alone.
expect "ops --used lists a program's operators" 0 "aten::convolution.out" -- ops --used "$pte/small_conv_net.pte"
expect "ops --used names a file that is no program" 1 "kiln ops: error:" -- ops --used "$scratch/text.npz"

# inspect on .pte files (ExecuTorch's and Kiln's); a .pt2 needs the full build.
expect "inspect reads ExecuTorch's .pte" 0 "0: aten::convolution.out" -- inspect "$fixtures/pte/small_conv_net.pte"
expect "inspect caps the values" 0 "... 1 more" -- inspect "$fixtures/pte/add.pte" --values 3
expect "inspect prints a constant method's value" 0 "get_max_seq_len: constant 64" -- \
  inspect "$fixtures/llm/tiny_llama/model.pte"
expect "inspect on a .pt2 needs the full build" 1 "kiln inspect: error: kiln inspect on a .pt2 ($fixtures/mlp/model.pt2) $needs" -- \
  inspect "$fixtures/mlp/model.pt2"
expect "inspect --help says a .pt2 needs the full build" 0 "it reads .pte programs; a .pt2" -- inspect --help
expect "inspect a missing file" 1 "cannot open '$scratch/nonexistent.pte'" -- inspect "$scratch/nonexistent.pte"
echo "not a program" > "$scratch/text.pte"
expect "inspect a file that is no .pte" 1 "not a .pte file" -- inspect "$scratch/text.pte"
head -c 200 "$fixtures/pte/small_conv_net.pte" > "$scratch/truncated.pte"
expect "inspect a truncated .pte" 1 "kiln inspect: error:" -- inspect "$scratch/truncated.pte"

# generate on the tiny language model (tests/fixtures/llm/tiny_llama/model.pte):
# PyTorch's greedy ids (reference.json), a tokenizer, a chat template.
llm="$fixtures/llm/tiny_llama/model.pte"
expect "generate's greedy ids are PyTorch's" 0 "66,217,157,69,20,153,141,79,79,32,24,186,236,146,203,97,193,39,103,0" -- \
  generate "$llm" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 20
expect "generate reads the cache's length from the program" 0 "cache 64 positions" -- \
  generate "$llm" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 3
expect "generate stops at the cache's end and says so" 0 "the cache is full (64 positions)" -- \
  generate "$llm" --prompt-ids 1,17,42,99,7 --print-ids --max-new-tokens 100 --ignore-eos
expect "generate refuses an id outside the vocabulary" 1 "prompt token id 256 is outside the vocabulary (0 to 255)" -- \
  generate "$llm" --prompt-ids 1,256
expect "generate refuses a program that is no language model" 1 "is not a language model's (token ids [1, seq], cache positions [seq]) -> logits" -- \
  generate "$fixtures/pte/add.pte" --prompt-ids 1
expect "generate encodes with a tokenizer" 0 "11 prompt tokens" -- \
  generate "$llm" --tokenizer "$fixtures/tokenizer/qwen_tiny.json" --prompt "$(printf 'Cafe\xcc\x81 Caf\xc3\xa9')" \
  --max-new-tokens 4
cp "$fixtures/tokenizer/qwen_tiny.json" "$scratch/tokenizer.json"
printf '%s' '{"chat_template": "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"}' \
  > "$scratch/tokenizer_config.json"
expect "generate --chat renders the chat template" 0 "prompt tokens, greedy" -- \
  generate "$llm" --tokenizer "$scratch/tokenizer.json" --chat --prompt "hi" --max-new-tokens 4
printf '%s' '{"chat_template": "{% for m in messages %}"}' > "$scratch/tokenizer_config.json"
expect "generate --chat refuses a broken chat template" 1 "kiln generate: error:" -- \
  generate "$llm" --tokenizer "$scratch/tokenizer.json" --chat --prompt "hi" --max-new-tokens 4

echo "$passes passed, $failures failed"
[ "$failures" -eq 0 ]
