#pragma once
// A testbench builds one workload's STeP graph from knobs (and a trace), binds its data-dependent symbols,
// and knows the workload's own accounting (the paper scripts' FLOP formula) and its reference computation.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "step_ops/Graph.h"
#include "step_ops/Interpreter.h"

namespace steprdu::tb {

struct Knob {
    std::string name;
    std::string defaultValue; // "" = derived from other knobs (documented in `doc`)
    std::string doc;
};

// Knob values as given on the command line, validated against a testbench's knob list.
class Knobs {
  public:
    Knobs(const std::string& testbench, const std::vector<Knob>& spec,
          const std::vector<std::string>& assignments);
    bool given(const std::string& k) const { return values_.count(k) > 0; }
    std::string str(const std::string& k) const;
    std::int64_t integer(const std::string& k, std::int64_t lo, std::int64_t hi) const;
    // An integer in [1, whole] that divides `whole` (a tile or region count of the dimension `wholeName`).
    std::int64_t divisor(const std::string& k, std::int64_t whole, const std::string& wholeName) const;
    std::string choice(const std::string& k, const std::vector<std::string>& options) const;
    const std::map<std::string, std::string>& values() const { return values_; }

  private:
    std::string tb_;
    std::map<std::string, std::string> values_;
    std::map<std::string, std::string> defaults_;
};

struct Workload {
    step::Graph graph;
    step::Bindings bindings;
    // Data-dependent sizes as the run averages them, where they differ from `bindings` (which size buffers
    // for the largest): place and route plans stream rates with these.
    step::Bindings rateBindings;
    nlohmann::json params;        // every knob, resolved
    std::int64_t figureFlops = 0; // the paper scripts' FLOP formula (padded rows)
    std::int64_t paddedFlops = 0; // the part of figureFlops spent on padding rows
    // Timing-run settings the paper's scripts choose per workload.
    std::int64_t channelDepth = 2;                       // stream FIFO depth; 0 = unbounded
    std::map<std::string, std::int64_t> depthByProducer; // per producing operator name
    int timingElemBytes = 0;                             // 2 = time f32 tiles as bf16 (the paper's mock_bf16)
    // Name prefixes of parts that run one after another (place and route plans each part's streams over its
    // own time: hw/pnr/Lowering.h).
    std::vector<std::string> phases;
    // Checks the off-chip memory after a functional run (interpreter or cycle backend) against a direct
    // computation; returns the norm-wise relative error.
    std::function<double(const step::TensorStore&)> check;
};

// A call of a program that a testbench expands to (docs/system.md): the kernel's name, testbench and
// knobs. Calls of one name have the same testbench and knobs.
struct KernelCall {
    std::string name, testbench;
    std::vector<std::string> knobs; // key=value
};

class Testbench {
  public:
    virtual ~Testbench() = default;
    virtual std::string name() const = 0;
    virtual std::string doc() const = 0;
    virtual std::vector<Knob> knobs() const = 0;
    // `functional` attaches real tensor values (for interpreter checks); timing runs leave them out.
    virtual Workload build(const Knobs& k, bool functional) const = 0;
    // A testbench whose workload is a program of kernels rather than one graph (decoder fusion=operator):
    // its calls in order. Empty (the default): it is one kernel, build()'s graph.
    virtual std::vector<KernelCall> kernels(const Knobs&) const { return {}; }
};

// The workloads, each defined in testbenches/<Name>Testbench.cpp.
std::unique_ptr<Testbench> makeSwigluTestbench();
std::unique_ptr<Testbench> makeMoeTestbench();
std::unique_ptr<Testbench> makeAttentionTestbench();
std::unique_ptr<Testbench> makeCopyTestbench();
std::unique_ptr<Testbench> makeGemmTestbench();
std::unique_ptr<Testbench> makeElementwiseTestbench();
std::unique_ptr<Testbench> makeQkvTestbench();
std::unique_ptr<Testbench> makeDecoderTestbench();
std::unique_ptr<Testbench> makeGraphFileTestbench();
// Every testbench, in the order `steprdu list` shows them.
const std::vector<std::unique_ptr<Testbench>>& testbenches();
const Testbench& findTestbench(const std::string& name); // throws BadInput with the nearest name

// Norm-wise relative error ||got - want||_2 / ||want||_2 (infinite if the sizes differ).
double relativeError(const std::vector<float>& got, const std::vector<double>& want);

} // namespace steprdu::tb
