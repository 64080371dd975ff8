// Tuning candidates that spill registers, recognised after their build (issue 13): the register budget prunes most
// of them by an estimate before the build (codegen's register budget constraint), but an estimate misses some, and
// on NVIDIA ptxas says exactly which kernels spill. A spilling candidate runs many times slower than the best and
// is not worth timing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace mdh {

/// Spills of at most this many bytes each way are timed like no spill: a few registers' worth in the L1 cache, which
/// good configurations of some contractions have; rejecting them left tuning runs without a good start
/// (docs/decisions.md).
inline constexpr int64_t kToleratedSpillBytes = 16;

/// Why a candidate whose build log is `build_log` is not timed: for each kernel that ptxas's report
/// (runtime/ptxas_log.h) says spills more than kToleratedSpillBytes (stores or loads),
///   kernel 'NAME' spills: S bytes spill stores, L bytes spill loads (ptxas, R registers)
/// joined by "; " ("(ptxas)" where the log was cut before the registers).
/// nullopt when no kernel spills, and when the log has no report at all (PoCL; NVIDIA without
/// kNvidiaVerboseBuildOption, or where the driver took the kernel from its compute cache and skipped ptxas): what is
/// not known to spill is timed.
std::optional<std::string> spill_rejection(const std::string& build_log);

}  // namespace mdh
