// SIGINT, SIGTERM and SIGHUP as the tuning loop's interrupt (TunerOptions::interrupt): the run ends within
// kInterruptPollSeconds, evaluations in flight are abandoned, the journal keeps every finished one.
#pragma once

#include <atomic>

namespace mdh::tuner {

/// Set once SIGINT, SIGTERM or SIGHUP arrived while an InterruptOnSignals lived.
const std::atomic<bool>& signal_interrupt();

/// While it lives, SIGINT, SIGTERM and SIGHUP set signal_interrupt() instead of ending the process; then the default
/// handlers.
class InterruptOnSignals {
 public:
  InterruptOnSignals();
  ~InterruptOnSignals();
  InterruptOnSignals(const InterruptOnSignals&) = delete;
  InterruptOnSignals& operator=(const InterruptOnSignals&) = delete;
};

}  // namespace mdh::tuner
