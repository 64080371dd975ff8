// libFuzzer target: any byte string through parse_spec(). A UserError is the parser doing its job; every other
// exception (InternalError included), crash, hang or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "mdh/bind.h"
#include "mdh/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    auto mdh = mdh::parse_spec(text, "fuzz.mdh");
    // A spec that parses goes on to binding at small sizes, which exercises bounds and injectivity checks.
    mdh::SizeBinding sizes;
    for (const auto& s : mdh->sizes) sizes[s.name] = 3 + static_cast<int64_t>(s.name.size() % 4);
    mdh::bind(mdh, sizes);
  } catch (const mdh::UserError&) {
  }
  return 0;
}
