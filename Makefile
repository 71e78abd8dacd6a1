# Gatewire: the usual entry points. Every target installs what it needs first
# (scripts/bootstrap.sh: Debian packages and the project's .venv).
.PHONY: all bootstrap build test demo bench bench-smoke clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

# .build/lib/libGatewire.so* and .build/bin/gatewire, as CMake builds them (scripts/build.sh).
build: bootstrap
	bash scripts/build.sh release .build .build

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

# Gatewire against the raw-libcurl ceiling and the peers on a local nginx (bench/README.md);
# writes bench/results/latest.json and latest.md. bench-smoke: few requests, checks bodies only.
bench: bootstrap
	python3 bench/run.py

bench-smoke: bootstrap
	python3 bench/run.py --smoke

clean:
	rm -rf .build build bench/.build bench/swift/.build
