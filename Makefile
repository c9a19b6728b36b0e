# Thin wrapper: `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup configure build demo test wheel fuzz clean

all: build

setup:
	@./cmake/setup-deps.sh

configure: setup
	@cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# The demo builds only the checker (not the tests) and checks the examples the way a project
# would: the CUDA project through its compilation database (configured, not built) when nvcc is there.
NVCC ?= /usr/local/cuda/bin/nvcc
demo: configure
	@cmake --build $(BUILD) -j $(JOBS) --target streamlint streamlint_cxx
	@$(BUILD)/bin/streamlint check --lang python,cpp examples/python examples/overlap examples/runtime || [ $$? -eq 1 ]
	@if [ -x $(NVCC) ]; then \
	  cmake -S examples/cuda-project -B $(BUILD)/demo-cuda-project -G Ninja -DCMAKE_CUDA_COMPILER=$(NVCC) >/dev/null && \
	  { $(BUILD)/bin/streamlint check -p $(BUILD)/demo-cuda-project || [ $$? -eq 1 ]; }; \
	else echo "make demo: no nvcc at $(NVCC): examples/cuda-project left out (it needs its compile database)"; fi

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# dist/streamlint-*.whl (checker, recorder, run/report; glibc only) and dist/streamlint_cxx-*.whl
# (the C/C++ frontend; needs LLVM 19's shared libraries): packaging/build_wheel.py.
wheel: configure
	@cmake --build $(BUILD) -j $(JOBS) --target streamlint streamlint_interposer streamlint_cxx
	@python3 packaging/build_wheel.py --build $(BUILD) --out dist --cxx

# libFuzzer on every parser of untrusted input (tests/fuzz): a clang + AddressSanitizer build in
# $(FUZZ_BUILD), each target fuzzed for FUZZ_SECONDS from tests/fuzz/corpus/. Crashes are written
# as crash-* in the current directory; once fixed, add the input to tests/fuzz/corpus/<target>/,
# which `make test` replays. Needs clang-19 and its libFuzzer (Debian: libclang-rt-19-dev).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= python slog sarif config baseline compiledb cache fixes
fuzz: setup
	@[ -e /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a ] || \
	  { echo "make fuzz: installing libclang-rt-19-dev (clang-19's libFuzzer)"; \
	    SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; $$SUDO apt-get install -y -qq libclang-rt-19-dev >/dev/null; }
	@cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSL_FUZZ=ON \
	  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
	@cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addprefix fuzz_,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$t $(FUZZ_BUILD)/seeds/$$t; \
	  ext=$$t; [ $$t = python ] && ext=py; \
	  find rules -name "*.$$ext" -exec cp {} $(FUZZ_BUILD)/seeds/$$t/ \; ; \
	  echo "make fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_BUILD)/bin/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -timeout=60 \
	    -print_final_stats=1 $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t $(FUZZ_BUILD)/seeds/$$t || exit 1; \
	done

clean:
	rm -rf $(BUILD)
