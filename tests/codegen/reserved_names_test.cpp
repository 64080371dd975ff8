// The reserved names (the language's, mdh/reserved_names.h, and the generators', codegen/generated_names.h) against
// what the generators emit: every identifier of the reference and tunable kernels of every app and test md_hom
// (default and random configurations) that its spec does not hold must be reserved, so that `mdh check` refuses
// every name that could clash, and neither list can drift from codegen, a family module's hooks included.
#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <set>

#include "codegen/default_config.h"
#include "codegen/generated_names.h"
#include "codegen/parameter_families.h"
#include "codegen/reference_kernel.h"
#include "codegen/tunable_kernel.h"
#include "tests/codegen/codegen_test_support.h"
#include "tests/codegen/tunable_property_support.h"
#include "tests/codegen/tunable_test_support.h"

namespace mdh {
namespace {

/// Why a spec cannot declare `name`, as load_spec (pipeline/pipeline.h) checks it: the language's reason, else the
/// generators'.
std::optional<std::string> reserved_name_reason(const std::string& name, NameScope scope,
                                                const std::vector<std::string>& declared) {
  if (auto reason = language_reserved_reason(name)) return reason;
  return generated_name_reason(name, scope, declared);
}

bool identifier_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

/// The identifiers of OpenCL C `code`, without comments, string and character literals, numbers and the
/// words of #pragma, #line and #if lines (the names that #define, #ifndef and #undef name are kept).
std::set<std::string> identifiers(const std::string& code) {
  std::set<std::string> out;
  bool line_start = true;
  for (size_t k = 0; k < code.size();) {
    const char c = code[k];
    if (c == '\n') {
      line_start = true;
      ++k;
      continue;
    }
    if (line_start && c == '#') {
      const size_t end = code.find('\n', k);
      const std::string directive = code.substr(k + 1, code.find_first_of(" \n", k + 1) - k - 1);
      if (directive != "define" && directive != "ifndef" && directive != "undef") {
        k = end == std::string::npos ? code.size() : end;
        continue;
      }
      k += directive.size() + 1;
      line_start = false;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(c))) line_start = false;
    if (code.compare(k, 2, "//") == 0) {
      k = code.find('\n', k);
      if (k == std::string::npos) break;
    } else if (code.compare(k, 2, "/*") == 0) {
      k = code.find("*/", k) + 2;
    } else if (c == '"' || c == '\'') {
      for (++k; k < code.size() && code[k] != c; ++k)
        if (code[k] == '\\') ++k;
      ++k;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && k + 1 < code.size() && std::isdigit(static_cast<unsigned char>(code[k + 1])))) {
      // A number with its suffixes and exponent (1e-5f, 0x7fL): a pp-number.
      for (++k; k < code.size() && (identifier_char(code[k]) || code[k] == '.' ||
                                    ((code[k] == '-' || code[k] == '+') && std::tolower(code[k - 1]) == 'e'));)
        ++k;
    } else if (identifier_start(c)) {
      size_t end = k;
      while (end < code.size() && identifier_char(code[end])) ++end;
      out.insert(code.substr(k, end - k));
      k = end;
    } else {
      ++k;
    }
  }
  return out;
}

/// The bodies of the program's kernels (from each `__kernel` to the brace that closes its body).
std::string kernel_bodies(const std::string& source) {
  std::string out;
  for (size_t at = source.find("__kernel"); at != std::string::npos; at = source.find("__kernel", at + 1)) {
    size_t k = source.find('{', at);
    int depth = 0;
    const size_t begin = k;
    for (; k < source.size(); ++k) {
      depth += source[k] == '{' ? 1 : source[k] == '}' ? -1 : 0;
      if (depth == 0) break;
    }
    out += source.substr(begin, k - begin + 1) + "\n";
  }
  return out;
}

struct Uncovered {
  std::map<std::string, std::string> anywhere, in_kernels;  // identifier -> a program that holds it
};

void check_program(const Mdh& mdh, const std::string& spec_text, const std::string& program, const std::string& source,
                   Uncovered& uncovered) {
  const std::set<std::string> users = identifiers(spec_text);
  const std::vector<std::string> declared = declared_names(mdh);
  for (const std::string& id : identifiers(source))
    if (!users.count(id) && !reserved_name_reason(id, NameScope::macro, declared)) uncovered.anywhere[id] = program;
  // One-letter loop counters (c, g, n, q, w) are declared in nested blocks that use no name of the spec: a dimension
  // of that name is shadowed there, which C allows (the contractions' dimensions a to g build and verify).
  for (const std::string& id : identifiers(kernel_bodies(source)))
    if (id.size() > 1 && !users.count(id) && !reserved_name_reason(id, NameScope::kernel, declared))
      uncovered.in_kernels[id] = program;
}

TEST(ReservedNames, EveryIdentifierTheGeneratorsEmitIsReserved) {
  Uncovered uncovered;
  const DeviceLimits limits = testing::first_device_limits();
  size_t programs = 0;
  for (const testing::PropertyCase& c : testing::property_cases()) {
    const std::string text = c.text.empty() ? testing::read_source_file(c.file) : c.text;
    const auto check = [&](const BoundMdh& bound, const std::string& what, const LaunchPlan& plan) {
      check_program(*bound.mdh, text, c.name + " " + what, plan.source, uncovered);
      ++programs;
    };
    const BoundMdh first = testing::bind_spec_text(text, c.file, c.sizes.front());
    check(first, "reference", generate_reference_kernel(first, {}));
    if (can_promote_to_double(*first.mdh)) {
      PreambleOptions promoted;
      promoted.promote_float_to_double = true;
      check(first, "reference in double", generate_reference_kernel(first, promoted));
    }
    for (const DeviceLimits& device : {limits, testing::h200_device_limits()})
      check(first, "default configuration", generate_tunable_kernel(first, default_config(first, device), device));
    testing::for_each_property_configuration(
        c, 16, 1, [&](const BoundMdh& bound, size_t, int index, const KernelConfig& config) {
          check(bound, "configuration " + std::to_string(index), generate_tunable_kernel(bound, config, limits));
        });
  }
  // The tensor-core kernel, with fragments through local memory (PoCL) and with inline PTX (the H200).
  for (const testing::PropertyCase& c : testing::tensor_core_property_cases()) {
    const std::string text = c.text.empty() ? testing::read_source_file(c.file) : c.text;
    BoundMdh first = testing::bind_spec_text(text, c.file, c.sizes.front());
    first.precision = c.precision;
    for (const DeviceLimits& device : {limits, testing::h200_device_limits()}) {
      check_program(*first.mdh, text, c.name + " tensor-core default",
                    generate_tunable_kernel(first, default_config(first, device), device).source, uncovered);
      ++programs;
    }
    testing::for_each_property_configuration(
        c, 8, 1, [&](const BoundMdh& bound, size_t, int index, const KernelConfig& config) {
          check_program(*bound.mdh, text, c.name + " tensor-core configuration " + std::to_string(index),
                        generate_tunable_kernel(bound, config, limits).source, uncovered);
          ++programs;
        });
  }
  EXPECT_GT(programs, 100u);
  for (const auto& [id, program] : uncovered.anywhere)
    ADD_FAILURE() << "'" << id << "' (in " << program
                  << ") is not reserved for sizes (codegen/generated_names.cpp, or the family's generated_names)";
  for (const auto& [id, program] : uncovered.in_kernels)
    ADD_FAILURE() << "'" << id << "' (in a kernel of " << program
                  << ") is not reserved for dimensions, buffers and params (codegen/generated_names.cpp, or the "
                     "family's generated_names)";
}

// The tuning parameters are macros of the tunable kernel: each family's names are reserved by their pattern, for any
// name of a dimension or access, whatever the md_hom declares.
TEST(ReservedNames, EveryTuningParameterNameIsReserved) {
  std::vector<testing::PropertyCase> cases = testing::property_cases();
  for (const testing::PropertyCase& c : testing::tensor_core_property_cases()) cases.push_back(c);
  for (const testing::PropertyCase& c : cases) {
    BoundMdh bound =
        testing::bind_spec_text(c.text.empty() ? testing::read_source_file(c.file) : c.text, c.file, c.sizes.front());
    bound.precision = c.precision;
    for (const ParameterFamily& family : parameter_families())
      for (int member : family.members(bound)) {
        const std::string name = family.parameter_name(*bound.mdh, member);
        EXPECT_TRUE(reserved_name_reason(name, NameScope::member, {})) << name << " (" << c.name << ")";
      }
  }
  for (const ParameterFamily& family : parameter_families())
    EXPECT_TRUE(reserved_name_reason(family.name + "_anything", NameScope::member, {})) << family.name;
}

TEST(ReservedNames, ReasonsSayWhy) {
  EXPECT_EQ(reserved_name_reason("kernel", NameScope::kernel, {}), "a reserved word of OpenCL C");
  EXPECT_EQ(reserved_name_reason("float4", NameScope::member, {}), "a reserved word of OpenCL C");
  EXPECT_EQ(reserved_name_reason("slot", NameScope::kernel, {}), "the generated code uses it");
  EXPECT_FALSE(reserved_name_reason("slot", NameScope::member, {}));
  EXPECT_TRUE(reserved_name_reason("p", NameScope::macro, {}));
  EXPECT_FALSE(reserved_name_reason("p", NameScope::kernel, {}));
  EXPECT_TRUE(reserved_name_reason("t_i", NameScope::kernel, {"i"}));
  EXPECT_FALSE(reserved_name_reason("t_max", NameScope::kernel, {"i"}));
  EXPECT_TRUE(reserved_name_reason("NUM_WG_i", NameScope::member, {}));
  EXPECT_TRUE(reserved_name_reason("mdh_x", NameScope::member, {}));
  EXPECT_EQ(reserved_name_reason("mma_x", NameScope::kernel, {}),
            "names that start with 'mma_' are the tensor-core kernel's");
  EXPECT_FALSE(reserved_name_reason("alpha", NameScope::macro, {"alpha"}));
  // A family module's own names (work_group_swizzle.cpp), and a family's macros named by the wider prefix.
  EXPECT_EQ(reserved_name_reason("wg_sw_rest", NameScope::kernel, {}), "the generated code uses it");
  EXPECT_EQ(reserved_name_reason("wg_sw_span_i", NameScope::kernel, {"i"}),
            "the generated code has its own 'wg_sw_span_i', made of 'wg_sw_span_' and a declared name");
  EXPECT_EQ(reserved_name_reason("MMA_BLOCK_M", NameScope::member, {}),
            "'MMA' and the names that start with 'MMA_' are the tunable kernel's macros");
  EXPECT_EQ(reserved_name_reason("MEM_INP_G_A", NameScope::member, {}),
            "'MEM_INP' and the names that start with 'MEM_INP_' are the tunable kernel's macros");
  // mdh/ alone knows the language's words, not the generators' names.
  EXPECT_FALSE(language_reserved_reason("slot"));
  EXPECT_FALSE(language_reserved_reason("NUM_WG_i"));
  EXPECT_EQ(language_reserved_reason("__x"),
            "names that start with '__' or '_' and a capital letter are reserved in C");
}

}  // namespace
}  // namespace mdh
