#include "runtime/verify_result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "support/error.h"
#include "support/storage_float.h"

namespace mdh {

namespace {
// One scalar inside an element: the whole element for a scalar buffer, one field (entry) for a struct.
struct Component {
  std::string suffix;  // "", ".weight", ".field[3]"
  ScalarType type = ScalarType::Float;
  size_t offset = 0;
};

// "[k]", built by appending: GCC 12 warns falsely (-Wrestrict) about "[" + std::to_string(k).
std::string bracketed(int64_t k) {
  return std::string("[").append(std::to_string(k)).append("]");
}

std::vector<Component> components_of(const HostBuffer& buffer, const Mdh& mdh) {
  if (!buffer.type.is_struct()) return {{"", buffer.type.scalar, 0}};
  int s = mdh.find_struct(buffer.type.struct_name);
  MDH_INTERNAL_ASSERT(s >= 0, "unknown struct " + buffer.type.struct_name);
  std::vector<Component> out;
  for (const StructField& field : mdh.structs[s].fields) {
    int64_t entries = 1;
    for (int64_t e : field.array_extents) entries *= e;
    for (int64_t k = 0; k < entries; ++k) {
      std::string suffix = "." + field.name;
      // Row-major indices of entry k within the field's array extents.
      int64_t rest = k;
      std::string index;
      for (size_t d = field.array_extents.size(); d-- > 0;) {
        index.insert(0, bracketed(rest % field.array_extents[d]));
        rest /= field.array_extents[d];
      }
      out.push_back({suffix + index, field.type, field.offset + static_cast<size_t>(k) * size_of(field.type)});
    }
  }
  return out;
}

template <class T>
T load(const unsigned char* at) {
  T v;
  std::memcpy(&v, at, sizeof(T));
  return v;
}

double load_floating(ScalarType type, const unsigned char* at) {
  switch (type) {
    case ScalarType::Float:
      return static_cast<double>(load<float>(at));
    case ScalarType::Half:
      return static_cast<double>(half_to_float(load<uint16_t>(at)));
    case ScalarType::Bfloat16:
      return static_cast<double>(bfloat16_to_float(load<uint16_t>(at)));
    default:
      return load<double>(at);
  }
}

// Integers as long double: exact for every 64-bit value's comparison against another of the same type, and
// good enough for the error figures.
long double load_integer(ScalarType type, const unsigned char* at) {
  switch (type) {
    case ScalarType::Int:
      return load<int32_t>(at);
    case ScalarType::Uint:
      return load<uint32_t>(at);
    case ScalarType::Long:
      return load<int64_t>(at);
    case ScalarType::Ulong:
      return load<uint64_t>(at);
    case ScalarType::Short:
      return load<int16_t>(at);
    case ScalarType::Ushort:
      return load<uint16_t>(at);
    case ScalarType::Char:
      return load<int8_t>(at);
    case ScalarType::Uchar:
      return load<uint8_t>(at);
    default:
      MDH_INTERNAL_ASSERT(false, "not an integer type");
      return 0;
  }
}

std::string print_floating(double v, ScalarType type) {
  char text[40];
  std::snprintf(text, sizeof text, type == ScalarType::Double ? "%.17g" : "%.9g", v);
  return text;
}

std::string print_short(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

std::string position_of(int64_t element, const std::vector<int64_t>& extents) {
  std::string out;
  for (size_t d = extents.size(); d-- > 0;) {
    out.insert(0, bracketed(element % extents[d]));
    element /= extents[d];
  }
  return out;
}

template <class T>
double largest_finite_magnitude_of(const HostBuffer& reference) {
  double magnitude = 0.0;
  const int64_t count = reference.element_count();
  for (int64_t e = 0; e < count; ++e) {
    const double a = std::fabs(static_cast<double>(load<T>(reference.bytes.data() + e * sizeof(T))));
    magnitude = std::max(magnitude, a <= std::numeric_limits<double>::max() ? a : 0.0);  // NaN and infinity: 0
  }
  return magnitude;
}

// The check of a scalar floating output where every value is finite and inside the tolerance, the tuner's case: one
// tight pass over each buffer, not the general loop's loads by type and per-value branches (on Jacobi 3D 512^3's
// 134 M values 0.24 s here instead of 1.15 s). Returns nullopt where some value needs the general loop: a NaN, an
// infinity (in either buffer, the error is then NaN or infinite) or a mismatch, whose report that loop writes.
template <class Value, class Reference>
std::optional<VerifyReport> check_finite_and_close(const HostBuffer& output, const HostBuffer& reference, int64_t count,
                                                   double tol) {
  MDH_INTERNAL_ASSERT(output.element_size == sizeof(Value) && reference.element_size == sizeof(Reference),
                      "scalar element sizes differ from their type's for " + output.name);
  const unsigned char* values = output.bytes.data();
  const unsigned char* references = reference.bytes.data();
  VerifyReport report;
  report.tolerance = tol;
  report.magnitude = largest_finite_magnitude_of<Reference>(reference);
  report.compared = count;
  int64_t outside = 0;
  for (int64_t e = 0; e < count; ++e) {
    const double r = static_cast<double>(load<Reference>(references + e * sizeof(Reference)));
    const double x = static_cast<double>(load<Value>(values + e * sizeof(Value)));
    const double abs_error = std::fabs(x - r), ref_abs = std::fabs(r);
    // Not below the bound: NaN; an infinite error (whose bound may be infinite too) is the general loop's as well.
    outside += !(abs_error <= tol * (ref_abs + report.magnitude) && abs_error <= std::numeric_limits<double>::max());
    report.max_abs_error = std::max(report.max_abs_error, abs_error);
    report.max_rel_error = std::max(report.max_rel_error, ref_abs > 0.0 ? abs_error / ref_abs : 0.0);
  }
  if (outside > 0) return std::nullopt;
  return report;
}
}  // namespace

double machine_epsilon(ScalarType type) {
  if (type == ScalarType::Float) return 0x1p-23;
  if (type == ScalarType::Double) return 0x1p-52;
  return 0.0;
}

double storage_rounding_tolerance(ScalarType type) {
  return is_storage_only(type) ? std::ldexp(1.0, -fraction_bits(type)) : 0.0;
}

double result_tolerance(ScalarType type, int64_t reduction_size, ComputePrecision precision) {
  // The arithmetic's part is that of the compute type (float for half and bfloat16), plus the final rounding to a
  // storage type: tol = 16 * eps(compute) * sqrt(max(R, 64)) + tf32 products + 2u(storage).
  const ScalarType computed = compute_type(type);
  const double tf32_products = computed == ScalarType::Float ? product_rounding_tolerance(precision) : 0.0;
  return 16.0 * machine_epsilon(computed) * std::sqrt(static_cast<double>(std::max<int64_t>(reduction_size, 64))) +
         tf32_products + storage_rounding_tolerance(type);
}

double largest_finite_magnitude(const HostBuffer& reference) {
  MDH_INTERNAL_ASSERT(!reference.type.is_struct() && is_floating(reference.type.scalar),
                      "M of a reference that is not scalar floating: " + reference.name);
  if (is_storage_only(reference.type.scalar)) return largest_finite_magnitude_of<double>(float_to_double(reference));
  return reference.type.scalar == ScalarType::Double ? largest_finite_magnitude_of<double>(reference)
                                                     : largest_finite_magnitude_of<float>(reference);
}

VerifyReport verify_result(const HostBuffer& output, const HostBuffer& reference, const Mdh& mdh,
                           int64_t reduction_size, size_t max_reported, ComputePrecision precision) {
  MDH_INTERNAL_ASSERT(output.extents == reference.extents, "output and reference extents differ for " + output.name);
  const bool widened = !output.type.is_struct() && compute_type(output.type.scalar) == ScalarType::Float &&
                       reference.type == ElementType{ScalarType::Double, ""};
  MDH_INTERNAL_ASSERT(output.type == reference.type || widened, "reference type does not fit output " + output.name);
  const std::vector<Component> out_parts = components_of(output, mdh);
  const std::vector<Component> ref_parts = widened ? std::vector<Component>{{"", ScalarType::Double, 0}} : out_parts;
  const int64_t count = output.element_count();
  MDH_INTERNAL_ASSERT(output.bytes.size() == static_cast<size_t>(count) * output.element_size &&
                          reference.bytes.size() == static_cast<size_t>(count) * reference.element_size,
                      "buffer size mismatch for " + output.name);

  if (!output.type.is_struct() && is_floating(output.type.scalar)) {
    const double tol = result_tolerance(output.type.scalar, reduction_size, precision);
    std::optional<VerifyReport> fast;
    if (output.type.scalar == ScalarType::Double)
      fast = check_finite_and_close<double, double>(output, reference, count, tol);
    else if (is_storage_only(output.type.scalar) && widened)
      fast = check_finite_and_close<double, double>(float_to_double(output), reference, count, tol);
    else if (is_storage_only(output.type.scalar))
      fast = check_finite_and_close<double, double>(float_to_double(output), float_to_double(reference), count, tol);
    else if (widened)
      fast = check_finite_and_close<float, double>(output, reference, count, tol);
    else
      fast = check_finite_and_close<float, float>(output, reference, count, tol);
    if (fast) return *fast;
  }

  VerifyReport report;
  for (size_t c = 0; c < out_parts.size(); ++c) {
    const Component& part = out_parts[c];
    const Component& ref_part = ref_parts[c];
    const bool floating = is_floating(part.type);
    const double tol = result_tolerance(part.type, reduction_size, precision);
    if (floating && report.tolerance == 0.0) report.tolerance = tol;

    // M for this component: the largest finite |ref|.
    double magnitude = 0.0;
    if (floating)
      for (int64_t e = 0; e < count; ++e) {
        double r = std::fabs(
            load_floating(ref_part.type, reference.bytes.data() + e * reference.element_size + ref_part.offset));
        if (std::isfinite(r)) magnitude = std::max(magnitude, r);
      }
    report.magnitude = std::max(report.magnitude, magnitude);

    for (int64_t e = 0; e < count; ++e) {
      const unsigned char* x_at = output.bytes.data() + e * output.element_size + part.offset;
      const unsigned char* r_at = reference.bytes.data() + e * reference.element_size + ref_part.offset;
      ++report.compared;
      bool ok = false, not_finite = false;
      double abs_error = 0.0, ref_abs = 0.0;
      std::string x_text, r_text;
      if (floating) {
        double x = load_floating(part.type, x_at), r = load_floating(ref_part.type, r_at);
        if (std::isnan(x) || std::isnan(r)) {
          ok = std::isnan(x) && std::isnan(r);
          not_finite = !ok;
        } else if (x == r) {
          ok = true;  // also equal infinities
        } else if (std::isinf(x) || std::isinf(r)) {
          ok = false;  // the bound below would be inf <= inf
          not_finite = true;
        } else {
          abs_error = std::fabs(x - r);
          ref_abs = std::fabs(r);
          ok = abs_error <= tol * (ref_abs + magnitude);
        }
        if (!ok) x_text = print_floating(x, part.type), r_text = print_floating(r, ref_part.type);
      } else {
        long double x = load_integer(part.type, x_at), r = load_integer(part.type, r_at);
        ok = x == r;
        abs_error = static_cast<double>(x > r ? x - r : r - x);
        ref_abs = static_cast<double>(r < 0 ? -r : r);
        if (!ok) {
          char xs[32], rs[32];
          std::snprintf(xs, sizeof xs, "%.0Lf", x);
          std::snprintf(rs, sizeof rs, "%.0Lf", r);
          x_text = xs, r_text = rs;
        }
      }
      if (std::isfinite(abs_error)) {
        report.max_abs_error = std::max(report.max_abs_error, abs_error);
        if (ref_abs > 0.0) report.max_rel_error = std::max(report.max_rel_error, abs_error / ref_abs);
      }
      if (!ok) {
        ++report.mismatches;
        if (not_finite) ++report.not_finite;
        if (report.first_mismatches.size() < max_reported)
          report.first_mismatches.push_back({e, position_of(e, output.extents) + part.suffix, x_text, r_text});
      }
    }
  }
  report.passed = report.mismatches == 0;
  return report;
}

std::string VerifyReport::summary() const {
  // Errors are measured between finite values only: say so where NaNs or infinities are what failed.
  const std::string finite = not_finite > 0 ? " of the finite values" : "";
  std::string out = std::string(passed ? "PASS" : "FAIL") + ": max abs error" + finite + " " +
                    print_short(max_abs_error) + ", max rel error " + print_short(max_rel_error) + "; " +
                    std::to_string(mismatches) + " of " + std::to_string(compared) + " values outside the tolerance";
  if (not_finite > 0)
    out += ", " + std::to_string(not_finite) + " of them NaN or infinite where the reference is not (or the reverse)";
  out += " (";
  if (tolerance > 0.0)
    out += "|x - ref| <= " + print_short(tolerance) + " * (|ref| + M), M = " + print_short(magnitude) + ")";
  else
    out += "integers compared exactly)";
  for (const ResultMismatch& m : first_mismatches)
    out += "\n  " + m.position + " = " + m.value + ", reference " + m.reference;
  if (mismatches > static_cast<int64_t>(first_mismatches.size()))
    out += "\n  ... and " + std::to_string(mismatches - static_cast<int64_t>(first_mismatches.size())) + " more";
  return out;
}

}  // namespace mdh
