// The MPI evaluator protocol (see the header): non-blocking sends whose buffers live until MPI is done with them,
// probing receives, and sleeps of at most a millisecond between polls.
#include "tuner/evaluate/mpi_evaluators.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <thread>

#include "support/error.h"

namespace mdh::tuner {
namespace {

constexpr int kToEvaluatorTag = 1;
constexpr int kToCoordinatorTag = 2;
// Longest sleep between two looks for messages: adds at most this to an evaluation's round trip.
constexpr double kLongestPollSeconds = 0.001;
constexpr double kShortestPollSeconds = 0.00005;

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void sleep_seconds(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

// Polls that found nothing sleep longer, up to kLongestPollSeconds; one that found something starts short again.
class PollBackoff {
 public:
  void found() { seconds_ = kShortestPollSeconds; }
  void sleep(double at_most) {
    sleep_seconds(std::max(0.0, std::min(at_most, seconds_)));
    seconds_ = std::min(kLongestPollSeconds, seconds_ * 2);
  }

 private:
  double seconds_ = kShortestPollSeconds;
};

void check(int status, const char* call) {
  if (status != MPI_SUCCESS)
    throw UserError(SourceLoc{}, std::string("MPI: ") + call + " failed (error " + std::to_string(status) + ")");
}

nlohmann::json result_message(uint64_t ticket, const EvaluationResult& result) {
  return {{"type", "result"},
          {"id", ticket},
          {"status", to_string(result.status)},
          {"cost", result.status == EvaluationStatus::ok ? nlohmann::json(result.cost) : nlohmann::json()},
          {"reason", result.reason},
          {"verified", result.verified},
          {"cut", result.cut},
          {"stages", result.stage_seconds},
          {"prepare", result.prepare_seconds ? nlohmann::json(*result.prepare_seconds) : nlohmann::json()}};
}

EvaluationResult result_of_message(const nlohmann::json& message) {
  EvaluationResult result;
  result.status = evaluation_status_from_string(message.at("status").get<std::string>());
  if (result.status == EvaluationStatus::ok) result.cost = message.at("cost").get<double>();
  result.reason = message.at("reason").get<std::string>();
  result.verified = message.at("verified").get<bool>();
  result.cut = message.at("cut").get<bool>();
  result.stage_seconds = message.at("stages").get<StageSeconds>();
  if (const auto prepare = message.find("prepare"); prepare != message.end() && !prepare->is_null())
    result.prepare_seconds = prepare->get<double>();
  return result;
}

// Another rank's error message, to be quoted in one of rank 0's: without its own leading "error: ".
std::string without_error_mark(const nlohmann::json& message) {
  std::string text = message.get<std::string>();
  if (text.rfind("error: ", 0) == 0) text.erase(0, 7);
  return text;
}

std::string rank_name(int rank, const nlohmann::json& identity) {
  std::string name = "rank " + std::to_string(rank);
  if (identity.contains("host")) name += " on " + identity["host"].get<std::string>();
  return name;
}

}  // namespace

MpiSession::MpiSession() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  check(MPI_Get_processor_name(name, &length), "MPI_Get_processor_name");
  host_.assign(name, static_cast<size_t>(length));
}

MpiSession::~MpiSession() {
  try {
    fail("the rank ended before it could evaluate");
  } catch (const std::exception&) {
    // Finalising is all that is left to do.
  }
  for (auto& [request, buffer] : sends_) MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Finalize();
}

void MpiSession::send(int destination, int tag, const nlohmann::json& message) {
  reap_sends();
  auto buffer = std::make_unique<std::string>(message.dump());
  MPI_Request request;
  check(
      MPI_Isend(buffer->data(), static_cast<int>(buffer->size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD, &request),
      "MPI_Isend");
  sends_.emplace_back(request, std::move(buffer));
}

void MpiSession::reap_sends() {
  while (!sends_.empty()) {
    int done = 0;
    check(MPI_Test(&sends_.front().first, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return;
    sends_.pop_front();
  }
}

std::optional<std::pair<int, nlohmann::json>> MpiSession::receive(int source, int tag) {
  reap_sends();
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(source, tag, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  int length = 0;
  check(MPI_Get_count(&status, MPI_CHAR, &length), "MPI_Get_count");
  std::string text(static_cast<size_t>(length), '\0');
  check(MPI_Recv(text.data(), length, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  MDH_INTERNAL_ASSERT(message.is_object() && message.contains("type"), "malformed MPI message from another rank");
  return std::make_pair(status.MPI_SOURCE, std::move(message));
}

std::pair<int, nlohmann::json> MpiSession::wait_for(int source, int tag) {
  PollBackoff backoff;
  for (;;) {
    if (auto message = receive(source, tag)) return std::move(*message);
    backoff.sleep(kLongestPollSeconds);
  }
}

std::vector<nlohmann::json> MpiSession::receive_hellos() {
  MDH_INTERNAL_ASSERT(rank_ == 0 && !hellos_received_, "hellos are received once, by rank 0");
  std::vector<nlohmann::json> hellos(static_cast<size_t>(size_));
  for (int missing = size_ - 1; missing > 0; --missing) {
    auto [from, message] = wait_for(MPI_ANY_SOURCE, kToCoordinatorTag);
    MDH_INTERNAL_ASSERT(message["type"] == "hello", "a rank sent something before its hello");
    hellos[static_cast<size_t>(from)] = std::move(message);
  }
  hellos_received_ = true;
  return hellos;
}

void MpiSession::stop_all() {
  if (!hellos_received_) receive_hellos();
  for (int r = 1; r < size_; ++r) send(r, kToEvaluatorTag, {{"type", "stop"}});
  for (int missing = size_ - 1; missing > 0;)
    if (wait_for(MPI_ANY_SOURCE, kToCoordinatorTag).second["type"] == "bye") --missing;
  ended_ = true;
}

void MpiSession::await_stop() {
  while (wait_for(0, kToEvaluatorTag).second["type"] != "stop") {
  }
  send(0, kToCoordinatorTag, {{"type", "bye"}});
  ended_ = true;
}

void MpiSession::fail(const std::string& message) {
  if (ended_) return;
  if (rank_ == 0) {
    stop_all();
    return;
  }
  if (!announced_) {
    send(0, kToCoordinatorTag, {{"type", "hello"}, {"failed", message}});
    announced_ = true;
  }
  await_stop();
}

MpiEvaluators::MpiEvaluators(MpiSession& session, Evaluator* local, const EvaluatorDescription& description)
    : session_(session), local_(local) {
  MDH_INTERNAL_ASSERT(session.rank() == 0, "rank 0 searches; the other ranks serve evaluations");
  const std::vector<nlohmann::json> hellos = session.receive_hellos();
  auto refuse = [&](const std::string& why) {
    session.stop_all();
    throw UserError(SourceLoc{}, why);
  };
  for (int r = 1; r < session.size(); ++r) {
    const nlohmann::json& hello = hellos[static_cast<size_t>(r)];
    if (hello.contains("failed")) refuse("rank " + std::to_string(r) + ": " + without_error_mark(hello["failed"]));
    const nlohmann::json& identity = hello.at("identity");
    const nlohmann::json& compatibility = hello.at("compatibility");
    for (const auto& [key, value] : description.compatibility.items())
      if (!compatibility.contains(key) || compatibility[key] != value)
        refuse(rank_name(r, identity) + " cannot join this tuning run: " + key + " " +
               (compatibility.contains(key) ? compatibility[key].dump() : "unknown") + " where rank 0 has " +
               value.dump() +
               " (the ranks of one run must evaluate on identical devices, with the same spec, sizes and search "
               "space, so that their costs are one scale)");
  }
  auto add = [&](int r, size_t capacity, size_t lookahead, nlohmann::json identity) {
    if (capacity == 0) return;
    identity["rank"] = r;
    ranks_.push_back(Rank{r, capacity, lookahead, 0, std::move(identity)});
    capacity_ += capacity;
    lookahead_ += lookahead;
  };
  if (local_) add(0, local_->capacity(), description.lookahead, description.identity);
  for (int r = 1; r < session.size(); ++r) {
    const nlohmann::json& hello = hellos[static_cast<size_t>(r)];
    add(r, hello.at("capacity").get<size_t>(), hello.at("lookahead").get<size_t>(), hello.at("identity"));
  }
  if (capacity_ == 0) refuse("no rank of the MPI job evaluates (rank 0 only searches and no other rank has a device)");
}

MpiEvaluators::~MpiEvaluators() {
  try {
    session_.stop_all();
  } catch (const std::exception&) {
    // The job ends anyway; MPI_Finalize follows.
  }
}

void MpiEvaluators::submit(uint64_t ticket, const Configuration& configuration, const EvaluationContext& context) {
  // The rank with the most free slots: spreads the work when the window is not full.
  auto chosen = std::max_element(ranks_.begin(), ranks_.end(), [](const Rank& a, const Rank& b) {
    return a.capacity - a.in_flight < b.capacity - b.in_flight;
  });
  MDH_INTERNAL_ASSERT(chosen != ranks_.end() && chosen->in_flight < chosen->capacity, "submit with every rank busy");
  if (chosen->rank == 0) {
    local_->submit(ticket, configuration, context);
  } else {
    nlohmann::json request{{"type", "request"}, {"id", ticket}, {"config", configuration.to_json()}};
    if (context.best_cost) request["best"] = *context.best_cost;
    if (context.final_runs) request["final_runs"] = *context.final_runs;
    if (is_seed_ && is_seed_(configuration)) request["seed"] = true;
    session_.send(chosen->rank, kToEvaluatorTag, request);
  }
  ++chosen->in_flight;
  tickets_[ticket] = static_cast<size_t>(chosen - ranks_.begin());
}

void MpiEvaluators::receive_results() {
  while (auto message = session_.receive(MPI_ANY_SOURCE, kToCoordinatorTag)) {
    const auto& [source, body] = *message;
    if (body["type"] == "failed") {
      std::string who = "rank " + std::to_string(source);
      for (const Rank& r : ranks_)
        if (r.rank == source) who = rank_name(source, r.measured_on);
      throw UserError(SourceLoc{}, who + " cannot evaluate any more: " + without_error_mark(body.value("reason", "")));
    }
    MDH_INTERNAL_ASSERT(body["type"] == "result", "unexpected MPI message to rank 0");
    const uint64_t ticket = body.at("id").get<uint64_t>();
    auto it = tickets_.find(ticket);
    if (it == tickets_.end()) continue;  // abandoned
    Rank& rank = ranks_[it->second];
    tickets_.erase(it);
    --rank.in_flight;
    EvaluationResult result = result_of_message(body);
    result.measured_on = rank.measured_on;
    finished_.emplace_back(ticket, std::move(result));
  }
}

std::pair<uint64_t, EvaluationResult> MpiEvaluators::wait() {
  for (;;)
    if (auto result = wait_for(INFINITY)) return std::move(*result);
}

std::optional<std::pair<uint64_t, EvaluationResult>> MpiEvaluators::wait_for(double seconds) {
  const double give_up = monotonic_seconds() + seconds;
  const bool has_local = local_ != nullptr && ranks_.front().rank == 0;
  PollBackoff backoff;
  for (;;) {
    receive_results();
    if (finished_.empty() && has_local && ranks_.front().in_flight > 0)
      if (auto result = local_->wait_for(0)) {
        tickets_.erase(result->first);
        --ranks_.front().in_flight;
        result->second.measured_on = ranks_.front().measured_on;
        finished_.push_back(std::move(*result));
      }
    if (!finished_.empty()) {
      auto result = std::move(finished_.front());
      finished_.pop_front();
      return result;
    }
    MDH_INTERNAL_ASSERT(!tickets_.empty(), "wait with no evaluation outstanding");
    const double left = give_up - monotonic_seconds();
    if (left <= 0) return std::nullopt;
    if (has_local && ranks_.front().in_flight > 0) {
      // Wait on the local workers for a moment, then look for messages again.
      if (auto result = local_->wait_for(std::min(left, kLongestPollSeconds))) {
        tickets_.erase(result->first);
        --ranks_.front().in_flight;
        result->second.measured_on = ranks_.front().measured_on;
        return result;
      }
    } else {
      backoff.sleep(left);
    }
  }
}

void MpiEvaluators::abandon() {
  for (Rank& rank : ranks_) {
    if (rank.in_flight == 0) continue;
    if (rank.rank == 0)
      local_->abandon();
    else
      session_.send(rank.rank, kToEvaluatorTag, {{"type", "abandon"}});
    rank.in_flight = 0;
  }
  tickets_.clear();
  finished_.clear();
}

void serve_mpi_evaluations(MpiSession& session, Evaluator& local, const EvaluatorDescription& description,
                           const std::function<Configuration(const nlohmann::json&)>& decode,
                           const std::function<void(const Configuration&)>& on_seed) {
  MDH_INTERNAL_ASSERT(session.rank() != 0 && !session.announced_, "rank 0 searches; each other rank serves once");
  session.send(0, kToCoordinatorTag,
               {{"type", "hello"},
                {"capacity", local.capacity()},
                {"lookahead", description.lookahead},
                {"identity", description.identity},
                {"compatibility", description.compatibility}});
  session.announced_ = true;
  size_t in_flight = 0;
  bool failed = false;
  auto report_failure = [&](const std::exception& e) {
    session.send(0, kToCoordinatorTag, {{"type", "failed"}, {"reason", e.what()}});
    failed = true;
    try {
      if (in_flight > 0) local.abandon();
    } catch (const std::exception&) {
    }
    in_flight = 0;
  };
  PollBackoff backoff;
  for (;;) {
    bool arrived = false;
    while (auto message = session.receive(0, kToEvaluatorTag)) {
      arrived = true;
      const nlohmann::json& body = message->second;
      const std::string type = body["type"].get<std::string>();
      if (type == "stop") {
        if (in_flight > 0) local.abandon();
        session.send(0, kToCoordinatorTag, {{"type", "bye"}});
        session.ended_ = true;
        return;
      }
      if (failed) continue;  // rank 0 is ending the run; only its stop matters now
      try {
        if (type == "abandon") {
          if (in_flight > 0) local.abandon();
          in_flight = 0;
        } else {
          MDH_INTERNAL_ASSERT(type == "request", "unexpected MPI message from rank 0");
          EvaluationContext context;
          if (body.contains("best")) context.best_cost = body["best"].get<double>();
          if (body.contains("final_runs")) context.final_runs = body["final_runs"].get<int>();
          const uint64_t ticket = body.at("id").get<uint64_t>();
          std::optional<Configuration> configuration;
          try {
            configuration = decode(body.at("config"));
          } catch (const UserError& e) {
            // A configuration this rank's space refuses (the ranks' spaces are identical, checked at the start, so
            // the search drew one that breaks a constraint): that evaluation's failure, as a worker of rank 0
            // would report it, not the end of this rank.
            session.send(0, kToCoordinatorTag,
                         result_message(ticket, EvaluationResult::failed(EvaluationStatus::constraint, e.what())));
            continue;
          }
          if (on_seed && body.value("seed", false)) on_seed(*configuration);
          local.submit(ticket, *configuration, context);
          ++in_flight;
        }
      } catch (const std::exception& e) {
        report_failure(e);
      }
    }
    if (arrived) backoff.found();
    if (failed || in_flight == 0) {
      backoff.sleep(kLongestPollSeconds);
      continue;
    }
    try {
      if (auto result = local.wait_for(arrived ? 0.0 : kLongestPollSeconds)) {
        --in_flight;
        session.send(0, kToCoordinatorTag, result_message(result->first, result->second));
      }
    } catch (const std::exception& e) {
      report_failure(e);
    }
  }
}

}  // namespace mdh::tuner
