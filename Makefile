# Gatewire: the usual entry points. Every target installs what it needs first
# (scripts/bootstrap.sh: Debian packages and the project's .venv).
.PHONY: all bootstrap build test demo clean

all: build

bootstrap:
	bash scripts/bootstrap.sh

build: bootstrap
	swift build -c release

test:
	bash scripts/test.sh

demo:
	bash scripts/demo.sh

clean:
	rm -rf .build build
