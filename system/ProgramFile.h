#pragma once
// A program in YAML (docs/system.md): its kernels, each a testbench with knobs, and its schedule.
//
//   kernels:
//     - {name: layer, testbench: decoder, knobs: {model: mixtral}, loop_knob: layers}
//     - {name: head, testbench: gemm, knobs: {m: 64, k: 4096, n: 4096}}
//   schedule:
//     - {kernel: layer, repeat: 32}        # or a group: {calls: [qkv, attention, ffn], repeat: 32}
//     - head
#include <string>
#include <vector>

#include "system/KernelTimer.h"

namespace steprdu::sys {

struct ProgramFile {
    std::vector<KernelSpec> kernels;
    std::vector<int> calls; // indices into kernels
};

// Throws BadInput naming the file, the entry and the key: unknown keys, a kernel named twice or never
// defined, an unknown testbench, a repeat below 1, an empty schedule.
ProgramFile readProgramFile(const std::string& path);
ProgramFile parseProgram(const std::string& yamlText, const std::string& where);

} // namespace steprdu::sys
