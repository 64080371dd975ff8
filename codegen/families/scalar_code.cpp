// INLINE_MATH and F_INLINE: how user code meets the kernel (mdh's log, the scalar function inlined).
#include "codegen/families/family_support.h"
#include "codegen/inline_math.h"

namespace mdh::families {

namespace {

// A single family's lattice constraint that keeps the default search on GPUs (dedicated local memory) at one value:
// for choices that GPUs do in hardware or that were measured on CPUs only.
std::function<std::vector<Condition>(const FamilyContext&)> gpus_search_only(const std::string& family,
                                                                             const std::string& label) {
  return [family, label](const FamilyContext& x) {
    if (!x.limits.local_memory_dedicated) return std::vector<Condition>{};
    return std::vector<Condition>{x.is(family, 0, label)};
  };
}

}  // namespace

void add_scalar_code(std::vector<ParameterFamily>& table) {
  {
    ParameterFamily f;
    f.name = "INLINE_MATH";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "whether user code's float log is the OpenCL built-in or mdh's own branch-free one (within 1 ulp), which "
        "CPU compilers inline where PoCL calls a scalar library function";
    f.labels = {"builtin", "mdh"};
    f.exists = [](const BoundMdh& b, int) { return calls_inline_math_function(*b.mdh); };
    f.neutral = neutral_zero;
    access_enum_member<&KernelConfig::inline_math>(f);
    // GPUs compute log in hardware: the default search keeps the built-in there.
    f.lattice_constraints = gpus_search_only("INLINE_MATH", "builtin");
    table.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "F_INLINE";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "how the scalar function f, which has a for loop, meets the loop nest: a call the compiler may inline "
        "(call), always inlined (inline), or inlined with each of its for loops unrolled (unrolled)";
    f.labels = {"call", "inline", "unrolled"};
    // A function without loops is small enough that compilers inline it anyway; where user code directs unrolling
    // itself, a second directive would not build.
    f.exists = [](const BoundMdh& b, int) { return f_inline_applies(*b.mdh); };
    f.neutral = neutral_zero;
    access_enum_member<&KernelConfig::f_inline>(f);
    // Measured on CPUs only (PoCL): GPUs keep the plain function until a GPU soak and timing have run.
    f.lattice_constraints = gpus_search_only("F_INLINE", "call");
    table.push_back(f);
  }
}

}  // namespace mdh::families
