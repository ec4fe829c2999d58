// The memtrace reader (cycle,op,address,bytes) on arbitrary bytes, with the 64-byte alignment of hbm2.
#include "tests/fuzz/FuzzInput.h"
#include "traces/MemTrace.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = steprdu::fuzz::writeInput(data, size, ".csv");
    try {
        steprdu::traces::readMemTrace(path, 64);
    } catch (const steprdu::BadInput&) {
    }
    return 0;
}
