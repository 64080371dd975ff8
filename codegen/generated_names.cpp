// The code generators' reserved names (generated_names.h): the emitters' own, listed here, the family table's
// macros, and the names each family's hooks declare (ParameterFamily::generated_names).
#include "codegen/generated_names.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "codegen/parameter_families.h"

namespace mdh {

namespace {

// Identifiers the emitters, the preamble and the reference kernel write as they are: OpenCL C built-in functions
// they call, and their own variables (a dimension called `slot` is a variable beside the tunable kernel's own `slot`).
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
      "vload_half",  // loads and stores of half buffers (codegen/preamble.h load_element)
      "vstore_half_rte",
      "vstore8",
      "vstore16",
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
      "cache_l_", "cache_p_", "zero_cache_l_", "zero_cache_p_", "cl_",         "cp_",         "e_",
      "s_",       "t_",       "ps_",           "pt_begin_",     "pt_end_",     "tile_begin_", "tile_end_",
      "wg_",      "wi_",      "wg_rest_",      "wi_rest_",      "v_",          "b_",          "res_p_",
      "res_l_",   "pf_",      "sv_",           "tu_",           "next_begin_", "next_end_",   "zero_pf_",
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

// Names that start with these are the generators' whoever declares them, and whose they are.
struct NamePrefix {
  const char* prefix;
  const char* owner;
};
constexpr NamePrefix kGeneratorPrefixes[] = {{"mdh_", "the generated code's"}, {"mma_", "the tensor-core kernel's"}};

// The macros of the tunable kernel that are not a family's parameters: the geometry it derives, the layers of the
// per-layer families that are fixed rather than tuned (MEM_INP_G_...), mdh's own and the tensor-core kernel's.
const std::vector<std::string>& emitter_macro_families() {
  static const std::vector<std::string> families = {
      "BUF_ORDER",     "LOOP_ORDER",   "MEM_INP",      "MEM_RES",      "ORDER_OCL",         "CACHE",
      "EXTENT",        "STRIDE",       "LOCAL_SIZE",   "LOCAL_TILES",  "PRIVATE_STEPS",     "SLOTS",
      "STEP",          "TILES_PER_WG", "COMBINE_WI",   "CONCAT_WI",    "FOLD_POINT_GROUPS", "FOLD_SHARES",
      "OUTPUT_POINTS", "REDUCTION_WG", "REDUCTION_WI", "RESULT_SLOTS", "WG_SIZE",           "MDH",
      "MMA",
  };
  return families;
}

// What the generators reserve, the emitters' lists joined with what the family table and its modules declare.
struct GeneratedNames {
  std::vector<std::string> macro_families;    // "NUM_WG": the name and every name that starts with "NUM_WG_"
  std::set<std::string> identifiers;          // as written: "slot"
  std::vector<std::string> derived_prefixes;  // followed by a declared name or a number: "t_" + a dimension
};

const GeneratedNames& generated_names() {
  static const GeneratedNames names = [] {
    GeneratedNames out{emitter_macro_families(), generator_identifiers(), derived_prefixes()};
    for (const ParameterFamily& family : parameter_families()) {
      std::string macro = family.name;  // per-layer families are named with their layer's '_' (MEM_INP_)
      if (!macro.empty() && macro.back() == '_') macro.pop_back();
      out.macro_families.push_back(macro);
      out.identifiers.insert(family.generated_names.identifiers.begin(), family.generated_names.identifiers.end());
      for (const std::string& prefix : family.generated_names.derived_prefixes)
        if (std::find(out.derived_prefixes.begin(), out.derived_prefixes.end(), prefix) == out.derived_prefixes.end())
          out.derived_prefixes.push_back(prefix);
    }
    // A name both a family and a wider prefix reserve (MMA_BLOCK_M, MMA) is named by the wider one.
    std::sort(out.macro_families.begin(), out.macro_families.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    out.macro_families.erase(std::unique(out.macro_families.begin(), out.macro_families.end()),
                             out.macro_families.end());
    return out;
  }();
  return names;
}

}  // namespace

std::optional<std::string> generated_name_reason(const std::string& name, NameScope scope,
                                                 const std::vector<std::string>& declared) {
  for (const NamePrefix& p : kGeneratorPrefixes)
    if (name.compare(0, std::string(p.prefix).size(), p.prefix) == 0)
      return "names that start with '" + std::string(p.prefix) + "' are " + p.owner;
  const GeneratedNames& generated = generated_names();
  for (const std::string& family : generated.macro_families)
    if (name == family || name.compare(0, family.size() + 1, family + "_") == 0)
      return "'" + family + "' and the names that start with '" + family + "_' are the tunable kernel's macros";
  if (scope == NameScope::macro && generator_function_locals().count(name))
    return "the generated code uses it, and a size becomes a macro";
  if (scope == NameScope::member) return std::nullopt;
  if (generated.identifiers.count(name)) return "the generated code uses it";
  const std::set<std::string> names(declared.begin(), declared.end());
  const auto is_declared_or_number = [&](const std::string& rest) {
    const std::string head = rest.substr(0, rest.find('_'));
    return is_number(head) || names.count(head) > 0 || names.count(rest) > 0;
  };
  for (const std::string& prefix : generated.derived_prefixes)
    if (starts_with(name, prefix) && is_declared_or_number(name.substr(prefix.size())))
      return "the generated code has its own '" + name + "', made of '" + prefix + "' and a declared name";
  for (const std::string& suffix : derived_suffixes())
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        names.count(name.substr(0, name.size() - suffix.size())))
      return "the generated code has its own '" + name + "', made of a declared name and '" + suffix + "'";
  return std::nullopt;
}

}  // namespace mdh
