// The tuning loop. Determinism: the technique sees asks and reports interleaved exactly as "keep `window`
// configurations asked and unreported, report strictly in ask order", however evaluations overlap in time, so a
// run is reproducible from (technique, seed, window, costs) and a journal can be replayed.
#include "tuner/tuner.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <set>

#include "support/error.h"

namespace mdh::tuner {
namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Cost cost_of(const EvaluationResult& result) {
  if (result.status != EvaluationStatus::ok) return std::nullopt;
  return result.cost;
}

// Uniform candidates drawn to estimate the valid share of a space too large to count.
constexpr uint64_t kSizeSamples = 4096;

// A configuration between its ask and its report.
struct Ticket {
  uint64_t id = 0;
  Point point;
  Configuration configuration;
  bool repeat = false;    // evaluated before (or earlier in the window): answered from the cache
  bool replayed = false;  // answered from the journal
  bool submitted = false;
  bool done = false;
  EvaluationResult result;
  std::optional<std::future<std::optional<EvaluationResult>>> prepared;
  std::optional<double> compile_seconds;           // set by its prepare task, read once that has finished
  std::optional<double> recorded_compile_seconds;  // a replayed one's, from the journal
  double start_unix = 0, end_unix = 0, elapsed_seconds = 0;
};

class TuningLoop {
 public:
  TuningLoop(const SearchSpace& space, SearchTechnique& technique, const Abort& abort, Evaluator& evaluator,
             const TunerOptions& options)
      : space_(space),
        technique_(technique),
        abort_(abort),
        evaluator_(evaluator),
        options_(options),
        window_(evaluator.capacity() + options.lookahead),
        start_(std::chrono::steady_clock::now()) {
    // Fractions of the space are fractions of its valid configurations (estimated when there are too many
    // candidates to count them).
    result_.status.space_size = space.known_valid_size() ? static_cast<double>(*space.known_valid_size())
                                                         : space.estimate_valid_size(kSizeSamples, 0).valid;
  }

  TuningResult run() {
    open_journal();
    technique_.initialize(space_, options_.seed);
    if (options_.prepare)
      prepare_pool_ = std::make_unique<boost::asio::thread_pool>(std::max(1u, options_.prepare_threads));
    check_stop();
    while (!stopping_) {
      ask();
      if (report_front()) continue;
      dispatch();
      if (window_tickets_.front().done) continue;
      wait();
    }
    // Evaluations still running could not be reported in order before the ones not yet started; drop them all
    // (a resumed run asks for them again).
    if (in_flight_ > 0) evaluator_.abandon();
    // Drain prepare tasks before the pool (and the configurations they reference) go away; they give up on seeing
    // prepare_stop_.
    prepare_stop_ = true;
    for (Ticket& t : window_tickets_)
      if (t.prepared) t.prepared->wait();
    technique_.finalize();
    result_.stop_reason = stop_reason_;
    result_.status.elapsed_seconds = elapsed();
    result_.time.prepare_seconds = static_cast<double>(prepare_nanoseconds_.load()) * 1e-9;
    result_.time.prepared = prepared_.load();
    return std::move(result_);
  }

 private:
  // The window while `evaluations` results have been reported: as the journal's run had it while replaying, this
  // run's after. A function of the reports alone, so a resumed run replays the asks of the run it continues.
  size_t window_at(uint64_t evaluations) const {
    return evaluations < recorded_windows_.size() ? recorded_windows_[evaluations] : window_;
  }

  double elapsed() const {
    return elapsed_offset_ + std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  void open_journal() {
    if (options_.journal_path.empty()) return;
    JournalHeader header{technique_.name(), options_.seed, window_, space_.size().str(), options_.journal_metadata};
    if (options_.resume && ::access(options_.journal_path.c_str(), F_OK) == 0) {
      // Locked before it is read, so that no other run appends between the read and the cut of a torn tail.
      journal_ = std::make_unique<JournalWriter>(options_.journal_path, options_.sync_journal);
      JournalContents contents = journal_->resume();
      auto mismatch = [&](const std::string& what, const std::string& was, const std::string& now) {
        return UserError("cannot resume journal '" + options_.journal_path + "': it was recorded with " + what + " " +
                         was + ", this run uses " + now);
      };
      if (contents.header.technique != header.technique)
        throw mismatch("technique", contents.header.technique, header.technique);
      if (contents.header.seed != header.seed)
        throw mismatch("seed", std::to_string(contents.header.seed), std::to_string(header.seed));
      // Another window (more or fewer evaluators) is fine: the replay asks ahead as the journal's run did.
      header_window_ = contents.header.window;
      for (const EvaluationRecord& record : contents.records)
        recorded_windows_.push_back(record.window.value_or(header_window_));
      if (contents.header.space_size != header.space_size)
        throw UserError("cannot resume journal '" + options_.journal_path + "': it was recorded in a search space of " +
                        contents.header.space_size + " candidates, this run's has " + header.space_size +
                        " (the space changed: other restrictions, other value lattices or full ranges, or a newer "
                        "version of the space); start a new journal");
      replay_.assign(contents.records.begin(), contents.records.end());
      if (!contents.records.empty()) elapsed_offset_ = contents.records.back().elapsed_seconds;
    } else {
      journal_ = std::make_unique<JournalWriter>(options_.journal_path, header, options_.sync_journal,
                                                 options_.replace_journal);
    }
  }

  // Whether a journal record holds this configuration. Compared by value, not by text: journals written before
  // values were named hold enumeration codes and permutation ranks, which the space's parameters still read.
  bool same_configuration(const nlohmann::json& recorded, const Configuration& configuration) const {
    if (recorded == configuration.to_json()) return true;
    try {
      return space_.configuration_from_json(recorded).values() == configuration.values();
    } catch (const UserError&) {
      return false;
    }
  }

  // 1. Keep `window` configurations asked and unreported.
  void ask() {
    while (!stopping_ && window_tickets_.size() < window_at(result_.status.evaluations)) {
      Ticket ticket;
      ticket.id = next_ticket_++;
      ticket.point = technique_.next();
      ticket.configuration = space_.configuration(ticket.point);
      if (cache_.count(ticket.point) != 0 || unreported_.count(ticket.point) != 0) {
        ticket.repeat = true;
        ticket.done = true;
      } else if (!replay_.empty()) {
        EvaluationRecord record = std::move(replay_.front());
        replay_.pop_front();
        if (!same_configuration(record.configuration, ticket.configuration))
          throw UserError("cannot resume journal '" + options_.journal_path + "': evaluation " +
                          std::to_string(record.evaluation) + " recorded " + record.configuration.dump() +
                          " but the technique now proposes " + ticket.configuration.to_json().dump() +
                          " (a journal recorded by another version of the technique does not resume); "
                          "start a new journal");
        ticket.replayed = true;
        ticket.done = true;
        ticket.result = record.result;
        ticket.start_unix = record.start_unix;
        ticket.end_unix = record.end_unix;
        ticket.elapsed_seconds = record.elapsed_seconds;
        ticket.recorded_compile_seconds = record.compile_seconds;
        unreported_.insert(ticket.point);
      } else {
        if (prepare_pool_) {
          // A deque keeps its elements in place as tickets come and go at its ends: the task may hold this one.
          Ticket* queued = &window_tickets_.emplace_back(std::move(ticket));
          unreported_.insert(queued->point);
          queued->prepared = boost::asio::post(
              *prepare_pool_, boost::asio::use_future([this, queued]() -> std::optional<EvaluationResult> {
                if (prepare_stop_) return std::nullopt;
                // Timed however it ends: a compile that fails took its time too.
                struct Timing {
                  TuningLoop& loop;
                  Ticket& ticket;
                  const std::chrono::steady_clock::time_point begin = std::chrono::steady_clock::now();
                  ~Timing() {
                    const auto took = std::chrono::steady_clock::now() - begin;
                    ticket.compile_seconds = std::chrono::duration<double>(took).count();
                    loop.prepare_nanoseconds_ += std::chrono::duration_cast<std::chrono::nanoseconds>(took).count();
                    ++loop.prepared_;
                  }
                } timing{*this, *queued};
                return options_.prepare(queued->configuration, prepare_stop_);
              }));
          continue;
        }
        unreported_.insert(ticket.point);
      }
      window_tickets_.push_back(std::move(ticket));
    }
  }

  // 2. Report the oldest configuration if it has finished. One at a time, each followed by refilling the window:
  // that keeps the interleaving of asks and reports independent of when evaluations finish.
  bool report_front() {
    if (window_tickets_.empty() || !window_tickets_.front().done) return false;
    Ticket ticket = std::move(window_tickets_.front());
    window_tickets_.pop_front();
    if (ticket.repeat) {
      technique_.report(cost_of(cache_.at(ticket.point)));
      if (++repeated_in_a_row_ >= options_.max_repeated_proposals && !stopping_) {
        stopping_ = true;
        stop_reason_ = "the technique proposed only evaluated configurations " + std::to_string(repeated_in_a_row_) +
                       " times in a row";
      }
      return true;
    }
    repeated_in_a_row_ = 0;
    unreported_.erase(ticket.point);
    cache_.emplace(ticket.point, ticket.result);
    technique_.report(cost_of(ticket.result));
    record(ticket);
    check_stop();
    return true;
  }

  void record(const Ticket& ticket) {
    TuningStatus& status = result_.status;
    ++status.evaluations;
    const double when = ticket.replayed ? ticket.elapsed_seconds : elapsed();
    status.elapsed_seconds = when;
    if (ticket.result.status == EvaluationStatus::ok) {
      ++status.valid_evaluations;
      status.verified_evaluations += ticket.result.verified;
      status.cut_evaluations += ticket.result.cut;
      // Only a checked result becomes the best. A cost function leaves unchecked only results no better than the
      // best it was told at submission, which is never lower than the best now, so this skips no improvement.
      if (ticket.result.verified && (!result_.best_cost || ticket.result.cost < *result_.best_cost)) {
        result_.best_cost = ticket.result.cost;
        result_.best = ticket.configuration;
        status.improvements.push_back({when, status.evaluations, ticket.result.cost});
      }
      if (!ticket.result.cut) keep_if_leading(ticket.configuration, ticket.result.cost);
    }
    EvaluationRecord entry{
        status.evaluations, ticket.configuration.to_json(), ticket.result, ticket.start_unix, ticket.end_unix, when};
    // Prepared by the loop, or by the evaluator (an MPI rank compiling what it evaluates).
    const std::optional<double> compile_seconds =
        ticket.compile_seconds ? ticket.compile_seconds : ticket.result.prepare_seconds;
    entry.compile_seconds = ticket.replayed ? ticket.recorded_compile_seconds : compile_seconds;
    if (const size_t window = window_at(status.evaluations - 1); window != header_window_) entry.window = window;
    if (ticket.replayed) {
      ++result_.replayed;
    } else {
      result_.time.evaluating_seconds += std::max(0.0, ticket.end_unix - ticket.start_unix);
      for (const auto& [stage, seconds] : ticket.result.stage_seconds)
        add_stage_seconds(result_.time.stage_seconds, stage, seconds);
      if (compile_seconds) result_.time.compile_seconds.push_back(*compile_seconds);
      if (journal_) journal_->append(entry);
    }
    if (options_.on_evaluation) options_.on_evaluation(status, entry, ticket.replayed);
  }

  // TuningResult::leaders: sorted by cost, at most options_.leaders (a run evaluates each configuration once).
  void keep_if_leading(const Configuration& configuration, double cost) {
    auto& leaders = result_.leaders;
    if (options_.leaders == 0 || (leaders.size() == options_.leaders && cost >= leaders.back().second)) return;
    auto at = std::upper_bound(leaders.begin(), leaders.end(), cost,
                               [](double c, const std::pair<Configuration, double>& l) { return c < l.second; });
    leaders.insert(at, {configuration, cost});
    if (leaders.size() > options_.leaders) leaders.pop_back();
  }

  void check_stop() {
    if (stopping_) return;
    result_.status.elapsed_seconds = std::max(result_.status.elapsed_seconds, replay_.empty() ? elapsed() : 0.0);
    if (abort_.stop(result_.status)) {
      stopping_ = true;
      stop_reason_ = "abort condition " + abort_.describe() + " met";
    } else if (space_.known_valid_size() && BigUnsigned(cache_.size()) == *space_.known_valid_size()) {
      stopping_ = true;
      stop_reason_ = "every configuration of the space has been evaluated";
    } else if (options_.interrupt != nullptr && options_.interrupt->load()) {
      stopping_ = true;
      stop_reason_ = "interrupted";
    }
  }

  // 3. Hand prepared configurations to free evaluator slots.
  void dispatch() {
    for (Ticket& ticket : window_tickets_) {
      if (in_flight_ >= evaluator_.capacity()) return;
      if (ticket.done || ticket.submitted) continue;
      if (ticket.prepared) {
        if (ticket.prepared->wait_for(std::chrono::seconds(0)) != std::future_status::ready) continue;
        std::optional<EvaluationResult> verdict;
        try {
          verdict = ticket.prepared->get();
        } catch (const std::exception& e) {
          verdict = EvaluationResult::failed(EvaluationStatus::error, std::string("prepare failed: ") + e.what());
        }
        ticket.prepared.reset();
        if (verdict) {
          finish(ticket, std::move(*verdict));
          continue;
        }
      }
      ticket.start_unix = unix_now();
      evaluator_.submit(ticket.id, ticket.configuration, EvaluationContext{result_.best_cost});
      ticket.submitted = true;
      ++in_flight_;
    }
  }

  void finish(Ticket& ticket, EvaluationResult result) {
    if (ticket.start_unix == 0) ticket.start_unix = unix_now();
    ticket.end_unix = unix_now();
    ticket.result = std::move(result);
    ticket.done = true;
  }

  // 4. Block on whatever can make progress: a prepare task when a slot is free, else an evaluation. In short
  // slices, so that an interrupt or the end of the time budget stops the run while a kernel compiles or runs.
  void wait() {
    const auto slice = std::chrono::duration<double>(kInterruptPollSeconds);
    if (in_flight_ < evaluator_.capacity()) {
      for (Ticket& ticket : window_tickets_)
        if (!ticket.done && !ticket.submitted && ticket.prepared) {
          const auto begin = std::chrono::steady_clock::now();
          const bool ready = ticket.prepared->wait_for(slice) == std::future_status::ready;
          result_.time.waiting_for_prepare_seconds +=
              std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
          if (!ready) check_stop();
          return;
        }
    }
    MDH_INTERNAL_ASSERT(in_flight_ > 0, "tuning loop has nothing to wait for");
    auto finished = evaluator_.wait_for(kInterruptPollSeconds);
    if (!finished) {
      check_stop();
      return;
    }
    auto& [id, result] = *finished;
    --in_flight_;
    for (Ticket& ticket : window_tickets_)
      if (ticket.id == id) {
        finish(ticket, std::move(result));
        return;
      }
    MDH_INTERNAL_ASSERT(false, "evaluator returned an unknown ticket");
  }

  const SearchSpace& space_;
  SearchTechnique& technique_;
  const Abort& abort_;
  Evaluator& evaluator_;
  const TunerOptions& options_;
  const size_t window_;
  size_t header_window_ = window_;        // the journal header's window (the first run's)
  std::vector<size_t> recorded_windows_;  // per replayed record: the window before it was reported
  const std::chrono::steady_clock::time_point start_;
  double elapsed_offset_ = 0;
  std::unique_ptr<JournalWriter> journal_;
  std::deque<EvaluationRecord> replay_;
  std::deque<Ticket> window_tickets_;
  std::atomic<bool> prepare_stop_{false};
  std::atomic<int64_t> prepare_nanoseconds_{0};  // TimeBreakdown::prepare_seconds, summed by the prepare threads
  std::atomic<uint64_t> prepared_{0};
  // Declared after the tickets so that it is destroyed first: when run() leaves by an exception, the destructor drops
  // queued prepare tasks and joins the running ones while the configurations they read still exist.
  std::unique_ptr<boost::asio::thread_pool> prepare_pool_;
  // Destroyed before the pool: tells running prepare tasks to give up, so that the pool's join is prompt.
  struct StopPrepareOnExit {
    std::atomic<bool>& stop;
    ~StopPrepareOnExit() { stop = true; }
  } stop_prepare_on_exit_{prepare_stop_};
  std::map<Point, EvaluationResult> cache_;
  std::set<Point> unreported_;
  uint64_t next_ticket_ = 0;
  size_t in_flight_ = 0;
  uint64_t repeated_in_a_row_ = 0;
  bool stopping_ = false;
  std::string stop_reason_;
  TuningResult result_;
};

}  // namespace

TuningResult tune(const SearchSpace& space, SearchTechnique& technique, const Abort& abort, Evaluator& evaluator,
                  const TunerOptions& options) {
  return TuningLoop(space, technique, abort, evaluator, options).run();
}

TuningResult tune(const SearchSpace& space, SearchTechnique& technique, const Abort& abort, CostFunction& cost_function,
                  const TunerOptions& options) {
  InProcessEvaluator evaluator(cost_function);
  return tune(space, technique, abort, evaluator, options);
}

}  // namespace mdh::tuner
