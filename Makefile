# Gatewire: the usual entry points. Every target installs what it needs first: the library's
# build and install targets what a user needs (scripts/install-deps.sh: Debian's libcurl,
# Jansson, zlib, libcrypto, CMake, pkg-config), the others what a developer needs on top
# (scripts/bootstrap.sh: test, bench and documentation tools and the project's .venv).
.PHONY: all deps bootstrap build wheel dist test test-asan test-tsan fuzz soak demo bench bench-smoke docs clean

all: build

deps:
	bash scripts/install-deps.sh

bootstrap:
	bash scripts/bootstrap.sh

# .build/lib/libGatewire.so* and .build/bin/gatewire, as CMake builds them (scripts/build.sh).
build: deps
	bash scripts/build.sh release .build .build

# dist/gatewire-VERSION-cp311-cp311-linux_x86_64.whl (with the C extension, for the .venv's
# interpreter) and dist/gatewire-VERSION-py3-none-linux_x86_64.whl (ctypes alone, any Python 3):
# the Python package with .build/lib's libGatewire.so inside (scripts/wheel.sh;
# docs/deployment.md, "The Python wheel").
wheel: build
	bash scripts/wheel.sh .build/lib dist

# dist/gatewire-VERSION-linux-ARCH.tar.gz: the install prefix of a Release CMake build in
# build/ (bin, include, lib with the symlinks, pkg-config and CMake package files), relocatable.
dist: deps
	cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
	cmake --build build
	bash scripts/dist.sh build dist

test:
	bash scripts/test.sh

# Sanitizers: the library and the C suites + a Python subset under ASan (UBSan on the C
# targets); the Swift suites under TSan.
test-asan:
	bash scripts/test-asan.sh

test-tsan:
	bash scripts/test-tsan.sh

# libFuzzer targets (fuzz/README.md), FUZZ_SECONDS each; the fault soak, SOAK_CALLS calls at
# 256 in flight.
FUZZ_SECONDS ?= 60
SOAK_CALLS ?= 100000

fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash scripts/fuzz.sh

soak:
	SOAK_CALLS=$(SOAK_CALLS) bash scripts/soak.sh

demo:
	bash scripts/demo.sh

# Gatewire against the raw-libcurl ceiling and the peers on a local nginx (bench/README.md);
# writes bench/results/latest.json and latest.md. bench-smoke: few requests, checks bodies only.
bench: bootstrap
	python3 bench/run.py

bench-smoke: bootstrap
	python3 bench/run.py --smoke

# The API references, offline, each failing on any warning: build/docs/c (Doxygen),
# build/docs/swift (DocC), build/docs/python (Sphinx); prints each index.html and time.
docs: bootstrap
	bash scripts/docs.sh

clean:
	rm -rf .build build build-asan build-tsan build-soak dist fuzz/.build bench/.build bench/swift/.build examples/swift-app/.build
