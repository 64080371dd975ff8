// Evaluation in worker processes that the tuner can kill: OpenCL cannot cancel a running kernel or build, so a
// configuration that hangs or crashes takes only its worker down. Each worker is a command line (one per device),
// started with fork/exec on a socket pair as its stdin/stdout, speaking JSON lines:
//   request  {"id": 7, "config": {"MWG": 32, ...}, "best": 0.0009}     ("best": the best cost so far, when known)
//   reply    {"id": 7, "status": "ok", "cost": 0.00123, "reason": "", "verified": false, "cut": false}
// and, before the reply where the cost function says so (EvaluationContext::kernels_start),
//   progress {"id": 7, "kernels": "start"}   and, once they have finished (EvaluationContext::kernels_end),
//   progress {"id": 7, "kernels": "end"}
// A reply with "restart": true (a launch error, which can leave the device context unusable) is the worker's last:
// it exits, and the tuner starts a fresh one for the next evaluation.
// A worker says {"ready": true} once when it has started up (read its spec, opened its device, computed its
// reference): an evaluation's deadline counts from then, so that a restarted worker's start-up is not charged to
// the evaluation it was started for. The line may carry where the start-up went, {"ready": true, "start_up":
// [["device context", 0.4], ["reference", 3.1]]}: a restart after every timeout or crash costs that again.
// A worker that misses its deadline is killed (SIGKILL) and its evaluation recorded as timeout; one that exits,
// crashes or breaks the protocol is recorded as error with the reason (exit status or signal, stderr tail). The
// worker is restarted for the next evaluation and tuning goes on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tuner/evaluate/evaluation.h"

namespace mdh::tuner {

/// The environment as this process started ("NAME=value" strings), copied before main(). Workers get this copy
/// rather than the live one, because an OpenCL ICD loader may edit the live one in place: ocl-icd splits
/// OCL_ICD_FILENAMES with strtok, so after the first OpenCL call "libpocl.so.2:libnvidia-opencl.so.1" reads
/// "libpocl.so.2" and a worker would see PoCL only (found on the GPU machine, 2026-11-22).
const std::vector<std::string>& start_environment();

struct WorkerPoolOptions {
  /// One argv per worker; evaluations are spread over all of them.
  std::vector<std::vector<std::string>> commands;
  /// The per-evaluation deadline is max(timeout_floor_seconds, timeout_factor * fastest successful evaluation's
  /// wall time); until the first success it is initial_timeout_seconds. The floor must cover a worker's start-up.
  double timeout_floor_seconds = 10;
  double timeout_factor = 10;
  double initial_timeout_seconds = 120;
  /// Where set: once an evaluation has succeeded, a worker that says its kernels start has from then on
  /// max(kernels_timeout_floor_seconds, timeout_factor * the fastest successful evaluation's kernel phase) left,
  /// where that ends sooner than its deadline. The floor above must cover a build and a worker's start-up; a kernel
  /// that never returns needs no such time to be recognised. When the
  /// worker says its kernels have ended, the evaluation's own deadline applies again to the rest (the check).
  std::optional<double> kernels_timeout_floor_seconds;
};

class WorkerPool final : public Evaluator {
 public:
  /// Starts the workers; throws mdh::UserError when a command cannot be executed.
  explicit WorkerPool(WorkerPoolOptions options);
  ~WorkerPool() override;
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  size_t capacity() const override { return workers_.size(); }
  void submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) override;
  std::pair<uint64_t, EvaluationResult> wait() override;
  std::optional<std::pair<uint64_t, EvaluationResult>> wait_for(double seconds) override;
  void abandon() override;

  /// The deadline the next evaluation gets, in seconds.
  double current_timeout() const;
  /// How many times workers were (re)started, initial starts included.
  uint64_t starts() const { return starts_; }
  /// Of those, the starts that ended with the worker ready, and their time: the sum of the stages the worker reported,
  /// else from the fork to the reading of its "ready" line (read with the worker's first request).
  uint64_t ready_starts() const { return ready_starts_; }
  double start_up_seconds() const { return start_up_seconds_; }
  /// The stages of those start-ups, summed, as the workers reported them.
  const StageSeconds& start_up_stages() const { return start_up_stages_; }
  /// How long the worker holding `ticket` has worked on it: counted from its "ready" line where it had to start
  /// first, as its deadline is, so a worker's start-up is not the evaluation's time (0 until it has said it is
  /// ready); nullopt when no worker holds the ticket.
  std::optional<double> working_seconds(uint64_t ticket) const;

 private:
  struct Worker {
    std::vector<std::string> command;
    pid_t pid = -1;
    int socket = -1;      // the worker's stdin and stdout
    int error_pipe = -1;  // the worker's stderr
    std::string pending_output;
    std::string stderr_tail;
    std::optional<uint64_t> ticket;  // busy with this evaluation
    double spawned = 0;              // monotonic seconds: when it was forked
    double started = 0;              // monotonic seconds
    double kernels_started = 0;      // when it said its kernels start; 0 before
    double kernels_seconds = 0;      // how long they ran, once it said they ended; 0 before
    double deadline = 0;
    double timeout = 0;  // the evaluation's deadline, counted from `started`
    bool ready = false;  // it has said it started up
  };

  void start(Worker& worker);
  /// Kills (if still running) and reaps the worker; returns how it ended, for the reason text.
  std::string stop(Worker& worker, bool kill_first);
  void complete(Worker& worker, EvaluationResult result);
  /// The worker said its kernels start: from now on the kernel deadline applies (kernels_timeout_floor_seconds).
  void kernels_start(Worker& worker);
  /// The worker said its kernels ended: the evaluation's own deadline applies to the rest.
  void kernels_end(Worker& worker);
  void read_output(Worker& worker);
  void read_stderr(Worker& worker);

  WorkerPoolOptions options_;
  std::vector<Worker> workers_;
  std::deque<std::pair<uint64_t, EvaluationResult>> finished_;
  std::optional<double> fastest_success_;
  std::optional<double>
      fastest_kernels_;  // the shortest kernel phase of a successful evaluation (to its end, or reply)
  uint64_t starts_ = 0;
  uint64_t ready_starts_ = 0;
  double start_up_seconds_ = 0;
  StageSeconds start_up_stages_;
};

/// The worker side of the protocol: reads requests from stdin until EOF and answers each with `evaluate`'s result
/// on stdout (exceptions become status error). `start_up`: where the worker's start-up went, for its "ready" line.
/// Returns the process exit status. While it evaluates a request the process is named "mdh-evaluating" (ps, top,
/// /proc/PID/comm), until just before its reply is written.
int serve_worker_requests(
    const std::function<EvaluationResult(const nlohmann::json& config, const EvaluationContext& context)>& evaluate,
    const StageSeconds& start_up = {});

}  // namespace mdh::tuner
