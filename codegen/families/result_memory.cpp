// MEM_RES and CMB_RES: where partial results live and when work-items combine them, and the memory limits.
#include <algorithm>
#include <limits>

#include "codegen/families/family_support.h"

namespace mdh::families {

namespace {

// Registers a work-item needs besides its private arrays (the register budget's estimate): ids, loop counters,
// addresses. A guess checked against one measurement only (docs/decisions.md).
constexpr uint64_t kRegisterOverhead = 32;

const std::vector<Memory> kResultMemory{Memory::Private, Memory::Local, Memory::Global};
const std::vector<Layer> kCombineLayers{Layer::Private, Layer::Local, Layer::Global};

}  // namespace

MDH_FAMILY_MODULE(result_memory, 50);

void add_result_memory(std::vector<ParameterFamily>& table) {
  for (Layer layer : {Layer::Private, Layer::Local}) {
    ParameterFamily f;
    const std::string ln = layer_name(layer);
    f.name = "MEM_RES_" + ln;
    f.sizes_arrays = true;
    f.kind = FamilyValueKind::enumeration;
    f.meaning = layer == Layer::Private ? "where each work-item's partial results live"
                                        : "where the partial results combined across work-items live";
    f.labels = memory_labels(kResultMemory);
    f.legacy_codes = memory_codes(kResultMemory);
    f.neutral = neutral_zero;
    const int l = static_cast<int>(layer);
    f.get = [l](const KernelConfig& c, int) { return label_index(kResultMemory, c.result_memory[l]); };
    f.set = [l](KernelConfig& c, int, int64_t v) { c.result_memory[l] = memory_at(kResultMemory, v); };
    f.family_constraints = [layer](const FamilyContext& x) {
      const bool has_reduction = !x.bound.mdh->reduction_dims().empty();
      if (layer == Layer::Private) return std::vector<Condition>{};
      if (!has_reduction) return std::vector<Condition>{x.is("MEM_RES_L", 0, "private")};
      return std::vector<Condition>{
          Condition::unless(x.is("MEM_RES_L", 0, "private"), reduction_sharing(x) >= Expr::constant(2))};
    };
    table.push_back(f);
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
    f.neutral = neutral_zero;
    f.get = [](const KernelConfig& c, int) {
      for (size_t k = 0; k < kCombineLayers.size(); ++k)
        if (kCombineLayers[k] == c.combine_layer) return static_cast<int64_t>(k);
      return int64_t{-1};
    };
    f.set = [](KernelConfig& c, int, int64_t v) {
      c.combine_layer = kCombineLayers.at(static_cast<size_t>(std::clamp<int64_t>(v, 0, 2)));
    };
    f.family_constraints = [](const FamilyContext& x) {
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
      // to memory and run many times slower (docs/decisions.md). Estimated before the
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
    table.push_back(f);
  }
}

}  // namespace mdh::families
