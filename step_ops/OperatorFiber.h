#pragma once
// Runs one operator's stream semantics in its own fiber, for the executors that interleave operators
// (interpreter, roofline). The task type provides `scheduler` (the fiber to return to when blocking),
// `finished` and `error`.
#include <exception>
#include <utility>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

namespace steprdu::step {

// Operator code is shallow; 256 KiB with a guard page turns a runaway recursion into a clean fault.
constexpr std::size_t kOperatorStackBytes = 256 * 1024;

// The fiber is returned started and parked at its entry: a fiber destroyed before its first resume (the run
// failed early) then unwinds from there. Boost.Context's ucontext implementation (the sanitizer and fuzz
// builds) would otherwise enter it from the destructor and run the operator up to its first wait, on a task
// already half destroyed.
template <class Task, class Body> boost::context::fiber operatorFiber(Task* task, Body body) {
    namespace ctx = boost::context;
    ctx::fiber f(std::allocator_arg, ctx::protected_fixedsize_stack(kOperatorStackBytes),
                 [task, body](ctx::fiber&& creator) {
                     ctx::fiber sched = std::move(creator).resume(); // parked until the first real resume
                     task->scheduler = std::move(sched);
                     try {
                         body();
                     } catch (const ctx::detail::forced_unwind&) {
                         throw; // a fiber destroyed while suspended must unwind
                     } catch (...) {
                         task->error = std::current_exception();
                     }
                     task->finished = true;
                     return std::move(task->scheduler);
                 });
    return std::move(f).resume();
}

} // namespace steprdu::step
