// The `steprdu._steprdu` extension: STeP programs built one operator at a time on the C++ GraphBuilder, their
// symbolic metrics, and runs on the interpreter, the roofline and the SystemC chip through the same Runner
// the CLI uses. The Python package (python/steprdu) adds the artifact's names, results and pandas loading.
#include <chrono>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/bindings/JsonPy.h"
#include "python/bindings/Program.h"
#include "step_ops/Metrics.h"
#include "testbenches/Runner.h"
#include "util/Error.h"

namespace pyb = pybind11;
using namespace pybind11::literals;

namespace steprdu::py {

namespace {

using step::Dim;
using step::Expr;
using step::Function;
using step::InitFn;
using step::Shape;
using step::Stream;

std::string typeName(pyb::handle h) {
    return pyb::str(h.get_type().attr("__name__"));
}

Expr exprOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Expr>(h)) return h.cast<Expr>();
    if (pyb::isinstance<Dim>(h)) return h.cast<Dim>().size;
    if (pyb::isinstance<pyb::bool_>(h))
        throw BadInput(
            fmt::format("{}: {}", where, expectedFound("an int, a symbol name or an Expr", "a bool")));
    if (pyb::isinstance<pyb::int_>(h)) return Expr(h.cast<std::int64_t>());
    if (pyb::isinstance<pyb::str>(h)) return Expr::sym(h.cast<std::string>());
    throw BadInput(
        fmt::format("{}: {}", where, expectedFound("an int, a symbol name or an Expr", "a " + typeName(h))));
}

// An int is a static dimension, a string a dynamic one named by it, an Expr one derived from others.
Dim dimOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Dim>(h)) return h.cast<Dim>();
    if (pyb::isinstance<pyb::int_>(h) && !pyb::isinstance<pyb::bool_>(h)) {
        const auto n = h.cast<std::int64_t>();
        if (n < 0)
            throw BadInput(fmt::format("{}: {}", where, expectedFound("a size >= 0", std::to_string(n))));
        return Dim(n);
    }
    if (pyb::isinstance<pyb::str>(h)) return Dim::dynamic(h.cast<std::string>());
    if (pyb::isinstance<Expr>(h)) return Dim::derived(h.cast<Expr>());
    throw BadInput(fmt::format("{}: {}", where,
                               expectedFound("an int, a symbol name, a Dim or an Expr", "a " + typeName(h))));
}

Shape shapeOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Shape>(h)) return h.cast<Shape>();
    if (!pyb::isinstance<pyb::list>(h) && !pyb::isinstance<pyb::tuple>(h))
        throw BadInput(
            fmt::format("{}: {}", where, expectedFound("a list or tuple of dimensions", "a " + typeName(h))));
    std::vector<Dim> dims;
    std::size_t i = 0;
    for (auto d : h)
        dims.push_back(dimOf(d, fmt::format("{}[{}]", where, i++)));
    return Shape(std::move(dims));
}

std::vector<std::int64_t> intsOf(pyb::handle h, const std::string& where) {
    const auto j = toJson(h, where);
    if (!j.is_array())
        throw BadInput(fmt::format("{}: {}", where, expectedFound("a list of integers", "a " + typeName(h))));
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_number_integer())
            throw BadInput(fmt::format("{}[{}]: {}", where, i, expectedFound("an integer", j[i].dump())));
        out.push_back(j[i].get<std::int64_t>());
    }
    return out;
}

Function fnOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Function>(h)) return h.cast<Function>();
    if (pyb::isinstance<pyb::str>(h)) return Function::fromJson({{"fn", h.cast<std::string>()}});
    if (pyb::isinstance<pyb::dict>(h)) return Function::fromJson(toJson(h, where));
    throw BadInput(fmt::format(
        "{}: {}", where, expectedFound("a Function (steprdu.map_fn.Matmul(), ...)", "a " + typeName(h))));
}

InitFn initOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<InitFn>(h)) return h.cast<InitFn>();
    if (pyb::isinstance<pyb::dict>(h)) return InitFn::fromJson(toJson(h, where));
    throw BadInput(fmt::format(
        "{}: {}", where, expectedFound("an InitFn (steprdu.init_fn.Zero(...), ...)", "a " + typeName(h))));
}

// The program's own stream; one of another graph is refused (its operator indices mean nothing here).
Stream streamOf(Program& p, pyb::handle h, const std::string& where) {
    if (!pyb::isinstance<Stream>(h))
        throw BadInput(
            fmt::format("{}: {}", where, expectedFound("a Stream of this graph", "a " + typeName(h))));
    Stream s = h.cast<Stream>();
    if (s.builder() != &p.builder())
        throw BadInput(
            fmt::format("{}: {}", where, expectedFound("a Stream of this graph", "one of another graph")));
    return s;
}

std::vector<Stream> streamsOf(Program& p, pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Stream>(h)) return {streamOf(p, h, where)};
    if (!pyb::isinstance<pyb::list>(h) && !pyb::isinstance<pyb::tuple>(h))
        throw BadInput(fmt::format("{}: {}", where, expectedFound("a list of Streams", "a " + typeName(h))));
    std::vector<Stream> out;
    std::size_t i = 0;
    for (auto s : h)
        out.push_back(streamOf(p, s, fmt::format("{}[{}]", where, i++)));
    return out;
}

int intOf(pyb::handle h, const std::string& where) {
    if (!pyb::isinstance<pyb::int_>(h) || pyb::isinstance<pyb::bool_>(h))
        throw BadInput(fmt::format("{}: {}", where, expectedFound("an integer", "a " + typeName(h))));
    return h.cast<int>();
}

step::MapOptions mapOptions(std::int64_t computeBw, bool writeBackMu) {
    if (computeBw < 0)
        throw BadInput(fmt::format("compute_bw: {}", expectedFound(">= 0", std::to_string(computeBw))));
    return {computeBw, writeBackMu};
}

// Symbol -> count from a Python dict.
step::Bindings bindingsOf(pyb::handle h, const std::string& where) {
    step::Bindings b;
    if (h.is_none()) return b;
    const auto j = toJson(h, where);
    if (!j.is_object()) throw BadInput(fmt::format("{}: {}", where, expectedFound("a dict", j.dump())));
    for (const auto& [k, v] : j.items()) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
            throw BadInput(fmt::format("{}.{}: {}", where, k, expectedFound("a count >= 0", v.dump())));
        b[k] = v.get<std::int64_t>();
    }
    return b;
}

pyb::object numpyOf(const std::vector<float>& v, std::int64_t rows, std::int64_t cols) {
    pyb::array_t<float> a({rows, cols});
    std::copy(v.begin(), v.end(), a.mutable_data());
    return std::move(a);
}

// A run's result object, stats tree and functional tensors (2-D numpy arrays, by tensor name, shaped as the
// run's graph declares them).
pyb::dict runResult(const nlohmann::json& result, const tb::RunArtifacts& art) {
    pyb::dict tensors;
    for (const auto& t : art.graph.at("tensors")) {
        const std::string name = t.at("name");
        auto it = art.tensors.find(name);
        if (it != art.tensors.end())
            tensors[pyb::str(name)] =
                numpyOf(it->second, t.at("rows").get<std::int64_t>(), t.at("cols").get<std::int64_t>());
    }
    return pyb::dict("result"_a = fromJson(result), "stats"_a = fromJson(art.stats), "tensors"_a = tensors);
}

tb::RunRequest request(const std::string& backend, const std::string& hw,
                       const std::vector<std::string>& sets, bool functional, std::int64_t maxCycles,
                       double maxWallSeconds, std::int64_t watchdogCycles) {
    tb::RunRequest r;
    r.backend = backend;
    r.hw = hw;
    r.sets = sets;
    r.functional = functional;
    r.maxCycles = maxCycles;
    r.maxWallSeconds = maxWallSeconds;
    r.watchdogCycles = watchdogCycles;
    return r;
}

pyb::dict simulate(const Program& p, const std::string& backend, const std::string& hw,
                   const std::vector<std::string>& sets, bool functional, std::int64_t depth,
                   int timingElemBytes, const std::vector<std::string>& phases, std::int64_t maxCycles,
                   double maxWallSeconds, std::int64_t watchdogCycles) {
    if (depth < 0) throw BadInput(fmt::format("depth: {}", expectedFound(">= 0", std::to_string(depth))));
    if (timingElemBytes < 0)
        throw BadInput(
            fmt::format("timing_elem_bytes: {}", expectedFound(">= 0", std::to_string(timingElemBytes))));
    auto req = request(backend, hw, sets, functional, maxCycles, maxWallSeconds, watchdogCycles);
    const auto t0 = std::chrono::steady_clock::now();
    tb::Workload w;
    w.graph = p.finalized();
    w.bindings = p.bindings();
    w.channelDepth = depth;
    w.timingElemBytes = timingElemBytes;
    w.phases = phases;
    w.figureFlops = step::bindMetrics(w.graph, step::analyzeGraph(w.graph), w.bindings).flops;
    w.params = {{"operators", w.graph.numOps()}, {"depth", depth}, {"functional", true}};
    tb::RunArtifacts art;
    nlohmann::json r;
    {
        pyb::gil_scoped_release release;
        const auto cfg = tb::hardwareOf(req);
        r = tb::runWorkload(req, cfg, w, &art, t0);
    }
    r["testbench"] = "program";
    return runResult(r, art);
}

pyb::dict runBuiltin(const std::string& testbench, const std::vector<std::string>& knobs,
                     const std::string& backend, const std::string& hw, const std::vector<std::string>& sets,
                     bool functional, std::int64_t maxCycles, double maxWallSeconds,
                     std::int64_t watchdogCycles) {
    auto req = request(backend, hw, sets, functional, maxCycles, maxWallSeconds, watchdogCycles);
    req.testbench = testbench;
    req.knobs = knobs;
    tb::RunArtifacts art;
    nlohmann::json r;
    {
        pyb::gil_scoped_release release;
        r = tb::runTestbench(req, &art);
    }
    return runResult(r, art);
}

// Streams returned as a list (or tuple), each keeping its graph alive.
pyb::list kept(pyb::handle graph, const std::vector<Stream>& streams) {
    pyb::list out;
    for (const auto& s : streams) {
        pyb::object o = pyb::cast(s);
        pyb::detail::keep_alive_impl(o, graph);
        out.append(o);
    }
    return out;
}

void defineTypes(pyb::module_& m) {
    pyb::class_<Expr>(m, "Expr", "A symbolic size: an integer expression over named dimensions")
        .def(pyb::init([](pyb::handle h) { return exprOf(h, "Expr"); }), "value"_a)
        .def_static("sym", &Expr::sym, "name"_a, "the symbol `name`")
        .def(
            "eval",
            [](const Expr& e, pyb::handle b) -> pyb::object {
                auto v = e.eval(bindingsOf(b, "bindings"));
                return v ? pyb::object(pyb::int_(*v)) : pyb::object(pyb::none());
            },
            "bindings"_a = pyb::none(), "the value with symbols bound (None if one is unbound)")
        .def_property_readonly("is_const", &Expr::isConst)
        .def("__add__", [](const Expr& a, pyb::handle b) { return a + exprOf(b, "Expr + x"); })
        .def("__radd__", [](const Expr& a, pyb::handle b) { return exprOf(b, "x + Expr") + a; })
        .def("__mul__", [](const Expr& a, pyb::handle b) { return a * exprOf(b, "Expr * x"); })
        .def("__rmul__", [](const Expr& a, pyb::handle b) { return exprOf(b, "x * Expr") * a; })
        .def("__sub__", [](const Expr& a, pyb::handle b) { return a - exprOf(b, "Expr - x"); })
        .def("__floordiv__",
             [](const Expr& a, pyb::handle b) { return Expr::floorDiv(a, exprOf(b, "Expr // x")); })
        .def("__str__", &Expr::str)
        .def("__repr__", [](const Expr& e) { return "Expr(" + e.str() + ")"; });
    m.def(
        "ceil_div",
        [](pyb::handle a, pyb::handle b) { return Expr::ceilDiv(exprOf(a, "a"), exprOf(b, "b")); }, "a"_a,
        "b"_a);

    pyb::class_<Dim>(m, "Dim", "A stream dimension: static (an int), dynamic or ragged (a symbol)")
        .def(pyb::init([](pyb::handle h) { return dimOf(h, "Dim"); }), "size"_a)
        .def_static("dynamic", &Dim::dynamic, "symbol"_a, "a data-dependent size named `symbol`")
        .def_static("ragged", &Dim::ragged, "symbol"_a, "a size that differs per position of the outer dims")
        .def_property_readonly("size", [](const Dim& d) { return d.size; })
        .def_property_readonly("kind",
                               [](const Dim& d) {
                                   return d.kind == step::DimKind::Static    ? "static"
                                          : d.kind == step::DimKind::Dynamic ? "dynamic"
                                                                             : "ragged";
                               })
        .def("__str__", &Dim::str)
        .def("__repr__", [](const Dim& d) { return "Dim(" + d.str() + ")"; });

    pyb::class_<Shape>(m, "Shape", "A stream's shape, outermost dimension first")
        .def(pyb::init([](pyb::handle h) { return shapeOf(h, "Shape"); }), "dims"_a)
        .def_property_readonly("dims", &Shape::dims)
        .def_property_readonly("rank", &Shape::rank)
        .def("total_elements", &Shape::totalElements)
        .def("__len__", &Shape::numDims)
        .def("__str__", &Shape::str)
        .def("__repr__", [](const Shape& s) { return "Shape(" + s.str() + ")"; });

    pyb::class_<Function>(m, "Function", "What Map, Accum, Scan and MapAccum apply to each element")
        .def_static(
            "from_json", [](pyb::handle h) { return fnOf(h, "Function"); }, "spec"_a)
        .def("to_json", [](const Function& f) { return fromJson(f.toJson()); })
        .def_property_readonly("name", &Function::name)
        .def_property_readonly("arity", &Function::arity)
        .def("__repr__", [](const Function& f) { return "Function(" + f.toJson().dump() + ")"; });

    pyb::class_<InitFn>(m, "InitFn", "An accumulator's initial value")
        .def_static(
            "from_json", [](pyb::handle h) { return initOf(h, "InitFn"); }, "spec"_a)
        .def("to_json", [](const InitFn& f) { return fromJson(f.toJson()); })
        .def("__repr__", [](const InitFn& f) { return "InitFn(" + f.toJson().dump() + ")"; });

    pyb::class_<Stream>(m, "Stream", "One output stream of an operator of a Graph")
        .def_property_readonly("shape", &Stream::shape)
        .def_property_readonly("rank", [](const Stream& s) { return s.shape().rank(); })
        .def_property_readonly("dtype", [](const Stream& s) { return s.type().dtype.str(); })
        .def_property_readonly("type", [](const Stream& s) { return s.type().str(); })
        .def_property_readonly(
            "tile",
            [](const Stream& s) -> pyb::object {
                const auto& d = s.type().dtype;
                if (!d.isTile()) return pyb::none();
                return pyb::make_tuple(d.tile.rows, d.tile.cols, step::elemName(d.tile.elem));
            },
            "(rows, cols, elem) of a tile stream's elements; None for other element types")
        .def(
            "set_shape", [](Stream& s, pyb::handle h) { s.setShape(shapeOf(h, "set_shape")); }, "shape"_a,
            "states a known fact about a data-dependent shape (Listing 1, line 27)")
        .def("__repr__", [](const Stream& s) { return s.type().str(); });
}

void defineProgram(pyb::module_& m) {
    using P = Program;
    auto ka = pyb::keep_alive<0, 1>(); // a stream keeps its graph alive
    pyb::class_<P>(m, "Graph", "A STeP program, built one operator at a time (docs/python.md)")
        .def(pyb::init<>())
        // Off-chip tensors.
        .def(
            "tensor",
            [](P& p, const std::string& name, pyb::object values, std::int64_t rows, std::int64_t cols,
               const std::string& init, std::uint64_t seed, const std::string& cls) {
                if (!values.is_none()) {
                    auto a = pyb::array_t<float, pyb::array::c_style | pyb::array::forcecast>::ensure(values);
                    if (!a || (a.ndim() != 2 && a.ndim() != 1))
                        throw BadInput(fmt::format(
                            "tensor '{}': values: {}", name,
                            expectedFound("a 1-D or 2-D array of numbers", "a " + typeName(values))));
                    rows = a.ndim() == 2 ? a.shape(0) : 1;
                    cols = a.ndim() == 2 ? a.shape(1) : a.shape(0);
                    p.builder().tensor(name, rows, cols, std::vector<float>(a.data(), a.data() + a.size()));
                } else {
                    if (rows <= 0 || cols <= 0)
                        throw BadInput(
                            fmt::format("tensor '{}': {}", name,
                                        expectedFound("values, or rows and cols > 0",
                                                      fmt::format("rows={} cols={}", rows, cols))));
                    p.builder().tensor(name, rows, cols, init, seed);
                }
                p.builder().graph().setTensorClass(name, cls);
            },
            "name"_a, "values"_a = pyb::none(), "rows"_a = 0, "cols"_a = 0, "init"_a = "zeros", "seed"_a = 0,
            "cls"_a = "activations",
            "declares an off-chip tensor: from a numpy array, or rows x cols generated by init (zeros, "
            "randn, "
            "xavier); cls (weights, activations, kv_cache) decides its memory tier")
        .def_property_readonly("tensors",
                               [](const P& p) {
                                   std::vector<std::string> names;
                                   for (const auto& t : p.graph().tensors())
                                       names.push_back(t.name);
                                   return names;
                               })
        // Off-chip memory operators.
        .def(
            "linear_offchip_load",
            [](P& p, const std::string& tensor, std::int64_t tileRows, std::int64_t tileCols,
               pyb::handle stride, pyb::handle outShape, pyb::handle ref, int elemBytes, int parDispatch,
               const std::string& name) {
                std::optional<Stream> r;
                if (!ref.is_none()) r = streamOf(p, ref, "ref");
                return p.builder().linearOffChipLoad(tensor, tileRows, tileCols, intsOf(stride, "stride"),
                                                     intsOf(outShape, "out_shape"), r, elemBytes, parDispatch,
                                                     name);
            },
            "tensor"_a, "tile_rows"_a, "tile_cols"_a, "stride"_a, "out_shape"_a, "ref"_a = pyb::none(),
            "elem_bytes"_a = 0, "par_dispatch"_a = 1, "name"_a = "", ka)
        .def(
            "linear_offchip_store",
            [](P& p, pyb::handle in, const std::string& tensor, int parDispatch, const std::string& name) {
                p.builder().linearOffChipStore(streamOf(p, in, "input"), tensor, parDispatch, name);
            },
            "input"_a, "tensor"_a, "par_dispatch"_a = 1, "name"_a = "")
        .def(
            "random_offchip_load",
            [](P& p, pyb::handle raddr, const std::string& tensor, std::int64_t tileRows,
               std::int64_t tileCols, int elemBytes, std::int64_t baseTile, const std::string& name) {
                return p.builder().randomOffChipLoad(streamOf(p, raddr, "raddr"), tensor, tileRows, tileCols,
                                                     elemBytes, baseTile, name);
            },
            "raddr"_a, "tensor"_a, "tile_rows"_a, "tile_cols"_a, "elem_bytes"_a = 0, "base_tile"_a = 0,
            "name"_a = "", ka)
        .def(
            "random_offchip_store",
            [](P& p, pyb::handle waddr, pyb::handle wdata, const std::string& tensor, int elemBytes,
               const std::string& name) {
                return p.builder().randomOffChipStore(streamOf(p, waddr, "waddr"),
                                                      streamOf(p, wdata, "wdata"), tensor, elemBytes, name);
            },
            "waddr"_a, "wdata"_a, "tensor"_a, "elem_bytes"_a = 0, "name"_a = "", ka)
        // On-chip memory operators.
        .def(
            "bufferize",
            [](P& p, pyb::handle in, int rank, const std::string& name) {
                return p.builder().bufferize(streamOf(p, in, "input"), rank, name);
            },
            "input"_a, "rank"_a, "name"_a = "", ka)
        .def(
            "streamify",
            [](P& p, pyb::handle buffers, pyb::handle repeat, pyb::handle ref, const std::string& name) {
                if (!ref.is_none())
                    return p.builder().streamify(streamOf(p, buffers, "buffers"), streamOf(p, ref, "ref"),
                                                 name);
                std::vector<std::int64_t> r;
                if (!repeat.is_none()) r = intsOf(repeat, "repeat");
                return p.builder().streamify(streamOf(p, buffers, "buffers"), r, name);
            },
            "buffers"_a, "repeat"_a = pyb::none(), "ref"_a = pyb::none(), "name"_a = "", ka)
        // Routing and merging.
        .def(
            "partition",
            [](pyb::object self, pyb::handle in, pyb::handle sel, int rank, int n, const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self, p.builder().partition(streamOf(p, in, "input"), streamOf(p, sel, "control"),
                                                        rank, n, name));
            },
            "input"_a, "control"_a, "rank"_a, "num_consumers"_a, "name"_a = "")
        .def(
            "reassemble",
            [](P& p, pyb::handle ins, pyb::handle sel, int rank, const std::string& name) {
                return p.builder().reassemble(streamsOf(p, ins, "inputs"), streamOf(p, sel, "control"), rank,
                                              name);
            },
            "inputs"_a, "control"_a, "rank"_a, "name"_a = "", ka)
        .def(
            "eager_merge",
            [](pyb::object self, pyb::handle ins, int rank, const std::string& name) {
                P& p = self.cast<P&>();
                auto [data, sel] = p.builder().eagerMerge(streamsOf(p, ins, "inputs"), rank, name);
                return pyb::tuple(kept(self, {data, sel}));
            },
            "inputs"_a, "rank"_a, "name"_a = "", "returns (data, selector)")
        .def(
            "parallelize",
            [](pyb::object self, pyb::handle in, int n, const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self, p.builder().parallelize(streamOf(p, in, "input"), n, name));
            },
            "input"_a, "num_consumers"_a, "name"_a = "")
        // Higher-order operators.
        .def(
            "map",
            [](P& p, pyb::handle ins, pyb::handle fn, std::int64_t bw, bool wb, const std::string& name) {
                return p.builder().map(streamsOf(p, ins, "inputs"), fnOf(fn, "fn"), mapOptions(bw, wb), name);
            },
            "inputs"_a, "fn"_a, "compute_bw"_a = 0, "write_back_mu"_a = false, "name"_a = "", ka)
        .def(
            "accum",
            [](P& p, pyb::handle in, pyb::handle fn, pyb::handle init, int rank, std::int64_t bw, bool wb,
               pyb::handle outTile, const std::string& name) {
                std::optional<step::TileType> t;
                if (!outTile.is_none()) {
                    if (!pyb::isinstance<pyb::dict>(outTile) || !outTile.contains("rows") ||
                        !outTile.contains("cols"))
                        throw BadInput(
                            fmt::format("out_tile: {}", expectedFound("a dict with rows, cols and elem",
                                                                      std::string(pyb::repr(outTile)))));
                    auto d = outTile.cast<pyb::dict>();
                    t = step::TileType{exprOf(d["rows"], "out_tile.rows"), exprOf(d["cols"], "out_tile.cols"),
                                       step::parseElemType(d.contains("elem") ? d["elem"].cast<std::string>()
                                                                              : std::string("f32"))};
                }
                return p.builder().accum(streamOf(p, in, "input"), fnOf(fn, "fn"), initOf(init, "init"), rank,
                                         mapOptions(bw, wb), t, name);
            },
            "input"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "out_tile"_a = pyb::none(), "name"_a = "", ka)
        .def(
            "scan",
            [](P& p, pyb::handle in, pyb::handle fn, pyb::handle init, int rank, std::int64_t bw, bool wb,
               const std::string& name) {
                return p.builder().scan(streamOf(p, in, "input"), fnOf(fn, "fn"), initOf(init, "init"), rank,
                                        mapOptions(bw, wb), name);
            },
            "input"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "name"_a = "", ka)
        .def(
            "map_accum",
            [](P& p, pyb::handle a, pyb::handle b, pyb::handle fn, pyb::handle init, int rank,
               std::int64_t bw, bool wb, const std::string& name) {
                return p.builder().mapAccum(streamOf(p, a, "in1"), streamOf(p, b, "in2"), fnOf(fn, "fn"),
                                            initOf(init, "init"), rank, mapOptions(bw, wb), name);
            },
            "in1"_a, "in2"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "name"_a = "", ka)
        .def(
            "flat_map",
            [](P& p, pyb::handle in, pyb::handle fnArgs, const std::string& name) {
                return p.builder().flatMap(streamOf(p, in, "input"), toJson(fnArgs, "fn_args"), name);
            },
            "input"_a, "fn_args"_a, "name"_a = "", ka)
        .def(
            "retile_streamify",
            [](P& p, pyb::handle in, bool splitRows, bool filterPadding, const std::string& name) {
                return p.builder().retileStreamify(streamOf(p, in, "input"), splitRows, filterPadding, name);
            },
            "input"_a, "split_rows"_a = true, "filter_padding"_a = false, "name"_a = "", ka)
        .def(
            "expert_addr_gen",
            [](P& p, pyb::handle sel, std::int64_t tiles, std::int64_t base, const std::string& name) {
                return p.builder().expertAddrGen(streamOf(p, sel, "input"), tiles, base, name);
            },
            "input"_a, "tiles_per_expert"_a, "base_tile"_a = 0, "name"_a = "", ka)
        .def(
            "cache_read_addr_gen",
            [](P& p, pyb::handle idx, pyb::handle count, std::int64_t rowOffset, const std::string& name) {
                return p.builder().cacheReadAddrGen(streamOf(p, idx, "idx"), streamOf(p, count, "seq_len"),
                                                    rowOffset, name);
            },
            "idx"_a, "seq_len"_a, "row_offset"_a, "name"_a = "", ka)
        .def(
            "filter_last_tile",
            [](P& p, pyb::handle count, const std::string& name) {
                return p.builder().filterLastTile(streamOf(p, count, "input"), name);
            },
            "input"_a, "name"_a = "", ka)
        // Shape operators.
        .def(
            "flatten",
            [](P& p, pyb::handle in, int lo, int hi, const std::string& name) {
                return p.builder().flatten(streamOf(p, in, "input"), lo, hi, name);
            },
            "input"_a, "min_rank"_a, "max_rank"_a, "name"_a = "", ka)
        .def(
            "reshape",
            [](P& p, pyb::handle in, std::int64_t chunk, int rank, bool pad, const std::string& name) {
                return p.builder().reshape(streamOf(p, in, "input"), chunk, rank, pad, name);
            },
            "input"_a, "chunk"_a, "rank"_a, "pad"_a = false, "name"_a = "", ka)
        .def(
            "reshape_with_padding",
            [](pyb::object self, pyb::handle in, std::int64_t chunk, const std::string& name) {
                P& p = self.cast<P&>();
                auto [data, pad] = p.builder().reshapeWithPadding(streamOf(p, in, "input"), chunk, name);
                return pyb::tuple(kept(self, {data, pad}));
            },
            "input"_a, "chunk"_a, "name"_a = "", "returns (data, padding)")
        .def(
            "reshape_add_outer",
            [](P& p, pyb::handle in, std::int64_t chunk, bool pad, const std::string& name) {
                return p.builder().reshapeAddOuter(streamOf(p, in, "input"), chunk, pad, name);
            },
            "input"_a, "chunk"_a, "pad"_a = false, "name"_a = "", ka)
        .def(
            "promote",
            [](P& p, pyb::handle in, pyb::handle rank, const std::string& name) {
                std::optional<int> r;
                if (!rank.is_none()) r = intOf(rank, "rank");
                return p.builder().promote(streamOf(p, in, "input"), r, name);
            },
            "input"_a, "rank"_a = pyb::none(), "name"_a = "", ka)
        .def(
            "expand",
            [](P& p, pyb::handle in, pyb::handle ref, int rank, const std::string& name) {
                return p.builder().expand(streamOf(p, in, "input"), streamOf(p, ref, "ref"), rank, name);
            },
            "input"_a, "ref"_a, "rank"_a, "name"_a = "", ka)
        .def(
            "repeat_static",
            [](P& p, pyb::handle in, std::int64_t count, const std::string& name) {
                return p.builder().repeatStatic(streamOf(p, in, "input"), count, name);
            },
            "input"_a, "count"_a, "name"_a = "", ka)
        .def(
            "zip",
            [](P& p, pyb::handle a, pyb::handle b, const std::string& name) {
                return p.builder().zip(streamOf(p, a, "in1"), streamOf(p, b, "in2"), name);
            },
            "in1"_a, "in2"_a, "name"_a = "", ka)
        // Sources and sinks.
        .def(
            "source",
            [](P& p, const std::string& type, pyb::handle shape, pyb::handle tokens, pyb::handle extra,
               const std::string& name) {
                return p.builder().source(type, shapeOf(shape, "shape"), toJson(tokens, "tokens"),
                                          extra.is_none() ? nlohmann::json::object() : toJson(extra, "extra"),
                                          name);
            },
            "type"_a, "shape"_a, "tokens"_a, "extra"_a = pyb::none(), "name"_a = "", ka)
        .def(
            "select_gen",
            [](P& p, const std::vector<std::vector<int>>& selected, int width, pyb::handle shape,
               const std::string& name) {
                return p.builder().selectGen(selected, width, shapeOf(shape, "shape"), name);
            },
            "selected"_a, "width"_a, "shape"_a, "name"_a = "SelectGen", ka)
        .def(
            "metadata_gen",
            [](P& p, const std::vector<std::uint64_t>& values, pyb::handle shape, const std::string& name) {
                return p.builder().metadataGen(values, shapeOf(shape, "shape"), name);
            },
            "values"_a, "shape"_a, "name"_a = "MetadataGen", ka)
        .def(
            "sink",
            [](P& p, pyb::handle in, const std::string& name) {
                p.builder().sink(streamOf(p, in, "input"), name);
            },
            "input"_a, "name"_a = "Sink")
        .def(
            "placeholder",
            [](P& p, const std::string& type, pyb::handle shape, pyb::handle extra, const std::string& name) {
                return p.builder().placeholder(
                    type, shapeOf(shape, "shape"),
                    extra.is_none() ? nlohmann::json::object() : toJson(extra, "extra"), name);
            },
            "type"_a, "shape"_a, "extra"_a = pyb::none(), "name"_a = "Placeholder", ka)
        .def(
            "connect",
            [](P& p, pyb::handle ph, pyb::handle real) {
                p.builder().connect(streamOf(p, ph, "placeholder"), streamOf(p, real, "stream"));
            },
            "placeholder"_a, "stream"_a)
        .def(
            "add",
            [](pyb::object self, const std::string& kind, pyb::handle args, pyb::handle ins,
               const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self,
                            p.builder().add(kind, toJson(args, "args"), streamsOf(p, ins, "inputs"), name));
            },
            "kind"_a, "args"_a, "inputs"_a = pyb::list(), "name"_a = "",
            "adds any operator by kind and graph-file arguments; returns its output streams")
        // Sizes, metrics and the graph file.
        .def(
            "bind",
            [](P& p, const std::string& sym, std::int64_t n) {
                if (n < 0)
                    throw BadInput(
                        fmt::format("bind '{}': {}", sym, expectedFound("a count >= 0", std::to_string(n))));
                p.bindings()[sym] = n;
            },
            "symbol"_a, "count"_a, "the value a data-dependent size takes in runs and metrics")
        .def_property_readonly("bindings", [](const P& p) { return p.bindings(); })
        .def_property_readonly("operators",
                               [](const P& p) {
                                   std::vector<std::string> names;
                                   for (int i = 0; i < p.graph().numOps(); ++i)
                                       names.push_back(p.graph().op(i).name());
                                   return names;
                               })
        .def(
            "off_chip_traffic", [](const P& p) { return step::analyzeGraph(p.finalized()).offChipBytes; },
            "bytes every off-chip load and store moves (symbolic)")
        .def(
            "on_chip_requirement", [](const P& p) { return step::analyzeGraph(p.finalized()).onChipBytes; },
            "on-chip bytes as the paper's figures count them (symbolic)")
        .def(
            "flops", [](const P& p) { return step::analyzeGraph(p.finalized()).flops; },
            "FLOPs of every Map, Accum, Scan and MapAccum application (symbolic)")
        .def("allocated_flops_per_cycle",
             [](const P& p) { return step::analyzeGraph(p.finalized()).allocatedFlopsPerCycle; })
        .def(
            "metrics",
            [](const P& p, pyb::handle b) {
                step::Bindings bind = p.bindings();
                for (const auto& [k, v] : bindingsOf(b, "bindings"))
                    bind[k] = v;
                const auto g = p.finalized();
                const auto m = step::bindMetrics(g, step::analyzeGraph(g), bind);
                return pyb::dict("off_chip_bytes"_a = m.offChipBytes, "on_chip_bytes"_a = m.onChipBytes,
                                 "on_chip_bytes_active"_a = m.onChipBytesActive, "flops"_a = m.flops,
                                 "allocated_flops_per_cycle"_a = m.allocatedFlopsPerCycle);
            },
            "bindings"_a = pyb::none(),
            "the metrics with every symbol bound (the graph's bindings, then these)")
        .def(
            "to_json", [](const P& p) { return p.toJson().dump(1); },
            "the graph file (steprdu-graph-1) that `steprdu run-graph` runs")
        .def("__repr__", [](const P& p) {
            return fmt::format("<steprdu.Graph: {} operators, {} tensors>", p.graph().numOps(),
                               p.graph().tensors().size());
        });
}

} // namespace

} // namespace steprdu::py

PYBIND11_MODULE(_steprdu, m) {
    using namespace steprdu;
    m.doc() = "steprdu's C++ core: STeP programs, their metrics and runs on every backend";
    // Errors carry the CLI's messages; each kind is its own exception class (the CLI's exit codes).
    static pyb::exception<StepError> error(m, "Error");
    static pyb::exception<BadInput> badInput(m, "BadInputError", error.ptr());
    static pyb::exception<NoProgress> noProgress(m, "DeadlockError", error.ptr());
    static pyb::exception<LimitReached> limit(m, "LimitError", error.ptr());
    pyb::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const BadInput& e) {
            badInput(e.what());
        } catch (const NoProgress& e) {
            noProgress(e.what());
        } catch (const LimitReached& e) {
            limit(e.what());
        } catch (const StepError& e) {
            error(e.what());
        }
    });
    py::defineTypes(m);
    py::defineProgram(m);
    m.def("simulate", &py::simulate, "graph"_a, "backend"_a, "hw"_a, "sets"_a, "functional"_a, "depth"_a,
          "timing_elem_bytes"_a, "phases"_a, "max_cycles"_a, "max_wall_seconds"_a, "watchdog_cycles"_a);
    m.def("run", &py::runBuiltin, "testbench"_a, "knobs"_a, "backend"_a, "hw"_a, "sets"_a, "functional"_a,
          "max_cycles"_a, "max_wall_seconds"_a, "watchdog_cycles"_a);
    m.def("testbenches", [] {
        pyb::dict d;
        for (const auto& t : tb::testbenches()) {
            pyb::dict knobs;
            for (const auto& k : t->knobs())
                knobs[pyb::str(k.name)] = pyb::dict("default"_a = k.defaultValue, "doc"_a = k.doc);
            d[pyb::str(t->name())] = pyb::dict("doc"_a = t->doc(), "knobs"_a = knobs);
        }
        return d;
    });
    m.attr("default_watchdog_cycles") = tb::kDefaultWatchdogCycles;
}
