# The front door: `make demo` and `make test` do the whole set-up on a fresh
# Debian machine; `make` builds. See README.md.

BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
NO_ONEDNN_DIR ?= build-no-onednn
RUNTIME_DIR ?= build-runtime
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

# Libraries the project installs itself (oneDNN from PyPI): one prefix that
# every build directory uses.
DEPS_DIR ?= build/deps
# The small venv that builds and tests the Python package (numpy, nanobind,
# scikit-build-core, pytest: python/requirements-test.txt).
PYTHON_VENV ?= build/python-venv
python_flags = -DKILN_BUILD_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(PYTHON_VENV))/bin/python3

FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600

.PHONY: all build deps demo test test-sanitize test-no-onednn test-runtime-only python-package suite fuzz clean \
        bench-lowering size cross-aarch64 test-aarch64 test-kernels-aarch64 bench-tuned

# Tests that must run in each configuration (gtest cases plus other CTest
# tests): scripts/count-tests.sh fails a run with fewer.
min_tests = $(shell awk '$$1 == "$(1)" {print $$2}' .ci/minimum-tests 2>/dev/null || echo 0)
# Runs the suite of build directory $(1) and counts it against minimum $(2).
define run_suite
	rm -rf $(1)/test-results
	ctest --test-dir $(1) --output-on-failure --no-tests=error -j $(JOBS)
	bash scripts/count-tests.sh $(1) $(call min_tests,$(2))
endef

all: build

deps:
	@bash scripts/install-deps.sh
	@bash scripts/install-onednn.sh $(DEPS_DIR)/onednn
	@bash scripts/setup-python-test-venv.sh $(PYTHON_VENV)

# Configured again when this file changes (a build directory made before the
# Python package was built gets it).
$(BUILD_DIR)/build.ninja: Makefile | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja -DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR)) $(python_flags) $(CMAKE_FLAGS)
	@touch $@

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

# The demo needs the tool and its libraries only, not the tests.
demo: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kiln
	$(BUILD_DIR)/bin/kiln demo

test: build
	$(call run_suite,$(BUILD_DIR),main)

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
# Instrumented: the runtime, the kernels, the backends' runtime halves, the
# readers of untrusted input, the fuzz entry points and the runtime's own
# tests (cmake/KilnTargets.cmake); the rest is built as `make test` builds it,
# with the same compiler and CMAKE_FLAGS, so ccache gives its objects back.
# Every test runs on the instrumented libraries under the sanitizers'
# allocator; the long sweeps run a sample of their inputs (tests/support/sweep.h).
test-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DKILN_SANITIZE=ON -DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR)) $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  $(MAKE) --no-print-directory suite SUITE_DIR=$(SANITIZE_DIR) SUITE=sanitize

# The kiln tool and every test without the oneDNN backend: what a build
# without oneDNN gives (KILN_WITH_ONEDNN=OFF).
test-no-onednn: deps
	cmake -S . -B $(NO_ONEDNN_DIR) -G Ninja -DKILN_WITH_ONEDNN=OFF -DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR)) $(CMAKE_FLAGS)
	cmake --build $(NO_ONEDNN_DIR) -j $(JOBS)
	$(call run_suite,$(NO_ONEDNN_DIR),no-onednn)

# The runtime alone, as a device build has it (KILN_BUILD_AOT=OFF: the
# runtime, the kernels and the backends' runtime halves, none of the
# compiler's dependencies): its tests and the embed example.
test-runtime-only: deps
	cmake -S . -B $(RUNTIME_DIR) -G Ninja -DKILN_BUILD_AOT=OFF -DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR)) $(CMAKE_FLAGS)
	cmake --build $(RUNTIME_DIR) -j $(JOBS)
	$(call run_suite,$(RUNTIME_DIR),runtime-only)

# The runtime-only tree (as test-runtime-only builds it, without oneDNN)
# cross-built for aarch64 Linux with Debian's cross compiler and arm64
# libraries (scripts/install-cross-aarch64.sh, cmake/aarch64-linux-gnu.cmake).
AARCH64_DIR ?= build-aarch64
cross-aarch64:
	@bash scripts/install-deps.sh
	@bash scripts/install-cross-aarch64.sh
	cmake -S . -B $(AARCH64_DIR) -G Ninja -DCMAKE_TOOLCHAIN_FILE=$(abspath cmake/aarch64-linux-gnu.cmake) \
	  -DKILN_BUILD_AOT=OFF -DKILN_WITH_ONEDNN=OFF $(CMAKE_FLAGS)
	cmake --build $(AARCH64_DIR) -j $(JOBS)

# Its suite under qemu-aarch64-static (ctest runs every test program through
# the emulator): the unit tests, the tuned kernels' tests on a CPU with the
# dot product and on one without (both NEON paths), the embed example, the
# device kiln's test, and, against what the host's kiln gives
# (scripts/lower-fixtures.sh, with $(HOST_KILN): make test's tool, built
# here when it is not given), runtime_recorded_outputs_test and the device
# kiln's run (device_cli_test.sh) on ExecuTorch's .pte fixtures and every
# .pt2 fixture's cases, and the tiny Llama's greedy generation.
HOST_KILN ?=
test-aarch64: export KILN_PTE_CASES_DIR = $(abspath $(AARCH64_DIR))/pte-cases
test-aarch64: cross-aarch64
ifeq ($(HOST_KILN),)
	$(MAKE) --no-print-directory $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kiln
	bash scripts/lower-fixtures.sh $(BUILD_DIR)/bin/kiln $(KILN_PTE_CASES_DIR)
else
	bash scripts/lower-fixtures.sh $(HOST_KILN) $(KILN_PTE_CASES_DIR)
endif
	$(call run_suite,$(AARCH64_DIR),aarch64)

# The name of the phase that ran the tuned kernels alone under qemu.
test-kernels-aarch64: test-aarch64

# The tuned kernels' benchmark (bench/kernels/tuned_bench.cpp, a Release
# build of its own) beside the machine's read bandwidth and FMA peak.
BENCH_TUNED_DIR ?= build-bench-tuned
bench-tuned:
	cmake -S . -B $(BENCH_TUNED_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_AOT=OFF -DKILN_BUILD_TESTS=OFF \
	  -DKILN_WITH_ONEDNN=OFF -DKILN_BUILD_BENCH=ON
	cmake --build $(BENCH_TUNED_DIR) -j $(JOBS) --target kiln_tuned_bench
	bash bench/kernels/run_tuned_bench.sh $(BENCH_TUNED_DIR)

# The Python package as a user gets it: the wheel `pip wheel .` makes
# (scikit-build-core and nanobind of $(PYTHON_VENV), pyproject.toml) packed
# from make test's build directory, so nothing is compiled twice, installed
# into a new venv with pip; then the pytest suite on the installed package,
# run from outside the source tree. (`pip install .` alone builds in
# build-wheel-<tag>, from nothing.)
WHEEL_VENV ?= build/python-package-venv
python-package: build
	rm -rf $(WHEEL_VENV) $(BUILD_DIR)/wheel
	PIP_DISABLE_PIP_VERSION_CHECK=1 CMAKE_ARGS="-DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR)) $(CMAKE_FLAGS)" \
	  CMAKE_BUILD_PARALLEL_LEVEL=$(JOBS) $(PYTHON_VENV)/bin/pip wheel . --no-build-isolation --no-deps \
	  --wheel-dir $(BUILD_DIR)/wheel -C build-dir=$(BUILD_DIR)
	$${PYTHON:-python3} -m venv $(WHEEL_VENV)
	PIP_CONSTRAINT=$(CURDIR)/python/requirements-test.txt PIP_DISABLE_PIP_VERSION_CHECK=1 \
	  $(WHEEL_VENV)/bin/pip install --quiet $(BUILD_DIR)/wheel/kiln-*.whl $$(grep '^pytest==' python/requirements-test.txt)
	cd $(WHEEL_VENV) && PYTHONDONTWRITEBYTECODE=1 bin/python -c \
	  'import kiln, pathlib, sys; f = pathlib.Path(kiln.__file__).resolve(); \
	   assert f.is_relative_to(pathlib.Path(sys.prefix).resolve()), f"kiln imported from {f}, not the venv"; \
	   assert (f.parent / "_kiln.pyi").is_file(), "the wheel has no type stubs"; \
	   print("kiln", kiln.__version__, "from", f.parent, "backends", kiln.registered_backends())'
	cd $(WHEEL_VENV) && PYTHONDONTWRITEBYTECODE=1 bin/python -m pytest -q -p no:cacheprovider --import-mode=append $(CURDIR)/python/tests

# The suite of SUITE_DIR counted against SUITE's minimum (used above with the
# sanitizers' environment).
suite:
	$(call run_suite,$(SUITE_DIR),$(SUITE))

# Every libFuzzer target (clang, ASan + UBSan; the list is tests/fuzz), each
# for FUZZ_SECONDS, one after the other: the .pt2 reader, the zip reader, the
# .npz reader of `kiln run --inputs`, the runtime's Program/Method load +
# execute, OneDnnBackend's blob reader and graph builder, and the devtools'
# debug record (.kdbg), Kiln trace (.kdump) and ETDump (.etdp) readers. Seeds: the fixtures'
# .pt2 and .npz files, ExecuTorch's .pte fixtures, the .pte files `kiln lower`
# writes for every .pt2 fixture (portable, and delegated to DemoBackend), the
# blobs, records and traces of tests/fixtures/fuzz/seeds
# (tools/fixtures/generate_fuzz_seeds.py) and what the fuzzers found before
# (tests/fixtures/fuzz). What each target learns stays in
# $(FUZZ_DIR)/corpus/<target>, crashes land in $(FUZZ_DIR)/findings/<target>/,
# the output in $(FUZZ_DIR)/<target>.log. `make fuzz FUZZ_TARGETS=npz_fuzz`
# runs one. The test build replays every target's seeds and findings.
FUZZ_TARGETS ?= pt2_fuzz zip_archive_fuzz npz_fuzz pte_fuzz onednn_blob_fuzz debug_record_fuzz kiln_trace_fuzz etdump_fuzz
FUZZ_FLAGS ?= -max_len=262144 -rss_limit_mb=4096 -timeout=20
FUZZ_SEEDS_pt2_fuzz = pt2
FUZZ_SEEDS_zip_archive_fuzz = pt2 npz
FUZZ_SEEDS_npz_fuzz = npz
FUZZ_SEEDS_pte_fuzz = pte
FUZZ_SEEDS_onednn_blob_fuzz = onednn
FUZZ_SEEDS_debug_record_fuzz = kdbg
FUZZ_SEEDS_kiln_trace_fuzz = kdump
FUZZ_SEEDS_etdump_fuzz = etdp

fuzz: deps $(BUILD_DIR)/build.ninja
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_FUZZ=ON -DKILN_BUILD_TESTS=OFF -DKILN_DEPS_PREFIX=$(abspath $(DEPS_DIR))
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target $(FUZZ_TARGETS)
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kiln
	rm -rf $(FUZZ_DIR)/seeds
	mkdir -p $(FUZZ_DIR)/seeds/pt2 $(FUZZ_DIR)/seeds/npz $(FUZZ_DIR)/seeds/pte
	cp -r tests/fixtures/fuzz/seeds/onednn tests/fixtures/fuzz/seeds/kdbg tests/fixtures/fuzz/seeds/kdump tests/fixtures/fuzz/seeds/etdp $(FUZZ_DIR)/seeds/
	for f in tests/fixtures/*/*.npz; do cp $$f $(FUZZ_DIR)/seeds/npz/$$(echo $$f | tr / _); done
	cp tests/fixtures/fuzz/*.npy $(FUZZ_DIR)/seeds/npz/
	cp tests/fixtures/fuzz/kdbg_*.kdbg $(FUZZ_DIR)/seeds/kdbg/
	cp tests/fixtures/fuzz/kdump_*.kdump $(FUZZ_DIR)/seeds/kdump/
	cp tests/fixtures/fuzz/etdump_*.etdp $(FUZZ_DIR)/seeds/etdp/
	cp tests/fixtures/pte/*.pte tests/fixtures/fuzz/*.pte $(FUZZ_DIR)/seeds/pte/
	for f in tests/fixtures/*/*.pt2; do \
	  name=$$(echo $${f%.pt2} | tr / _); cp $$f $(FUZZ_DIR)/seeds/pt2/$$name.pt2; \
	  $(BUILD_DIR)/bin/kiln lower $$f -o $(FUZZ_DIR)/seeds/pte/$$name.pte > /dev/null \
	    || echo "warning: no .pte seed from $$f"; \
	  $(BUILD_DIR)/bin/kiln lower $$f --backend DemoBackend -o $(FUZZ_DIR)/seeds/pte/$$name.demo.pte > /dev/null \
	    || echo "warning: no delegated .pte seed from $$f"; \
	done
	status=0; \
	$(foreach t,$(FUZZ_TARGETS),\
	  mkdir -p $(FUZZ_DIR)/corpus/$(t) $(FUZZ_DIR)/findings/$(t); \
	  echo "== $(t): $(FUZZ_SECONDS) s, log in $(FUZZ_DIR)/$(t).log"; \
	  ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/bin/$(t) $(FUZZ_DIR)/corpus/$(t) \
	    $(addprefix $(FUZZ_DIR)/seeds/,$(FUZZ_SEEDS_$(t))) -artifact_prefix=$(FUZZ_DIR)/findings/$(t)/ \
	    -max_total_time=$(FUZZ_SECONDS) $(FUZZ_FLAGS) > $(FUZZ_DIR)/$(t).log 2>&1 \
	    || { status=1; echo "$(t) FOUND A PROBLEM:"; grep -A20 "ERROR" $(FUZZ_DIR)/$(t).log | head -40; }; \
	  grep -E "DONE|Done [0-9]+ runs" $(FUZZ_DIR)/$(t).log;) \
	exit $$status

# Times each lowering stage on synthetic programs of 10^3 to 10^5 nodes.
bench-lowering: deps $(BUILD_DIR)/build.ninja
	cmake -S . -B $(BUILD_DIR) -DKILN_BUILD_BENCH=ON > /dev/null
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kiln_lowering_bench
	$(BUILD_DIR)/bin/kiln_lowering_bench

# Stripped sizes of a minimal app on the runtime core + executor, with every
# kernel, and with only MobileNetV2's kernels (selective build), and of the
# tree's kiln tool when it makes one: a Markdown table (MinSizeRel, in
# $(SIZE_DIR)). SIZE_FLAGS passes options to tools/size/size.sh, e.g.
# SIZE_FLAGS="--toolchain cmake/aarch64-linux-gnu.cmake" SIZE_DIR=build-size-aarch64.
SIZE_DIR ?= build-size
SIZE_FLAGS ?=
size: deps
	JOBS=$(JOBS) bash tools/size/size.sh $(SIZE_FLAGS) $(SIZE_DIR)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(NO_ONEDNN_DIR) $(RUNTIME_DIR) $(FUZZ_DIR) $(SIZE_DIR) $(AARCH64_DIR) \
	  $(BENCH_TUNED_DIR) build-wheel-*
