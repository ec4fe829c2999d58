#pragma once
// Error kinds map one-to-one onto the CLI exit codes of docs/cli.md.
#include <stdexcept>
#include <string>

namespace steprdu {

enum class ExitCode : int { Ok = 0, Internal = 1, BadInput = 2, NoProgress = 3, LimitReached = 4 };

// `s` with control characters, DEL and bytes that are not valid UTF-8 written as escapes (\n, \t, \xNN), so
// that an error quoting a corrupt input stays one readable line.
std::string printable(const std::string& s);

class StepError : public std::runtime_error {
  public:
    StepError(ExitCode code, const std::string& msg) : std::runtime_error(msg), code_(code) {}
    ExitCode code() const { return code_; }

  private:
    ExitCode code_;
};

// Bad CLI value, knob, config, trace or graph. The message is one line naming the place
// (file:line, key path or operator), what was expected and what was found; the bytes it quotes from the
// input are shown printable (see printable()).
class BadInput : public StepError {
  public:
    explicit BadInput(const std::string& msg) : StepError(ExitCode::BadInput, printable(msg)) {}
};

// The simulation stopped making progress; the message names the stuck operators/units and FIFOs.
class NoProgress : public StepError {
  public:
    explicit NoProgress(const std::string& msg) : StepError(ExitCode::NoProgress, msg) {}
};

class LimitReached : public StepError {
  public:
    explicit LimitReached(const std::string& msg) : StepError(ExitCode::LimitReached, msg) {}
};

// Formats "expected X, found Y" consistently across all validators.
std::string expectedFound(const std::string& expected, const std::string& found);

} // namespace steprdu
