#include "hw/config/StepCompat.h"

#include <set>

#include <fmt/format.h>

namespace steprdu::hw {

const std::vector<StepCompatKey>& stepCompatKeys() {
    // Only keys whose effect a quirk changes with the key's value. Keys a quirk touches but whose trend it
    // keeps (the moe testbench on step_eval: on and off within 2% across the sweep) are left out:
    // hbm.latency_cycles (the start-up only adds a constant to every request), hbm.init_interval_cycles (the
    // channel offset's pattern does not depend on it) and pmu.bandwidth_bytes_per_cycle (only Reassemble's
    // forwarding skips a memory-unit read; every compute operator still pays its loads and stores).
    static const std::vector<StepCompatKey> keys = {
        // HbmParams::triangularOffset, taken in HbmNode::servePacket (hw/mem/step_node/HbmNode.cpp), set
        // from step_compat in stepNodeParams (hw/mem/StepNodeTier.cpp).
        {"hbm.channels",
         "the i-th request of a cycle goes to the channel at offset += i (mod channels), not round robin, so "
         "requests collide on channels by a pattern that depends on the channel count: some counts run "
         "50-70% slower than their neighbours (30, 33 and 36 on the moe testbench of step_eval)",
         true},
        // HbmParams::startupEveryRequest, taken in HbmNode::servePacket, set in stepNodeParams.
        {"hbm.startup_cycles",
         "the start-up is charged on every request, not once per channel, so it acts as more latency on "
         "every request",
         true},
        // RooflineOptions::broadcastDefaultDepth (Engine::run) and damCredits (Engine::pop),
        // models/roofline/RooflineSimulator.cpp, set from step_compat in tb::rooflineOptions.
        {"roofline.channel_depth",
         "every Broadcast stream takes this depth, even those the testbench sized itself (attention's "
         "metadata and write-back FIFOs), and a slot frees one cycle after its element arrived rather than "
         "when the receiver took it (DAM's credit stamps), so a compute operator's input refills while it "
         "computes",
         false},
    };
    return keys;
}

namespace {

// `hw.key=value`, `key=value` or `key` to `key`.
std::string keyOf(std::string k) {
    k = k.substr(0, k.find('='));
    if (k.rfind("hw.", 0) == 0) k = k.substr(3);
    return k;
}

} // namespace

std::string stepCompatWarning(const std::vector<std::string>& keys, const HwConfig& cfg,
                              StepCompatBackends backends) {
    if (!cfg.roofline.step_compat) return "";
    std::set<std::string> given;
    for (const auto& k : keys)
        given.insert(keyOf(k));
    // Set on purpose (e.g. an axis comparing it on and off): the user knows.
    if (given.count("roofline.step_compat")) return "";
    // The cycle backend meets the HBM node's quirks only when its HBM tier is that node.
    const bool cycleNode = backends.cycle && cfg.memory.hbm == TierDevice::stepNode();
    std::vector<std::string> names, reasons;
    for (const auto& k : stepCompatKeys()) {
        if (!given.count(k.key) || !(backends.roofline || (k.hbmNode && cycleNode))) continue;
        names.push_back(k.key);
        reasons.push_back(fmt::format("{}: {}", k.key, k.reason));
    }
    if (names.empty()) return "";
    // "a measures", "a and b measure", "a, b and c measure".
    std::string subject = names.back();
    if (names.size() > 1)
        subject = fmt::format("{} and {}", fmt::join(names.begin(), names.end() - 1, ", "), subject);
    return fmt::format(
        "roofline.step_compat is on: it keeps the published STeP simulator's quirks to reproduce the paper's "
        "figures, and they distort what {} measure{}. {}. For a hardware sweep, use --set "
        "roofline.step_compat=false (docs/sweeps.md)",
        subject, names.size() == 1 ? "s" : "", fmt::join(reasons, "; "));
}

} // namespace steprdu::hw
