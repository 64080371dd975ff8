// mdh's own log for user code (INLINE_MATH = mdh; inline_math.h).
#include "codegen/inline_math.h"

#include <initializer_list>

namespace mdh {

bool calls_inline_math_function(const Mdh& mdh) {
  return mdh.calls("log");
}

std::string inline_math_definitions(bool with_double) {
  // log(x) for float: x = 2^e * m with m in [sqrt(1/2), sqrt(2)); with f = m - 1 and s = f / (2 + f),
  // log(m) = f - f*f/2 + s*(f*f/2 + R(s*s)), R a minimax polynomial in s*s (coefficients as in fdlibm's logf), and
  // e*log(2) added in two parts (hi exact in float). Subnormals are scaled by 2^23 first. Measured on every positive
  // float against log in double: at most 0.84 ulp without fused multiply-adds, 0.75 with them.
  const std::string floats =
      R"(// INLINE_MATH = mdh: user code's float log is mdh's branch-free one (codegen/inline_math.h), which the
// compiler can inline and vectorise; double and vector arguments keep the built-in.
__attribute__((overloadable, always_inline)) inline float mdh_log(float x) {
  const int subnormal = x < 1.17549435e-38f;
  const float scaled = subnormal ? x * 8388608.0f : x;
  const int bits = as_int(scaled);
  int e = ((bits >> 23) & 0xff) - 127 - (subnormal ? 23 : 0);
  float m = as_float((bits & 0x007fffff) | 0x3f800000);
  const int above = m > 1.41421356f;
  m = above ? m * 0.5f : m;
  e += above;
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s, w = z * z;
  const float r = z * (0.66666662693f + w * 0.28498786688f) + w * (0.40000972152f + w * 0.24279078841f);
  const float half_f2 = 0.5f * f * f;
  const float fe = (float)e;
  float y = fe * 6.9313812256e-01f - ((half_f2 - (s * (half_f2 + r) + fe * 9.0580006145e-06f)) - f);
  y = x == 0.0f ? -INFINITY : y;
  y = x < 0.0f || isnan(x) ? NAN : y;
  return isinf(x) && x > 0.0f ? INFINITY : y;
}
)";
  // Every other type keeps the built-in.
  auto built_in = [](std::initializer_list<const char*> types) {
    std::string overloads;
    for (const char* type : types)
      overloads +=
          std::string("__attribute__((overloadable)) inline ") + type + " mdh_log(" + type + " x) { return log(x); }\n";
    return overloads;
  };
  const std::string vectors = built_in({"float2", "float3", "float4", "float8", "float16"});
  const std::string doubles = built_in({"double", "double2", "double3", "double4", "double8", "double16"});
  // PoCL's kernel header defines log as a macro of its own: undefined first, it is not redefined with a warning.
  return floats + vectors + (with_double ? doubles : "") + "#undef log\n#define log(x) mdh_log(x)\n\n";
}

}  // namespace mdh
