#pragma once
// Line-oriented CSV access shared by the trace readers, so every reader reports errors the same way:
// one line, "<path>:<line>: <what>; expected ..., found ...".
#include <cstddef>
#include <string>
#include <vector>

namespace steprdu::traces {

class TraceCsv {
  public:
    // Reads the whole file (traces are small), or the embedded text of a bundled trace when `path` is
    // "bundled:<name>" (BundledTraces.h); `kind` names the trace in open/read errors.
    TraceCsv(const std::string& path, const std::string& kind);

    // The next line split on ',' with each field trimmed (which also drops Windows '\r').
    // Returns false at the end of the file. Trailing blank lines are ignored; a blank line
    // followed by more data is an error, since it usually means a truncated or merged file.
    bool next(std::vector<std::string>& fields);

    // 1-based number of the line last returned by next(); after the end, the line past the last one.
    int lineNo() const { return lineNo_; }
    // Raw text of the line last returned by next(), for messages about the whole line.
    const std::string& lineText() const { return lines_[pos_ - 1]; }
    const std::string& path() const { return path_; }

    // Throws BadInput "<path>:<line>: <what>; expected <expected>, found <found>" at the current line.
    [[noreturn]] void fail(const std::string& what, const std::string& expected,
                           const std::string& found) const;

  private:
    std::string path_;
    std::vector<std::string> lines_;
    std::size_t pos_ = 0;
    int lineNo_ = 0;
};

// `s` in single quotes, shortened and with control bytes escaped so a message stays one readable line.
std::string quoted(const std::string& s);

} // namespace steprdu::traces
