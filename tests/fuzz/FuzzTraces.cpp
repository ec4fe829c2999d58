// The expert-routing and KV-length trace readers on arbitrary bytes; the first byte picks the reader and
// the number of experts.
#include "tests/fuzz/FuzzInput.h"
#include "traces/ExpertRouting.h"
#include "traces/KvLengths.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string path = steprdu::fuzz::writeInput(data + 1, size - 1, ".csv");
    try {
        if (data[0] & 1)
            steprdu::traces::readKvLengths(path);
        else
            steprdu::traces::readExpertRouting(path, 1 + (data[0] >> 1));
    } catch (const steprdu::BadInput&) {
    }
    return 0;
}
