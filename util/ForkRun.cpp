#include "util/ForkRun.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

ChildProcess::ChildProcess(const std::function<nlohmann::json()>& fn) {
    const char* noFork = std::getenv("STEPRDU_NO_FORK");
    if (noFork && std::string(noFork) == "1") {
        reply_ = capture(fn);
        return;
    }
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    std::fflush(nullptr);
    pid_ = fork();
    if (pid_ < 0) {
        close(fds[0]);
        close(fds[1]);
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid_ == 0) {
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
    fd_ = fds[0];
}

ChildProcess::ChildProcess(ChildProcess&& o) noexcept
    : pid_(o.pid_), fd_(o.fd_), reply_(std::move(o.reply_)) {
    o.pid_ = -1;
    o.fd_ = -1;
}

ChildProcess::~ChildProcess() {
    if (pid_ <= 0) return;
    // Never collected (an earlier error): stop it and reap it.
    kill(pid_, SIGKILL);
    close(fd_);
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
}

nlohmann::json ChildProcess::result() {
    if (pid_ > 0) {
        std::string text;
        char buf[65536];
        for (;;) {
            ssize_t n = read(fd_, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            text.append(buf, static_cast<std::size_t>(n));
        }
        close(fd_);
        int status = 0;
        while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        pid_ = fd_ = -1;
        if (WIFSIGNALED(status))
            throw std::runtime_error(std::string("the simulation process died of signal ") +
                                     strsignal(WTERMSIG(status)));
        if (text.empty()) throw std::runtime_error("the simulation process exited without a result");
        reply_ = nlohmann::json::parse(text);
    }
    return unwrap(reply_);
}

nlohmann::json runInChild(const std::function<nlohmann::json()>& fn) {
    return ChildProcess(fn).result();
}

} // namespace steprdu
