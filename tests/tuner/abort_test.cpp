// Each abort condition, the combinators and the expression parser.
#include "tuner/abort.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace mdh::tuner {
namespace {

TuningStatus status_with(uint64_t evaluations, uint64_t valid, double seconds, std::vector<Improvement> improvements) {
  TuningStatus s;
  s.evaluations = evaluations;
  s.valid_evaluations = valid;
  s.elapsed_seconds = seconds;
  s.space_size = 1000;
  s.improvements = std::move(improvements);
  return s;
}

TEST(Abort, CountsTimeFractionAndCost) {
  TuningStatus s = status_with(100, 40, 12.5, {{1.0, 3, 8.0}, {10.0, 90, 2.0}});
  EXPECT_TRUE(evaluations(100).stop(s));
  EXPECT_FALSE(evaluations(101).stop(s));
  EXPECT_TRUE(valid_evaluations(40).stop(s));
  EXPECT_FALSE(valid_evaluations(41).stop(s));
  EXPECT_TRUE(duration(12.5).stop(s));
  EXPECT_FALSE(duration(13).stop(s));
  EXPECT_TRUE(space_fraction(0.1).stop(s));
  EXPECT_FALSE(space_fraction(0.2).stop(s));
  EXPECT_TRUE(cost_at_most(2.0).stop(s));
  EXPECT_FALSE(cost_at_most(1.9).stop(s));
  EXPECT_FALSE(cost_at_most(1e9).stop(status_with(5, 0, 1, {})));
}

TEST(Abort, SpeedupWithinWindows) {
  // Best 8.0 from t=1 (evaluation 3), 2.0 from t=10 (evaluation 90).
  TuningStatus s = status_with(100, 40, 12.5, {{1.0, 3, 8.0}, {10.0, 90, 2.0}});
  EXPECT_FALSE(speedup_within_time(2.0, 5).stop(s));          // 8.0 at t=7.5 -> 2.0 now: 4x
  EXPECT_TRUE(speedup_within_time(2.0, 2).stop(s));           // 2.0 at t=10.5 -> 2.0 now: 1x
  EXPECT_FALSE(speedup_within_time(2.0, 20).stop(s));         // window longer than the run so far
  EXPECT_FALSE(speedup_within_evaluations(1.5, 20).stop(s));  // at evaluation 80 best was 8.0
  EXPECT_TRUE(speedup_within_evaluations(1.5, 5).stop(s));    // at evaluation 95 best was 2.0
  // No valid result at all counts as no improvement; a first valid result as infinite improvement.
  EXPECT_TRUE(speedup_within_evaluations(1.1, 10).stop(status_with(10, 0, 1, {})));
  EXPECT_FALSE(speedup_within_evaluations(1.1, 10).stop(status_with(10, 1, 1, {{0.5, 9, 3.0}})));
}

TEST(Abort, CombinesWithAndOr) {
  TuningStatus s = status_with(50, 10, 3, {});
  Abort many = evaluations(100);
  Abort some = evaluations(20);
  Abort long_run = duration(60);
  EXPECT_FALSE((many || long_run).stop(s));
  EXPECT_TRUE((some || long_run).stop(s));
  EXPECT_FALSE((some && long_run).stop(s));
  EXPECT_TRUE((some && valid_evaluations(10)).stop(s));
  EXPECT_EQ((some && (long_run || many)).describe(), "(evaluations(20) && (duration(60s) || evaluations(100)))");
}

TEST(Abort, ParsesExpressions) {
  TuningStatus s = status_with(50, 10, 90, {{1, 1, 4.0}});
  EXPECT_TRUE(parse_abort("evaluations(50)").stop(s));
  EXPECT_FALSE(parse_abort("duration(2m)").stop(s));
  EXPECT_TRUE(parse_abort("duration(90s) && valid(10)").stop(s));
  EXPECT_TRUE(parse_abort("evaluations(1000) || cost(4.0) && fraction(0.05)").stop(s));
  EXPECT_FALSE(parse_abort("(evaluations(1000) || cost(4.0)) && fraction(0.06)").stop(s));
  EXPECT_EQ(parse_abort("speedup(1.05, 10m) || speedup(2, 100)").describe(),
            "(speedup(1.05, 600s) || speedup(2, 100))");
  auto message = [](const std::string& text) {
    try {
      parse_abort(text);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("evaluations(10) ||"),
            "abort expression 'evaluations(10) ||' at column 19: expected an abort condition such as evaluations(100)");
  EXPECT_EQ(message("budget(10)"),
            "abort expression 'budget(10)' at column 11: unknown abort condition 'budget' with one argument");
  EXPECT_EQ(message("duration(3d)"),
            "abort expression 'duration(3d)' at column 13: unknown time unit 'd' (use s, m or h)");
  EXPECT_EQ(message("evaluations(1.5)"), "abort expression 'evaluations(1.5)' at column 17: '1.5' is not a count");
  EXPECT_THROW(space_fraction(1.5), UserError);
}

std::string parse_error(const std::string& text) {
  try {
    parse_abort(text);
  } catch (const UserError& e) {
    return e.what();
  }
  return "no error";
}

// evaluations(2^64) stopped mdh with an internal error (std::stoull), and 60,000 nested parentheses overflowed the
// stack; both are the user's input.
TEST(Abort, CountsAndNestingAreBounded) {
  EXPECT_EQ(parse_error("evaluations(18446744073709551616)"),
            "abort expression 'evaluations(18446744073709551616)' at column 34: count 18446744073709551616 is above "
            "the largest allowed, 1000000000");
  EXPECT_EQ(parse_error("valid(1000000001)"),
            "abort expression 'valid(1000000001)' at column 18: count 1000000001 is above the largest allowed, "
            "1000000000");
  EXPECT_EQ(parse_abort("evaluations(0001000000000)").describe(), "evaluations(1000000000)");
  EXPECT_EQ(parse_abort("evaluations(0)").describe(), "evaluations(0)");
  EXPECT_EQ(
      parse_abort(std::string(kMaxAbortNesting, '(') + "valid(1)" + std::string(kMaxAbortNesting, ')')).describe(),
      "valid(1)");
  const std::string deep = std::string(60000, '(') + "valid(1)" + std::string(60000, ')');
  const std::string message = parse_error(deep);
  EXPECT_NE(message.find("at column 66: parentheses nested deeper than 64 levels"), std::string::npos) << message;
  EXPECT_LT(message.size(), 200u);  // the expression is quoted around the column only
  std::string many = "valid(1)";
  for (size_t k = 0; k < kMaxAbortTerms; ++k) many += " || valid(1)";
  EXPECT_NE(parse_error(many).find("more than 256 conditions"), std::string::npos);
}

}  // namespace
}  // namespace mdh::tuner
