// Abort conditions and their expression parser.
#include "tuner/abort.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <sstream>

#include "support/error.h"

namespace mdh::tuner {

std::optional<double> TuningStatus::best_cost() const {
  if (improvements.empty()) return std::nullopt;
  return improvements.back().cost;
}

std::optional<double> TuningStatus::best_cost_at_time(double seconds) const {
  auto it = std::upper_bound(improvements.begin(), improvements.end(), seconds,
                             [](double t, const Improvement& i) { return t < i.seconds; });
  if (it == improvements.begin()) return std::nullopt;
  return std::prev(it)->cost;
}

std::optional<double> TuningStatus::best_cost_at_evaluation(uint64_t evaluation) const {
  auto it = std::upper_bound(improvements.begin(), improvements.end(), evaluation,
                             [](uint64_t e, const Improvement& i) { return e < i.evaluation; });
  if (it == improvements.begin()) return std::nullopt;
  return std::prev(it)->cost;
}

namespace {

class Predicate final : public AbortCondition {
 public:
  Predicate(std::string description, std::function<bool(const TuningStatus&)> stop)
      : description_(std::move(description)), stop_(std::move(stop)) {}
  bool stop(const TuningStatus& status) const override { return stop_(status); }
  std::string describe() const override { return description_; }

 private:
  std::string description_;
  std::function<bool(const TuningStatus&)> stop_;
};

class Combined final : public AbortCondition {
 public:
  Combined(Abort a, Abort b, bool both) : a_(std::move(a)), b_(std::move(b)), both_(both) {}
  bool stop(const TuningStatus& status) const override {
    return both_ ? a_.stop(status) && b_.stop(status) : a_.stop(status) || b_.stop(status);
  }
  std::string describe() const override {
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict) about the chained operator+ form.
    std::string text = "(";
    text.append(a_.describe()).append(both_ ? " && " : " || ").append(b_.describe()).append(")");
    return text;
  }

 private:
  Abort a_, b_;
  bool both_;
};

Abort make(std::string description, std::function<bool(const TuningStatus&)> stop) {
  return Abort(std::make_shared<Predicate>(std::move(description), std::move(stop)));
}

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Speedup of `now` over `then`; a missing best is infinitely expensive, and inf/inf is no speedup.
double speedup(std::optional<double> then, std::optional<double> now) {
  if (!now) return 1.0;
  if (!then) return INFINITY;
  return *then / *now;
}

}  // namespace

Abort operator&&(const Abort& a, const Abort& b) {
  return Abort(std::make_shared<Combined>(a, b, true));
}
Abort operator||(const Abort& a, const Abort& b) {
  return Abort(std::make_shared<Combined>(a, b, false));
}

Abort evaluations(uint64_t count) {
  return make("evaluations(" + std::to_string(count) + ")",
              [count](const TuningStatus& s) { return s.evaluations >= count; });
}

Abort valid_evaluations(uint64_t count) {
  return make("valid(" + std::to_string(count) + ")",
              [count](const TuningStatus& s) { return s.valid_evaluations >= count; });
}

Abort duration(double seconds) {
  return make("duration(" + number(seconds) + "s)",
              [seconds](const TuningStatus& s) { return s.elapsed_seconds >= seconds; });
}

Abort space_fraction(double fraction) {
  if (!(fraction > 0 && fraction <= 1)) throw UserError("space fraction must lie in (0, 1], got " + number(fraction));
  return make("fraction(" + number(fraction) + ")", [fraction](const TuningStatus& s) {
    return static_cast<double>(s.evaluations) >= fraction * s.space_size;
  });
}

Abort cost_at_most(double threshold) {
  return make("cost(" + number(threshold) + ")", [threshold](const TuningStatus& s) {
    auto best = s.best_cost();
    return best && *best <= threshold;
  });
}

Abort speedup_within_time(double factor, double seconds) {
  if (!(factor >= 1)) throw UserError("speedup factor must be at least 1, got " + number(factor));
  return make("speedup(" + number(factor) + ", " + number(seconds) + "s)", [=](const TuningStatus& s) {
    if (s.elapsed_seconds < seconds) return false;
    return speedup(s.best_cost_at_time(s.elapsed_seconds - seconds), s.best_cost()) < factor;
  });
}

Abort speedup_within_evaluations(double factor, uint64_t window) {
  if (!(factor >= 1)) throw UserError("speedup factor must be at least 1, got " + number(factor));
  return make("speedup(" + number(factor) + ", " + std::to_string(window) + ")", [=](const TuningStatus& s) {
    if (s.evaluations < window) return false;
    return speedup(s.best_cost_at_evaluation(s.evaluations - window), s.best_cost()) < factor;
  });
}

namespace {

// Recursive descent over the abort expression grammar.
class AbortParser {
 public:
  explicit AbortParser(const std::string& text) : text_(text) {}

  Abort parse() {
    Abort result = disjunction();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + text_.substr(pos_, 1) + "'");
    return result;
  }

 private:
  // disjunction ::= conjunction { '||' conjunction }
  Abort disjunction() {
    Abort result = conjunction();
    while (accept("||")) result = result || conjunction();
    return result;
  }
  // conjunction ::= primary { '&&' primary }
  Abort conjunction() {
    Abort result = primary();
    while (accept("&&")) result = result && primary();
    return result;
  }
  // primary ::= '(' disjunction ')' | name '(' argument [',' argument] ')'
  Abort primary() {
    if (accept("(")) {
      if (++depth_ > kMaxAbortNesting)
        fail("parentheses nested deeper than " + std::to_string(kMaxAbortNesting) + " levels");
      Abort inner = disjunction();
      expect(")");
      --depth_;
      return inner;
    }
    if (++terms_ > kMaxAbortTerms) fail("more than " + std::to_string(kMaxAbortTerms) + " conditions");
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalpha(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    std::string name = text_.substr(start, pos_ - start);
    if (name.empty()) fail("expected an abort condition such as evaluations(100)");
    expect("(");
    std::string first = argument();
    std::string second;
    if (accept(",")) second = argument();
    expect(")");
    if (name == "evaluations" && second.empty()) return evaluations(count(first));
    if (name == "valid" && second.empty()) return valid_evaluations(count(first));
    if (name == "duration" && second.empty()) return duration(seconds(first));
    if (name == "fraction" && second.empty()) return space_fraction(real(first));
    if (name == "cost" && second.empty()) return cost_at_most(real(first));
    if (name == "speedup" && !second.empty()) {
      if (std::isalpha(static_cast<unsigned char>(second.back())))
        return speedup_within_time(real(first), seconds(second));
      return speedup_within_evaluations(real(first), count(second));
    }
    fail("unknown abort condition '" + name + "' with " + (second.empty() ? "one argument" : "two arguments"));
  }

  std::string argument() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
                                   text_[pos_] == 'e' || text_[pos_] == '-' || text_[pos_] == '+'))
      ++pos_;
    if (start == pos_) fail("expected a number");
    return text_.substr(start, pos_ - start);
  }

  double real(const std::string& s) {
    size_t used = 0;
    double value = 0;
    try {
      value = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size()) fail("'" + s + "' is not a number");
    return value;
  }
  uint64_t count(const std::string& s) {
    if (s.empty() ||
        !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      fail("'" + s + "' is not a count");
    // Compared as digits: std::stoull throws for counts beyond 2^64.
    const std::string digits = s.substr(std::min(s.find_first_not_of('0'), s.size()));
    const std::string limit = std::to_string(kMaxEvaluationCount);
    if (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit))
      fail("count " + s + " is above the largest allowed, " + limit);
    return digits.empty() ? 0 : std::stoull(digits);
  }
  double seconds(const std::string& s) {
    double scale = 1;
    std::string digits = s;
    if (!digits.empty() && std::isalpha(static_cast<unsigned char>(digits.back()))) {
      char unit = digits.back();
      digits.pop_back();
      if (unit == 'm')
        scale = 60;
      else if (unit == 'h')
        scale = 3600;
      else if (unit != 's')
        fail("unknown time unit '" + std::string(1, unit) + "' (use s, m or h)");
    }
    return real(digits) * scale;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool accept(const std::string& token) {
    skip_space();
    if (text_.compare(pos_, token.size(), token) != 0) return false;
    pos_ += token.size();
    return true;
  }
  void expect(const std::string& token) {
    if (!accept(token)) fail("expected '" + token + "'");
  }
  [[noreturn]] void fail(const std::string& message) const {
    // A long expression is quoted around the column only, so that the message stays readable.
    constexpr size_t kQuoted = 60;
    const std::string quoted = text_.size() <= kQuoted
                                   ? text_
                                   : "..." + text_.substr(pos_ > kQuoted / 2 ? pos_ - kQuoted / 2 : 0, kQuoted) + "...";
    throw UserError("abort expression '" + quoted + "' at column " + std::to_string(pos_ + 1) + ": " + message);
  }

  const std::string& text_;
  size_t pos_ = 0;
  size_t depth_ = 0;  // parentheses open at pos_
  size_t terms_ = 0;  // conditions read so far
};

}  // namespace

Abort parse_abort(const std::string& expression) {
  return AbortParser(expression).parse();
}

}  // namespace mdh::tuner
