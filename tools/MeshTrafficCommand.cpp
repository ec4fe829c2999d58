// steprdu meshtraffic --pattern P --rate R [--packet-flits N] [--mesh KxK|chip] [--cycles N] [--warmup N]
//                     [--seed S] [--flit-level] [--hw ..] [--set ..] [--json]
#include <iostream>
#include <regex>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "hw/config/HwConfigLoader.h"
#include "testbenches/units/MeshTraffic.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"
#include "util/ForkRun.h"

namespace po = boost::program_options;

namespace steprdu::cli {

int cmdMeshTraffic(const Args& args) {
    hw::TrafficOptions o;
    std::string hwName, mesh = "8x8";
    std::vector<std::string> sets;
    Flags f;
    po::options_description opts("meshtraffic options");
    addFlags(opts, f, true, false);
    opts.add_options()(
        "pattern", po::value(&o.pattern)->default_value("uniform"),
        "uniform | transpose (square meshes) | bitcomp (power-of-two nodes) | hotspot (10% to the centre)")(
        "rate", po::value(&o.rate)->default_value(0.1), "offered load, flits per node per cycle")(
        "packet-flits", po::value(&o.packetFlits)->default_value(4), "flits per packet")(
        "mesh", po::value(&mesh)->default_value("8x8"),
        "RxC switches with one endpoint each, or 'chip' for the configuration's whole grid")(
        "cycles", po::value(&o.cycles)->default_value(10000), "measurement window, cycles")(
        "warmup", po::value(&o.warmup)->default_value(1000), "cycles before the window")(
        "seed", po::value(&o.seed)->default_value(1), "random seed (same seed, same numbers)")(
        "flit-level", po::bool_switch(&o.flitLevel),
        "send every flit as its own packet (checks the packet model)");
    addHardwareOptions(opts, hwName, sets, "override a hardware key (repeatable)",
                       "hardware preset or YAML file (its rdn section)");
    if (parseOrHelp(
            "meshtraffic", args, opts, nullptr, f,
            "Synthetic traffic on the RDN mesh: offered and accepted throughput, mean and p99 latency,\n"
            "zero-load latency."))
        return 0;
    std::smatch m;
    static const std::regex dims("^([0-9]+)x([0-9]+)$");
    if (mesh == "chip") {
        o.rows = o.cols = 0;
    } else if (std::regex_match(mesh, m, dims)) {
        o.rows = std::stoi(m[1]);
        o.cols = std::stoi(m[2]);
    } else {
        throw BadInput("--mesh: " + expectedFound("RxC (e.g. 8x8) or chip", "'" + mesh + "'"));
    }
    auto cfg = hw::loadHwConfig(hwName);
    for (const auto& s : sets)
        hw::applyOverride(cfg, s);
    if (o.rows) hw::checkTrafficOptions(o);
    nlohmann::json r = runInChild([&] { return hw::runMeshTraffic(cfg, o); });
    if (f.json) {
        std::cout << r.dump(2) << "\n";
        return 0;
    }
    std::cout << fmt::format("meshtraffic {} on {} ({} flits/packet, {}), hw {}\n",
                             r["pattern"].get<std::string>(), r["mesh"].get<std::string>(), o.packetFlits,
                             o.flitLevel ? "flit level" : "packets", cfg.name);
    std::cout << fmt::format("  offered                {:.4f} flits/node/cycle\n",
                             r["offered_flits_per_node_cycle"].get<double>());
    std::cout << fmt::format("  accepted               {:.4f} flits/node/cycle{}\n",
                             r["accepted_flits_per_node_cycle"].get<double>(),
                             r["saturated"].get<bool>() ? " (saturated)" : "");
    std::cout << fmt::format("  latency                mean {:.1f}, p99 {:.0f} cycles (zero-load {:.1f})\n",
                             r["latency_mean_cycles"].get<double>(), r["latency_p99_cycles"].get<double>(),
                             r["zero_load_latency_cycles"].get<double>());
    std::cout << fmt::format(
        "  simulation             {} cycles, {} packet hops in {:.2f} s ({:.3g} events/s)\n",
        r["simulated_cycles"].get<std::int64_t>(), r["packet_hops"].get<std::int64_t>(),
        r["wall_seconds"].get<double>(), r["events_per_second"].get<double>());
    return 0;
}

} // namespace steprdu::cli
