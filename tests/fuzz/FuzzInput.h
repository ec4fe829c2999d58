#pragma once
// Shared by the fuzz targets: the loaders read files, so each input is written to one file per process.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include <unistd.h>

namespace steprdu::fuzz {

inline std::string writeInput(const std::uint8_t* data, std::size_t size, const std::string& suffix) {
    const std::string path = "/tmp/steprdu_fuzz_" + std::to_string(::getpid()) + suffix;
    std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), size);
    return path;
}

} // namespace steprdu::fuzz
