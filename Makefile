# parac — the two commands a user needs are `make demo` and `make test`.
# Everything goes through CMake in build/ (CLI at build/parac).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all build deps test demo bench install clean

all: build

build:
	@mkdir -p $(BUILD) && cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS) > $(BUILD)/configure.log 2>&1 || { cat $(BUILD)/configure.log; exit 1; }
	@cmake --build $(BUILD) -j $(JOBS)

deps:
	@scripts/install-deps

test: deps build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_FLAGS)

demo: deps build
	@scripts/demo $(BUILD)/parac

# `make bench BENCH_ARGS=--quick` for smaller sizes.
bench: build
	@BENCH_ARGS="$(BENCH_ARGS)" bench/run $(BUILD)

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
