#pragma once
// Runs the steprdu binary with arguments and returns its exit code, stdout and stderr (for CLI tests).
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace steprdu::test {

struct CliResult {
    int code;
    std::string out, err;
};

// Runs `binary args`, in the directory `cwd` if given.
inline CliResult runBinary(const std::string& binary, const std::string& args, const std::string& cwd = "") {
    auto errFile = std::filesystem::temp_directory_path() / ("steprdu_cli_err_" + std::to_string(::getpid()));
    std::string cmd =
        (cwd.empty() ? "" : "cd '" + cwd + "' && ") + binary + " " + args + " 2>" + errFile.string();
    FILE* p = popen(cmd.c_str(), "r");
    std::string out;
    std::array<char, 4096> buf{};
    while (auto n = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), n);
    int status = pclose(p);
    std::ifstream e(errFile);
    std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
    std::filesystem::remove(errFile);
    return {WEXITSTATUS(status), out, err};
}

inline CliResult runCli(const std::string& args) {
    return runBinary(STEPRDU_BINARY, args);
}

} // namespace steprdu::test
