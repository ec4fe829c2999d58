#pragma once
// What built this binary: the project version and the git revision of the source tree at configure time
// ("unknown" outside a git checkout), as meta.json records them.
#include <string>

namespace steprdu {

std::string projectVersion();
std::string gitRevision();

} // namespace steprdu
