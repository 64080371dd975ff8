// INLINE_MATH and F_INLINE: how user code meets the kernel (mdh's log, the scalar function inlined), both through
// the preamble's options (codegen/preamble.h).
//
// INLINE_MATH (where user code calls log): mdh's own branch-free log instead of the OpenCL built-in
// (codegen/inline_math.h). PoCL calls SLEEF's scalar logf, which nothing inlines or vectorises (docs/decisions.md).
// GPUs keep the built-in (hardware).
//
// F_INLINE (where f has a `for` loop and user code directs no unrolling): how the scalar function f meets the loop
// nest that calls it. `call`: a plain function, inlined or not as the compiler decides; `inline`: always_inline;
// `unrolled`: always_inline and `#pragma unroll 32` on each of its `for` loops (full up to 32 iterations). PoCL
// keeps a function with a loop a call; inlined and its loop unrolled, the compiler schedules the loop's loads and
// arithmetic together (docs/decisions.md). GPUs keep `call` (not measured).
#include "codegen/families/family_support.h"
#include "codegen/inline_math.h"

namespace mdh::families {

namespace {

// Where F_INLINE exists: the scalar function has a for loop, and no user code directs unrolling itself (a second
// directive would not build). A function without loops is small enough that compilers inline it anyway.
bool f_inline_applies(const Mdh& mdh) {
  return mdh.scalar.has_for_loop && !mdh.scalar.directs_unrolling;
}

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

MDH_FAMILY_MODULE(scalar_code, 150);

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
    f.hooks.preamble_options = [](const KernelConfig& c, PreambleOptions& o) {
      o.inline_math = has_label(c, "INLINE_MATH", "mdh");
    };
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
    f.exists = [](const BoundMdh& b, int) { return f_inline_applies(*b.mdh); };
    f.neutral = neutral_zero;
    f.hooks.preamble_options = [](const KernelConfig& c, PreambleOptions& o) {
      o.inline_scalar_function = has_label(c, "F_INLINE", "inline") || has_label(c, "F_INLINE", "unrolled");
      o.unroll_scalar_loops = has_label(c, "F_INLINE", "unrolled");
    };
    // Measured on CPUs only (PoCL): GPUs keep the plain function until a GPU soak and timing have run.
    f.lattice_constraints = gpus_search_only("F_INLINE", "call");
    table.push_back(f);
  }
}

}  // namespace mdh::families
