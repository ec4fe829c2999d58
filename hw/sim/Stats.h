#pragma once
// Statistics keyed by the hierarchical name of what they measure (chip.pcu_r3c7.busy_cycles). Every stat
// name has one definition (unit and meaning) in the table of Stats.cpp, which docs/stats.md reproduces;
// registering a name without a definition is a programming error.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace steprdu::hw {

struct StatDef {
    std::string name, unit, description;
};

// Every stat name the cycle backend reports, in document order.
const std::vector<StatDef>& statDefinitions();
// The table of docs/stats.md: name, unit, definition.
std::string statsMarkdown();

struct Stat {
    std::string path; // the module or channel it describes, e.g. "chip.pcu_r3c7"
    std::string name; // e.g. "busy_cycles"
    double value = 0;
};

class StatsRegistry {
  public:
    // Throws std::logic_error if `name` has no definition.
    void add(const std::string& path, const std::string& name, double value);
    const std::vector<Stat>& all() const { return stats_; }
    // Sum of stat `name` over paths that start with `prefix`.
    double sum(const std::string& name, const std::string& prefix = "") const;
    // {"chip": {"pcu_r3c7": {"busy_cycles": {"value": .., "unit": ..}}}}
    nlohmann::json toJson() const;
    // "path,value,unit" lines under a header, the path ending in the stat's name.
    std::string toCsv() const;

  private:
    std::vector<Stat> stats_;
};

} // namespace steprdu::hw
