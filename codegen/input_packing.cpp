// PACK_INP's layouts and copy kernels (input_packing.h).
#include "codegen/input_packing.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>

#include "codegen/parameter_families.h"
#include "support/error.h"

namespace mdh {

namespace {

// A copy work-item moves a square of kPackTile x kPackTile elements (the spec's innermost index by the moving
// one): it reads rows of the source and writes rows of the copy, both a 64-byte cache line of floats long, so each
// line it touches is read or written whole while it stays in the L1.
constexpr int64_t kPackTile = 16;

template <class T>
std::vector<T> permuted(const std::vector<T>& values, const std::vector<int>& order) {
  std::vector<T> out;
  for (int k : order) out.push_back(values[static_cast<size_t>(k)]);
  return out;
}

// Row-major strides of extents.
std::vector<int64_t> strides_of(const std::vector<int64_t>& extents) {
  std::vector<int64_t> strides(extents.size(), 1);
  for (size_t k = extents.size(); k-- > 1;) strides[k - 1] = strides[k] * extents[k];
  return strides;
}

// The copy kernel of one packed access: work-item (x, y, z) copies the square at tile x of the spec's innermost
// index and tile y of the moving index, for the z-th combination of the other indices (row-major). Full squares
// copy without tests; squares at the edges test each element.
std::string copy_kernel_source(const BoundMdh& bound, int access, const std::string& kernel_name,
                               const PreambleOptions& options, KernelLaunch& launch) {
  const Mdh& mdh = *bound.mdh;
  const int buffer = bound.inputs[access].buffer;
  const std::vector<int64_t>& extents = bound.buffer_extents[buffer];
  const int rank = static_cast<int>(extents.size());
  const std::vector<int> order = packed_dimension_order(bound, access);
  const int moving = order.back(), inner = rank - 1;
  const std::vector<int64_t> source_strides = strides_of(extents);
  std::vector<int64_t> packed_strides(extents.size());
  {
    const std::vector<int64_t> by_position = strides_of(permuted(extents, order));
    for (int p = 0; p < rank; ++p) packed_strides[order[p]] = by_position[p];
  }
  std::vector<int> others;  // outermost first
  int64_t other_points = 1;
  for (int k = 0; k < rank; ++k)
    if (k != moving && k != inner) others.push_back(k), other_points *= extents[k];

  const std::string type = element_type_name(mdh, mdh.buffers[buffer].type, options);
  const std::string name = mdh.buffers[buffer].name;
  std::ostringstream s;
  s << "// PACK_INP " << name << ": a copy of " << name << " with its dimensions in the order";
  for (int k : order) s << ' ' << k;
  s << " (the index that moves with the output's unit-stride dimension innermost), which " << mdh.name
    << "_tunable reads in its place.\n";
  s << "__kernel void " << kernel_name << "(__global const " << type << "* restrict mdh_source, __global " << type
    << "* restrict mdh_packed) {\n";
  s << "  const long mdh_inner0 = (long)get_global_id(0)*" << kPackTile << ";\n";
  s << "  const long mdh_moving0 = (long)get_global_id(1)*" << kPackTile << ";\n";
  std::ostringstream source_base, packed_base;  // the other indices' part of the offsets
  if (!others.empty()) {
    s << "  long mdh_rest = (long)get_global_id(2);\n";
    for (size_t o = others.size(); o-- > 0;) {
      const int k = others[o];
      s << "  const long mdh_index" << k << " = mdh_rest % " << extents[k] << ";\n";
      if (o > 0) s << "  mdh_rest /= " << extents[k] << ";\n";
      source_base << "mdh_index" << k << "*" << source_strides[k] << " + ";
      packed_base << "mdh_index" << k << "*" << packed_strides[k] << " + ";
    }
  }
  s << "  __global const " << type << "* restrict mdh_from = mdh_source + " << source_base.str() << "mdh_moving0*"
    << source_strides[moving] << " + mdh_inner0;\n";
  s << "  __global " << type << "* restrict mdh_to = mdh_packed + " << packed_base.str() << "mdh_inner0*"
    << packed_strides[inner] << " + mdh_moving0;\n";
  std::ostringstream copy_text;
  copy_text << "mdh_to[mdh_y*" << packed_strides[inner] << " + mdh_x] = mdh_from[mdh_x*" << source_strides[moving]
            << " + mdh_y];";
  const std::string copy = copy_text.str();
  s << "  if (mdh_inner0 + " << kPackTile << " <= " << extents[inner] << " && mdh_moving0 + " << kPackTile
    << " <= " << extents[moving] << ") {\n";
  s << "    for (int mdh_y = 0; mdh_y < " << kPackTile << "; ++mdh_y)\n";
  s << "      for (int mdh_x = 0; mdh_x < " << kPackTile << "; ++mdh_x) " << copy << "\n";
  s << "  } else {\n";
  s << "    for (int mdh_y = 0; mdh_y < " << kPackTile << "; ++mdh_y)\n";
  s << "      for (int mdh_x = 0; mdh_x < " << kPackTile << "; ++mdh_x)\n";
  s << "        if (mdh_inner0 + mdh_y < " << extents[inner] << " && mdh_moving0 + mdh_x < " << extents[moving] << ") "
    << copy << "\n";
  s << "  }\n";
  s << "}\n";

  launch.kernel_name = kernel_name;
  launch.work_dims = others.empty() ? 2 : 3;
  const auto tiles = [](int64_t extent) { return static_cast<uint64_t>((extent + kPackTile - 1) / kPackTile); };
  launch.global_size = {tiles(extents[inner]), tiles(extents[moving]), static_cast<uint64_t>(other_points)};
  launch.local_size = std::nullopt;
  return s.str();
}

}  // namespace

int packed_moving_index(const BoundMdh& bound, int access) {
  const Mdh& mdh = *bound.mdh;
  const int d = store_dimension(bound);
  if (d < 0) return -1;
  const BoundAccess& a = bound.inputs[static_cast<size_t>(access)];
  if (mdh.inputs[static_cast<size_t>(access)].has_window()) return -1;
  for (size_t other = 0; other < bound.inputs.size(); ++other)
    if (static_cast<int>(other) != access && bound.inputs[other].buffer == a.buffer) return -1;
  int moving = -1;
  for (size_t k = 0; k < a.indices.size(); ++k) {
    if (a.indices[k].coefficient[static_cast<size_t>(d)] == 0) continue;
    if (moving >= 0) return -1;
    moving = static_cast<int>(k);
  }
  return moving == static_cast<int>(a.indices.size()) - 1 ? -1 : moving;
}

std::vector<int> packed_dimension_order(const BoundMdh& bound, int access) {
  const int moving = packed_moving_index(bound, access);
  MDH_INTERNAL_ASSERT(moving >= 0, "a packed access has an index to move innermost");
  std::vector<int> order;
  for (int k = 0; k < static_cast<int>(bound.inputs[static_cast<size_t>(access)].indices.size()); ++k)
    if (k != moving) order.push_back(k);
  order.push_back(moving);
  return order;
}

bool packs_input(const KernelConfig& config, int access) {
  return config.value_or("PACK_INP", access, 0) == 1;
}

bool packs_any_input(const BoundMdh& bound, const KernelConfig& config) {
  for (size_t a = 0; a < bound.inputs.size(); ++a)
    if (packs_input(config, static_cast<int>(a))) return true;
  return false;
}

BoundMdh packed_view(const BoundMdh& bound, const KernelConfig& config) {
  if (!packs_any_input(bound, config)) return bound;
  auto mdh = std::make_shared<Mdh>(*bound.mdh);
  BoundMdh view = bound;
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    if (!packs_input(config, static_cast<int>(a))) continue;
    const std::vector<int> order = packed_dimension_order(bound, static_cast<int>(a));
    const int buffer = bound.inputs[a].buffer;
    mdh->buffers[static_cast<size_t>(buffer)].extents = permuted(bound.mdh->buffers[buffer].extents, order);
    mdh->inputs[a].indices = permuted(bound.mdh->inputs[a].indices, order);
    view.buffer_extents[static_cast<size_t>(buffer)] = permuted(bound.buffer_extents[buffer], order);
    view.inputs[a].indices = permuted(bound.inputs[a].indices, order);
  }
  view.mdh = mdh;
  return view;
}

void add_packing_kernels(const BoundMdh& bound, const KernelConfig& config, const PreambleOptions& options,
                         LaunchPlan& plan) {
  std::vector<KernelLaunch> copies;
  std::string sources;
  for (size_t a = 0; a < bound.inputs.size(); ++a) {
    if (!packs_input(config, static_cast<int>(a))) continue;
    const int buffer = bound.inputs[a].buffer;
    const std::string& name = bound.mdh->buffers[static_cast<size_t>(buffer)].name;
    const int scratch = static_cast<int>(plan.scratch.size());
    plan.scratch.push_back({std::string("PACK_INP copy of ").append(name), bound.byte_size(buffer), false});
    for (KernelLaunch& launch : plan.kernels)
      for (KernelArg& arg : launch.args)
        if (arg.kind == KernelArg::Kind::Buffer && arg.name == name) arg = {KernelArg::Kind::Scratch, "", scratch};
    KernelLaunch copy;
    sources += '\n';
    sources += copy_kernel_source(bound, static_cast<int>(a), std::string("mdh_pack_").append(name), options, copy);
    copy.args = {{KernelArg::Kind::Buffer, name, -1}, {KernelArg::Kind::Scratch, "", scratch}};
    copies.push_back(copy);
  }
  plan.source += sources;
  plan.kernels.insert(plan.kernels.begin(), copies.begin(), copies.end());
}

}  // namespace mdh
