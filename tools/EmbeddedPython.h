#pragma once
// The text of python/steprdu/*.py compiled into the binary: `steprdu plot` runs sweep_plot.py from it, so the
// binary draws without the source tree or the Python module built.
#include <vector>

#include "util/EmbeddedFile.h"

namespace steprdu::cli {

// Sorted by name (the file name without .py, e.g. "sweep_plot").
const std::vector<EmbeddedFile>& embeddedPython();

} // namespace steprdu::cli
