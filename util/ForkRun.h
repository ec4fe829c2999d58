#pragma once
// Runs a function in a child process and returns its JSON result. The cycle backend needs this: SystemC
// elaborates once per process, so every simulation gets a fresh one. A StepError thrown in the child is
// thrown again in the parent with the same exit code; a crash becomes an internal error naming the signal.
// STEPRDU_NO_FORK=1 runs the function in the calling process instead (for a debugger; one run per process).
// Threads may call it at once.
#include <functional>

#include <nlohmann/json.hpp>

namespace steprdu {

nlohmann::json runInChild(const std::function<nlohmann::json()>& fn);

} // namespace steprdu
