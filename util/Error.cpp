#include "util/Error.h"

#include <fmt/format.h>

namespace steprdu {

std::string expectedFound(const std::string& expected, const std::string& found) {
    return fmt::format("expected {}, found {}", expected, found);
}

} // namespace steprdu
