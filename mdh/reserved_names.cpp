// The reserved words of the spec language (reserved_names.h): what C99 and OpenCL C 1.2 reserve. The code
// generators' own names are theirs to reserve (codegen/generated_names.h); parse_spec takes them as a rule.
#include "mdh/reserved_names.h"

#include <cctype>
#include <set>

#include "mdh/ir.h"

namespace mdh {

namespace {

// C99 keywords and the OpenCL C 1.2 keywords, qualifiers and built-in and reserved type names (spec sections 6.1,
// 6.5-6.8), and the macros and attribute words of OpenCL C that generated code names.
const std::set<std::string>& language_words() {
  static const std::set<std::string> words = {
      // C99
      "auto",
      "break",
      "case",
      "char",
      "const",
      "continue",
      "default",
      "do",
      "double",
      "else",
      "enum",
      "extern",
      "float",
      "for",
      "goto",
      "if",
      "inline",
      "int",
      "long",
      "register",
      "restrict",
      "return",
      "short",
      "signed",
      "sizeof",
      "static",
      "struct",
      "switch",
      "typedef",
      "union",
      "unsigned",
      "void",
      "volatile",
      "while",
      "_Bool",
      "_Complex",
      "_Imaginary",
      "_Pragma",
      "defined",
      // OpenCL C: address spaces, function and access qualifiers, other keywords
      "__global",
      "global",
      "__local",
      "local",
      "__constant",
      "constant",
      "__private",
      "private",
      "__kernel",
      "kernel",
      "__read_only",
      "read_only",
      "__write_only",
      "write_only",
      "__read_write",
      "read_write",
      "uniform",
      "pipe",
      "__attribute__",
      // OpenCL C: built-in scalar and other types, reserved types
      "bool",
      "uchar",
      "ushort",
      "uint",
      "ulong",
      "half",
      "size_t",
      "ptrdiff_t",
      "intptr_t",
      "uintptr_t",
      "true",
      "false",
      "image2d_t",
      "image3d_t",
      "image2d_array_t",
      "image1d_t",
      "image1d_buffer_t",
      "image1d_array_t",
      "sampler_t",
      "event_t",
      "quad",
      "complex",
      "imaginary",
      "cl_mem_fence_flags",
      // OpenCL C macros and attributes that generated code uses
      "NAN",
      "INFINITY",
      "MAXFLOAT",
      "HUGE_VALF",
      "CLK_LOCAL_MEM_FENCE",
      "CLK_GLOBAL_MEM_FENCE",
      "FP_CONTRACT",
      "OPENCL",
      "EXTENSION",
      "ON",
      "OFF",
      "enable",
      "cl_khr_fp64",
      "always_inline",
      "overloadable",
      "reqd_work_group_size",
      "unroll",
      "INT_MIN",
      "INT_MAX",
      "UINT_MAX",
      "LONG_MIN",
      "LONG_MAX",
      "ULONG_MAX",
      "SHRT_MIN",
      "SHRT_MAX",
      "USHRT_MAX",
      "CHAR_MIN",
      "CHAR_MAX",
      "UCHAR_MAX",
  };
  return words;
}

// Vector types (float4, int16, ...) and the reserved half, bool and quad vectors and matrices (floatNxM).
bool is_vector_type_name(const std::string& name) {
  static const char* const kScalars[] = {"char",  "uchar", "short",  "ushort", "int",  "uint", "long",
                                         "ulong", "float", "double", "half",   "bool", "quad"};
  for (const char* scalar : kScalars) {
    const std::string s = scalar;
    if (name.size() <= s.size() || name.compare(0, s.size(), s) != 0) continue;
    const std::string rest = name.substr(s.size());
    if (rest == "2" || rest == "3" || rest == "4" || rest == "8" || rest == "16") return true;
    for (const char* n : {"2", "3", "4", "8", "16"})
      for (const char* m : {"2", "3", "4", "8", "16"})
        if (rest == std::string(n) + "x" + m) return true;
  }
  return false;
}

}  // namespace

std::optional<std::string> language_reserved_reason(const std::string& name) {
  if (language_words().count(name) || is_vector_type_name(name)) return "a reserved word of OpenCL C";
  if (name.size() >= 2 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1]))))
    return "names that start with '__' or '_' and a capital letter are reserved in C";
  return std::nullopt;
}

std::vector<std::string> declared_names(const Mdh& m) {
  std::vector<std::string> out{m.name};
  for (const auto& s : m.sizes) out.push_back(s.name);
  for (const auto& s : m.structs) {
    out.push_back(s.name);
    for (const auto& f : s.fields) out.push_back(f.name);
  }
  for (const auto& p : m.params) out.push_back(p.name);
  for (const auto& b : m.buffers) out.push_back(b.name);
  for (const auto& d : m.dims) out.push_back(d.name);
  for (const auto& op : m.operators) {
    out.push_back(op.name);
    out.push_back(op.lhs_name);
    out.push_back(op.rhs_name);
  }
  for (const auto& a : m.scalar.arg_names) out.push_back(a);
  return out;
}

}  // namespace mdh
