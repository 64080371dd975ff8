// How many configurations a tuning process keeps on their way through its compile workers, alone or as one rank of
// an MPI job. The tuning loop reports in ask order, so one slow compile at the front of its window stops new asks
// while the other compile workers run dry. A window of kLookaheadPerCompileThread configurations per compile thread
// keeps them busy behind a slow one. An MPI rank needs the same depth: rank 0's window is the sum of every rank's
// (docs/decisions.md).
#pragma once

#include <cstddef>
#include <memory>

#include "tuner/evaluate/evaluation.h"
#include "tuner/evaluate/preparing_evaluator.h"

namespace mdh::tuner {

/// Configurations asked ahead per compile thread. With k per thread the other compile workers stay busy behind a
/// compile at the front of the window for about k median compiles (the compile deadline's factor matches it).
constexpr unsigned kLookaheadPerCompileThread = 6;

/// Configurations an MPI rank holds per compile thread (the rest of its share of the window waits at rank 0): more
/// than one, so that a compile thread that finishes starts the next at once instead of after its evaluation and the
/// round trip through rank 0 that brings a new configuration.
constexpr unsigned kRankQueuePerCompileThread = 2;

/// One process: the configurations the tuning loop asks ahead of its evaluator (TunerOptions::lookahead) for
/// `compile_threads` compile threads, which prepare them in ask order.
size_t compile_lookahead(unsigned compile_threads);

/// An MPI rank's local evaluator: its device evaluator behind a PreparingEvaluator of `compile_threads` threads (none
/// when `prepare` is empty or `compile_threads` is 0), and the configurations rank 0 should ask ahead for it, so
/// that its share of rank 0's window, evaluator().capacity() + lookahead(), is the window of a one-process run with
/// the same device and compile threads.
class RankPipeline {
 public:
  RankPipeline(Evaluator& device, Prepare prepare, unsigned compile_threads);

  Evaluator& evaluator() { return preparing_ ? static_cast<Evaluator&>(*preparing_) : device_; }
  size_t lookahead() const { return lookahead_; }

 private:
  Evaluator& device_;
  std::unique_ptr<PreparingEvaluator> preparing_;
  size_t lookahead_ = 0;
};

}  // namespace mdh::tuner
