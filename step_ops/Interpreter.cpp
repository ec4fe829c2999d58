#include "step_ops/Interpreter.h"

#include <deque>
#include <exception>
#include <optional>

#include <boost/context/fiber.hpp>
#include <fmt/format.h>

#include "step_ops/OperatorFiber.h"
#include "util/Error.h"

namespace steprdu::step {

namespace ctx = boost::context;

namespace {

// Measures the extents of a stream's symbol-sized dimensions from its tokens. A dimension at rank r closes
// at every stop S_k with k > r; its extent is the number of rank r-1 closings (data elements for rank 0)
// since it last closed. The outermost dimension closes with Done.
class SymbolExtents {
  public:
    explicit SymbolExtents(const Shape& s) {
        for (int r = 0; r < s.numDims(); ++r) {
            const Expr& size = s.atRank(r).size;
            symbolAtRank_.push_back(size.op() == Expr::Op::Sym ? size.symName() : "");
            any_ = any_ || size.op() == Expr::Op::Sym;
        }
        open_.assign(symbolAtRank_.size() + 1, 0);
    }
    void see(const Token& t, Bindings& observed) {
        if (!any_) return;
        if (t.isData()) {
            ++open_[0];
            return;
        }
        const int top = static_cast<int>(symbolAtRank_.size()) - 1;
        const int closes = t.isDone() ? top : std::min(t.level - 1, top);
        for (int r = t.isDone() ? top : 0; r <= closes; ++r) {
            if (!symbolAtRank_[r].empty()) {
                auto& seen = observed[symbolAtRank_[r]];
                seen = std::max(seen, open_[r]);
            }
            open_[r] = 0;
            ++open_[r + 1];
        }
    }

  private:
    std::vector<std::string> symbolAtRank_; // "" where the extent is not a plain symbol
    std::vector<std::int64_t> open_;        // items in the dimension at each rank, since it last closed
    bool any_ = false;
};

// An unbounded FIFO: the interpreter computes values, and unbounded streams cannot deadlock a correct graph.
struct Channel {
    std::deque<Token> q;
    std::string from, to;
    std::optional<SymbolExtents> extents;
};

struct Task;

class InterpIO : public OpIO {
  public:
    InterpIO(Task& t) : task_(t) {}
    using OpIO::peek;
    const Token& peek(int in, int ahead) override;
    Token pop(int in) override;
    void push(int out, Token t) override;
    int firstAvailable(const std::vector<int>& ins) override;
    void offChip(const OffChipAccess& a) override;
    bool functional() const override;
    TensorStore& memory() override;

  private:
    Task& task_;
};

struct Task {
    const Operator* op = nullptr;
    std::vector<Channel*> in, out;
    ctx::fiber fiber;
    ctx::fiber scheduler; // where to return when blocking
    bool finished = false;
    std::exception_ptr error;
    std::string waitingFor; // description of what the task is blocked on
    InterpreterResult* result = nullptr;
    TensorStore* store = nullptr;
    bool functional = true;
    bool isSink = false;

    void block(const std::string& why) {
        waitingFor = why;
        scheduler = std::move(scheduler).resume();
        waitingFor.clear();
    }
};

const Token& InterpIO::peek(int in, int ahead) {
    Channel* c = task_.in.at(in);
    while (static_cast<int>(c->q.size()) <= ahead)
        task_.block(fmt::format("input {} (from {})", in, c->from));
    return c->q[ahead];
}

Token InterpIO::pop(int in) {
    peek(in, 0);
    Channel* c = task_.in[in];
    Token t = std::move(c->q.front());
    c->q.pop_front();
    ++task_.result->tokensMoved;
    if (task_.isSink) task_.result->sinks[task_.op->name()].push_back(t);
    return t;
}

void InterpIO::push(int out, Token t) {
    Channel* c = task_.out.at(out);
    c->extents->see(t, task_.result->observedSizes);
    c->q.push_back(std::move(t));
}

int InterpIO::firstAvailable(const std::vector<int>& ins) {
    for (;;) {
        for (int i : ins)
            if (!task_.in.at(i)->q.empty()) return i;
        task_.block(fmt::format("any of {} inputs", ins.size()));
    }
}

void InterpIO::offChip(const OffChipAccess& a) {
    (a.write ? task_.result->offChipWriteBytes : task_.result->offChipReadBytes) += a.bytes();
}

bool InterpIO::functional() const {
    return task_.functional;
}
TensorStore& InterpIO::memory() {
    return *task_.store;
}

} // namespace

InterpreterResult Interpreter::run(Graph& g) {
    g.finalize();
    store_ = std::make_unique<TensorStore>(g, functional_);
    InterpreterResult result;
    int n = g.numOps();
    std::vector<std::unique_ptr<Channel>> channels;
    std::vector<Task> tasks(n);
    for (int i = 0; i < n; ++i) {
        tasks[i].op = &g.op(i);
        tasks[i].out.resize(g.op(i).outputs().size());
    }
    for (int i = 0; i < n; ++i) {
        for (std::size_t p = 0; p < g.op(i).inputs().size(); ++p) {
            StreamRef r = g.op(i).inputs()[p];
            channels.push_back(std::make_unique<Channel>());
            channels.back()->from = fmt::format("{} out {}", g.op(r.op).where(), r.out);
            channels.back()->to = fmt::format("{} in {}", g.op(i).where(), p);
            channels.back()->extents.emplace(g.op(r.op).outputs().at(r.out).shape);
            tasks[i].in.push_back(channels.back().get());
            tasks[r.op].out[r.out] = channels.back().get();
        }
    }
    for (auto& t : tasks) {
        t.result = &result;
        t.store = store_.get();
        t.functional = functional_;
        t.isSink = t.op->kind() == "Sink";
        Task* self = &t;
        t.fiber = operatorFiber(self, [self] {
            InterpIO io(*self);
            self->op->run(io);
        });
    }
    // Round-robin until every operator finished; a full pass without any token moving is a deadlock.
    int remaining = n;
    while (remaining > 0) {
        std::int64_t before = result.tokensMoved;
        int finishedBefore = remaining;
        for (auto& t : tasks) {
            if (t.finished) continue;
            t.fiber = std::move(t.fiber).resume();
            if (t.error) std::rethrow_exception(t.error);
            if (t.finished) --remaining;
        }
        if (remaining > 0 && result.tokensMoved == before && remaining == finishedBefore) {
            std::string report;
            for (auto& t : tasks)
                if (!t.finished) report += fmt::format("; {} waits on {}", t.op->where(), t.waitingFor);
            for (auto& c : channels)
                if (!c->q.empty())
                    report += fmt::format("; stream {} -> {} holds {} token(s)", c->from, c->to, c->q.size());
            throw NoProgress("interpreter: no forward progress" + report);
        }
    }
    for (auto& c : channels)
        if (!c->q.empty())
            throw BadInput(
                fmt::format("graph: stream {} -> {} still holds {} token(s) after its consumer finished",
                            c->from, c->to, c->q.size()));
    return result;
}

} // namespace steprdu::step
