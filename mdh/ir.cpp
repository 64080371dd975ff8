#include "mdh/ir.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

#include "mdh/combine_operator.h"

namespace mdh {

namespace {
struct ScalarInfo {
  ScalarType type;
  const char* name;
  size_t size;
  bool floating;
  bool is_signed;
  int fraction_bits;
  const char* lowest;   // OpenCL C of the smallest value (the identity of max); -INFINITY for floating types
  const char* highest;  // of the largest value (the identity of min); INFINITY for floating types
};
constexpr ScalarInfo kScalars[] = {
    {ScalarType::Float, "float", 4, true, true, 23, "-INFINITY", "INFINITY"},
    {ScalarType::Double, "double", 8, true, true, 52, "-INFINITY", "INFINITY"},
    {ScalarType::Int, "int", 4, false, true, 0, "INT_MIN", "INT_MAX"},
    {ScalarType::Uint, "uint", 4, false, false, 0, "0", "UINT_MAX"},
    {ScalarType::Long, "long", 8, false, true, 0, "LONG_MIN", "LONG_MAX"},
    {ScalarType::Ulong, "ulong", 8, false, false, 0, "0", "ULONG_MAX"},
    {ScalarType::Short, "short", 2, false, true, 0, "SHRT_MIN", "SHRT_MAX"},
    {ScalarType::Ushort, "ushort", 2, false, false, 0, "0", "USHRT_MAX"},
    {ScalarType::Char, "char", 1, false, true, 0, "CHAR_MIN", "CHAR_MAX"},
    {ScalarType::Uchar, "uchar", 1, false, false, 0, "0", "UCHAR_MAX"},
    // Storage types: their lowest and highest are those of float, the type they compute in.
    {ScalarType::Half, "half", 2, true, true, 10, "-INFINITY", "INFINITY"},
    {ScalarType::Bfloat16, "bfloat16", 2, true, true, 7, "-INFINITY", "INFINITY"},
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

const char* opencl_name(ScalarType t) {
  return info(t).name;
}
size_t size_of(ScalarType t) {
  return info(t).size;
}
bool is_floating(ScalarType t) {
  return info(t).floating;
}
bool is_signed(ScalarType t) {
  return info(t).is_signed;
}
bool is_storage_only(ScalarType t) {
  return t == ScalarType::Half || t == ScalarType::Bfloat16;
}
ScalarType compute_type(ScalarType t) {
  return is_storage_only(t) ? ScalarType::Float : t;
}
const char* opencl_storage_name(ScalarType t) {
  return t == ScalarType::Bfloat16 ? "ushort" : info(t).name;
}
int fraction_bits(ScalarType t) {
  return info(t).fraction_bits;
}
const char* opencl_lowest(ScalarType t) {
  return info(t).lowest;
}
const char* opencl_highest(ScalarType t) {
  return info(t).highest;
}

const std::vector<ScalarType>& all_scalar_types() {
  static const std::vector<ScalarType> kTypes = [] {
    std::vector<ScalarType> types;
    for (const auto& s : kScalars) types.push_back(s.type);
    return types;
  }();
  return kTypes;
}

std::optional<ScalarType> parse_scalar_type(const std::string& name) {
  for (const auto& s : kScalars)
    if (name == s.name) return s.type;
  return std::nullopt;
}

std::string CombineOp::spelling() const {
  return kind == Kind::User ? user_name : builtin_combine_operator(kind).spelling;
}

bool CombineOp::is_commutative() const {
  return kind != Kind::User && builtin_combine_operator(kind).commutative;
}

int Mdh::find_buffer(const std::string& n) const {
  return find_by_name(buffers, n);
}
int Mdh::find_dim(const std::string& n) const {
  return find_by_name(dims, n);
}
int Mdh::find_struct(const std::string& n) const {
  return find_by_name(structs, n);
}
int Mdh::find_operator(const std::string& n) const {
  return find_by_name(operators, n);
}
int Mdh::find_param(const std::string& n) const {
  return find_by_name(params, n);
}
int Mdh::find_size(const std::string& n) const {
  return find_by_name(sizes, n);
}

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

size_t Mdh::compute_size_of(const ElementType& t) const {
  return t.is_struct() ? size_of(t) : mdh::size_of(compute_type(t.scalar));
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

bool Mdh::calls(const std::string& function) const {
  return std::binary_search(called_functions.begin(), called_functions.end(), function);
}

namespace {
bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

void add_called_functions(const std::string& code, std::set<std::string>& names) {
  for (size_t at = 0; at < code.size();) {
    if (!is_identifier_char(code[at]) || std::isdigit(static_cast<unsigned char>(code[at]))) {
      // Digits start no identifier (1e5f, 0x1p-3f are numbers): skip the whole run.
      while (at < code.size() && is_identifier_char(code[at])) ++at;
      if (at < code.size() && !is_identifier_char(code[at])) ++at;
      continue;
    }
    const size_t begin = at;
    while (at < code.size() && is_identifier_char(code[at])) ++at;
    if (begin > 0 && code[begin - 1] == '.') continue;  // a field or member, not a function
    size_t next = at;
    while (next < code.size() && std::isspace(static_cast<unsigned char>(code[next]))) ++next;
    if (next < code.size() && code[next] == '(') names.insert(code.substr(begin, at - begin));
  }
}
}  // namespace

void note_called_functions(Mdh& mdh) {
  std::set<std::string> in_f;
  add_called_functions(mdh.scalar.body.text, in_f);
  mdh.scalar.has_for_loop = in_f.count("for") != 0;
  std::set<std::string> names = std::move(in_f);
  auto mentions_unroll = [](const UserCode& code) { return code.text.find("unroll") != std::string::npos; };
  mdh.scalar.directs_unrolling =
      mentions_unroll(mdh.scalar.body) || std::any_of(mdh.helpers.begin(), mdh.helpers.end(), mentions_unroll);
  for (const UserCode& helper : mdh.helpers) add_called_functions(helper.text, names);
  for (const UserOperator& op : mdh.operators) {
    add_called_functions(op.body.text, names);
    add_called_functions(op.identity.text, names);
  }
  mdh.called_functions.assign(names.begin(), names.end());
}

}  // namespace mdh
