#!/usr/bin/env bash
# The runtime-only (device) build's kiln (KILN_BUILD_AOT=OFF): inspect and
# generate work on .pte files; every command or input that needs the compiler
# is refused by name with a non-zero exit.
# Usage: device_cli_test.sh path/to/kiln path/to/repository
set -u
kiln="$1"
fixtures="$2/tests/fixtures"
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
expect "help marks run" 0 "run        [full build] run a .pt2 program" -- help
expect "help lists inspect unmarked" 0 "inspect    print a .pt2 program" -- help
expect "help lists generate unmarked" 0 "generate   run a language model's .pte" -- help
expect "version" 0 "kiln 0.1.0" -- version
expect "unknown command" 2 "kiln: unknown command 'frobnicate'" -- frobnicate

# The commands that need the compiler.
for command in lower ops profile compare demo; do
  expect "$command needs the full build" 1 "kiln $command: error: kiln $command $needs" -- "$command" x
done
expect "run on a .pte needs the full build" 1 "kiln run: error: kiln run $needs" -- run "$fixtures/pte/add.pte"
expect "run on a .pt2 needs the full build" 1 "kiln run: error: kiln run on a .pt2 ($fixtures/mlp/model.pt2) $needs" -- \
  run "$fixtures/mlp/model.pt2" --inputs "$fixtures/mlp/case0.inputs.npz"
expect "run on a missing file" 1 "nonexistent.pte: cannot open" -- run "$scratch/nonexistent.pte"
expect "run --help says run needs the full build" 0 "without 'kiln run'" -- run --help
expect "run still checks its flags" 2 "--iterations expects an integer from 1 to 100000, got '0'" -- \
  run "$fixtures/pte/add.pte" --iterations 0

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
