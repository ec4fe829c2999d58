// Structure-aware: the input's bytes are the choices of the random-program generator (buildFuzzProgram), so
// every input is a program built through GraphBuilder, valid or made wrong by mutated tile sizes, ranks,
// strides, functions, init tiles and the like. The builder must refuse a wrong program with BadInput; an
// accepted one must run alike on the interpreter and the roofline backend, and on one input in
// STEPRDU_FUZZ_CHIP_EVERY (default 8, 0 = never) on the cycle-level chip (one die tile of step_eval, in a
// child process) with the interpreter's bits. Anything else is a finding and stops the fuzzer
// (__builtin_trap), as do sanitizer reports. docs/testing.md gives the rules in full.
//
// To replay an input: `fuzz_program <file>`; with STEPRDU_FUZZ_VERBOSE=1 it also prints how each step ended
// and writes the accepted program as a graph file, fuzz-program.json (`steprdu run-graph` runs it).
//
// STEPRDU_FUZZ_STATS=<file> keeps a JSON summary there (executions, what reached each executor, every
// distinct refusal with digits and quoted names masked), rewritten every 200 inputs.
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <typeinfo>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hw/config/HwConfigLoader.h"
#include "step_ops/Interpreter.h"
#include "step_ops/Metrics.h"
#include "testbenches/DiffTest.h"
#include "testbenches/RandomProgram.h"
#include "util/Error.h"

namespace {

using namespace steprdu;

// How one executor's run ended: a refusal at run time (BadInput, which only data seen at run time may
// cause) and a deadlock are outcomes the rules below weigh; any other exception is a finding.
struct Outcome {
    enum class End { Finished, Refused, Deadlocked } end = End::Finished;
    std::string message;
    std::int64_t offChipBytes = 0;
};

struct Stats {
    std::int64_t executions = 0, accepted = 0, refused = 0, interp = 0, roofline = 0, chip = 0;
    std::int64_t mutated = 0, deadlocks = 0, runtimeRefusals = 0, chipUnfinished = 0;
    std::map<std::string, std::int64_t> refusals, runtime; // masked message -> count

    void save() const {
        const char* path = std::getenv("STEPRDU_FUZZ_STATS");
        if (!path) return;
        nlohmann::json j{{"executions", executions},
                         {"accepted", accepted},
                         {"refused_at_build", refused},
                         {"accepted_with_mutations", mutated},
                         {"ran_interp", interp},
                         {"ran_roofline", roofline},
                         {"ran_chip", chip},
                         {"deadlocks", deadlocks},
                         {"run_time_refusals", runtimeRefusals},
                         {"chip_refused_or_deadlocked", chipUnfinished},
                         {"distinct_refusals", refusals.size()},
                         {"refusals", refusals},
                         {"distinct_run_time_refusals", runtime.size()},
                         {"run_time", runtime}};
        std::ofstream(path) << j.dump(1) << "\n";
    }
};

Stats& stats() {
    static Stats s;
    return s;
}

// A refusal's kind: the message with numbers and quoted names masked, so that the same check on other
// sizes or operators counts once.
std::string masked(const std::string& msg) {
    static const std::regex quoted("'[^']*'"), number("-?[0-9]+");
    return std::regex_replace(std::regex_replace(msg, quoted, "'_'"), number, "N");
}

bool verbose() {
    static const bool v = std::getenv("STEPRDU_FUZZ_VERBOSE") != nullptr;
    return v;
}

void say(const std::string& what) {
    if (verbose()) std::fprintf(stderr, "fuzz_program: %s\n", what.c_str());
}

[[noreturn]] void finding(const std::string& what) {
    std::fprintf(stderr, "fuzz_program: finding: %s\n", what.c_str());
    std::fflush(stderr);
    __builtin_trap();
}

// Function::apply's extent guards: they stand behind the build-time checks, so reaching one means a
// validation gap, not a run-time condition.
bool extentGuard(const std::string& msg) {
    return msg.find("function ") != std::string::npos && msg.find("is full") == std::string::npos;
}

template <class F> Outcome runOn(const char* executor, F&& run) {
    Outcome o;
    try {
        o.offChipBytes = run();
    } catch (const NoProgress& e) {
        o = {Outcome::End::Deadlocked, e.what(), 0};
    } catch (const BadInput& e) {
        if (extentGuard(e.what())) finding(fmt::format("{}: an extent guard fired: {}", executor, e.what()));
        o = {Outcome::End::Refused, e.what(), 0};
    } catch (const std::exception& e) {
        finding(fmt::format("{}: {} ({})", executor, e.what(), typeid(e).name()));
    }
    return o;
}

const hw::HwConfig& chipConfig() {
    static const hw::HwConfig cfg = [] {
        auto c = hw::loadHwConfig("step_eval");
        for (const char* s : {"chip.dies=1", "chip.die_tile_rows=1", "chip.die_tile_cols=1"})
            hw::applyOverride(c, s);
        return c;
    }();
    return cfg;
}

std::int64_t chipEvery() {
    static const std::int64_t n = [] {
        const char* v = std::getenv("STEPRDU_FUZZ_CHIP_EVERY");
        return v ? std::atoll(v) : 8;
    }();
    return n;
}

// FNV-1a of the input: which inputs go to the chip is a property of the input, so a finding replays.
std::uint64_t hashOf(const std::uint8_t* data, std::size_t size) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < size; ++i)
        h = (h ^ data[i]) * 1099511628211ull;
    return h;
}

void check(const std::uint8_t* data, std::size_t size) {
    Stats& st = stats();
    const auto build = [&] {
        tb::ByteChoices choices(data, size);
        return tb::buildFuzzProgram(choices);
    };
    tb::RandomProgram p;
    try {
        p = build();
    } catch (const BadInput& e) {
        say(std::string("refused: ") + e.what());
        ++st.refused;
        ++st.refusals[masked(e.what())];
        return;
    } catch (const std::exception& e) {
        finding(fmt::format("build: {} ({})", e.what(), typeid(e).name()));
    }
    ++st.accepted;
    const bool mutated = p.mutations > 0;
    if (verbose()) {
        say(fmt::format("accepted, {} operators, {} mutations; written to fuzz-program.json",
                        p.graph.numOps(), p.mutations));
        std::ofstream("fuzz-program.json") << tb::randomProgramJson(p).dump(1) << "\n";
    }
    st.mutated += mutated;
    const auto workload = [&](tb::RandomProgram prog) {
        tb::Workload w;
        w.graph = std::move(prog.graph);
        w.bindings = std::move(prog.bindings);
        w.channelDepth = 2;
        return w;
    };

    // The symbolic metrics: computed on every accepted program; bound (and checked) only where the
    // generator's bindings are exact.
    std::optional<std::int64_t> symbolic;
    try {
        const auto m = step::analyzeGraph(p.graph);
        if (!mutated) symbolic = step::bindMetrics(p.graph, m, p.bindings).offChipBytes;
    } catch (const std::exception& e) {
        finding(fmt::format("metrics: {} ({})", e.what(), typeid(e).name()));
    }

    ++st.interp;
    step::Interpreter interp(true);
    step::InterpreterResult ir;
    tb::Workload golden = workload(build());
    const Outcome in = runOn("interp", [&] {
        ir = interp.run(golden.graph);
        return ir.offChipReadBytes + ir.offChipWriteBytes;
    });
    ++st.roofline;
    const Outcome rf = runOn("roofline", [&] {
        tb::Workload w = workload(build());
        auto o = tb::rooflineOptions(chipConfig(), w);
        o.watchdogCycles = 1'000'000;
        auto r = roofline::RooflineSimulator(o).run(w.graph);
        return r.offChipReadBytes + r.offChipWriteBytes;
    });

    using End = Outcome::End;
    const char* ends[] = {"finished", "refused", "deadlocked"};
    say(fmt::format("interp {} {}; roofline {} {}", ends[int(in.end)], in.message, ends[int(rf.end)],
                    rf.message));
    // A program the generator did not mutate is valid and deadlock-free by construction (difftest's
    // guarantee). A mutated one may deadlock: on the roofline alone when its bounded streams are the cause
    // (the interpreter's are not bounded), never on the interpreter alone.
    for (const auto* o : {&in, &rf})
        if (o->end != End::Finished && !mutated)
            finding(fmt::format("{} of a program without mutations: {}", o == &in ? "interp" : "roofline",
                                o->message));
    if (in.end == End::Refused || rf.end == End::Refused) {
        if (in.end != rf.end)
            finding(fmt::format("a run-time refusal on one executor only: interp '{}', roofline '{}'",
                                in.message, rf.message));
        ++st.runtimeRefusals;
        ++st.runtime[masked(in.message)];
        return;
    }
    if (in.end == End::Deadlocked && rf.end != End::Deadlocked)
        finding("the interpreter deadlocks, the roofline finishes: " + in.message);
    if (in.end != End::Finished || rf.end != End::Finished) {
        ++st.deadlocks;
        return;
    }
    if (in.offChipBytes != rf.offChipBytes)
        finding(fmt::format("off-chip bytes: interp {}, roofline {}", in.offChipBytes, rf.offChipBytes));
    if (symbolic && *symbolic != in.offChipBytes)
        finding(fmt::format("off-chip bytes: symbolic {}, interp {}", *symbolic, in.offChipBytes));

    if (chipEvery() <= 0 || hashOf(data, size) % static_cast<std::uint64_t>(chipEvery()) != 0) return;
    ++st.chip;
    nlohmann::json r;
    const Outcome cy = runOn("cycle", [&] {
        r = tb::runCycleInChild(
            [&] {
                // The sizes the interpreter saw are exact where a mutation left the generator's guesses.
                tb::Workload w = workload(build());
                for (const auto& [sym, n] : ir.observedSizes)
                    w.bindings[sym] = n;
                return w;
            },
            chipConfig());
        return r["off_chip_bytes"].get<std::int64_t>();
    });
    say(fmt::format("cycle {} {}", ends[int(cy.end)], cy.message));
    if (cy.end == End::Deadlocked && !mutated) finding("cycle of a program without mutations: " + cy.message);
    if (cy.end != End::Finished) {
        // Place and route may refuse a graph the chip cannot hold; a mutated program may deadlock on the
        // chip's bounded streams.
        ++st.chipUnfinished;
        ++st.runtime[masked("cycle: " + cy.message)];
        return;
    }
    if (cy.offChipBytes != in.offChipBytes)
        finding(fmt::format("off-chip bytes: interp {}, cycle {}", in.offChipBytes, cy.offChipBytes));
    if (auto d = tb::firstDifference(golden.graph, interp.memory(), r["tensors"]); !d.empty())
        finding("cycle: " + d);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(data, size);
    Stats& st = stats();
    if (++st.executions % 200 == 0) st.save();
    return 0;
}
