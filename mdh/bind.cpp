#include "mdh/bind.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "mdh/describe.h"
#include "mdh/footprint.h"
#include "mdh/messages.h"
#include "support/saturating.h"

namespace mdh {

namespace {

using int128 = __int128;

constexpr int64_t kMaxDimExtent = (int64_t{1} << 31) - 1;
constexpr int128 kMaxBufferBytes = int128{1} << 62;

std::string to_string(int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  std::string digits;
  for (; v != 0; v /= 10) digits += static_cast<char>('0' + (negative ? -(v % 10) : v % 10));
  if (negative) digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

void bind_sizes(const Mdh& m, const SizeBinding& given, SizeBinding& out) {
  std::string declared;
  for (const auto& s : m.sizes) declared += (declared.empty() ? "" : " ") + s.name;
  if (declared.empty()) declared = "no sizes";
  for (const auto& [name, value] : given) {
    if (m.find_size(name) < 0) throw UserError(SourceLoc{}, msg::unknown_size_binding(name, declared));
  }
  for (const auto& s : m.sizes) {
    auto it = given.find(s.name);
    if (it == given.end()) throw UserError(s.loc, msg::size_not_bound(s.name));
    if (it->second <= 0) throw UserError(s.loc, msg::size_not_positive(s.name, it->second));
    out[s.name] = it->second;
  }
}

BoundAccess bind_access(const BoundMdh& b, const Access& a) {
  BoundAccess out;
  out.buffer = a.buffer;
  for (const auto& index : a.indices) {
    BoundIndex bi;
    bi.coefficient.assign(b.dim_extents.size(), 0);
    for (const auto& term : index.terms) bi.coefficient[term.dim] = term.coefficient.evaluate(b.sizes);
    bi.offset = index.offset.evaluate(b.sizes);
    if (index.window) {
      int64_t lo = index.window->lo.evaluate(b.sizes), hi = index.window->hi.evaluate(b.sizes);
      if (lo > hi) throw UserError(index.window->loc, msg::empty_window_bound(index.text, lo, hi));
      if (static_cast<int128>(hi) - lo >= kMaxDimExtent)
        throw UserError(index.window->loc, msg::window_too_wide(index.text, lo, hi));
      bi.has_window = true;
      bi.window_lo = lo;
      bi.window_extent = hi - lo + 1;
    }
    out.indices.push_back(std::move(bi));
  }
  return out;
}

/// Every index must stay inside its buffer dimension for every point of the iteration box (and every window
/// offset).
void check_bounds(const BoundMdh& b, const Access& a, const BoundAccess& ba, bool is_write) {
  const auto& extents = b.buffer_extents[ba.buffer];
  const std::vector<IndexRange> box = full_iteration_space(b);
  for (size_t k = 0; k < ba.indices.size(); ++k) {
    const WideIndexRange r = wide_index_range(ba.indices[k], box);
    if (r.lo < 0 || r.hi >= extents[k])
      throw UserError(a.loc, msg::access_out_of_bounds(access_text(*b.mdh, a), is_write, k + 1, to_string(r.lo),
                                                       to_string(r.hi), extents[k]));
  }
}

/// The output view is injective on the `++` box if its flattened row-major index is: with the strides sorted by
/// magnitude, each must exceed the largest reach of all smaller ones (sum of |stride| * (extent - 1)), so no two
/// points land on the same element. Sufficient, not necessary; a view it cannot prove is rejected.
void check_injective(const BoundMdh& b, const Access& a, const BoundAccess& ba) {
  const auto& extents = b.buffer_extents[ba.buffer];
  std::vector<int128> row_stride(extents.size(), 1);
  for (size_t k = extents.size(); k-- > 1;) row_stride[k - 1] = row_stride[k] * extents[k];
  struct Stride {
    int128 magnitude;
    int dim;
  };
  std::vector<Stride> strides;
  for (size_t d = 0; d < b.dim_extents.size(); ++d) {
    if (b.dim_extents[d] < 2) continue;  // a single point cannot collide with itself
    int128 s = 0;
    for (size_t k = 0; k < ba.indices.size(); ++k) s += row_stride[k] * ba.indices[k].coefficient[d];
    if (!b.mdh->dims[d].combine.is_concat()) continue;  // verify() keeps reductions out of the output
    if (s == 0) throw UserError(a.loc, msg::output_not_injective(access_text(*b.mdh, a), b.mdh->dims[d].name));
    strides.push_back(Stride{s < 0 ? -s : s, static_cast<int>(d)});
  }
  std::stable_sort(strides.begin(), strides.end(),
                   [](const Stride& x, const Stride& y) { return x.magnitude < y.magnitude; });
  int128 reach = 0;
  std::string dims;
  for (const auto& s : strides) {
    dims += (dims.empty() ? "" : ", ") + b.mdh->dims[s.dim].name;
    if (s.magnitude <= reach) throw UserError(a.loc, msg::output_not_injective(access_text(*b.mdh, a), dims));
    reach += s.magnitude * (b.dim_extents[s.dim] - 1);
  }
}

std::optional<double> bind_metric(const std::optional<SizeExpr>& e, const SizeBinding& sizes, const char* which) {
  if (!e) return std::nullopt;
  int64_t v = e->evaluate(sizes);
  if (v < 0) throw UserError(e->loc(), msg::metric_not_positive(which, v));
  return static_cast<double>(v);
}

}  // namespace

// Buffers are bound below 2^62 bytes, so their counts fit; the products over dimensions do not (20 reductions of
// 2^31 - 1 make 2^620 steps), and saturate: a caller sees "at least 2^63 - 1", never a wrapped count.
int64_t BoundMdh::element_count(int buffer) const {
  int64_t n = 1;
  for (int64_t e : buffer_extents.at(buffer)) n = saturating_mul(n, e);
  return n;
}

size_t BoundMdh::byte_size(int buffer) const {
  return static_cast<size_t>(element_count(buffer)) * mdh->size_of(mdh->buffers.at(buffer).type);
}

int64_t BoundMdh::reduction_size() const {
  int64_t n = 1;
  for (int d : mdh->reduction_dims()) n = saturating_mul(n, dim_extents[d]);
  return n;
}

int64_t BoundMdh::output_points() const {
  int64_t n = 1;
  for (int d : mdh->concat_dims()) n = saturating_mul(n, dim_extents[d]);
  return n;
}

const char* precision_name(ComputePrecision precision) {
  return precision == ComputePrecision::tf32 ? "tf32" : "fp32";
}

ComputePrecision parse_precision(const std::string& text) {
  if (text == "fp32") return ComputePrecision::fp32;
  if (text == "tf32") return ComputePrecision::tf32;
  throw UserError("unknown precision '" + text + "' (accepted: fp32, tf32)");
}

SizeBinding parse_size_binding(const std::string& text) {
  SizeBinding out;
  size_t pos = 0;
  auto skip_separators = [&] {
    while (pos < text.size() && (text[pos] == ',' || std::isspace(static_cast<unsigned char>(text[pos])))) ++pos;
  };
  for (skip_separators(); pos < text.size(); skip_separators()) {
    size_t start = pos;
    while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) || text[pos] == '_')) ++pos;
    std::string name = text.substr(start, pos - start);
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
      throw UserError(SourceLoc{}, msg::malformed_size_binding(
                                       text, "expected a size name at position " + std::to_string(start + 1)));
    if (pos >= text.size() || text[pos] != '=')
      throw UserError(SourceLoc{}, msg::malformed_size_binding(text, "expected '=' after " + msg::q(name)));
    ++pos;
    bool negative = pos < text.size() && text[pos] == '-';
    if (negative) ++pos;
    size_t digits_start = pos;
    int64_t value = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (__builtin_mul_overflow(value, 10, &value) || __builtin_add_overflow(value, text[pos] - '0', &value))
        throw UserError(SourceLoc{},
                        msg::malformed_size_binding(text, "the value of " + msg::q(name) + " does not fit in 64 bits"));
      ++pos;
    }
    if (pos == digits_start ||
        (pos < text.size() && text[pos] != ',' && !std::isspace(static_cast<unsigned char>(text[pos]))))
      throw UserError(SourceLoc{}, msg::malformed_size_binding(text, "expected an integer value for " + msg::q(name)));
    if (!out.emplace(name, negative ? -value : value).second) throw UserError(SourceLoc{}, msg::size_bound_twice(name));
  }
  return out;
}

BoundMdh bind(std::shared_ptr<const Mdh> mdh, SizeBinding sizes) {
  MDH_INTERNAL_ASSERT(mdh != nullptr, "bind() without an md_hom");
  const Mdh& m = *mdh;
  BoundMdh b;
  b.mdh = mdh;
  bind_sizes(m, sizes, b.sizes);

  for (const auto& d : m.dims) {
    int64_t n = d.extent.evaluate(b.sizes);
    if (n < 1 || n > kMaxDimExtent)
      throw UserError(d.loc, msg::dim_extent_out_of_range(d.name, d.extent.to_string(), n));
    b.dim_extents.push_back(n);
  }
  for (const auto& buffer : m.buffers) {
    std::vector<int64_t> extents;
    int128 bytes = static_cast<int128>(m.size_of(buffer.type));
    for (size_t k = 0; k < buffer.extents.size(); ++k) {
      int64_t e = buffer.extents[k].evaluate(b.sizes);
      if (e < 1)
        throw UserError(buffer.extents[k].loc().line > 0 ? buffer.extents[k].loc() : buffer.loc,
                        msg::buffer_extent_not_positive(buffer.name, k + 1, buffer.extents[k].to_string(), e));
      bytes *= e;
      if (bytes > kMaxBufferBytes) throw UserError(buffer.loc, msg::buffer_too_large(buffer.name));
      extents.push_back(e);
    }
    b.buffer_extents.push_back(std::move(extents));
  }
  for (const auto& in : m.inputs) {
    b.inputs.push_back(bind_access(b, in));
    check_bounds(b, in, b.inputs.back(), false);
  }
  b.output = bind_access(b, m.output);
  check_bounds(b, m.output, b.output, true);
  check_injective(b, m.output, b.output);
  b.flops = bind_metric(m.flops, b.sizes, "flops");
  b.bytes = bind_metric(m.bytes, b.sizes, "bytes");
  return b;
}

BoundMdh bind(std::shared_ptr<Mdh> mdh, SizeBinding sizes) {
  return bind(std::shared_ptr<const Mdh>(std::move(mdh)), std::move(sizes));
}

}  // namespace mdh
