#include "mdh/ir.h"

#include <algorithm>

namespace mdh {

namespace {
struct ScalarInfo {
  ScalarType type;
  const char* name;
  size_t size;
  bool floating;
  bool is_signed;
};
constexpr ScalarInfo kScalars[] = {
    {ScalarType::Float, "float", 4, true, true},   {ScalarType::Double, "double", 8, true, true},
    {ScalarType::Int, "int", 4, false, true},      {ScalarType::Uint, "uint", 4, false, false},
    {ScalarType::Long, "long", 8, false, true},    {ScalarType::Ulong, "ulong", 8, false, false},
    {ScalarType::Short, "short", 2, false, true},  {ScalarType::Ushort, "ushort", 2, false, false},
    {ScalarType::Char, "char", 1, false, true},    {ScalarType::Uchar, "uchar", 1, false, false},
};
const ScalarInfo& info(ScalarType t) {
  for (const auto& s : kScalars)
    if (s.type == t) return s;
  MDH_INTERNAL_ASSERT(false, "unknown scalar type");
  return kScalars[0];
}

template <class T>
int find_by_name(const std::vector<T>& items, const std::string& name) {
  for (size_t k = 0; k < items.size(); ++k)
    if (items[k].name == name) return static_cast<int>(k);
  return -1;
}
}  // namespace

const char* opencl_name(ScalarType t) { return info(t).name; }
size_t size_of(ScalarType t) { return info(t).size; }
bool is_floating(ScalarType t) { return info(t).floating; }
bool is_signed(ScalarType t) { return info(t).is_signed; }

std::optional<ScalarType> parse_scalar_type(const std::string& name) {
  for (const auto& s : kScalars)
    if (name == s.name) return s.type;
  return std::nullopt;
}

std::string CombineOp::spelling() const {
  switch (kind) {
    case Kind::Concat: return "++";
    case Kind::Add: return "+";
    case Kind::Mul: return "*";
    case Kind::Max: return "max";
    case Kind::Min: return "min";
    case Kind::User: return user_name;
  }
  return "?";
}

int Mdh::find_buffer(const std::string& n) const { return find_by_name(buffers, n); }
int Mdh::find_dim(const std::string& n) const { return find_by_name(dims, n); }
int Mdh::find_struct(const std::string& n) const { return find_by_name(structs, n); }
int Mdh::find_operator(const std::string& n) const { return find_by_name(operators, n); }
int Mdh::find_param(const std::string& n) const { return find_by_name(params, n); }
int Mdh::find_size(const std::string& n) const { return find_by_name(sizes, n); }

std::vector<int> Mdh::concat_dims() const {
  std::vector<int> out;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d].combine.is_concat()) out.push_back(static_cast<int>(d));
  return out;
}

std::vector<int> Mdh::reduction_dims() const {
  std::vector<int> out;
  for (size_t d = 0; d < dims.size(); ++d)
    if (!dims[d].combine.is_concat()) out.push_back(static_cast<int>(d));
  return out;
}

size_t Mdh::size_of(const ElementType& t) const {
  if (!t.is_struct()) return mdh::size_of(t.scalar);
  int s = find_struct(t.struct_name);
  MDH_INTERNAL_ASSERT(s >= 0, "unknown struct " + t.struct_name);
  return structs[s].size;
}

size_t Mdh::alignment_of(const ElementType& t) const {
  if (!t.is_struct()) return mdh::size_of(t.scalar);
  int s = find_struct(t.struct_name);
  MDH_INTERNAL_ASSERT(s >= 0, "unknown struct " + t.struct_name);
  return structs[s].alignment;
}

std::string Mdh::type_name(const ElementType& t) const {
  return t.is_struct() ? t.struct_name : std::string(opencl_name(t.scalar));
}

}  // namespace mdh
