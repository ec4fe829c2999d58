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

template <class Task, class Body> boost::context::fiber operatorFiber(Task* task, Body body) {
    namespace ctx = boost::context;
    return ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kOperatorStackBytes),
                      [task, body](ctx::fiber&& sched) {
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
}

} // namespace steprdu::step
