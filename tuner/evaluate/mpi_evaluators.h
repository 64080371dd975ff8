// Tuning over the ranks of an MPI job: rank 0 searches (the tuning loop, the journal) and sees the evaluators of all
// ranks as one Evaluator; every other rank evaluates what rank 0 sends with its own local evaluator (worker processes
// on its device, compiling ahead on its own cores) and sends the results back. The search knows nothing of MPI: it
// gets an Evaluator with more capacity, and asks as far ahead as the ranks together say (lookahead()), so that
// every rank's compile workers stay as busy as a one-process run's (tuner/evaluate/compile_pipeline.h).
//
// Protocol, JSON text messages (rank 0 -> rank r on tag 1, rank r -> rank 0 on tag 2):
//   r -> 0  {"type":"hello","capacity":C,"lookahead":L,"identity":{...},"compatibility":{...}}
//           or  {"type":"hello","failed":"..."}
//   0 -> r  {"type":"request","id":T,"config":{...},"best":x,"final_runs":n,"seed":true}   {"type":"abandon"}
//           {"type":"stop"}                     ("seed": a seed of the run, SeedConfigurations; absent otherwise)
//   r -> 0  {"type":"result","id":T,"status":"ok","cost":c,"reason":"","verified":true,"cut":false}
//           {"type":"failed","reason":"..."}   (the rank cannot evaluate any more; rank 0 ends the run)
//           {"type":"bye"}                      (answer to stop; nothing follows)
// Every rank sends exactly one hello and, after rank 0's stop, one bye, also when its set-up failed, so no rank
// waits forever on another that gave up. A rank that dies ends the whole job (Open MPI 4.1 has no fault tolerance);
// rank 0's journal is then complete up to its last whole line and resumes with any number of ranks.
// Waiting polls (MPI_Iprobe, then a sleep of at most a millisecond), because Open MPI's blocking calls spin a core.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tuner/evaluate/evaluation.h"

namespace mdh::tuner {

/// What a rank's evaluator is: `identity` (where it measures: host, device) goes into the journal with each result
/// it measured; `compatibility` (device, driver, spec, sizes, space) must equal rank 0's, key by key, for the costs of
/// all ranks to be one scale; `lookahead` the configurations rank 0's search should keep asked for this rank beyond
/// its evaluator's capacity (RankPipeline::lookahead).
struct EvaluatorDescription {
  nlohmann::json identity = nlohmann::json::object();
  nlohmann::json compatibility = nlohmann::json::object();
  size_t lookahead = 0;
};

/// MPI for the lifetime of one tuning run: MPI_Init_thread on construction, MPI_Finalize on destruction, and the
/// protocol's start and end for ranks that fail before or instead of evaluating.
class MpiSession {
 public:
  /// Throws mdh::UserError when MPI cannot be initialised.
  MpiSession();
  /// Ends the protocol if nobody has (see fail), then finalises MPI.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  const std::string& host() const { return host_; }

  /// This rank cannot take part (its set-up failed, or rank 0's search failed): rank r > 0 tells rank 0, which stops
  /// the job; rank 0 tells every rank to stop. Returns when the others know. Does nothing once the protocol ended.
  void fail(const std::string& message);

 private:
  friend class MpiEvaluators;
  friend void serve_mpi_evaluations(MpiSession&, Evaluator&, const EvaluatorDescription&,
                                    const std::function<Configuration(const nlohmann::json&)>&,
                                    const std::function<void(const Configuration&)>&);

  void send(int destination, int tag, const nlohmann::json& message);
  std::optional<std::pair<int, nlohmann::json>> receive(int source, int tag);
  /// The next message from `source` with `tag`, polling (with the backoff of receive's callers) until one comes.
  std::pair<int, nlohmann::json> wait_for(int source, int tag);
  /// Completes finished sends (their buffers live until then).
  void reap_sends();
  /// Rank 0: the hello of every other rank, in rank order.
  std::vector<nlohmann::json> receive_hellos();
  /// Rank 0: stop to every other rank, then their byes (whatever else they send meanwhile is dropped).
  void stop_all();
  /// Rank r > 0: waits for stop (dropping requests), answers bye.
  void await_stop();

  int rank_ = 0, size_ = 1;
  std::string host_;
  bool hellos_received_ = false;  // rank 0
  bool announced_ = false;        // rank r > 0
  bool ended_ = false;
  std::deque<std::pair<MPI_Request, std::unique_ptr<std::string>>> sends_;
};

/// Rank 0's view of every rank's evaluator as one.
class MpiEvaluators final : public Evaluator {
 public:
  /// Waits for every other rank's hello; throws UserError (after telling every rank to stop) when one failed to set
  /// up or is not compatible with `description`. `local` evaluates on rank 0; nullptr: rank 0 only searches.
  MpiEvaluators(MpiSession& session, Evaluator* local, const EvaluatorDescription& description);
  /// Tells every rank to stop and waits for their byes.
  ~MpiEvaluators() override;
  MpiEvaluators(const MpiEvaluators&) = delete;
  MpiEvaluators& operator=(const MpiEvaluators&) = delete;

  size_t capacity() const override { return capacity_; }
  /// The configurations the search should ask ahead of capacity() (TunerOptions::lookahead): the sum of the evaluating
  /// ranks' lookaheads. They wait in rank 0's window and go to whichever rank frees a place first.
  size_t lookahead() const { return lookahead_; }
  void submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) override;
  std::pair<uint64_t, EvaluationResult> wait() override;
  /// Throws UserError when a rank reports that it cannot evaluate any more.
  std::optional<std::pair<uint64_t, EvaluationResult>> wait_for(double seconds) override;
  void abandon() override;
  /// Which configurations are the run's seeds (SeedConfigurations): their requests say so, so that the rank that
  /// compiles one gives it the first build's deadline.
  void mark_seeds(std::function<bool(const Configuration&)> is_seed) { is_seed_ = std::move(is_seed); }

  /// How many ranks evaluate (rank 0 included when it has a local evaluator).
  size_t evaluating_ranks() const { return ranks_.size(); }
  /// Where each evaluating rank measures: its identity with its rank number, as results carry it.
  std::vector<nlohmann::json> measured_on() const {
    std::vector<nlohmann::json> where;
    for (const Rank& rank : ranks_) where.push_back(rank.measured_on);
    return where;
  }

 private:
  struct Rank {
    int rank = 0;
    size_t capacity = 0, lookahead = 0, in_flight = 0;
    nlohmann::json measured_on;  // identity plus rank number, stamped on each result
  };
  void receive_results();

  MpiSession& session_;
  Evaluator* local_;
  std::function<bool(const Configuration&)> is_seed_;
  std::vector<Rank> ranks_;  // the local evaluator first, when there is one
  size_t capacity_ = 0, lookahead_ = 0;
  std::map<uint64_t, size_t> tickets_;  // outstanding ticket -> index in ranks_
  std::deque<std::pair<uint64_t, EvaluationResult>> finished_;
};

/// Ranks r > 0: sends the hello, then evaluates what rank 0 sends until it says stop. `decode` turns a configuration's
/// JSON form back into a Configuration of the search space; `on_seed`, where given, learns each configuration that
/// rank 0 marks as a seed of the run before it is submitted to `local`. A local evaluator that throws is reported to
/// rank 0 (which ends the run); this returns when rank 0 says stop.
void serve_mpi_evaluations(MpiSession& session, Evaluator& local, const EvaluatorDescription& description,
                           const std::function<Configuration(const nlohmann::json&)>& decode,
                           const std::function<void(const Configuration&)>& on_seed = nullptr);

}  // namespace mdh::tuner
