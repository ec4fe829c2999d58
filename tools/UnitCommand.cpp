// steprdu unit <pcu matmul | pcu simd | pmu stream | agcu read> [key=value ...] [--hw ..] [--set ..] [--json]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "hw/config/HwConfigLoader.h"
#include "testbenches/Testbench.h"
#include "testbenches/units/UnitBench.h"
#include "tools/Commands.h"
#include "tools/Options.h"
#include "util/Error.h"
#include "util/ForkRun.h"

namespace po = boost::program_options;

namespace steprdu::cli {

namespace {

const char* kUnitBenches =
    R"(  pcu matmul  m= k= n= [count=1] [units=1] [arrival=0] [sharing=1]
              [m,k] x [k,n] on the systolic array of `units` PCUs
  pcu simd    fn=add|mul|silu|exp|rowsum rows= cols= [count=1] [units=1] [arrival=0] [sharing=1]
              element-wise on the SIMD pipeline
              (`sharing`: that many copies of the operator take turns on the PCU, as pnr's shrink pairs them)
  pmu stream  bytes= [stride=1] [count=1] [port=read|write]   one port streaming; stride in words
  agcu read   rows= cols= [tensor_rows=] [tensor_cols=] [elem_bytes=2] [tiles=1] [par=4]
              tiles of a row-major tensor through one AGCU from the HBM node
The unit runs as on the chip, with every input ready from the first cycle (a PCU's tiles streaming in over
`arrival` cycles each, if set) and every output taken at once.)";

struct Spec {
    std::string unit, bench;
    std::vector<tb::Knob> knobs;
};

const std::vector<Spec>& specs() {
    static const std::vector<Spec> s = {
        {"pcu",
         "matmul",
         {{"m", "16", "rows of A and of the result"},
          {"k", "16", "the reduced dimension"},
          {"n", "16", "columns of B and of the result"},
          {"count", "1", "tile pairs streamed"},
          {"units", "1", "PCUs in the operator's group"},
          {"arrival", "0", "cycles each input tile takes to stream in, back to back (0: all ready at once)"},
          {"sharing", "1", "copies of the operator taking turns on the PCU"}}},
        {"pcu",
         "simd",
         {{"fn", "add", "add | mul | silu | exp | rowsum"},
          {"rows", "16", "tile rows"},
          {"cols", "16", "tile columns"},
          {"count", "1", "tiles streamed"},
          {"units", "1", "PCUs in the operator's group"},
          {"arrival", "0", "cycles each input tile takes to stream in, back to back (0: all ready at once)"},
          {"sharing", "1", "copies of the operator taking turns on the PCU"}}},
        {"pmu",
         "stream",
         {{"bytes", "65536", "bytes per access"},
          {"stride", "1", "words between consecutive words"},
          {"count", "1", "accesses back to back"},
          {"port", "read", "read | write"}}},
        {"agcu",
         "read",
         {{"rows", "16", "tile rows"},
          {"cols", "64", "tile columns"},
          {"tensor_rows", "0", "tensor rows (0: the tile's)"},
          {"tensor_cols", "0", "tensor columns (0: tiles side by side)"},
          {"elem_bytes", "2", "bytes per element"},
          {"tiles", "1", "tiles read"},
          {"par", "4", "bursts issued per cycle (the operator's par_dispatch)"}}},
    };
    return s;
}

void print(const std::string& title, const nlohmann::json& j) {
    std::cout << title << "\n";
    for (const auto& [k, v] : j.items()) {
        if (v.is_object()) {
            std::string parts;
            for (const auto& [k2, v2] : v.items())
                parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", k2, v2.dump());
            std::cout << fmt::format("  {:26} {}\n", k, parts);
        } else {
            std::cout << fmt::format("  {:26} {}\n", k,
                                     v.is_number_float() ? fmt::format("{:.4g}", v.get<double>()) : v.dump());
        }
    }
}

} // namespace

int cmdUnit(const Args& args) {
    std::string hw;
    std::vector<std::string> sets, positional;
    Flags f;
    po::options_description opts("unit options");
    addFlags(opts, f, true, false);
    addHardwareOptions(opts, hw, sets, "override a hardware key (repeatable)");
    if (parseOrHelp("unit", args, opts, &positional, f, kUnitBenches)) return 0;
    if (positional.size() < 2)
        throw BadInput("steprdu unit: " +
                       expectedFound("a unit and a bench (pcu matmul, pcu simd, pmu stream, agcu read)",
                                     positional.empty() ? "nothing" : "'" + positional[0] + "'"));
    const Spec* spec = nullptr;
    for (const auto& s : specs())
        if (s.unit == positional[0] && s.bench == positional[1]) spec = &s;
    if (!spec)
        throw BadInput(
            fmt::format("steprdu unit: {}", expectedFound("pcu matmul, pcu simd, pmu stream or agcu read",
                                                          "'" + positional[0] + " " + positional[1] + "'")));
    auto cfg = hw::loadHwConfig(hw);
    for (const auto& s : sets)
        hw::applyOverride(cfg, s);
    const std::string name = "unit " + spec->unit + " " + spec->bench;
    tb::Knobs k(name, spec->knobs, std::vector<std::string>(positional.begin() + 2, positional.end()));
    constexpr std::int64_t kMax = 1LL << 40;
    nlohmann::json params = k.values();
    nlohmann::json result = runInChild([&]() -> nlohmann::json {
        if (spec->unit == "pcu") {
            hw::PcuBench b;
            if (spec->bench == "matmul") {
                b.m = k.integer("m", 1, kMax);
                b.k = k.integer("k", 1, kMax);
                b.n = k.integer("n", 1, kMax);
            } else {
                b.function = k.choice("fn", {"add", "mul", "silu", "exp", "rowsum"});
                b.m = k.integer("rows", 1, kMax);
                b.n = k.integer("cols", 1, kMax);
            }
            b.count = k.integer("count", 1, kMax);
            b.units = static_cast<int>(k.integer("units", 1, 1 << 20));
            b.arrival = k.integer("arrival", 0, kMax);
            b.sharing = static_cast<int>(k.integer("sharing", 1, 64));
            return hw::runPcuBench(cfg, b);
        }
        if (spec->unit == "pmu") {
            hw::PmuBench b;
            b.bytes = k.integer("bytes", 1, kMax);
            b.strideWords = k.integer("stride", 1, kMax);
            b.count = k.integer("count", 1, kMax);
            b.write = k.choice("port", {"read", "write"}) == "write";
            return hw::runPmuBench(cfg, b);
        }
        hw::AgcuBench b;
        b.rows = k.integer("rows", 1, kMax);
        b.cols = k.integer("cols", 1, kMax);
        b.tensorRows = k.integer("tensor_rows", 0, kMax);
        b.tensorCols = k.integer("tensor_cols", 0, kMax);
        b.elemBytes = static_cast<int>(k.integer("elem_bytes", 1, 8));
        b.tiles = k.integer("tiles", 1, kMax);
        b.parDispatch = static_cast<int>(k.integer("par", 1, 1024));
        return hw::runAgcuBench(cfg, b);
    });
    if (f.json) {
        std::cout << nlohmann::json{{"unit", spec->unit},
                                    {"bench", spec->bench},
                                    {"hw", cfg.name},
                                    {"params", params},
                                    {"result", result}}
                         .dump(2)
                  << "\n";
        return 0;
    }
    std::string args2;
    for (const auto& [key, v] : k.values())
        args2 += " " + key + "=" + v;
    print(fmt::format("{} (hw {}):{}", name, cfg.name, args2), result);
    return 0;
}

} // namespace steprdu::cli
