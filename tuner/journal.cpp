// Journal lines: one write() each (O_APPEND), then fdatasync, so that lines reach the disk whole and in order.
#include "tuner/journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace mdh::tuner {
namespace {

constexpr const char* kFormatKey = "mdh_tuner_journal";
constexpr int kFormatVersion = 1;

std::string errno_text() {
  return std::strerror(errno);
}

EvaluationRecord record_from_json(const nlohmann::json& json) {
  EvaluationRecord record;
  record.evaluation = json.at("evaluation").get<uint64_t>();
  record.configuration = json.at("config");
  record.result.status = evaluation_status_from_string(json.at("status").get<std::string>());
  record.result.cost = json.at("cost").is_null() ? 0.0 : json.at("cost").get<double>();
  record.result.reason = json.at("reason").get<std::string>();
  // Absent in records of results that were checked and timed in full (and in journals written before either could
  // be skipped).
  record.result.verified = json.value("verified", true);
  record.result.cut = json.value("cut", false);
  record.start_unix = json.at("start").get<double>();
  record.end_unix = json.at("end").get<double>();
  record.elapsed_seconds = json.at("elapsed").get<double>();
  if (json.contains("measured_on")) record.result.measured_on = json["measured_on"];
  if (json.contains("window")) record.window = json["window"].get<uint64_t>();
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
  json["start"] = record.start_unix;
  json["end"] = record.end_unix;
  json["elapsed"] = record.elapsed_seconds;
  if (!record.result.measured_on.is_null()) json["measured_on"] = record.result.measured_on;
  if (record.window) json["window"] = *record.window;
  return json;
}

JournalContents read_journal(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError("cannot read journal '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  JournalContents contents;
  size_t line_start = 0;
  size_t line_number = 0;
  while (line_start < text.size()) {
    size_t newline = text.find('\n', line_start);
    const bool complete = newline != std::string::npos;
    const std::string line = text.substr(line_start, (complete ? newline : text.size()) - line_start);
    ++line_number;
    const bool last = !complete || newline + 1 == text.size();
    try {
      if (!complete) throw std::runtime_error("no line end");
      nlohmann::json json = nlohmann::json::parse(line);
      if (line_number == 1) {
        if (!json.contains(kFormatKey)) throw UserError("'" + path + "' is not an mdh tuner journal");
        if (json.at(kFormatKey).get<int>() != kFormatVersion)
          throw UserError("journal '" + path + "' has unsupported format version " + json.at(kFormatKey).dump());
        contents.header.technique = json.at("technique").get<std::string>();
        contents.header.seed = json.at("seed").get<uint64_t>();
        contents.header.window = json.at("window").get<uint64_t>();
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
      // Only the last line can be torn by a kill; anything else is damage we must not paper over.
      if (!last || line_number == 1)
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

JournalWriter::JournalWriter(const std::string& path, const JournalHeader& header, bool sync)
    : path_(path), sync_(sync) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw UserError("cannot create journal '" + path + "': " + errno_text());
  nlohmann::json json;
  json[kFormatKey] = kFormatVersion;
  json["technique"] = header.technique;
  json["seed"] = header.seed;
  json["window"] = header.window;
  json["space_size"] = header.space_size;
  json["metadata"] = header.metadata;
  write_line(json);
}

JournalWriter::JournalWriter(const std::string& path, uint64_t valid_bytes, bool sync) : path_(path), sync_(sync) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd_ < 0) throw UserError("cannot open journal '" + path + "': " + errno_text());
  if (::ftruncate(fd_, static_cast<off_t>(valid_bytes)) != 0)
    throw UserError("cannot cut the torn tail of journal '" + path + "': " + errno_text());
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
