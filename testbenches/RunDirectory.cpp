#include "testbenches/RunDirectory.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "hw/config/HwConfigLoader.h"
#include "util/Error.h"
#include "util/Version.h"

namespace steprdu::tb {

namespace {

std::string hostName() {
    char buf[256] = {};
    return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

void write(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    if (!f) throw StepError(ExitCode::Internal, "cannot write " + p.string());
}

} // namespace

nlohmann::json runMeta(const std::string& commandLine, double wallSeconds, double simCyclesPerSecond,
                       int exitStatus) {
    return {{"version", projectVersion()}, {"git_revision", gitRevision()},
            {"host", hostName()},          {"command_line", commandLine},
            {"wall_seconds", wallSeconds}, {"sim_cycles_per_second", simCyclesPerSecond},
            {"exit_status", exitStatus}};
}

void writeRunDirectory(const std::string& dir, const nlohmann::json& result, const RunArtifacts& art,
                       const nlohmann::json& meta) {
    const std::filesystem::path d(dir);
    std::filesystem::create_directories(d);
    write(d / "result.json", result.dump(2) + "\n");
    write(d / "config.resolved.yaml", hw::toYaml(art.config));
    write(d / "graph.json", art.graph.dump(1) + "\n");
    write(d / "graph.dot", art.dot);
    if (!art.operators.is_null()) write(d / "operators.json", art.operators.dump(1) + "\n");
    if (!art.stats.is_null()) {
        write(d / "stats.json", art.stats.dump(1) + "\n");
        write(d / "stats.csv", art.statsCsv);
    }
    if (!art.trace.empty()) write(d / "trace.json", art.trace);
    write(d / "meta.json", meta.dump(2) + "\n");
}

void writeRunError(const std::string& dir, int exitCode, const std::string& message,
                   const nlohmann::json& meta) {
    const std::filesystem::path d(dir);
    std::filesystem::create_directories(d);
    write(d / "error.json", nlohmann::json{{"exit_code", exitCode}, {"message", message}}.dump(2) + "\n");
    write(d / "meta.json", meta.dump(2) + "\n");
}

} // namespace steprdu::tb
