# gpumat: convenience targets around CMake.  README's two commands are
# `make demo` and `make test`; both install missing Debian packages first.
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
LUA ?= lua5.4
export LUA_PATH := lua/?.lua;lua/?/init.lua;;
export LUA_CPATH := $(BUILD)/?.so;;

.PHONY: deps build demo test test-asan test-gc-full bench clean oracle fuzz

deps:
	@tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	$(LUA) examples/tour.lua

test: deps
	tools/test.sh

# The suite under a collector that runs a whole cycle at every allocation
# (spec/helper.lua): the strongest lifetime check, about 18 minutes.
test-gc-full: build
	tools/run-specs.sh $(BUILD) GPUMAT_TEST_GC=full

test-asan: deps
	cmake -S . -B build-asan -DGPUMAT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build build-asan -j $(JOBS)
	tools/run-specs.sh build-asan LD_PRELOAD=$$(gcc -print-file-name=libasan.so) \
	  ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

bench: build
	$(LUA) bench/run.lua $(BENCH_ARGS)

# NumPy differential oracle, long run: 34 seeds x 150 programs on the host
# and on the emulated device (10,200 programs).
oracle: build
	tools/oracle/run.sh $(BUILD) 150 34 1000

# Hostile-input fuzzer, long run under ASan+UBSan: 50 seeds x 20,000 calls
# on the host and on the emulated device (2 million calls).
fuzz: deps
	cmake -S . -B build-asan -DGPUMAT_SANITIZE=ON -DGPUMAT_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
	cmake --build build-asan -j $(JOBS)
	tools/fuzz-run.sh build-asan 50 20000 1000 LD_PRELOAD=$$(gcc -print-file-name=libasan.so) \
	  ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1:allocator_may_return_null=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

clean:
	rm -rf build build-asan
