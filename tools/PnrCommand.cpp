// steprdu pnr <testbench> [knob=value ...] [--hw ..] [--set ..] [--out DIR] [--json]
#include <iostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "testbenches/Runner.h"
#include "tools/Commands.h"
#include "tools/Options.h"

namespace po = boost::program_options;

namespace steprdu::cli {

int cmdPnr(const Args& args) {
    tb::RunRequest req;
    std::string out;
    Flags f;
    po::options_description opts("pnr options");
    addFlags(opts, f);
    addHardwareOptions(
        opts, req.hw, req.sets,
        "override a hardware key, e.g. --set pnr.seed=7 or --set pnr.on_overflow=shrink (repeatable)");
    std::string colorBy = "auto";
    opts.add_options()("out", po::value(&out), "write pnr.json and floorplan.svg here")(
        "color-by", po::value(&colorBy)->default_value(colorBy),
        "floorplan colours: group (the operator name's prefix: an expert e3, a region r1), kind (STeP "
        "operator), operator, or auto (groups where the names make them, else operators up to 12, else "
        "kinds)");
    std::vector<std::string> positional;
    if (parseOrHelp("pnr", args, opts, &positional, f,
                    "Place and route the testbench's graph on the chip, without simulating it."))
        return 0;
    takeTestbench("pnr", positional, req);
    const auto colors = hw::pnr::parseFloorplanColors(colorBy);
    std::string svg;
    const nlohmann::json j = tb::placeAndRouteTestbench(req, out.empty() ? nullptr : &svg, colors);
    writeOut(out, {{"pnr.json", j.dump(2) + "\n"}, {"floorplan.svg", svg}});
    printWarnings(j, f);
    if (f.json) {
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    const auto& u = j["units"];
    std::cout << fmt::format("{} on {} (placer {}, seed {})\n", j["testbench"].get<std::string>(),
                             j["preset"].get<std::string>(), j["placer"].get<std::string>(),
                             j["seed"].get<int>());
    for (const char* k : {"pcu", "pmu", "agcu"})
        std::cout << fmt::format("  {:4} used             {} of {} (per die {})\n", k,
                                 u[k]["used"].get<int>(), u[k]["available"].get<int>(),
                                 u[k]["per_die"].dump());
    for (const auto& line : j["shrunk"])
        std::cout << "  shrunk                 " << line.get<std::string>() << "\n";
    const auto& w = j["wirelength"];
    std::cout << fmt::format(
        "  weighted wirelength    {:.1f} (constructive start {:.1f}); cost {:.1f} (start {:.1f})\n",
        w["weighted_hpwl"].get<double>(), w["weighted_hpwl_initial"].get<double>(), w["cost"].get<double>(),
        w["cost_initial"].get<double>());
    if (j.contains("routing")) {
        const auto& r = j["routing"];
        std::cout << fmt::format("  routing                {} legs, {} iterations, {} over-subscribed links, "
                                 "deadlock-free: {}\n",
                                 r["legs"].get<int>(), r["iterations"].get<int>(),
                                 r["overused_links"].get<int>(),
                                 r["deadlock_free"].get<bool>() ? "yes" : "NO");
        std::cout << fmt::format("  hops per leg           mean {:.2f}, max {}\n",
                                 r["hops_mean"].get<double>(), r["hops_max"].get<int>());
        std::cout << fmt::format("  link load              max {:.2f}, mean {:.2f} (of a link's bandwidth)\n",
                                 r["max_link_load"].get<double>(), r["mean_link_load"].get<double>());
        if (const auto& rep = j["repair"]; rep["moves"].get<int>() > 0)
            std::cout << fmt::format(
                "  repair                 {} unit moves, over-subscription {:.3f} -> {:.3f}{}\n",
                rep["moves"].get<int>(), rep["oversubscription_before"].get<double>(),
                rep["oversubscription_after"].get<double>(),
                rep["kept"].get<bool>() ? "" : " (not kept: routed again, no lighter)");
    }
    if (j.contains("evaluated")) {
        std::string line;
        for (const auto& e : j["evaluated"])
            line += fmt::format("{}seed {} {}", line.empty() ? "" : ", ", e["seed"].get<int>(),
                                e["cycles"].is_null() ? std::string("failed") : e["cycles"].dump());
        std::cout << fmt::format("  simulated starts       {} cycles; kept seed {}\n", line,
                                 j["seed"].get<int>());
    }
    const auto& s = j["seconds"];
    std::cout << fmt::format(
        "  wall seconds           {:.3f} (lower {:.3f}, place {:.3f}, route {:.3f}{})\n",
        j["wall_seconds"].get<double>(), s["lower"].get<double>(), s["place"].get<double>(),
        s["route"].get<double>(),
        s.contains("evaluate") ? fmt::format(", evaluate {:.3f}", s["evaluate"].get<double>()) : "");
    if (!out.empty())
        std::cout << fmt::format("  wrote                  {0}/pnr.json, {0}/floorplan.svg\n", out);
    return 0;
}

} // namespace steprdu::cli
