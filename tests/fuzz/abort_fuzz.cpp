// libFuzzer target: any byte string as an --abort expression (parse_abort: terms, &&, ||, parentheses, counts and
// durations), then the condition asked to stop on a few statuses and described, as a run does. A UserError is the
// parser doing its job; every other exception, crash, hang or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "support/error.h"
#include "tuner/abort.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const mdh::tuner::Abort abort = mdh::tuner::parse_abort(text);
    mdh::tuner::TuningStatus status;
    status.space_size = 1000;
    (void)abort.stop(status);
    status.evaluations = status.valid_evaluations = 50;
    status.elapsed_seconds = 30;
    status.improvements.push_back({1.0, 1, 0.5});
    status.improvements.push_back({20.0, 40, 0.25});
    (void)abort.stop(status);
    (void)abort.describe();
  } catch (const mdh::UserError&) {
  }
  return 0;
}
