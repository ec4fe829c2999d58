#include "step_ops/Graph.h"

#include <fstream>
#include <functional>
#include <optional>

#include <algorithm>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "util/Error.h"
#include "util/Json.h"
#include "util/Strings.h"

namespace steprdu::step {

int Graph::addTensor(TensorSpec t) {
    for (auto& x : tensors_)
        if (x.name == t.name) throw BadInput("tensor '" + t.name + "': defined twice");
    if (t.rows <= 0 || t.cols <= 0)
        throw BadInput(
            fmt::format("tensor '{}': {}", t.name,
                        expectedFound("positive rows and cols", fmt::format("{}x{}", t.rows, t.cols))));
    // Loads read tiles of floats; a tensor of integers would give a stream typed as scalars that carries
    // tiles.
    if (DataType::makeTile(1, 1, t.elem).isScalar())
        throw BadInput(fmt::format("tensor '{}': elem: {}", t.name,
                                   expectedFound("f32, bf16 or f16", elemName(t.elem))));
    tensors_.push_back(std::move(t));
    return static_cast<int>(tensors_.size()) - 1;
}

int Graph::tensorIndex(const std::string& name) const {
    for (std::size_t i = 0; i < tensors_.size(); ++i)
        if (tensors_[i].name == name) return static_cast<int>(i);
    std::vector<std::string> names;
    for (auto& t : tensors_)
        names.push_back(t.name);
    auto near = nearestWord(name, names);
    throw BadInput("tensor '" + name + "': not defined" + (near ? "; did you mean '" + *near + "'?" : ""));
}

void Graph::setTensorValues(const std::string& name, std::vector<float> values) {
    auto& t = tensors_.at(tensorIndex(name));
    if (static_cast<std::int64_t>(values.size()) != t.rows * t.cols)
        throw BadInput(fmt::format(
            "tensor '{}': {}", name,
            expectedFound(std::to_string(t.rows * t.cols) + " values", std::to_string(values.size()))));
    t.init = "given";
    t.values = std::make_shared<std::vector<float>>(std::move(values));
}

const std::vector<std::string>& tensorClasses() {
    static const std::vector<std::string> classes = {"weights", "activations", "kv_cache"};
    return classes;
}

void Graph::setTensorClass(const std::string& name, const std::string& cls) {
    const auto& c = tensorClasses();
    if (std::find(c.begin(), c.end(), cls) == c.end())
        throw BadInput(fmt::format("tensor '{}': class: {}", name,
                                   expectedFound("weights, activations or kv_cache", "'" + cls + "'")));
    tensors_.at(tensorIndex(name)).tensorClass = cls;
}

std::string Graph::uniqueName(const std::string& base) {
    if (!names_.count(base)) return base;
    for (int i = 1;; ++i) {
        auto n = fmt::format("{}_{}", base, i);
        if (!names_.count(n)) return n;
    }
}

int Graph::add(const std::string& kind, const std::string& name, const nlohmann::json& args,
               const std::vector<StreamRef>& inputs) {
    const auto& kinds = operatorKinds();
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const OperatorKind& k) { return k.kind == kind; });
    if (it == kinds.end()) {
        std::vector<std::string> names;
        for (auto& k : kinds)
            names.push_back(k.kind);
        auto near = nearestWord(kind, names);
        throw BadInput("operator '" + name + "': unknown operator kind '" + kind + "'" +
                       (near ? "; did you mean '" + *near + "'?" : ""));
    }
    if (!args.is_object())
        throw BadInput(
            fmt::format("{} '{}': arguments {}", kind, name, expectedFound("an object", args.dump())));
    for (auto& [k, v] : args.items()) {
        if (std::find(it->args.begin(), it->args.end(), k) != it->args.end()) continue;
        auto near = nearestWord(k, it->args);
        throw BadInput(fmt::format("{} '{}': unknown argument '{}'; expected one of {}{}", kind, name, k,
                                   fmt::join(it->args, ", "), near ? "; did you mean '" + *near + "'?" : ""));
    }
    if (names_.count(name))
        throw BadInput(fmt::format("{} '{}': an operator of that name exists", kind, name));
    std::vector<StreamType> in;
    for (std::size_t p = 0; p < inputs.size(); ++p) {
        auto r = inputs[p];
        if (r.op < 0 || r.op >= numOps() || r.out < 0 ||
            r.out >= static_cast<int>(ops_[r.op]->outputs().size()))
            throw BadInput(
                fmt::format("{} '{}': input {} refers to a stream that does not exist (operator #{} "
                            "output {})",
                            kind, name, p, r.op, r.out));
        in.push_back(type(r));
    }
    auto op = it->make(name, args, inputs);
    op->bind(*this, in);
    names_[name] = numOps();
    ops_.push_back(std::move(op));
    finalized_ = false;
    return numOps() - 1;
}

void Graph::removeOp(int index) {
    ops_.erase(ops_.begin() + index);
    names_.clear();
    for (int i = 0; i < numOps(); ++i) {
        names_[ops_[i]->name()] = i;
        for (std::size_t p = 0; p < ops_[i]->inputs().size(); ++p) {
            StreamRef r = ops_[i]->inputs()[p];
            if (r.op > index) ops_[i]->rewireInput(static_cast<int>(p), {r.op - 1, r.out});
        }
    }
    finalized_ = false;
}

int Graph::findOp(const std::string& name) const {
    auto it = names_.find(name);
    return it == names_.end() ? -1 : it->second;
}

const StreamType& Graph::type(StreamRef r) const {
    return ops_.at(r.op)->outputs().at(r.out);
}

std::vector<std::pair<int, int>> Graph::consumers(StreamRef r) const {
    std::vector<std::pair<int, int>> out;
    for (int i = 0; i < numOps(); ++i)
        for (std::size_t p = 0; p < ops_[i]->inputs().size(); ++p)
            if (ops_[i]->inputs()[p] == r) out.emplace_back(i, static_cast<int>(p));
    return out;
}

void Graph::finalize() {
    if (finalized_) return;
    // Connected placeholders have no consumers left: drop them; one still consumed was never connected.
    for (int i = numOps() - 1; i >= 0; --i) {
        if (ops_[i]->kind() != "Placeholder") continue;
        if (!consumers({i, 0}).empty())
            throw BadInput(ops_[i]->where() +
                           ": never connected to the stream it stands for (GraphBuilder::connect)");
        removeOp(i);
    }
    int n = numOps();
    for (int i = 0; i < n; ++i) {
        for (int o = 0; o < static_cast<int>(ops_[i]->outputs().size()); ++o) {
            StreamRef r{i, o};
            auto cons = consumers(r);
            if (cons.empty())
                throw BadInput(
                    fmt::format("{}: output {} ({}) has no consumer (dangling stream); connect it or "
                                "end it with a Sink",
                                ops_[i]->where(), o, type(r).str()));
            if (cons.size() == 1) continue;
            // Fan-out: one Broadcast feeds every consumer, as the STeP frontend's infer_broadcast does.
            int b = add("Broadcast", uniqueName(ops_[i]->name() + ".bcast"),
                        {{"num_consumers", static_cast<int>(cons.size())}}, {r});
            for (std::size_t k = 0; k < cons.size(); ++k)
                ops_[cons[k].first]->rewireInput(cons[k].second, StreamRef{b, static_cast<int>(k)});
        }
    }
    finalized_ = true;
}

std::string Graph::toDot() const {
    std::ostringstream os;
    os << "digraph step {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n";
    for (int i = 0; i < numOps(); ++i)
        os << fmt::format("  n{} [label=\"{}\\n{}\"];\n", i, ops_[i]->kind(), ops_[i]->name());
    for (int i = 0; i < numOps(); ++i)
        for (auto& r : ops_[i]->inputs())
            os << fmt::format("  n{} -> n{} [label=\"{}\"];\n", r.op, i, type(r).shape.str());
    os << "}\n";
    return os.str();
}

namespace {
// The Placeholder arguments that declare a stream type, for the edges of feedback loops (a consumer listed
// before its producer). Only the types a Placeholder can declare can close a loop in a graph file.
std::optional<nlohmann::json> declaredStream(const StreamType& t) {
    nlohmann::json a{{"shape", t.shape.toJson()}};
    const DataType& d = t.dtype;
    if (d.kind == DataType::Kind::Selector) {
        a["type"] = "selector";
        a["width"] = d.selectorWidth;
    } else if (d.equals(DataType::address())) {
        a["type"] = "scalar";
    } else if (d.isTile() && d.tile.isStatic() && d.tile.elem == ElemType::F32) {
        a["type"] = "tile";
        a["tile_rows"] = *d.tile.rows.constValue();
        a["tile_cols"] = *d.tile.cols.constValue();
    } else {
        return std::nullopt;
    }
    return a;
}
} // namespace

namespace {
// Kahn's order over n operators (ties by index) given each one's producers; when only cycles remain, the
// first unwritten operator is taken and its unwritten producers are reported through `feedback`.
std::vector<int> dependencyOrder(const std::vector<std::vector<int>>& producers,
                                 const std::function<void(int op, int port)>& feedback) {
    const int n = static_cast<int>(producers.size());
    std::vector<int> pending(n, 0), order;
    std::vector<std::vector<int>> users(n);
    for (int i = 0; i < n; ++i)
        for (int p : producers[i]) {
            ++pending[i];
            users[p].push_back(i);
        }
    std::vector<bool> written(n, false);
    std::set<int> ready;
    for (int i = 0; i < n; ++i)
        if (pending[i] == 0) ready.insert(i);
    while (static_cast<int>(order.size()) < n) {
        int i = -1;
        if (!ready.empty()) {
            i = *ready.begin();
            ready.erase(ready.begin());
        } else {
            for (int k = 0; k < n && i < 0; ++k)
                if (!written[k]) i = k;
            for (std::size_t port = 0; port < producers[i].size(); ++port)
                if (!written[producers[i][port]]) feedback(i, static_cast<int>(port));
        }
        order.push_back(i);
        written[i] = true;
        for (int u : users[i])
            if (!written[u] && --pending[u] == 0) ready.insert(u);
    }
    return order;
}
} // namespace

nlohmann::json Graph::toJson() const {
    nlohmann::json j;
    j["format"] = "steprdu-graph-1";
    j["tensors"] = nlohmann::json::array();
    for (auto& t : tensors_) {
        nlohmann::json tj{{"name", t.name},           {"rows", t.rows}, {"cols", t.cols},
                          {"elem", elemName(t.elem)}, {"init", t.init}, {"seed", t.seed},
                          {"class", t.tensorClass}};
        if (t.values) tj["values"] = floatsToJson(*t.values);
        j["tensors"].push_back(tj);
    }
    // Operators keep their order (it decides, for example, the order in which the HBM node serves its
    // readers). Inputs may name a producer listed later (the Broadcasts finalize() appends); only the edges
    // that close a feedback loop carry their declared type, so that a reader can stand in for them.
    std::vector<std::vector<int>> producers(numOps());
    for (int i = 0; i < numOps(); ++i)
        for (auto& r : ops_[i]->inputs())
            producers[i].push_back(r.op);
    std::set<std::pair<int, int>> feedback;
    dependencyOrder(producers, [&](int op, int port) { feedback.insert({op, port}); });
    j["operators"] = nlohmann::json::array();
    for (int i = 0; i < numOps(); ++i) {
        const auto& op = ops_[i];
        nlohmann::json oj{{"kind", op->kind()}, {"name", op->name()}, {"args", op->args()}};
        oj["inputs"] = nlohmann::json::array();
        for (std::size_t port = 0; port < op->inputs().size(); ++port) {
            StreamRef r = op->inputs()[port];
            nlohmann::json in{ops_[r.op]->name(), r.out};
            if (feedback.count({i, static_cast<int>(port)})) {
                auto decl = declaredStream(type(r));
                if (!decl)
                    throw BadInput(
                        fmt::format("graph: feedback stream {} -> {} has type {}, which a graph file "
                                    "cannot declare (selector, scalar or static f32 tile)",
                                    ops_[r.op]->name(), op->name(), type(r).str()));
                in.push_back(*decl);
            }
            oj["inputs"].push_back(in);
        }
        // Shapes the builder overrode by hand are facts the graph cannot re-derive; keep them.
        oj["output_shapes"] = nlohmann::json::array();
        for (auto& o : op->outputs())
            oj["output_shapes"].push_back(o.shape.toJson());
        j["operators"].push_back(oj);
    }
    return j;
}

void Graph::reorder(const std::vector<int>& order) {
    std::vector<int> newIndex(numOps(), -1);
    std::vector<std::unique_ptr<Operator>> ops;
    for (int k = 0; k < static_cast<int>(order.size()); ++k) {
        newIndex[order[k]] = k;
        ops.push_back(std::move(ops_[order[k]]));
    }
    ops_ = std::move(ops);
    names_.clear();
    for (int i = 0; i < numOps(); ++i) {
        names_[ops_[i]->name()] = i;
        for (std::size_t p = 0; p < ops_[i]->inputs().size(); ++p) {
            StreamRef r = ops_[i]->inputs()[p];
            ops_[i]->rewireInput(static_cast<int>(p), {newIndex[r.op], r.out});
        }
    }
}

Graph Graph::load(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw BadInput(fmt::format("{}: cannot open the graph file", path));
    std::ostringstream text;
    text << f.rdbuf();
    try {
        Graph g = fromJson(nlohmann::json::parse(text.str()));
        g.finalize();
        return g;
    } catch (const BadInput& e) {
        throw BadInput(fmt::format("{}: {}", path, e.what()));
    } catch (const nlohmann::json::exception& e) {
        // A missing key or a value of the wrong type: nlohmann's message names it.
        throw BadInput(fmt::format("{}: graph: {}", path, e.what()));
    }
}

Graph Graph::fromJson(const nlohmann::json& j) {
    Graph g;
    if (j.value("format", "") != "steprdu-graph-1")
        throw BadInput("graph: " +
                       expectedFound("format 'steprdu-graph-1'", "'" + j.value("format", "") + "'"));
    for (auto& tj : j.at("tensors")) {
        TensorSpec t;
        t.name = tj.at("name");
        t.rows = jsonInteger(tj.at("rows"), "graph: tensor '" + t.name + "': rows", 0);
        t.cols = jsonInteger(tj.at("cols"), "graph: tensor '" + t.name + "': cols", 0);
        t.elem = parseElemType(tj.at("elem"));
        t.init = tj.at("init");
        t.seed =
            static_cast<std::uint64_t>(jsonInteger(tj.at("seed"), "graph: tensor '" + t.name + "': seed", 0));
        if (tj.contains("values"))
            t.values = std::make_shared<std::vector<float>>(
                floatsFromJson(tj["values"], "graph: tensor '" + t.name + "': values"));
        g.addTensor(t);
        if (tj.contains("class")) g.setTensorClass(t.name, tj["class"].get<std::string>());
    }
    // Operators are built producers first (a feedback edge's declared type stands in for its producer) and
    // then put back in the file's order.
    const auto& specs = j.at("operators");
    const int n = static_cast<int>(specs.size());
    std::map<std::string, int> index;
    for (int i = 0; i < n; ++i)
        if (!index.emplace(specs[i].at("name").get<std::string>(), i).second)
            throw BadInput(fmt::format("graph: operator name '{}' appears twice",
                                       specs[i].at("name").get<std::string>()));
    std::vector<std::vector<int>> producers(n);
    for (int i = 0; i < n; ++i)
        for (auto& in : specs[i].at("inputs")) {
            std::string from = in.at(0).get<std::string>();
            auto it = index.find(from);
            if (it == index.end())
                throw BadInput(
                    fmt::format("graph: operator '{}' input refers to operator '{}', which is not defined",
                                specs[i].at("name").get<std::string>(), from));
            if (in.size() <= 2) producers[i].push_back(it->second);
        }
    std::string loop;
    auto order = dependencyOrder(producers, [&](int op, int) {
        if (loop.empty()) loop = specs[op].at("name").get<std::string>();
    });
    if (!loop.empty())
        throw BadInput(
            fmt::format("graph: operator '{}' is on a loop, and none of the loop's edges declares its "
                        "type (a feedback edge without its declared type)",
                        loop));
    std::vector<int> built(n, -1);
    struct Feedback {
        int placeholder, producer, out;
    };
    std::vector<Feedback> feedback;
    for (int i : order) {
        const auto& oj = specs[i];
        std::vector<StreamRef> ins;
        for (auto& in : oj.at("inputs")) {
            int p = index.at(in.at(0).get<std::string>()),
                out = static_cast<int>(jsonInteger(
                    in.at(1), "graph: operator '" + oj.at("name").get<std::string>() + "': input port", 0,
                    INT32_MAX));
            if (in.size() > 2) {
                int ph = g.add("Placeholder", g.uniqueName(in.at(0).get<std::string>() + ".feedback"),
                               in.at(2), {});
                feedback.push_back({ph, p, out});
                ins.push_back({ph, 0});
            } else {
                ins.push_back({built[p], out});
            }
        }
        built[i] = g.add(oj.at("kind"), oj.at("name"), oj.at("args"), ins);
        // Re-apply shapes that were overridden when the graph was built.
        const auto& shapes = oj.value("output_shapes", nlohmann::json::array());
        for (std::size_t o = 0; o < shapes.size() && o < g.ops_[built[i]]->outputs().size(); ++o)
            g.ops_[built[i]]->overrideShape(static_cast<int>(o), Shape::fromJson(shapes[o]));
    }
    for (auto& f : feedback) {
        StreamRef real{built[f.producer], f.out};
        const StreamType &want = g.type({f.placeholder, 0}), &got = g.type(real);
        if (!want.dtype.equals(got.dtype) || want.shape.rank() != got.shape.rank())
            throw BadInput(fmt::format("graph: feedback stream {} -> {}: {}",
                                       specs[f.producer].at("name").get<std::string>(),
                                       g.ops_[g.consumers({f.placeholder, 0}).at(0).first]->name(),
                                       expectedFound(want.str(), got.str())));
        for (auto [op, port] : g.consumers({f.placeholder, 0}))
            g.ops_[op]->rewireInput(port, real);
    }
    // The file's order; the connected placeholders go last (finalize() drops them).
    std::vector<int> fileOrder(built.begin(), built.end());
    for (auto& f : feedback)
        fileOrder.push_back(f.placeholder);
    g.reorder(fileOrder);
    g.finalized_ = false;
    return g;
}

} // namespace steprdu::step
