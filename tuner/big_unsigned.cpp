// Schoolbook arithmetic on base-2^32 limbs; the numbers here have a handful of limbs at most.
#include "tuner/big_unsigned.h"

#include <algorithm>

#include "mdh/error.h"

namespace mdh::tuner {

BigUnsigned::BigUnsigned(uint64_t value) {
  while (value != 0) {
    limbs_.push_back(static_cast<uint32_t>(value));
    value >>= 32;
  }
}

BigUnsigned BigUnsigned::from_decimal(const std::string& digits) {
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw UserError("'" + digits + "' is not an unsigned decimal integer");
  BigUnsigned result;
  for (char c : digits) {
    result *= BigUnsigned(10);
    result += BigUnsigned(static_cast<uint64_t>(c - '0'));
  }
  return result;
}

void BigUnsigned::trim() {
  while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
}

BigUnsigned& BigUnsigned::operator+=(const BigUnsigned& other) {
  if (limbs_.size() < other.limbs_.size()) limbs_.resize(other.limbs_.size(), 0);
  uint64_t carry = 0;
  for (size_t i = 0; i < limbs_.size(); ++i) {
    uint64_t sum = carry + limbs_[i] + (i < other.limbs_.size() ? other.limbs_[i] : 0);
    limbs_[i] = static_cast<uint32_t>(sum);
    carry = sum >> 32;
  }
  if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  return *this;
}

BigUnsigned& BigUnsigned::operator*=(const BigUnsigned& other) {
  std::vector<uint32_t> product(limbs_.size() + other.limbs_.size(), 0);
  for (size_t i = 0; i < limbs_.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < other.limbs_.size(); ++j) {
      uint64_t cell = static_cast<uint64_t>(limbs_[i]) * other.limbs_[j] + product[i + j] + carry;
      product[i + j] = static_cast<uint32_t>(cell);
      carry = cell >> 32;
    }
    for (size_t k = i + other.limbs_.size(); carry != 0; ++k) {
      uint64_t cell = product[k] + carry;
      product[k] = static_cast<uint32_t>(cell);
      carry = cell >> 32;
    }
  }
  limbs_ = std::move(product);
  trim();
  return *this;
}

uint64_t BigUnsigned::divide_by(uint64_t divisor) {
  MDH_INTERNAL_ASSERT(divisor != 0, "division by zero");
  // 128-bit intermediate keeps the remainder exact for 64-bit divisors.
  unsigned __int128 remainder = 0;
  for (size_t i = limbs_.size(); i-- > 0;) {
    unsigned __int128 current = (remainder << 32) | limbs_[i];
    limbs_[i] = static_cast<uint32_t>(current / divisor);
    remainder = current % divisor;
  }
  trim();
  return static_cast<uint64_t>(remainder);
}

bool operator<(const BigUnsigned& a, const BigUnsigned& b) {
  if (a.limbs_.size() != b.limbs_.size()) return a.limbs_.size() < b.limbs_.size();
  for (size_t i = a.limbs_.size(); i-- > 0;)
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i];
  return false;
}

uint64_t BigUnsigned::to_uint64() const {
  MDH_INTERNAL_ASSERT(fits_uint64(), "value does not fit into 64 bits");
  uint64_t value = 0;
  for (size_t i = limbs_.size(); i-- > 0;) value = (value << 32) | limbs_[i];
  return value;
}

double BigUnsigned::to_double() const {
  double value = 0;
  for (size_t i = limbs_.size(); i-- > 0;) value = value * 4294967296.0 + limbs_[i];
  return value;
}

std::string BigUnsigned::to_decimal() const {
  if (is_zero()) return "0";
  BigUnsigned rest = *this;
  std::string reversed;
  while (!rest.is_zero()) reversed.push_back(static_cast<char>('0' + rest.divide_by(10)));
  return std::string(reversed.rbegin(), reversed.rend());
}

std::string BigUnsigned::to_grouped_decimal() const {
  std::string plain = to_decimal();
  std::string grouped;
  for (size_t i = 0; i < plain.size(); ++i) {
    if (i > 0 && (plain.size() - i) % 3 == 0) grouped.push_back(',');
    grouped.push_back(plain[i]);
  }
  return grouped;
}

}  // namespace mdh::tuner
