#include "runtime/ptx_resources.h"

#include <regex>
#include <sstream>

namespace mdh {

namespace {

// Bytes of one element of a PTX fundamental type: ".b8" 1, ".f32" 4, ".u64" 8, ".pred" (never an array) 1.
uint64_t element_bytes(const std::string& type) {
  static const std::regex kSized(R"(\.[a-z]+(8|16|32|64))");
  std::smatch m;
  return std::regex_match(type, m, kSized) ? std::stoull(m[1].str()) / 8 : 1;
}

// The registers one `.reg` declaration names: "%r<371>" is 371, "%SP" is 1, "%a, %b<4>" is 5.
uint64_t declared_registers(const std::string& names) {
  static const std::regex kRange(R"(<(\d+)>)");
  uint64_t count = 0;
  std::stringstream in(names);
  for (std::string name; std::getline(in, name, ',');) {
    std::smatch m;
    count += std::regex_search(name, m, kRange) ? std::stoull(m[1].str()) : 1;
  }
  return count;
}

}  // namespace

std::string ptx_text_of_binary(const std::vector<unsigned char>& binary) {
  size_t end = binary.size();
  while (end > 0 && binary[end - 1] == '\0') --end;
  return std::string(binary.begin(), binary.begin() + static_cast<std::ptrdiff_t>(end));
}

std::vector<PtxEntryResources> parse_ptx_entries(const std::string& ptx) {
  // Grammar of the lines read (PTX ISA, "State spaces" and "Variables"):
  //   entry ::= '.entry' NAME '(' params ')' directives '{' body '}'
  //   decl  ::= '.reg' TYPE names ';'  |  ('.local' | '.shared') ['.align' N] TYPE NAME '[' COUNT ']' ';'
  static const std::regex kEntry(R"(^\s*(?:\.visible\s+)?\.entry\s+([A-Za-z_$][\w$]*))");
  static const std::regex kReg(R"(^\s*\.reg\s+(\.\w+)\s+([^;]+);)");
  static const std::regex kArray(R"(^\s*\.(local|shared)\s+(?:\.align\s+\d+\s+)?(\.\w+)\s+[\w$]+\[(\d+)\])");

  std::vector<PtxEntryResources> entries;
  bool in_entry = false;  // between an .entry and the end of its body
  int depth = 0;          // brace depth inside the body
  bool body_started = false;
  std::istringstream in(ptx);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!in_entry) {
      if (std::regex_search(line, m, kEntry)) {
        entries.push_back({});
        entries.back().kernel_name = m[1];
        in_entry = true, depth = 0, body_started = false;
      }
      continue;
    }
    PtxEntryResources& entry = entries.back();
    if (std::regex_search(line, m, kReg)) {
      entry.virtual_registers += declared_registers(m[2]);
    } else if (std::regex_search(line, m, kArray)) {
      const uint64_t bytes = element_bytes(m[2]) * std::stoull(m[3].str());
      (m[1] == "local" ? entry.local_bytes : entry.shared_bytes) += bytes;
    }
    const std::string code = line.substr(0, line.find("//"));  // braces in comments do not count
    for (char c : code) {
      if (c == '{') ++depth, body_started = true;
      if (c == '}') --depth;
    }
    if (body_started && depth <= 0) in_entry = false;
  }
  return entries;
}

}  // namespace mdh
