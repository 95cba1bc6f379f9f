# parac — the two commands a user needs are `make demo` and `make test`.
# Everything goes through CMake in build/ (CLI at build/parac).
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all build deps test demo bench install clean fuzz tsan

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

# `make bench BENCH_ARGS=--quick` for smaller sizes; data sets from tests/data unless PARAC_DATA is set.
bench: build
	@PARAC_DATA="$${PARAC_DATA:-$(CURDIR)/tests/data}" BENCH_ARGS="$(BENCH_ARGS)" bench/run $(BUILD)

# `make fuzz FUZZ_SECONDS=60`: builds build-fuzz (clang, ASan + UBSan + libFuzzer) and runs every
# fuzz/fuzz_*.c target that long (FUZZ_FILTER=regex for some); docs/RELIABILITY.md.
FUZZ_SECONDS ?= 60
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/lib/fuzz.sh

# `make tsan`: build-tsan (clang -fsanitize=thread, LLVM's OpenMP) and the tests labelled tsan.
tsan:
	@scripts/lib/tsan.sh

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD)
