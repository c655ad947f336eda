# klap: the two commands a new user needs are `make demo` and `make test`.
CARGO ?= cargo

.PHONY: setup build demo test gpu-bins clean

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

# Binaries for the GPU machine, untransformed and with klap, into .gpu/ (carried by the device tool).
gpu-bins: build
	mkdir -p .gpu
	for p in examples/hello/hello.cu test/gpu-abi/named_streams.cu; do \
	  n=$$(basename $$p .cu); \
	  scripts/klap-clang++ --no-klap -O2 $$p -o .gpu/$${n}_plain; \
	  scripts/klap-clang++ -O2 $$p -o .gpu/$${n}_klap; \
	done

clean:
	$(CARGO) clean
	rm -rf build .gpu
