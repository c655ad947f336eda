# klap: the two commands a new user needs are `make demo` and `make test`.
CARGO ?= cargo

.PHONY: setup build demo test valgrind-lit gpu-bins bench-bins fuzz-bins clean

setup:
	bash scripts/setup-toolchain.sh

build: setup
	$(CARGO) build --release

# The main job: the launch report of the bundled example, then the example built with klap.
demo: build
	target/release/klap report examples/hello/hello.cu
	mkdir -p build
	scripts/klap-clang++ -O2 -Rpass=klap examples/hello/hello.cu -o build/hello
	@echo "built build/hello (run it on a GPU: it prints PASS)"

# Unit tests and every lit test under test/ (FileCheck, ptxas, nvlink; no GPU needed).
test: build
	$(CARGO) test --release -- --nocapture

# The lit tests' opt runs under valgrind (reads of freed or uninitialised memory the tests cannot see; slow:
# about 20 minutes on two cores). Not part of `make test`.
valgrind-lit: build
	scripts/valgrind-lit.sh -j $(or $(JOBS),2)

# The GPU test programs at each granularity, into .gpu/tests/<mode>/ (run them with
# scripts/gpu-compare.sh on a GPU machine), those of the device runtime's limits into .gpu/limits/<mode>/
# (KLAP_GPU_TEST_DIR=test/gpu-limits test/gpu/run.sh .gpu/limits/<mode>: PASS but at none,
# test/gpu-limits/README.md), and the runtime's racecheck harness into .gpu/race/.
MODES ?= none warp block grid auto
gpu-bins: build
	for m in $(MODES); do \
	  test/gpu/build.sh .gpu/tests/$$m -fpass-plugin=$(CURDIR)/target/release/libklap.so -mllvm -klap-granularity=$$m; \
	  KLAP_GPU_TEST_DIR=test/gpu-limits test/gpu/build.sh .gpu/limits/$$m \
	    -fpass-plugin=$(CURDIR)/target/release/libklap.so -mllvm -klap-granularity=$$m; \
	  for p in examples/hello/hello.cu test/gpu-abi/named_streams.cu; do \
	    scripts/klap-clang++ -O2 -mllvm -klap-granularity=$$m $$p -o .gpu/tests/$$m/$$(basename $$p .cu); \
	  done; \
	  scripts/klap-clang++ -O2 -mllvm -klap-granularity=$$m test/gpu/two_units/parent.cu test/gpu/two_units/child.cu \
	    -o .gpu/tests/$$m/two_units; \
	  scripts/klap-clang++ --at-link -O2 -mllvm -klap-granularity=$$m test/gpu/two_units/parent.cu test/gpu/two_units/child.cu \
	    -o .gpu/tests/$$m/two_units_at_link; \
	done
	mkdir -p .gpu/race
	scripts/klap-clang++ --no-klap -O2 test/gpu-race/runtime_race.cu -o .gpu/race/runtime_race

# Every benchmark in every variant, without a GPU: untransformed CDP (`none`), klap warp, block and
# grid, and flat, into .gpu/bench/<variant>/; the nested benchmark with its hand-written versions into
# .gpu/nested/; the inputs copied to .gpu/data for the trip. On the GPU: scripts/gpu-bench.sh.
bench-bins: build
	for m in $(MODES); do \
	  examples/build.sh .gpu/bench/$$m -fpass-plugin=$(CURDIR)/target/release/libklap.so -mllvm -klap-granularity=$$m; \
	  examples/nested/build.sh .gpu/nested/$$m -fpass-plugin=$(CURDIR)/target/release/libklap.so -mllvm -klap-granularity=$$m; \
	done
	examples/build.sh .gpu/bench/flat --flat
	examples/nested/build.sh .gpu/nested/hand --others
	rm -f .gpu/nested/hand/nested_cdp
	strip .gpu/bench/*/* .gpu/nested/*/*
	rm -rf .gpu/data && cp -r ../shared/data .gpu/data

# Random CDP programs (fuzz/gen.py): N programs of CASES cases each, from seeds SEED..SEED+N-1,
# built in every mode into .gpu/fuzz/<mode>/ with klap's remarks beside them (JOBS compiles at
# once); prints the share of launch sites each mode aggregated. On a GPU: scripts/gpu-fuzz.sh.
# KLAP_PLUGIN=<libklap.so> builds with that plugin instead of building this one. Promotion alone:
# MODES="none promote-all promote-overlap auto" FUZZ_CHAINS_ONLY=1 (each seed's chain cases only).
fuzz-bins: $(if $(KLAP_PLUGIN),,build)
	MODES="$(MODES)" KLAP_PLUGIN="$(or $(KLAP_PLUGIN),$(CURDIR)/target/release/libklap.so)" FUZZ_CHAINS_ONLY="$(FUZZ_CHAINS_ONLY)" \
	  fuzz/build.sh .gpu/fuzz $(or $(N),10) $(or $(CASES),100) $(or $(SEED),1)

clean:
	$(CARGO) clean
	rm -rf build .gpu
