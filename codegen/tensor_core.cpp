#include "codegen/tensor_core.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace mdh {

namespace {

std::string without_spaces(const std::string& text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  while (out.size() >= 2 && out.front() == '(' && out.back() == ')') out = out.substr(1, out.size() - 2);
  return out;
}

// f is `x * y` of its two arguments (either order): the product the tensor cores compute.
bool multiplies_its_inputs(const Mdh& mdh) {
  const ScalarFunction& f = mdh.scalar;
  if (!f.is_expression || f.arg_names.size() != 2) return false;
  const std::string body = without_spaces(f.body.text);
  return body == f.arg_names[0] + "*" + f.arg_names[1] || body == f.arg_names[1] + "*" + f.arg_names[0];
}

// How far one step of dimension d moves access `x` through its buffer, in elements (0: the access ignores d).
int64_t element_stride(const BoundMdh& bound, const BoundAccess& x, int d) {
  const std::vector<int64_t>& extents = bound.buffer_extents[static_cast<size_t>(x.buffer)];
  int64_t stride = 1, moved = 0;
  for (size_t i = extents.size(); i-- > 0;) {
    moved += x.indices[i].coefficient[static_cast<size_t>(d)] * stride;
    stride *= extents[i];
  }
  return moved;
}

bool reads(const BoundMdh& bound, const BoundAccess& x, int d) {
  for (const BoundIndex& index : x.indices)
    if (index.coefficient[static_cast<size_t>(d)] != 0) return true;
  (void)bound;
  return false;
}

// Outermost first: the dimension that moves `x` least through memory last.
void order_by_stride(const BoundMdh& bound, const BoundAccess& x, std::vector<int>& dims) {
  std::stable_sort(dims.begin(), dims.end(), [&](int p, int q) {
    return std::abs(element_stride(bound, x, p)) > std::abs(element_stride(bound, x, q));
  });
}

int64_t extent_of(const BoundMdh& bound, const std::vector<int>& dims) {
  int64_t product = 1;
  for (int d : dims) product *= bound.dim_extents[static_cast<size_t>(d)];
  return product;
}

// The dimension along which `x` reads consecutive elements, -1 where none does.
int unit_stride_dimension(const BoundMdh& bound, const BoundAccess& x) {
  for (size_t d = 0; d < bound.dim_extents.size(); ++d)
    if (element_stride(bound, x, static_cast<int>(d)) == 1) return static_cast<int>(d);
  return -1;
}

bool contains(const std::vector<int>& dims, int d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

// The widest vector (4, 2 or 1) for tile loads of `x` whose fastest index is the last dimension of `fast`: that
// dimension steps one element, its extent is a multiple of the width (a vector never straddles a row or an edge),
// and every other dimension's step and the constant offset are multiples of it (each vector starts aligned).
int64_t widest_tile_vector(const BoundMdh& bound, const BoundAccess& x, const std::vector<int>& fast) {
  const int u = fast.back();
  if (element_stride(bound, x, u) != 1) return 1;
  const std::vector<int64_t>& extents = bound.buffer_extents[static_cast<size_t>(x.buffer)];
  int64_t offset = 0, stride = 1;
  for (size_t i = extents.size(); i-- > 0;) {
    offset += x.indices[i].offset * stride;
    stride *= extents[i];
  }
  for (int64_t width : {4, 2}) {
    bool aligned = bound.dim_extents[static_cast<size_t>(u)] % width == 0 && offset % width == 0;
    for (size_t d = 0; d < bound.dim_extents.size(); ++d)
      if (static_cast<int>(d) != u) aligned = aligned && element_stride(bound, x, static_cast<int>(d)) % width == 0;
    if (aligned) return width;
  }
  return 1;
}

}  // namespace

std::optional<TensorCoreRoles> tensor_core_roles(const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  if (mdh.inputs.size() != 2 || !multiplies_its_inputs(mdh)) return std::nullopt;
  // Float computation (half and bfloat16 compute in float); inputs of one type: float, or half or bfloat16, whose
  // values TF32 holds exactly (11 and 8 significant bits, float's exponent range), so their products are exact.
  const auto computes_in_float = [&](int buffer) {
    const ElementType& t = mdh.buffers[static_cast<size_t>(buffer)].type;
    return !t.is_struct() && compute_type(t.scalar) == ScalarType::Float;
  };
  if (!computes_in_float(mdh.output_buffer())) return std::nullopt;
  const ElementType& input_type = mdh.buffers[static_cast<size_t>(mdh.inputs[0].buffer)].type;
  for (const Access& access : mdh.inputs)
    if (access.has_window() || !computes_in_float(access.buffer) || !(mdh.buffers[access.buffer].type == input_type))
      return std::nullopt;

  TensorCoreRoles roles;
  const BoundAccess& a = bound.inputs[0];
  const BoundAccess& b = bound.inputs[1];
  for (size_t d = 0; d < mdh.dims.size(); ++d) {
    const int dim = static_cast<int>(d);
    const bool in_a = reads(bound, a, dim), in_b = reads(bound, b, dim);
    if (!mdh.dims[d].combine.is_concat()) {
      if (mdh.dims[d].combine.kind != CombineOp::Kind::Add || !in_a || !in_b) return std::nullopt;
      roles.k_dims.push_back(dim);
    } else if (in_a && !in_b) {
      roles.m_dims.push_back(dim);
    } else if (in_b && !in_a) {
      roles.n_dims.push_back(dim);
    } else {
      roles.batch_dims.push_back(dim);
    }
  }
  if (roles.m_dims.empty() || roles.n_dims.empty() || roles.k_dims.empty()) return std::nullopt;
  // M and N in the order of the larger of their input and the output: a contraction's output is many times its
  // inputs, and its stores are the kernel's traffic; a GEMM's inputs are read once per tile of the other role.
  const auto larger = [&](const BoundAccess& x) -> const BoundAccess& {
    return bound.element_count(bound.output.buffer) > bound.element_count(x.buffer) ? bound.output : x;
  };
  order_by_stride(bound, larger(a), roles.m_dims);
  order_by_stride(bound, larger(b), roles.n_dims);
  order_by_stride(bound, a, roles.k_dims);
  roles.m_extent = extent_of(bound, roles.m_dims);
  roles.n_extent = extent_of(bound, roles.n_dims);
  roles.k_extent = extent_of(bound, roles.k_dims);
  roles.batch_extent = extent_of(bound, roles.batch_dims);
  roles.a_k_major = contains(roles.m_dims, unit_stride_dimension(bound, a));
  roles.b_k_major = contains(roles.n_dims, unit_stride_dimension(bound, b));
  // Half and bfloat16 cells are converted one at a time (codegen/preamble.h load_element).
  roles.stored_as_computed = input_type.scalar == ScalarType::Float;
  roles.a_vector =
      roles.stored_as_computed ? widest_tile_vector(bound, a, roles.a_k_major ? roles.m_dims : roles.k_dims) : 1;
  roles.b_vector =
      roles.stored_as_computed ? widest_tile_vector(bound, b, roles.b_k_major ? roles.n_dims : roles.k_dims) : 1;
  return roles;
}

KernelShape kernel_shape(const BoundMdh& bound) {
  return bound.precision == ComputePrecision::tf32 && tensor_core_roles(bound) ? KernelShape::tensor_core
                                                                               : KernelShape::tiles;
}

}  // namespace mdh
