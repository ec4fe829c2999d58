# Entry points promised by the README. Each installs missing packages first.
BUILD ?= build
JOBS ?= 2
BUILD_TYPE ?= Release
DIFFTEST_COUNT ?= 20000
DIFFTEST_SEED ?= 1

.PHONY: deps configure build steprdu run test sanitize-configure sanitize fuzz difftest paper bench format format-check clean

deps:
	@scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) > /dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

# Only the binary: a first `make run` compiles no test.
steprdu: configure
	@cmake --build $(BUILD) -j$(JOBS) --target steprdu

run: steprdu
	$(BUILD)/steprdu compare moe --quiet

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# One instrumented tree (clang, ASan, UBSan, coverage hooks) serves both `sanitize` and `fuzz`.
SANITIZE_BUILD ?= build-sanitize
sanitize-configure: deps
	@scripts/install-deps.sh clang libclang-rt-14-dev
	@cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" -DSTEPRDU_FUZZ=ON > /dev/null

# The tests under ASan and UBSan (-O1 keeps them quick), but those matched by SANITIZE_EXCLUDE: the 32 that
# take over 3 s each in the Release build but DiffTest.FortyPrograms (465 of the 520 test-seconds outside
# Python): golden runs that repeat at full size code that the other 328 run small (docs/testing.md).
SANITIZE_EXCLUDE ?= ^(TbClaims\.EveryPaperClaim|RooflineCalibration\.PublishedReferencePoints|Sn40lExperiments\.Fig10|CycleEndToEnd\.(PaperWorkloads|ThePapersDirections|FunctionalRuns|RunsAreDeterministic|NothingBeats|FlitLevelFabric|MulticastPackets)|DiffTest\.(FiveHundredRandomPrograms|AFaultOnTheCycleBackend)|CliPnr\.(TheFloorplanColours|WritesTheReport|ARunReuses|SimulatedEvaluation)|ProcessOrder\.(CyclesAndStats|WhenACompletion)|Sections\.ALayerTooLarge|Sweep\.(AKilledSweep|GnuParallel|OneAndTwoLocalJobs)|PnrPlacement\.(LegalAndDeterministic|SeveralStarts|AnnealingImproves|ThePlacementInPnrJson|APlacementOfAnother)|PaperFigures\.ReducedSweeps|RdnMeshTraffic\.UniformRandom|DramChecker\.ALongRandom|PnrRouting\.RoutesConnect|CliCycleErrors\.APmuOverflow)
sanitize: sanitize-configure
	@cmake --build $(SANITIZE_BUILD) -j$(JOBS)
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		ctest --output-on-failure -j$(JOBS) -E '$(SANITIZE_EXCLUDE)'

# The libFuzzer targets run FUZZ_SECONDS each from the seed corpora in tests/fuzz/corpus.
FUZZ_SECONDS ?= 20
fuzz: sanitize-configure
	@cmake --build $(SANITIZE_BUILD) -j$(JOBS) --target fuzz_hw_config fuzz_traces fuzz_memtrace fuzz_graph \
		fuzz_program fuzz_program_file
	scripts/fuzz.sh $(SANITIZE_BUILD) $(FUZZ_SECONDS)

# The long differential test: DIFFTEST_COUNT random programs on every executor (one die tile of step_eval).
difftest: steprdu
	$(BUILD)/steprdu difftest --count $(DIFFTEST_COUNT) --seed $(DIFFTEST_SEED) --out $(BUILD)/difftest \
		--set chip.dies=1 --set chip.die_tile_rows=1 --set chip.die_tile_cols=1

# The paper's figures: every experiment swept on both backends, drawn as PNGs, results/paper.md.
paper: steprdu
	scripts/paper.sh $(BUILD)/steprdu results $(JOBS)

bench: steprdu
	$(BUILD)/steprdu bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

# Fails, naming the files, if any source differs from .clang-format (needs clang-format installed).
format-check:
	clang-format --dry-run --Werror $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf $(BUILD)
