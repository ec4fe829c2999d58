#include "util/Version.h"

namespace steprdu {

std::string projectVersion() {
    return STEPRDU_VERSION;
}

std::string gitRevision() {
    return STEPRDU_GIT_REVISION;
}

} // namespace steprdu
