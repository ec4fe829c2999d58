#include "testbenches/RandomProgram.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "step_ops/GraphBuilder.h"
#include "util/Error.h"

namespace steprdu::tb {

using step::Dim;
using step::Function;
using step::InitFn;
using step::Shape;
using step::Stream;

namespace {

// Values past this bound could overflow float32 in later steps (inf - inf is NaN, and NaN != NaN).
constexpr double kMaxMagnitude = 1e6;

// Every choice of the generator, from a seeded engine or a fuzzer's bytes.
class Draw {
  public:
    explicit Draw(ChoiceSource& c) : choices_(c) {}
    std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(choices_.below(std::uint64_t(n))); }
    std::int64_t in(std::int64_t lo, std::int64_t hi) { return lo + below(hi - lo + 1); }
    bool chance(int percent) { return below(100) < percent; }
    template <class T> const T& pick(const std::vector<T>& v) {
        return v[static_cast<std::size_t>(below(static_cast<std::int64_t>(v.size())))];
    }

  private:
    ChoiceSource& choices_;
};

// Fuzz form: which values the generator chose are replaced, drawn per program: none, one (the value at one
// place of the program, so that the rest stays valid), or each with a chance of 2, 8 or 25 percent.
struct Mutations {
    std::int64_t rate = 0; // percent
    int single = -1;       // the place whose value is replaced, counting places in program order
    int places = 0;        // places passed so far
    // Whether the value at the next place is replaced. Outside the fuzz form it draws nothing, so that a
    // difftest seed keeps its program.
    bool here(Draw& d) {
        if (single >= 0) return places++ == single;
        return rate > 0 && d.chance(static_cast<int>(rate));
    }
    bool any() const { return rate > 0 || single >= 0; }
};
const std::vector<std::int64_t> kMutationRates = {0, -1, -1, 2, 8, 25}; // -1: a single place
constexpr int kSinglePlaces = 64;
// Fuzz form: a chain stops growing past these (a mutated size can multiply, and every run must stay short).
constexpr std::int64_t kMaxElements = 512, kMaxTileElements = 1024;

// A chain's stream with what the generator knows about it: its actual sizes (every chunk of a dimension has
// the same size here, because the generator's selectors are one-hot), which dims are ragged, its tile and
// a bound on the magnitude of its values, and whether they are exact binary fractions (then sums in any
// order give the same float32 bits).
struct Cursor {
    Stream s;
    std::vector<std::int64_t> dims; // outermost first
    std::vector<bool> ragged;
    std::int64_t tr = 1, tc = 1;
    double bound = 1;
    bool exact = true; // every value a multiple of 2^-fracBits, computed without rounding so far
    int fracBits = 1;  // the tensors hold multiples of 0.5

    std::int64_t total() const {
        return std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
    }
    bool anyRagged() const { return std::find(ragged.begin(), ragged.end(), true) != ragged.end(); }
    bool staticShape() const {
        for (const auto& d : s.shape().dims())
            if (!d.isStatic()) return false;
        return true;
    }
    int rank() const { return static_cast<int>(dims.size()) - 1; }
    // Sums of these values stay exact (and so independent of their order) within float32's 24 bits.
    bool exactSums() const { return exact && std::log2(std::max(bound, 1.0)) + fracBits + 4 <= 23; }
};

class ChainBuilder {
  public:
    // `fuzz` enables the fuzz form's own steps and `mutations` (shared by a program's chains).
    ChainBuilder(step::GraphBuilder& b, RandomProgram& p, int chain, ChoiceSource& choices, bool fuzz,
                 Mutations& mutations)
        : b_(b), p_(p), draw_(choices), prefix_(fmt::format("c{}.", chain)), fuzz_(fuzz), m_(mutations) {}

    void build(int steps) {
        Cursor c = start();
        verify(c);
        for (int i = 0; i < steps && !tooBig(c); ++i) {
            c = step(c);
            verify(c);
        }
        finish(c);
    }

  private:
    step::GraphBuilder& b_;
    RandomProgram& p_;
    Draw draw_;
    std::string prefix_;
    bool fuzz_;
    Mutations& m_;
    int tensors_ = 0;

    std::string name(const std::string& what) { return prefix_ + what; }

    // The generator's view of the stream must match the shape the operators inferred. After a mutation the
    // builder accepted, the view follows the stream instead (what is static in its type; a guess for the
    // rest).
    void verify(Cursor& c) {
        const auto& dims = c.s.shape().dims();
        bool ok = dims.size() == c.dims.size() && dims.size() == c.ragged.size();
        for (std::size_t i = 0; ok && i < dims.size(); ++i)
            ok = (!dims[i].isStatic() || *dims[i].size.constValue() == c.dims[i]) &&
                 (dims[i].kind == step::DimKind::Ragged) == c.ragged[i];
        const auto& t = c.s.type().dtype.tile;
        ok = ok && t.rows.constValue() == c.tr && t.cols.constValue() == c.tc;
        if (ok) return;
        if (p_.mutations == 0)
            throw BadInput(fmt::format(
                "after '{}': stream {}, the generator expected dims [{}] of {}x{} tiles",
                b_.graph().op(c.s.ref().op).name(), c.s.type().str(), fmt::join(c.dims, ", "), c.tr, c.tc));
        std::vector<std::int64_t> known;
        c.ragged.clear();
        for (std::size_t i = 0; i < dims.size(); ++i) {
            const auto v = dims[i].size.constValue();
            known.push_back(v ? std::max<std::int64_t>(*v, 0) : i < c.dims.size() ? c.dims[i] : 1);
            c.ragged.push_back(dims[i].kind == step::DimKind::Ragged);
        }
        c.dims = known;
        c.tr = std::max<std::int64_t>(t.rows.constValue().value_or(1), 1);
        c.tc = std::max<std::int64_t>(t.cols.constValue().value_or(1), 1);
        c.exact = false;
    }
    bool tooBig(const Cursor& c) const {
        return fuzz_ && (c.total() > kMaxElements || c.tr * c.tc > kMaxTileElements);
    }
    // Fuzz form: now and then a value replaced by a plausible wrong one (off by one, zero, negative, doubled,
    // halved, or any small number).
    std::int64_t tweak(std::int64_t v) {
        if (!m_.here(draw_)) return v;
        const std::int64_t options[] = {v + 1, v - 1, 0, -1, v * 2, v / 2, draw_.in(1, 17), draw_.in(-3, 40)};
        const std::int64_t w = options[draw_.below(8)];
        if (w != v) ++p_.mutations;
        return w;
    }
    bool flip(bool b) { return tweak(0) != 0 ? !b : b; }
    // Fuzz form: now and then another extent of the same step in place of the right one (an input's tile
    // where the product's belongs: the kind of mix-up a person makes).
    std::int64_t confuse(std::int64_t v, const std::vector<std::int64_t>& others) {
        if (others.empty() || !m_.here(draw_)) return v;
        const std::int64_t w = draw_.pick(others);
        if (w != v) ++p_.mutations;
        return w;
    }
    std::vector<std::int64_t> tweak(std::vector<std::int64_t> v) {
        if (!m_.any()) return v;
        for (auto& x : v)
            x = tweak(x);
        if (m_.here(draw_)) {
            ++p_.mutations;
            if (!v.empty() && draw_.chance(50))
                v.pop_back();
            else
                v.push_back(draw_.in(0, 3));
        }
        return v;
    }
    // Fuzz form: now and then any function of the library in place of the one the step needs.
    Function tweak(const Function& f) {
        if (!m_.here(draw_)) return f;
        using K = Function::Kind;
        static const std::vector<K> all = {
            K::Matmul,     K::Add,       K::Mul,           K::Div,       K::Silu,      K::Exp,
            K::RowWiseSum, K::SetOffset, K::RowWiseAppend, K::RetileRow, K::RetileCol, K::SignalReqAllRead};
        ++p_.mutations;
        if (draw_.chance(10)) return Function::cacheWriteAddrGen(draw_.in(0, 4));
        const K k = draw_.pick(all);
        return k == K::Matmul ? Function::matmul(draw_.chance(50)) : Function(k);
    }
    // Fuzz form: an accumulator's init, its tile and kind perhaps replaced.
    InitFn tweak(InitFn init) {
        if (!m_.any()) return init;
        if (m_.here(draw_)) {
            ++p_.mutations;
            switch (draw_.below(3)) {
            case 0:
                return InitFn::count();
            case 1:
                return InitFn::empty(std::max<std::int64_t>(tweak(*init.cols.constValue()), 0));
            default:
                init.elem = draw_.pick(std::vector<step::ElemType>{step::ElemType::BF16, step::ElemType::U64,
                                                                   step::ElemType::Bool});
            }
        }
        // Zero's rows and cols are read back as non-negative integers (a graph file refuses the rest).
        if (init.kind == InitFn::Kind::Zero) {
            init.rows = std::max<std::int64_t>(tweak(*init.rows.constValue()), 0);
            init.cols = std::max<std::int64_t>(tweak(*init.cols.constValue()), 0);
        }
        return init;
    }
    void used(const std::string& kind) { p_.families.insert(kind); }
    void bind(const Dim& d, std::int64_t value) {
        if (!d.isStatic()) p_.bindings[d.size.symName()] = value;
    }

    // A tensor of `tiles` tiles of tr x tc laid out as a random grid, holding exact small values.
    std::string tensor(const std::string& base, std::int64_t tiles, std::int64_t tr, std::int64_t tc) {
        std::vector<std::int64_t> rowsOfTiles;
        for (std::int64_t r = 1; r <= tiles; ++r)
            if (tiles % r == 0) rowsOfTiles.push_back(r);
        const std::int64_t gr = tiles > 0 ? draw_.pick(rowsOfTiles) : 1, gc = tiles > 0 ? tiles / gr : 1;
        if (gr * tr * gc * tc <= 0) { // only after a mutation: the builder refuses the tensor
            b_.tensor(name(fmt::format("{}{}", base, tensors_++)), gr * tr, gc * tc);
            return "";
        }
        std::vector<float> v(static_cast<std::size_t>(gr * tr * gc * tc));
        for (auto& x : v)
            x = 0.5f * static_cast<float>(draw_.in(-2, 2));
        const std::string n = name(fmt::format("{}{}", base, tensors_++));
        b_.tensor(n, gr * tr, gc * tc, std::move(v));
        return n;
    }

    // A linear load of a fresh tensor in the given static shape of tiles. A load without a reference stream
    // has an outermost dim of one, so `dims` must start with 1.
    Stream load(const std::vector<std::int64_t>& dims, std::int64_t tr, std::int64_t tc,
                const std::string& what) {
        const std::vector<std::int64_t> out(dims.begin() + 1, dims.end());
        std::vector<std::int64_t> stride(out.size());
        std::int64_t n = 1;
        for (std::size_t i = out.size(); i-- > 0;) {
            stride[i] = n;
            n *= out[i];
        }
        used("LinearOffChipLoad");
        // One call as before the fuzz form: its arguments' draws keep their order (the compiler's), so that
        // a difftest seed keeps its program. The tweaks draw nothing outside the fuzz form.
        return b_.linearOffChipLoad(tensor("in", n, tr, tc), tweak(tr), tweak(tc), tweak(stride), tweak(out),
                                    std::nullopt, static_cast<int>(tweak(0)),
                                    static_cast<int>(tweak(draw_.in(1, 2))), name(what));
    }

    step::MapOptions computeOptions() {
        return {tweak(draw_.pick(std::vector<std::int64_t>{64, 256, 1024})), false};
    }

    Cursor start() {
        Cursor c;
        c.tr = draw_.pick(std::vector<std::int64_t>{1, 2, 4, 8});
        c.tc = draw_.pick(std::vector<std::int64_t>{4, 8, 16});
        if (fuzz_ && draw_.chance(15)) return sourceTiles(c);
        if (draw_.chance(25)) {
            // Tiles gathered by address from a small table; one in four of these streams is empty.
            const std::int64_t tiles = draw_.in(2, 6);
            const std::int64_t m = draw_.chance(25) ? 0 : draw_.in(1, 6);
            std::vector<std::uint64_t> addr;
            for (std::int64_t i = 0; i < m; ++i)
                addr.push_back(static_cast<std::uint64_t>(draw_.below(tiles)));
            const std::string t = tensor("table", tiles, c.tr, c.tc);
            Stream a = b_.metadataGen(addr, Shape({Dim(tweak(m))}), name("addresses"));
            used("Source");
            used("RandomOffChipLoad");
            c.s = b_.randomOffChipLoad(a, t, tweak(c.tr), tweak(c.tc), static_cast<int>(tweak(0)), tweak(0),
                                       name("gather"));
            c.dims = {m};
        } else {
            c.dims.push_back(1);
            const int rank = static_cast<int>(draw_.in(0, 2));
            for (int i = 0; i <= rank; ++i)
                c.dims.push_back(draw_.in(1, 4));
            c.s = load(c.dims, c.tr, c.tc, "load");
        }
        c.ragged.assign(c.dims.size(), false);
        return c;
    }

    Cursor unary(Cursor c) {
        used("Map");
        if (c.bound < 8 && draw_.chance(40)) {
            c.s = b_.map({c.s}, tweak(Function(Function::Kind::Exp)), computeOptions(), name("exp"));
            c.bound = std::exp(c.bound);
        } else {
            c.s = b_.map({c.s}, tweak(Function(Function::Kind::Silu)), computeOptions(), name("silu"));
        }
        c.exact = false;
        return c;
    }

    Cursor selfBinary(Cursor c) {
        used("Map");
        used("Broadcast");
        if (c.bound * c.bound < kMaxMagnitude && draw_.chance(50)) {
            c.s = b_.map({c.s, c.s}, tweak(Function(Function::Kind::Mul)), computeOptions(), name("square"));
            c.bound *= c.bound;
            c.fracBits *= 2;
        } else {
            c.s = b_.map({c.s, c.s}, tweak(Function(Function::Kind::Add)), computeOptions(), name("double"));
            c.bound *= 2;
        }
        return c;
    }

    Cursor loadBinary(Cursor c) {
        Stream other = load(c.dims, c.tr, c.tc, "operand");
        used("Map");
        const bool mul = draw_.chance(50);
        c.s = b_.map({c.s, other}, tweak(Function(mul ? Function::Kind::Mul : Function::Kind::Add)),
                     computeOptions(), name(mul ? "mul" : "add"));
        c.bound = mul ? c.bound : c.bound + 1;
        c.fracBits = mul ? c.fracBits + 1 : std::max(c.fracBits, 1);
        return c;
    }

    Cursor matmul(Cursor c) {
        const std::int64_t n = draw_.pick(std::vector<std::int64_t>{4, 8, 16});
        std::vector<std::int64_t> zero(c.dims.size() - 1, 0);
        used("LinearOffChipLoad");
        const std::int64_t k = confuse(tweak(c.tc), {c.tr, n});
        Stream w = b_.linearOffChipLoad(tensor("weight", 1, k, n), k, n, tweak(zero),
                                        tweak(std::vector<std::int64_t>(c.dims.begin() + 1, c.dims.end())),
                                        std::nullopt, 0, 1, name("weights"));
        used("Map");
        c.s = b_.map({c.s, w}, tweak(Function::matmul()), computeOptions(), name("matmul"));
        c.bound *= static_cast<double>(c.tc);
        c.fracBits += 1;
        c.tc = n;
        return c;
    }

    // Fuzz form: an out_tile now and then, of the accumulator's extents or mutated ones.
    std::optional<step::TileType> outTile(const Cursor& c) {
        if (!fuzz_ || !draw_.chance(20)) return std::nullopt;
        return step::TileType{tweak(c.tr), tweak(c.tc), step::ElemType::F32};
    }

    Cursor accum(Cursor c) {
        used("Accum");
        c.s = b_.accum(c.s, tweak(Function(Function::Kind::Add)),
                       tweak(InitFn::zero(confuse(c.tr, {c.tc, 1}), confuse(c.tc, {c.tr, 1}))),
                       static_cast<int>(tweak(1)), computeOptions(), outTile(c), name("sum"));
        c.bound *= static_cast<double>(std::max<std::int64_t>(c.dims.back(), 1));
        c.dims.pop_back();
        c.ragged.pop_back();
        return c;
    }

    Cursor scan(Cursor c) {
        used("Scan");
        c.s = b_.scan(c.s, tweak(Function(Function::Kind::Add)),
                      tweak(InitFn::zero(confuse(c.tr, {c.tc, 1}), confuse(c.tc, {c.tr, 1}))),
                      static_cast<int>(tweak(1)), computeOptions(), name("prefix_sum"));
        c.bound *= static_cast<double>(std::max<std::int64_t>(c.dims.back(), 1));
        return c;
    }

    // Merges the two innermost dims; a ragged result counts its elements across every enclosing dim.
    Cursor flatten(Cursor c) {
        used("Flatten");
        const auto n = c.dims.size();
        c.s = b_.flatten(c.s, static_cast<int>(tweak(0)), static_cast<int>(tweak(1)), name("flatten"));
        const bool ragged = c.ragged[n - 1] || c.ragged[n - 2];
        c.dims[n - 2] *= c.dims[n - 1];
        c.dims.pop_back();
        c.ragged.pop_back();
        c.ragged[n - 2] = ragged;
        if (ragged) bind(c.s.shape().dims().back(), c.total());
        return c;
    }

    Cursor reshape(Cursor c) {
        used("Reshape");
        const std::int64_t chunk = draw_.in(2, 3), n = c.dims.back();
        const bool pad = n % chunk != 0 || !c.s.shape().dims().back().isStatic();
        c.s = b_.reshape(c.s, tweak(chunk), static_cast<int>(tweak(0)), flip(pad), name("reshape"));
        c.dims.back() = (n + chunk - 1) / chunk;
        c.dims.push_back(chunk);
        c.ragged.push_back(false);
        return c;
    }

    Cursor promote(Cursor c) {
        used("Promote");
        const auto rank = tweak(-1);
        c.s = b_.promote(c.s, rank == -1 ? std::nullopt : std::optional<int>(rank), name("promote"));
        c.dims.insert(c.dims.begin(), c.dims.front() > 0 ? 1 : 0);
        c.ragged.insert(c.ragged.begin(), false);
        return c;
    }

    // A per-branch step inside a routing round trip: passed through, or a cheap elementwise map.
    // `mayRound`: SiLU is allowed; `rounded` is set when it was drawn.
    Stream branchWork(Stream s, double& bound, bool mayRound, bool& rounded, const std::string& what) {
        switch (draw_.below(mayRound ? 3 : 2)) {
        case 0:
            return s;
        case 2:
            rounded = true;
            used("Map");
            return b_.map({s}, Function(Function::Kind::Silu), computeOptions(), name(what + ".silu"));
        default:
            used("Map");
            used("Broadcast");
            bound = std::max(bound, bound * 2);
            return b_.map({s, s}, Function(Function::Kind::Add), computeOptions(), name(what + ".double"));
        }
    }

    // The outer chunks routed by a random selector (or round-robin by Parallelize) and put back in order by
    // Reassemble: the result has a ragged dimension of ones after the outer one, or, for multicast single
    // elements, groups that are summed.
    Cursor routeAndReassemble(Cursor c, bool parallelize) {
        int n = static_cast<int>(draw_.in(2, 3));
        const std::int64_t a = c.dims.front();
        const int rank = c.rank();
        // Single elements may go to any subset of the branches (none included): Partition multicasts and
        // Reassemble gathers each element's group in branch order. Larger chunks stay one-hot, since a
        // multicast chunk longer than the stream depth deadlocks by construction.
        // A mutation may have made the values inexact without the generator knowing: no multicast then.
        const bool multi =
            !parallelize && rank == 0 && c.exactSums() && p_.mutations == 0 && draw_.chance(50);
        std::vector<std::vector<int>> sel;
        std::vector<std::int64_t> count(n, 0);
        std::int64_t grouped = 0;
        for (std::int64_t i = 0; i < a; ++i) {
            std::vector<int> to;
            if (multi) {
                for (int j = 0; j < n; ++j)
                    if (draw_.chance(40)) to.push_back(j);
            } else {
                to.push_back(parallelize ? static_cast<int>(i % n) : static_cast<int>(draw_.below(n)));
            }
            for (int j : to)
                ++count[j];
            grouped += static_cast<std::int64_t>(to.size());
            sel.push_back(to);
        }
        std::vector<Stream> branches;
        if (parallelize) {
            used("Parallelize");
            branches = b_.parallelize(c.s, static_cast<int>(tweak(n)), name("parallelize"));
        } else {
            used("Partition");
            used("Source");
            branches = b_.partition(
                c.s, b_.selectGen(sel, static_cast<int>(tweak(n)), Shape({Dim(tweak(a))}), name("route")),
                static_cast<int>(tweak(rank)), static_cast<int>(tweak(n)), name("partition"));
            for (int i = 0; i < n && i < static_cast<int>(branches.size()); ++i)
                bind(branches[i].shape().dims().front(), count[i]);
        }
        n = static_cast<int>(branches.size()); // a mutated count the builder accepted
        // A multicast group is summed in arrival order, which differs between executors: its values must
        // stay exact.
        double bound = c.bound;
        bool rounded = false;
        for (int i = 0; i < n; ++i)
            branches[i] = branchWork(branches[i], bound, !multi, rounded, fmt::format("branch{}", i));
        c.exact = c.exact && !rounded;
        used("Reassemble");
        used("Source");
        c.s = b_.reassemble(
            branches,
            b_.selectGen(sel, static_cast<int>(tweak(n)), Shape({Dim(tweak(a))}), name("gather_order")),
            static_cast<int>(tweak(rank)), name("reassemble"));
        bind(c.s.shape().dims()[1], grouped);
        c.bound = bound;
        if (multi) { // each element's group summed: an empty group gives the accumulator's initial zeros
            used("Accum");
            c.s = b_.accum(c.s, Function(Function::Kind::Add), InitFn::zero(c.tr, c.tc), 1, computeOptions(),
                           std::nullopt, name("group_sum"));
            c.bound *= n;
            return c;
        }
        c.dims.insert(c.dims.begin() + 1, 1);
        c.ragged.insert(c.ragged.begin() + 1, true);
        return c;
    }

    // EagerMerge of the stream with an independent one of the same shape, split back by the merge's own
    // selector: the first part continues the chain in its original order, the second is stored on the
    // side. (A peer derived from the stream itself would deadlock: the merge forwards whole chunks, so the
    // peer's path would have to hold a chunk longer than the stream depth.)
    Cursor mergeAndSplit(Cursor c) {
        const int rank = c.rank();
        Stream other = load(c.dims, c.tr, c.tc, "merge_peer");
        used("EagerMerge");
        auto [data, sel] = b_.eagerMerge({c.s, other}, static_cast<int>(tweak(rank)), name("eager_merge"));
        used("Partition");
        auto parts = b_.partition(data, sel, static_cast<int>(tweak(rank)), 2, name("split"));
        const std::int64_t a = c.dims.front();
        bind(parts[0].shape().dims().front(), a);
        bind(parts[1].shape().dims().front(), a);
        Cursor side = c;
        side.s = parts[1];
        finish(side);
        c.s = parts[0];
        return c;
    }

    // Tiles split into their rows or columns by FlatMap: a new innermost dim, or merged into the last one.
    Cursor explode(Cursor c) {
        used("FlatMap");
        const bool rows = draw_.chance(50), merge = !c.anyRagged() && draw_.chance(50);
        const std::int64_t n = rows ? c.tr : c.tc;
        nlohmann::json args{{"fn", rows ? "RetileRows" : "RetileCols"}, {"flatten", flip(merge)}};
        if (tweak(0) != 0) args["fn"] = draw_.chance(50) ? "FilterLastTile" : "ExpertAddr";
        if (args["fn"] == "ExpertAddr") args["num_tiles_per_expert"] = tweak(1);
        c.s = b_.flatMap(c.s, args, name(rows ? "rows" : "cols"));
        (rows ? c.tr : c.tc) = 1;
        if (merge) {
            c.dims.back() *= n;
        } else {
            c.dims.push_back(n);
            c.ragged.push_back(false);
        }
        return c;
    }

    Cursor bufferAndRepeat(Cursor c) {
        used("Bufferize");
        used("Streamify");
        const std::int64_t m = draw_.in(1, 2);
        Stream buffers = b_.bufferize(c.s, static_cast<int>(tweak(1)), name("bufferize"));
        c.s = b_.streamify(buffers, tweak(std::vector<std::int64_t>{m}), name("streamify"));
        c.dims.insert(c.dims.end() - 1, m);
        c.ragged.insert(c.ragged.end() - 1, false);
        return c;
    }

    // Row sums broadcast back over the row by Expand, against a reference stream of the row's shape.
    Cursor reduceAndExpand(Cursor c) {
        Cursor r = accum(c);
        used("Promote");
        Stream one = b_.promote(r.s, static_cast<int>(tweak(0)), name("unit_dim"));
        Stream ref = load(c.dims, 1, 1, "expand_ref");
        used("Expand");
        c.s = b_.expand(one, ref, static_cast<int>(tweak(1)), name("expand"));
        c.bound = r.bound;
        return c;
    }

    // Fuzz form: a stream given in full by a Source of tiles (its declared shape and tiles, and the tiles and
    // stops it holds, each perhaps mutated).
    Cursor sourceTiles(Cursor c) {
        used("Source");
        const std::int64_t m = draw_.in(1, 4);
        const std::int64_t rows = tweak(c.tr), cols = tweak(c.tc);
        nlohmann::json tokens = nlohmann::json::array();
        const std::int64_t count = std::clamp<std::int64_t>(tweak(m), 0, 8);
        for (std::int64_t i = 0; i < count; ++i) {
            nlohmann::json tile = nlohmann::json::array();
            for (std::int64_t r = 0; r < std::clamp<std::int64_t>(rows, 0, 16); ++r) {
                const std::int64_t n = std::clamp<std::int64_t>(r == 0 ? cols : tweak(cols), 0, 32);
                tile.push_back(
                    std::vector<float>(static_cast<std::size_t>(n), 0.5f * float(draw_.in(-2, 2))));
            }
            tokens.push_back({{"tile", tile}});
        }
        if (count > 0) tokens.push_back("S1");
        if (tweak(0) != 0) tokens.push_back(fmt::format("S{}", tweak(1)));
        c.s = b_.source("tile", Shape({Dim(1), Dim(m)}), tokens, {{"tile_rows", c.tr}, {"tile_cols", c.tc}},
                        name("source"));
        c.dims = {1, m};
        c.ragged.assign(2, false);
        return c;
    }

    // Fuzz form: the fused matmul reduced over the innermost dim (MapAccum with Matmul), against weights
    // streamed in the same shape; the init tile is the product's, unless mutated.
    Cursor mapAccum(Cursor c) {
        const std::int64_t n = draw_.pick(std::vector<std::int64_t>{4, 8, 16});
        used("LinearOffChipLoad");
        const std::int64_t k = confuse(tweak(c.tc), {c.tr, n});
        const std::vector<std::int64_t> out(c.dims.begin() + 1, c.dims.end());
        std::vector<std::int64_t> stride(out.size(), 0);
        stride.back() = 1;
        Stream w = b_.linearOffChipLoad(tensor("weight", std::max<std::int64_t>(out.back(), 1), k, n), k, n,
                                        tweak(stride), tweak(out), std::nullopt, 0, 1, name("weights"));
        used("MapAccum");
        c.s = b_.mapAccum(c.s, w, tweak(Function::matmul()),
                          tweak(InitFn::zero(confuse(c.tr, {k, n}), confuse(n, {c.tc, k}))),
                          static_cast<int>(tweak(1)), computeOptions(), name("matmul_accum"));
        c.bound *= static_cast<double>(c.tc * std::max<std::int64_t>(c.dims.back(), 1));
        c.tc = n;
        c.dims.pop_back();
        c.ragged.pop_back();
        c.exact = false;
        return c;
    }

    Cursor repeat(Cursor c) {
        used("RepeatStatic");
        const std::int64_t n = draw_.in(1, 3);
        c.s = b_.repeatStatic(c.s, tweak(n), name("repeat"));
        c.dims.push_back(n);
        c.ragged.push_back(false);
        return c;
    }

    // Fuzz form: a side stream of addresses (scalars at run time, 1x1 u64 tiles in their type) through a
    // function or a counting Accum, stored or dropped; the chain itself passes unchanged.
    Cursor addressSide(Cursor c) {
        used("Source");
        const std::int64_t m = draw_.in(1, 4);
        std::vector<std::uint64_t> values;
        for (std::int64_t i = 0; i < m; ++i)
            values.push_back(static_cast<std::uint64_t>(draw_.in(0, 3)));
        Stream a = b_.metadataGen(values, Shape({Dim(1), Dim(m)}), name("scalars"));
        if (draw_.chance(50)) {
            used("Map");
            const Function f = tweak(Function::cacheWriteAddrGen(2));
            a = f.arity() == 1 ? b_.map({a}, f, computeOptions(), name("scalar_map"))
                               : b_.map({a, a}, f, computeOptions(), name("scalar_map"));
        } else {
            used("Accum");
            a = b_.accum(a, tweak(Function(Function::Kind::SignalReqAllRead)), tweak(InitFn::count()),
                         static_cast<int>(tweak(1)), computeOptions(),
                         tweak(0) != 0 ? outTile(c) : std::nullopt, name("count"));
        }
        if (tweak(0) == 0) {
            b_.sink(a, name("scalar_sink"));
        } else {
            const std::string t = name(fmt::format("out{}", tensors_++));
            b_.tensor(t, 1, 8);
            used("LinearOffChipStore");
            b_.linearOffChipStore(a, t, 1, name("scalar_store"));
        }
        return c;
    }

    Cursor step(Cursor c) {
        // Fuzz form, now and then: steps whose preconditions do not hold (routing a ragged stream, loads
        // against a dynamic shape, magnitudes past the bound), which the builder must refuse or run.
        const bool lax = fuzz_ && tweak(0) != 0;
        std::vector<std::function<Cursor(Cursor)>> options = {
            [&](Cursor x) { return unary(x); }, [&](Cursor x) { return selfBinary(x); },
            [&](Cursor x) { return promote(x); }, [&](Cursor x) { return explode(x); }};
        const bool deep = c.dims.size() >= 2;
        if (deep) {
            options.push_back([&](Cursor x) { return accum(x); });
            options.push_back([&](Cursor x) { return flatten(x); });
            if (lax || c.bound * static_cast<double>(c.dims.back()) < kMaxMagnitude)
                options.push_back([&](Cursor x) { return scan(x); });
        }
        if (lax || !c.anyRagged()) {
            // Routing splits the outer dim, which a ragged symbol (one count for the whole stream) cannot
            // follow.
            options.push_back([&](Cursor x) { return routeAndReassemble(x, false); });
            options.push_back([&](Cursor x) { return routeAndReassemble(x, true); });
            options.push_back([&](Cursor x) { return reshape(x); });
            if (deep) options.push_back([&](Cursor x) { return bufferAndRepeat(x); });
        }
        // Loads whose shape follows the stream's: a load's own outermost dim is one.
        if (deep && (lax || (c.staticShape() && c.total() > 0 && c.dims.front() == 1))) {
            options.push_back([&](Cursor x) { return loadBinary(x); });
            options.push_back([&](Cursor x) { return mergeAndSplit(x); });
            if (lax || c.bound * static_cast<double>(c.tc) < kMaxMagnitude)
                options.push_back([&](Cursor x) { return matmul(x); });
            if (c.dims.size() >= 3 && (lax || c.bound * static_cast<double>(c.dims.back()) < kMaxMagnitude))
                options.push_back([&](Cursor x) { return reduceAndExpand(x); });
            if (fuzz_ && (lax || c.bound * static_cast<double>(c.tc * c.dims.back()) < kMaxMagnitude))
                options.push_back([&](Cursor x) { return mapAccum(x); });
        }
        if (fuzz_) {
            options.push_back([&](Cursor x) { return repeat(x); });
            options.push_back([&](Cursor x) { return addressSide(x); });
        }
        return options[static_cast<std::size_t>(draw_.below(static_cast<std::int64_t>(options.size())))](c);
    }

    // Stores the stream: linearly, or scattered by a permutation after flattening it to rank 0.
    void finish(Cursor c) {
        if (draw_.chance(30)) {
            while (c.dims.size() > 1)
                c = flatten(c);
            const std::int64_t n = c.total();
            std::vector<std::uint64_t> perm(static_cast<std::size_t>(n));
            std::iota(perm.begin(), perm.end(), 0);
            for (std::size_t i = perm.size(); i > 1; --i)
                std::swap(perm[i - 1],
                          perm[static_cast<std::size_t>(draw_.below(static_cast<std::int64_t>(i)))]);
            const std::string t = name(fmt::format("out{}", tensors_++));
            b_.tensor(t, tweak(c.tr), c.tc * std::max<std::int64_t>(n, 1));
            used("RandomOffChipStore");
            used("Source");
            Stream acks =
                b_.randomOffChipStore(b_.metadataGen(perm, Shape({Dim(tweak(n))}), name("scatter_addresses")),
                                      c.s, t, static_cast<int>(tweak(0)), name("scatter"));
            b_.sink(acks, name("acks"));
            return;
        }
        const std::string t = name(fmt::format("out{}", tensors_++));
        b_.tensor(t, tweak(c.tr), tweak(c.tc * std::max<std::int64_t>(c.total(), 1)));
        used("LinearOffChipStore");
        const std::int64_t par = draw_.in(1, 2);
        b_.linearOffChipStore(c.s, t, static_cast<int>(tweak(par)), name("store"));
    }
};

} // namespace

RandomProgramPlan planRandomProgram(std::uint64_t seed) {
    SeededChoices choices(seed * 0x9E3779B97F4A7C15ull + 1);
    Draw d(choices);
    RandomProgramPlan p;
    p.seed = seed;
    const auto chains = d.in(1, 3);
    for (std::int64_t i = 0; i < chains; ++i)
        p.chains.push_back(
            {static_cast<std::uint64_t>(d.below(std::int64_t{1} << 62)), static_cast<int>(d.in(1, 6))});
    return p;
}

RandomProgram buildRandomProgram(const RandomProgramPlan& plan) {
    RandomProgram p;
    step::GraphBuilder b;
    try {
        for (std::size_t i = 0; i < plan.chains.size(); ++i) {
            SeededChoices choices(plan.chains[i].seed);
            Mutations none;
            ChainBuilder(b, p, static_cast<int>(i), choices, false, none).build(plan.chains[i].steps);
        }
        p.graph = b.finish();
    } catch (const BadInput& e) {
        throw StepError(
            ExitCode::Internal,
            fmt::format("difftest: program {} is ill-typed (a generator bug): {}", plan.seed, e.what()));
    }
    return p;
}

RandomProgram buildFuzzProgram(ChoiceSource& choices) {
    RandomProgram p;
    step::GraphBuilder b;
    Draw d(choices);
    Mutations m;
    m.rate = d.pick(kMutationRates);
    if (m.rate < 0) {
        m.rate = 0;
        m.single = static_cast<int>(d.below(kSinglePlaces));
    }
    const auto chains = d.in(1, 3);
    try {
        for (std::int64_t i = 0; i < chains; ++i) {
            const auto steps = static_cast<int>(d.in(0, 8));
            ChainBuilder(b, p, static_cast<int>(i), choices, true, m).build(steps);
        }
        p.graph = b.finish();
    } catch (const BadInput& e) {
        if (p.mutations > 0) throw;
        throw StepError(
            ExitCode::Internal,
            fmt::format("fuzz_program: a program without mutations is ill-typed (a generator bug): {}",
                        e.what()));
    }
    return p;
}

} // namespace steprdu::tb
