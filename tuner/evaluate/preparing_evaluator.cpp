// Prepare ahead, evaluate in order of readiness: futures from a Boost.Asio thread pool, polled between waits on the
// inner evaluator.
#include "tuner/evaluate/preparing_evaluator.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cmath>

#include "support/error.h"

namespace mdh::tuner {
namespace {

// How long to wait on the inner evaluator before looking again at the prepare tasks, while some are running: a
// compile that finishes is noticed this late at most.
constexpr double kPrepareCheckSeconds = 0.002;

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

PreparingEvaluator::PreparingEvaluator(Evaluator& inner, Prepare prepare, unsigned threads, size_t lookahead)
    : inner_(inner), prepare_(std::move(prepare)), lookahead_(lookahead), pool_(std::max(1u, threads)) {}

PreparingEvaluator::~PreparingEvaluator() {
  // Drop queued prepare tasks, tell the running ones to give up and join them before prepare_ goes away.
  for (Entry& entry : entries_) *entry.stop = true;
  pool_.stop();
  pool_.join();
}

void PreparingEvaluator::submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) {
  MDH_INTERNAL_ASSERT(entries_.size() < capacity(), "submit beyond the preparing evaluator's capacity");
  Entry entry;
  entry.ticket = ticket;
  entry.configuration = std::make_shared<const Configuration>(configuration);
  entry.context = context;
  entry.prepared = boost::asio::post(
      pool_, boost::asio::use_future([this, configuration = entry.configuration, stop = entry.stop,
                                      took = entry.prepare_seconds]() -> std::optional<EvaluationResult> {
        if (*stop) return std::nullopt;
        // Timed however it ends: a compile that fails took its time too.
        struct Timing {
          double& seconds;
          const double begin = monotonic_seconds();
          ~Timing() { seconds = monotonic_seconds() - begin; }
        } timing{*took};
        return prepare_(*configuration, *stop);
      }));
  entries_.push_back(std::move(entry));
  submit_prepared();
}

void PreparingEvaluator::submit_prepared() {
  for (auto it = entries_.begin(); it != entries_.end() && inner_in_flight_ < inner_.capacity();) {
    if (it->submitted || it->prepared.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
      ++it;
      continue;
    }
    std::optional<EvaluationResult> verdict;
    try {
      verdict = it->prepared.get();
    } catch (const std::exception& e) {
      verdict = EvaluationResult::failed(EvaluationStatus::error, std::string("prepare failed: ") + e.what());
    }
    if (verdict) {
      verdict->prepare_seconds = *it->prepare_seconds;
      finished_.emplace_back(it->ticket, std::move(*verdict));
      it = entries_.erase(it);
      continue;
    }
    inner_.submit(it->ticket, *it->configuration, it->context);
    it->submitted = true;
    ++inner_in_flight_;
    ++it;
  }
}

std::pair<uint64_t, EvaluationResult> PreparingEvaluator::wait() {
  for (;;)
    if (auto result = wait_for(INFINITY)) return std::move(*result);
}

std::optional<std::pair<uint64_t, EvaluationResult>> PreparingEvaluator::wait_for(double seconds) {
  const double give_up = monotonic_seconds() + seconds;
  for (;;) {
    submit_prepared();
    if (!finished_.empty()) {
      auto result = std::move(finished_.front());
      finished_.pop_front();
      return result;
    }
    MDH_INTERNAL_ASSERT(!entries_.empty(), "wait with no evaluation outstanding");
    const double left = give_up - monotonic_seconds();
    if (left <= 0) return std::nullopt;
    const bool preparing = std::any_of(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.submitted; });
    if (inner_in_flight_ > 0) {
      // Preparing entries waiting for a slot need no look until the inner evaluator frees one.
      const bool slot_free = inner_in_flight_ < inner_.capacity();
      auto result = inner_.wait_for(preparing && slot_free ? std::min(left, kPrepareCheckSeconds) : left);
      if (!result) continue;
      --inner_in_flight_;
      auto done = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& e) { return e.submitted && e.ticket == result->first; });
      MDH_INTERNAL_ASSERT(done != entries_.end(), "inner evaluator returned an unknown ticket");
      result->second.prepare_seconds = *done->prepare_seconds;
      entries_.erase(done);
      return result;
    }
    // Nothing evaluating: every entry is being prepared. Wait on the oldest, looking at the others now and then.
    auto oldest = std::find_if(entries_.begin(), entries_.end(), [](const Entry& e) { return !e.submitted; });
    oldest->prepared.wait_for(std::chrono::duration<double>(std::min(left, kPrepareCheckSeconds)));
  }
}

void PreparingEvaluator::abandon() {
  if (inner_in_flight_ > 0) inner_.abandon();
  inner_in_flight_ = 0;
  // Running prepare tasks are told to give up; they keep their configurations alive and finish unobserved.
  for (Entry& entry : entries_) *entry.stop = true;
  entries_.clear();
  finished_.clear();
}

}  // namespace mdh::tuner
