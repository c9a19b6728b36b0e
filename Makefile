# Thin wrapper: `make demo` and `make test` do all set-up on a fresh Debian 12 machine.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup configure build demo test wheel clean

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
	@$(BUILD)/bin/streamlint check examples/python examples/overlap examples/runtime || [ $$? -eq 1 ]
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

clean:
	rm -rf $(BUILD)
