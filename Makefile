# Entry points promised by the README. Each installs missing packages first.
BUILD ?= build
JOBS ?= 2
BUILD_TYPE ?= Release

.PHONY: deps configure build run test bench format format-check clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > /dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

run: build
	$(BUILD)/steprdu run moe

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	$(BUILD)/steprdu bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

# Fails, naming the files, if any source differs from .clang-format (needs clang-format installed).
format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD)
