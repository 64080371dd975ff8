// The signal handlers set one lock-free flag, the only thing a handler may safely touch.
#include "tuner/interrupt_signals.h"

#include <csignal>

namespace mdh::tuner {
namespace {

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP};

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted = true;
}

}  // namespace

const std::atomic<bool>& signal_interrupt() {
  return g_interrupted;
}

InterruptOnSignals::InterruptOnSignals() {
  // SIGHUP too: a closed terminal or ssh session must stop the run as cleanly as Ctrl-C (journal, workers, files).
  for (int signal : kInterruptSignals) std::signal(signal, on_interrupt);
}

InterruptOnSignals::~InterruptOnSignals() {
  for (int signal : kInterruptSignals) std::signal(signal, SIG_DFL);
}

}  // namespace mdh::tuner
