// The YAML hardware-config loader on arbitrary bytes: it either loads a config or throws BadInput.
#include "hw/config/HwConfigLoader.h"
#include "tests/fuzz/FuzzInput.h"
#include "util/Error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path = steprdu::fuzz::writeInput(data, size, ".yaml");
    try {
        steprdu::hw::loadHwConfig(path);
    } catch (const steprdu::BadInput&) {
    }
    return 0;
}
