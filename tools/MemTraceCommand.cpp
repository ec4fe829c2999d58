// steprdu memtrace [<trace.csv>] --mem <preset> [--generate P ...] [--set key=value ...] [--json]
#include <fstream>
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hw/config/ConfigSchema.h"
#include "hw/config/HwConfigLoader.h"
#include "hw/mem/TierFactory.h"
#include "testbenches/units/MemTraceBench.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"
#include "util/ForkRun.h"
#include "util/Strings.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

// The memory section's controller keys, which memtrace takes without the "memory." prefix.
const std::vector<std::string> kControllerKeys = {"row_policy",    "read_queue", "write_queue",
                                                  "write_high",    "write_low",  "refresh",
                                                  "posted_writes", "fast_path",  "check_timing"};

std::vector<std::string> setKeys() {
    std::vector<std::string> k = {"channels", "mapping"};
    k.insert(k.end(), kControllerKeys.begin(), kControllerKeys.end());
    return k;
}

// Applies `key=value` to the DRAM spec (channels, mapping) or to the memory section's controller keys.
void applySet(const std::string& assignment, hw::mem::DramSpec& spec, hw::HwConfig& cfg) {
    auto eq = assignment.find('=');
    if (eq == std::string::npos)
        throw BadInput(
            fmt::format("--set {}: {}", assignment, expectedFound("<key>=<value>", "'" + assignment + "'")));
    const std::string key = trim(assignment.substr(0, eq)), text = trim(assignment.substr(eq + 1));
    if (key == "channels") {
        auto v = parseInt(text);
        if (!v || *v < 1 || *v > 1024)
            throw BadInput("--set channels: " + expectedFound("integer in [1, 1024]", "'" + text + "'"));
        spec.channels = static_cast<int>(*v);
        return;
    }
    if (key == "mapping") {
        auto names = hw::mem::AddressMapping::names();
        auto scheme = parseChoice(choices(hw::mem::MappingScheme{}), text);
        if (!scheme)
            throw BadInput("--set mapping: " +
                           expectedFound(fmt::format("one of {}", fmt::join(names, ", ")), "'" + text + "'"));
        spec.mapping = *scheme;
        return;
    }
    const hw::ConfigKey* k =
        std::find(kControllerKeys.begin(), kControllerKeys.end(), key) != kControllerKeys.end()
            ? hw::findConfigKey("memory." + key)
            : nullptr;
    if (!k) {
        throw BadInput(fmt::format("--set {}: unknown key{}; memtrace keys: {}", key,
                                   didYouMean(key, setKeys()), fmt::join(setKeys(), ", ")));
    }
    auto v = k->parse(text);
    if (!v) throw BadInput(fmt::format("--set {}: {}", key, expectedFound(k->expected(), "'" + text + "'")));
    k->set(cfg, *v);
}

std::int64_t byteSize(const std::string& option, const std::string& text) {
    auto v = parseByteSize(text);
    if (!v || *v < 1)
        throw BadInput(fmt::format("{}: {}", option,
                                   expectedFound("a byte count such as 4096 or 64MiB", "'" + text + "'")));
    return *v;
}

void printText(const nlohmann::json& r, const std::string& source) {
    auto d = [&](const char* k) { return r[k].get<double>(); };
    std::cout << fmt::format("memtrace: {} on {} ({})\n", source, r["preset"].get<std::string>(),
                             r["standard"].get<std::string>());
    std::cout << fmt::format("  {} channels, {}, {} row, {}\n", r["channels"].get<int>(),
                             r["mapping"].get<std::string>(), r["row_policy"].get<std::string>(),
                             r["fast_path"].get<bool>() ? "fast path" : "per-request path");
    std::cout << fmt::format("  simulated      {} DRAM cycles = {:.3f} us (tCK {} ps)\n",
                             r["dram_cycles"].get<std::int64_t>(), d("ns") / 1000, d("tck_ps"));
    std::cout << fmt::format("  bytes          read {}, written {} ({} requests)\n",
                             r["bytes_read"].get<std::int64_t>(), r["bytes_written"].get<std::int64_t>(),
                             r["requests"].get<std::int64_t>());
    std::cout << fmt::format("  bandwidth      {:.1f} B/cycle = {:.1f} GB/s of {:.1f} peak ({:.1f}%)\n",
                             d("bytes_per_cycle"), d("achieved_gb_per_s"), d("peak_gb_per_s"),
                             100 * d("bandwidth_fraction"));
    std::cout << fmt::format("  read latency   mean {:.1f} cycles ({:.1f} ns), p99 {} cycles ({:.1f} ns)\n",
                             d("read_latency_mean_cycles"), d("read_latency_mean_ns"),
                             r["read_latency_p99_cycles"].get<std::int64_t>(), d("read_latency_p99_ns"));
    std::cout << fmt::format("  rows           {} hits, {} misses, {} conflicts\n",
                             r["row_hits"].get<std::int64_t>(), r["row_misses"].get<std::int64_t>(),
                             r["row_conflicts"].get<std::int64_t>());
    std::cout << fmt::format("  refresh        {} refreshes, {:.1f}% of rank time\n",
                             r["refreshes"].get<std::int64_t>(), 100 * d("refresh_fraction"));
    if (r.contains("timing_violations"))
        std::cout << fmt::format("  timing check   {} commands, {} violations\n",
                                 r["timing_checked_commands"].get<std::int64_t>(),
                                 r["timing_violations"].get<std::int64_t>());
    std::cout << fmt::format(
        "  wall           {:.3f} s ({:.3g} DRAM cycles/s)\n", d("wall_seconds"),
        d("wall_seconds") > 0 ? double(r["dram_cycles"].get<std::int64_t>()) / d("wall_seconds") : 0.0);
}

} // namespace

int cmdMemTrace(const Args& args) {
    std::string mem, pattern, save, bytes = "64MiB", requestBytes = "64", span = "1GiB";
    double writeFraction = -1;
    std::uint64_t seed = 1;
    std::vector<std::string> sets, positional;
    bool completions = false;
    Flags f;
    po::options_description opts("memtrace options");
    addFlags(opts, f, true, false);
    opts.add_options()(
        "mem", po::value(&mem),
        "memory preset: hbm2, hbm2e, ddr4, ddr5, or a hardware preset's HBM tier (sn40l, tiny)")(
        "generate", po::value(&pattern),
        "generate the trace instead of reading one: sequential | random | mixed")(
        "bytes", po::value(&bytes)->default_value("64MiB"), "generated: bytes in all")(
        "request-bytes", po::value(&requestBytes)->default_value("64"), "generated: bytes per request")(
        "span", po::value(&span)->default_value("1GiB"), "generated random/mixed: addresses in [0, span)")(
        "write-fraction", po::value(&writeFraction), "generated: share of writes (default 0; mixed 0.5)")(
        "seed", po::value(&seed)->default_value(1),
        "generated: random seed")("save", po::value(&save), "write the generated trace to this CSV file")(
        "set", po::value(&sets)->composing(),
        "channels=N, mapping=RoBaRaCoCh|RoBaRaCoCh-perm|ChRaBaRoCo|MOP4, or a memory controller key without "
        "its 'memory.' "
        "prefix: row_policy, read_queue, write_queue, write_high, write_low, refresh, posted_writes, "
        "fast_path, "
        "check_timing")("completions", po::bool_switch(&completions),
                        "with --json: every request's completion cycle");
    if (parseOrHelp(
            "memtrace", args, opts, &positional, f,
            "A DRAM tier alone, driven by a trace of `cycle,op,address,bytes` lines (cycles in DRAM "
            "cycles;\n0 = as soon as the controller accepts): simulated time, bandwidth, read latency, "
            "row hits.\ndocs/memory.md describes the format, the outputs and the presets."))
        return 0;
    if (mem.empty())
        throw BadInput("steprdu memtrace: --mem: " +
                       expectedFound("a memory preset (" +
                                         fmt::format("{}", fmt::join(hw::mem::dramPresetNames(), ", ")) + ")",
                                     "nothing"));
    if (positional.size() > 1 || (positional.empty() == pattern.empty()))
        throw BadInput("steprdu memtrace: " +
                       expectedFound("one trace file or --generate", positional.empty()      ? "neither"
                                                                     : positional.size() > 1 ? "several files"
                                                                                             : "both"));
    // A hardware preset stands for its HBM tier; otherwise a DRAM preset by name.
    hw::HwConfig cfg;
    hw::mem::DramSpec spec;
    auto presets = hw::presetNames();
    if (std::find(presets.begin(), presets.end(), mem) != presets.end()) {
        cfg = hw::loadHwConfig(mem);
        if (cfg.memory.hbm.model != hw::TierDevice::Model::Dram)
            throw BadInput(
                fmt::format("--mem {}: {}", mem,
                            expectedFound("a DRAM model", "the hardware preset's HBM tier is the published "
                                                          "simulator's node (memory.hbm = step_node)")));
        spec = hw::tierSpec(cfg, hw::Tier::Hbm);
    } else {
        try {
            spec = hw::mem::dramPreset(mem);
        } catch (const BadInput& e) {
            throw BadInput(std::string("--mem: ") + e.what());
        }
    }
    for (const auto& s : sets)
        applySet(s, spec, cfg);
    hw::mem::MemTraceOptions o;
    o.spec = spec;
    o.memory = hw::mem::memoryOptions(cfg, spec);
    o.fastPath = cfg.memory.fast_path;
    o.completions = completions;
    traces::MemTrace trace;
    if (!pattern.empty()) {
        traces::MemTraceGenerator g;
        g.pattern = pattern;
        g.bytes = byteSize("--bytes", bytes);
        g.requestBytes = byteSize("--request-bytes", requestBytes);
        g.span = byteSize("--span", span);
        g.writeFraction = writeFraction;
        g.seed = seed;
        trace = traces::generateMemTrace(g);
        for (const auto& r : trace.requests)
            if (r.address % spec.transactionBytes) {
                throw BadInput(fmt::format(
                    "--request-bytes {}: {}", g.requestBytes,
                    expectedFound(fmt::format("a multiple of the {}-byte transaction", spec.transactionBytes),
                                  std::to_string(g.requestBytes))));
            }
        if (!save.empty()) {
            std::ofstream out(save);
            if (!out) throw BadInput(fmt::format("--save {}: cannot open for writing", save));
            traces::writeMemTrace(trace, out);
        }
    } else {
        trace = traces::readMemTrace(positional[0], spec.transactionBytes);
    }
    nlohmann::json r = runInChild([&] { return hw::mem::runMemTrace(o, trace); });
    r["trace"] = trace.source;
    if (f.json) {
        std::cout << r.dump(2) << "\n";
        return 0;
    }
    printText(r, trace.source);
    if (r.contains("timing_violations") && r["timing_violations"].get<std::int64_t>() > 0)
        for (const auto& e : r["timing_violation_examples"])
            std::cout << "    " << e.get<std::string>() << "\n";
    return 0;
}

} // namespace steprdu::cli
