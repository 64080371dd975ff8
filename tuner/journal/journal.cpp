// Journal lines: one write() each (O_APPEND), then fdatasync, so that lines reach the disk whole and in order.
#include "tuner/journal/journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "support/error.h"
#include "support/input_file.h"
#include "support/untrusted_json.h"

namespace mdh::tuner {
namespace {

constexpr const char* kFormatKey = "mdh_tuner_journal";
constexpr int kFormatVersion = 1;

std::string errno_text() {
  return std::strerror(errno);
}

// A count, seed or version: a JSON integer that is not negative. nlohmann's get<uint64_t>() would also convert a
// negative number or a fraction, and a float beyond 2^64 with undefined behaviour.
uint64_t unsigned_field(const nlohmann::json& json, const char* key) {
  const nlohmann::json& value = json.at(key);
  if (!value.is_number_unsigned()) throw std::invalid_argument(std::string("'") + key + "' is not a count");
  return value.get<uint64_t>();
}

// A time or a cost: a finite JSON number, not negative where `non_negative`. (nlohmann refuses 1e400 as it parses;
// the check of finiteness holds whatever reader a journal's JSON came through.)
double real_field(const nlohmann::json& json, const char* key, bool non_negative) {
  const nlohmann::json& value = json.at(key);
  if (!value.is_number()) throw std::invalid_argument(std::string("'") + key + "' is not a number");
  const double number = value.get<double>();
  if (!std::isfinite(number)) throw std::invalid_argument(std::string("'") + key + "' is not finite");
  if (non_negative && number < 0) throw std::invalid_argument(std::string("'") + key + "' is negative");
  return number;
}

// An evaluation window: at least 1 (nothing would ever be asked) and at most kMaxJournalWindow.
uint64_t window_field(const nlohmann::json& json, const char* key) {
  const uint64_t window = unsigned_field(json, key);
  if (window < 1 || window > kMaxJournalWindow)
    throw std::invalid_argument(std::string("'") + key + "' " + std::to_string(window) + " is not between 1 and " +
                                std::to_string(kMaxJournalWindow));
  return window;
}

EvaluationRecord record_from_json(const nlohmann::json& json) {
  EvaluationRecord record;
  record.evaluation = unsigned_field(json, "evaluation");
  record.configuration = json.at("config");
  const std::string status = json.at("status").get<std::string>();
  try {
    record.result.status = evaluation_status_from_string(status);
  } catch (const UserError& e) {
    throw std::invalid_argument(e.what());  // reported with the journal's name and the line
  }
  // A valid result's cost is a time: a negative or infinite one would become the best of every later run.
  if (record.result.status == EvaluationStatus::ok)
    record.result.cost = real_field(json, "cost", /*non_negative=*/true);
  else
    (void)json.at("cost");  // null, as to_json writes it; present in every record
  record.result.reason = json.at("reason").get<std::string>();
  // Absent in records of results that were checked and timed in full (and in journals written before either could
  // be skipped).
  record.result.verified = json.value("verified", true);
  record.result.cut = json.value("cut", false);
  if (json.contains("stages")) record.result.stage_seconds = json["stages"].get<StageSeconds>();
  record.start_unix = real_field(json, "start", false);
  record.end_unix = real_field(json, "end", false);
  record.elapsed_seconds = real_field(json, "elapsed", true);
  if (json.contains("measured_on")) record.result.measured_on = json["measured_on"];
  if (json.contains("window")) record.window = window_field(json, "window");
  if (json.contains("compile")) record.compile_seconds = real_field(json, "compile", true);
  return record;
}

}  // namespace

nlohmann::json to_json(const EvaluationRecord& record) {
  nlohmann::json json;
  json["evaluation"] = record.evaluation;
  json["config"] = record.configuration;
  json["status"] = to_string(record.result.status);
  json["cost"] = record.result.status == EvaluationStatus::ok ? nlohmann::json(record.result.cost) : nlohmann::json();
  json["reason"] = record.result.reason;
  if (record.result.status == EvaluationStatus::ok && !record.result.verified) json["verified"] = false;
  if (record.result.status == EvaluationStatus::ok && record.result.cut) json["cut"] = true;
  if (!record.result.stage_seconds.empty()) json["stages"] = record.result.stage_seconds;
  json["start"] = record.start_unix;
  json["end"] = record.end_unix;
  json["elapsed"] = record.elapsed_seconds;
  if (!record.result.measured_on.is_null()) json["measured_on"] = record.result.measured_on;
  if (record.window) json["window"] = *record.window;
  if (record.compile_seconds) json["compile"] = std::round(*record.compile_seconds * 1e6) / 1e6;  // microseconds
  return json;
}

JournalContents read_journal(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && !S_ISREG(info.st_mode) && !S_ISDIR(info.st_mode))
    throw UserError("cannot read journal '" + path + "': it is not a regular file");
  const InputFile file = read_input_file(path, kMaxJournalBytes);
  if (!file.ok) throw UserError("cannot read journal '" + path + "': " + file.problem);
  return parse_journal(file.bytes, path);
}

JournalContents parse_journal(const std::string& text, const std::string& path) {
  JournalContents contents;
  size_t line_start = 0;
  size_t line_number = 0;
  while (line_start < text.size()) {
    size_t newline = text.find('\n', line_start);
    const bool complete = newline != std::string::npos;
    const std::string line = text.substr(line_start, (complete ? newline : text.size()) - line_start);
    ++line_number;
    try {
      if (!complete) throw std::runtime_error("no line end");
      // Nesting bounded before parsing, as for every JSON of unknown origin (support/untrusted_json.h).
      if (json_nesting_depth(line) > kMaxJsonNesting)
        throw std::runtime_error("nested deeper than " + std::to_string(kMaxJsonNesting) + " levels");
      nlohmann::json json = nlohmann::json::parse(line);
      if (line_number == 1) {
        if (!json.contains(kFormatKey)) throw UserError("'" + path + "' is not an mdh tuner journal");
        if (!json.at(kFormatKey).is_number_unsigned() || json.at(kFormatKey).get<uint64_t>() != kFormatVersion)
          throw UserError("journal '" + path + "' has unsupported format version " + json.at(kFormatKey).dump());
        contents.header.technique = json.at("technique").get<std::string>();
        contents.header.seed = unsigned_field(json, "seed");
        contents.header.window = window_field(json, "window");
        contents.header.space_size = json.at("space_size").get<std::string>();
        contents.header.metadata = json.value("metadata", nlohmann::json::object());
      } else {
        contents.records.push_back(record_from_json(json));
        if (contents.records.back().evaluation != contents.records.size())
          throw UserError("journal '" + path + "' line " + std::to_string(line_number) + " is evaluation " +
                          std::to_string(contents.records.back().evaluation) + ", expected " +
                          std::to_string(contents.records.size()));
      }
    } catch (const UserError&) {
      throw;
    } catch (const std::exception& e) {
      // Only an unterminated last line can be torn by a kill (each line is one write ending in its newline); a
      // complete line that does not read is damage we must not paper over, wherever it stands.
      if (complete || line_number == 1)
        throw UserError("journal '" + path + "' line " + std::to_string(line_number) + " is corrupt: " + e.what());
      contents.torn_tail = true;
      break;
    }
    contents.valid_bytes = complete ? newline + 1 : text.size();
    line_start = contents.valid_bytes;
  }
  if (line_number == 0) throw UserError("journal '" + path + "' is empty");
  return contents;
}

void JournalWriter::open(int flags) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC | flags, 0644);
  if (fd_ < 0 && errno == EEXIST)
    throw UserError("journal '" + path_ + "' exists: resume it, or replace it explicitly (mdh tune --resume, --force)");
  if (fd_ < 0) throw UserError("cannot open journal '" + path_ + "': " + errno_text());
  auto fail = [&](const std::string& message) {
    ::close(fd_);
    fd_ = -1;
    throw UserError(message);
  };
  struct stat info {};
  if (::fstat(fd_, &info) == 0 && !S_ISREG(info.st_mode)) fail("journal '" + path_ + "' is not a regular file");
  // Children (workers) do not inherit the descriptor (O_CLOEXEC), so the lock ends with this process.
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0)
    fail(errno == EWOULDBLOCK ? "journal '" + path_ + "' is in use by another tuning run (it is locked)"
                              : "cannot lock journal '" + path_ + "': " + errno_text());
}

JournalWriter::JournalWriter(const std::string& path, const JournalHeader& header, bool sync, bool replace)
    : path_(path), sync_(sync) {
  // Truncated only once locked: replacing must not cut a journal another run is writing.
  open(O_CREAT | (replace ? 0 : O_EXCL));
  try {
    if (::ftruncate(fd_, 0) != 0) throw UserError("cannot replace journal '" + path + "': " + errno_text());
    nlohmann::json json;
    json[kFormatKey] = kFormatVersion;
    json["technique"] = header.technique;
    json["seed"] = header.seed;
    json["window"] = header.window;
    json["space_size"] = header.space_size;
    json["metadata"] = header.metadata;
    write_line(json);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

JournalWriter::JournalWriter(const std::string& path, bool sync) : path_(path), sync_(sync) {
  open(0);
}

JournalContents JournalWriter::resume() {
  JournalContents contents = read_journal(path_);
  if (::ftruncate(fd_, static_cast<off_t>(contents.valid_bytes)) != 0)
    throw UserError("cannot cut the torn tail of journal '" + path_ + "': " + errno_text());
  return contents;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void JournalWriter::append(const EvaluationRecord& record) {
  write_line(to_json(record));
}

void JournalWriter::write_line(const nlohmann::json& json) {
  const std::string line = json.dump() + "\n";
  size_t written = 0;
  while (written < line.size()) {
    ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw UserError("cannot write journal '" + path_ + "': " + errno_text());
    written += static_cast<size_t>(n);
  }
  if (sync_ && ::fdatasync(fd_) != 0) throw UserError("cannot flush journal '" + path_ + "': " + errno_text());
}

}  // namespace mdh::tuner
