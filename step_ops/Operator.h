#pragma once
// Base of every STeP operator. An operator is built from its JSON arguments (so graphs save and load
// losslessly), checks its input stream types at build time, runs its stream semantics against an OpIO,
// and reports its symbolic metrics.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "step_ops/DataType.h"
#include "step_ops/OpIO.h"

namespace steprdu::step {

class Graph;

struct StreamRef {
    int op = -1;
    int out = 0;
    bool operator==(const StreamRef& o) const { return op == o.op && out == o.out; }
};

class Operator {
  public:
    Operator(std::string name, nlohmann::json args, std::vector<StreamRef> inputs)
        : name_(std::move(name)), args_(std::move(args)), inputs_(std::move(inputs)) {}
    virtual ~Operator() = default;

    // The paper's operator name, e.g. "LinearOffChipLoad".
    virtual std::string kind() const = 0;
    const std::string& name() const { return name_; }
    const nlohmann::json& args() const { return args_; }
    const std::vector<StreamRef>& inputs() const { return inputs_; }
    const std::vector<StreamType>& outputs() const { return out_; }
    const std::vector<StreamType>& inputTypes() const { return in_; }
    // Checks input types and computes output types; throws BadInput naming this operator.
    void bind(const Graph& g, std::vector<StreamType> in);
    // A user-asserted fact about a data-dependent output shape (Listing 1, line 27).
    void overrideShape(int out, const Shape& s) { out_.at(out).shape = s; }
    void rewireInput(int port, StreamRef r) { inputs_.at(port) = r; }

    virtual void run(OpIO& io) const = 0;

    // Metrics. onChipBytes follows the STeP artifact's accounting used for the paper's figures
    // (count_fifos=False, mode 1); onChipBytesPaper follows the paper's §4.2 formulas.
    virtual Expr offChipBytes() const { return Expr(0); }
    virtual Expr onChipBytes() const { return Expr(0); }
    virtual Expr onChipBytesPaper() const { return onChipBytes(); }
    virtual Expr flops() const { return Expr(0); }
    // FLOPs/cycle allocated to this operator (0 for operators without a compute function).
    virtual std::int64_t computeBw() const { return 0; }
    // Elements this operator processes; an operator whose volume binds to 0 is unused (no tokens reach it).
    virtual Expr volume() const;

    std::string where() const { return kind() + " '" + name_ + "'"; }

  protected:
    virtual void infer(const Graph& g) = 0;
    [[noreturn]] void fail(const std::string& msg) const;
    void expectInputs(std::size_t n) const;
    void expectTile(int port) const; // tiles of floats (integer elements are scalars at run time)
    void expectRankAtLeast(int port, int rank, const char* what) const;
    std::int64_t intArg(const char* key) const;
    std::int64_t intArg(const char* key, std::int64_t dflt) const;
    bool boolArg(const char* key, bool dflt) const;
    std::vector<std::int64_t> intListArg(const char* key) const;

    std::vector<StreamType> in_, out_;

  private:
    std::string name_;
    nlohmann::json args_;
    std::vector<StreamRef> inputs_;
};

// Emits a static-shaped tensor element by element in row-major order with its inner stop tokens, but
// without the stop that closes it (callers merge that with the stop that follows). `innerLevels` is the
// rank each emitted element already occupies (its own boundaries are S_innerLevels).
void emitNested(OpIO& io, int out, const std::vector<std::int64_t>& dims, int innerLevels,
                const std::function<void(const std::vector<std::int64_t>& index)>& emitOne);

// After one input element was expanded into `levels` output levels: if the input's next token is a stop
// S_k it is consumed and S_{k+levels} emitted; otherwise S_levels closes the expansion (when levels > 0).
// `inputRank` is the input stream's rank: a rank-0 input has no stops, so the expansion closes at once.
void closeExpansion(OpIO& io, int in, int out, int levels, int inputRank);

} // namespace steprdu::step
