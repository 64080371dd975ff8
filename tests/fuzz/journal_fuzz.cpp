// libFuzzer target: any byte string as a tuning journal (parse_journal: the header, the records, torn and corrupt
// lines). A UserError is the reader doing its job; every other exception, crash, hang or sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "support/error.h"
#include "tuner/journal/journal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mdh::tuner::JournalContents contents = mdh::tuner::parse_journal(text, "fuzz.journal");
    // What resume does with the records: write them out again.
    for (const auto& record : contents.records) mdh::tuner::to_json(record).dump();
  } catch (const mdh::UserError&) {
  }
  return 0;
}
