#include "runtime/ptxas_log.h"

#include <regex>
#include <sstream>

namespace mdh {

namespace {

uint64_t number(const std::ssub_match& match) {
  return std::stoull(match.str());
}

// The comma-separated items after "Used R registers": "used B barriers", "M bytes smem", "C bytes cmem[k]";
// others ("N bytes lmem" of old versions, "N bytes cumulative stack size") are not reported.
void read_used_items(const std::string& items, PtxasKernelReport& report) {
  static const std::regex kBarriers(R"(used (\d+) barriers?)");
  static const std::regex kShared(R"((\d+) bytes smem)");
  static const std::regex kConstant(R"((\d+) bytes cmem\[\d+\])");
  std::stringstream in(items);
  report.shared_bytes = 0;
  report.constant_bytes = 0;
  for (std::string item; std::getline(in, item, ',');) {
    std::smatch m;
    if (std::regex_search(item, m, kBarriers))
      report.barriers = number(m[1]);
    else if (std::regex_search(item, m, kShared))
      *report.shared_bytes += number(m[1]);
    else if (std::regex_search(item, m, kConstant))
      *report.constant_bytes += number(m[1]);
  }
}

}  // namespace

std::vector<PtxasKernelReport> parse_ptxas_log(const std::string& log) {
  static const std::regex kEntry(R"(Compiling entry function '([^']*)' for '([^']*)')");
  static const std::regex kProperties(R"(Function properties for (\S+))");
  static const std::regex kFrame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(ptxas.*: Used (\d+) registers(.*)$)");

  std::vector<PtxasKernelReport> reports;
  std::optional<size_t> current;  // the entry function being compiled: "Used" lines belong to it
  std::string properties_of;      // the function named by the last "Function properties for"
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_search(line, m, kEntry)) {
      reports.push_back({});
      reports.back().kernel_name = m[1];
      reports.back().arch = m[2];
      current = reports.size() - 1;
    } else if (std::regex_search(line, m, kProperties)) {
      properties_of = m[1];
    } else if (std::regex_search(line, m, kFrame)) {
      // Attributed by name: ptxas also prints the properties of callees it did not inline.
      for (auto report = reports.rbegin(); report != reports.rend(); ++report)
        if (report->kernel_name == properties_of) {
          report->stack_frame_bytes = number(m[1]);
          report->spill_store_bytes = number(m[2]);
          report->spill_load_bytes = number(m[3]);
          break;
        }
      properties_of.clear();
    } else if (std::regex_search(line, m, kUsed)) {
      if (!current) {  // a log cut before its "Compiling entry function" line: keep the numbers, unnamed
        reports.push_back({});
        current = reports.size() - 1;
      }
      PtxasKernelReport& report = reports[*current];
      report.registers = number(m[1]);
      read_used_items(m[2], report);
    }
  }
  return reports;
}

}  // namespace mdh
