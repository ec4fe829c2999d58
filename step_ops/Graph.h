#pragma once
// A STeP program: off-chip tensors, operators and the streams between them.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "step_ops/Operator.h"

namespace steprdu::step {

// An off-chip tensor (2-D, row-major). Values are generated from `init` so graphs serialize compactly;
// a testbench may attach explicit values instead.
struct TensorSpec {
    std::string name;
    std::int64_t rows = 0, cols = 0;
    ElemType elem = ElemType::F32;
    std::string init = "zeros"; // zeros | randn | xavier (randn / sqrt(rows)) | given
    std::uint64_t seed = 0;
    std::shared_ptr<const std::vector<float>> values; // when init == "given"
    // What the tensor holds, which decides its off-chip tier (memory.place.<class>).
    std::string tensorClass = "activations"; // weights | activations | kv_cache
};

// The tensor classes, in the order memory.place lists them.
const std::vector<std::string>& tensorClasses();

class Graph {
  public:
    int addTensor(TensorSpec t);
    int tensorIndex(const std::string& name) const; // throws BadInput naming the tensor
    const TensorSpec& tensor(int i) const { return tensors_.at(i); }
    const std::vector<TensorSpec>& tensors() const { return tensors_; }
    void setTensorValues(const std::string& name, std::vector<float> values);
    // Throws BadInput naming the tensor if `cls` is not one of tensorClasses().
    void setTensorClass(const std::string& name, const std::string& cls);

    // Creates an operator of a registered kind from its JSON arguments, checks types, returns its index.
    int add(const std::string& kind, const std::string& name, const nlohmann::json& args,
            const std::vector<StreamRef>& inputs);
    std::string uniqueName(const std::string& base);
    // Removes an operator that has no inputs and no consumers (a connected Placeholder), renumbering the
    // rest.
    void removeOp(int index);
    // Puts the operators in the given order (order[k] = the index that becomes k), renumbering inputs.
    void reorder(const std::vector<int>& order);

    const Operator& op(int i) const { return *ops_.at(i); }
    Operator& op(int i) { return *ops_.at(i); }
    int numOps() const { return static_cast<int>(ops_.size()); }
    int findOp(const std::string& name) const; // -1 if absent
    const StreamType& type(StreamRef r) const;

    // Checks every output has a consumer and inserts a Broadcast wherever a stream fans out. Idempotent.
    void finalize();
    bool finalized() const { return finalized_; }
    // consumers[(op,out)] = list of (op, input port)
    std::vector<std::pair<int, int>> consumers(StreamRef r) const;

    std::string toDot() const;
    nlohmann::json toJson() const;
    static Graph fromJson(const nlohmann::json& j); // throws BadInput
    // A graph file as `run --out` writes it (graph.json); every problem with it is a BadInput naming the
    // file.
    static Graph load(const std::string& path);

  private:
    std::vector<TensorSpec> tensors_;
    std::vector<std::unique_ptr<Operator>> ops_;
    std::map<std::string, int> names_;
    bool finalized_ = false;
};

// Registry of operator kinds: name, and factory from (name, args, inputs).
using OperatorFactory = std::function<std::unique_ptr<Operator>(const std::string&, const nlohmann::json&,
                                                                const std::vector<StreamRef>&)>;
struct OperatorKind {
    std::string kind;
    std::vector<std::string> args; // accepted argument names; anything else is an error
    OperatorFactory make;
};
const std::vector<OperatorKind>& operatorKinds();

} // namespace steprdu::step
