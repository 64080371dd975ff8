// The compile pipeline's depth: kLookaheadPerCompileThread per compile thread, split for an MPI rank between the
// rank's own queue and rank 0's window.
#include "tuner/evaluate/compile_pipeline.h"

namespace mdh::tuner {

size_t compile_lookahead(unsigned compile_threads) {
  return static_cast<size_t>(kLookaheadPerCompileThread) * compile_threads;
}

RankPipeline::RankPipeline(Evaluator& device, Prepare prepare, unsigned compile_threads) : device_(device) {
  if (!prepare || compile_threads == 0) return;
  static_assert(kRankQueuePerCompileThread <= kLookaheadPerCompileThread, "a rank queues part of its window");
  const size_t queued = static_cast<size_t>(kRankQueuePerCompileThread) * compile_threads;
  preparing_ = std::make_unique<PreparingEvaluator>(device, std::move(prepare), compile_threads, queued);
  lookahead_ = compile_lookahead(compile_threads) - queued;
}

}  // namespace mdh::tuner
