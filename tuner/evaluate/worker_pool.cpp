// Worker processes: fork/exec on socket pairs (send with MSG_NOSIGNAL, so a dead worker cannot SIGPIPE the tuner),
// poll with deadlines, SIGKILL and restart.
#include "tuner/evaluate/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>

#include "support/error.h"

namespace mdh::tuner {
namespace {

constexpr size_t kStderrTailBytes = 2000;

std::vector<std::string> copy_environment() {
  std::vector<std::string> copy;
  for (char** entry = environ; entry && *entry; ++entry) copy.emplace_back(*entry);
  return copy;
}

// Static initialisation runs before main() and before any OpenCL library is loaded or called.
const std::vector<std::string> g_start_environment = copy_environment();

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string join(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : " ") + w;
  return text;
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "worker exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "worker killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "worker ended";
}

}  // namespace

const std::vector<std::string>& start_environment() {
  return g_start_environment;
}

WorkerPool::WorkerPool(WorkerPoolOptions options) : options_(std::move(options)) {
  if (options_.commands.empty()) throw UserError("a worker pool needs at least one worker command");
  for (const auto& command : options_.commands) {
    if (command.empty()) throw UserError("a worker command must not be empty");
    workers_.push_back(Worker{});
    workers_.back().command = command;
  }
  for (Worker& worker : workers_) start(worker);
}

WorkerPool::~WorkerPool() {
  // Idle workers see EOF on stdin and exit; whoever does not within half a second is killed.
  for (Worker& worker : workers_)
    if (worker.socket >= 0) ::shutdown(worker.socket, SHUT_WR);
  const double give_up = monotonic_seconds() + 0.5;
  for (Worker& worker : workers_) {
    while (worker.pid > 0 && monotonic_seconds() < give_up) {
      if (::waitpid(worker.pid, nullptr, WNOHANG) == worker.pid) {
        worker.pid = -1;
        break;
      }
      ::usleep(2000);
    }
    stop(worker, true);
  }
}

void WorkerPool::start(Worker& worker) {
  int sockets[2];
  int error_pipe[2];
  int exec_status[2];  // close-on-exec: stays silent when exec succeeds, carries errno when it fails
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0 || ::pipe2(error_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(exec_status, O_CLOEXEC) != 0)
    throw UserError(std::string("cannot create worker pipes: ") + std::strerror(errno));
  // Build argv before fork: no allocation between fork and exec in a threaded process.
  std::vector<char*> argv;
  for (std::string& word : worker.command) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = start_environment();
  std::vector<char*> envp;
  for (std::string& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t tuner_pid = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw UserError(std::string("cannot fork a worker: ") + std::strerror(errno));
  if (pid == 0) {
    // The worker dies with the tuner (kill -9 included) rather than spin on in a kernel that never returns. The
    // signal is armed only from here on: a tuner that died in between has left us to init already.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != tuner_pid) ::_exit(127);
    ::dup2(sockets[1], STDIN_FILENO);
    ::dup2(sockets[1], STDOUT_FILENO);
    ::dup2(error_pipe[1], STDERR_FILENO);
    // Nothing else of the tuner's reaches the worker (GPU drivers keep device files open without close-on-exec).
    // exec_status[1] closes itself on exec; it must stay open until then.
    for (int fd = 3; fd < 1024; ++fd)
      if (fd != exec_status[1]) ::close(fd);
    // A worker starts like a process from the shell: default signal dispositions, nothing blocked. Ignored signals
    // (SIGCHLD, SIGPIPE) and the calling thread's mask survive exec otherwise; sigaction and sigprocmask are
    // async-signal-safe.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &default_action, nullptr);
    sigset_t nothing;
    ::sigemptyset(&nothing);
    ::sigprocmask(SIG_SETMASK, &nothing, nullptr);
    ::execvpe(argv[0], argv.data(), envp.data());
    int error = errno;
    ssize_t ignored = ::write(exec_status[1], &error, sizeof error);
    (void)ignored;
    ::_exit(127);
  }
  ::close(sockets[1]);
  ::close(error_pipe[1]);
  ::close(exec_status[1]);
  int error = 0;
  ssize_t n;
  do n = ::read(exec_status[0], &error, sizeof error);
  while (n < 0 && errno == EINTR);
  ::close(exec_status[0]);
  if (n > 0) {
    ::waitpid(pid, nullptr, 0);
    ::close(sockets[0]);
    ::close(error_pipe[0]);
    throw UserError("cannot start worker '" + join(worker.command) + "': " + std::strerror(error));
  }
  worker.pid = pid;
  worker.socket = sockets[0];
  worker.error_pipe = error_pipe[0];
  worker.pending_output.clear();
  worker.stderr_tail.clear();
  worker.ready = false;
  worker.spawned = monotonic_seconds();
  ++starts_;
}

std::string WorkerPool::stop(Worker& worker, bool kill_first) {
  std::string how;
  if (worker.pid > 0) {
    if (kill_first) ::kill(worker.pid, SIGKILL);
    int status = 0;
    while (::waitpid(worker.pid, &status, 0) < 0 && errno == EINTR) {
    }
    how = describe_exit(status);
  }
  if (worker.socket >= 0) ::close(worker.socket);
  if (worker.error_pipe >= 0) ::close(worker.error_pipe);
  worker.pid = -1;
  worker.socket = -1;
  worker.error_pipe = -1;
  return how;
}

void WorkerPool::kernels_start(Worker& worker) {
  worker.kernels_started = monotonic_seconds();
  if (!options_.kernels_timeout_floor_seconds || !fastest_kernels_) return;
  const double left = std::max(*options_.kernels_timeout_floor_seconds, options_.timeout_factor * *fastest_kernels_);
  worker.deadline = std::min(worker.deadline, worker.kernels_started + left);
}

void WorkerPool::kernels_end(Worker& worker) {
  if (worker.kernels_started <= 0 || worker.kernels_seconds > 0) return;
  worker.kernels_seconds = std::max(1e-9, monotonic_seconds() - worker.kernels_started);
  worker.deadline = worker.started + worker.timeout;
}

std::optional<double> WorkerPool::working_seconds(uint64_t ticket) const {
  for (const Worker& worker : workers_)
    if (worker.ticket == ticket) return worker.ready ? monotonic_seconds() - worker.started : 0.0;
  return std::nullopt;
}

double WorkerPool::current_timeout() const {
  if (!fastest_success_) return options_.initial_timeout_seconds;
  return std::max(options_.timeout_floor_seconds, options_.timeout_factor * *fastest_success_);
}

void WorkerPool::submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) {
  auto idle = std::find_if(workers_.begin(), workers_.end(), [](const Worker& w) { return !w.ticket; });
  MDH_INTERNAL_ASSERT(idle != workers_.end(), "submit with every worker busy");
  Worker& worker = *idle;
  // A worker that died while idle (e.g. killed from outside) is replaced before it gets the configuration.
  if (worker.pid > 0 && ::waitpid(worker.pid, nullptr, WNOHANG) == worker.pid) {
    worker.pid = -1;
    stop(worker, false);
  }
  if (worker.pid < 0) start(worker);
  worker.ticket = ticket;
  worker.started = monotonic_seconds();
  worker.kernels_started = 0;
  worker.kernels_seconds = 0;
  worker.timeout = context.timeout_seconds.value_or(current_timeout());
  worker.deadline = worker.started + worker.timeout;
  nlohmann::json request{{"id", ticket}, {"config", configuration.to_json()}};
  if (context.best_cost) request["best"] = *context.best_cost;
  if (context.final_runs) request["final_runs"] = *context.final_runs;
  const std::string line = request.dump() + "\n";
  size_t sent = 0;
  while (sent < line.size()) {
    ssize_t n = ::send(worker.socket, line.data() + sent, line.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      // The worker died while idle; its exit is the reason.
      std::string how = stop(worker, true);
      complete(worker, EvaluationResult::failed(EvaluationStatus::error, "cannot send the configuration: " + how));
      return;
    }
    sent += static_cast<size_t>(n);
  }
}

void WorkerPool::complete(Worker& worker, EvaluationResult result) {
  if (result.status == EvaluationStatus::ok) {
    const double now = monotonic_seconds(), wall = now - worker.started;
    if (!fastest_success_ || wall < *fastest_success_) fastest_success_ = wall;
    const double kernels = worker.kernels_seconds > 0 ? worker.kernels_seconds : now - worker.kernels_started;
    if (worker.kernels_started > 0 && (!fastest_kernels_ || kernels < *fastest_kernels_)) fastest_kernels_ = kernels;
  }
  finished_.emplace_back(*worker.ticket, std::move(result));
  worker.ticket.reset();
}

void WorkerPool::read_stderr(Worker& worker) {
  char buffer[4096];
  ssize_t n = ::read(worker.error_pipe, buffer, sizeof buffer);
  if (n == 0) {  // closed: stop polling it, or poll would report the hang-up forever
    ::close(worker.error_pipe);
    worker.error_pipe = -1;
  }
  if (n <= 0) return;
  worker.stderr_tail.append(buffer, static_cast<size_t>(n));
  if (worker.stderr_tail.size() > kStderrTailBytes)
    worker.stderr_tail.erase(0, worker.stderr_tail.size() - kStderrTailBytes);
}

void WorkerPool::read_output(Worker& worker) {
  char buffer[4096];
  ssize_t n = ::read(worker.socket, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    // EOF: the worker is gone (crash, exit). Collect what it said on stderr first.
    while (worker.error_pipe >= 0) {
      struct pollfd p {
        worker.error_pipe, POLLIN, 0
      };
      if (::poll(&p, 1, 0) <= 0 || !(p.revents & (POLLIN | POLLHUP))) break;
      size_t before = worker.stderr_tail.size();
      read_stderr(worker);
      if (worker.stderr_tail.size() == before) break;
    }
    std::string reason = stop(worker, false);
    if (!worker.stderr_tail.empty()) reason += "; stderr: " + worker.stderr_tail;
    if (worker.ticket) complete(worker, EvaluationResult::failed(EvaluationStatus::error, reason));
    return;
  }
  worker.pending_output.append(buffer, static_cast<size_t>(n));
  for (size_t newline; worker.ticket && (newline = worker.pending_output.find('\n')) != std::string::npos;) {
    std::string line = worker.pending_output.substr(0, newline);
    worker.pending_output.erase(0, newline + 1);
    EvaluationResult result;
    try {
      nlohmann::json reply = nlohmann::json::parse(line);
      if (reply.contains("ready")) {
        if (!worker.ready) {
          // Its start-up ends here: the evaluation's time starts now.
          worker.ready = true;
          worker.started = monotonic_seconds();
          worker.deadline = worker.started + worker.timeout;
          ++ready_starts_;
          // The worker's own account where it gives one: this line waits unread until the worker's first request
          // (a resumed run replays its journal first, which the start-up would otherwise be charged with).
          double reported = 0;
          if (reply.contains("start_up"))
            for (const nlohmann::json& stage : reply.at("start_up")) {
              add_stage_seconds(start_up_stages_, stage.at(0).get<std::string>(), stage.at(1).get<double>());
              reported += stage.at(1).get<double>();
            }
          start_up_seconds_ += reply.contains("start_up") ? reported : worker.started - worker.spawned;
        }
        continue;
      }
      if (reply.at("id").get<uint64_t>() != *worker.ticket) throw std::runtime_error("reply for another request");
      if (reply.contains("kernels")) {
        const std::string phase = reply.at("kernels").get<std::string>();
        if (phase == "start")
          kernels_start(worker);
        else if (phase == "end")
          kernels_end(worker);
        else
          throw std::runtime_error("unknown kernels progress '" + phase + "'");
        continue;
      }
      result.status = evaluation_status_from_string(reply.at("status").get<std::string>());
      if (result.status == EvaluationStatus::ok) result.cost = reply.at("cost").get<double>();
      result.reason = reply.value("reason", "");
      result.verified = reply.value("verified", true);
      result.cut = reply.value("cut", false);
      if (reply.contains("stages")) result.stage_seconds = reply["stages"].get<StageSeconds>();
      // It ends after this reply (serve_worker_requests): reaped now, started afresh for the next evaluation.
      if (reply.value("restart", false)) stop(worker, true);
    } catch (const std::exception& e) {
      // A worker that breaks the protocol cannot be trusted with the next request either.
      std::string how = stop(worker, true);
      complete(worker,
               EvaluationResult::failed(EvaluationStatus::error, "worker broke the protocol (" + std::string(e.what()) +
                                                                     ") with '" + line.substr(0, 200) + "'; " + how));
      return;
    }
    complete(worker, std::move(result));
  }
}

std::pair<uint64_t, EvaluationResult> WorkerPool::wait() {
  for (;;)
    if (auto result = wait_for(3600)) return std::move(*result);
}

std::optional<std::pair<uint64_t, EvaluationResult>> WorkerPool::wait_for(double seconds) {
  const double give_up = monotonic_seconds() + std::max(0.0, seconds);
  for (;;) {
    if (!finished_.empty()) {
      auto result = std::move(finished_.front());
      finished_.pop_front();
      return result;
    }
    if (monotonic_seconds() >= give_up) return std::nullopt;
    std::vector<struct pollfd> fds;
    std::vector<Worker*> owners;
    double earliest = INFINITY;
    for (Worker& worker : workers_) {
      if (worker.pid < 0) continue;
      if (worker.ticket) {
        fds.push_back({worker.socket, POLLIN, 0});
        owners.push_back(&worker);
        earliest = std::min(earliest, worker.deadline);
      }
      if (worker.error_pipe >= 0) {
        fds.push_back({worker.error_pipe, POLLIN, 0});
        owners.push_back(&worker);
      }
    }
    MDH_INTERNAL_ASSERT(std::isfinite(earliest), "wait with no evaluation outstanding");
    earliest = std::min(earliest, give_up);
    const double now = monotonic_seconds();
    int timeout_ms = static_cast<int>(std::clamp(std::ceil((earliest - now) * 1000), 0.0, 3600e3));
    int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) throw UserError(std::string("poll on workers failed: ") + std::strerror(errno));
    for (size_t i = 0; ready > 0 && i < fds.size(); ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      Worker& worker = *owners[i];
      if (worker.pid < 0) continue;  // stopped while handling an earlier descriptor
      if (fds[i].fd == worker.socket && worker.ticket)
        read_output(worker);
      else if (fds[i].fd == worker.error_pipe)
        read_stderr(worker);
    }
    const double after = monotonic_seconds();
    for (Worker& worker : workers_) {
      if (!worker.ticket || worker.pid < 0 || after < worker.deadline) continue;
      const bool in_kernels = worker.kernels_started > 0 && worker.kernels_seconds == 0;
      const double limit = worker.deadline - (in_kernels ? worker.kernels_started : worker.started);
      std::string tail = worker.stderr_tail;
      stop(worker, true);
      char text[128];
      std::snprintf(text, sizeof text,
                    in_kernels ? "kernels still running after %.3g s; worker killed and restarted"
                               : "no answer within %.3g s; worker killed and restarted",
                    limit);
      complete(worker, EvaluationResult::failed(EvaluationStatus::timeout,
                                                tail.empty() ? text : std::string(text) + "; stderr: " + tail));
    }
  }
}

void WorkerPool::abandon() {
  for (Worker& worker : workers_)
    if (worker.ticket) {
      stop(worker, true);
      worker.ticket.reset();
    }
  finished_.clear();
}

namespace {

// While a worker evaluates, its name (/proc/PID/comm, as ps and top show it) says so; it is set back before the
// reply is written, so a worker stopped under that name has an evaluation in flight.
constexpr const char* kEvaluatingName = "mdh-evaluating";

void set_process_name(const char* name) {
  ::prctl(PR_SET_NAME, name, 0, 0, 0);
}

}  // namespace

int serve_worker_requests(
    const std::function<EvaluationResult(const nlohmann::json& config, const EvaluationContext& context)>& evaluate,
    const StageSeconds& start_up) {
  nlohmann::json ready{{"ready", true}};
  if (!start_up.empty()) {
    ready["start_up"] = nlohmann::json::array();
    for (const auto& [stage, seconds] : start_up) ready["start_up"].push_back({stage, seconds});
  }
  std::cout << ready.dump() << std::endl;  // flushed: the deadline counts from here
  char idle_name[16] = {};
  ::prctl(PR_GET_NAME, idle_name, 0, 0, 0);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    nlohmann::json request = nlohmann::json::parse(line, nullptr, false);
    if (request.is_discarded() || !request.contains("id") || !request.contains("config")) {
      std::cerr << "worker: malformed request: " << line << "\n";
      return 2;
    }
    EvaluationResult result;
    set_process_name(kEvaluatingName);
    try {
      EvaluationContext context;
      if (request.contains("best") && request["best"].is_number()) context.best_cost = request["best"].get<double>();
      if (request.contains("final_runs") && request["final_runs"].is_number_integer())
        context.final_runs = request["final_runs"].get<int>();
      context.kernels_start = [id = request["id"]] {
        std::cout << nlohmann::json{{"id", id}, {"kernels", "start"}}.dump() << std::endl;  // flushed: its deadline
      };
      context.kernels_end = [id = request["id"]] {
        std::cout << nlohmann::json{{"id", id}, {"kernels", "end"}}.dump() << std::endl;  // flushed: lifts it
      };
      result = evaluate(request["config"], context);
    } catch (const std::exception& e) {
      result = EvaluationResult::failed(EvaluationStatus::error, e.what());
    }
    nlohmann::json reply{{"id", request["id"]}, {"status", to_string(result.status)}, {"reason", result.reason}};
    reply["cost"] = result.status == EvaluationStatus::ok ? nlohmann::json(result.cost) : nlohmann::json();
    reply["verified"] = result.verified;
    reply["cut"] = result.cut;
    if (!result.stage_seconds.empty()) reply["stages"] = result.stage_seconds;
    // A kernel that failed at run time can leave the device context unusable: after NVIDIA's out-of-bounds error
    // (CL_NV_ILLEGAL_ADDRESS) every later build and launch in the process failed.
    // The worker ends, and the tuner starts a fresh one for the next evaluation.
    const bool restart = result.status == EvaluationStatus::launch_error;
    if (restart) reply["restart"] = true;
    set_process_name(idle_name);
    std::cout << reply.dump() << std::endl;  // flushed: the tuner waits for this line
    if (restart) return 0;
  }
  return 0;
}

}  // namespace mdh::tuner
