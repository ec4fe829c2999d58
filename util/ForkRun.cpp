#include "util/ForkRun.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "util/Error.h"

namespace steprdu {

namespace {

nlohmann::json capture(const std::function<nlohmann::json()>& fn) {
    try {
        return {{"result", fn()}};
    } catch (const StepError& e) {
        return {{"error", e.what()}, {"code", static_cast<int>(e.code())}};
    } catch (const std::exception& e) {
        return {{"error", e.what()}, {"code", static_cast<int>(ExitCode::Internal)}};
    }
}

nlohmann::json unwrap(const nlohmann::json& reply) {
    if (reply.contains("result")) return reply["result"];
    std::string msg = reply.value("error", "unknown error");
    switch (static_cast<ExitCode>(reply.value("code", 1))) {
    case ExitCode::BadInput:
        throw BadInput(msg);
    case ExitCode::NoProgress:
        throw NoProgress(msg);
    case ExitCode::LimitReached:
        throw LimitReached(msg);
    default:
        throw std::runtime_error(msg);
    }
}

} // namespace

nlohmann::json runInChild(const std::function<nlohmann::json()>& fn) {
    const char* noFork = std::getenv("STEPRDU_NO_FORK");
    if (noFork && std::string(noFork) == "1") return unwrap(capture(fn));
    int fds[2];
    // Threads may run children at once: a child forked while another thread's pipe still has its write end
    // open here would hold that end too, and the other reader would not see its child's end of output.
    static std::mutex forking;
    std::unique_lock<std::mutex> lock(forking);
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        std::string out = capture(fn).dump();
        std::size_t off = 0;
        while (off < out.size()) {
            ssize_t n = write(fds[1], out.data() + off, out.size() - off);
            if (n <= 0) break;
            off += static_cast<std::size_t>(n);
        }
        close(fds[1]);
        std::fflush(nullptr);
        _exit(0);
    }
    close(fds[1]);
    lock.unlock();
    std::string text;
    char buf[65536];
    for (;;) {
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        text.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFSIGNALED(status))
        throw std::runtime_error(std::string("the simulation process died of signal ") +
                                 strsignal(WTERMSIG(status)));
    if (text.empty()) throw std::runtime_error("the simulation process exited without a result");
    return unwrap(nlohmann::json::parse(text));
}

} // namespace steprdu
