// Names and shape checks of the tunable kernel's configuration (codegen/kernel_config.h).
#include "codegen/kernel_config.h"

#include "codegen/permutation.h"
#include "support/error.h"

namespace mdh {

namespace {

constexpr Layer kLayers[] = {Layer::Global, Layer::Local, Layer::Private};
constexpr Layer kOclLayers[] = {Layer::Global, Layer::Local};

std::string dimension_list(const Mdh& mdh) {
  std::string s;
  for (size_t d = 0; d < mdh.dims.size(); ++d) s += (d ? ", " : "") + mdh.dims[d].name;
  return s;
}

}  // namespace

void config_error(const std::string& message) {
  throw UserError(SourceLoc{}, "config: " + message);
}

int input_rank(const Mdh& mdh, int access) {
  return static_cast<int>(mdh.buffers.at(mdh.inputs.at(access).buffer).extents.size());
}

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
  // Half and bfloat16 results accumulate in float accumulators; the last work-group's write-out rounds them.
  const ScalarType t = compute_type(mdh.result_type().scalar);
  return t == ScalarType::Float || t == ScalarType::Int || t == ScalarType::Uint;
}

int64_t KernelConfig::value(const std::string& family, int member) const {
  const auto it = family_values.find({family, member});
  MDH_INTERNAL_ASSERT(it != family_values.end(), "configuration without a value of " + family);
  return it->second;
}

int64_t KernelConfig::value_or(const std::string& family, int member, int64_t otherwise) const {
  const auto it = family_values.find({family, member});
  return it == family_values.end() ? otherwise : it->second;
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
      if (!is_permutation_of_iota(c.cache_dim_order[li][a], input_rank(mdh, static_cast<int>(a))))
        config_error("BUF_ORDER_" + ln + "_" + input_access_name(mdh, static_cast<int>(a)) +
                     ": not a permutation of the buffer's dimensions 0.." +
                     std::to_string(input_rank(mdh, static_cast<int>(a)) - 1));
    if (!is_permutation_of_iota(c.loop_order[li], static_cast<int>(dims)))
      config_error("LOOP_ORDER_" + ln + ": not a permutation of the dimensions (" + dimension_list(mdh) + ")");
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

}  // namespace mdh
