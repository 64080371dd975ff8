#include "cli/watched_run.h"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

namespace mdh::cli {

namespace {

volatile sig_atomic_t g_child = 0;

void pass_on(int signal) {
  if (g_child > 0) ::kill(g_child, signal);
}

std::string signal_text(int signal) {
  const char* name = ::strsignal(signal);
  return "signal " + std::to_string(signal) + (name ? std::string(" (") + name + ")" : "");
}

}  // namespace

double time_limit_of(const Args& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    std::string value;
    if (args[k] == "--time-limit" && k + 1 < args.size())
      value = args[k + 1];
    else if (args[k].rfind("--time-limit=", 0) == 0)
      value = args[k].substr(std::strlen("--time-limit="));
    else
      continue;
    char* end = nullptr;
    const double seconds = std::strtod(value.c_str(), &end);
    return end && *end == '\0' && seconds >= 0 ? seconds : kDefaultTimeLimitSeconds;
  }
  return kDefaultTimeLimitSeconds;
}

int run_watched(const std::string& command, double time_limit_seconds, const std::function<int()>& body) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) return body();
  if (child == 0) {
    // The child does all the work; it ends with the parent, whatever ends the parent.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) std::_Exit(2);
    const int status = body();
    std::cout.flush();
    std::fflush(nullptr);
    std::_Exit(status);
  }
  g_child = child;
  struct sigaction forward {};
  forward.sa_handler = pass_on;
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(signal, &forward, nullptr);

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) break;
    if (done < 0 && errno != EINTR) return 2;
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (time_limit_seconds > 0 && seconds > time_limit_seconds) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      std::cerr << "error: mdh " << command << ": stopped after " << time_limit_seconds
                << " s (--time-limit): the kernels did not finish (a scalar function that never returns?); "
                   "give --time-limit 0 for no limit\n";
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(seconds < 1 ? 2 : 20));
  }
  g_child = 0;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  const int signal = WTERMSIG(status);
  if (signal == SIGINT) return 130;
  if (signal == SIGTERM || signal == SIGHUP) return 128 + signal;
  std::cerr << "error: mdh " << command << ": the run ended with " << signal_text(signal)
            << ", most likely in a kernel: a scalar function that reads outside a table or buffer, or a private "
               "array too large for the device's stack, crashes it\n";
  return 2;
}

}  // namespace mdh::cli
