// The tuning journal: JSON lines, a header line then one line per evaluation, each written with a single write()
// and flushed to disk, so a kill leaves at most a torn last line, which the reader ignores and resume cuts off.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tuner/evaluate/evaluation.h"

namespace mdh::tuner {

/// What must match for a journal to be resumed with the same sequence of configurations.
struct JournalHeader {
  std::string technique;
  uint64_t seed = 0;
  uint64_t window = 1;  // configurations asked ahead of reports (evaluator capacity + lookahead)
  std::string space_size;
  nlohmann::json metadata = nlohmann::json::object();  // free-form, e.g. spec hash, sizes, device
};

struct EvaluationRecord {
  uint64_t evaluation = 0;  // 1-based
  nlohmann::json configuration;
  EvaluationResult result;
  double start_unix = 0;  // seconds since the epoch
  double end_unix = 0;
  double elapsed_seconds = 0;  // tuning time when the result arrived
  /// Seconds its preparation (the compile ahead, before start_unix) took, where the run prepared ahead.
  std::optional<double> compile_seconds = std::nullopt;
  /// The evaluation window while the evaluations before this one had been reported, when it differs from the
  /// header's: a run resumed with more or fewer evaluators (devices, MPI ranks) asks ahead differently from then on,
  /// and a later resume must replay that.
  std::optional<uint64_t> window = std::nullopt;
};

/// The largest evaluation window a journal may give: far above any run's (evaluators plus compile lookahead), so
/// that a damaged header cannot make a resumed run ask ahead without end.
constexpr uint64_t kMaxJournalWindow = 65536;

struct JournalContents {
  JournalHeader header;
  std::vector<EvaluationRecord> records;
  uint64_t valid_bytes = 0;  // length of the complete lines; a torn tail starts here
  bool torn_tail = false;
};

/// Reads a journal. Throws mdh::UserError naming the line when the file cannot be read, the header is missing or a
/// complete line is corrupt (a bad field, a negative or non-finite cost or time, a window beyond kMaxJournalWindow);
/// only a torn, unterminated last line, expected after a kill, is ignored.
JournalContents read_journal(const std::string& path);
/// The same for a journal's text; `path` names it in messages.
JournalContents parse_journal(const std::string& text, const std::string& path);

/// Writes a journal, holding an exclusive lock on it (flock) for as long as it exists: a second run on the same
/// journal fails instead of interleaving its lines with ours.
class JournalWriter {
 public:
  /// Starts a new journal with its header line. An existing file at `path` is an error unless `replace`.
  JournalWriter(const std::string& path, const JournalHeader& header, bool sync, bool replace = false);
  /// Continues an existing journal: opens and locks it; resume() then reads it.
  JournalWriter(const std::string& path, bool sync);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  /// Reads the journal this writer continues (read_journal) and cuts a torn (unterminated) last line off.
  JournalContents resume();
  void append(const EvaluationRecord& record);

 private:
  void open(int flags);
  void write_line(const nlohmann::json& json);
  std::string path_;
  int fd_ = -1;
  bool sync_;
};

nlohmann::json to_json(const EvaluationRecord& record);

}  // namespace mdh::tuner
