#pragma once
// Runs a function in a child process and returns its JSON result. The cycle backend needs this: SystemC
// elaborates once per process, so every simulation gets a fresh one. A StepError thrown in the child is
// thrown again in the parent with the same exit code; a crash becomes an internal error naming the signal.
// STEPRDU_NO_FORK=1 runs the function in the calling process instead (for a debugger; one run per process).
#include <functional>

#include <nlohmann/json.hpp>

namespace steprdu {

nlohmann::json runInChild(const std::function<nlohmann::json()>& fn);

// The same, started now and collected later, so that several run at once. Start them from one thread: a child
// forked while another thread holds a lock (the sanitizers' allocator takes one that fork does not) would
// wait for it forever.
class ChildProcess {
  public:
    explicit ChildProcess(const std::function<nlohmann::json()>& fn);
    ChildProcess(ChildProcess&& o) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ~ChildProcess(); // one never collected is killed
    // Waits for the child; its result, or its error thrown again. Once only.
    nlohmann::json result();

  private:
    int pid_ = -1, fd_ = -1;
    nlohmann::json reply_; // without a fork (STEPRDU_NO_FORK), the function's
};

} // namespace steprdu
