#pragma once
// A C++ builder that reads like the STeP paper's Listing 1: each call adds one operator, checks its input
// streams against what the operator accepts, and returns its output stream(s).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "step_ops/Function.h"
#include "step_ops/Graph.h"

namespace steprdu::step {

class GraphBuilder;

// A handle to one output stream of an operator in the graph being built.
class Stream {
  public:
    Stream() = default;
    Stream(GraphBuilder* b, StreamRef r) : b_(b), ref_(r) {}
    const StreamType& type() const;
    const Shape& shape() const { return type().shape; }
    StreamRef ref() const { return ref_; }
    const GraphBuilder* builder() const { return b_; } // the builder whose graph holds the stream
    // States a known fact about a data-dependent shape (Listing 1, line 27).
    void setShape(const Shape& s);

  private:
    GraphBuilder* b_ = nullptr;
    StreamRef ref_;
};

struct MapOptions {
    std::int64_t computeBw = 0;
    bool writeBackMu = false;
};

class GraphBuilder {
  public:
    Graph& graph() { return g_; }
    const Graph& graph() const { return g_; }
    Graph finish(); // finalize (broadcast insertion, dangling-stream check) and hand over the graph
    // Prepended to the names of the operators added from now on (a part of a larger graph, e.g. one layer's
    // attention, keeps its own names apart); empty by default.
    void setNamePrefix(std::string prefix) { prefix_ = std::move(prefix); }
    const std::string& namePrefix() const { return prefix_; }

    void tensor(const std::string& name, std::int64_t rows, std::int64_t cols,
                const std::string& init = "zeros", std::uint64_t seed = 0);
    void tensor(const std::string& name, std::int64_t rows, std::int64_t cols, std::vector<float> values);

    // Off-chip memory operators.
    Stream linearOffChipLoad(const std::string& tensor, std::int64_t tileRows, std::int64_t tileCols,
                             std::vector<std::int64_t> stride, std::vector<std::int64_t> outShape,
                             std::optional<Stream> ref = std::nullopt, int elemBytes = 0, int parDispatch = 1,
                             const std::string& name = "");
    void linearOffChipStore(Stream in, const std::string& tensor, int parDispatch = 1,
                            const std::string& name = "");
    Stream randomOffChipLoad(Stream raddr, const std::string& tensor, std::int64_t tileRows,
                             std::int64_t tileCols, int elemBytes = 0, std::int64_t baseTile = 0,
                             const std::string& name = "", int parDispatch = 1);
    Stream randomOffChipStore(Stream waddr, Stream wdata, const std::string& tensor, int elemBytes = 0,
                              const std::string& name = "");

    // On-chip memory operators.
    Stream bufferize(Stream in, int rank, const std::string& name = "");
    Stream streamify(Stream buffers, std::vector<std::int64_t> repeat = {}, const std::string& name = "");
    Stream streamify(Stream buffers, Stream ref, const std::string& name = "");

    // Routing and merging.
    std::vector<Stream> partition(Stream in, Stream sel, int rank, int numConsumers,
                                  const std::string& name = "");
    Stream reassemble(const std::vector<Stream>& ins, Stream sel, int rank, const std::string& name = "");
    // Returns {data, selector}.
    std::pair<Stream, Stream> eagerMerge(const std::vector<Stream>& ins, int rank,
                                         const std::string& name = "");
    std::vector<Stream> parallelize(Stream in, int numConsumers, const std::string& name = "");

    // Higher-order operators.
    Stream map(const std::vector<Stream>& ins, const Function& fn, MapOptions o = {},
               const std::string& name = "");
    Stream accum(Stream in, const Function& fn, const InitFn& init, int rank, MapOptions o = {},
                 std::optional<TileType> outTile = std::nullopt, const std::string& name = "");
    Stream scan(Stream in, const Function& fn, const InitFn& init, int rank, MapOptions o = {},
                const std::string& name = "");
    Stream mapAccum(Stream a, Stream b, const Function& fn, const InitFn& init, int rank, MapOptions o = {},
                    const std::string& name = "");
    Stream flatMap(Stream in, const nlohmann::json& fnArgs, const std::string& name = "");
    // Helpers built on FlatMap and Zip, as the paper's workloads use them.
    Stream retileStreamify(Stream in, bool splitRows = true, bool filterPadding = false,
                           const std::string& name = "");
    Stream expertAddrGen(Stream sel, std::int64_t tilesPerExpert, std::int64_t baseTile = 0,
                         const std::string& name = "");
    Stream cacheReadAddrGen(Stream idx, Stream tileCount, std::int64_t rowOffset,
                            const std::string& name = "");
    Stream filterLastTile(Stream tileCount, const std::string& name = "");

    // Shape operators.
    Stream flatten(Stream in, int minRank, int maxRank, const std::string& name = "");
    Stream reshape(Stream in, std::int64_t chunk, int rank, bool pad = false, const std::string& name = "");
    // Returns {data, padding} where padding marks padded elements.
    std::pair<Stream, Stream> reshapeWithPadding(Stream in, std::int64_t chunk, const std::string& name = "");
    // The scripts' Reshape(add_outer_dim): chunks a rank-0 stream (padding the last chunk if `pad`) and adds
    // an outermost dimension, [n] -> [1, ceil(n/chunk), chunk] ([0, ...] when empty).
    Stream reshapeAddOuter(Stream in, std::int64_t chunk, bool pad, const std::string& name = "");
    Stream promote(Stream in, std::optional<int> rank = std::nullopt, const std::string& name = "");
    Stream expand(Stream in, Stream ref, int rank, const std::string& name = "");
    Stream repeatStatic(Stream in, std::int64_t count, const std::string& name = "");
    Stream zip(Stream a, Stream b, const std::string& name = "");

    // Sources and sinks.
    Stream source(const std::string& type, const Shape& shape, const nlohmann::json& tokens,
                  const nlohmann::json& extra = nlohmann::json::object(), const std::string& name = "");
    Stream selectGen(const std::vector<std::vector<int>>& selected, int width, const Shape& shape,
                     const std::string& name = "SelectGen");
    Stream metadataGen(const std::vector<std::uint64_t>& values, const Shape& shape,
                       const std::string& name = "MetadataGen");
    void sink(Stream in, const std::string& name = "Sink");

    // Feedback loops: a placeholder stream can be consumed before its producer exists; connect() later
    // routes its consumers to the real stream (same element type and rank) and removes the placeholder.
    Stream placeholder(const std::string& type, const Shape& shape,
                       const nlohmann::json& extra = nlohmann::json::object(),
                       const std::string& name = "Placeholder");
    void connect(Stream placeholder, Stream real);

    // Adds any operator by kind and JSON arguments (used by the ones above and by graph loading).
    std::vector<Stream> add(const std::string& kind, const nlohmann::json& args,
                            const std::vector<Stream>& ins, const std::string& name);

  private:
    Graph g_;
    std::string prefix_;
};

} // namespace steprdu::step
