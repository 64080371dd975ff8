// An evaluator that prepares configurations (compiles their kernels) on a thread pool before handing them to another
// evaluator, so that the device never waits for the compiler. The tuning loop does the same with its `prepare`
// option for the configurations it asks ahead; this is the form for an evaluator that gets its configurations from
// elsewhere (an MPI rank evaluating what rank 0 sends), where each rank must compile what it evaluates.
#pragma once

#include <atomic>
#include <boost/asio/thread_pool.hpp>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>

#include "tuner/evaluate/evaluation.h"

namespace mdh::tuner {

class PreparingEvaluator final : public Evaluator {
 public:
  /// Accepts inner.capacity() + lookahead configurations; prepares each on one of `threads` threads, then submits it
  /// to `inner` when a slot is free, unless its preparation decided its result. A throwing prepare records status
  /// error ("prepare failed: ..."). Every result says how long its preparation took (prepare_seconds). The
  /// destructor waits for running preparations.
  PreparingEvaluator(Evaluator& inner, Prepare prepare, unsigned threads, size_t lookahead);
  ~PreparingEvaluator() override;
  PreparingEvaluator(const PreparingEvaluator&) = delete;
  PreparingEvaluator& operator=(const PreparingEvaluator&) = delete;

  size_t capacity() const override { return inner_.capacity() + lookahead_; }
  void submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) override;
  std::pair<uint64_t, EvaluationResult> wait() override;
  std::optional<std::pair<uint64_t, EvaluationResult>> wait_for(double seconds) override;
  void abandon() override;

 private:
  struct Entry {
    uint64_t ticket = 0;
    // Shared with its prepare task, which may outlive abandon().
    std::shared_ptr<const Configuration> configuration;
    std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
    // Written by its prepare task before the future is ready, read after: the future orders the two.
    std::shared_ptr<double> prepare_seconds = std::make_shared<double>(0);
    EvaluationContext context;
    std::future<std::optional<EvaluationResult>> prepared;
    bool submitted = false;
  };
  /// Hands prepared entries to free slots of the inner evaluator, oldest first.
  void submit_prepared();

  Evaluator& inner_;
  const Prepare prepare_;  // declared before the pool: the pool's threads use it until they are joined
  const size_t lookahead_;
  std::deque<Entry> entries_;
  std::deque<std::pair<uint64_t, EvaluationResult>> finished_;
  size_t inner_in_flight_ = 0;
  boost::asio::thread_pool pool_;
};

}  // namespace mdh::tuner
