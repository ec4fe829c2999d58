#pragma once
// A program in YAML (docs/system.md): its kernels, each a testbench with knobs, and its schedule.
//
//   kernels:
//     - {name: layer, testbench: decoder, knobs: {model: mixtral}, loop_knob: layers}
//     - {name: head, testbench: gemm, knobs: {m: 64, k: 4096, n: 4096}}
//   schedule:
//     - {kernel: layer, repeat: 32}        # or a group: {calls: [qkv, attention, ffn], repeat: 32}
//     - head
#include <map>
#include <string>
#include <vector>

#include "system/KernelTimer.h"

namespace steprdu::sys {

struct ProgramFile {
    std::vector<KernelSpec> kernels;
    std::vector<int> calls; // indices into kernels
};

// A program kernel by kernel and call by call, as the file reader and the Python front end build it.
class ProgramBuilder {
  public:
    // A testbench that is a program (decoder fusion=operator) adds its operator kernels, named
    // <name>.<operator>, each once. Throws BadInput naming `where`: a name given twice, an unknown testbench
    // or knob, a loop knob on a program.
    void addKernel(KernelSpec spec, const std::string& where);
    // The kernels one call of `name` runs; BadInput naming `where` and the program's kernels if it has none.
    const std::vector<int>& runsOf(const std::string& name, const std::string& where) const;
    void call(const std::vector<int>& runs, long long repeat = 1);
    // BadInput naming `where` if there are no kernels or no calls.
    ProgramFile finish(const std::string& where) &&;

  private:
    ProgramFile p_;
    std::map<std::string, std::vector<int>> index_; // a name's runs: itself, or its operator kernels
    std::map<std::string, int> expanded_;           // an operator kernel's name -> its index
};

// Throws BadInput naming the file, the entry and the key: unknown keys, a kernel named twice or never
// defined, an unknown testbench, a repeat below 1, an empty schedule.
ProgramFile readProgramFile(const std::string& path);
ProgramFile parseProgram(const std::string& yamlText, const std::string& where);

} // namespace steprdu::sys
