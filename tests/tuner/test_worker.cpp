// A worker process for the worker-pool tests: answers the bowl cost, hangs for X == --hang-x, aborts for
// X == --crash-x, answers a launch error for X == --launch-error-x, and reports its pid in the reason so tests can see
// evaluations spread over workers (or, with
// --report-env NAME, the value of that environment variable as the worker sees it; with --report-best, the best
// cost the tuner sent and the final timing's runs, and results no better than it as unverified; with --kernels-start,
// it says that its kernels start before it answers or hangs; with --check-seconds S, it then says that its kernels
// ended and takes S seconds to check the result, or hangs there for X == --hang-in-check-x; with --start-up-seconds S,
// it takes S seconds to start, before it says it is ready).
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "tests/tuner/synthetic.h"
#include "tuner/evaluate/worker_pool.h"

int main(int argc, char** argv) {
  int64_t hang_x = -1, crash_x = -1, launch_error_x = -1, hang_in_check_x = -1;
  std::string report_env;
  bool report_best = false, kernels_start = false;
  double start_up_seconds = 0, check_seconds = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--report-best") {
      report_best = true;
      continue;
    }
    if (flag == "--kernels-start") {
      kernels_start = true;
      continue;
    }
    if (i + 1 >= argc) break;
    const std::string value = argv[++i];
    if (flag == "--hang-x") hang_x = std::stoll(value);
    if (flag == "--crash-x") crash_x = std::stoll(value);
    if (flag == "--launch-error-x") launch_error_x = std::stoll(value);
    if (flag == "--report-env") report_env = value;
    if (flag == "--start-up-seconds") start_up_seconds = std::stod(value);
    if (flag == "--check-seconds") check_seconds = std::stod(value);
    if (flag == "--hang-in-check-x") hang_in_check_x = std::stoll(value);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(start_up_seconds));
  mdh::tuner::StageSeconds start_up;
  if (start_up_seconds > 0) start_up.emplace_back("sleep", start_up_seconds);
  return mdh::tuner::serve_worker_requests(
      [&](const nlohmann::json& config, const mdh::tuner::EvaluationContext& context) {
        int64_t x = config.at("X").get<int64_t>();
        if (kernels_start) context.kernels_start();
        if (x == hang_x)
          for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        if (x == crash_x) std::abort();
        if (x == launch_error_x)
          return mdh::tuner::EvaluationResult::failed(mdh::tuner::EvaluationStatus::launch_error, "synthetic");
        double cost = mdh::tuner::testing::bowl_cost(x, config.at("Y").get<int64_t>(), config.at("Z").get<int64_t>(),
                                                     config.at("FLAG").get<bool>() ? 1 : 0);
        if (check_seconds >= 0) {
          context.kernels_end();
          std::this_thread::sleep_for(std::chrono::duration<double>(check_seconds));
          if (x == hang_in_check_x)
            for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
        }
        mdh::tuner::EvaluationResult result = mdh::tuner::EvaluationResult::ok(cost);
        result.reason = "pid " + std::to_string(::getpid());
        if (!report_env.empty()) {
          const char* value = std::getenv(report_env.c_str());
          result.reason = value ? value : "(unset)";
        }
        if (report_best) {
          result.reason = context.best_cost ? std::to_string(*context.best_cost) : "none";
          if (context.final_runs) result.reason += ", final_runs " + std::to_string(*context.final_runs);
          result.verified = !context.best_cost || cost < *context.best_cost;
        }
        return result;
      },
      start_up);
}
