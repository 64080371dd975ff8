// A minimal OpenCL host for the codegen tests, on the plain OpenCL C API: build a program on the first device
// and run a LaunchPlan on host byte vectors. Independent of runtime/ so that codegen is tested on its own.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"

namespace mdh::testing {

using Bytes = std::vector<unsigned char>;

struct BuildResult {
  bool ok = false;
  std::string log;  // the device compiler's build log
};

/// Builds `source` with `options` on the first device of the first platform (PoCL on the CI machine).
BuildResult build_program(const std::string& source, const std::string& options);

/// Whether the first device supports cl_khr_fp64.
bool device_has_fp64();

/// Runs every kernel of `plan` once. `buffers` maps each spec buffer to its bytes: inputs are uploaded, and every
/// buffer is read back after the run (so the output's entry receives the result). `params` holds param values.
/// Fails the calling test (ADD_FAILURE) with the build log or the OpenCL error code when something goes wrong.
void run_plan(const LaunchPlan& plan, std::map<std::string, Bytes>& buffers,
              const std::map<std::string, Bytes>& params);

template <class T>
Bytes to_bytes(const std::vector<T>& values) {
  const auto* p = reinterpret_cast<const unsigned char*>(values.data());
  return Bytes(p, p + values.size() * sizeof(T));
}

template <class T>
std::vector<T> from_bytes(const Bytes& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  std::copy(bytes.begin(), bytes.begin() + values.size() * sizeof(T), reinterpret_cast<unsigned char*>(values.data()));
  return values;
}

}  // namespace mdh::testing
