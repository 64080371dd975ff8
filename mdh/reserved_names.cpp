// The reserved names of the spec language (reserved_names.h): what OpenCL C 1.2 and C99 reserve, and what the code
// generators emit. tests/codegen/reserved_names_test.cpp generates the kernels of every app and checks that each
// identifier they hold that the spec does not is reserved here, so that this list and codegen cannot drift apart.
#include "mdh/reserved_names.h"

#include <algorithm>
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

// Identifiers the code generators emit as they are in their kernels: OpenCL C built-in functions they call, and
// their own variables (a dimension called `slot` is a variable beside the tunable kernel's own `slot`).
const std::set<std::string>& generator_identifiers() {
  static const std::set<std::string> identifiers = {
      // built-in functions
      "get_global_id",
      "get_local_id",
      "get_group_id",
      "get_local_size",
      "get_num_groups",
      "get_global_size",
      "get_sub_group_local_id",
      "get_sub_group_size",
      "sub_group_shuffle",
      "sub_group_shuffle_down",
      "sub_group_reduce_add",
      "barrier",
      "mem_fence",
      "work_group_barrier",
      "min",
      "max",
      "fmin",
      "fmax",
      "clamp",
      "isnan",
      "isinf",
      "isfinite",
      "asm",  // inline PTX under NVIDIA's driver
      "as_float",
      "as_int",
      "as_uint",
      "as_double",
      "as_long",
      "as_ulong",
      "atomic_add",
      "atomic_cmpxchg",
      "atomic_inc",
      "atomic_xchg",
      "atom_cmpxchg",
      "atom_add",
      "atomic_load",
      "atomic_store",
      "fma",
      "mad",
      "vload2",
      "vload3",
      "vload4",
      "vload8",
      "vload16",
      "vstore2",
      "vstore3",
      "vstore4",
      "vstore8",
      "vstore16",
      "vload_half",  // loads and stores of half buffers (codegen/preamble.h load_element)
      "vstore_half_rte",
      // variables of the kernels
      "slot",
      "res_p",
      "res_pv",
      "res_l",
      "res_g",
      "res_shared",
      "wg_lin",
      "wi_lin",
      "wg_c_lin",
      "wg_r_lin",
      "wi_c_lin",
      "wi_r_lin",
      "wi_hw",
      "bv",
      "wg_sw_rest",
      "wg_counts",
      "pt_nonempty",
      "tile_nonempty",
      "next_nonempty",
      "tile_points",
      "acc",
      "accumulators",
      "active",
      "aligned",
      "block",
      "block_end",
      "expected",
      "fold_here",
      "fold_shares",
      "owner",
      "partials",
      "point",
      "rest",
      "seen",
      "share",
      "stored",
      "summed",
      "q0",
      "s0",
      "s1",
      "s2",
      "s3",
      "s4",
      "s5",
      "s6",
      "s7",
  };
  return identifiers;
}

// Identifiers the generated code declares where no name of the spec is seen or shadowed: the combine functions'
// parameters, mdh's own log, the one-letter counters of loops over caches and partial results. Only a size, a
// macro, can clash with them (a size called `p` would replace the parameter).
const std::set<std::string>& generator_function_locals() {
  static const std::set<std::string> identifiers = {
      "p", "q", "bits", "above", "scaled", "subnormal", "half_f2", "m", "e", "z", "fe", "c", "g", "n", "s", "v", "w"};
  return identifiers;
}

// Prefixes of the names the generators derive from a spec's names or numbers (t_<dim>, cache_p_<access>,
// b_0): a name is reserved where such a prefix is followed by a declared name or a number (then `_...` or nothing).
const std::vector<std::string>& derived_prefixes() {
  static const std::vector<std::string> prefixes = {
      "cache_l_",  "cache_p_",    "zero_cache_l_", "zero_cache_p_", "cl_",         "cp_",          "e_",
      "s_",        "t_",          "ps_",           "pt_begin_",     "pt_end_",     "tile_begin_",  "tile_end_",
      "wg_",       "wi_",         "wg_rest_",      "wi_rest_",      "v_",          "b_",           "res_p_",
      "res_l_",    "pf_",         "sv_",           "tu_",           "next_begin_", "wg_sw_first_", "wg_sw_height_",
      "wg_sw_in_", "wg_sw_span_", "next_end_",     "zero_pf_",
  };
  return prefixes;
}

// Suffixes of names derived from a declared name: the window accessor's `<arg>_origin`, the kernels
// `<md_hom>_reference`, `<md_hom>_tunable` and `<md_hom>_combine_wg`.
const std::vector<std::string>& derived_suffixes() {
  static const std::vector<std::string> suffixes = {"_origin", "_reference", "_tunable", "_combine_wg",
                                                    "_combine_splits"};
  return suffixes;
}

bool is_number(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() > prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

const std::vector<std::string>& reserved_macro_prefixes() {
  // The tuning-parameter families (codegen/families/) and the geometry macros of the tunable kernel.
  static const std::vector<std::string> prefixes = {
      "BUF_ORDER_",        "CMB_RES",      "CMB_WI",        "DOUBLE_BUFFER", "F_INLINE",     "INLINE_MATH",
      "LOCAL_PAD",         "LT_SIZE",      "MEM_INP_",      "MEM_RES_",      "NUM_WG",       "NUM_WI",
      "OWNERSHIP",         "PT_SIZE",      "STORE_WIDTH",   "STRIDED_RUN",   "UNROLL_STEPS", "UNROLL_TILES",
      "VECTOR_WIDTH",      "VECTOR_LANES", "WG_COMBINE",    "WG_OWNERSHIP",  "WG_SWIZZLE",   "LOOP_ORDER_",
      "ORDER_OCL_",        "CACHE_",       "EXTENT_",       "STRIDE_",       "LOCAL_SIZE_",  "LOCAL_TILES_",
      "PRIVATE_STEPS_",    "SLOTS_",       "STEP_",         "TILES_PER_WG_", "COMBINE_WI",   "CONCAT_WI",
      "FOLD_POINT_GROUPS", "FOLD_SHARES",  "OUTPUT_POINTS", "REDUCTION_WG",  "REDUCTION_WI", "RESULT_SLOTS",
      "WG_SIZE",           "MDH_",         "MMA_",
  };
  return prefixes;
}

std::optional<std::string> reserved_name_reason(const std::string& name, NameScope scope,
                                                const std::vector<std::string>& declared) {
  if (language_words().count(name) || is_vector_type_name(name)) return "a reserved word of OpenCL C";
  if (starts_with(name, "mdh_") || name == "mdh_") return "names that start with 'mdh_' are the generated code's";
  if (starts_with(name, "mma_") || name == "mma_") return "names that start with 'mma_' are the tensor-core kernel's";
  if (name.size() >= 2 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1]))))
    return "names that start with '__' or '_' and a capital letter are reserved in C";
  for (const std::string& prefix : reserved_macro_prefixes()) {
    const std::string family = prefix.back() == '_' ? prefix.substr(0, prefix.size() - 1) : prefix;
    if (name == family || name.compare(0, family.size() + 1, family + "_") == 0)
      return "'" + family + "' and the names that start with '" + family + "_' are the tunable kernel's macros";
  }
  if (scope == NameScope::macro && generator_function_locals().count(name))
    return "the generated code uses it, and a size becomes a macro";
  if (scope == NameScope::member) return std::nullopt;
  if (generator_identifiers().count(name)) return "the generated code uses it";
  const std::set<std::string> names(declared.begin(), declared.end());
  const auto is_declared_or_number = [&](const std::string& rest) {
    const std::string head = rest.substr(0, rest.find('_'));
    return is_number(head) || names.count(head) > 0 || names.count(rest) > 0;
  };
  for (const std::string& prefix : derived_prefixes())
    if (starts_with(name, prefix) && is_declared_or_number(name.substr(prefix.size())))
      return "the generated code has its own '" + name + "', made of '" + prefix + "' and a declared name";
  for (const std::string& suffix : derived_suffixes())
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        names.count(name.substr(0, name.size() - suffix.size())))
      return "the generated code has its own '" + name + "', made of a declared name and '" + suffix + "'";
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
