// The table of tuning-parameter families (see parameter_families.h) and the constraints they introduce. Every
// constraint says why it exists; the emitter (tunable_kernel.cpp) relies on exactly these.
#include "codegen/parameter_families.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <type_traits>
#include <utility>

#include "codegen/inline_math.h"
#include "codegen/permutation.h"
#include "codegen/tunable_geometry.h"
#include "support/error.h"

namespace mdh {

namespace {

constexpr int64_t kMaxOpenClIndex = std::numeric_limits<int32_t>::max();  // the kernel's ids are `int`
// Registers a work-item needs besides its private arrays (the register budget's estimate): ids, loop counters,
// addresses. A guess checked against one measurement only: an 8x8 register tile fed one reduction step at a time
// (64 result slots + 16 operands = 80 words) used 77-120 registers on the H200 (H200 measurements, 2026-11-23).
constexpr uint64_t kRegisterOverhead = 32;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

int buffer_rank(const Mdh& mdh, int access) {
  return static_cast<int>(mdh.buffers.at(mdh.inputs.at(access).buffer).extents.size());
}

std::vector<int> all_dims(const Mdh& mdh) {
  std::vector<int> dims(mdh.dims.size());
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = static_cast<int>(d);
  return dims;
}

// ---------------------------------------------------------------------------------------------- value encodings

// Label index <-> the typed enum value, per enumeration family. Index -1 is "not a value of this family" (e.g. a
// typed config that caches an input in global memory), which the range check reports.
int64_t label_index(const std::vector<Memory>& order, Memory m) {
  for (size_t k = 0; k < order.size(); ++k)
    if (order[k] == m) return static_cast<int64_t>(k);
  return -1;
}
Memory memory_at(const std::vector<Memory>& order, int64_t index) {
  return order.at(static_cast<size_t>(std::clamp<int64_t>(index, 0, static_cast<int64_t>(order.size()) - 1)));
}

const std::vector<Memory> kLocalInputMemory{Memory::None, Memory::Local};
const std::vector<Memory> kPrivateInputMemory{Memory::None, Memory::Private, Memory::Local};
const std::vector<Memory> kResultMemory{Memory::Private, Memory::Local, Memory::Global};
const std::vector<Layer> kCombineLayers{Layer::Private, Layer::Local, Layer::Global};

std::vector<std::string> memory_labels(const std::vector<Memory>& order) {
  std::vector<std::string> labels;
  for (Memory m : order) labels.push_back(memory_name(m));
  return labels;
}
std::vector<int64_t> memory_codes(const std::vector<Memory>& order) {
  std::vector<int64_t> codes;
  for (Memory m : order) codes.push_back(static_cast<int64_t>(m));
  return codes;
}

int64_t rank_of(const std::vector<int>& permutation) {
  return is_permutation_of_iota(permutation, static_cast<int>(permutation.size())) ? permutation_rank(permutation) : -1;
}
std::vector<int> permutation_of(int64_t rank, int n) {
  return permutation_from_rank(std::clamp<int64_t>(rank, 0, factorial(n) - 1), n);
}

// ---------------------------------------------------------------------------------------------- lattices

// The values the tuner searches by default (TuningSpace::full_ranges searches whole ranges instead). Most values of
// a whole range are odd shapes: tiles with a short last tile, work-groups that leave SIMD lanes idle. On the H200 a
// random GEMM 1024^3 candidate of the whole ranges ran 4x slower than the default configuration, and none of 1,044
// beat it. The lattices keep the shapes fast kernels have: powers of two, divisors of the extent (no short last
// tile), multiples of the SIMD width where the values count work-items, and the range's ends.

// Work-item counts up to this many SIMD widths are searched in steps of one width (CLBlast's tuned GEMM work-groups
// hold 64-256 work-items, 2-8 warps); beyond it powers of two and divisors of the extent suffice.
constexpr int64_t kSimdMultiples = 8;

std::set<int64_t> tile_sizes(const LatticeContext& x) {
  std::set<int64_t> out{x.lo, x.hi};
  auto add = [&](int64_t v) {
    if (v >= x.lo && v <= x.hi) out.insert(v);
  };
  for (int64_t p = 1; p <= x.hi; p *= 2) add(p);
  for (int64_t d = 1; d * d <= x.extent; ++d)
    if (x.extent % d == 0) add(d), add(x.extent / d);
  return out;
}

std::vector<int64_t> whole_range(int64_t lo, int64_t hi) {
  std::vector<int64_t> v;
  for (int64_t x = lo; x <= hi; ++x) v.push_back(x);
  return v;
}

std::vector<int64_t> tile_lattice(const LatticeContext& x) {
  const auto s = tile_sizes(x);
  return {s.begin(), s.end()};
}

// ---------------------------------------------------------------------------------------------- measured quantities

// A typed config from parameter values (the members a quantity does not read keep whatever the source says; every
// value of a family's range gives a config of the right shape).
KernelConfig config_of(const BoundMdh& bound, const ValueSource& values) {
  return config_from_values(bound, values);
}

std::vector<ParameterRef> refs(const BoundMdh& bound, const std::vector<std::string>& families) {
  std::vector<ParameterRef> out;
  for (const auto& name : families) {
    const int f = family_index(name);
    for (int index : parameter_families()[f].members(bound)) out.push_back({f, index});
  }
  return out;
}

// WG_SWIZZLE's range: groups of up to 16 tiles (16 tiles of 128 rows of a 4096-wide float input are 32 MiB, most of
// an H200's L2).
constexpr int64_t kMaxWorkGroupSwizzle = 16;

// The values 1, 2, 4, ... within the range: what WG_SWIZZLE and VECTOR_WIDTH can use (other values name no other
// grouping, or no OpenCL vector type).
std::vector<int64_t> powers_of_two(const LatticeContext& x) {
  std::vector<int64_t> powers;
  for (int64_t v = 1; v <= x.hi; v *= 2)
    if (v >= x.lo) powers.push_back(v);
  return powers;
}

// LOCAL_PAD's range and values: 0 and 1, 2, 4, 8. Local memory has 32 banks of 4 bytes on NVIDIA and AMD GPUs; a
// pad of p elements moves consecutive rows p banks apart, so 1 or 2 spread work-items that walk a column (one
// element each, or vectors of 4 along another dimension), and 4 or 8 keep rows of float4 / float8 vectors aligned.
constexpr int64_t kMaxLocalPad = 8;
std::vector<int64_t> zero_and_powers_of_two(const LatticeContext& x) {
  std::vector<int64_t> values{0};
  for (int64_t v : powers_of_two(x)) values.push_back(v);
  return values;
}

// VECTOR_WIDTH's range: float16 is OpenCL's widest vector, what AVX-512 holds.
constexpr int64_t kMaxVectorWidth = 16;
// OpenCL's vector types have 2, 4, 8 or 16 elements (3 is laid out as 4): a width that divides kMaxVectorWidth. Read
// by the width's parameter alone, so the tuner filters its values rather than rejecting draws.
Condition is_vector_width(const Expr& width) {
  return ceil_div(Expr::constant(kMaxVectorWidth), width) * width == Expr::constant(kMaxVectorWidth);
}
// The widest vector (a power of two up to kMaxVectorWidth) within a buffer row of `row` elements: VECTOR_WIDTH's and
// STORE_WIDTH's largest value (a wider one would never be used).
int64_t widest_vector(int64_t row) {
  int64_t width = 1;
  while (width * 2 <= std::min(row, kMaxVectorWidth)) width *= 2;
  return width;
}

// STRIDED_RUN's range: a run is read as one vector, and a GPU's widest read is 128 bits (a float4). Runs exist
// wherever strided ownership may: on `++` dimensions (register tiles read from local caches) and on reductions with
// a commutative operator (work-items sharing a streamed reduction, GEMV and DOT, read their runs from global memory
// into private caches as vectors); a non-commutative fold keeps block ownership.
constexpr int64_t kMaxStridedRun = 4;
bool has_strided_runs(const BoundMdh& bound, int d) {
  return bound.mdh->dims[d].combine.is_concat() || bound.mdh->dims[d].combine.is_commutative();
}

// Whether an input access can move vectors: scalar elements (OpenCL has no vectors of structs), and a unit-stride
// index that spans more than one element in a tile (it moves with a dimension, or reads a window).
bool vectorisable(const BoundMdh& bound, int access) {
  const Mdh& mdh = *bound.mdh;
  if (mdh.buffers[mdh.inputs[access].buffer].type.is_struct()) return false;
  const auto& indices = bound.inputs[access].indices;
  if (indices.empty()) return false;
  const BoundIndex& unit_stride = indices.back();
  if (unit_stride.has_window && unit_stride.window_extent > 1) return true;
  for (int64_t c : unit_stride.coefficient)
    if (c != 0) return true;
  return false;
}

// Everything that sizes an array of the kernel (DOUBLE_BUFFER: the prefetch registers). A constraint on a
// geometry quantity is checked once these are set; a family missing here would be read unset.
const std::vector<std::string> kArrayFamilies{"LT_SIZE",       "PT_SIZE",   "NUM_WI",    "NUM_WG",
                                              "MEM_INP_L",     "MEM_INP_P", "MEM_RES_P", "MEM_RES_L",
                                              "DOUBLE_BUFFER", "LOCAL_PAD", "WG_COMBINE"};

// The memory a configuration needs, from codegen/tunable_geometry.h (the emitter sizes its arrays from the same).
Expr geometry_quantity(const FamilyContext& x, const std::string& name,
                       std::function<uint64_t(const TunableGeometry&)> quantity) {
  const BoundMdh* bound = &x.bound;
  return Expr::measured(name, refs(x.bound, kArrayFamilies), [bound, quantity](const ValueSource& v) {
    return static_cast<int64_t>(std::min<uint64_t>(quantity(tunable_geometry(*bound, config_of(*bound, v))),
                                                   std::numeric_limits<int64_t>::max()));
  });
}

// Work-items (layer 1) or work-groups (layer 0) that the NDRange has on OpenCL dimension o.
Expr ocl_extent(const FamilyContext& x, int layer, int o, const std::string& name) {
  const std::string count = layer == 0 ? "NUM_WG" : "NUM_WI", order = layer == 0 ? "ORDER_OCL_G" : "ORDER_OCL_L";
  const int count_family = family_index(count), order_family = family_index(order);
  const int dims = static_cast<int>(x.bound.mdh->dims.size());
  return Expr::measured(name, refs(x.bound, {count, order}), [=](const ValueSource& v) {
    int64_t product = 1;
    for (int d = 0; d < dims; ++d)
      if (v.value({order_family, d}) == o) {
        const int64_t n = v.value({count_family, d});
        product = n > 0 && product > std::numeric_limits<int64_t>::max() / n ? std::numeric_limits<int64_t>::max()
                                                                             : product * n;
      }
    return product;
  });
}

// get and set of a family of one parameter whose labels name the values of the KernelConfig enum `member` in
// declaration order (label index = enum value).
template <auto member>
void access_enum_member(ParameterFamily& f) {
  using Enum = std::remove_reference_t<decltype(std::declval<KernelConfig&>().*member)>;
  f.get = [](const KernelConfig& c, int) { return static_cast<int64_t>(c.*member); };
  f.set = [](KernelConfig& c, int, int64_t v) { c.*member = static_cast<Enum>(v); };
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

// ---------------------------------------------------------------------------------------------- the table

std::vector<ParameterFamily> make_families() {
  std::vector<ParameterFamily> t;
  auto dimension_name = [](const BoundMdh& b, int) {
    std::vector<std::string> names;
    for (const auto& d : b.mdh->dims) names.push_back(d.name);
    return names;
  };
  auto none = [](const BoundMdh&, int) -> std::optional<int64_t> { return std::nullopt; };
  auto zero = [](const BoundMdh&, int) -> std::optional<int64_t> { return 0; };

  // 1. The four sizes of each dimension (PACT'19 §V): local tiles, private tiles, work-items, work-groups.
  {
    ParameterFamily f;
    f.name = "LT_SIZE";
    f.scope = FamilyScope::dimension;
    f.meaning = "local tile size: consecutive indices of the dimension a work-group processes at a time";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    f.lattice = tile_lattice;
    f.neutral = none;
    f.get = [](const KernelConfig& c, int d) { return c.local_tile_size.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.local_tile_size.at(d) = v; };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "PT_SIZE";
    f.scope = FamilyScope::dimension;
    f.meaning = "private tile size: consecutive indices a work-item owns in one step";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    f.lattice = tile_lattice;
    f.neutral = none;
    f.get = [](const KernelConfig& c, int d) { return c.private_tile_size.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.private_tile_size.at(d) = v; };
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("PT_SIZE", d) <= x.parameter("LT_SIZE", d)};
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "NUM_WI";
    f.scope = FamilyScope::dimension;
    f.meaning = "work-items of a work-group along the dimension";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) {
      return std::min<int64_t>(x.bound.dim_extents[d], static_cast<int64_t>(x.limits.max_work_group_size));
    };
    // Besides the tile sizes: multiples of the SIMD width (a work-group's work-items fill whole warps or vector
    // registers when the dimension is on OpenCL dimension 0, or when the others' counts are powers of two), and the
    // values that make one step cover a local tile exactly, ceil(LT / PT).
    f.lattice = [](const LatticeContext& x) {
      std::set<int64_t> s = tile_sizes(x);
      for (int64_t k = 1; k <= kSimdMultiples; ++k)
        if (const int64_t v = k * x.simd_width; v >= x.lo && v <= x.hi) s.insert(v);
      for (int64_t lt : x.lattice_of("LT_SIZE"))
        for (int64_t pt : x.lattice_of("PT_SIZE"))
          if (int64_t v = ceil_div(lt, pt); v >= x.lo && v <= x.hi) s.insert(v);
      return std::vector<int64_t>(s.begin(), s.end());
    };
    f.neutral = none;
    f.get = [](const KernelConfig& c, int d) { return c.num_wi.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.num_wi.at(d) = v; };
    // A work-item beyond these would never own an element: allowed by the kernel, but pure waste.
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("NUM_WI", d) <=
                                    ceil_div(x.parameter("LT_SIZE", d), x.parameter("PT_SIZE", d))};
    };
    f.family_constraints = [](const FamilyContext& x) {
      return std::vector<Condition>{
          x.product("NUM_WI", all_dims(*x.bound.mdh)) <=
          Expr::named_constant(static_cast<int64_t>(x.limits.max_work_group_size),
                               std::to_string(x.limits.max_work_group_size) + " (work-group size limit)")};
    };
    // Whole warps (DeviceLimits::warp_size), in the default space only (whole_warps_apply says where). On the H200,
    // 2,184 of the 2,519 candidates a 300 s tuning run of GEMM 1024^3 evaluated had at most 64 work-items per
    // work-group, and the tuned GEMM 1024^3 configurations never had a work-group that was no multiple of 32. (The
    // store's H200 results for MCC and GEMM 10x500x64, tuned before, have 24 and 8 work-items: valid still, but the
    // default search no longer tries such work-groups.)
    f.lattice_constraints = [](const FamilyContext& x) {
      if (!whole_warps_apply(x.bound, x.limits)) return std::vector<Condition>{};
      const int64_t warp = static_cast<int64_t>(x.limits.warp_size);
      return std::vector<Condition>{
          Condition::multiple_of(x.product("NUM_WI", all_dims(*x.bound.mdh)),
                                 Expr::named_constant(warp, std::to_string(warp) + " (warp size)"))};
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "NUM_WG";
    f.scope = FamilyScope::dimension;
    f.meaning = "work-groups along the dimension (on a reduction dimension: a split combined by a second kernel)";
    f.grouped_by_dimension = true;
    f.max_value = [](const FamilyContext& x, int d) { return x.bound.dim_extents[d]; };
    // The values that make one pass cover the dimension exactly, ceil(extent / LT), besides the tile sizes.
    f.lattice = [](const LatticeContext& x) {
      std::set<int64_t> s = tile_sizes(x);
      for (int64_t lt : x.lattice_of("LT_SIZE"))
        if (int64_t v = ceil_div(x.hi, lt); v >= x.lo && v <= x.hi) s.insert(v);
      return std::vector<int64_t>(s.begin(), s.end());
    };
    f.neutral = none;
    f.get = [](const KernelConfig& c, int d) { return c.num_wg.at(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { c.num_wg.at(d) = v; };
    // A work-group beyond these would have no tile.
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("NUM_WG", d) <=
                                    ceil_div(Expr::constant(x.bound.dim_extents[d]), x.parameter("LT_SIZE", d))};
    };
    t.push_back(f);
  }

  // 2. ORDER_OCL: the OpenCL dimension of each md_hom dimension's work-group and work-item id.
  for (int layer = 0; layer < 2; ++layer) {
    ParameterFamily f;
    f.name = layer == 0 ? "ORDER_OCL_G" : "ORDER_OCL_L";
    f.scope = FamilyScope::dimension;
    f.meaning = std::string("OpenCL dimension (0..2) of the ") + (layer == 0 ? "work-group" : "work-item") +
                " id; dimensions sharing one split it, the later varying fastest";
    f.min_value = 0;
    f.max_value = [](const FamilyContext&, int) { return int64_t{2}; };
    f.neutral = none;
    f.get = [layer](const KernelConfig& c, int d) { return static_cast<int64_t>(c.ocl_dim[layer].at(d)); };
    f.set = [layer](KernelConfig& c, int d, int64_t v) { c.ocl_dim[layer].at(d) = static_cast<int>(v); };
    if (layer == 1)
      // The NDRange must fit the device: work-items per OpenCL dimension, and 32-bit global ids.
      f.family_constraints = [](const FamilyContext& x) {
        std::vector<Condition> out;
        for (int o = 0; o < 3; ++o) {
          const std::string n = std::to_string(o);
          out.push_back(ocl_extent(x, 1, o, "work-items on OpenCL dimension " + n) <=
                        Expr::named_constant(static_cast<int64_t>(x.limits.max_work_item_sizes[o]),
                                             std::to_string(x.limits.max_work_item_sizes[o])));
          out.push_back(ocl_extent(x, 0, o, "work-groups on OpenCL dimension " + n) *
                            ocl_extent(x, 1, o, "work-items on OpenCL dimension " + n) <=
                        Expr::named_constant(kMaxOpenClIndex, std::to_string(kMaxOpenClIndex) + " (32-bit ids)"));
        }
        return out;
      };
    t.push_back(f);
  }

  // 3. LOOP_ORDER per layer: the order in which the layer iterates the dimensions, outermost first.
  for (Layer layer : {Layer::Global, Layer::Local, Layer::Private}) {
    ParameterFamily f;
    f.name = std::string("LOOP_ORDER_") + layer_name(layer);
    f.kind = FamilyValueKind::permutation;
    f.meaning = std::string("order of the dimensions in the ") +
                (layer == Layer::Global  ? "work-group's tile loops"
                 : layer == Layer::Local ? "private steps"
                                         : "private tile's element loops") +
                ", outermost first";
    f.permutation_elements = dimension_name;
    f.neutral = zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int) { return rank_of(c.loop_order[l]); };
    f.set = [l](KernelConfig& c, int, int64_t v) {
      c.loop_order[l] = permutation_of(v, static_cast<int>(c.num_wg.size()));
    };
    if (layer == Layer::Global) {
      // A work-group holds the partial results of one local tile of the `++` dimensions at a time.
      f.permutation_classes = [](const BoundMdh& b, int) {
        std::vector<int> classes;
        for (const auto& dim : b.mdh->dims) classes.push_back(dim.combine.is_concat() ? 0 : 1);
        return classes;
      };
      f.out_of_class_order = "`++` dimensions inside a reduction dimension";
    }
    t.push_back(f);
  }

  // 4. MEM_INP and BUF_ORDER for the local and private layers; the global layer always reads through.
  for (Layer layer : {Layer::Local, Layer::Private}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    const auto& order = layer == Layer::Local ? kLocalInputMemory : kPrivateInputMemory;
    f.name = "MEM_INP_" + ln;
    f.scope = FamilyScope::input_access;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = layer == Layer::Local
                    ? "where the local tile's footprint of the input is cached (local: copied cooperatively)"
                    : "where a work-item's private tile footprint of the input is cached";
    f.labels = memory_labels(order);
    f.legacy_codes = memory_codes(order);
    f.neutral = zero;
    const int l = static_cast<int>(layer);
    f.get = [l, order](const KernelConfig& c, int a) { return label_index(order, c.input_memory[l].at(a)); };
    f.set = [l, order](KernelConfig& c, int a, int64_t v) { c.input_memory[l].at(a) = memory_at(order, v); };
    t.push_back(f);
  }
  for (Layer layer : {Layer::Local, Layer::Private}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    f.name = "BUF_ORDER_" + ln;
    f.scope = FamilyScope::input_access;
    f.kind = FamilyValueKind::permutation;
    f.meaning = "order of the buffer's dimensions in the cached copy, outermost first";
    f.exists = [](const BoundMdh& b, int a) { return buffer_rank(*b.mdh, a) >= 2; };
    f.permutation_elements = [](const BoundMdh& b, int a) {
      std::vector<std::string> positions;
      for (int m = 0; m < buffer_rank(*b.mdh, a); ++m) positions.push_back(std::to_string(m));
      return positions;
    };
    f.neutral = zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int a) { return rank_of(c.cache_dim_order[l].at(a)); };
    f.set = [l](KernelConfig& c, int a, int64_t v) {
      c.cache_dim_order[l].at(a) = permutation_of(v, static_cast<int>(c.cache_dim_order[l].at(a).size()));
    };
    // The order of a copy that is not made means nothing: pinned, so that it does not multiply the space.
    f.member_constraints = [ln](const FamilyContext& x, int a) {
      return std::vector<Condition>{
          Condition::unless(x.parameter("BUF_ORDER_" + ln, a) == Expr::named_constant(0, "identity"),
                            x.is_not("MEM_INP_" + ln, a, "none"))};
    };
    t.push_back(f);
  }

  // 5. MEM_RES and CMB_RES. Work-items that share a reduction exchange partial results through local or global
  // memory; with MEM_RES_P private they accumulate in registers and copy them into local memory for each exchange
  // (DOT 2^24 on the H200: 0.15 us faster than accumulating in local memory on one card, 0.1-0.35 us slower on
  // another, results/nvidia-h200/session37: a choice for the tuner). Without such sharing MEM_RES_L and CMB_RES have
  // no effect and stay at their first value.
  auto reduction_sharing = [](const FamilyContext& x) { return x.product("NUM_WI", x.bound.mdh->reduction_dims()); };
  for (Layer layer : {Layer::Private, Layer::Local}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    f.name = "MEM_RES_" + ln;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = layer == Layer::Private ? "where each work-item's partial results live"
                                        : "where the partial results combined across work-items live";
    f.labels = memory_labels(kResultMemory);
    f.legacy_codes = memory_codes(kResultMemory);
    f.neutral = zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int) { return label_index(kResultMemory, c.result_memory[l]); };
    f.set = [l](KernelConfig& c, int, int64_t v) { c.result_memory[l] = memory_at(kResultMemory, v); };
    f.family_constraints = [layer, reduction_sharing](const FamilyContext& x) {
      const bool has_reduction = !x.bound.mdh->reduction_dims().empty();
      if (layer == Layer::Private) return std::vector<Condition>{};
      if (!has_reduction) return std::vector<Condition>{x.is("MEM_RES_L", 0, "private")};
      return std::vector<Condition>{
          Condition::unless(x.is("MEM_RES_L", 0, "private"), reduction_sharing(x) >= Expr::constant(2))};
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "CMB_RES";
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "when work-items sharing a reduction combine: after each private tile (P), local tile (L), or once (G)";
    for (Layer l : kCombineLayers) {
      f.labels.push_back(layer_name(l));
      f.legacy_codes.push_back(static_cast<int64_t>(l));
    }
    f.neutral = zero;
    f.get = [](const KernelConfig& c, int) {
      for (size_t k = 0; k < kCombineLayers.size(); ++k)
        if (kCombineLayers[k] == c.combine_layer) return static_cast<int64_t>(k);
      return int64_t{-1};
    };
    f.set = [](KernelConfig& c, int, int64_t v) {
      c.combine_layer = kCombineLayers.at(static_cast<size_t>(std::clamp<int64_t>(v, 0, 2)));
    };
    f.family_constraints = [reduction_sharing](const FamilyContext& x) {
      const Mdh& mdh = *x.bound.mdh;
      const std::vector<int> reduction = mdh.reduction_dims();
      if (reduction.empty()) return std::vector<Condition>{x.is("CMB_RES", 0, "P")};
      std::vector<Condition> out{Condition::unless(x.is("CMB_RES", 0, "P"), reduction_sharing(x) >= Expr::constant(2))};
      if (reduction.size() == 1 && !mdh.dims[reduction[0]].combine.is_commutative()) {
        // A user operator need not commute: work-item partials must cover consecutive index ranges in work-item
        // order when they are combined. In a step of the local layer they do; across steps only when a local tile
        // has a single step.
        const int r = reduction[0];
        out.push_back(x.parameter("NUM_WI", r) == Expr::constant(1) || x.is("CMB_RES", 0, "P") ||
                      (x.is("CMB_RES", 0, "L") &&
                       x.parameter("NUM_WI", r) * x.parameter("PT_SIZE", r) >= x.parameter("LT_SIZE", r)));
      }
      return out;
    };
    // Memory: local arrays within the device's local memory, private arrays within the private budget, scratch
    // buffers within the largest allocation (declared here, with the last family that sizes an array).
    const auto memory = [](const FamilyContext& x) {
      auto limit = [](uint64_t bytes) {
        return Expr::named_constant(
            static_cast<int64_t>(std::min<uint64_t>(bytes, std::numeric_limits<int64_t>::max())),
            std::to_string(bytes));
      };
      std::vector<Condition> out{
          geometry_quantity(x, "local memory bytes", [](const TunableGeometry& g) { return g.local_memory_bytes; }) <=
              limit(x.limits.local_mem_bytes),
          geometry_quantity(x, "private array bytes",
                            [](const TunableGeometry& g) { return g.private_memory_bytes; }) <=
              limit(x.limits.private_mem_bytes),
          geometry_quantity(x, "largest scratch buffer bytes",
                            [](const TunableGeometry& g) {
                              return std::max({g.partial_results_bytes, g.global_private_results_bytes,
                                               g.global_local_results_bytes});
                            }) <= limit(x.limits.max_alloc_bytes),
          // The kernel indexes its buffers with `int`: a larger scratch buffer wraps its indices. On the H200 (GEMM
          // 4096^3, NUM_WG_k = 128, MEM_RES P = global: 8.6 GB, within its largest allocation) the kernel accessed
          // memory out of bounds, and NVIDIA's context failed every later call.
          geometry_quantity(x, "largest scratch buffer bytes / element bytes", [](const TunableGeometry& g) {
            return std::max({g.partial_results_bytes, g.global_private_results_bytes, g.global_local_results_bytes}) /
                   std::max<uint64_t>(1, g.result_bytes);
          }) <= Expr::named_constant(kMaxOpenClIndex, std::to_string(kMaxOpenClIndex) + " (the kernel's int indices)")};
      // The register budget (DeviceLimits::registers_per_work_item): private arrays beyond the register file spill
      // to memory. On the H200 a register-blocked GEMM configuration (PT 8x8x32) had a 2,304-byte stack frame and
      // ran 14 ms; fed one reduction step at a time the same tile fits in 77-120 registers. Estimated before the
      // build: a register per 4 bytes of private arrays plus kRegisterOverhead for ids, indices, addresses and
      // loop bounds.
      if (x.limits.registers_per_work_item > 0)
        out.push_back(geometry_quantity(x,
                                        "estimated registers per work-item (private array bytes / 4 + " +
                                            std::to_string(kRegisterOverhead) + ")",
                                        [](const TunableGeometry& g) {
                                          return (g.private_memory_bytes + 3) / 4 + kRegisterOverhead;
                                        }) <=
                      Expr::named_constant(static_cast<int64_t>(x.limits.registers_per_work_item),
                                           std::to_string(x.limits.registers_per_work_item) + " (register budget)"));
      return out;
    };
    const auto combine = f.family_constraints;
    f.family_constraints = [combine, memory](const FamilyContext& x) {
      std::vector<Condition> out = combine(x);
      for (Condition& c : memory(x)) out.push_back(std::move(c));
      return out;
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "OWNERSHIP";
    f.scope = FamilyScope::dimension;
    // With the sizes and STRIDED_RUN in the dimension's tree: its constraints on them stay inside the tree.
    f.grouped_by_dimension = true;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "which elements of a private step a work-item owns: a consecutive block, or every NUM_WI-th";
    f.labels = {"block", "strided"};
    f.neutral = zero;
    f.get = [](const KernelConfig& c, int d) { return static_cast<int64_t>(c.ownership_of(d)); };
    f.set = [](KernelConfig& c, int d, int64_t v) {
      member_slot(c.ownership, d) = v == 1 ? Ownership::strided : Ownership::block;
    };
    f.member_constraints = [](const FamilyContext& x, int d) {
      const Mdh& mdh = *x.bound.mdh;
      const std::string n = mdh.dims[d].name;
      // Strided ownership differs from block ownership only with several work-items owning several runs
      // (STRIDED_RUN elements where runs exist; else single elements) each; block ownership has no runs.
      const bool runs = has_strided_runs(x.bound, d);
      const Expr run = runs ? x.parameter("STRIDED_RUN", d) : Expr::constant(1);
      std::vector<Condition> out{Condition::unless(
          x.is("OWNERSHIP", d, "block"),
          x.parameter("NUM_WI", d) >= Expr::constant(2) && x.parameter("PT_SIZE", d) >= Expr::constant(2) * run)};
      if (runs) out.push_back(Condition::unless(run == Expr::constant(1), x.is("OWNERSHIP", d, "strided")));
      // A work-item's partial result must be the fold of consecutive indices where the operator does not commute.
      if (!mdh.dims[d].combine.is_concat() && !mdh.dims[d].combine.is_commutative())
        out.push_back(x.is("OWNERSHIP", d, "block"));
      // A private cache holds the elements a work-item owns. Where a buffer index is the dimension itself (plus a
      // constant), the cache holds one element per owned index, in ownership order; along any other index (a
      // window, a sum of dimensions) a strided private tile's footprint is no box.
      for (size_t a = 0; a < x.bound.inputs.size(); ++a)
        if (moves_with(x.bound.inputs[a], d) && !indexed_plainly(x.bound.inputs[a], d))
          out.push_back(
              Condition::unless(x.is("MEM_INP_P", static_cast<int>(a), "none"), x.is("OWNERSHIP", d, "block")));
      return out;
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "WG_OWNERSHIP";
    f.scope = FamilyScope::dimension;
    // With the dimension's sizes in its tree: its constraint reads them.
    f.grouped_by_dimension = true;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "which local tiles a work-group owns: a consecutive block of TILES_PER_WG, or every NUM_WG-th";
    f.labels = {"block", "strided"};
    f.neutral = zero;
    // A work-group's partial result is then no fold of consecutive tiles: only where the operator commutes. On `++`
    // dimensions WG_SWIZZLE orders the work-groups' tiles.
    f.exists = [](const BoundMdh& b, int d) {
      return !b.mdh->dims[d].combine.is_concat() && b.mdh->dims[d].combine.is_commutative();
    };
    f.get = [](const KernelConfig& c, int d) { return static_cast<int64_t>(c.work_group_ownership_of(d)); };
    f.set = [](KernelConfig& c, int d, int64_t v) {
      member_slot(c.work_group_ownership, d) = v == 1 ? Ownership::strided : Ownership::block;
    };
    // Strided differs from block only with several work-groups owning several tiles each.
    f.member_constraints = [](const FamilyContext& x, int d) {
      const Expr tiles = ceil_div(Expr::constant(x.bound.dim_extents[d]), x.parameter("LT_SIZE", d));
      return std::vector<Condition>{Condition::unless(
          x.is("WG_OWNERSHIP", d, "block"), x.parameter("NUM_WG", d) >= Expr::constant(2) &&
                                                ceil_div(tiles, x.parameter("NUM_WG", d)) >= Expr::constant(2))};
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "CMB_WI";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "how work-items sharing a reduction combine: the leader folds them in turn (serial), pairwise rounds (tree), "
        "or rounds within sub-groups without barriers, then across the sub-groups (shuffle)";
    f.labels = {"serial", "tree", "shuffle"};
    f.neutral = zero;
    access_enum_member<&KernelConfig::work_item_combine>(f);
    f.family_constraints = [reduction_sharing](const FamilyContext& x) {
      if (x.bound.mdh->reduction_dims().empty()) return std::vector<Condition>{x.is("CMB_WI", 0, "serial")};
      std::vector<Condition> out{
          Condition::unless(x.is("CMB_WI", 0, "serial"), reduction_sharing(x) >= Expr::constant(2))};
      // Shuffle: whole sub-groups (shfl.sync needs every lane of a warp), and each point's work-items in whole
      // aligned segments of power-of-two size: within one sub-group (the width a multiple of their count), or whole
      // sub-groups whose results then fit one sub-group's segment (their count divides the width).
      const int64_t width = static_cast<int64_t>(x.limits.subgroup_width);
      int64_t reduced = 1;  // the most work-items that can share a point
      for (int d : x.bound.mdh->reduction_dims()) reduced *= x.bound.dim_extents[d];
      // Without sub-groups or a reduction to share, no shuffle: a constraint on CMB_WI alone, since one that reads
      // every dimension's work-items as well ties their groups to CMB_WI's for nothing (GEMM with K = 1 on a warp
      // device then drew too few whole-warp candidates to sample).
      if (width < 2 || reduced < 2) {
        out.push_back(x.is_not("CMB_WI", 0, "shuffle"));
      } else {
        const Expr w = Expr::named_constant(width, std::to_string(width) + " (sub-group width)");
        const Expr w_squared = Expr::named_constant(width * width, std::to_string(width * width) + " (its square)");
        const Expr sharing = reduction_sharing(x);
        out.push_back(Condition::unless(
            x.is_not("CMB_WI", 0, "shuffle"),
            Condition::multiple_of(x.product("NUM_WI", all_dims(*x.bound.mdh)), w) &&
                (Condition::multiple_of(w, sharing) ||
                 (Condition::multiple_of(sharing, w) && Condition::multiple_of(w_squared, sharing)))));
      }
      return out;
    };
    t.push_back(f);
  }
  {
    ParameterFamily f;
    f.name = "WG_COMBINE";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "how a reduction split over work-groups is finished: by a second kernel (kernel), or in the same kernel by "
        "the last work-group to store its partial results (last), or to add them atomically into an accumulator per "
        "output point (atomic: + on float, int or uint results)";
    f.labels = {"kernel", "last", "atomic"};
    // Where the reductions have a single element (GEMM with K=1) no work-groups can share one: the family would be
    // a choice between names of one kernel, tripling the candidates a sampler rejects.
    f.exists = [](const BoundMdh& b, int) {
      int64_t reduced = 1;
      for (int d : b.mdh->reduction_dims()) reduced *= b.dim_extents[d];
      return work_group_combine_applies(*b.mdh) && reduced >= 2;
    };
    f.neutral = zero;
    access_enum_member<&KernelConfig::work_group_combine>(f);
    // Without work-groups sharing a reduction there is nothing to finish: `last` would be `kernel` again.
    f.family_constraints = [](const FamilyContext& x) {
      std::vector<Condition> conditions{Condition::unless(
          x.is("WG_COMBINE", 0, "kernel"), x.product("NUM_WG", x.bound.mdh->reduction_dims()) >= Expr::constant(2))};
      if (!work_group_combine_atomic_applies(*x.bound.mdh)) conditions.push_back(x.is_not("WG_COMBINE", 0, "atomic"));
      return conditions;
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "DOUBLE_BUFFER";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "whether the work-group loads its next local tile of cached inputs into registers while it computes the "
        "current one (on), and stores them into a second local tile (local: one barrier per tile)";
    f.labels = {"off", "on", "local"};
    f.neutral = zero;
    access_enum_member<&KernelConfig::double_buffer>(f);
    // Only with an input cached in local memory and a reduction (else "on" would name the kernel of "off" a second
    // time). Whether the sizes give a tile loop to pipeline (TunableGeometry::prefetch_dimension) is not a
    // constraint: "on" pipelines where they do, so a configuration stays valid at other sizes (the tuned-results
    // store takes configurations tuned for the nearest size).
    f.family_constraints = [](const FamilyContext& x) {
      if (x.bound.mdh->reduction_dims().empty() || x.bound.inputs.empty())
        return std::vector<Condition>{x.is("DOUBLE_BUFFER", 0, "off")};
      Expr cached = x.parameter("MEM_INP_L", 0);
      for (size_t a = 1; a < x.bound.inputs.size(); ++a)
        cached = cached + x.parameter("MEM_INP_L", static_cast<int>(a));
      return std::vector<Condition>{Condition::unless(x.is("DOUBLE_BUFFER", 0, "off"), cached >= Expr::constant(1))};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "UNROLL_STEPS";
    f.kind = FamilyValueKind::enumeration;
    f.meaning = "whether the loops over a work-item's private steps within a local tile are unrolled";
    f.labels = {"off", "on"};
    f.neutral = zero;
    access_enum_member<&KernelConfig::unroll_steps>(f);
    // No constraint: where every dimension has one step, "on" generates the kernel of "off" byte for byte (the
    // binary cache then compiles it once); telling so would read every dimension's tile sizes, a constraint
    // across all their groups.
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "UNROLL_TILES";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "whether the work-group's loop over its local tiles along the innermost reduction tile loop is unrolled, up "
        "to 8 tiles per iteration";
    f.labels = {"off", "on"};
    f.neutral = zero;
    access_enum_member<&KernelConfig::unroll_tiles>(f);
    // Only where the md_hom reduces (else "on" would name the kernel of "off" a second time). Whether the sizes give
    // a loop of several tiles (TunableGeometry::innermost_reduction_tile_loop) is no constraint, as for
    // DOUBLE_BUFFER: "on" unrolls where they do, so a configuration stays valid at other sizes.
    f.family_constraints = [](const FamilyContext& x) {
      if (!x.bound.mdh->reduction_dims().empty()) return std::vector<Condition>{};
      return std::vector<Condition>{x.is("UNROLL_TILES", 0, "off")};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "WG_SWIZZLE";
    f.scope = FamilyScope::dimension;
    f.meaning =
        "work-groups take the dimension's tiles this many at a time, the other dimensions' tiles within each such "
        "group (1: as the OpenCL ids come), so that those running together share input tiles in the L2 cache";
    // With NUM_WG in the dimension's tree: its constraint stays inside the tree (no rejection of whole draws).
    f.grouped_by_dimension = true;
    // On `++` dimensions of md_homs with another dimension to take turns with.
    f.exists = [](const BoundMdh& b, int d) { return b.mdh->dims.size() >= 2 && b.mdh->dims[d].combine.is_concat(); };
    f.max_value = [](const FamilyContext& x, int d) {
      return std::min<int64_t>(kMaxWorkGroupSwizzle, x.bound.dim_extents[d]);
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int d) { return c.swizzle(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { member_slot(c.work_group_swizzle, d) = v; };
    // Groups of more tiles than the dimension's work-groups would order them as groups of all of them do.
    f.member_constraints = [](const FamilyContext& x, int d) {
      return std::vector<Condition>{x.parameter("WG_SWIZZLE", d) <= x.parameter("NUM_WG", d)};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "VECTOR_WIDTH";
    f.scope = FamilyScope::input_access;
    f.meaning =
        "elements the access's cached copies move at a time along its buffer's unit-stride dimension (vloadN; 1: one "
        "at a time)";
    f.exists = [](const BoundMdh& b, int a) { return vectorisable(b, a); };
    // No cached row is longer than the buffer's: wider vectors would never be used.
    f.max_value = [](const FamilyContext& x, int a) {
      return widest_vector(x.bound.buffer_extents[x.bound.mdh->inputs[a].buffer].back());
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int a) { return c.vector_width_of(a); };
    f.set = [](KernelConfig& c, int a, int64_t v) { member_slot(c.vector_width, a) = v; };
    f.member_constraints = [](const FamilyContext& x, int a) {
      const Expr width = x.parameter("VECTOR_WIDTH", a);
      std::vector<Condition> out{is_vector_width(width)};
      // Only cached copies move vectors: another width would name the kernel of width 1 again. Whether the width
      // divides a copy's row (the unit-stride extent of its full box) is no constraint: it would read the tile sizes
      // of other parameter groups and reject most random draws; a copy whose row it does not divide moves elements.
      out.push_back(Condition::unless(width == Expr::constant(1),
                                      x.is_not("MEM_INP_L", a, "none") || x.is_not("MEM_INP_P", a, "none")));
      return out;
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "STORE_WIDTH";
    // Why: a work-item that owns consecutive results (Gaussian 4096^2's fastest configurations on the H200 own 2-4
    // columns each) writes them one element at a time in stores 8-16 bytes apart across a warp; the tuner's best
    // wrote them through local memory (MEM_RES_P local) instead (results/nvidia-h200/session19/).
    f.meaning =
        "results a work-item writes at a time along the output buffer's unit-stride dimension (vstoreN; 1: one at a "
        "time)";
    f.exists = [](const BoundMdh& b, int) { return store_dimension(b) >= 0; };
    f.max_value = [](const FamilyContext& x, int) {
      return widest_vector(x.bound.buffer_extents[x.bound.output.buffer].back());
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int) { return c.store_width; };
    f.set = [](KernelConfig& c, int, int64_t v) { c.store_width = v; };
    // OpenCL's vector widths only. Whether the width divides a work-item's run of consecutive results (its private
    // tile, or its strided run) is no constraint, for the reason VECTOR_WIDTH gives: a run it does not divide is
    // stored element by element, as are the edge tiles' results.
    f.member_constraints = [](const FamilyContext& x, int) {
      const Expr width = x.parameter("STORE_WIDTH", 0);
      return std::vector<Condition>{is_vector_width(width)};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "STRIDED_RUN";
    f.scope = FamilyScope::dimension;
    f.meaning =
        "with strided ownership: consecutive elements a work-item owns in each run, every NUM_WI-th run its own (a "
        "vector per run)";
    // With PT_SIZE in the dimension's tree: its divisibility constraint stays inside the tree.
    f.grouped_by_dimension = true;
    f.exists = has_strided_runs;
    f.max_value = [](const FamilyContext& x, int d) {
      return std::min<int64_t>(kMaxStridedRun, x.bound.dim_extents[d]);
    };
    f.lattice = powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 1; };
    f.get = [](const KernelConfig& c, int d) { return c.strided_run_of(d); };
    f.set = [](KernelConfig& c, int d, int64_t v) { member_slot(c.strided_run, d) = v; };
    // Whole runs in a private tile.
    f.member_constraints = [](const FamilyContext& x, int d) {
      const Expr run = x.parameter("STRIDED_RUN", d);
      return std::vector<Condition>{ceil_div(x.parameter("PT_SIZE", d), run) * run == x.parameter("PT_SIZE", d)};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "LOCAL_PAD";
    f.scope = FamilyScope::input_access;
    f.meaning =
        "elements left unused after each innermost row of the access's local-memory cache, so that work-items "
        "walking its outer dimension reach different memory banks (0: rows packed)";
    f.exists = [](const BoundMdh& b, int a) { return buffer_rank(*b.mdh, a) >= 2; };
    f.min_value = 0;
    f.max_value = [](const FamilyContext&, int) { return kMaxLocalPad; };
    f.lattice = zero_and_powers_of_two;
    f.neutral = [](const BoundMdh&, int) -> std::optional<int64_t> { return 0; };
    f.get = [](const KernelConfig& c, int a) { return c.local_pad_of(a); };
    f.set = [](KernelConfig& c, int a, int64_t v) { member_slot(c.local_pad, a) = v; };
    // Only a cache in local memory has rows to pad: another value would name the unpadded kernel again.
    f.member_constraints = [](const FamilyContext& x, int a) {
      return std::vector<Condition>{
          Condition::unless(x.parameter("LOCAL_PAD", a) == Expr::constant(0), x.is("MEM_INP_L", a, "local"))};
    };
    t.push_back(f);
  }

  {
    ParameterFamily f;
    f.name = "INLINE_MATH";
    f.kind = FamilyValueKind::enumeration;
    f.meaning =
        "whether user code's float log is the OpenCL built-in or mdh's own branch-free one (within 1 ulp), which "
        "CPU compilers inline where PoCL calls a scalar library function";
    f.labels = {"builtin", "mdh"};
    f.exists = [](const BoundMdh& b, int) { return calls_inline_math_function(*b.mdh); };
    f.neutral = zero;
    access_enum_member<&KernelConfig::inline_math>(f);
    // GPUs compute log in hardware: the default search keeps the built-in there.
    f.lattice_constraints = gpus_search_only("INLINE_MATH", "builtin");
    t.push_back(f);
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
    f.neutral = zero;
    access_enum_member<&KernelConfig::f_inline>(f);
    // Measured on CPUs only (PoCL): GPUs keep the plain function until a GPU soak and timing have run.
    f.lattice_constraints = gpus_search_only("F_INLINE", "call");
    t.push_back(f);
  }
  for (ParameterFamily& f : t) {
    if (!f.exists) f.exists = [](const BoundMdh&, int) { return true; };
    if (!f.lattice) f.lattice = [](const LatticeContext& x) { return whole_range(x.lo, x.hi); };
    // Families whose labels were always written by name: code k is label k.
    if (f.kind == FamilyValueKind::enumeration && f.legacy_codes.empty())
      for (size_t k = 0; k < f.labels.size(); ++k) f.legacy_codes.push_back(static_cast<int64_t>(k));
    MDH_INTERNAL_ASSERT(f.get && f.set && f.neutral, "family " + f.name + " lacks typed access or a neutral value");
    MDH_INTERNAL_ASSERT(f.kind != FamilyValueKind::enumeration || f.labels.size() == f.legacy_codes.size(),
                        "family " + f.name + ": one legacy code per label");
  }
  return t;
}

}  // namespace

// ---------------------------------------------------------------------------------------------- whole warps

bool whole_warps_apply(const BoundMdh& bound, const DeviceLimits& limits) {
  const int64_t warp = static_cast<int64_t>(limits.warp_size);
  if (warp <= 1 || limits.warp_size > limits.max_work_group_size) return false;
  const int64_t simd = static_cast<int64_t>(std::max<uint64_t>(1, limits.simd_width));
  // The divisors of the warp that work-item counts of the `++` dimensions seen so far multiply to.
  std::set<int64_t> reachable{1};
  for (int d : bound.mdh->concat_dims()) {
    const int64_t extent = bound.dim_extents[d];
    const int64_t most = std::min<int64_t>(extent, static_cast<int64_t>(limits.max_work_group_size));
    std::set<int64_t> next;
    for (int64_t r : reachable)
      for (int64_t m = 1; m <= most && r * m <= warp; ++m) {
        const bool on_lattice = (m & (m - 1)) == 0 || extent % m == 0 || m % simd == 0;
        if (on_lattice && warp % (r * m) == 0) next.insert(r * m);
      }
    reachable = std::move(next);
  }
  return reachable.count(warp) > 0;
}

// ---------------------------------------------------------------------------------------------- lookups

const std::vector<ParameterFamily>& parameter_families() {
  static const std::vector<ParameterFamily> table = make_families();
  return table;
}

int family_index(const std::string& name) {
  const auto& t = parameter_families();
  for (size_t k = 0; k < t.size(); ++k)
    if (t[k].name == name) return static_cast<int>(k);
  MDH_INTERNAL_ASSERT(false, "no parameter family " + name);
}

const ParameterFamily* find_family(const std::string& name) {
  for (const auto& f : parameter_families())
    if (f.name == name) return &f;
  return nullptr;
}

int store_dimension(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  if (mdh.buffers[bound.output.buffer].type.is_struct() || bound.output.indices.empty()) return -1;
  const BoundIndex& unit_stride = bound.output.indices.back();
  if (unit_stride.has_window && unit_stride.window_extent > 1) return -1;
  int dimension = -1;
  for (size_t d = 0; d < unit_stride.coefficient.size(); ++d) {
    if (unit_stride.coefficient[d] == 0) continue;
    if (unit_stride.coefficient[d] != 1 || dimension >= 0 || !mdh.dims[d].combine.is_concat()) return -1;
    dimension = static_cast<int>(d);
  }
  return dimension;
}

std::vector<int> ParameterFamily::members(const BoundMdh& bound) const {
  std::vector<int> out;
  const int count = scope == FamilyScope::dimension      ? static_cast<int>(bound.mdh->dims.size())
                    : scope == FamilyScope::input_access ? static_cast<int>(bound.mdh->inputs.size())
                                                         : 1;
  for (int k = 0; k < count; ++k)
    if (exists(bound, k)) out.push_back(k);
  return out;
}

std::string ParameterFamily::parameter_name(const Mdh& mdh, int index) const {
  switch (scope) {
    case FamilyScope::dimension:
      return name + "_" + mdh.dims.at(index).name;
    case FamilyScope::input_access:
      return name + "_" + input_access_name(mdh, index);
    case FamilyScope::single:
      return name;
  }
  MDH_INTERNAL_ASSERT(false, "unknown family scope");
}

Expr FamilyContext::parameter(const std::string& family, int index) const {
  const int f = family_index(family);
  return Expr::parameter({f, index}, parameter_families()[f].parameter_name(*bound.mdh, index));
}

Condition FamilyContext::is(const std::string& family, int index, const std::string& label) const {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const auto it = std::find(labels.begin(), labels.end(), label);
  MDH_INTERNAL_ASSERT(it != labels.end(), family + " has no value " + label);
  return parameter(family, index) == Expr::named_constant(it - labels.begin(), label);
}

Condition FamilyContext::is_not(const std::string& family, int index, const std::string& label) const {
  const auto& labels = parameter_families()[family_index(family)].labels;
  const auto it = std::find(labels.begin(), labels.end(), label);
  MDH_INTERNAL_ASSERT(it != labels.end(), family + " has no value " + label);
  return parameter(family, index) != Expr::named_constant(it - labels.begin(), label);
}

Expr FamilyContext::product(const std::string& family, const std::vector<int>& dims) const {
  std::vector<Expr> factors;
  for (int d : dims) factors.push_back(parameter(family, d));
  return Expr::product(factors);
}

KernelConfig config_from_values(const BoundMdh& bound, const ValueSource& values) {
  KernelConfig c = config_frame(bound);
  const auto& families = parameter_families();
  for (size_t f = 0; f < families.size(); ++f)
    for (int index : families[f].members(bound)) families[f].set(c, index, values.value({static_cast<int>(f), index}));
  return c;
}

}  // namespace mdh
