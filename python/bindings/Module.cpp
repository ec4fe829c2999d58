// The `steprdu._steprdu` extension: STeP programs built one operator at a time on the C++ GraphBuilder, their
// symbolic metrics, and runs on the interpreter, the roofline and the SystemC chip through the same Runner
// the CLI uses. The Python package (python/steprdu) adds the artifact's names, results and pandas loading,
// and wraps every method here so that a call Python cannot bind raises steprdu.ArgumentError.
#include <chrono>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/bindings/JsonPy.h"
#include "python/bindings/KernelProgram.h"
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

// Bad inputs that Python names by their own classes: a value of the wrong Python type
// (steprdu.ArgumentError, also a TypeError) and an index out of range (steprdu.OutOfRangeError, also an
// IndexError). Both are BadInput: the CLI's exit code 2.
struct WrongType : BadInput {
    using BadInput::BadInput;
};
struct OutOfRange : BadInput {
    using BadInput::BadInput;
};

// One operator of a Graph, as the artifact's constructors return it: its outputs are `op[i]` or `(op, i)`,
// its metrics its own. The index is stable: the builder never renumbers operators.
struct OpHandle {
    step::GraphBuilder* b = nullptr;
    int index = -1;
    const step::Operator& op() const { return b->graph().op(index); }
    int numOutputs() const { return static_cast<int>(op().outputs().size()); }
};

std::string typeName(pyb::handle h) {
    return pyb::str(h.get_type().attr("__name__"));
}

std::string fail(const std::string& where, const std::string& expected, const std::string& found) {
    return fmt::format("{}: {}", where, expectedFound(expected, found));
}

Expr exprOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Expr>(h)) return h.cast<Expr>();
    if (pyb::isinstance<Dim>(h)) return h.cast<Dim>().size;
    if (pyb::isinstance<pyb::bool_>(h))
        throw WrongType(fail(where, "an int, a symbol name or an Expr", "a bool"));
    if (pyb::isinstance<pyb::int_>(h)) return Expr(h.cast<std::int64_t>());
    if (pyb::isinstance<pyb::str>(h)) return Expr::sym(h.cast<std::string>());
    throw WrongType(fail(where, "an int, a symbol name or an Expr", "a " + typeName(h)));
}

// An int is a static dimension, a string a dynamic one named by it, an Expr one derived from others.
Dim dimOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Dim>(h)) return h.cast<Dim>();
    if (pyb::isinstance<pyb::int_>(h) && !pyb::isinstance<pyb::bool_>(h)) {
        const auto n = h.cast<std::int64_t>();
        if (n < 0) throw BadInput(fail(where, "a size >= 0", std::to_string(n)));
        return Dim(n);
    }
    if (pyb::isinstance<pyb::str>(h)) return Dim::dynamic(h.cast<std::string>());
    if (pyb::isinstance<Expr>(h)) return Dim::derived(h.cast<Expr>());
    throw WrongType(fail(where, "an int, a symbol name, a Dim or an Expr", "a " + typeName(h)));
}

Shape shapeOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Shape>(h)) return h.cast<Shape>();
    if (!pyb::isinstance<pyb::list>(h) && !pyb::isinstance<pyb::tuple>(h))
        throw WrongType(fail(where, "a list or tuple of dimensions", "a " + typeName(h)));
    std::vector<Dim> dims;
    std::size_t i = 0;
    for (auto d : h)
        dims.push_back(dimOf(d, fmt::format("{}[{}]", where, i++)));
    return Shape(std::move(dims));
}

std::vector<std::int64_t> intsOf(pyb::handle h, const std::string& where) {
    if (!pyb::isinstance<pyb::list>(h) && !pyb::isinstance<pyb::tuple>(h))
        throw WrongType(fail(where, "a list of integers", "a " + typeName(h)));
    const auto j = toJson(h, where);
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (!j[i].is_number_integer())
            throw WrongType(fail(fmt::format("{}[{}]", where, i), "an integer", j[i].dump()));
        out.push_back(j[i].get<std::int64_t>());
    }
    return out;
}

Function fnOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Function>(h)) return h.cast<Function>();
    if (pyb::isinstance<pyb::str>(h)) return Function::fromJson({{"fn", h.cast<std::string>()}});
    if (pyb::isinstance<pyb::dict>(h)) return Function::fromJson(toJson(h, where));
    throw WrongType(fail(where, "a Function (steprdu.map_fn.Matmul(), ...)", "a " + typeName(h)));
}

InitFn initOf(pyb::handle h, const std::string& where) {
    if (pyb::isinstance<InitFn>(h)) return h.cast<InitFn>();
    if (pyb::isinstance<pyb::dict>(h)) return InitFn::fromJson(toJson(h, where));
    throw WrongType(fail(where, "an InitFn (steprdu.init_fn.Zero(...), ...)", "a " + typeName(h)));
}

int intOf(pyb::handle h, const std::string& where) {
    if (!pyb::isinstance<pyb::int_>(h) || pyb::isinstance<pyb::bool_>(h))
        throw WrongType(fail(where, "an integer", "a " + typeName(h)));
    return h.cast<int>();
}

// Python's index rule: -1 is the last output.
int outputIndex(const OpHandle& o, std::int64_t i, const std::string& where) {
    const int n = o.numOutputs();
    if (i < -n || i >= n)
        throw OutOfRange(fmt::format(
            "{}: {} has {} output stream{}; {}", where, o.op().where(), n, n == 1 ? "" : "s",
            expectedFound(n ? fmt::format("an index in 0..{}", n - 1) : std::string("no index (it has none)"),
                          std::to_string(i))));
    return static_cast<int>(i < 0 ? i + n : i);
}

Stream outputOf(const OpHandle& o, std::int64_t i, const std::string& where) {
    return Stream(o.b, step::StreamRef{o.index, outputIndex(o, i, where)});
}

// An Op where one stream is meant: its only output.
Stream onlyOutput(const OpHandle& o, const std::string& where) {
    const int n = o.numOutputs();
    if (n == 1) return Stream(o.b, step::StreamRef{o.index, 0});
    if (n == 0) throw BadInput(fmt::format("{}: {} has no output stream to consume", where, o.op().where()));
    throw BadInput(fmt::format("{}: {} has {} output streams; name one as (op, i) or op[i] with i in 0..{}",
                               where, o.op().where(), n, n - 1));
}

bool isIndex(pyb::handle h) {
    return pyb::isinstance<pyb::int_>(h) && !pyb::isinstance<pyb::bool_>(h);
}

// A stream reference as the artifact writes one: a pair whose second item is an output index.
bool isPair(pyb::handle h) {
    if (!pyb::isinstance<pyb::tuple>(h)) return false;
    const auto t = pyb::reinterpret_borrow<pyb::tuple>(h);
    return t.size() == 2 && isIndex(pyb::object(t[1]));
}

// A Stream, an Op with one output or an (op, i) pair, of the program `p`; one of another graph is refused
// (its operator indices mean nothing here).
Stream streamOf(Program& p, pyb::handle h, const std::string& where) {
    Stream s;
    if (pyb::isinstance<Stream>(h)) {
        s = h.cast<Stream>();
    } else if (pyb::isinstance<OpHandle>(h)) {
        s = onlyOutput(h.cast<OpHandle>(), where);
    } else if (isPair(h)) {
        const auto t = pyb::reinterpret_borrow<pyb::tuple>(h);
        const pyb::object op = t[0], i = t[1];
        if (!pyb::isinstance<OpHandle>(op))
            throw WrongType(
                fmt::format("{}: (op, i): op: {}{}", where,
                            expectedFound("an Op (what steprdu.ops functions return)", "a " + typeName(op)),
                            pyb::isinstance<pyb::list>(op) ? "; index the list instead: parts[i]" : ""));
        s = outputOf(op.cast<OpHandle>(), i.cast<std::int64_t>(), where);
    } else {
        throw WrongType(fail(where, "a Stream, an Op or an (op, i) pair", "a " + typeName(h)));
    }
    if (s.builder() != &p.builder())
        throw BadInput(fail(where, "a Stream of this graph", "one of another graph"));
    return s;
}

std::vector<Stream> streamsOf(Program& p, pyb::handle h, const std::string& where) {
    if (pyb::isinstance<Stream>(h) || pyb::isinstance<OpHandle>(h) || isPair(h))
        return {streamOf(p, h, where)};
    if (!pyb::isinstance<pyb::list>(h) && !pyb::isinstance<pyb::tuple>(h))
        throw WrongType(fail(where, "a list of Streams, Ops or (op, i) pairs", "a " + typeName(h)));
    std::vector<Stream> out;
    std::size_t i = 0;
    for (auto s : h)
        out.push_back(streamOf(p, s, fmt::format("{}[{}]", where, i++)));
    return out;
}

step::MapOptions mapOptions(std::int64_t computeBw, bool writeBackMu) {
    if (computeBw < 0) throw BadInput(fail("compute_bw", ">= 0 FLOPs/cycle", std::to_string(computeBw)));
    return {computeBw, writeBackMu};
}

// Symbol -> count from a Python dict.
step::Bindings bindingsOf(pyb::handle h, const std::string& where) {
    step::Bindings b;
    if (h.is_none()) return b;
    if (!pyb::isinstance<pyb::dict>(h))
        throw WrongType(fail(where, "a dict {symbol: count}", "a " + typeName(h)));
    const auto j = toJson(h, where);
    for (const auto& [k, v] : j.items()) {
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
            throw BadInput(fail(where + "." + k, "a count >= 0", v.dump()));
        b[k] = v.get<std::int64_t>();
    }
    return b;
}

// Refuses a binding of a name that no stream shape or tile of the program names.
void checkSymbol(const Program& p, const std::string& sym, const std::string& where) {
    const auto known = step::graphSymbols(p.graph());
    if (known.count(sym)) return;
    std::string list;
    int shown = 0;
    for (const auto& s : known) {
        if (shown++ == 20) {
            list += fmt::format(", ... ({} in all; g.symbols lists them)", known.size());
            break;
        }
        list += (list.empty() ? "" : ", ") + s;
    }
    throw BadInput(fmt::format(
        "{} '{}': the graph has no symbol of that name; {}; bind a symbol after adding the operator whose "
        "output shape names it (Stream.shape, g.symbols), e.g. g.bind(str(parts[0].shape.dims[0].size), 12)",
        where, sym,
        expectedFound(known.empty() ? std::string("nothing to bind (no data-dependent sizes yet)")
                                    : "one of " + list,
                      "'" + sym + "'")));
}

// The values of an off-chip tensor under steprdu's one dtype rule: a numpy (or __array__) float32 or
// float16 array, or a (nested) list of Python numbers read as float32. Other arrays (int, float64, bool)
// are refused: the conversion would change their values silently.
pyb::array_t<float> tensorValues(pyb::handle values, const std::string& where) {
    const bool isList = pyb::isinstance<pyb::list>(values) || pyb::isinstance<pyb::tuple>(values);
    if (!isList && !pyb::isinstance<pyb::array>(values) && !pyb::hasattr(values, "__array__"))
        throw WrongType(fail(where, "a float32 numpy array or a list of numbers", "a " + typeName(values)));
    pyb::object arr;
    try {
        arr = pyb::module_::import("numpy").attr("asarray")(values);
    } catch (pyb::error_already_set& e) {
        throw BadInput(fail(where, "a rectangular list of numbers", e.what()));
    }
    const auto dt = arr.attr("dtype").cast<pyb::dtype>();
    const std::string dtName = pyb::str(static_cast<pyb::handle>(dt));
    const char kind = dt.kind();
    const bool ok = isList ? (kind == 'f' || kind == 'i' || kind == 'u')
                           : (kind == 'f' && (dt.itemsize() == 4 || dt.itemsize() == 2));
    if (!ok)
        throw WrongType(
            fmt::format("{}; convert with values.astype(np.float32) (tensors hold float32 values)",
                        fail(where, isList ? "a list of numbers" : "a float32 or float16 array",
                             isList ? "a list of " + dtName : "a " + dtName + " array")));
    auto a = pyb::array_t<float, pyb::array::c_style | pyb::array::forcecast>::ensure(arr);
    if (!a || (a.ndim() != 2 && a.ndim() != 1))
        throw BadInput(fail(where, "a 1-D or 2-D array",
                            fmt::format("{} dimensions", a ? a.ndim() : arr.attr("ndim").cast<int>())));
    if (a.size() == 0) throw BadInput(fail(where, "rows and cols > 0", "an empty array"));
    return a;
}

void checkTensorClass(const std::string& tensor, const std::string& cls) {
    const auto& c = step::tensorClasses();
    if (std::find(c.begin(), c.end(), cls) == c.end())
        throw BadInput(fmt::format("tensor '{}': cls: {}", tensor,
                                   expectedFound("weights, activations or kv_cache", "'" + cls + "'")));
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
                   int timingElemBytes, const std::vector<std::string>& phases,
                   const std::map<std::string, std::int64_t>& depths, std::int64_t maxCycles,
                   double maxWallSeconds, std::int64_t watchdogCycles) {
    if (depth < 0) throw BadInput(fail("depth", ">= 0 elements (0: unbounded)", std::to_string(depth)));
    if (timingElemBytes < 0)
        throw BadInput(fail("timing_elem_bytes", ">= 0 bytes", std::to_string(timingElemBytes)));
    auto req = request(backend, hw, sets, functional, maxCycles, maxWallSeconds, watchdogCycles);
    const auto t0 = std::chrono::steady_clock::now();
    tb::Workload w;
    w.graph = p.finalized();
    for (const auto& [op, d] : depths) {
        if (w.graph.findOp(op) < 0)
            throw BadInput(fmt::format("depths: no operator '{}' in the graph (g.operators lists them)", op));
        if (d < 0) throw BadInput(fail("depths['" + op + "']", ">= 0 elements", std::to_string(d)));
    }
    w.bindings = p.bindings();
    w.channelDepth = depth;
    w.depthByProducer = depths;
    w.timingElemBytes = timingElemBytes;
    w.phases = phases;
    // The figure's FLOPs when every size is bound; the run reports what is left unbound.
    const auto flops = step::analyzeGraph(w.graph).flops.eval(w.bindings);
    w.figureFlops = flops ? *flops : 0;
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
                     std::int64_t watchdogCycles, const std::string& placement) {
    auto req = request(backend, hw, sets, functional, maxCycles, maxWallSeconds, watchdogCycles);
    req.testbench = testbench;
    req.knobs = knobs;
    req.placement = placement;
    tb::RunArtifacts art;
    nlohmann::json r;
    {
        pyb::gil_scoped_release release;
        r = tb::runTestbench(req, &art);
    }
    return runResult(r, art);
}

// Streams returned as a list, each keeping `owner` (its graph, or an Op that keeps it) alive.
pyb::list kept(pyb::handle owner, const std::vector<Stream>& streams) {
    pyb::list out;
    for (const auto& s : streams) {
        pyb::object o = pyb::cast(s);
        pyb::detail::keep_alive_impl(o, owner);
        out.append(o);
    }
    return out;
}

pyb::object keptOne(pyb::handle owner, const Stream& s) {
    pyb::object o = pyb::cast(s);
    pyb::detail::keep_alive_impl(o, owner);
    return o;
}

// The operator added last, as an Op keeping its graph alive (for the calls whose builder method returns
// nothing: stores and sinks).
pyb::object lastOp(pyb::handle graph, Program& p) {
    pyb::object o = pyb::cast(OpHandle{&p.builder(), p.graph().numOps() - 1});
    pyb::detail::keep_alive_impl(o, graph);
    return o;
}

void defineTypes(pyb::module_& m) {
    pyb::class_<Expr>(m, "Expr",
                      "A symbolic integer: a size, byte count or FLOP count over named data-dependent sizes\n"
                      "(symbols). Prints as text, evaluates with eval({symbol: count}), converts to sympy\n"
                      "with to_sympy(), and combines with ints and other Exprs by +, -, * and //.")
        .def(pyb::init([](pyb::handle h) { return exprOf(h, "Expr"); }), "value"_a,
             "Expr(value): value is an int (a constant), a str (the symbol of that name) or an Expr.")
        .def_static("sym", &Expr::sym, "name"_a, "The symbol `name` (a non-negative integer bound later).")
        .def(
            "eval",
            [](const Expr& e, pyb::handle b) -> pyb::object {
                auto v = e.eval(bindingsOf(b, "bindings"));
                return v ? pyb::object(pyb::int_(*v)) : pyb::object(pyb::none());
            },
            "bindings"_a = pyb::none(),
            "The value as an int with the symbols bound by `bindings` ({symbol: count}); None when a symbol\n"
            "is left unbound. Units are those of the expression (bytes for traffic, FLOPs for flops).")
        .def_property_readonly("is_const", &Expr::isConst, "True when the expression has no symbols.")
        .def_property_readonly(
            "symbols",
            [](const Expr& e) {
                const auto s = e.symbols();
                return std::vector<std::string>(s.begin(), s.end());
            },
            "The names of the symbols the expression depends on, sorted.")
        .def(
            "to_json", [](const Expr& e) { return fromJson(e.toJson()); },
            "The expression tree as the graph file stores it: an int, {'sym': name} or\n"
            "{'op': add|mul|ceildiv|floordiv|max|step, 'args': [...]}.")
        .def("__add__", [](const Expr& a, pyb::handle b) { return a + exprOf(b, "Expr + x"); })
        .def("__radd__", [](const Expr& a, pyb::handle b) { return exprOf(b, "x + Expr") + a; })
        .def("__mul__", [](const Expr& a, pyb::handle b) { return a * exprOf(b, "Expr * x"); })
        .def("__rmul__", [](const Expr& a, pyb::handle b) { return exprOf(b, "x * Expr") * a; })
        .def("__sub__", [](const Expr& a, pyb::handle b) { return a - exprOf(b, "Expr - x"); })
        .def("__rsub__", [](const Expr& a, pyb::handle b) { return exprOf(b, "x - Expr") - a; })
        .def("__floordiv__",
             [](const Expr& a, pyb::handle b) { return Expr::floorDiv(a, exprOf(b, "Expr // x")); })
        .def("__truediv__",
             [](const Expr&, pyb::handle) -> Expr {
                 throw WrongType("Expr / x: sizes are integers; use // (floor) or steprdu.ceil_div(a, b)");
             })
        .def("__str__", &Expr::str)
        .def("__repr__", [](const Expr& e) { return "Expr(" + e.str() + ")"; });
    m.def(
        "ceil_div",
        [](pyb::handle a, pyb::handle b) { return Expr::ceilDiv(exprOf(a, "a"), exprOf(b, "b")); }, "a"_a,
        "b"_a, "ceil(a / b) as an Expr; a and b are ints, symbol names or Exprs (b > 0 when evaluated).");

    pyb::class_<Dim>(m, "Dim",
                     "One dimension of a stream's shape: static (an int), dynamic (a data-dependent symbol)\n"
                     "or ragged (a symbol whose size differs per position of the outer dimensions).")
        .def(pyb::init([](pyb::handle h) { return dimOf(h, "Dim"); }), "size"_a,
             "Dim(size): an int gives a static dimension, a str a dynamic one of that symbol, an Expr a\n"
             "dimension derived from others.")
        .def_static("dynamic", &Dim::dynamic, "symbol"_a,
                    "A data-dependent dimension named `symbol` (the artifact's DynDim).")
        .def_static("ragged", &Dim::ragged, "symbol"_a,
                    "A dimension whose size differs per position of the outer dimensions; `symbol` counts\n"
                    "its elements over all of them.")
        .def_property_readonly(
            "size", [](const Dim& d) { return d.size; }, "The size as an Expr (a constant or a symbol).")
        .def_property_readonly(
            "kind",
            [](const Dim& d) {
                return d.kind == step::DimKind::Static    ? "static"
                       : d.kind == step::DimKind::Dynamic ? "dynamic"
                                                          : "ragged";
            },
            "'static', 'dynamic' or 'ragged'.")
        .def("__str__", &Dim::str)
        .def("__repr__", [](const Dim& d) { return "Dim(" + d.str() + ")"; });

    pyb::class_<Shape>(m, "Shape",
                       "A stream's shape: its dimensions outermost first. Ranks count from the innermost\n"
                       "dimension: rank 0 is the last entry of `dims`, and a shape of n dimensions has\n"
                       "rank n - 1 (the artifact's convention).")
        .def(pyb::init([](pyb::handle h) { return shapeOf(h, "Shape"); }), "dims"_a,
             "Shape(dims): a list of ints, symbol names, Dims or Exprs, outermost first.")
        .def_property_readonly("dims", &Shape::dims, "The dimensions (Dim objects), outermost first.")
        .def_property_readonly("rank", &Shape::rank, "len(dims) - 1: the rank of the outermost dimension.")
        .def("total_elements", &Shape::totalElements,
             "The number of elements over every dimension, as an Expr.")
        .def("__len__", &Shape::numDims)
        .def("__str__", &Shape::str)
        .def("__repr__", [](const Shape& s) { return "Shape(" + s.str() + ")"; });

    pyb::class_<Function>(m, "Function",
                          "What Map, Accum, Scan and MapAccum apply to each element (map_fn, accum_fn and\n"
                          "map_accum_fn make them).")
        .def_static(
            "from_json", [](pyb::handle h) { return fnOf(h, "Function"); }, "spec"_a,
            "A Function from its graph-file form: a name ('Exp') or a dict {'fn': name, ...arguments}.")
        .def(
            "to_json", [](const Function& f) { return fromJson(f.toJson()); },
            "The graph-file form: a dict {'fn': name, ...arguments}.")
        .def_property_readonly("name", &Function::name, "The function's name, e.g. 'Matmul'.")
        .def_property_readonly("arity", &Function::arity, "The number of input streams it takes.")
        .def("__repr__", [](const Function& f) { return "Function(" + f.toJson().dump() + ")"; });

    pyb::class_<InitFn>(m, "InitFn", "An accumulator's initial value (init_fn makes them).")
        .def_static(
            "from_json", [](pyb::handle h) { return initOf(h, "InitFn"); }, "spec"_a,
            "An InitFn from its graph-file form, a dict {'init': 'Zero'|'Empty'|'Count', ...}.")
        .def(
            "to_json", [](const InitFn& f) { return fromJson(f.toJson()); },
            "The graph-file form: a dict {'init': ..., 'rows', 'cols', 'elem'}.")
        .def("__repr__", [](const InitFn& f) { return "InitFn(" + f.toJson().dump() + ")"; });

    pyb::class_<Stream>(m, "Stream",
                        "One output stream of an operator of a Graph. Wherever a method takes a stream it\n"
                        "also takes the Op that produces it (when it has one output) or an (op, i) pair.")
        .def_property_readonly("shape", &Stream::shape, "The Shape, outermost dimension first.")
        .def_property_readonly(
            "rank", [](const Stream& s) { return s.shape().rank(); },
            "len(shape) - 1; rank 0 is the innermost dimension.")
        .def_property_readonly(
            "dtype", [](const Stream& s) { return s.type().dtype.str(); },
            "The element type as text, e.g. 'Tile<f32, 32x32>'.")
        .def_property_readonly(
            "type", [](const Stream& s) { return s.type().str(); },
            "The stream type as text: 'Strm<element, [dims]>'.")
        .def_property_readonly(
            "tile",
            [](const Stream& s) -> pyb::object {
                const auto& d = s.type().dtype;
                if (!d.isTile()) return pyb::none();
                return pyb::make_tuple(d.tile.rows, d.tile.cols, step::elemName(d.tile.elem));
            },
            "(rows, cols, elem) of a tile stream's elements (rows and cols as Exprs); None for other\n"
            "element types.")
        .def_property_readonly(
            "op",
            [](pyb::object self) {
                const Stream& s = self.cast<const Stream&>();
                pyb::object o = pyb::cast(OpHandle{const_cast<step::GraphBuilder*>(s.builder()), s.ref().op});
                pyb::detail::keep_alive_impl(o, self);
                return o;
            },
            "The Op that produces this stream.")
        .def_property_readonly(
            "index", [](const Stream& s) { return s.ref().out; }, "Which output of its Op this stream is.")
        .def(
            "set_shape", [](Stream& s, pyb::handle h) { s.setShape(shapeOf(h, "set_shape")); }, "shape"_a,
            "States a known fact about a data-dependent shape (Listing 1, line 27): `shape` is a list of\n"
            "ints, symbol names, Dims or Exprs, or a Shape, of the same rank. Returns None.")
        .def("__repr__", [](const Stream& s) { return s.type().str(); });

    pyb::class_<OpHandle>(
        m, "Op",
        "One operator of a Graph, as the steprdu.ops constructors (the artifact's names) and\n"
        "the stores return it. Its outputs are op[i], (op, i) or op.stream (the only one);\n"
        "it iterates over them and len(op) counts them. off_chip_traffic(),\n"
        "on_chip_requirement() and flops() give this operator's own metrics as Exprs.")
        .def_property_readonly(
            "name", [](const OpHandle& o) { return o.op().name(); },
            "The operator's unique name in its graph.")
        .def_property_readonly(
            "kind", [](const OpHandle& o) { return o.op().kind(); },
            "The paper's operator name, e.g. 'LinearOffChipLoad'.")
        .def_property_readonly(
            "args", [](const OpHandle& o) { return fromJson(o.op().args()); },
            "The operator's arguments as the graph file holds them (a dict).")
        .def_property_readonly(
            "outputs",
            [](pyb::object self) {
                const auto& o = self.cast<const OpHandle&>();
                std::vector<Stream> s;
                for (int i = 0; i < o.numOutputs(); ++i)
                    s.emplace_back(o.b, step::StreamRef{o.index, i});
                return kept(self, s);
            },
            "The output Streams, in order (empty for stores and sinks).")
        .def_property_readonly(
            "inputs",
            [](pyb::object self) {
                const auto& o = self.cast<const OpHandle&>();
                std::vector<Stream> s;
                for (const auto& r : o.op().inputs())
                    s.emplace_back(o.b, r);
                return kept(self, s);
            },
            "The Streams it consumes, in port order.")
        .def_property_readonly(
            "stream",
            [](pyb::object self) {
                return keptOne(self, onlyOutput(self.cast<const OpHandle&>(), "Op.stream"));
            },
            "The only output Stream (the artifact's op.stream); an error names (op, i) when there are "
            "several.")
        .def(
            "stream_idx",
            [](pyb::object self, std::int64_t i) {
                return keptOne(self, outputOf(self.cast<const OpHandle&>(), i, "Op.stream_idx"));
            },
            "i"_a, "Output stream `i` (the artifact's op.stream_idx(i)); the same as op[i].")
        .def("__len__", &OpHandle::numOutputs)
        .def("__eq__",
             [](const OpHandle& a, pyb::handle b) {
                 if (!pyb::isinstance<OpHandle>(b)) return false;
                 const auto& o = b.cast<const OpHandle&>();
                 return a.b == o.b && a.index == o.index;
             })
        .def("__hash__",
             [](const OpHandle& o) {
                 return std::hash<const void*>()(o.b) ^
                        (static_cast<std::size_t>(o.index) * 0x9E3779B97F4A7C15ull);
             })
        .def(
            "__getitem__",
            [](pyb::object self, std::int64_t i) {
                return keptOne(self, outputOf(self.cast<const OpHandle&>(), i, "op[i]"));
            },
            "i"_a, "Output stream `i` (negative counts from the last).")
        .def("__iter__",
             [](pyb::object self) {
                 const auto& o = self.cast<const OpHandle&>();
                 std::vector<Stream> s;
                 for (int i = 0; i < o.numOutputs(); ++i)
                     s.emplace_back(o.b, step::StreamRef{o.index, i});
                 return pyb::iter(kept(self, s));
             })
        .def(
            "off_chip_traffic", [](const OpHandle& o) { return o.op().offChipBytes(); },
            "Bytes this operator moves to or from off-chip memory, as an Expr (0 for on-chip operators).")
        .def(
            "on_chip_requirement",
            [](const OpHandle& o, bool countFifos, int mode) {
                if (countFifos)
                    throw BadInput(fail("on_chip_requirement: count_fifos",
                                        "False (stream FIFOs are not counted; "
                                        "the paper's figures use the default)",
                                        "True"));
                if (mode != 1 && mode != 2)
                    throw BadInput(fail("on_chip_requirement: mode", "1 or 2", std::to_string(mode)));
                return mode == 1 ? o.op().onChipBytes() : o.op().onChipBytesPaper();
            },
            "count_fifos"_a = false, "mode"_a = 1,
            "On-chip bytes this operator needs, as an Expr: mode=1 the STeP artifact's accounting that the\n"
            "paper's figures use, mode=2 the paper's section 4.2 formulas. count_fifos=True is not modelled.")
        .def(
            "flops", [](const OpHandle& o) { return o.op().flops(); },
            "FLOPs of every application of this operator's function, as an Expr (0 without one).")
        .def("__repr__", [](const OpHandle& o) {
            const int n = o.numOutputs();
            return fmt::format("<steprdu.Op {}: {} output{}>", o.op().where(), n, n == 1 ? "" : "s");
        });
}

void defineProgram(pyb::module_& m) {
    using P = Program;
    auto ka = pyb::keep_alive<0, 1>(); // a stream keeps its graph alive
    pyb::class_<P>(m, "Graph",
                   "A STeP program, built one operator at a time (docs/python.md). Each method adds one\n"
                   "operator, checks its inputs against what the operator accepts and returns its output\n"
                   "Stream (a list of them for Partition and Parallelize, an Op for stores and sinks).\n"
                   "Wherever a stream is taken, a Stream, an Op with one output or an (op, i) pair may be\n"
                   "given. Ranks count from the innermost dimension (rank 0). Sizes are in elements, tiles\n"
                   "in elements per side, bandwidths in FLOPs or bytes per cycle. Attributes that are\n"
                   "stored facts are properties (tensors, operators, symbols, bindings); whatever analyses\n"
                   "the whole program is a method (flops(), off_chip_traffic(), metrics(), to_json()).")
        .def(pyb::init<>(), "An empty program.")
        // Off-chip tensors.
        .def(
            "tensor",
            [](P& p, const std::string& name, pyb::object values, std::int64_t rows, std::int64_t cols,
               const std::string& init, std::uint64_t seed, const std::string& cls) {
                checkTensorClass(name, cls);
                if (!values.is_none()) {
                    auto a = tensorValues(values, fmt::format("tensor '{}': values", name));
                    const std::int64_t r = a.ndim() == 2 ? a.shape(0) : 1;
                    const std::int64_t c = a.ndim() == 2 ? a.shape(1) : a.shape(0);
                    if ((rows && rows != r) || (cols && cols != c))
                        throw BadInput(fmt::format(
                            "tensor '{}': {}; leave rows and cols out when giving values", name,
                            expectedFound(fmt::format("the values' rows={} cols={}", r, c),
                                          rows && cols ? fmt::format("rows={} cols={}", rows, cols)
                                          : rows       ? fmt::format("rows={}", rows)
                                                       : fmt::format("cols={}", cols))));
                    p.builder().tensor(name, r, c, std::vector<float>(a.data(), a.data() + a.size()));
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
            "Declares the off-chip tensor `name` (2-D, row-major, float32 values). Either `values`: a\n"
            "float32 (or float16) numpy array of 1 or 2 dimensions, or a nested list of numbers (read as\n"
            "float32; other arrays such as int64 or float64 are refused: convert them with\n"
            ".astype(np.float32)); or rows x cols elements generated by `init` ('zeros', 'randn' or\n"
            "'xavier', from `seed`). `cls` ('weights', 'activations' or 'kv_cache') decides the memory\n"
            "tier it is placed in (memory.place.<cls>). Returns None.")
        .def_property_readonly(
            "tensors",
            [](const P& p) {
                std::vector<std::string> names;
                for (const auto& t : p.graph().tensors())
                    names.push_back(t.name);
                return names;
            },
            "The names of the declared off-chip tensors, in declaration order.")
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
            "elem_bytes"_a = 0, "par_dispatch"_a = 1, "name"_a = "", ka,
            "LinearOffChipLoad: an affine read of `tensor` in tile_rows x tile_cols tiles (elements).\n"
            "out_shape lists the read's dimensions outermost first; stride gives, per dimension, the step\n"
            "in tiles (row-major tile index of the tensor). With `ref` (a stream) the whole read repeats\n"
            "once per element of ref. elem_bytes: bytes per element for timing and traffic (0: the\n"
            "tensor's 4); par_dispatch: 64-byte requests issued per cycle. Returns the Stream\n"
            "[1, *out_shape] (or ref.shape + out_shape) of f32 tiles.")
        .def(
            "linear_offchip_store",
            [](pyb::object self, pyb::handle in, const std::string& tensor, int parDispatch,
               const std::string& name) {
                P& p = self.cast<P&>();
                p.builder().linearOffChipStore(streamOf(p, in, "input"), tensor, parDispatch, name);
                return lastOp(self, p);
            },
            "input"_a, "tensor"_a, "par_dispatch"_a = 1, "name"_a = "",
            "LinearOffChipStore: writes the tiles of `input` into `tensor` in row-major tile order.\n"
            "par_dispatch: 64-byte requests issued per cycle. Returns the store's Op (no output stream).")
        .def(
            "random_offchip_load",
            [](P& p, pyb::handle raddr, const std::string& tensor, std::int64_t tileRows,
               std::int64_t tileCols, int elemBytes, std::int64_t baseTile, const std::string& name) {
                return p.builder().randomOffChipLoad(streamOf(p, raddr, "raddr"), tensor, tileRows, tileCols,
                                                     elemBytes, baseTile, name);
            },
            "raddr"_a, "tensor"_a, "tile_rows"_a, "tile_cols"_a, "elem_bytes"_a = 0, "base_tile"_a = 0,
            "name"_a = "", ka,
            "RandomOffChipLoad: one tile_rows x tile_cols tile of `tensor` per address of `raddr` (a\n"
            "stream of u64 tile indices, offset by base_tile). Returns a Stream shaped like raddr.")
        .def(
            "random_offchip_store",
            [](P& p, pyb::handle waddr, pyb::handle wdata, const std::string& tensor, int elemBytes,
               const std::string& name) {
                return p.builder().randomOffChipStore(streamOf(p, waddr, "waddr"),
                                                      streamOf(p, wdata, "wdata"), tensor, elemBytes, name);
            },
            "waddr"_a, "wdata"_a, "tensor"_a, "elem_bytes"_a = 0, "name"_a = "", ka,
            "RandomOffChipStore: writes each tile of `wdata` at the tile index of the matching `waddr`\n"
            "element. Returns the acknowledgement Stream (bool, shaped like waddr).")
        // On-chip memory operators.
        .def(
            "bufferize",
            [](P& p, pyb::handle in, int rank, const std::string& name) {
                return p.builder().bufferize(streamOf(p, in, "input"), rank, name);
            },
            "input"_a, "rank"_a, "name"_a = "", ka,
            "Bufferize: holds the innermost `rank` dimensions of `input` in on-chip memory. Returns a\n"
            "Stream of buffers, shaped like input without those dimensions.")
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
            "buffers"_a, "repeat"_a = pyb::none(), "ref"_a = pyb::none(), "name"_a = "", ka,
            "Streamify: streams each buffer's tiles out, `repeat` (a list of counts, new dimensions\n"
            "between the buffers' and the tiles') times, or once per element of `ref`. Returns the Stream.")
        // Routing and merging.
        .def(
            "partition",
            [](pyb::object self, pyb::handle in, pyb::handle sel, int rank, int n, const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self, p.builder().partition(streamOf(p, in, "input"), streamOf(p, sel, "control"),
                                                        rank, n, name));
            },
            "input"_a, "control"_a, "rank"_a, "num_consumers"_a, "name"_a = "",
            "Partition: sends each rank-`rank` element of `input` to the consumers its `control` selector\n"
            "names. Returns a list of num_consumers Streams, each with a new data-dependent outer\n"
            "dimension (a symbol to bind with g.bind).")
        .def(
            "reassemble",
            [](P& p, pyb::handle ins, pyb::handle sel, int rank, const std::string& name) {
                return p.builder().reassemble(streamsOf(p, ins, "inputs"), streamOf(p, sel, "control"), rank,
                                              name);
            },
            "inputs"_a, "control"_a, "rank"_a, "name"_a = "", ka,
            "Reassemble: gathers rank-`rank` elements from the `inputs` the `control` selector names, in\n"
            "selector order. Returns the gathered Stream.")
        .def(
            "eager_merge",
            [](pyb::object self, pyb::handle ins, int rank, const std::string& name) {
                P& p = self.cast<P&>();
                auto [data, sel] = p.builder().eagerMerge(streamsOf(p, ins, "inputs"), rank, name);
                return pyb::tuple(kept(self, {data, sel}));
            },
            "inputs"_a, "rank"_a, "name"_a = "",
            "EagerMerge: forwards whole rank-`rank` elements from whichever input has one first. Returns\n"
            "(data, selector): the merged Stream and a Stream naming each element's input.")
        .def(
            "parallelize",
            [](pyb::object self, pyb::handle in, int n, const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self, p.builder().parallelize(streamOf(p, in, "input"), n, name));
            },
            "input"_a, "num_consumers"_a, "name"_a = "",
            "Parallelize: deals the outermost dimension's elements round robin to num_consumers outputs.\n"
            "Returns a list of num_consumers Streams.")
        // Higher-order operators.
        .def(
            "map",
            [](P& p, pyb::handle ins, pyb::handle fn, std::int64_t bw, bool wb, const std::string& name) {
                return p.builder().map(streamsOf(p, ins, "inputs"), fnOf(fn, "fn"), mapOptions(bw, wb), name);
            },
            "inputs"_a, "fn"_a, "compute_bw"_a = 0, "write_back_mu"_a = false, "name"_a = "", ka,
            "Map: applies `fn` (a map_fn Function) to each element of the `inputs` (a list of as many\n"
            "streams as fn takes, or one stream). compute_bw: FLOPs per cycle; write_back_mu: the results\n"
            "go to an on-chip memory unit. Returns the Stream of results.")
        .def(
            "accum",
            [](P& p, pyb::handle in, pyb::handle fn, pyb::handle init, int rank, std::int64_t bw, bool wb,
               pyb::handle outTile, const std::string& name) {
                std::optional<step::TileType> t;
                if (!outTile.is_none()) {
                    if (pyb::hasattr(outTile, "to_json") && !pyb::isinstance<pyb::dict>(outTile))
                        outTile = outTile.attr("to_json")();
                    if (!pyb::isinstance<pyb::dict>(outTile) || !outTile.contains("rows") ||
                        !outTile.contains("cols"))
                        throw WrongType(fail("out_tile", "a steprdu.Tile or a dict with rows, cols and elem",
                                             std::string(pyb::repr(outTile))));
                    auto d = outTile.cast<pyb::dict>();
                    std::string elem = "f32";
                    if (d.contains("elem")) {
                        if (!pyb::isinstance<pyb::str>(d["elem"]))
                            throw WrongType(
                                fail("out_tile.elem", "a name such as 'f32'", "a " + typeName(d["elem"])));
                        elem = d["elem"].cast<std::string>();
                    }
                    t = step::TileType{exprOf(d["rows"], "out_tile.rows"), exprOf(d["cols"], "out_tile.cols"),
                                       step::parseElemType(elem)};
                }
                return p.builder().accum(streamOf(p, in, "input"), fnOf(fn, "fn"), initOf(init, "init"), rank,
                                         mapOptions(bw, wb), t, name);
            },
            "input"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "out_tile"_a = pyb::none(), "name"_a = "", ka,
            "Accum: folds the innermost `rank` dimensions of `input` with `fn` (an accum_fn Function),\n"
            "starting from `init` (an init_fn InitFn) for each output element. out_tile: the accumulator's\n"
            "tile (a steprdu.Tile or {'rows', 'cols', 'elem'}) when fn changes its size. compute_bw:\n"
            "FLOPs per cycle. Returns the Stream of results (input's shape without those dimensions).")
        .def(
            "scan",
            [](P& p, pyb::handle in, pyb::handle fn, pyb::handle init, int rank, std::int64_t bw, bool wb,
               const std::string& name) {
                return p.builder().scan(streamOf(p, in, "input"), fnOf(fn, "fn"), initOf(init, "init"), rank,
                                        mapOptions(bw, wb), name);
            },
            "input"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "name"_a = "", ka,
            "Scan: like accum, but emits the running value after every element. Returns the Stream\n"
            "(input's shape).")
        .def(
            "map_accum",
            [](P& p, pyb::handle a, pyb::handle b, pyb::handle fn, pyb::handle init, int rank,
               std::int64_t bw, bool wb, const std::string& name) {
                return p.builder().mapAccum(streamOf(p, a, "in1"), streamOf(p, b, "in2"), fnOf(fn, "fn"),
                                            initOf(init, "init"), rank, mapOptions(bw, wb), name);
            },
            "in1"_a, "in2"_a, "fn"_a, "init"_a, "rank"_a, "compute_bw"_a = 0, "write_back_mu"_a = false,
            "name"_a = "", ka,
            "MapAccum: applies `fn` (map_accum_fn.Matmul()) to element pairs of in1 and in2 and sums the\n"
            "results over the innermost `rank` dimensions, starting from `init` (whose tile must be the\n"
            "product's). compute_bw: FLOPs per cycle. Returns the Stream of sums.")
        .def(
            "flat_map",
            [](P& p, pyb::handle in, pyb::handle fnArgs, const std::string& name) {
                return p.builder().flatMap(streamOf(p, in, "input"), toJson(fnArgs, "fn_args"), name);
            },
            "input"_a, "fn_args"_a, "name"_a = "", ka,
            "FlatMap: replaces each element by a stream, as the dict fn_args ({'fn': ..., arguments})\n"
            "describes (the graph file's FlatMap arguments). Returns the Stream.")
        .def(
            "retile_streamify",
            [](P& p, pyb::handle in, bool splitRows, bool filterPadding, const std::string& name) {
                return p.builder().retileStreamify(streamOf(p, in, "input"), splitRows, filterPadding, name);
            },
            "input"_a, "split_rows"_a = true, "filter_padding"_a = false, "name"_a = "", ka,
            "RetileStreamify: splits each tile into its rows (split_rows) or columns, flattened into the\n"
            "innermost dimension; filter_padding drops padding rows. Returns the Stream.")
        .def(
            "expert_addr_gen",
            [](P& p, pyb::handle sel, std::int64_t tiles, std::int64_t base, const std::string& name) {
                return p.builder().expertAddrGen(streamOf(p, sel, "input"), tiles, base, name);
            },
            "input"_a, "tiles_per_expert"_a, "base_tile"_a = 0, "name"_a = "", ka,
            "ExpertAddrGen: for each one-hot selector, the tile indices\n"
            "base_tile + e * tiles_per_expert + i of the selected expert e. Returns a Stream of u64\n"
            "addresses.")
        .def(
            "cache_read_addr_gen",
            [](P& p, pyb::handle idx, pyb::handle count, std::int64_t rowOffset, const std::string& name) {
                return p.builder().cacheReadAddrGen(streamOf(p, idx, "idx"), streamOf(p, count, "seq_len"),
                                                    rowOffset, name);
            },
            "idx"_a, "seq_len"_a, "row_offset"_a, "name"_a = "", ka,
            "CacheReadAddrGen: for each request, the tile addresses idx * row_offset + j for j below its\n"
            "seq_len (in tiles). Returns a Stream of u64 addresses.")
        .def(
            "filter_last_tile",
            [](P& p, pyb::handle count, const std::string& name) {
                return p.builder().filterLastTile(streamOf(p, count, "input"), name);
            },
            "input"_a, "name"_a = "", ka,
            "FilterLastTile: for each tile count, a selector sending the last tile one way and the others\n"
            "the other. Returns the selector Stream.")
        // Shape operators.
        .def(
            "flatten",
            [](P& p, pyb::handle in, int lo, int hi, const std::string& name) {
                return p.builder().flatten(streamOf(p, in, "input"), lo, hi, name);
            },
            "input"_a, "min_rank"_a, "max_rank"_a, "name"_a = "", ka,
            "Flatten: merges the dimensions at ranks min_rank..max_rank (rank 0 innermost) into one.\n"
            "Returns the Stream.")
        .def(
            "reshape",
            [](P& p, pyb::handle in, std::int64_t chunk, int rank, bool pad, const std::string& name) {
                return p.builder().reshape(streamOf(p, in, "input"), chunk, rank, pad, name);
            },
            "input"_a, "chunk"_a, "rank"_a, "pad"_a = false, "name"_a = "", ka,
            "Reshape: splits the dimension at `rank` into chunks of `chunk` elements (a new inner\n"
            "dimension); pad pads the last chunk. Returns the Stream.")
        .def(
            "reshape_with_padding",
            [](pyb::object self, pyb::handle in, std::int64_t chunk, const std::string& name) {
                P& p = self.cast<P&>();
                auto [data, pad] = p.builder().reshapeWithPadding(streamOf(p, in, "input"), chunk, name);
                return pyb::tuple(kept(self, {data, pad}));
            },
            "input"_a, "chunk"_a, "name"_a = "",
            "Reshape of the innermost dimension into padded chunks of `chunk`. Returns (data, padding):\n"
            "the Stream and a Stream marking the padded elements.")
        .def(
            "reshape_add_outer",
            [](P& p, pyb::handle in, std::int64_t chunk, bool pad, const std::string& name) {
                return p.builder().reshapeAddOuter(streamOf(p, in, "input"), chunk, pad, name);
            },
            "input"_a, "chunk"_a, "pad"_a = false, "name"_a = "", ka,
            "The artifact's Reshape(add_outer_dim=True): chunks a rank-0 stream [n] into\n"
            "[1, ceil(n / chunk), chunk] ([0, ...] when empty), padding the last chunk if `pad`. Returns\n"
            "the Stream.")
        .def(
            "promote",
            [](P& p, pyb::handle in, pyb::handle rank, const std::string& name) {
                std::optional<int> r;
                if (!rank.is_none()) r = intOf(rank, "rank");
                return p.builder().promote(streamOf(p, in, "input"), r, name);
            },
            "input"_a, "rank"_a = pyb::none(), "name"_a = "", ka,
            "Promote: inserts a dimension of size 1 at `rank` (default: a new outermost one). Returns the\n"
            "Stream.")
        .def(
            "expand",
            [](P& p, pyb::handle in, pyb::handle ref, int rank, const std::string& name) {
                return p.builder().expand(streamOf(p, in, "input"), streamOf(p, ref, "ref"), rank, name);
            },
            "input"_a, "ref"_a, "rank"_a, "name"_a = "", ka,
            "Expand: repeats each element of `input` over the innermost `rank` dimensions of `ref` (whose\n"
            "other dimensions match input's). Returns a Stream shaped like ref.")
        .def(
            "repeat_static",
            [](P& p, pyb::handle in, std::int64_t count, const std::string& name) {
                return p.builder().repeatStatic(streamOf(p, in, "input"), count, name);
            },
            "input"_a, "count"_a, "name"_a = "", ka,
            "RepeatStatic: emits each element `count` times (a new innermost dimension). Returns the\n"
            "Stream.")
        .def(
            "zip",
            [](P& p, pyb::handle a, pyb::handle b, const std::string& name) {
                return p.builder().zip(streamOf(p, a, "in1"), streamOf(p, b, "in2"), name);
            },
            "in1"_a, "in2"_a, "name"_a = "", ka,
            "Zip: pairs the elements of two streams of the same shape. Returns the Stream of pairs.")
        // Sources and sinks.
        .def(
            "source",
            [](P& p, const std::string& type, pyb::handle shape, pyb::handle tokens, pyb::handle extra,
               const std::string& name) {
                return p.builder().source(type, shapeOf(shape, "shape"), toJson(tokens, "tokens"),
                                          extra.is_none() ? nlohmann::json::object() : toJson(extra, "extra"),
                                          name);
            },
            "type"_a, "shape"_a, "tokens"_a, "extra"_a = pyb::none(), "name"_a = "", ka,
            "Source: a stream given token by token (type 'selector', 'scalar' or 'tile'; tokens are values\n"
            "and stop tokens 'S1', 'S2', ...; extra: {'width': n} for selectors, tile_rows/tile_cols for\n"
            "tiles). Returns the Stream of `shape`.")
        .def(
            "select_gen",
            [](P& p, const std::vector<std::vector<int>>& selected, int width, pyb::handle shape,
               const std::string& name) {
                return p.builder().selectGen(selected, width, shapeOf(shape, "shape"), name);
            },
            "selected"_a, "width"_a, "shape"_a, "name"_a = "SelectGen", ka,
            "SelectGen: multi-hot selectors over `width` targets, one per list of target indices in\n"
            "`selected`, forming a Stream of `shape` (the innermost dimension counts the selectors).")
        .def(
            "metadata_gen",
            [](P& p, const std::vector<std::uint64_t>& values, pyb::handle shape, const std::string& name) {
                return p.builder().metadataGen(values, shapeOf(shape, "shape"), name);
            },
            "values"_a, "shape"_a, "name"_a = "MetadataGen", ka,
            "MetadataGen: a Stream of `shape` carrying the non-negative integers `values` as u64 scalars.")
        .def(
            "sink",
            [](pyb::object self, pyb::handle in, const std::string& name) {
                P& p = self.cast<P&>();
                p.builder().sink(streamOf(p, in, "input"), name);
                return lastOp(self, p);
            },
            "input"_a, "name"_a = "Sink",
            "Sink: consumes `input` (a stream nothing else reads). Returns the sink's Op.")
        .def(
            "placeholder",
            [](P& p, const std::string& type, pyb::handle shape, pyb::handle extra, const std::string& name) {
                return p.builder().placeholder(
                    type, shapeOf(shape, "shape"),
                    extra.is_none() ? nlohmann::json::object() : toJson(extra, "extra"), name);
            },
            "type"_a, "shape"_a, "extra"_a = pyb::none(), "name"_a = "Placeholder", ka,
            "A stream to consume before its producer exists (feedback loops): type 'selector', 'scalar'\n"
            "or 'tile' (extra as for source). Returns the placeholder Stream; connect() routes it later.")
        .def(
            "connect",
            [](P& p, pyb::handle ph, pyb::handle real) {
                p.builder().connect(streamOf(p, ph, "placeholder"), streamOf(p, real, "stream"));
            },
            "placeholder"_a, "stream"_a,
            "Routes the consumers of `placeholder` to `stream` (same element type and rank). Returns None.")
        .def(
            "add",
            [](pyb::object self, const std::string& kind, pyb::handle args, pyb::handle ins,
               const std::string& name) {
                P& p = self.cast<P&>();
                return kept(self,
                            p.builder().add(kind, toJson(args, "args"), streamsOf(p, ins, "inputs"), name));
            },
            "kind"_a, "args"_a, "inputs"_a = pyb::list(), "name"_a = "",
            "Adds any operator by its graph-file kind and arguments (a dict), with `inputs` (streams).\n"
            "Returns the list of its output Streams.")
        .def(
            "op",
            [](pyb::object self, const std::string& name) {
                P& p = self.cast<P&>();
                const int i = p.graph().findOp(name);
                if (i < 0)
                    throw BadInput(
                        fmt::format("op: no operator '{}' in the graph (g.operators lists them)", name));
                pyb::object o = pyb::cast(OpHandle{&p.builder(), i});
                pyb::detail::keep_alive_impl(o, self);
                return o;
            },
            "name"_a, "The Op named `name` (g.operators lists the names).")
        .def(
            "stream",
            [](pyb::object self, pyb::handle ref) {
                P& p = self.cast<P&>();
                return keptOne(self, streamOf(p, ref, "stream"));
            },
            "ref"_a, "The Stream that `ref` (a Stream, an Op with one output or an (op, i) pair) names.")
        // Sizes, metrics and the graph file.
        .def(
            "bind",
            [](P& p, const std::string& sym, std::int64_t n) {
                if (n < 0)
                    throw BadInput(
                        fmt::format("bind '{}': {}", sym, expectedFound("a count >= 0", std::to_string(n))));
                checkSymbol(p, sym, "bind");
                p.bindings()[sym] = n;
            },
            "symbol"_a, "count"_a,
            "Gives the data-dependent size `symbol` (one of g.symbols) the value `count` (elements) that\n"
            "runs and metrics take. A name the graph does not have is refused. Returns None.")
        .def_property_readonly(
            "bindings", [](const P& p) { return p.bindings(); }, "The bound symbols: {symbol: count}.")
        .def_property_readonly(
            "symbols",
            [](const P& p) {
                const auto s = step::graphSymbols(p.graph());
                return std::vector<std::string>(s.begin(), s.end());
            },
            "The names of the data-dependent sizes the program's streams have, sorted (what bind takes).")
        .def_property_readonly(
            "operators",
            [](const P& p) {
                std::vector<std::string> names;
                for (int i = 0; i < p.graph().numOps(); ++i)
                    names.push_back(p.graph().op(i).name());
                return names;
            },
            "The operators' names in creation order (g.op(name) gives one as an Op).")
        .def(
            "off_chip_traffic", [](const P& p) { return step::analyzeGraph(p.finalized()).offChipBytes; },
            "Bytes every off-chip load and store moves, as an Expr (op.off_chip_traffic() per operator).")
        .def(
            "on_chip_requirement", [](const P& p) { return step::analyzeGraph(p.finalized()).onChipBytes; },
            "On-chip bytes as the paper's figures count them (the artifact's mode 1), as an Expr.")
        .def(
            "flops", [](const P& p) { return step::analyzeGraph(p.finalized()).flops; },
            "FLOPs of every Map, Accum, Scan and MapAccum application, as an Expr.")
        .def(
            "allocated_flops_per_cycle",
            [](const P& p) { return step::analyzeGraph(p.finalized()).allocatedFlopsPerCycle; },
            "The sum of compute_bw (FLOPs/cycle) over the operators with a FLOP-costed function (an int).")
        .def(
            "metrics",
            [](const P& p, pyb::handle b) {
                step::Bindings bind = p.bindings();
                for (const auto& [k, v] : bindingsOf(b, "bindings")) {
                    checkSymbol(p, k, "metrics: bindings");
                    bind[k] = v;
                }
                const auto g = p.finalized();
                const auto m = step::bindMetrics(g, step::analyzeGraph(g), bind);
                return pyb::dict("off_chip_bytes"_a = m.offChipBytes, "on_chip_bytes"_a = m.onChipBytes,
                                 "on_chip_bytes_active"_a = m.onChipBytesActive, "flops"_a = m.flops,
                                 "allocated_flops_per_cycle"_a = m.allocatedFlopsPerCycle);
            },
            "bindings"_a = pyb::none(),
            "The metrics as ints with every symbol bound (the graph's bindings, then `bindings`):\n"
            "{'off_chip_bytes', 'on_chip_bytes', 'on_chip_bytes_active', 'flops',\n"
            "'allocated_flops_per_cycle'}. An unbound symbol is an error naming it.")
        .def(
            "to_json", [](const P& p) { return p.toJson().dump(1); },
            "The graph file (format steprdu-graph-1, with the bindings) as a JSON string; `steprdu\n"
            "run-graph FILE` runs it.")
        .def("__repr__", [](const P& p) {
            return fmt::format("<steprdu.Graph: {} operators, {} tensors>", p.graph().numOps(),
                               p.graph().tensors().size());
        });
}

// Tags of the exception classes that have no C++ exception of their own.
struct InternalTag {};

} // namespace

} // namespace steprdu::py

PYBIND11_MODULE(_steprdu, m) {
    using namespace steprdu;
    m.doc() = "steprdu's C++ core: STeP programs, their metrics and runs on every backend";
    // Errors carry the CLI's messages; each kind is its own exception class (the CLI's exit codes). The two
    // kinds Python users also catch by a builtin class derive from both.
    static pyb::exception<StepError> error(m, "Error");
    static pyb::exception<BadInput> badInput(m, "BadInputError", error.ptr());
    static pyb::exception<py::WrongType> wrongType(m, "ArgumentError",
                                                   pyb::make_tuple(badInput, pyb::handle(PyExc_TypeError)));
    static pyb::exception<py::OutOfRange> outOfRange(
        m, "OutOfRangeError", pyb::make_tuple(badInput, pyb::handle(PyExc_IndexError)));
    static pyb::exception<NoProgress> noProgress(m, "DeadlockError", error.ptr());
    static pyb::exception<LimitReached> limit(m, "LimitError", error.ptr());
    static pyb::exception<py::InternalTag> internal(m, "InternalError",
                                                    pyb::make_tuple(error, pyb::handle(PyExc_RuntimeError)));
    const std::pair<pyb::object, const char*> docs[] = {
        {error, "Every error the steprdu module raises derives from this class."},
        {badInput,
         "A bad argument, knob, hardware key, shape, tensor or graph; the message names the place,\n"
         "what was expected and what was found (the CLI's exit code 2)."},
        {wrongType,
         "A call Python cannot bind (wrong number of arguments, an unknown keyword) or an argument\n"
         "of the wrong Python type. Also a TypeError and a BadInputError."},
        {outOfRange, "An index out of range, e.g. output i of an operator with fewer outputs. Also an\n"
                     "IndexError and a BadInputError."},
        {noProgress,
         "No forward progress: every operator waits; the message names the blocked operators and\n"
         "the full streams (the CLI's exit code 3)."},
        {limit, "max_cycles or max_wall_seconds reached (the CLI's exit code 4)."},
        {internal, "A defect in steprdu itself (the CLI's exit code 1); please report it with the message.\n"
                   "Also a RuntimeError."},
    };
    for (const auto& [cls, doc] : docs) {
        cls.attr("__doc__") = doc;
        cls.attr("__module__") = "steprdu";
    }
    pyb::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const pyb::error_already_set&) {
            throw; // a Python exception: pybind restores it
        } catch (const pyb::cast_error& e) {
            wrongType(e.what());
        } catch (const pyb::builtin_exception&) {
            throw; // pybind's own (StopIteration and the like)
        } catch (const std::bad_alloc&) {
            throw;
        } catch (const py::OutOfRange& e) {
            outOfRange(e.what());
        } catch (const py::WrongType& e) {
            wrongType(e.what());
        } catch (const BadInput& e) {
            badInput(e.what());
        } catch (const NoProgress& e) {
            noProgress(e.what());
        } catch (const LimitReached& e) {
            limit(e.what());
        } catch (const StepError& e) {
            error(e.what());
        } catch (const std::exception& e) {
            internal(fmt::format("internal error: {} (please report)", e.what()).c_str());
        }
    });
    py::defineTypes(m);
    py::defineProgram(m);
    py::defineKernelProgram(m);
    m.def("simulate", &py::simulate, "graph"_a, "backend"_a, "hw"_a, "sets"_a, "functional"_a, "depth"_a,
          "timing_elem_bytes"_a, "phases"_a, "depths"_a, "max_cycles"_a, "max_wall_seconds"_a,
          "watchdog_cycles"_a, "steprdu.simulate's core (use steprdu.simulate).");
    m.def("run", &py::runBuiltin, "testbench"_a, "knobs"_a, "backend"_a, "hw"_a, "sets"_a, "functional"_a,
          "max_cycles"_a, "max_wall_seconds"_a, "watchdog_cycles"_a, "placement"_a,
          "steprdu.run's core (use steprdu.run).");
    m.def(
        "testbenches",
        [] {
            pyb::dict d;
            for (const auto& t : tb::testbenches()) {
                pyb::dict knobs;
                for (const auto& k : t->knobs())
                    knobs[pyb::str(k.name)] = pyb::dict("default"_a = k.defaultValue, "doc"_a = k.doc);
                d[pyb::str(t->name())] = pyb::dict("doc"_a = t->doc(), "knobs"_a = knobs);
            }
            return d;
        },
        "steprdu.testbenches's core (use steprdu.testbenches).");
    m.attr("default_watchdog_cycles") = tb::kDefaultWatchdogCycles;
}
