// The tunable kernel's parameters and constraints (see tuning_space.h), conversion to and from KernelConfig,
// counting and uniform sampling.
#include "codegen/tuning_space.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>

#include "codegen/tunable_geometry.h"
#include "mdh/error.h"

namespace mdh {

namespace {

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t factorial(int n) {
  int64_t f = 1;
  for (int k = 2; k <= n; ++k) f *= k;
  return f;
}

std::string permutation_label(const std::vector<int>& permutation, const std::vector<std::string>& names) {
  std::string s;
  for (size_t k = 0; k < permutation.size(); ++k) s += (k ? "," : "") + names.at(permutation[k]);
  return s;
}

int buffer_rank(const Mdh& mdh, int access) {
  return static_cast<int>(mdh.buffers.at(mdh.inputs.at(access).buffer).extents.size());
}

bool is_commutative(const CombineOp& op) { return op.kind != CombineOp::Kind::User; }

// Builds the parameter and constraint lists; `reads` are given by parameter name.
class SpaceBuilder {
 public:
  int interval(const std::string& name, const std::string& family, int64_t lo, int64_t hi, int group) {
    TuningParameter p;
    p.name = name;
    p.family = family;
    p.is_interval = true;
    p.interval_lo = lo;
    p.interval_hi = hi;
    p.group = group;
    return add(p);
  }
  int values(const std::string& name, const std::string& family, std::vector<int64_t> values,
             std::vector<std::string> labels, int group) {
    TuningParameter p;
    p.name = name;
    p.family = family;
    p.values = std::move(values);
    p.value_names = std::move(labels);
    p.group = group;
    return add(p);
  }
  void constraint(const std::string& description, std::vector<int> reads,
                  std::function<bool(const Assignment&)> holds) {
    space.constraints.push_back({description, std::move(reads), std::move(holds)});
  }
  int new_group() { return next_group_++; }
  TuningSpace space;

 private:
  int add(const TuningParameter& p) {
    space.parameters.push_back(p);
    return static_cast<int>(space.parameters.size()) - 1;
  }
  int next_group_ = 0;
};

// The parameter indices of one md_hom's space, by family.
struct ParameterIndex {
  std::vector<int> lt, pt, wi, wg;              // per dimension
  std::array<std::vector<int>, 2> ocl;         // ORDER_OCL_G/L per dimension
  std::array<int, kLayerCount> loop{};         // LOOP_ORDER per layer
  std::array<std::vector<int>, 2> inp;         // MEM_INP_L/P per access
  std::array<std::vector<int>, 2> buf_order;   // BUF_ORDER_L/P per access (-1: rank 1, not a parameter)
  int mem_res_p = -1, mem_res_l = -1, cmb_res = -1;
};

// Recomputes the parameter indices from the names (the space is data; after restrict_to the indices still hold).
ParameterIndex index_parameters(const Mdh& mdh, const TuningSpace& space) {
  auto at = [&](const std::string& name) {
    const int k = space.find(name);
    MDH_INTERNAL_ASSERT(k >= 0, "tuning parameter " + name + " missing");
    return k;
  };
  ParameterIndex x;
  for (const auto& d : mdh.dims) {
    x.lt.push_back(at("LT_SIZE_" + d.name));
    x.pt.push_back(at("PT_SIZE_" + d.name));
    x.wi.push_back(at("NUM_WI_" + d.name));
    x.wg.push_back(at("NUM_WG_" + d.name));
    x.ocl[0].push_back(at("ORDER_OCL_G_" + d.name));
    x.ocl[1].push_back(at("ORDER_OCL_L_" + d.name));
  }
  for (Layer l : {Layer::Global, Layer::Local, Layer::Private})
    x.loop[static_cast<int>(l)] = at(std::string("LOOP_ORDER_") + layer_name(l));
  for (int k = 0; k < 2; ++k) {
    const std::string ln = k == 0 ? "L" : "P";
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      const std::string an = input_access_name(mdh, static_cast<int>(a));
      x.inp[k].push_back(at("MEM_INP_" + ln + "_" + an));
      x.buf_order[k].push_back(buffer_rank(mdh, static_cast<int>(a)) > 1 ? at("BUF_ORDER_" + ln + "_" + an) : -1);
    }
  }
  x.mem_res_p = at("MEM_RES_P");
  x.mem_res_l = at("MEM_RES_L");
  x.cmb_res = at("CMB_RES");
  return x;
}

constexpr int64_t kMaxOpenClIndex = std::numeric_limits<int32_t>::max();  // the kernel's ids are `int`

}  // namespace

// ------------------------------------------------------------------------------------------- parameters

bool TuningParameter::contains(int64_t v) const {
  if (is_interval) return v >= interval_lo && v <= interval_hi;
  return std::find(values.begin(), values.end(), v) != values.end();
}

std::string TuningParameter::value_name(int64_t v) const {
  if (!is_interval)
    for (size_t k = 0; k < values.size() && k < value_names.size(); ++k)
      if (values[k] == v) return value_names[k];
  return std::to_string(v);
}

int TuningConstraint::last_read() const { return reads.empty() ? -1 : *std::max_element(reads.begin(), reads.end()); }

int TuningSpace::find(const std::string& name) const {
  for (size_t k = 0; k < parameters.size(); ++k)
    if (parameters[k].name == name) return static_cast<int>(k);
  return -1;
}

void TuningSpace::restrict_to(const std::string& name, const std::vector<int64_t>& values) {
  const int k = find(name);
  if (k < 0) throw UserError(SourceLoc{}, "tuning space: no parameter '" + name + "'");
  TuningParameter& p = parameters[k];
  std::vector<std::string> labels;
  for (int64_t v : values) {
    if (!p.contains(v)) throw UserError(SourceLoc{}, "tuning space: " + std::to_string(v) + " is not a value of " + name);
    labels.push_back(p.value_name(v));
  }
  p.is_interval = false;
  p.values = values;
  p.value_names = labels;
}

int64_t permutation_rank(const std::vector<int>& permutation) {
  const int n = static_cast<int>(permutation.size());
  int64_t rank = 0;
  for (int k = 0; k < n; ++k) {
    int smaller_later = 0;
    for (int m = k + 1; m < n; ++m) smaller_later += permutation[m] < permutation[k];
    rank += smaller_later * factorial(n - 1 - k);
  }
  return rank;
}

std::vector<int> permutation_from_rank(int64_t rank, int n) {
  std::vector<int> pool(n), out;
  for (int k = 0; k < n; ++k) pool[k] = k;
  for (int k = n; k >= 1; --k) {
    const int64_t f = factorial(k - 1);
    const int64_t pick = rank / f;
    rank %= f;
    out.push_back(pool.at(pick));
    pool.erase(pool.begin() + pick);
  }
  return out;
}

// ------------------------------------------------------------------------------------------- the space

TuningSpace make_tuning_space(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  const int dims = static_cast<int>(mdh.dims.size());
  const std::vector<int> reduction = mdh.reduction_dims();
  // Several reduction dimensions are combined in the order the tiles visit them, not in the reference's nesting
  // (the last dimension innermost); that is the same result only for one commutative operator shared by all.
  if (reduction.size() > 1) {
    for (int r : reduction)
      if (!is_commutative(mdh.dims[r].combine) || !(mdh.dims[r].combine == mdh.dims[reduction[0]].combine))
        throw UserError(mdh.dims[r].combine.loc,
                        "the tunable kernel combines several reduction dimensions only when they share one "
                        "built-in operator (+, *, max or min); dimension '" +
                            mdh.dims[r].name + "' differs");
  }
  for (int64_t e : bound.dim_extents)
    if (e > kMaxOpenClIndex) throw UserError(SourceLoc{}, "a dimension extent exceeds the tunable kernel's 32-bit indices");

  SpaceBuilder b;
  std::vector<std::string> dim_names;
  for (const auto& d : mdh.dims) dim_names.push_back(d.name);

  // 1. The four sizes of each dimension, constrained among themselves.
  ParameterIndex x;
  for (int d = 0; d < dims; ++d) {
    const std::string& n = mdh.dims[d].name;
    const int64_t extent = bound.dim_extents[d];
    const int group = b.new_group();
    const int lt = b.interval("LT_SIZE_" + n, "LT_SIZE", 1, extent, group);
    const int pt = b.interval("PT_SIZE_" + n, "PT_SIZE", 1, extent, group);
    b.constraint("PT_SIZE_" + n + " <= LT_SIZE_" + n, {lt, pt}, [=](const Assignment& a) { return a[pt] <= a[lt]; });
    const int wi = b.interval("NUM_WI_" + n, "NUM_WI", 1,
                              std::min<int64_t>(extent, static_cast<int64_t>(limits.max_work_group_size)), group);
    // A work-item beyond these would never own an element: allowed by the kernel, but pure waste.
    b.constraint("NUM_WI_" + n + " <= ceil(LT_SIZE_" + n + " / PT_SIZE_" + n + ")", {lt, pt, wi},
                 [=](const Assignment& a) { return a[wi] <= ceil_div(a[lt], a[pt]); });
    const int wg = b.interval("NUM_WG_" + n, "NUM_WG", 1, extent, group);
    b.constraint("NUM_WG_" + n + " <= ceil(" + std::to_string(extent) + " / LT_SIZE_" + n + ")", {lt, wg},
                 [=](const Assignment& a) { return a[wg] <= ceil_div(extent, a[lt]); });
    x.lt.push_back(lt);
    x.pt.push_back(pt);
    x.wi.push_back(wi);
    x.wg.push_back(wg);
  }
  std::vector<int> all_wi = x.wi;
  b.constraint("product of NUM_WI <= " + std::to_string(limits.max_work_group_size), all_wi,
               [=](const Assignment& a) {
                 uint64_t size = 1;
                 for (int k : all_wi) size *= static_cast<uint64_t>(a[k]);
                 return size <= limits.max_work_group_size;
               });

  // 2. ORDER_OCL: the OpenCL dimension of each md_hom dimension's work-group and work-item id.
  for (int k = 0; k < 2; ++k)
    for (int d = 0; d < dims; ++d)
      x.ocl[k].push_back(b.values(std::string("ORDER_OCL_") + (k == 0 ? "G_" : "L_") + mdh.dims[d].name, "ORDER_OCL",
                                  {0, 1, 2}, {"0", "1", "2"}, b.new_group()));
  {
    std::vector<int> reads = x.wi;
    for (int d = 0; d < dims; ++d) reads.insert(reads.end(), {x.wg[d], x.ocl[0][d], x.ocl[1][d]});
    b.constraint("NDRange fits the device (work-items per OpenCL dimension, 32-bit global ids)", reads,
                 [=](const Assignment& a) {
                   std::array<uint64_t, 3> groups{1, 1, 1}, local{1, 1, 1};
                   for (int d = 0; d < dims; ++d) {
                     groups[a[x.ocl[0][d]]] *= a[x.wg[d]];
                     local[a[x.ocl[1][d]]] *= a[x.wi[d]];
                   }
                   for (int o = 0; o < 3; ++o)
                     if (local[o] > limits.max_work_item_sizes[o] ||
                         groups[o] * local[o] > static_cast<uint64_t>(kMaxOpenClIndex))
                       return false;
                   return true;
                 });
  }

  // 3. LOOP_ORDER per layer: a permutation of the dimensions by lexicographic rank.
  std::vector<int64_t> ranks;
  std::vector<std::string> labels;
  for (int64_t r = 0; r < factorial(dims); ++r) {
    ranks.push_back(r);
    labels.push_back(permutation_label(permutation_from_rank(r, dims), dim_names));
  }
  for (Layer l : {Layer::Global, Layer::Local, Layer::Private})
    x.loop[static_cast<int>(l)] =
        b.values(std::string("LOOP_ORDER_") + layer_name(l), "LOOP_ORDER", ranks, labels, b.new_group());
  {
    // A work-group holds the partial results of one local tile of the `++` dimensions at a time.
    const int loop_g = x.loop[0];
    b.constraint("LOOP_ORDER_G iterates the `++` dimensions outside the reduction dimensions", {loop_g},
                 [=, ir = bound.mdh](const Assignment& a) {
                   bool reduction_seen = false;
                   for (int d : permutation_from_rank(a[loop_g], dims)) {
                     if (!ir->dims[d].combine.is_concat())
                       reduction_seen = true;
                     else if (reduction_seen)
                       return false;
                   }
                   return true;
                 });
  }

  // 4. MEM_INP and BUF_ORDER for the local and private layers; the global layer always reads through.
  const auto none = static_cast<int64_t>(Memory::None), priv = static_cast<int64_t>(Memory::Private),
             local = static_cast<int64_t>(Memory::Local), global = static_cast<int64_t>(Memory::Global);
  for (int k = 0; k < 2; ++k) {
    const std::string ln = k == 0 ? "L" : "P";
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      const std::string an = input_access_name(mdh, static_cast<int>(a));
      if (k == 0)
        x.inp[k].push_back(b.values("MEM_INP_L_" + an, "MEM_INP", {none, local}, {"none", "local"}, b.new_group()));
      else
        x.inp[k].push_back(
            b.values("MEM_INP_P_" + an, "MEM_INP", {none, priv, local}, {"none", "private", "local"}, b.new_group()));
    }
  }
  for (int k = 0; k < 2; ++k) {
    const std::string ln = k == 0 ? "L" : "P";
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      const int rank = buffer_rank(mdh, static_cast<int>(a));
      if (rank < 2) {
        x.buf_order[k].push_back(-1);
        continue;
      }
      const std::string an = input_access_name(mdh, static_cast<int>(a));
      std::vector<int64_t> orders;
      std::vector<std::string> order_labels;
      for (int64_t r = 0; r < factorial(rank); ++r) {
        orders.push_back(r);
        std::vector<std::string> positions;
        for (int m = 0; m < rank; ++m) positions.push_back(std::to_string(m));
        order_labels.push_back(permutation_label(permutation_from_rank(r, rank), positions));
      }
      const int order = b.values("BUF_ORDER_" + ln + "_" + an, "BUF_ORDER", orders, order_labels, b.new_group());
      x.buf_order[k].push_back(order);
      const int inp = x.inp[k][a];
      b.constraint("BUF_ORDER_" + ln + "_" + an + " = identity unless MEM_INP_" + ln + "_" + an + " caches",
                   {inp, order}, [=](const Assignment& v) { return v[inp] != none || v[order] == 0; });
    }
  }

  // 5. MEM_RES and CMB_RES. Work-items that share a reduction exchange partial results, so those must be in
  // local or global memory; without such sharing MEM_RES_L and CMB_RES have no effect and stay at their first value.
  std::vector<int> reduction_wi, reduction_reads;
  for (int r : reduction) reduction_wi.push_back(x.wi[r]);
  auto shares_reduction = [=](const Assignment& a) {
    for (int k : reduction_wi)
      if (a[k] > 1) return true;
    return false;
  };
  x.mem_res_p = b.values("MEM_RES_P", "MEM_RES", {priv, local, global}, {"private", "local", "global"}, b.new_group());
  x.mem_res_l = b.values("MEM_RES_L", "MEM_RES", {priv, local, global}, {"private", "local", "global"}, b.new_group());
  const auto kP = static_cast<int64_t>(Layer::Private), kL = static_cast<int64_t>(Layer::Local),
             kG = static_cast<int64_t>(Layer::Global);
  x.cmb_res = b.values("CMB_RES", "CMB_RES", {kP, kL, kG}, {"P", "L", "G"}, b.new_group());
  {
    const int mem_res_p = x.mem_res_p, mem_res_l = x.mem_res_l, cmb_res = x.cmb_res;
    auto with = [](std::vector<int> v, int k) {
      v.push_back(k);
      return v;
    };
    b.constraint("MEM_RES_P != private when work-items share a reduction dimension", with(reduction_wi, mem_res_p),
                 [=](const Assignment& a) { return !shares_reduction(a) || a[mem_res_p] != priv; });
    b.constraint("MEM_RES_L = private unless work-items share a reduction dimension", with(reduction_wi, mem_res_l),
                 [=](const Assignment& a) { return shares_reduction(a) || a[mem_res_l] == priv; });
    b.constraint("CMB_RES = P unless work-items share a reduction dimension", with(reduction_wi, cmb_res),
                 [=](const Assignment& a) { return shares_reduction(a) || a[cmb_res] == kP; });
    if (reduction.size() == 1 && !is_commutative(mdh.dims[reduction[0]].combine)) {
      // A user operator need not commute: work-item partials must cover consecutive index ranges in work-item
      // order when they are combined. In a step of the local layer they do; across steps only when a local tile
      // has a single step.
      const int r = reduction[0];
      const int wi = x.wi[r], pt = x.pt[r], lt = x.lt[r];
      const std::string n = mdh.dims[r].name;
      b.constraint("non-commutative " + n + ": NUM_WI_" + n + " = 1 or CMB_RES = P or (CMB_RES = L and NUM_WI_" + n +
                       " * PT_SIZE_" + n + " >= LT_SIZE_" + n + ")",
                   {lt, pt, wi, cmb_res}, [=](const Assignment& a) {
                     return a[wi] == 1 || a[cmb_res] == kP || (a[cmb_res] == kL && a[wi] * a[pt] >= a[lt]);
                   });
    }
    (void)kG;
  }

  // 6. Memory: local arrays within the device's local memory, private arrays within the private budget, scratch
  // buffers within the largest allocation. Reads every parameter that sizes an array.
  {
    std::vector<int> reads = x.lt;
    reads.insert(reads.end(), x.pt.begin(), x.pt.end());
    reads.insert(reads.end(), x.wi.begin(), x.wi.end());
    reads.insert(reads.end(), x.wg.begin(), x.wg.end());
    for (int k = 0; k < 2; ++k) reads.insert(reads.end(), x.inp[k].begin(), x.inp[k].end());
    reads.insert(reads.end(), {x.mem_res_p, x.mem_res_l});
    const std::string description = "local memory <= " + std::to_string(limits.local_mem_bytes) +
                                    " bytes, private arrays <= " + std::to_string(limits.private_mem_bytes) +
                                    " bytes, scratch buffers <= " + std::to_string(limits.max_alloc_bytes) + " bytes";
    b.constraint(description, reads, nullptr);  // bound below, once the parameter list is complete
  }
  TuningSpace result = b.space;
  // The memory constraint needs the whole space to rebuild a config; bind it to a copy of the parameter list.
  {
    auto parameters = std::make_shared<TuningSpace>(result);
    parameters->constraints.clear();
    auto shared_bound = std::make_shared<BoundMdh>(bound);
    result.constraints.back().holds = [parameters, shared_bound, limits](const Assignment& a) {
      const KernelConfig c = config_from_assignment(*shared_bound, *parameters, a);
      const TunableGeometry g = tunable_geometry(*shared_bound, c);
      return g.local_memory_bytes <= limits.local_mem_bytes && g.private_memory_bytes <= limits.private_mem_bytes &&
             g.partial_results_bytes <= limits.max_alloc_bytes &&
             g.global_private_results_bytes <= limits.max_alloc_bytes &&
             g.global_local_results_bytes <= limits.max_alloc_bytes;
    };
  }
  return result;
}

// ------------------------------------------------------------------------------------------- conversion

Assignment assignment_from_config(const BoundMdh& bound, const TuningSpace& space, const KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  const ParameterIndex x = index_parameters(mdh, space);
  Assignment a(space.parameters.size(), 0);
  for (size_t d = 0; d < mdh.dims.size(); ++d) {
    a[x.lt[d]] = c.local_tile_size[d];
    a[x.pt[d]] = c.private_tile_size[d];
    a[x.wi[d]] = c.num_wi[d];
    a[x.wg[d]] = c.num_wg[d];
    a[x.ocl[0][d]] = c.ocl_dim[0][d];
    a[x.ocl[1][d]] = c.ocl_dim[1][d];
  }
  for (int l = 0; l < kLayerCount; ++l) a[x.loop[l]] = permutation_rank(c.loop_order[l]);
  for (int k = 0; k < 2; ++k) {
    const int layer = k == 0 ? static_cast<int>(Layer::Local) : static_cast<int>(Layer::Private);
    for (size_t i = 0; i < mdh.inputs.size(); ++i) {
      a[x.inp[k][i]] = static_cast<int64_t>(c.input_memory[layer][i]);
      if (x.buf_order[k][i] >= 0) a[x.buf_order[k][i]] = permutation_rank(c.cache_dim_order[layer][i]);
    }
  }
  a[x.mem_res_p] = static_cast<int64_t>(c.result_memory[static_cast<int>(Layer::Private)]);
  a[x.mem_res_l] = static_cast<int64_t>(c.result_memory[static_cast<int>(Layer::Local)]);
  a[x.cmb_res] = static_cast<int64_t>(c.combine_layer);
  return a;
}

KernelConfig config_from_assignment(const BoundMdh& bound, const TuningSpace& space, const Assignment& a) {
  const Mdh& mdh = *bound.mdh;
  const ParameterIndex x = index_parameters(mdh, space);
  MDH_INTERNAL_ASSERT(a.size() == space.parameters.size(), "one value per tuning parameter");
  const int dims = static_cast<int>(mdh.dims.size());
  KernelConfig c;
  for (int d = 0; d < dims; ++d) {
    c.local_tile_size.push_back(a[x.lt[d]]);
    c.private_tile_size.push_back(a[x.pt[d]]);
    c.num_wi.push_back(a[x.wi[d]]);
    c.num_wg.push_back(a[x.wg[d]]);
    // Out-of-range values can only appear in partial assignments during enumeration; keep them harmless.
    c.ocl_dim[0].push_back(static_cast<int>(std::clamp<int64_t>(a[x.ocl[0][d]], 0, 2)));
    c.ocl_dim[1].push_back(static_cast<int>(std::clamp<int64_t>(a[x.ocl[1][d]], 0, 2)));
  }
  for (int l = 0; l < kLayerCount; ++l)
    c.loop_order[l] = permutation_from_rank(std::clamp<int64_t>(a[x.loop[l]], 0, factorial(dims) - 1), dims);
  for (int layer = 0; layer < kLayerCount; ++layer) {
    for (size_t i = 0; i < mdh.inputs.size(); ++i) {
      const int rank = buffer_rank(mdh, static_cast<int>(i));
      Memory m = Memory::None;
      int64_t order = 0;
      if (layer != static_cast<int>(Layer::Global)) {
        const int k = layer == static_cast<int>(Layer::Local) ? 0 : 1;
        m = static_cast<Memory>(std::clamp<int64_t>(a[x.inp[k][i]], 0, 3));
        if (x.buf_order[k][i] >= 0) order = std::clamp<int64_t>(a[x.buf_order[k][i]], 0, factorial(rank) - 1);
      }
      c.input_memory[layer].push_back(m);
      c.cache_dim_order[layer].push_back(permutation_from_rank(order, rank));
    }
  }
  c.result_memory[static_cast<int>(Layer::Global)] = Memory::Global;
  c.result_memory[static_cast<int>(Layer::Private)] = static_cast<Memory>(std::clamp<int64_t>(a[x.mem_res_p], 0, 3));
  c.result_memory[static_cast<int>(Layer::Local)] = static_cast<Memory>(std::clamp<int64_t>(a[x.mem_res_l], 0, 3));
  c.combine_layer = static_cast<Layer>(std::clamp<int64_t>(a[x.cmb_res], 0, 2));
  return c;
}

std::optional<std::string> first_violation(const TuningSpace& space, const Assignment& a) {
  MDH_INTERNAL_ASSERT(a.size() == space.parameters.size(), "one value per tuning parameter");
  for (size_t k = 0; k < a.size(); ++k) {
    const TuningParameter& p = space.parameters[k];
    if (!p.contains(a[k]))
      return p.name + " = " + std::to_string(a[k]) + " is outside its range" +
             (p.is_interval ? " [" + std::to_string(p.interval_lo) + ", " + std::to_string(p.interval_hi) + "]" : "");
  }
  for (const auto& c : space.constraints)
    if (!c.holds(a)) {
      std::string values;
      for (int r : c.reads) {
        if (!values.empty()) values += ", ";
        values += space.parameters[r].name + " = " + space.parameters[r].value_name(a[r]);
        if (values.size() > 200) {
          values += ", ...";
          break;
        }
      }
      return "violates " + c.description + " (" + values + ")";
    }
  return std::nullopt;
}

void check_config(const BoundMdh& bound, const KernelConfig& c, const DeviceLimits& limits) {
  check_config_shape(bound, c);
  const Mdh& mdh = *bound.mdh;
  const int g = static_cast<int>(Layer::Global);
  for (size_t a = 0; a < mdh.inputs.size(); ++a) {
    if (c.input_memory[g][a] != Memory::None)
      throw UserError(SourceLoc{}, "config: MEM_INP.G." + input_access_name(mdh, static_cast<int>(a)) +
                      ": the global layer reads inputs through (only \"none\" is supported)");
    for (size_t k = 0; k < c.cache_dim_order[g][a].size(); ++k)
      if (c.cache_dim_order[g][a][k] != static_cast<int>(k))
        throw UserError(SourceLoc{}, "config: BUF_ORDER.G." + input_access_name(mdh, static_cast<int>(a)) +
                        ": the global layer caches nothing, so its order must be the identity");
  }
  if (c.result_memory[g] != Memory::Global)
    throw UserError(SourceLoc{}, "config: MEM_RES.G: the results of the global layer are in global memory (only \"global\")");
  const TuningSpace space = make_tuning_space(bound, limits);
  if (auto why = first_violation(space, assignment_from_config(bound, space, c)))
    throw UserError(SourceLoc{}, "config: " + *why);
}

// ------------------------------------------------------------------------------------------- counting, sampling

namespace {

struct Groups {
  std::vector<std::vector<int>> parameters;          // per group, in order
  std::vector<std::vector<int>> intra_constraints;   // per group: constraints reading only that group
  std::vector<int> coupling_constraints;             // constraints reading several groups
  // Per parameter: constraints that can be checked once it is set (last read), for backtracking over everything.
  std::vector<std::vector<int>> checks_after;
};

Groups group_space(const TuningSpace& space) {
  Groups g;
  int groups = 0;
  for (const auto& p : space.parameters) groups = std::max(groups, p.group + 1);
  g.parameters.resize(groups);
  g.intra_constraints.resize(groups);
  for (size_t k = 0; k < space.parameters.size(); ++k) g.parameters[space.parameters[k].group].push_back(static_cast<int>(k));
  g.checks_after.resize(space.parameters.size());
  for (size_t c = 0; c < space.constraints.size(); ++c) {
    const auto& con = space.constraints[c];
    MDH_INTERNAL_ASSERT(!con.reads.empty(), "a constraint reads at least one parameter");
    g.checks_after[con.last_read()].push_back(static_cast<int>(c));
    const int group = space.parameters[con.reads[0]].group;
    bool intra = true;
    for (int r : con.reads) intra = intra && space.parameters[r].group == group;
    (intra ? g.intra_constraints[group] : g.coupling_constraints).push_back(static_cast<int>(c));
  }
  return g;
}

// Backtracking over `order` (parameter indices), checking each constraint of `allowed` after its last read
// parameter. Returns false when `visit` asked to stop or the step budget ran out.
class Enumerator {
 public:
  Enumerator(const TuningSpace& space, const std::vector<int>& order, const std::vector<bool>& allowed,
             int64_t budget)
      : space_(space), order_(order), budget_(budget), checks_(order.size()) {
    std::vector<int> position(space.parameters.size(), -1);
    for (size_t k = 0; k < order.size(); ++k) position[order[k]] = static_cast<int>(k);
    for (size_t c = 0; c < space.constraints.size(); ++c) {
      if (!allowed[c]) continue;
      int last = -1;
      for (int r : space.constraints[c].reads) last = std::max(last, position[r]);
      checks_[last].push_back(static_cast<int>(c));
    }
  }
  bool run(Assignment& a, const std::function<bool(const Assignment&)>& visit) { return step(0, a, visit); }
  bool budget_exhausted() const { return budget_ < 0; }

 private:
  bool step(size_t depth, Assignment& a, const std::function<bool(const Assignment&)>& visit) {
    if (depth == order_.size()) return visit(a);
    const TuningParameter& p = space_.parameters[order_[depth]];
    for (int64_t k = 0; k < p.range_size(); ++k) {
      if (--budget_ < 0) return false;
      a[order_[depth]] = p.value_at(k);
      bool ok = true;
      for (int c : checks_[depth])
        if (!space_.constraints[c].holds(a)) {
          ok = false;
          break;
        }
      if (ok && !step(depth + 1, a, visit)) return false;
    }
    a[order_[depth]] = p.value_at(0);
    return true;
  }
  const TuningSpace& space_;
  std::vector<int> order_;
  int64_t budget_;
  std::vector<std::vector<int>> checks_;
};

Assignment first_values(const TuningSpace& space) {
  Assignment a;
  for (const auto& p : space.parameters) a.push_back(p.value_at(0));
  return a;
}

// Uniform over the group's tuples that satisfy its own constraints: rejection from the product of its ranges,
// restarting at the first failed constraint. False when `attempts` ran out.
bool sample_group(const TuningSpace& space, const Groups& g, int group, Assignment& a, std::mt19937_64& rng,
                  int64_t attempts) {
  const auto& params = g.parameters[group];
  for (int64_t attempt = 0; attempt < attempts; ++attempt) {
    bool ok = true;
    for (int k : params) {
      const TuningParameter& p = space.parameters[k];
      std::uniform_int_distribution<int64_t> pick(0, p.range_size() - 1);
      a[k] = p.value_at(pick(rng));
      for (int c : g.intra_constraints[group])
        if (space.constraints[c].last_read() == k && !space.constraints[c].holds(a)) {
          ok = false;
          break;
        }
      if (!ok) break;
    }
    if (ok) return true;
  }
  return false;
}

bool coupling_holds(const TuningSpace& space, const Groups& g, const Assignment& a) {
  for (int c : g.coupling_constraints)
    if (!space.constraints[c].holds(a)) return false;
  return true;
}

}  // namespace

void for_each_valid_assignment(const TuningSpace& space, const std::function<void(const Assignment&)>& visit) {
  std::vector<int> order(space.parameters.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
  Enumerator e(space, order, std::vector<bool>(space.constraints.size(), true), std::numeric_limits<int64_t>::max());
  Assignment a = first_values(space);
  e.run(a, [&](const Assignment& v) {
    visit(v);
    return true;
  });
}

Assignment random_valid_assignment(const TuningSpace& space, std::mt19937_64& rng) {
  const Groups g = group_space(space);
  Assignment a = first_values(space);
  for (int attempt = 0; attempt < 1'000'000; ++attempt) {
    bool ok = true;
    for (size_t group = 0; group < g.parameters.size() && ok; ++group)
      ok = sample_group(space, g, static_cast<int>(group), a, rng, 100'000'000);
    if (!ok) break;
    if (coupling_holds(space, g, a)) return a;
  }
  throw UserError(SourceLoc{}, "tuning space: found no valid configuration (is the space empty?)");
}

SpaceSize count_valid_configurations(const TuningSpace& space, int64_t enumeration_budget, int samples,
                                     uint64_t seed) {
  const Groups g = group_space(space);
  SpaceSize size;
  // 1. Each group by itself: exact by enumeration within the budget, else by sampling its range product.
  double product = 1;
  bool groups_exact = true;
  std::mt19937_64 rng(seed);
  for (size_t group = 0; group < g.parameters.size(); ++group) {
    std::vector<bool> allowed(space.constraints.size(), false);
    for (int c : g.intra_constraints[group]) allowed[c] = true;
    Enumerator e(space, g.parameters[group], allowed, enumeration_budget);
    Assignment a = first_values(space);
    double count = 0;
    e.run(a, [&](const Assignment&) {
      ++count;
      return true;
    });
    if (e.budget_exhausted()) {
      groups_exact = false;
      double range = 1;
      for (int k : g.parameters[group]) range *= static_cast<double>(space.parameters[k].range_size());
      int hits = 0;
      const int draws = 200'000;
      for (int s = 0; s < draws; ++s) hits += sample_group(space, g, static_cast<int>(group), a, rng, 1);
      count = range * hits / draws;
    }
    product *= count;
  }
  // 2. Everything together: exact when the groups' product is small enough to enumerate, else estimated.
  if (groups_exact && product <= static_cast<double>(enumeration_budget)) {
    double count = 0;
    for_each_valid_assignment(space, [&](const Assignment&) { ++count; });
    return {count, true, "exact enumeration"};
  }
  Assignment a = first_values(space);
  int hits = 0, drawn = 0;
  const auto start = std::chrono::steady_clock::now();
  for (; drawn < samples; ++drawn) {
    // Keep `mdh space` responsive on huge spaces: the estimate only gets coarser.
    if (drawn >= 100 && std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) break;
    bool ok = true;
    for (size_t group = 0; group < g.parameters.size() && ok; ++group)
      ok = sample_group(space, g, static_cast<int>(group), a, rng, 100'000'000);
    hits += ok && coupling_holds(space, g, a);
  }
  size.count = product * hits / std::max(drawn, 1);
  size.exact = false;
  size.method = "estimate: " + std::string(groups_exact ? "exact" : "sampled") + " per-group counts x fraction of " +
                std::to_string(drawn) + " uniform draws satisfying the constraints across groups";
  return size;
}

}  // namespace mdh
