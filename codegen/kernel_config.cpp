// JSON form, shape checks and the default of the tunable kernel's configuration.
#include "codegen/kernel_config.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "codegen/tuning_space.h"
#include "mdh/error.h"

namespace mdh {

namespace {

using json = nlohmann::json;

// The family tables: JSON reading and writing iterate them, so a new per-dimension family is one row here.
struct PerDimensionFamily {
  const char* name;
  std::vector<int64_t> KernelConfig::*values;
};
constexpr PerDimensionFamily kPerDimensionFamilies[] = {
    {"NUM_WG", &KernelConfig::num_wg},
    {"NUM_WI", &KernelConfig::num_wi},
    {"LT_SIZE", &KernelConfig::local_tile_size},
    {"PT_SIZE", &KernelConfig::private_tile_size},
};
constexpr const char* kOtherFamilies[] = {"MEM_INP", "MEM_RES", "ORDER_OCL", "BUF_ORDER", "LOOP_ORDER", "CMB_RES"};

constexpr Layer kLayers[] = {Layer::Global, Layer::Local, Layer::Private};
constexpr Layer kOclLayers[] = {Layer::Global, Layer::Local};

[[noreturn]] void config_error(const std::string& message) { throw UserError(SourceLoc{}, "config: " + message); }

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

bool is_permutation_of_iota(const std::vector<int>& order, int n) {
  if (static_cast<int>(order.size()) != n) return false;
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < n; ++k)
    if (sorted[k] != k) return false;
  return true;
}

Memory parse_memory(const json& j, const std::string& where) {
  if (!j.is_string()) config_error(where + ": expected one of \"none\", \"private\", \"local\", \"global\"");
  const std::string s = j.get<std::string>();
  for (Memory m : {Memory::None, Memory::Private, Memory::Local, Memory::Global})
    if (s == memory_name(m)) return m;
  config_error(where + ": unknown memory region '" + s + "' (expected none, private, local or global)");
}

Layer parse_layer(const json& j, const std::string& where) {
  if (j.is_string())
    for (Layer l : kLayers)
      if (j.get<std::string>() == layer_name(l)) return l;
  config_error(where + ": expected \"G\", \"L\" or \"P\"");
}

const json& member(const json& object, const std::string& key, const std::string& where) {
  if (!object.is_object()) config_error(where + ": expected a JSON object");
  auto it = object.find(key);
  if (it == object.end()) config_error(where + ": missing '" + key + "'");
  return *it;
}

// Every key of `object` must be one of `allowed`.
void reject_unknown_keys(const json& object, const std::vector<std::string>& allowed, const std::string& where) {
  for (auto it = object.begin(); it != object.end(); ++it)
    if (std::find(allowed.begin(), allowed.end(), it.key()) == allowed.end())
      config_error(where + ": unknown key '" + it.key() + "' (expected " + joined(allowed) + ")");
}

std::vector<std::string> layer_names(std::initializer_list<Layer> layers) {
  std::vector<std::string> names;
  for (Layer l : layers) names.push_back(layer_name(l));
  return names;
}

int64_t parse_integer(const json& j, const std::string& where) {
  if (!j.is_number_integer()) config_error(where + ": expected an integer");
  return j.get<int64_t>();
}

// {"i": v, "j": v, ...} with exactly the md_hom's dimensions.
std::vector<int64_t> parse_per_dimension(const json& j, const Mdh& mdh, const std::string& where) {
  const auto names = dim_names(mdh);
  if (!j.is_object()) config_error(where + ": expected an object with one entry per dimension (" + joined(names) + ")");
  reject_unknown_keys(j, names, where);
  std::vector<int64_t> values;
  for (const auto& n : names) values.push_back(parse_integer(member(j, n, where), where + "." + n));
  return values;
}

std::vector<std::string> access_names(const Mdh& mdh) {
  std::vector<std::string> names;
  for (int a = 0; a < static_cast<int>(mdh.inputs.size()); ++a) names.push_back(input_access_name(mdh, a));
  return names;
}

}  // namespace

const char* layer_name(Layer layer) {
  switch (layer) {
    case Layer::Global: return "G";
    case Layer::Local: return "L";
    case Layer::Private: return "P";
  }
  return "?";
}

const char* memory_name(Memory memory) {
  switch (memory) {
    case Memory::None: return "none";
    case Memory::Private: return "private";
    case Memory::Local: return "local";
    case Memory::Global: return "global";
  }
  return "?";
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
  for (const auto& family : kPerDimensionFamilies) {
    const auto& values = c.*family.values;
    if (values.size() != dims)
      config_error(std::string(family.name) + ": expected " + std::to_string(dims) + " values (one per dimension), got " +
                   std::to_string(values.size()));
    for (size_t d = 0; d < dims; ++d)
      if (values[d] < 1)
        config_error(std::string(family.name) + "." + mdh.dims[d].name + ": must be at least 1, got " +
                     std::to_string(values[d]));
  }
  for (Layer l : kLayers) {
    const int li = static_cast<int>(l);
    const std::string ln = layer_name(l);
    if (c.input_memory[li].size() != accesses)
      config_error("MEM_INP." + ln + ": expected one entry per input access");
    if (c.cache_dim_order[li].size() != accesses)
      config_error("BUF_ORDER." + ln + ": expected one entry per input access");
    for (size_t a = 0; a < accesses; ++a)
      if (!is_permutation_of_iota(c.cache_dim_order[li][a], buffer_rank(mdh, static_cast<int>(a))))
        config_error("BUF_ORDER." + ln + "." + input_access_name(mdh, static_cast<int>(a)) +
                     ": not a permutation of the buffer's dimensions 0.." +
                     std::to_string(buffer_rank(mdh, static_cast<int>(a)) - 1));
    if (!is_permutation_of_iota(c.loop_order[li], static_cast<int>(dims)))
      config_error("LOOP_ORDER." + ln + ": not a permutation of the dimensions (" + joined(dim_names(mdh)) + ")");
  }
  for (Layer l : kOclLayers) {
    const auto& map = c.ocl_dim[static_cast<int>(l)];
    if (map.size() != dims) config_error(std::string("ORDER_OCL.") + layer_name(l) + ": expected one entry per dimension");
    for (size_t d = 0; d < dims; ++d)
      if (map[d] < 0 || map[d] > 2)
        config_error(std::string("ORDER_OCL.") + layer_name(l) + "." + mdh.dims[d].name +
                     ": OpenCL dimension must be 0, 1 or 2, got " + std::to_string(map[d]));
  }
}

nlohmann::json config_to_json(const Mdh& mdh, const KernelConfig& c) {
  json j = json::object();
  for (const auto& family : kPerDimensionFamilies) {
    json per_dim = json::object();
    for (size_t d = 0; d < mdh.dims.size(); ++d) per_dim[mdh.dims[d].name] = (c.*family.values).at(d);
    j[family.name] = per_dim;
  }
  const auto accesses = access_names(mdh);
  json mem_inp = json::object(), buf_order = json::object(), loop_order = json::object(), mem_res = json::object();
  for (Layer l : kLayers) {
    const int li = static_cast<int>(l);
    json per_access = json::object(), orders = json::object(), loop = json::array();
    for (size_t a = 0; a < accesses.size(); ++a) {
      per_access[accesses[a]] = memory_name(c.input_memory[li].at(a));
      orders[accesses[a]] = c.cache_dim_order[li].at(a);
    }
    for (int d : c.loop_order[li]) loop.push_back(mdh.dims.at(d).name);
    mem_inp[layer_name(l)] = per_access;
    buf_order[layer_name(l)] = orders;
    loop_order[layer_name(l)] = loop;
    mem_res[layer_name(l)] = memory_name(c.result_memory[li]);
  }
  json order_ocl = json::object();
  for (Layer l : kOclLayers) {
    json per_dim = json::object();
    for (size_t d = 0; d < mdh.dims.size(); ++d) per_dim[mdh.dims[d].name] = c.ocl_dim[static_cast<int>(l)].at(d);
    order_ocl[layer_name(l)] = per_dim;
  }
  j["MEM_INP"] = mem_inp;
  j["MEM_RES"] = mem_res;
  j["ORDER_OCL"] = order_ocl;
  j["BUF_ORDER"] = buf_order;
  j["LOOP_ORDER"] = loop_order;
  j["CMB_RES"] = layer_name(c.combine_layer);
  return j;
}

KernelConfig config_from_json(const BoundMdh& bound, const nlohmann::json& j) {
  const Mdh& mdh = *bound.mdh;
  if (!j.is_object()) config_error("expected a JSON object with the parameter families");
  std::vector<std::string> families;
  for (const auto& f : kPerDimensionFamilies) families.push_back(f.name);
  for (const char* f : kOtherFamilies) families.push_back(f);
  reject_unknown_keys(j, families, "top level");

  KernelConfig c;
  for (const auto& family : kPerDimensionFamilies)
    c.*family.values = parse_per_dimension(member(j, family.name, "top level"), mdh, family.name);

  const auto accesses = access_names(mdh);
  const auto all_layers = layer_names({Layer::Global, Layer::Local, Layer::Private});
  const json& mem_inp = member(j, "MEM_INP", "top level");
  const json& buf_order = member(j, "BUF_ORDER", "top level");
  const json& loop_order = member(j, "LOOP_ORDER", "top level");
  const json& mem_res = member(j, "MEM_RES", "top level");
  for (const auto* object : {&mem_inp, &buf_order, &loop_order, &mem_res})
    if (object->is_object()) reject_unknown_keys(*object, all_layers, "layers");
  for (Layer l : kLayers) {
    const int li = static_cast<int>(l);
    const std::string ln = layer_name(l);
    const json& inp = member(mem_inp, ln, "MEM_INP");
    const json& orders = member(buf_order, ln, "BUF_ORDER");
    if (inp.is_object()) reject_unknown_keys(inp, accesses, "MEM_INP." + ln);
    if (orders.is_object()) reject_unknown_keys(orders, accesses, "BUF_ORDER." + ln);
    for (size_t a = 0; a < accesses.size(); ++a) {
      const std::string where_inp = "MEM_INP." + ln + "." + accesses[a];
      c.input_memory[li].push_back(parse_memory(member(inp, accesses[a], "MEM_INP." + ln), where_inp));
      const std::string where_order = "BUF_ORDER." + ln + "." + accesses[a];
      const json& order = member(orders, accesses[a], "BUF_ORDER." + ln);
      if (!order.is_array()) config_error(where_order + ": expected an array of buffer dimension positions");
      std::vector<int> positions;
      for (const auto& p : order) positions.push_back(static_cast<int>(parse_integer(p, where_order)));
      c.cache_dim_order[li].push_back(positions);
    }
    const json& loop = member(loop_order, ln, "LOOP_ORDER");
    if (!loop.is_array()) config_error("LOOP_ORDER." + ln + ": expected an array of dimension names");
    for (const auto& name : loop) {
      const int d = name.is_string() ? mdh.find_dim(name.get<std::string>()) : -1;
      if (d < 0) config_error("LOOP_ORDER." + ln + ": '" + name.dump() + "' is not a dimension of " + mdh.name);
      c.loop_order[li].push_back(d);
    }
    c.result_memory[li] = parse_memory(member(mem_res, ln, "MEM_RES"), "MEM_RES." + ln);
  }
  const json& order_ocl = member(j, "ORDER_OCL", "top level");
  if (order_ocl.is_object()) reject_unknown_keys(order_ocl, layer_names({Layer::Global, Layer::Local}), "ORDER_OCL");
  for (Layer l : kOclLayers) {
    const std::string ln = layer_name(l);
    for (int64_t v : parse_per_dimension(member(order_ocl, ln, "ORDER_OCL"), mdh, "ORDER_OCL." + ln))
      c.ocl_dim[static_cast<int>(l)].push_back(static_cast<int>(v));
  }
  c.combine_layer = parse_layer(member(j, "CMB_RES", "top level"), "CMB_RES");
  check_config_shape(bound, c);
  return c;
}

namespace {
constexpr int64_t kLongReduction = 65536;  // longer reduction dimensions are split over work-groups by default
constexpr int64_t kReductionChunk = 4096;  // elements per work-group of such a split
}  // namespace

KernelConfig default_config(const BoundMdh& bound, const DeviceLimits& limits) {
  const Mdh& mdh = *bound.mdh;
  const int dims = static_cast<int>(mdh.dims.size());
  KernelConfig c;
  c.num_wg.assign(dims, 1);
  c.num_wi.assign(dims, 1);
  c.private_tile_size.assign(dims, 1);
  c.local_tile_size = bound.dim_extents;  // reductions: one local tile per work-group, done by one work-item
  for (int l = 0; l < 2; ++l) c.ocl_dim[l].assign(dims, 2);

  // The innermost two `++` dimensions get up to 16 work-items each (OpenCL dimensions 0 and 1, so that
  // neighbouring work-items touch neighbouring output elements); every `++` dimension is split into local tiles
  // of work-items x 2 elements spread over as many work-groups as needed.
  const std::vector<int> concat = mdh.concat_dims();
  uint64_t work_group_size = 1;
  for (int n = static_cast<int>(concat.size()) - 1, rank = 0; n >= 0; --n, ++rank) {
    const int d = concat[n];
    const int ocl = std::min(rank, 2);
    int64_t wi = 1;
    if (rank < 2) {
      wi = std::min<int64_t>(16, bound.dim_extents[d]);
      while (wi > 1 && (work_group_size * wi > limits.max_work_group_size ||
                        static_cast<uint64_t>(wi) > limits.max_work_item_sizes[ocl]))
        wi /= 2;
    }
    work_group_size *= wi;
    c.num_wi[d] = wi;
    c.private_tile_size[d] = std::min<int64_t>(2, std::max<int64_t>(1, bound.dim_extents[d] / wi));
    c.local_tile_size[d] = std::min<int64_t>(bound.dim_extents[d], wi * c.private_tile_size[d]);
    c.num_wg[d] = (bound.dim_extents[d] + c.local_tile_size[d] - 1) / c.local_tile_size[d];
    c.ocl_dim[0][d] = ocl;
    c.ocl_dim[1][d] = ocl;
  }
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

  for (int l = 0; l < kLayerCount; ++l) {
    c.input_memory[l].assign(mdh.inputs.size(), Memory::None);
    for (size_t a = 0; a < mdh.inputs.size(); ++a) {
      std::vector<int> identity(buffer_rank(mdh, static_cast<int>(a)));
      for (size_t k = 0; k < identity.size(); ++k) identity[k] = static_cast<int>(k);
      c.cache_dim_order[l].push_back(identity);
    }
    for (int d = 0; d < dims; ++d) c.loop_order[l].push_back(d);
  }
  c.result_memory = {Memory::Global, Memory::Private, Memory::Private};
  c.combine_layer = Layer::Private;
  // Reductions last in the work-group loop nest: the space requires it (see tuning_space.cpp).
  std::stable_partition(c.loop_order[0].begin(), c.loop_order[0].end(),
                        [&](int d) { return mdh.dims[d].combine.is_concat(); });
  check_config(bound, c, limits);
  return c;
}

}  // namespace mdh
