// Size binding: parsing of --size, exact diagnostics, bounds over the whole iteration space, injectivity.
#include "mdh/bind.h"

#include <gtest/gtest.h>

#include "mdh/parser.h"

namespace mdh {
namespace {

std::string bind_error(const std::string& text, const std::string& sizes) {
  auto m = parse_spec(text, "b.mdh");
  try {
    bind(m, parse_size_binding(sizes));
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

const char* const kGemm =
    "md_hom gemm\nsize I J K\ninput A : float[I][K]\ninput B : float[K][J]\noutput C : float[I][J]\n"
    "view (i < I, j < J, k < K) : A[i][k], B[k][j] -> C[i][j]\nscalar (a, b) = a * b\ncombine (++, ++, +)\n"
    "flops 2*I*J*K\n";

TEST(ParseSizeBinding, CommasAndSpaces) {
  EXPECT_EQ(parse_size_binding("I=1024,J=512"), (SizeBinding{{"I", 1024}, {"J", 512}}));
  EXPECT_EQ(parse_size_binding(" I=1 J=2 , K=3 "), (SizeBinding{{"I", 1}, {"J", 2}, {"K", 3}}));
  EXPECT_EQ(parse_size_binding(""), SizeBinding{});
  EXPECT_EQ(parse_size_binding("I=-4"), (SizeBinding{{"I", -4}}));
}

TEST(ParseSizeBinding, MalformedText) {
  auto message = [](const std::string& text) -> std::string {
    try {
      parse_size_binding(text);
    } catch (const UserError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message("I=10x"),
            "error: malformed size binding 'I=10x': expected an integer value for 'I' (expected "
            "NAME=INTEGER[,NAME=INTEGER...])");
  EXPECT_EQ(message("I"),
            "error: malformed size binding 'I': expected '=' after 'I' (expected NAME=INTEGER[,NAME=INTEGER...])");
  EXPECT_EQ(message("=3"),
            "error: malformed size binding '=3': expected a size name at position 1 (expected "
            "NAME=INTEGER[,NAME=INTEGER...])");
  EXPECT_EQ(
      message("I=99999999999999999999"),
      "error: malformed size binding 'I=99999999999999999999': the value of 'I' does not fit in 64 bits (expected "
      "NAME=INTEGER[,NAME=INTEGER...])");
  EXPECT_EQ(message("I=1,I=2"), "error: size 'I' is bound twice");
}

TEST(Bind, GemmNumbers) {
  BoundMdh b = bind(parse_spec(kGemm, "b.mdh"), parse_size_binding("I=10,J=500,K=64"));
  EXPECT_EQ(b.dim_extents, (std::vector<int64_t>{10, 500, 64}));
  EXPECT_EQ(b.buffer_extents[1], (std::vector<int64_t>{64, 500}));
  EXPECT_EQ(b.element_count(2), 5000);
  EXPECT_EQ(b.byte_size(0), 10u * 64 * 4);
  EXPECT_EQ(b.reduction_size(), 64);
  EXPECT_EQ(b.output_points(), 5000);
  EXPECT_DOUBLE_EQ(*b.flops, 640000.0);
  EXPECT_FALSE(b.bytes.has_value());
  EXPECT_EQ(b.inputs[1].indices[0].coefficient, (std::vector<int64_t>{0, 0, 1}));
  EXPECT_EQ(b.output.indices[1].coefficient, (std::vector<int64_t>{0, 1, 0}));
}

TEST(Bind, UnqualifiedCallsResolveToMdhBind) {
  // shared_ptr and map live in std, so argument-dependent lookup also offers std::bind; these must still compile
  // to mdh::bind for const and mutable IRs, lvalue and temporary bindings.
  std::shared_ptr<const Mdh> constant = parse_spec(kGemm, "b.mdh");
  SizeBinding sizes = parse_size_binding("I=2,J=3,K=4");
  BoundMdh a = bind(constant, sizes);
  BoundMdh b = bind(parse_spec(kGemm, "b.mdh"), parse_size_binding("I=2,J=3,K=4"));
  EXPECT_EQ(a.dim_extents, b.dim_extents);
}

TEST(Bind, WindowsBind) {
  auto m = parse_spec_file(std::string(MDH_SOURCE_DIR) + "/apps/gaussian.mdh");
  BoundMdh b = bind(m, parse_size_binding("I=7,J=5"));
  const BoundIndex& row = b.inputs[0].indices[0];
  EXPECT_TRUE(row.has_window);
  EXPECT_EQ(row.window_lo, 0);
  EXPECT_EQ(row.window_extent, 5);
  EXPECT_EQ(b.buffer_extents[0], (std::vector<int64_t>{11, 9}));
}

TEST(Bind, MissingUnknownAndNonPositiveSizes) {
  EXPECT_EQ(bind_error(kGemm, "I=4,J=4"), "b.mdh:2:10: error: size 'K' is not bound (use --size K=<value>)");
  // The hint names the value as a placeholder, also for a size called N (not "use --size N=N").
  EXPECT_EQ(bind_error("md_hom copy\nsize N\ninput x : float[N]\noutput y : float[N]\nview (i < N) : x[i] -> y[i]\n"
                       "scalar (a) = a\ncombine (++)\n",
                       ""),
            "b.mdh:2:6: error: size 'N' is not bound (use --size N=<value>)");
  EXPECT_EQ(bind_error(kGemm, "I=4,J=4,K=4,L=2"), "error: unknown size 'L' in --size (the spec declares I J K)");
  EXPECT_EQ(bind_error(kGemm, "I=4,J=0,K=4"), "b.mdh:2:8: error: size 'J' must be positive, got 0");
}

TEST(Bind, NonPositiveExtent) {
  const std::string text =
      "md_hom t\nsize N\ninput A : float[N - 4]\noutput B : float[N]\nview (i < N) : A[0] -> B[i]\nscalar (a) = a\n"
      "combine (++)\n";
  EXPECT_EQ(bind_error(text, "N=3"),
            "b.mdh:3:19: error: extent 1 of buffer 'A' (N - 4) is -1 for the given sizes; it must be positive");
}

TEST(Bind, DimensionExtentBelow2To31) {
  const std::string text =
      "md_hom t\nsize N\ninput A : float[N*N]\noutput B : float[N*N]\nview (i < N*N) : A[i] -> B[i]\nscalar (a) = a\n"
      "combine (++)\n";
  EXPECT_EQ(bind_error(text, "N=65536"),
            "b.mdh:5:7: error: dimension 'i' has extent N*N = 4294967296 for the given sizes; it must be between 1 "
            "and 2^31-1");
}

TEST(Bind, OutOfBoundsNamesAccessDimensionRangeAndExtent) {
  const std::string text =
      "md_hom t\nsize I J\ninput img : float[I+2][J+4]\noutput out : float[I][J]\n"
      "view (i < I, j < J) : img[i][j + 0..4] -> out[i][j]\nscalar (w) = w(0)\ncombine (++, ++)\n";
  EXPECT_EQ(bind_error(text, "I=4,J=5"), "no error");
  const std::string narrow =
      "md_hom t\nsize I J\ninput img : float[I+2][J+3]\noutput out : float[I][J]\n"
      "view (i < I, j < J) : img[i][j + 0..4] -> out[i][j]\nscalar (w) = w(0)\ncombine (++, ++)\n";
  EXPECT_EQ(bind_error(narrow, "I=4,J=5"),
            "b.mdh:5:23: error: access 'img[i][j + 0..4]' reads dimension 2 at indices 0..8 but the extent there is 8");
  const std::string negative =
      "md_hom t\nsize I\ninput x : float[I]\noutput y : float[I]\n"
      "view (i < I) : x[i - 1] -> y[i]\nscalar (a) = a\ncombine (++)\n";
  EXPECT_EQ(bind_error(negative, "I=4"),
            "b.mdh:5:16: error: access 'x[i - 1]' reads dimension 1 at indices -1..2 but the extent there is 4");
  const std::string write =
      "md_hom t\nsize I\ninput x : float[I]\noutput y : float[I]\n"
      "view (i < I) : x[i] -> y[I - i]\nscalar (a) = a\ncombine (++)\n";
  EXPECT_EQ(bind_error(write, "I=4"),
            "b.mdh:5:24: error: access 'y[I - i]' writes dimension 1 at indices 1..4 but the extent there is 4");
}

TEST(Bind, HugeCoefficientsDoNotOverflow) {
  const std::string text =
      "md_hom t\nsize I H\ninput x : float[I]\noutput y : float[I]\n"
      "view (i < I) : x[H*H*i] -> y[i]\nscalar (a) = a\ncombine (++)\n";
  EXPECT_EQ(bind_error(text, "I=4,H=3037000499"),
            "b.mdh:5:16: error: access 'x[H*H*i]' reads dimension 1 at indices 0..27670116092778747003 but the extent "
            "there is 4");
}

std::string injectivity(const std::string& out_buffer, const std::string& out_access, const std::string& sizes) {
  return bind_error("md_hom t\nsize I J\ninput A : float[I][J]\noutput C : float" + out_buffer +
                        "\nview (i < I, j < J) : A[i][j] -> " + out_access + "\nscalar (a) = a\ncombine (++, ++)\n",
                    sizes);
}

TEST(Bind, OutputInjectivity) {
  EXPECT_EQ(injectivity("[I*J]", "C[i*J + j]", "I=3,J=4"), "no error");
  EXPECT_EQ(injectivity("[I][J]", "C[i][j]", "I=3,J=4"), "no error");
  EXPECT_EQ(injectivity("[J][I]", "C[j][i]", "I=3,J=4"), "no error");
  EXPECT_EQ(injectivity("[I*J]", "C[I*J - 1 - (i*J + j)]", "I=3,J=4"), "no error");
  EXPECT_EQ(injectivity("[I + J]", "C[i + j]", "I=3,J=4"),
            "b.mdh:5:34: error: output access 'C[i + j]' is not injective for the given sizes: different points of the "
            "++ dimensions (i, j) may write the same element");
  EXPECT_EQ(injectivity("[I*J]", "C[i*(J-1) + j]", "I=3,J=4"),
            "b.mdh:5:34: error: output access 'C[i*(J-1) + j]' is not injective for the given sizes: different points "
            "of the ++ dimensions (j, i) may write the same element");
  // i + j with a single point in j is injective: nothing can collide.
  EXPECT_EQ(injectivity("[I + J]", "C[i + j]", "I=3,J=1"), "no error");
  EXPECT_EQ(injectivity("[I][J]", "C[i][j*(I-I)]", "I=3,J=4"),
            "b.mdh:5:34: error: output access 'C[i][j*(I-I)]' is not injective for the given sizes: different points "
            "of the ++ dimensions (j) may write the same element");
}

}  // namespace
}  // namespace mdh
