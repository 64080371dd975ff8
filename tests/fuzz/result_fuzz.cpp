// libFuzzer target: any byte string as a result file of the tuned store (what `mdh run` reads for every result of
// the store, and generate/export for --config): parsed with its nesting bounded, read as a TuningResultFile with its
// recorded device limits, and written again. A UserError is the reader doing its job; every other exception, crash,
// hang or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/tuning_result.h"
#include "support/error.h"
#include "support/untrusted_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  // As the store reads its folder (pipeline/tuned_store.cpp): text that is not JSON is no result, and passed over.
  const nlohmann::json json = mdh::parse_untrusted_json_or_discarded(text);
  if (!mdh::TuningResultFile::is_result(json)) return 0;
  try {
    const mdh::TuningResultFile result = mdh::TuningResultFile::from_json(json);
    (void)result.to_json().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const mdh::UserError&) {
  }
  return 0;
}
