// The signal handlers set one lock-free flag, the only thing a handler may safely touch.
#include "tuner/interrupt_signals.h"

#include <csignal>

namespace mdh::tuner {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted = true;
}

}  // namespace

const std::atomic<bool>& signal_interrupt() {
  return g_interrupted;
}

InterruptOnSignals::InterruptOnSignals() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
}

InterruptOnSignals::~InterruptOnSignals() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace mdh::tuner
