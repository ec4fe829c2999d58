#include "traces/TraceCsv.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "traces/BundledTraces.h"
#include "util/Error.h"
#include "util/Strings.h"

namespace steprdu::traces {

namespace {

std::string readWholeFile(const std::string& path, const std::string& kind) {
    // stdio rather than iostreams: fopen/fread set errno, so the message can say why the file failed.
    errno = 0;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!f) throw BadInput(fmt::format("{}: cannot open {}: {}", path, kind, std::strerror(errno)));
    std::string text;
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0)
        text.append(buf, n);
    if (std::ferror(f.get()))
        throw BadInput(fmt::format("{}: cannot read {}: {}", path, kind, std::strerror(errno)));
    return text;
}

// A bundled trace ("bundled:<name>") from the text compiled into the binary, else the file.
std::string readTrace(const std::string& path, const std::string& kind) {
    const auto bundled = bundledTraceName(path);
    if (!bundled) return readWholeFile(path, kind);
    try {
        return bundledTraceText(*bundled);
    } catch (const BadInput& e) {
        throw BadInput(fmt::format("{}: cannot open {}: {}", path, kind, e.what()));
    }
}

} // namespace

TraceCsv::TraceCsv(const std::string& path, const std::string& kind) : path_(path) {
    std::string text = readTrace(path, kind);
    // Spreadsheet programs prepend a UTF-8 byte order mark, which would otherwise spoil the header.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
    lines_ = split(text, '\n');
    // A final newline leaves one empty piece that is not a line of the file.
    if (!lines_.empty() && lines_.back().empty()) lines_.pop_back();
}

bool TraceCsv::next(std::vector<std::string>& fields) {
    if (pos_ < lines_.size() && trim(lines_[pos_]).empty()) {
        std::size_t blank = pos_;
        while (pos_ < lines_.size() && trim(lines_[pos_]).empty())
            ++pos_;
        if (pos_ < lines_.size()) {
            lineNo_ = static_cast<int>(blank) + 1;
            fail("blank line inside the trace", "a data row", "an empty line");
        }
    }
    lineNo_ = static_cast<int>(pos_) + 1;
    if (pos_ >= lines_.size()) return false;
    fields = split(lines_[pos_++], ',');
    for (auto& f : fields)
        f = trim(f);
    return true;
}

void TraceCsv::fail(const std::string& what, const std::string& expected, const std::string& found) const {
    throw BadInput(fmt::format("{}:{}: {}; {}", path_, lineNo_, what, expectedFound(expected, found)));
}

std::string quoted(const std::string& s) {
    constexpr std::size_t kMaxShown = 60;
    std::string out = "'";
    for (std::size_t i = 0; i < s.size() && i < kMaxShown; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f)
            out += fmt::format("\\x{:02x}", c);
        else
            out += static_cast<char>(c);
    }
    out += "'";
    if (s.size() > kMaxShown) out += fmt::format(" ({} more characters)", s.size() - kMaxShown);
    return out;
}

} // namespace steprdu::traces
