// JSON form, shape checks and the default of the tunable kernel's configuration.
#include "codegen/kernel_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "codegen/inline_math.h"
#include "codegen/parameter_families.h"
#include "codegen/permutation.h"
#include "codegen/tunable_geometry.h"
#include "codegen/tuning_space.h"
#include "support/error.h"
#include "support/json_integer.h"

namespace mdh {

namespace {

using json = nlohmann::json;

// The families of the version-1 (nested) form: per dimension {"i": v}, per layer {"G": ..., "L": ..., "P": ...}.
constexpr const char* kNestedPerDimension[] = {"NUM_WG", "NUM_WI", "LT_SIZE", "PT_SIZE"};
constexpr const char* kNestedOther[] = {"MEM_INP", "MEM_RES", "ORDER_OCL", "BUF_ORDER", "LOOP_ORDER", "CMB_RES"};
constexpr const char* kVersionKey = "mdh_config";

constexpr Layer kLayers[] = {Layer::Global, Layer::Local, Layer::Private};
constexpr Layer kOclLayers[] = {Layer::Global, Layer::Local};

[[noreturn]] void config_error(const std::string& message) {
  throw UserError(SourceLoc{}, "config: " + message);
}

std::vector<std::string> dim_names(const Mdh& mdh) {
  std::vector<std::string> names;
  for (const auto& d : mdh.dims) names.push_back(d.name);
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string s;
  for (size_t k = 0; k < names.size(); ++k) s += (k ? ", " : "") + names[k];
  return s;
}

int buffer_rank(const Mdh& mdh, int access) {
  return static_cast<int>(mdh.buffers.at(mdh.inputs.at(access).buffer).extents.size());
}

std::vector<std::string> access_names(const Mdh& mdh) {
  std::vector<std::string> names;
  for (int a = 0; a < static_cast<int>(mdh.inputs.size()); ++a) names.push_back(input_access_name(mdh, a));
  return names;
}

// The parameters of an md_hom for reading and writing configs: the device's limits bound only the values, not the
// names and encodings, so any limits do.
TuningSpace config_parameters(const BoundMdh& bound) {
  DeviceLimits unbounded;
  unbounded.max_work_group_size = UINT32_MAX;
  return make_tuning_space(bound, unbounded);
}

// Every key of `object` must be one of `allowed`.
void reject_unknown_keys(const json& object, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      config_error(where + ": unknown key '" + it.key() + "' (expected " + joined(allowed) + ")");
}

bool is_nested_form(const json& j) {
  for (const char* family : kNestedPerDimension)
    if (j.contains(family)) return true;
  for (const char* family : kNestedOther)
    if (j.contains(family) && std::string(family) != "CMB_RES") return true;
  return false;
}

// Version 1 -> the flat form. The global layer's entries are not parameters: they must hold the only values the
// kernel supports, as they always had to.
json flatten_nested_form(const Mdh& mdh, const json& j) {
  std::vector<std::string> families(std::begin(kNestedPerDimension), std::end(kNestedPerDimension));
  families.insert(families.end(), std::begin(kNestedOther), std::end(kNestedOther));
  reject_unknown_keys(j, families, "top level");
  const auto dims = dim_names(mdh);
  const auto accesses = access_names(mdh);
  json flat = json::object();
  auto per_dimension = [&](const std::string& family, const json& object, const std::string& prefix) {
    if (!object.is_object())
      config_error(family + ": expected an object with one entry per dimension (" + joined(dims) + ")");
    reject_unknown_keys(object, dims, family);
    for (const auto& [key, value] : object.items()) flat[prefix + "_" + key] = value;
  };
  for (const char* family : kNestedPerDimension)
    if (j.contains(family)) per_dimension(family, j[family], family);
  if (j.contains("ORDER_OCL")) {
    const json& order = j["ORDER_OCL"];
    if (order.is_object()) reject_unknown_keys(order, {"G", "L"}, "ORDER_OCL");
    for (Layer l : kOclLayers) {
      const std::string ln = layer_name(l);
      if (order.contains(ln)) per_dimension("ORDER_OCL." + ln, order[ln], "ORDER_OCL_" + ln);
    }
  }
  for (const char* family : {"MEM_INP", "BUF_ORDER", "LOOP_ORDER", "MEM_RES"}) {
    if (!j.contains(family)) continue;
    const json& layers = j[family];
    if (!layers.is_object()) config_error(std::string(family) + ": expected an object with entries G, L, P");
    reject_unknown_keys(layers, {"G", "L", "P"}, family);
    for (Layer l : kLayers) {
      const std::string ln = layer_name(l), where = std::string(family) + "." + ln;
      if (!layers.contains(ln)) continue;
      const json& value = layers[ln];
      if (std::string(family) == "LOOP_ORDER") {
        flat["LOOP_ORDER_" + ln] = value;
        continue;
      }
      if (std::string(family) == "MEM_RES") {
        if (l != Layer::Global)
          flat["MEM_RES_" + ln] = value;
        else if (value != "global")
          config_error("MEM_RES.G: the results of the global layer are in global memory (only \"global\")");
        continue;
      }
      if (!value.is_object())
        config_error(where + ": expected an object with one entry per input access (" + joined(accesses) + ")");
      reject_unknown_keys(value, accesses, where);
      for (size_t a = 0; a < accesses.size(); ++a) {
        if (!value.contains(accesses[a])) continue;
        const json& v = value[accesses[a]];
        const std::string at = where + "." + accesses[a];
        if (std::string(family) == "MEM_INP") {
          if (l == Layer::Global) {
            if (v != "none") config_error(at + ": the global layer reads inputs through (only \"none\" is supported)");
            continue;
          }
          flat["MEM_INP_" + ln + "_" + accesses[a]] = v;
        } else {
          const int rank = buffer_rank(mdh, static_cast<int>(a));
          json identity = json::array();
          for (int k = 0; k < rank; ++k) identity.push_back(k);
          if (l == Layer::Global || rank < 2) {
            if (v != identity)
              config_error(at + (l == Layer::Global
                                     ? ": the global layer caches nothing, so its order must be the identity"
                                     : ": a buffer of rank 1 has only the order [0]"));
            continue;
          }
          flat["BUF_ORDER_" + ln + "_" + accesses[a]] = v;
        }
      }
    }
  }
  if (j.contains("CMB_RES")) flat["CMB_RES"] = j["CMB_RES"];
  return flat;
}

}  // namespace

const char* layer_name(Layer layer) {
  switch (layer) {
    case Layer::Global:
      return "G";
    case Layer::Local:
      return "L";
    case Layer::Private:
      return "P";
  }
  return "?";
}

const char* memory_name(Memory memory) {
  switch (memory) {
    case Memory::None:
      return "none";
    case Memory::Private:
      return "private";
    case Memory::Local:
      return "local";
    case Memory::Global:
      return "global";
  }
  return "?";
}

bool work_group_combine_atomic_applies(const Mdh& mdh) {
  const std::vector<int> reductions = mdh.reduction_dims();
  if (reductions.empty() || mdh.result_type().is_struct()) return false;
  for (int d : reductions)
    if (mdh.dims[d].combine.kind != CombineOp::Kind::Add) return false;
  const ScalarType t = mdh.result_type().scalar;
  return t == ScalarType::Float || t == ScalarType::Int || t == ScalarType::Uint;
}

std::string input_access_name(const Mdh& mdh, int access) {
  const int buffer = mdh.inputs.at(access).buffer;
  int readers = 0;
  for (const auto& in : mdh.inputs) readers += in.buffer == buffer;
  const std::string& name = mdh.buffers.at(buffer).name;
  if (readers == 1) return name;
  return name + "@" + mdh.scalar.arg_names.at(access);
}

void check_config_shape(const BoundMdh& bound, const KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  const size_t dims = mdh.dims.size();
  const size_t accesses = mdh.inputs.size();
  const std::pair<const char*, const std::vector<int64_t>*> sizes[] = {
      {"NUM_WG", &c.num_wg}, {"NUM_WI", &c.num_wi}, {"LT_SIZE", &c.local_tile_size}, {"PT_SIZE", &c.private_tile_size}};
  for (const auto& [family, values] : sizes) {
    if (values->size() != dims)
      config_error(std::string(family) + ": expected " + std::to_string(dims) + " values (one per dimension), got " +
                   std::to_string(values->size()));
    for (size_t d = 0; d < dims; ++d)
      if ((*values)[d] < 1)
        config_error(std::string(family) + "_" + mdh.dims[d].name + ": must be at least 1, got " +
                     std::to_string((*values)[d]));
  }
  for (Layer l : kLayers) {
    const int li = static_cast<int>(l);
    const std::string ln = layer_name(l);
    if (c.input_memory[li].size() != accesses) config_error("MEM_INP_" + ln + ": expected one entry per input access");
    if (c.cache_dim_order[li].size() != accesses)
      config_error("BUF_ORDER_" + ln + ": expected one entry per input access");
    for (size_t a = 0; a < accesses; ++a)
      if (!is_permutation_of_iota(c.cache_dim_order[li][a], buffer_rank(mdh, static_cast<int>(a))))
        config_error("BUF_ORDER_" + ln + "_" + input_access_name(mdh, static_cast<int>(a)) +
                     ": not a permutation of the buffer's dimensions 0.." +
                     std::to_string(buffer_rank(mdh, static_cast<int>(a)) - 1));
    if (!is_permutation_of_iota(c.loop_order[li], static_cast<int>(dims)))
      config_error("LOOP_ORDER_" + ln + ": not a permutation of the dimensions (" + joined(dim_names(mdh)) + ")");
  }
  for (Layer l : kOclLayers) {
    const auto& map = c.ocl_dim[static_cast<int>(l)];
    if (map.size() != dims)
      config_error(std::string("ORDER_OCL_") + layer_name(l) + ": expected one entry per dimension");
    for (size_t d = 0; d < dims; ++d)
      if (map[d] < 0 || map[d] > 2)
        config_error(std::string("ORDER_OCL_") + layer_name(l) + "_" + mdh.dims[d].name +
                     ": OpenCL dimension must be 0, 1 or 2, got " + std::to_string(map[d]));
  }
}

KernelConfig config_frame(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  const size_t dims = mdh.dims.size();
  KernelConfig c;
  c.num_wg.assign(dims, 1);
  c.num_wi.assign(dims, 1);
  c.local_tile_size.assign(dims, 1);
  c.private_tile_size.assign(dims, 1);
  for (int l = 0; l < 2; ++l) c.ocl_dim[l].assign(dims, 0);
  for (int l = 0; l < kLayerCount; ++l) {
    c.input_memory[l].assign(mdh.inputs.size(), Memory::None);
    c.cache_dim_order[l].clear();
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      std::vector<int> identity(buffer_rank(mdh, static_cast<int>(a)));
      for (size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<int>(k);
      c.cache_dim_order[l].push_back(identity);
    }
    c.loop_order[l].clear();
    for (size_t d = 0; d < dims; ++d) c.loop_order[l].push_back(static_cast<int>(d));
  }
  c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
  c.combine_layer = Layer::Private;
  // Every family's neutral value (the first value where it has none): a family added later needs no code here.
  for (const ParameterFamily& family : parameter_families())
    for (int index : family.members(bound))
      family.set(c, index,
                 family.neutral(bound, index).value_or(family.kind == FamilyValueKind::integer ? family.min_value : 0));
  return c;
}

nlohmann::json config_to_json(const BoundMdh& bound, const KernelConfig& c) {
  check_config_shape(bound, c);
  const TuningSpace space = config_parameters(bound);
  json j = json::object();
  j[kVersionKey] = kConfigFormatVersion;
  for (const TuningParameter& p : space.parameters) {
    const int64_t value = p.family->get(c, p.ref.index);
    // An integer out of its range is written as it is (the reader names the problem); an enumeration or permutation
    // value outside the kernel's choices (MEM_INP_L = private) has no name to write.
    if (p.kind() != FamilyValueKind::integer && (value < p.lo || value > p.hi))
      config_error(p.name + ": the kernel does not support this value");
    j[p.name] = p.value_to_json(value);
  }
  return j;
}

KernelConfig config_from_json(const BoundMdh& bound, const nlohmann::json& input) {
  const Mdh& mdh = *bound.mdh;
  if (!input.is_object()) config_error("expected a JSON object with one entry per tuning parameter");
  json j = input;
  if (j.contains(kVersionKey)) {
    const json& version = j[kVersionKey];
    if (!json_int64(version) || *json_int64(version) < 1)
      config_error(std::string(kVersionKey) + ": expected a format version number, got " + version.dump());
    if (*json_int64(version) > kConfigFormatVersion)
      config_error("written in format version " + version.dump() + ", newer than this mdh reads (" +
                   std::to_string(kConfigFormatVersion) + ")");
    j.erase(kVersionKey);
  }
  if (is_nested_form(j)) j = flatten_nested_form(mdh, j);
  const TuningSpace space = config_parameters(bound);
  std::vector<std::string> names;
  for (const TuningParameter& p : space.parameters) names.push_back(p.name);
  for (const auto& [key, value] : j.items())
    if (space.find(key) < 0) config_error("unknown parameter '" + key + "' (mdh space lists the parameters)");
  Assignment values;
  for (const TuningParameter& p : space.parameters) {
    auto it = j.find(p.name);
    if (it != j.end()) {
      values.push_back(p.value_from_json(*it));
    } else if (p.neutral) {
      values.push_back(*p.neutral);
    } else {
      config_error("missing '" + p.name + "'");
    }
    // Ranges here do not depend on the device (the largest work-group is the tuning space's to check), so a value
    // outside them is malformed on every device.
    if (values.back() < p.lo || values.back() > p.hi)
      config_error(p.name + ": " + std::to_string(values.back()) + " is outside its range [" + std::to_string(p.lo) +
                   ", " + std::to_string(p.hi) + "]");
  }
  KernelConfig c = config_from_assignment(bound, space, values);
  check_config_shape(bound, c);
  return c;
}

namespace {
constexpr int64_t kLongReduction = 65536;  // longer reduction dimensions are split over work-groups by default
constexpr int64_t kReductionChunk = 4096;  // elements per work-group of such a split
// A reduction dimension along which most input bytes are read contiguously is shared by this many work-items, when
// it is at least kSharedReductionMinimum long: consecutive work-items then read consecutive elements (coalesced on
// GPUs, one vector on CPUs) instead of one work-item streaming a row alone.
constexpr int64_t kSharedReductionWorkItems = 256;
constexpr int64_t kSharedReductionMinimum = 1024;
constexpr int64_t kSharedReductionSteps = 64;  // private steps per work-item before a long reduction is split
// On a CPU through PoCL: kCpuReductionWorkItems work-items, each owning blocks of kCpuReductionElements consecutive
// elements, its private caches moved in vectors of kCpuReductionVectorWidth. DOT 2^24 on the 16-core Xeon (PoCL
// 5.0; results/pocl-cpu-intel-xeon-16c/session19/, medians of 20 runs, two rounds): 2.64 ms with the layout of GPUs
// and as many work-items as a vector has lanes (16, one element each); 0.80-0.96 with 2 work-items of 32 (or 16 or
// 64) in float4, 1,024 to 32,768 work-groups; 1.05-1.10 with one work-item; 1.10 with float8, 1.08 with scalar
// copies; OpenBLAS 13.3. (On the 2-core VM's PoCL 3.1 the 16 lanes were faster: 4.1 against 6.2 ms.)
constexpr int64_t kCpuReductionWorkItems = 2;
constexpr int64_t kCpuReductionElements = 32;
constexpr int64_t kCpuReductionVectorWidth = 4;
constexpr int64_t kRowsPerWorkGroup = 4;  // `++` elements per work-group (register tile) on that path
// Stencils (an input read through a window, only `++` dimensions): kStencilRowWorkItems work-items along the
// innermost dimension (a warp: whole rows of the window are read together) and kStencilColumnWorkItems along the
// next, each owning kStencilColumnElements consecutive elements of that one, which share all but one of their
// window's rows. On the H200, Gaussian 4096^2 ran 0.0533 ms so against 0.0839 with 16x16 work-items of 2x2
// elements (results/nvidia-h200/session11/README.md).
constexpr int64_t kStencilRowWorkItems = 32;
constexpr int64_t kStencilColumnWorkItems = 8;
constexpr int64_t kStencilColumnElements = 8;
// Stencils over three or more `++` dimensions, on GPUs: kVolumeStencilRowWorkItems work-items along the innermost
// dimension (two warps: long rows of every window plane are read together), kVolumeStencilColumnWorkItems along the
// next, each owning kVolumeStencilRowElements consecutive elements of the innermost (stored as one vector) and of the
// next, and kVolumeStencilOuterElements of each outer one, whose neighbours share all but one of their window's
// planes. On the H200, Jacobi 3D 512^3 ran 0.3255-0.3270 ms so, against 0.3562 with the 16x16 work-items of 2x2x2
// elements of other md_homs (0.3407-0.3415 with their stores in vectors too), 0.3309-0.3386 with 16-128 work-items
// along k and 2 along i; the best configuration known runs 0.2818 (results/nvidia-h200/session29/, call 1).
constexpr int64_t kVolumeStencilRowWorkItems = 64;
constexpr int64_t kVolumeStencilColumnWorkItems = 4;
constexpr int64_t kVolumeStencilRowElements = 2;
constexpr int64_t kVolumeStencilOuterElements = 4;

// Where work-items of a work-group read the same input elements (GEMM: every work-item along j reads the same row
// of A), on a device with dedicated local memory: each work-item owns a register tile of up to
// kRegisterTileElements elements along each such dimension, every kRegisterTileElements-th (strided: neighbouring
// work-items touch neighbouring elements), the inputs they share are cached in local memory tile by tile, and the
// reductions advance kCachedReductionTile indices per cached tile. On the H200 this shape ran GEMM 1024^3 in
// 0.1034 ms (the best configuration known, 0.1032; the plain default 0.236) and a CCSD(T) contraction in 0.127 ms
// against 0.516 (results/nvidia-h200/session12/README.md).
constexpr int64_t kRegisterTileElements = 8;
constexpr int64_t kCachedReductionTile = 16;
constexpr uint64_t kWorkItemsPerComputeUnit = 128;
constexpr int64_t kDividingWorkItemsFloor = 8;
// A reduction tile shorter than this is not worth a divisor of the extent: the tiles are cut at
// kCachedReductionTile and the last one is short instead.
constexpr int64_t kShortestReductionTile = 4;
// A locally cached input that every work-item dimension indexes is reused in a work-group only as often as the
// local tile extends along the dimensions it does not read, which carry no work-items and keep the plain default's 2
// elements: in the CCSD(T) contraction gdab-efgc (work-items along e and f, both indexing TB[e][f][g][c]) each
// copied TB element served LT_a * LT_b * LT_d = 8 points (TA's 768), so that the copies into local memory came to
// one load and store per 8 multiply-adds, and the default ran 0.2355 ms against the best known 0.1290 on the H200,
// whose tile is 2 x 8 x 2 along a, b, d with c at 1 (results/nvidia-h200/tc-abcdef-gdab-efgc-RW.json). Such an input
// is raised to kMinimumInputReuse: the dimensions without work-items that it reads drop to one element (their tiles
// only multiply the result slots) where the other cached inputs stay reused that often, and those it does not read
// double, the one along which another cached input is contiguous first (gdab-efgc: b, TA's unit-stride index, so
// that its copy reads longer rows), then the innermost, while every compute unit keeps a work-group.
constexpr int64_t kMinimumInputReuse = 32;
// Bytes that a GPU default's copies into local memory and its result stores move at a time per work-item
// (VECTOR_WIDTH and STORE_WIDTH 4 for float). On the H100, in one run of results/nvidia-h200/session28/ (call 2), the
// defaults of MCC and the nine contractions, whose local copies moved one element at a time, ran 0.0442 -> 0.0366 ms
// (MCC) and 10-18% faster (eight contractions; gdbc-efga within 1%) with float4 copies; float8 and float16 gained no
// more, and MCC lost with them.
constexpr size_t kGpuVectorBytes = 16;

// The dimension with which an access's unit-stride (last) index moves, alone and by one element per index; -1 where
// none does (a scalar, a constant index, several dimensions or a stride).
int unit_stride_dimension(const BoundAccess& access) {
  if (access.indices.empty()) return -1;
  const BoundIndex& last = access.indices.back();
  int found = -1;
  for (size_t d = 0; d < last.coefficient.size(); ++d)
    if (last.coefficient[d] != 0) {
      if (found >= 0 || (last.coefficient[d] != 1 && last.coefficient[d] != -1)) return -1;
      found = static_cast<int>(d);
    }
  return found;
}

// Buffer dimension k of a cached copy innermost in its BUF_ORDER, the others in their order.
void place_innermost(std::vector<int>& order, int k) {
  order.erase(std::find(order.begin(), order.end(), k));
  order.push_back(k);
}

// The first buffer index of the access that moves with dimension d; -1 where none does.
int first_index_moving_with(const BoundAccess& access, int d) {
  for (size_t k = 0; k < access.indices.size(); ++k)
    if (access.indices[k].coefficient[d] != 0) return static_cast<int>(k);
  return -1;
}

uint64_t work_group_count(const KernelConfig& c) {
  uint64_t n = 1;
  for (int64_t g : c.num_wg) n *= static_cast<uint64_t>(g);
  return n;
}

// Rows of a local cache stored transposed (its innermost dimension is not the buffer's unit-stride one) are
// kTransposedCacheRowPad elements longer (LOCAL_PAD): the copy reads the buffer along its unit stride and its
// neighbouring work-items store down a column of the cache, a row apart, into one bank where a row is a multiple of
// the 32 banks. On the H200 (results/nvidia-h200/session17/README.md, call 5, committed configurations padded) pads
// of 2 and 1 took MCC (F stored with its first dimension innermost) from 0.0674 to 0.044 and 0.0436 ms, GEMM
// 1024^3 (A k-major) from 0.0720 to 0.0684-0.0698 (pad 1: 0.0706-0.0716) and the contraction gdbc-efga (TB in
// layout 0,2,3,1) from 0.2824 to 0.2504 (pad 1: 0.2584); caches stored as read gain nothing from pads (MCC's I)
// or lose (gdab-efgc's TA: 10-13% slower).
constexpr int64_t kTransposedCacheRowPad = 2;

void pad_transposed_local_caches(const BoundMdh& bound, KernelConfig& c) {
  const int local = static_cast<int>(Layer::Local);
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const std::vector<int>& order = c.cache_dim_order[local][a];
    if (c.input_memory[local][a] != Memory::Local || order.size() < 2) continue;
    if (order.back() == static_cast<int>(order.size()) - 1) continue;  // stored as read
    member_slot(c.local_pad, static_cast<int>(a)) = kTransposedCacheRowPad;
  }
}

// The register tiles of the reuse layout, fed by vectors: along each strided dimension a work-item owns runs of up
// to kVectorRun elements (STRIDED_RUN), and each locally cached input indexed plainly along the strided
// dimensions it moves with gets a private cache, filled from its local cache run by run with vectors of a run's
// length (VECTOR_WIDTH): the local cache keeps the buffer dimension of a run innermost (the fastest dimension's
// where it has one), transposing it where needed. A work-item then reads two 128-bit vectors per input and
// reduction step instead of eight words. On the H200, GEMM 1024^3 went from 0.0892 to 0.0718 ms with this shape
// (runs of 4 along i, 2 along j) and GEMM 4096^3 from 3.83 to 3.41-3.53 ms (runs of 4 x 4);
// results/nvidia-h200/session15/README.md.
constexpr int64_t kVectorRun = 4;

void feed_register_tiles_with_vectors(const BoundMdh& bound, const std::vector<int>& tiled, int fastest,
                                      KernelConfig& t) {
  for (int d : tiled)
    if (t.ownership_of(d) == Ownership::strided)
      while (t.strided_run[d] * 2 <= kVectorRun && t.private_tile_size[d] >= 4 * t.strided_run[d])
        t.strided_run[d] *= 2;
  const int local = static_cast<int>(Layer::Local), priv = static_cast<int>(Layer::Private);
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    if (t.input_memory[local][a] == Memory::None) continue;
    int run_dimension = -1;  // the strided dimension whose runs the private copy reads as vectors
    bool plain = true;
    for (int d : tiled) {
      if (!moves_with(access, d) || t.ownership_of(d) != Ownership::strided) continue;
      plain = plain && indexed_plainly(access, d);
      if (run_dimension < 0 || d == fastest ||
          (run_dimension != fastest && t.strided_run_of(d) > t.strided_run_of(run_dimension)))
        run_dimension = d;
    }
    if (!plain || run_dimension < 0 || t.strided_run_of(run_dimension) < 2) continue;
    place_innermost(t.cache_dim_order[local][a], first_index_moving_with(access, run_dimension));
    t.input_memory[priv][a] = Memory::Private;
    if (t.vector_width.size() <= a) t.vector_width.resize(a + 1, 1);
    t.vector_width[a] = t.strided_run_of(run_dimension);
  }
}

// Each of the work-group's `++` points a locally cached input's local tile serves: the product of the local tiles
// along the `++` dimensions it does not read.
int64_t input_reuse(const BoundMdh& bound, const KernelConfig& c, const BoundAccess& access) {
  int64_t reuse = 1;
  for (int d : bound.mdh->concat_dims())
    if (!moves_with(access, d)) reuse *= c.local_tile_size[d];
  return reuse;
}

// kMinimumInputReuse above: raises the least reused locally cached input of `t` where it is reused less often.
void raise_least_input_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& t) {
  const Mdh& mdh = *bound.mdh;
  const int local = static_cast<int>(Layer::Local);
  std::vector<int> cached;
  for (size_t a = 0; a < bound.inputs.size(); ++a)
    if (t.input_memory[local][a] == Memory::Local) cached.push_back(static_cast<int>(a));
  int least = -1;
  for (int a : cached)
    if (least < 0 || input_reuse(bound, t, bound.inputs[a]) < input_reuse(bound, t, bound.inputs[least])) least = a;
  if (least < 0 || input_reuse(bound, t, bound.inputs[least]) >= kMinimumInputReuse) return;
  const BoundAccess& starved = bound.inputs[least];
  auto set_tile = [&](KernelConfig& k, int d, int64_t elements) {
    k.private_tile_size[d] = elements;
    k.local_tile_size[d] = elements;
    k.num_wg[d] = (bound.dim_extents[d] + elements - 1) / elements;
  };
  auto others_reused = [&](const KernelConfig& k) {
    for (int a : cached)
      if (a != least && input_reuse(bound, k, bound.inputs[a]) < kMinimumInputReuse) return false;
    return true;
  };
  const std::vector<int> concat = mdh.concat_dims();
  for (int d : concat) {
    if (t.num_wi[d] != 1 || !moves_with(starved, d) || t.private_tile_size[d] == 1) continue;
    KernelConfig k = t;
    set_tile(k, d, 1);
    if (others_reused(k)) t = k;
  }
  // The dimensions to grow: no work-items, not read by the starved input; another cached input's unit-stride
  // dimension first, then from the innermost.
  std::vector<int> grow;
  for (int a : cached) {
    const int d = a == least ? -1 : unit_stride_dimension(bound.inputs[a]);
    if (d >= 0 && mdh.dims[d].combine.is_concat() && t.num_wi[d] == 1 && !moves_with(starved, d) &&
        std::find(grow.begin(), grow.end(), d) == grow.end())
      grow.push_back(d);
  }
  for (auto d = concat.rbegin(); d != concat.rend(); ++d)
    if (t.num_wi[*d] == 1 && !moves_with(starved, *d) && std::find(grow.begin(), grow.end(), *d) == grow.end())
      grow.push_back(*d);
  for (int d : grow)
    while (input_reuse(bound, t, starved) < kMinimumInputReuse && 2 * t.private_tile_size[d] <= bound.dim_extents[d]) {
      KernelConfig k = t;
      set_tile(k, d, 2 * t.private_tile_size[d]);
      if (work_group_count(k) < limits.compute_units) return;
      t = k;
    }
}

// The reuse layout described above; false (and `c` unchanged) where no input is shared or the result is invalid.
bool tile_for_reuse(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  auto shared_along = [&](int d) {
    if (c.num_wi[d] < 2) return false;
    for (const BoundAccess& access : bound.inputs)
      if (!moves_with(access, d)) return true;
    return false;
  };
  std::vector<int> tiled;
  int two_dimensional = 0;
  for (int d : mdh.concat_dims()) {
    if (shared_along(d)) tiled.push_back(d);
    if (c.num_wi[d] > 1) ++two_dimensional;
  }
  // A work-group with work-items along one dimension only shares too little to pay for the copies and barriers:
  // PRL (16 work-items per work-group) ran 3.63 ms so against 3.04 on the H200.
  if (tiled.empty() || two_dimensional < 2) return false;
  KernelConfig t = c;
  // Up to `elements` per work-item along d, and the local tiles and work-groups that follow from them.
  auto set_private_tile = [&](int d, int64_t elements) {
    t.private_tile_size[d] = std::max<int64_t>(1, std::min(elements, bound.dim_extents[d] / t.num_wi[d]));
    t.local_tile_size[d] = std::min(bound.dim_extents[d], t.num_wi[d] * t.private_tile_size[d]);
    t.num_wg[d] = (bound.dim_extents[d] + t.local_tile_size[d] - 1) / t.local_tile_size[d];
  };
  // Work-items that divide the extent where halving them does (E = 24 in CCSD(T) gdab-efgc: 16 work-items leave a
  // half-empty second tile; 8 ran 0.414 ms against 0.486 on the H200), not below kDividingWorkItemsFloor.
  for (int d : mdh.concat_dims()) {
    const int64_t extent = bound.dim_extents[d];
    if (t.num_wi[d] < 2 * kDividingWorkItemsFloor || extent % t.num_wi[d] == 0 || extent % (t.num_wi[d] / 2) != 0)
      continue;
    t.num_wi[d] /= 2;
    set_private_tile(d, t.private_tile_size[d]);
  }
  for (int d : tiled) set_private_tile(d, kRegisterTileElements);
  // Enough parallelism: halve the largest register tile (the inner dimension first: on the H200, GEMM 1024^3 with
  // 8x4 elements along i x j ran 0.0888 ms, ...) while fewer than
  // kWorkItemsPerComputeUnit work-items or half as many work-groups as compute units remain, down to the plain
  // default's 2 elements. So GEMM 1024^3 on the H200 (132 compute units) keeps 8x4 (128 work-groups of 256); PRL, with
  // 16 work-items per work-group, goes back to 2 (8 elements left 4,096 work-items and ran 10x slower).
  auto work_items = [&] {
    uint64_t n = 1;
    for (int d : mdh.concat_dims()) n *= static_cast<uint64_t>(t.num_wg[d] * t.num_wi[d]);
    return n;
  };
  while (work_group_count(t) * 2 < limits.compute_units ||
         work_items() < kWorkItemsPerComputeUnit * limits.compute_units) {
    int largest = -1;
    for (auto d = tiled.rbegin(); d != tiled.rend(); ++d)
      if (t.private_tile_size[*d] > 2 && (largest < 0 || t.private_tile_size[*d] > t.private_tile_size[largest]))
        largest = *d;
    if (largest < 0) break;
    set_private_tile(largest, t.private_tile_size[largest] / 2);
  }
  for (int d : tiled)
    if (t.private_tile_size[d] >= 2) t.ownership[d] = Ownership::strided;
  // Cache what several work-items read; in the copy, the buffer dimension indexed by the work-items' fastest
  // dimension (OpenCL dimension 0) innermost, so that a warp reads consecutive words (no bank conflicts). On the
  // H200 the CCSD(T) contraction gdab-efgc ran 0.414 ms so against 1.63 with TB read through from global memory.
  int fastest = -1;
  for (int d : mdh.concat_dims())
    if (t.ocl_dim[1][d] == 0 && t.num_wi[d] > 1) fastest = d;
  const int local = static_cast<int>(Layer::Local);
  bool cached = false;
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    bool shared = false;
    for (int d : tiled) shared = shared || !moves_with(access, d);
    // An input that neighbouring work-items read at a stride (the fastest dimension moves an outer buffer index,
    // not the innermost) is cached too: the copy reads it row by row, coalesced, and stores it transposed.
    const bool strided_reads = fastest >= 0 && !access.indices.empty() && moves_with(access, fastest) &&
                               access.indices.back().coefficient[fastest] == 0;
    if (!shared && !strided_reads) continue;
    t.input_memory[local][a] = Memory::Local;
    cached = true;
    std::vector<int>& order = t.cache_dim_order[local][a];
    if (fastest >= 0)
      for (size_t k = 0; k + 1 < access.indices.size(); ++k)
        if (access.indices[k].coefficient[fastest] != 0 && access.indices.back().coefficient[fastest] == 0) {
          place_innermost(order, static_cast<int>(k));
          break;
        }
  }
  if (!cached) return false;
  KernelConfig unraised = t;
  raise_least_input_reuse(bound, limits, t);
  // Reductions in cached tiles of up to kCachedReductionTile indices (a divisor of the extent where one is not much
  // shorter, so that no tile is short), private tiles of up to 4; shorter tiles where two work-groups' caches would
  // not fit a compute unit's local memory (one loads while the other computes). Double buffering where a reduction
  // tile loop can prefetch (GEMM 1024^3 on the H200: 0.1032 -> 0.0888 ms). False where no such layout is valid.
  auto finish = [&](KernelConfig& f, int64_t longest) {
    pad_transposed_local_caches(bound, f);
    auto set_reduction_tiles = [&](int64_t longest) {
      for (int r : mdh.reduction_dims()) {
        if (f.num_wg[r] > 1) continue;  // a long reduction split over work-groups keeps its split
        const int64_t extent = bound.dim_extents[r];
        int64_t tile = std::min(longest, extent);
        while (tile > kShortestReductionTile && extent % tile != 0) --tile;
        if (extent % tile != 0) tile = std::min(longest, extent);
        f.local_tile_size[r] = tile;
        f.private_tile_size[r] = std::min<int64_t>(4, tile);
      }
    };
    set_reduction_tiles(longest);
    while (tunable_geometry(bound, f).local_memory_bytes * 2 > limits.local_mem_bytes && longest > 1)
      set_reduction_tiles(longest /= 2);
    if (tunable_geometry(bound, f).local_memory_bytes * 2 > limits.local_mem_bytes) return false;
    if (tunable_geometry(bound, f).prefetch_dimension >= 0) f.double_buffer = DoubleBuffer::on;
    try {
      check_config(bound, f, limits);
    } catch (const UserError&) {
      return false;  // e.g. the register budget
    }
    return true;
  };
  // Register tiles fed by vectors where they fit the registers, else fed element by element; the tiles of an
  // input's raised reuse where one of those fits, else the tiles as they were. The raised tiles keep the reduction
  // tiles that the tiles as they were got: the local memory they free must not lengthen them. On the H200 gdab-efgc
  // ran 0.1573 ms with the raised tiles and g in tiles of 4 (the tiles as they were: 0.2341), 0.2602 with g in the
  // tiles of 12 that the freed memory allowed (fewer work-groups per compute unit); the best known 0.1287
  // (results/nvidia-h200/session24/).
  auto finish_shape = [&](const KernelConfig& shape, int64_t longest, KernelConfig& finished) {
    KernelConfig vectors = shape;
    feed_register_tiles_with_vectors(bound, tiled, fastest, vectors);
    if (finish(vectors, longest)) {
      finished = vectors;
      return true;
    }
    finished = shape;
    return finish(finished, longest);
  };
  KernelConfig as_they_were;
  const bool unraised_fits = finish_shape(unraised, kCachedReductionTile, as_they_were);
  int64_t longest_reduction_tile = kCachedReductionTile;
  if (unraised_fits) {
    longest_reduction_tile = 1;
    for (int r : mdh.reduction_dims())
      if (as_they_were.num_wg[r] == 1)  // a reduction split over work-groups keeps its split either way
        longest_reduction_tile = std::max(longest_reduction_tile, as_they_were.local_tile_size[r]);
  }
  KernelConfig raised;
  if (!(t == unraised) && finish_shape(t, longest_reduction_tile, raised)) {
    c = raised;
    return true;
  }
  if (!unraised_fits) return false;
  c = as_they_were;
  return true;
}

// Where work-items share inputs on a device whose local memory is global memory (PoCL on a CPU), a register tile
// per work-item whose element loop the compiler vectorises: PoCL runs a work-group's work-items one after the other,
// so what makes a CPU fast is the loop nest of one work-item. Its private tile has one vector of the device's float
// width along every dimension that an input is contiguous along (so that the private caches are copied in vectors),
// kVectorTileRows elements along the lanes dimension where no input is (the output's innermost `++` dimension,
// innermost in the element loops and in every private cache that it indexes, so that the innermost loop reads
// consecutive floats), and kVectorTileRows rows along a `++` dimension that an input read along the lanes does not
// read (else one that some input is not read along); every input is cached privately, copied in vectors where the
// width divides the cached row; local caches are not used (their barriers split PoCL's work-item loops: GEMM 1024^3
// ran 635-712 ms with B or A and B cached locally, 50 without). On the 2-core PoCL VM (AVX-512, width 16; medians
// of 3-10 runs, the best of 2-3 rounds on a machine shared with other jobs): GEMM 512^3 ran 2.4-2.8 ms with 8x16
// elements along i x j and 16 along k (the plain default 24.8-44 ms; 4x16: 3.3-4.8; 2x16: 3.7-5.6; 6x16: 3.2;
// 4x16 without the vector copies 22), GEMM_NT 512^3 3.4 ms with 8x8 and B cached j-innermost (8x8 with B as
// stored: 8.0; 8x16: 4.8; the plain default 32), GEMV 4096^2 2.2-3.5 ms with 8 rows and 16 along k (16 rows: 5.6;
// the shared reduction 18.6; OpenBLAS 3.1).
constexpr int64_t kVectorTileRows = 8;
// Work-items per work-group along the two innermost `++` dimensions: one, so that a work-group is one work-item's
// loop nest. On PoCL 3.1 (the 2-core VM) several ran alike or better (GEMV 4096^2: 8 and 1 alike; GEMM 512^3 with
// 8x16 elements: 8x8 work-items 2.8-5.5 ms, 4x4 4.6-6.3; GEMM 1024^3: 8x8 28.8 ms, one 38.1), but on the 16-core
// Xeon's PoCL (results/pocl-cpu-intel-xeon-16c/session18/README.md) a work-group of several work-items ran GEMM
// 1024^3 twice as slow: 8x8 work-items 65-67 ms, 4x4 50-53, 2x2 48-57, one 30-34 (one with the reduction split
// below: 28 ms on 16 cores, 19.5 on the VM's 2); PRL N=32768 1065 ms with 8, 939 with one.
constexpr int64_t kVectorTileWorkItems = 1;
// Where the inputs that many work-groups share (GEMM: A is read by every work-group along j, B by every one along i)
// are larger than this, the longest reduction is split over work-groups (a second kernel combines the partial
// results), into the fewest halves that bring those inputs' slice within it: the work-groups of one slice run
// together (the split is on OpenCL dimension 2, the outermost), and reread a slice that stays in a core's caches
// (2 MiB of L2 per core on the VM) instead of streaming all of A and B from the L3 for every row of work-groups.
// GEMM 1024^3 (8 MiB shared, 4 slices) with one work-item per work-group: 38.1 -> 19.5 ms on the VM, 30-34 -> 28
// on the 16-core Xeon (8 slices: 20.0 and 27; 16: 24.6 and 29-30).
constexpr uint64_t kSharedSliceBytes = 2u << 20;
// The partial results of the slices (a scratch buffer of slices x the output) stay within this: GEMM 4096^3 (128 MiB
// shared) would otherwise take 64 slices of its 64-MiB output, 4 GiB. GEMM 1024^3's 4 slices take 16 MiB.
constexpr uint64_t kSplitScratchBytes = 64u << 20;
// Only inputs that at least this many work-groups read count as shared: MCC's F (9.4 MB), read by the 7 work-groups
// along p, would take c in 8 slices, and ran 5.1 ms so on the VM against 3.5-4.0 with c whole.
constexpr int64_t kSplitMinimumRereads = 16;
// Work-groups per compute unit at least, so that PoCL's threads share the work evenly (fewer work-items per
// work-group first, then smaller tiles). A choice for load balance, not a measurement.
constexpr uint64_t kVectorTileWorkGroupsPerComputeUnit = 4;

// A private tile of about `desired` elements of a dimension of `extent`: the divisor of the extent nearest to it
// (by ratio, the smaller on a tie) between half and twice as many, else `desired`. On PoCL a short private tile at
// the edge costs more than a tile of another size: GEMM 10x500x64 ran 0.380 ms with 8 x 16 elements along i x j
// (two short tiles), 0.036 with 5 x 16 and 0.015 with 5 x 20 (0.021 with 10 x 20; the plain default 0.109).
int64_t dividing_tile(int64_t extent, int64_t desired) {
  int64_t best = 0;
  auto ratio = [&](int64_t v) {
    return v > desired ? static_cast<double>(v) / desired : static_cast<double>(desired) / v;
  };
  for (int64_t v = (desired + 1) / 2; v <= 2 * desired && v <= extent; ++v)
    if (extent % v == 0 && (best == 0 || ratio(v) < ratio(best))) best = v;
  return best > 0 ? best : std::min(desired, extent);
}

// The split of the longest reduction described at kSharedSliceBytes, for commutative operators (never a user
// operator: its ordered fold stays in one work-item) whose reductions are not split yet; false (and `c` unchanged)
// where the shared inputs fit or no even split into whole private tiles is left.
bool split_reduction_over_shared_slices(const BoundMdh& bound, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  int longest = -1;
  for (int r : mdh.reduction_dims()) {
    if (!mdh.dims[r].combine.is_commutative() || c.num_wg[r] > 1) return false;
    if (longest < 0 || bound.dim_extents[r] > bound.dim_extents[longest]) longest = r;
  }
  if (longest < 0) return false;
  uint64_t shared_bytes = 0;
  for (const BoundAccess& access : bound.inputs) {
    int64_t rereads = 1;  // the work-groups that read the same elements of the input
    for (int d : mdh.concat_dims())
      if (!moves_with(access, d)) rereads *= c.num_wg[d];
    if (rereads >= kSplitMinimumRereads && moves_with(access, longest)) shared_bytes += bound.byte_size(access.buffer);
  }
  const uint64_t output_bytes = bound.byte_size(bound.output.buffer);
  const int64_t extent = bound.dim_extents[longest];
  int64_t slices = 1;
  while (shared_bytes / static_cast<uint64_t>(slices) > kSharedSliceBytes && extent % (2 * slices) == 0 &&
         (extent / (2 * slices)) % c.private_tile_size[longest] == 0 &&
         static_cast<uint64_t>(2 * slices) * output_bytes <= kSplitScratchBytes)
    slices *= 2;
  if (slices < 2) return false;
  c.num_wg[longest] = slices;
  c.local_tile_size[longest] = extent / slices;
  return true;
}

// VECTOR_WIDTH of every vectorisable input cached in `layer`: width_of(access) where it divides the cache's rows, else
// the widest power of two below it that does; an access whose width_of is below 2 keeps its width.
template <typename WidthOf>
void copy_caches_in_vectors(const BoundMdh& bound, Layer layer, KernelConfig& c, WidthOf width_of) {
  const std::vector<int> vectorisable = find_family("VECTOR_WIDTH")->members(bound);
  for (const CachedTile& tile : tunable_geometry(bound, c).cached_tiles) {
    if (tile.layer != layer || std::find(vectorisable.begin(), vectorisable.end(), tile.access) == vectorisable.end())
      continue;
    int64_t v = width_of(tile.access);
    if (v < 2) continue;
    while (v > 1 && tile.extents.back() % v != 0) v /= 2;
    member_slot(c.vector_width, tile.access) = v;
  }
}
void copy_private_caches_in_vectors(const BoundMdh& bound, int64_t width, KernelConfig& c) {
  copy_caches_in_vectors(bound, Layer::Private, c, [width](int) { return width; });
}
// On GPUs, the copies into local memory of inputs that no register tile has given a width yet move
// kGpuVectorBytes at a time (float4: 128-bit loads, the widest a work-item issues on NVIDIA and AMD GPUs).
void copy_local_caches_in_vectors(const BoundMdh& bound, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  copy_caches_in_vectors(bound, Layer::Local, c, [&](int a) -> int64_t {
    if (c.vector_width_of(a) != 1) return 0;
    const size_t bytes = mdh.size_of(mdh.buffers[mdh.inputs[a].buffer].type);
    return static_cast<int64_t>(kGpuVectorBytes / std::max<size_t>(bytes, 1));
  });
}

// On GPUs, the loops over a work-item's private steps within a local tile are unrolled (UNROLL_STEPS) where there
// are at most kMaxUnrolledSteps of them. On the H200 (results/nvidia-h200/session29/, calls 1 and 3) GEMM 1024^3's
// and 4096^3's defaults (4 steps) ran 9% faster so (0.0698-0.0704 -> 0.0634-0.0638 ms; 3.31 -> 3.00), GEMV 4096^2's
// (16) and MCC's (2) 0-3%; the contractions' (1-3) tied; DOT's (64) lost 1% and PRL's (256 steps of a long f, its
// code unrolled 256 times) ran 4.05 ms against 2.84.
constexpr int64_t kMaxUnrolledSteps = 16;

// On GPUs, a work-item's results go out kGpuVectorBytes at a time where it owns runs of consecutive ones along the
// output's unit-stride dimension (STORE_WIDTH: the widest vector dividing the run, TunableGeometry::store_run, at
// most 16 bytes). On the H200 (results/nvidia-h200/session29/, call 1, two rounds) Jacobi 3D's defaults ran 3.4-3.8%
// faster so (512^3: 0.3562 -> 0.3428 ms), GEMM 4096^3's 1.2%; the other defaults of experiments.gpu.json that store
// runs tied.
void store_in_vectors(const BoundMdh& bound, const TunableGeometry& g, KernelConfig& c) {
  if (g.store_run <= 0) return;
  const Mdh& mdh = *bound.mdh;
  const size_t bytes = mdh.size_of(mdh.buffers[bound.output.buffer].type);
  int64_t width = static_cast<int64_t>(kGpuVectorBytes / std::max<size_t>(bytes, 1));
  while (width > 1 && g.store_run % width != 0) width /= 2;
  c.store_width = std::max<int64_t>(width, 1);
}

// On GPUs, short loops are unrolled. The loops over a work-item's private steps where there are at most
// kMaxUnrolledSteps of them (UNROLL_STEPS, measured above). The innermost reduction tile loop where UNROLL_TILES
// unrolls it completely (at most kMaxUnrolledTiles tiles per work-group): on the H200 (results/nvidia-h200/session31/,
// call 3, two rounds) 8 of the 9 contractions' defaults (2 or 6 tiles) ran 3-7% faster so and one tied, MCC's (4)
// tied, while GEMM 1024^3's (64 tiles, 8 per iteration) ran 6% slower and GEMM 4096^3's (256) 2.3 times slower.
void unroll_short_loops(const TunableGeometry& g, KernelConfig& c) {
  int64_t steps = 1;
  for (int64_t s : g.private_steps) steps *= s;
  if (steps <= kMaxUnrolledSteps) c.unroll_steps = UnrollSteps::on;
  const int d = g.innermost_reduction_tile_loop;
  if (d >= 0 && g.tile_loop_unroll == g.tiles_per_wg[d]) c.unroll_tiles = UnrollTiles::on;
}

// The vector register tile described above; false (and `c` unchanged) where no input is shared or the result is
// invalid.
bool tile_for_vectors(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  const std::vector<int> concat = mdh.concat_dims();
  auto shared_along = [&](int d) {
    for (const BoundAccess& access : bound.inputs)
      if (!moves_with(access, d)) return true;
    return false;
  };
  if (std::none_of(concat.begin(), concat.end(), shared_along)) return false;
  int64_t width = 1;  // OpenCL's vector types: 2, 4, 8, 16 elements
  while (width * 2 <= std::min<int64_t>(16, static_cast<int64_t>(limits.float_vector_width))) width *= 2;
  // A device without vector registers (or limits that do not say) has no lanes to fill: the plain default.
  if (width < 2) return false;
  const std::vector<int> vectorisable = find_family("VECTOR_WIDTH")->members(bound);
  std::vector<bool> contiguous(mdh.dims.size(), false);  // some vectorisable input is contiguous along it
  for (int a : vectorisable)
    if (const int d = unit_stride_dimension(bound.inputs[a]); d >= 0) contiguous[d] = true;
  int lanes = unit_stride_dimension(bound.output);
  if (lanes < 0 || !mdh.dims[lanes].combine.is_concat()) lanes = concat.back();
  // Rows along a dimension that an input read along the lanes does not read (GEMM: B[k][j] is the same for every
  // i), so that both inputs are reused within the tile (as an outer product), else along any shared one. On PoCL the
  // contraction gdab-efgc (TB[e][f][g][c], lanes f) ran 218 ms with rows along d, 303-585 along e (each element of
  // TB read once; the plain default 268-310).
  auto shared_with_lanes = [&](int d) {
    for (const BoundAccess& access : bound.inputs)
      if (moves_with(access, lanes) && !moves_with(access, d)) return true;
    return false;
  };
  int rows = -1;
  for (int d : concat)
    if (d != lanes && shared_along(d)) rows = d;  // the innermost such
  for (int d : concat)
    if (d != lanes && shared_with_lanes(d)) rows = d;

  KernelConfig t = c;
  // Work-items along the dimensions on OpenCL dimensions 0 and 1 (the innermost two `++` dimensions, see
  // shape_concat_dimensions), a block of work-items' tiles per work-group.
  auto set_concat_tile = [&](int d, int64_t elements, int64_t work_items) {
    const int64_t extent = bound.dim_extents[d];
    t.private_tile_size[d] = std::max<int64_t>(1, std::min(elements, extent));
    const int64_t private_tiles = (extent + t.private_tile_size[d] - 1) / t.private_tile_size[d];
    t.num_wi[d] = std::max<int64_t>(1, std::min(work_items, private_tiles));
    for (int64_t w = t.num_wi[d]; 2 * w > t.num_wi[d]; --w)
      if (private_tiles % w == 0) {
        t.num_wi[d] = w;
        break;
      }
    t.local_tile_size[d] = std::min(extent, t.num_wi[d] * t.private_tile_size[d]);
    t.num_wg[d] = (extent + t.local_tile_size[d] - 1) / t.local_tile_size[d];
  };
  // Where no input can be moved in vectors (struct elements: PRL's records), the tile has no lanes to fill: it only
  // repeats f per element in the work-item's loop body (with F_INLINE unrolled, PRL's 14 fields for each of 8 x 4
  // elements). One element per work-item then, along every dimension. On the 16-core Xeon's PoCL 5.0
  // (results/pocl-cpu-intel-xeon-16c/session24/, medians of 5 runs, one call) PRL 32768 x 1024 ran 237 ms with 1 x 1
  // element per work-item (one per work-group), 252 with 2 x 1, 284 with 1 x 4 and 393 with the vector tile's 8 x 4;
  // with 16 work-items per work-group 280 (2 x 1) and 339 (1 x 4); the threaded C++ baseline 359 ms.
  const bool vectorless = vectorisable.empty();
  for (int d : concat) {
    const int64_t elements = vectorless   ? 1
                             : d == lanes ? (contiguous[d] ? width : kVectorTileRows)
                             : d == rows  ? kVectorTileRows
                                          : 1;
    set_concat_tile(d, dividing_tile(bound.dim_extents[d], elements), c.ocl_dim[1][d] < 2 ? kVectorTileWorkItems : 1);
  }
  for (int r : mdh.reduction_dims())
    if (vectorless)
      t.private_tile_size[r] = 1;
    else if (contiguous[r])
      t.private_tile_size[r] = dividing_tile(t.local_tile_size[r], width);
  while (work_group_count(t) < kVectorTileWorkGroupsPerComputeUnit * limits.compute_units) {
    int most = -1;  // the most work-items, else the largest private tile, the innermost dimension on a tie
    for (int d : concat)
      if (t.num_wi[d] > 1 && (most < 0 || t.num_wi[d] >= t.num_wi[most])) most = d;
    if (most >= 0) {
      set_concat_tile(most, t.private_tile_size[most], t.num_wi[most] / 2);
      continue;
    }
    for (int d : concat)
      if (t.private_tile_size[d] > 1 && (most < 0 || t.private_tile_size[d] >= t.private_tile_size[most])) most = d;
    if (most < 0) break;
    const int64_t smaller = dividing_tile(bound.dim_extents[most], t.private_tile_size[most] / 2);
    set_concat_tile(most, smaller < t.private_tile_size[most] ? smaller : t.private_tile_size[most] / 2, 1);
  }
  // Reductions outermost in the element loops, the lanes dimension innermost.
  std::vector<int>& order = t.loop_order[static_cast<int>(Layer::Private)];
  order = mdh.reduction_dims();
  for (int d : concat)
    if (d != lanes) order.push_back(d);
  order.push_back(lanes);
  // Every input cached privately, the buffer dimension that the lanes dimension moves innermost.
  const int priv = static_cast<int>(Layer::Private);
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    const BoundAccess& access = bound.inputs[a];
    t.input_memory[priv][a] = Memory::Private;
    if (const int k = first_index_moving_with(access, lanes); k >= 0) place_innermost(t.cache_dim_order[priv][a], k);
  }
  copy_private_caches_in_vectors(bound, width, t);
  try {
    check_config(bound, t, limits);
  } catch (const UserError&) {
    return false;  // e.g. the private memory budget
  }
  KernelConfig split = t;
  if (split_reduction_over_shared_slices(bound, split)) {
    try {
      check_config(bound, split, limits);
      t = split;
    } catch (const UserError&) {
      // the tile without the split (e.g. where the device cannot hold the partial results)
    }
  }
  c = t;
  return true;
}

// The dimension along which the most input bytes are contiguous in memory (the unit-stride index of their
// accesses), the output's unit-stride dimension on a tie; -1 when no access has one.
int most_read_contiguous_dimension(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  std::vector<double> bytes(mdh.dims.size(), 0);
  for (const BoundAccess& access : bound.inputs)
    if (const int d = unit_stride_dimension(access); d >= 0)
      bytes[d] += static_cast<double>(bound.byte_size(access.buffer));
  const int output_dim = unit_stride_dimension(bound.output);
  int best = output_dim;
  for (size_t d = 0; d < bytes.size(); ++d)
    if (bytes[d] > 0 && (best < 0 || bytes[d] > bytes[best])) best = static_cast<int>(d);
  return best;
}

// The shared-reduction layout (see kSharedReductionWorkItems): work-items along reduction dimension r, on OpenCL
// dimension 0, each owning every NUM_WI-th element (private tiles of 1); their partial results meet in local
// memory and are combined once at the end (CMB_RES = G); a long reduction is split over work-groups. The `++`
// dimensions take a few elements per work-group each, as a register tile that reuses what r reads.
void share_reduction(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  // On a CPU (local memory in global memory, vector registers) a few work-items, each reading consecutive blocks
  // through private caches moved in vectors (kCpuReductionWorkItems).
  const bool cpu = !limits.local_memory_dedicated && limits.float_vector_width >= 2;
  int64_t wi = cpu ? kCpuReductionWorkItems : kSharedReductionWorkItems;
  while (wi > 1 && (static_cast<uint64_t>(wi) > limits.max_work_group_size ||
                    static_cast<uint64_t>(wi) > limits.max_work_item_sizes[0]))
    wi /= 2;
  const int64_t extent = bound.dim_extents[r];
  c.num_wi[r] = wi;
  c.private_tile_size[r] = cpu ? dividing_tile(extent / wi, kCpuReductionElements) : 1;
  const int64_t step = wi * c.private_tile_size[r];
  c.num_wg[r] =
      extent > step * kSharedReductionSteps
          ? std::min<int64_t>(1024, (extent + step * kSharedReductionSteps - 1) / (step * kSharedReductionSteps))
          : 1;
  c.local_tile_size[r] = (extent + c.num_wg[r] - 1) / c.num_wg[r];
  if (cpu) {
    // Every input read along r cached privately, moved in vectors where the width divides the cache's row.
    const int priv = static_cast<int>(Layer::Private);
    for (size_t a = 0; a < bound.inputs.size(); ++a)
      if (unit_stride_dimension(bound.inputs[a]) == r) c.input_memory[priv][a] = Memory::Private;
    copy_private_caches_in_vectors(bound, kCpuReductionVectorWidth, c);
  }
  c.ocl_dim[0][r] = 0;
  c.ocl_dim[1][r] = 0;
  int rank = 0;
  for (int d : mdh.concat_dims()) {
    c.num_wi[d] = 1;
    c.private_tile_size[d] = std::min<int64_t>(kRowsPerWorkGroup, bound.dim_extents[d]);
    c.local_tile_size[d] = c.private_tile_size[d];
    c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
    c.ocl_dim[0][d] = c.ocl_dim[1][d] = std::min(++rank, 2);
  }
  c.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  c.result_memory[static_cast<int>(Layer::Local)] = Memory::Private;
  c.combine_layer = Layer::Global;
  c.work_item_combine = WorkItemCombine::tree;
}

// Small outputs on a device with dedicated local memory (a GPU). The layouts above give each work-item one or more
// output points and fold their reductions alone; where the output has fewer points than the device has room for
// work-items (a work-group of the largest size on every compute unit: 132 x 1024 on the H200), they leave most of
// it idle, however small the register tiles. Where the reductions' operator lets partial results meet in any order
// (built-in, commutative: the work-items' tree, CMB_WI = tree), the device is filled by splitting the longest
// reduction instead: first among the work-items of a work-group (one kernel), then, where fewer work-groups than
// compute units remain, among work-groups (a second kernel folds their partial results). A user operator that need
// not commute keeps one work-item per reduction (its ordered fold). Measured on the H200 (medians of 50 runs, two
// rounds; results/nvidia-h200/session16/): GEMM 10x500x64 (5,000 points) ran 0.0095-0.0104 ms with the register
// tiles of tile_for_reuse (16 work-groups), 0.0066 with the reference kernel (a work-item per point), 0.0071 with
// the tuned configuration and 0.0056-0.0058 with 4 work-items sharing k (blocks of 16, a tree in local memory, no
// input caches, 100 work-groups); a launch alone takes 0.0045. MCC 1x7x7x512, reduction 512x3x3 (25,088 points):
// the register tiles ran 0.1903 ms in 64 work-groups (16 x 7 work-items; whole warps now make it 32 of 32 x 7); the
// tuned configurations split c over 16 work-groups: 0.1600
// (session 15), 0.1371 with UNROLL_STEPS (session 16, results/nvidia-h200/mcc-RW.json).

// The work-items that fill the device: a work-group of the largest size on every compute unit.
uint64_t device_work_items(const DeviceLimits& limits) {
  return std::max<uint64_t>(1, limits.compute_units) * std::max<uint64_t>(1, limits.max_work_group_size);
}

uint64_t output_points(const BoundMdh& bound) {
  uint64_t n = 1;
  for (int d : bound.mdh->concat_dims()) n *= static_cast<uint64_t>(bound.dim_extents[d]);
  return n;
}

// Whether the output is too small to fill the device and the reductions may be split (see above); the reduction
// to split (the longest, the first on a tie) or -1.
int reduction_to_split_for_small_output(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  if (!limits.local_memory_dedicated || output_points(bound) >= device_work_items(limits)) return -1;
  int longest = -1;
  for (int r : mdh.reduction_dims()) {
    if (!mdh.dims[r].combine.is_commutative()) return -1;
    if (longest < 0 || bound.dim_extents[r] > bound.dim_extents[longest]) longest = r;
  }
  return longest;
}

uint64_t work_item_count(const KernelConfig& c) {
  uint64_t n = 1;
  for (size_t d = 0; d < c.num_wg.size(); ++d) n *= static_cast<uint64_t>(c.num_wg[d] * c.num_wi[d]);
  return n;
}

uint64_t work_group_size(const KernelConfig& c) {
  uint64_t n = 1;
  for (int64_t w : c.num_wi) n *= static_cast<uint64_t>(w);
  return n;
}

// Where even one point per work-item leaves each compute unit fewer than kWorkItemsPerComputeUnit work-items, a
// register tile has nothing to share and a local cache nothing to pay for its barriers: one output point per
// work-item (the `++` work-items of the plain layout), and the reduction r shared by the most work-items, a power
// of two, that keep the device's work-items within device_work_items, each folding a block of at least
// kCachedReductionTile elements (GEMM 10x500x64: 4 work-items of 16 along k), on OpenCL dimension 2 (the `++`
// dimensions keep 0 and 1, so that a warp reads consecutive elements of the output's innermost dimension); their
// partial results meet in local memory, combined by a tree. Then fewer `++` work-items per work-group, the
// outermost OpenCL dimension's first, until every compute unit has a work-group (GEMM 10x500x64: 2 x 16 x 4
// work-items, 160 work-groups). False (and `c` unchanged) where the output is not that small, r is too short to
// share or the layout is not valid.
bool share_reduction_per_point(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  const uint64_t points = output_points(bound);
  if (points >= kWorkItemsPerComputeUnit * limits.compute_units || c.num_wg[r] > 1) return false;
  const int64_t extent = bound.dim_extents[r];
  int64_t sharing = 1;
  while (points * static_cast<uint64_t>(2 * sharing) <= device_work_items(limits) &&
         2 * sharing * kCachedReductionTile <= extent &&
         static_cast<uint64_t>(2 * sharing) <= std::min(limits.max_work_item_sizes[2], limits.max_work_group_size))
    sharing *= 2;
  if (sharing < 2) return false;
  KernelConfig t = c;
  auto set_concat_work_items = [&](int d, int64_t work_items) {
    t.num_wi[d] = work_items;
    t.private_tile_size[d] = 1;
    t.local_tile_size[d] = work_items;
    t.num_wg[d] = (bound.dim_extents[d] + work_items - 1) / work_items;
  };
  for (int d : mdh.concat_dims()) set_concat_work_items(d, t.num_wi[d]);
  t.num_wi[r] = sharing;
  t.local_tile_size[r] = extent;
  // A power of two (on PT_SIZE's lattice, so that the tuner can start from the default), in as many steps as needed.
  t.private_tile_size[r] = 1;
  while (2 * t.private_tile_size[r] * sharing <= extent) t.private_tile_size[r] *= 2;
  t.ocl_dim[0][r] = t.ocl_dim[1][r] = 2;
  // Whole warps where the default space requires them (whole_warps_apply): the plain layout's `++` work-items
  // hold them, and so does a power of two of work-items along r; a halving that would break them stops the loop.
  const bool whole_warps = whole_warps_apply(bound, limits);
  while (work_group_count(t) < limits.compute_units || work_group_size(t) > limits.max_work_group_size) {
    int outermost = -1;  // the highest OpenCL dimension with several work-items, the outer md_hom dimension on a tie
    for (int d : mdh.concat_dims())
      if (t.num_wi[d] > 1 && (outermost < 0 || t.ocl_dim[1][d] > t.ocl_dim[1][outermost])) outermost = d;
    if (outermost < 0) break;
    const bool too_large = work_group_size(t) > limits.max_work_group_size;
    const int64_t before = t.num_wi[outermost];
    set_concat_work_items(outermost, before / 2);
    if (!too_large && whole_warps && work_group_size(t) % limits.warp_size != 0) {
      set_concat_work_items(outermost, before);
      break;
    }
  }
  t.result_memory[static_cast<int>(Layer::Private)] = Memory::Local;
  t.result_memory[static_cast<int>(Layer::Local)] = Memory::Private;
  t.combine_layer = Layer::Global;
  t.work_item_combine = WorkItemCombine::tree;
  try {
    check_config(bound, t, limits);
  } catch (const UserError&) {
    return false;
  }
  c = t;
  return true;
}

// Where a small output's layout still leaves fewer work-groups than compute units (MCC's register tiles: 32 of 32 x 7
// work-items for 132), the reduction r is split over the most work-groups, a power of two, that keep the device's
// work-items within device_work_items, at least kCachedReductionTile elements per work-item sharing r (MCC: 16
// along c, 512 work-groups). A layout with several local tiles along r gives each work-group whole tiles (MCC: 4 of
// 8); one with a single tile (share_reduction_per_point) cuts it into one per work-group. `c` is unchanged where that
// leaves a single work-group or is not valid.
void split_reduction_over_work_groups(const BoundMdh& bound, const DeviceLimits& limits, int r, KernelConfig& c) {
  if (work_group_count(c) >= limits.compute_units || c.num_wg[r] > 1) return;
  const int64_t extent = bound.dim_extents[r];
  const bool one_tile = c.local_tile_size[r] >= extent;
  const int64_t tiles = one_tile ? extent : (extent + c.local_tile_size[r] - 1) / c.local_tile_size[r];
  const uint64_t work_items = work_item_count(c);
  int64_t groups = 1;
  while (work_items * static_cast<uint64_t>(2 * groups) <= device_work_items(limits) && 2 * groups <= tiles &&
         2 * groups * c.num_wi[r] * kCachedReductionTile <= extent)
    groups *= 2;
  if (groups < 2) return;
  KernelConfig t = c;
  t.num_wg[r] = groups;
  if (one_tile) {
    t.local_tile_size[r] = (extent + groups - 1) / groups;
    t.private_tile_size[r] = std::min(t.private_tile_size[r], (t.local_tile_size[r] + t.num_wi[r] - 1) / t.num_wi[r]);
  }
  try {
    check_config(bound, t, limits);
  } catch (const UserError&) {
    return;
  }
  c = t;
}

// Each `++` dimension's private tile multiplies the partial results a work-item keeps: with 16 dimensions of
// extent 2 the shapes above gave it 2^14 of them, past the private memory, so the default was no valid
// configuration and `mdh generate` refused it. Halving the outermost private tiles first (then the reductions')
// until the configuration is valid leaves a default that was valid as it was.
void shrink_private_tiles_until_valid(const BoundMdh& bound, const DeviceLimits& limits, KernelConfig& c) {
  const Mdh& mdh = *bound.mdh;
  TuningSpace space = make_tuning_space(bound, limits);
  space.full_ranges = true;  // validity, as check_config: the warp constraint is the search's, not the kernel's
  std::vector<int> order = mdh.concat_dims();
  for (int d : mdh.reduction_dims()) order.push_back(d);
  while (first_violation(space, assignment_from_config(space, c))) {
    auto it = std::find_if(order.begin(), order.end(), [&](int d) { return c.private_tile_size[d] > 1; });
    if (it == order.end()) return;  // not a matter of private tiles: check_config names what is wrong
    const int d = *it;
    c.private_tile_size[d] /= 2;
    if (!mdh.dims[d].combine.is_concat()) continue;  // a reduction's local tile does not follow its private tile
    c.local_tile_size[d] = std::min<int64_t>(bound.dim_extents[d], c.num_wi[d] * c.private_tile_size[d]);
    c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
  }
}
}  // namespace

KernelConfig default_config(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  const int dims = static_cast<int>(mdh.dims.size());
  KernelConfig c = config_frame(bound);  // every family at its neutral value; the paper's families set below
  c.num_wg.assign(dims, 1);
  c.num_wi.assign(dims, 1);
  c.private_tile_size.assign(dims, 1);
  c.local_tile_size = bound.dim_extents;  // reductions: one local tile per work-group, done by one work-item
  for (int l = 0; l < 2; ++l) c.ocl_dim[l].assign(dims, 2);

  // The innermost two `++` dimensions get up to 16 work-items each (OpenCL dimensions 0 and 1, so that
  // neighbouring work-items touch neighbouring output elements); every `++` dimension is split into local tiles
  // of work-items x 2 elements spread over as many work-groups as needed. 2-D stencils take the stencil shape
  // (kStencilRowWorkItems), stencils of more dimensions on GPUs the volume stencil's (kVolumeStencilRowWorkItems),
  // where it still gives every compute unit a work-group: on small images (Gaussian 224^2: 28 work-groups, 0.0070 ms
  // against 0.0058 on the H200) the launch is too small for it.
  const std::vector<int> concat = mdh.concat_dims();
  bool windowed = false;
  for (const auto& input : mdh.inputs) windowed = windowed || input.has_window();
  const bool whole_warps = whole_warps_apply(bound, limits);
  enum class Shape { plain, plane_stencil, volume_stencil };
  auto shape_concat_dimensions = [&](Shape shape) {
    uint64_t work_group_size = 1, work_groups = 1;
    for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0 && rank < 2; --n, ++rank) {
      const int d = concat[n];
      const int64_t desired =
          shape == Shape::plane_stencil    ? (rank == 0 ? kStencilRowWorkItems : kStencilColumnWorkItems)
          : shape == Shape::volume_stencil ? (rank == 0 ? kVolumeStencilRowWorkItems : kVolumeStencilColumnWorkItems)
                                           : 16;
      int64_t wi = std::min<int64_t>(desired, bound.dim_extents[d]);
      while (wi > 1 && (work_group_size * wi > limits.max_work_group_size ||
                        static_cast<uint64_t>(wi) > limits.max_work_item_sizes[rank]))
        wi /= 2;
      work_group_size *= wi;
      c.num_wi[d] = wi;
    }
    // Whole warps where the default space requires them (whole_warps_apply): the innermost dimension's work-items
    // double, then the next one's, within the extents and limits. PRL's single `++` dimension had 16 work-items,
    // MCC's 16 x 7 (Q = 7), half a warp idle in each work-group (or in one warp of four).
    for (int n = static_cast<int>(concat.size()) - 1, rank = 0; whole_warps && n >= 0 && rank < 2; --n, ++rank) {
      const int d = concat[n];
      int64_t& wi = c.num_wi[d];
      while (work_group_size % limits.warp_size != 0 && 2 * wi <= bound.dim_extents[d] &&
             2 * work_group_size <= limits.max_work_group_size &&
             static_cast<uint64_t>(2 * wi) <= limits.max_work_item_sizes[rank])
        wi *= 2, work_group_size *= 2;
    }
    for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0; --n, ++rank) {
      const int d = concat[n];
      const int ocl = std::min(rank, 2);
      const int64_t wi = c.num_wi[d];
      const int64_t elements = shape == Shape::plane_stencil ? (rank == 0 ? 1 : kStencilColumnElements)
                               : shape == Shape::volume_stencil
                                   ? (rank < 2 ? kVolumeStencilRowElements : kVolumeStencilOuterElements)
                                   : 2;
      c.private_tile_size[d] = std::min<int64_t>(elements, std::max<int64_t>(1, bound.dim_extents[d] / wi));
      c.local_tile_size[d] = std::min<int64_t>(bound.dim_extents[d], wi * c.private_tile_size[d]);
      c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
      work_groups *= static_cast<uint64_t>(c.num_wg[d]);
      c.ocl_dim[0][d] = ocl;
      c.ocl_dim[1][d] = ocl;
    }
    return work_groups;
  };
  const bool stencil = windowed && mdh.reduction_dims().empty() && concat.size() >= 2;
  const Shape stencil_shape = !stencil                        ? Shape::plain
                              : concat.size() == 2            ? Shape::plane_stencil
                              : limits.local_memory_dedicated ? Shape::volume_stencil
                                                              : Shape::plain;
  if (stencil_shape == Shape::plain || shape_concat_dimensions(stencil_shape) < limits.compute_units)
    shape_concat_dimensions(Shape::plain);
  for (int d : mdh.reduction_dims()) {
    c.private_tile_size[d] = std::min<int64_t>(4, bound.dim_extents[d]);
    // A long reduction is split over work-groups (one work-item each; a second kernel combines the partial
    // results in order): one work-item folding 2^24 floats in a row loses most of its precision, and all of the
    // device's parallelism when there is a single output point (DOT).
    const int64_t extent = bound.dim_extents[d];
    if (extent > kLongReduction) {
      c.num_wg[d] = std::min<int64_t>(1024, (extent + kReductionChunk - 1) / kReductionChunk);
      c.local_tile_size[d] = (extent + c.num_wg[d] - 1) / c.num_wg[d];
    }
  }

  // No caching, identity orders, partial results in private memory: config_frame's neutral values.
  c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
  c.combine_layer = Layer::Private;
  // Where most bytes stream along one long reduction dimension with a built-in operator (GEMV, DOT), work-items
  // share it; a non-commutative user operator keeps one work-item per reduction (its ordered fold).
  const std::vector<int> reductions = mdh.reduction_dims();
  const int contiguous = most_read_contiguous_dimension(bound);
  if (!limits.local_memory_dedicated && tile_for_vectors(bound, limits, c)) {
    // A CPU: register tiles in vectors (GEMV's shared reduction ran 18.6 ms against 2.2-3.5 on PoCL).
  } else if (reductions.size() == 1 && contiguous == reductions[0] && mdh.dims[contiguous].combine.is_commutative() &&
             bound.dim_extents[contiguous] >= kSharedReductionMinimum) {
    KernelConfig shared = c;
    share_reduction(bound, limits, contiguous, shared);
    try {
      check_config(bound, shared, limits);
      c = shared;
    } catch (const UserError&) {
      // A device too small for the shared layout (local memory, work-group size) keeps the layout above.
    }
  } else if (limits.local_memory_dedicated && !reductions.empty()) {
    const int split = reduction_to_split_for_small_output(bound, limits);
    if (split < 0 || !share_reduction_per_point(bound, limits, split, c)) tile_for_reuse(bound, limits, c);
    if (split >= 0) split_reduction_over_work_groups(bound, limits, split, c);
  }
  // On CPUs mdh's own log, which the compiler inlines (KernelConfig::inline_math); INLINE_MATH exists only where
  // user code calls log.
  if (!limits.local_memory_dedicated && calls_inline_math_function(mdh)) c.inline_math = InlineMath::mdh;
  // And f with a loop inlined into the loop nest, its loops unrolled (KernelConfig::f_inline).
  if (!limits.local_memory_dedicated && f_inline_applies(mdh)) c.f_inline = FInline::unrolled;
  // Reductions last in the work-group loop nest: the space requires it (LOOP_ORDER_G in parameter_families.cpp).
  std::stable_partition(c.loop_order[0].begin(), c.loop_order[0].end(),
                        [&](int d) { return mdh.dims[d].combine.is_concat(); });
  shrink_private_tiles_until_valid(bound, limits, c);
  if (limits.local_memory_dedicated) {
    copy_local_caches_in_vectors(bound, c);
    const TunableGeometry g = tunable_geometry(bound, c);
    store_in_vectors(bound, g, c);
    unroll_short_loops(g, c);
  }
  check_config(bound, c, limits);
  return c;
}

}  // namespace mdh
