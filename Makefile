# The front door: `make demo` and `make test` do the whole set-up on a fresh
# Debian machine; `make` builds. See README.md.

BUILD_DIR ?= build
SANITIZE_DIR ?= build-sanitize
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=

FUZZ_DIR ?= build-fuzz
FUZZ_SECONDS ?= 600

.PHONY: all build deps demo test test-sanitize fuzz clean bench-lowering size

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS)

demo: build
	$(BUILD_DIR)/bin/kiln demo

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-sanitize: deps
	cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DKILN_SANITIZE=ON $(CMAKE_FLAGS)
	cmake --build $(SANITIZE_DIR) -j $(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(SANITIZE_DIR) --output-on-failure -j $(JOBS)

# The .pt2 reader under libFuzzer (clang, ASan + UBSan) for FUZZ_SECONDS,
# seeded with the fixtures; findings land in $(FUZZ_DIR)/findings.
fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_FUZZ=ON -DKILN_BUILD_TESTS=OFF
	cmake --build $(FUZZ_DIR) -j $(JOBS) --target pt2_fuzz
	mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/findings
	for f in tests/fixtures/*/*.pt2; do cp $$f $(FUZZ_DIR)/corpus/$$(echo $$f | tr / _); done
	ASAN_OPTIONS=detect_leaks=1 $(FUZZ_DIR)/bin/pt2_fuzz $(FUZZ_DIR)/corpus -artifact_prefix=$(FUZZ_DIR)/findings/ \
	  -max_total_time=$(FUZZ_SECONDS) -max_len=262144 -rss_limit_mb=4096 -timeout=20

# Times each lowering stage on synthetic programs of 10^3 to 10^5 nodes.
bench-lowering: deps $(BUILD_DIR)/build.ninja
	cmake --build $(BUILD_DIR) -j $(JOBS) --target kiln_lowering_bench
	$(BUILD_DIR)/bin/kiln_lowering_bench

# Stripped sizes of a minimal app on the runtime core + executor, and with the
# portable kernels (MinSizeRel, in $(SIZE_DIR)).
SIZE_DIR ?= build-size
size: deps
	JOBS=$(JOBS) bash tools/size/size.sh $(SIZE_DIR)

clean:
	rm -rf $(BUILD_DIR) $(SANITIZE_DIR) $(FUZZ_DIR) $(SIZE_DIR)
