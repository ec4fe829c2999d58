// steprdu_gen_traces <dir>: writes the bundled synthetic traces into <dir>.
// Regenerate the shipped copies with `steprdu_gen_traces traces/synthetic` (see docs/traces.md).
#include <cerrno>
#include <cstring>
#include <exception>
#include <fstream>
#include <iostream>

#include "traces/BundledTraces.h"
#include "util/Error.h"

int main(int argc, char** argv) {
    using namespace steprdu;
    if (argc != 2) {
        std::cerr << "usage: steprdu_gen_traces <output-dir>\n"
                  << "writes the bundled synthetic traces (docs/traces.md) into <output-dir>\n";
        return static_cast<int>(ExitCode::BadInput);
    }
    try {
        for (const auto& name : traces::bundledTraceNames()) {
            const std::string path = std::string(argv[1]) + "/" + name;
            errno = 0;
            // Binary mode: the files must be byte-identical on every platform, so no "\r\n" translation.
            std::ofstream out(path, std::ios::binary);
            if (out) traces::writeBundledTrace(name, out);
            out.close();
            if (!out) {
                std::cerr << path
                          << ": cannot write trace: " << (errno ? std::strerror(errno) : "write failed")
                          << "\n";
                return static_cast<int>(ExitCode::BadInput);
            }
            std::cout << "wrote " << path << "\n";
        }
    } catch (const StepError& e) {
        std::cerr << e.what() << "\n";
        return static_cast<int>(e.code());
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return static_cast<int>(ExitCode::Internal);
    }
    return static_cast<int>(ExitCode::Ok);
}
