#pragma once
// steprdu.Program's core: a program of kernels (docs/system.md), each a steprdu.Graph or a built-in
// testbench, timed on one backend as `steprdu program` times a program file.
#include <pybind11/pybind11.h>

namespace steprdu::py {

void defineKernelProgram(pybind11::module_& m);

} // namespace steprdu::py
