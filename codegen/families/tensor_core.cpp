// The tuning parameters of the tensor-core kernel (codegen/tensor_core.h, codegen/emitter/mma_kernel.cpp): a
// work-group computes a BLOCK_M x BLOCK_N tile of C in steps of BLOCK_K along the reduction, with WARPS_M x
// WARPS_N warps, each holding (BLOCK_M / WARPS_M) x (BLOCK_N / WARPS_N) results as m16n8k8 fragments. The values
// live in KernelConfig::family_values; the kernel reads them through KernelConfig::value.
#include <algorithm>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// The MMA fragment: 16 rows of A and C, 8 columns of B and C, 8 reduction steps (TF32 m16n8k8).
constexpr int64_t kFragmentRows = 16, kFragmentColumns = 8, kFragmentDepth = 8, kHalfFragmentDepth = 16;
constexpr int64_t kWarp = 32;
// A warp's accumulators and the registers of a prefetched tile, in 32-bit registers per work-item: within this, the
// 255 registers NVIDIA's compiler allows a work-item keep room for fragments and addresses.
constexpr int64_t kRegisterBudget = 160;
// A warp's fragments of C at most: 32 fragments are 128 accumulators per work-item, half the 255 registers of a GPU
// thread, the rest for the fragments of A and B, the prefetched tiles and addresses.
constexpr int64_t kMaxFragmentsPerWarp = 32;
// MMA_SPLIT_K's range: enough to fill 132 compute units from a single tile of C.
constexpr int64_t kMaxSplits = 128;
// The default splits the reduction only while each split keeps this many reduction tiles.
constexpr int64_t kMinimumTilesPerSplit = 4;
// MMA_STAGES's range: pairs of tiles in flight (cp.async pipelines of mma.sync GEMMs keep 2 to 4).
constexpr int64_t kMaxStages = 4;

ParameterFamily tensor_core_family(const std::string& name, const std::string& meaning) {
  ParameterFamily f;
  f.name = name;
  f.shape = KernelShape::tensor_core;
  f.meaning = meaning;
  f.sizes_arrays = true;
  return f;
}

std::function<std::optional<int64_t>(const BoundMdh&, int)> neutral(int64_t value) {
  return [value](const BoundMdh&, int) -> std::optional<int64_t> { return value; };
}

// A choice among named ways of doing one thing; the first is the neutral value.
ParameterFamily choice_family(const std::string& name, const std::string& meaning, std::vector<std::string> labels) {
  ParameterFamily f = tensor_core_family(name, meaning);
  f.kind = FamilyValueKind::enumeration;
  f.labels = std::move(labels);
  f.neutral = neutral(0);
  return f;
}

std::function<int64_t(const FamilyContext&, int)> at_most(int64_t value) {
  return [value](const FamilyContext&, int) { return value; };
}

Expr c(int64_t value) {
  return Expr::constant(value);
}

// Local memory of one tile, in floats: BLOCK_K rows of its free extent (K-major) or rows of BLOCK_K (free-major),
// each padded so that a warp's fragment loads reach 32 banks: K-major +8 for scalar loads and +4 for paired ones
// (a work-item then reads rows 2t and 2t + 1), free-major +4 and +8. The kernel's MMA_*_TILE_ROW say the same.
Expr tile_floats(const FamilyContext& x, bool k_major, const std::string& free_extent) {
  const Expr free = x.parameter(free_extent), depth = x.parameter("MMA_BLOCK_K");
  const Expr paired = x.parameter("MMA_FRAGMENT_LOADS");
  return k_major ? depth * (free + c(8) + c(-4) * paired) : free * (depth + c(4) + c(4) * paired);
}

// A block size: powers of two from one fragment up to `most`, a multiple of the fragment times the warps along it
// (`warps`: the family of those warps; "" where no warps share the dimension).
ParameterFamily block_family(const std::string& name, const std::string& meaning, int64_t fragment, int64_t most,
                             const std::string& warps) {
  ParameterFamily f = tensor_core_family(name, meaning);
  f.min_value = fragment;
  f.max_value = at_most(most);
  f.lattice = powers_of_two;
  f.neutral = neutral(fragment);
  f.member_constraints = [name, fragment, warps](const FamilyContext& x, int) {
    const Expr step = warps.empty() ? c(fragment) : c(fragment) * x.parameter(warps);
    return std::vector<Condition>{Condition::multiple_of(x.parameter(name), step)};
  };
  return f;
}

}  // namespace

MDH_FAMILY_MODULE(tensor_core, 160);

void add_tensor_core(std::vector<ParameterFamily>& table) {
  table.push_back(block_family("MMA_BLOCK_M", "rows of C (the flattened M dimensions) per work-group", kFragmentRows,
                               256, "MMA_WARPS_M"));
  table.push_back(block_family("MMA_BLOCK_N", "columns of C (the flattened N dimensions) per work-group",
                               kFragmentColumns, 256, "MMA_WARPS_N"));
  ParameterFamily depth =
      block_family("MMA_BLOCK_K", "reduction steps (the flattened K dimensions) per tile", kFragmentDepth, 64, "");
  // Half and bfloat16 inputs multiply as m16n8k16 fragments: 16 reduction steps each.
  depth.member_constraints = [steps = depth.member_constraints](const FamilyContext& x, int member) {
    std::vector<Condition> out = steps(x, member);
    if (!tensor_core_roles(x.bound)->stored_as_computed)
      out.push_back(Condition::multiple_of(x.parameter("MMA_BLOCK_K"), c(kHalfFragmentDepth)));
    return out;
  };
  table.push_back(depth);

  ParameterFamily wm = tensor_core_family("MMA_WARPS_M", "warps of a work-group along M");
  wm.max_value = at_most(8);
  wm.lattice = powers_of_two;
  wm.neutral = neutral(1);
  table.push_back(wm);

  ParameterFamily wn = tensor_core_family("MMA_WARPS_N", "warps of a work-group along N");
  wn.max_value = at_most(8);
  wn.lattice = powers_of_two;
  wn.neutral = neutral(1);
  // The work-group, its local memory and its registers (the last a lattice constraint: beyond it the compiler
  // spills, which is valid and slow).
  wn.family_constraints = [](const FamilyContext& x) {
    const Expr warps = x.parameter("MMA_WARPS_M") * x.parameter("MMA_WARPS_N");
    const auto roles = tensor_core_roles(x.bound);
    const Expr floats =
        tile_floats(x, roles->a_k_major, "MMA_BLOCK_M") + tile_floats(x, roles->b_k_major, "MMA_BLOCK_N");
    // Two pairs of tiles with MMA_PREFETCH local (2): 1 + (P - ceil(P / 2)) pairs; MMA_STAGES S > 1 (with
    // MMA_PREFETCH off) S pairs.
    const Expr prefetch = x.parameter("MMA_PREFETCH");
    const Expr pairs = prefetch + c(-1) * ceil_div(prefetch, c(2)) + x.parameter("MMA_STAGES");
    // MMA_EPILOGUE staged: 16 rows of each warp's columns plus 8, i.e. 16 * WARPS_M * BLOCK_N + 128 * warps floats,
    // in the tiles' local memory once the products are done (the larger of the two is what the kernel takes).
    const Expr staging = x.parameter("MMA_EPILOGUE") *
                         (c(16) * x.parameter("MMA_WARPS_M") * x.parameter("MMA_BLOCK_N") + c(128) * warps);
    const Expr local_bytes = Expr::named_constant(static_cast<int64_t>(x.limits.local_mem_bytes), "local memory bytes");
    return std::vector<Condition>{
        c(kWarp) * warps <=
            Expr::named_constant(static_cast<int64_t>(x.limits.max_work_group_size), "max work-group size"),
        c(4) * floats * pairs <= local_bytes, c(4) * staging <= local_bytes,
        // A work-item's accumulators (4 per fragment) within half a GPU thread's registers: more spill, and the
        // fully unrolled fragment loops would only multiply the code.
        x.parameter("MMA_BLOCK_M") * x.parameter("MMA_BLOCK_N") <=
            c(kFragmentRows * kFragmentColumns * kMaxFragmentsPerWarp) * warps};
  };
  wn.lattice_constraints = [](const FamilyContext& x) {
    const Expr bm = x.parameter("MMA_BLOCK_M"), bn = x.parameter("MMA_BLOCK_N"), bk = x.parameter("MMA_BLOCK_K");
    const Expr work_items = c(kWarp) * x.parameter("MMA_WARPS_M") * x.parameter("MMA_WARPS_N");
    return std::vector<Condition>{bm * bn + ceil_div(x.parameter("MMA_PREFETCH"), c(2)) * (bm + bn) * bk <=
                                  c(kRegisterBudget) * work_items};
  };
  table.push_back(wn);

  table.push_back(
      choice_family("MMA_PREFETCH",
                    "whether the next tiles of A and B are loaded into registers while the current ones are "
                    "computed (on), and also stored into a second pair of local tiles (local: one barrier per "
                    "tile instead of two)",
                    {"off", "on", "local"}));

  ParameterFamily stages = tensor_core_family(
      "MMA_STAGES",
      "pairs of local tiles in flight: beyond 1, the tiles of A and B are copied asynchronously (cp.async under "
      "NVIDIA's driver) this many reduction tiles ahead of the products, without passing through registers");
  stages.min_value = 1;
  // Asynchronous copies move the inputs' bytes as they are: only float inputs, whose local tiles hold them as stored.
  stages.max_value = [](const FamilyContext& x, int) {
    return tensor_core_roles(x.bound)->stored_as_computed ? kMaxStages : int64_t{1};
  };
  stages.neutral = neutral(1);
  // The ring of tile pairs replaces MMA_PREFETCH's registers and second pair.
  stages.member_constraints = [](const FamilyContext& x, int) {
    return std::vector<Condition>{x.parameter("MMA_STAGES") == c(1) || x.parameter("MMA_PREFETCH") == c(0)};
  };
  table.push_back(stages);

  ParameterFamily fragment_loads = choice_family(
      "MMA_FRAGMENT_LOADS",
      "how work-items read their fragments from the local tiles: a float at a time (scalar), or two reduction steps "
      "at once where a tile's rows run along the reduction (paired; the steps of every fragment are permuted alike "
      "in A and B so that a work-item's two steps are neighbours)",
      {"scalar", "paired"});
  // m16n8k16 fragments (half and bfloat16 inputs) read their steps 2t, 2t + 1, 2t + 8, 2t + 9 one at a time.
  fragment_loads.member_constraints = [](const FamilyContext& x, int) {
    std::vector<Condition> out;
    if (!tensor_core_roles(x.bound)->stored_as_computed) out.push_back(x.is("MMA_FRAGMENT_LOADS", 0, "scalar"));
    return out;
  };
  table.push_back(fragment_loads);

  table.push_back(choice_family(
      "MMA_EPILOGUE",
      "how the results reach C: each work-item stores its fragments' elements (direct), or each warp passes 16 rows "
      "at a time through local memory so that neighbouring work-items store neighbouring columns (staged)",
      {"direct", "staged"}));

  ParameterFamily vector = tensor_core_family(
      "MMA_VECTOR", "floats each load of the input's tiles moves (a vector along its unit stride where aligned)");
  vector.scope = FamilyScope::input_access;
  vector.max_value = [](const FamilyContext& x, int access) {
    const TensorCoreRoles roles = *tensor_core_roles(x.bound);
    return access == 0 ? roles.a_vector : roles.b_vector;
  };
  vector.lattice = powers_of_two;
  vector.neutral = neutral(1);
  // A width of 1, 2 or 4 (float3 is laid out as four floats).
  vector.member_constraints = [](const FamilyContext& x, int access) {
    const Expr width = x.parameter("MMA_VECTOR", access);
    return std::vector<Condition>{ceil_div(c(4), width) * width == c(4)};
  };
  table.push_back(vector);

  ParameterFamily split = tensor_core_family(
      "MMA_SPLIT_K",
      "work-groups sharing each tile of C along the reduction, each taking a range of its tiles; a second kernel "
      "adds their partial results (where C has too few tiles to occupy the device)");
  split.max_value = [](const FamilyContext& x, int) {
    return std::min<int64_t>(kMaxSplits, ceil_div(tensor_core_roles(x.bound)->k_extent, kFragmentDepth));
  };
  split.lattice = powers_of_two;
  split.neutral = neutral(1);
  table.push_back(split);

  ParameterFamily swizzle = tensor_core_family(
      "MMA_SWIZZLE",
      "work-groups take the tiles of C this many rows of tiles at a time, so those running together share A's and "
      "B's tiles in the L2 cache");
  swizzle.max_value = at_most(16);
  swizzle.lattice = powers_of_two;
  swizzle.neutral = neutral(1);
  table.push_back(swizzle);
}

}  // namespace mdh::families

namespace mdh {

KernelConfig tensor_core_default(const BoundMdh& bound, const DeviceLimits& limits) {
  const TensorCoreRoles roles = *tensor_core_roles(bound);
  KernelConfig c = config_frame(bound);
  // 8 warps in 2 x 4, each with 4 x 4 fragments (64 x 32 results): the register tile of a fast mma.sync GEMM. Blocks
  // shrink (to 32) where a dimension is shorter, then while the work-groups leave compute units idle.
  int64_t bm = 128, bn = 128;
  const int64_t depth = 32;
  while (bm > 32 && bm / 2 >= roles.m_extent) bm /= 2;
  while (bn > 32 && bn / 2 >= roles.n_extent) bn /= 2;
  const auto tiles = [&] {
    return families::ceil_div(roles.m_extent, bm) * families::ceil_div(roles.n_extent, bn) * roles.batch_extent;
  };
  while (tiles() < static_cast<int64_t>(limits.compute_units) && (bm > 32 || bn > 32)) (bm >= bn ? bm : bn) /= 2;
  const int64_t warps = static_cast<int64_t>(std::min<uint64_t>(8, limits.max_work_group_size / 32));
  const int64_t warps_m = std::min<int64_t>(2, bm / 16);
  const int64_t warps_n = std::max<int64_t>(1, std::min<int64_t>(warps / warps_m, bn / 8));
  c.family_values[{"MMA_BLOCK_M", 0}] = bm;
  c.family_values[{"MMA_BLOCK_N", 0}] = bn;
  c.family_values[{"MMA_BLOCK_K", 0}] = depth;
  c.family_values[{"MMA_WARPS_M", 0}] = warps_m;
  c.family_values[{"MMA_WARPS_N", 0}] = warps_n;
  c.family_values[{"MMA_PREFETCH", 0}] = 1;
  c.family_values[{"MMA_STAGES", 0}] = 1;
  c.family_values[{"MMA_FRAGMENT_LOADS", 0}] = 0;
  // Where C is the larger traffic (contractions whose output outweighs their inputs), its stores are staged through
  // local memory (the tiles' own) so that a warp stores neighbouring columns.
  const auto elements = [&](int buffer) {
    int64_t n = 1;
    for (int64_t e : bound.buffer_extents[buffer]) n *= e;
    return n;
  };
  const bool output_bound =
      elements(bound.output.buffer) > elements(bound.inputs[roles.a].buffer) + elements(bound.inputs[roles.b].buffer);
  const int64_t staging_floats = 16 * warps_m * bn + 128 * warps_m * warps_n;
  c.family_values[{"MMA_EPILOGUE", 0}] =
      output_bound && 4 * staging_floats <= static_cast<int64_t>(limits.local_mem_bytes) ? 1 : 0;
  c.family_values[{"MMA_SWIZZLE", 0}] = 8;
  // Where C's tiles leave compute units idle, the reduction is split until they fill about two waves.
  int64_t splits = 1;
  const int64_t k_tiles = families::ceil_div(roles.k_extent, depth);
  while (tiles() * splits * 2 <= 2 * static_cast<int64_t>(limits.compute_units) &&
         k_tiles / (splits * 2) >= families::kMinimumTilesPerSplit && splits * 2 <= families::kMaxSplits)
    splits *= 2;
  c.family_values[{"MMA_SPLIT_K", 0}] = splits;
  c.family_values[{"MMA_VECTOR", 0}] = roles.a_vector;
  c.family_values[{"MMA_VECTOR", 1}] = roles.b_vector;
  return c;
}

}  // namespace mdh
