// The program-file parser (`steprdu program`) on arbitrary bytes: it either reads a program or throws
// BadInput.
#include <string>

#include "system/ProgramFile.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        steprdu::sys::parseProgram(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    } catch (const steprdu::BadInput&) {
    }
    return 0;
}
