// What a code generator hands the runtime: OpenCL C source plus how to launch it. Plain data, no OpenCL
// handles (codegen/ never touches OpenCL); serialised to JSON for `mdh generate --launch FILE`.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace mdh {

struct BoundMdh;

/// One kernel argument, in order.
struct KernelArg {
  enum class Kind {
    Buffer,   // a spec buffer (input, table or output), by name, passed as a cl_mem
    Scratch,  // a scratch buffer of the plan, by index into LaunchPlan::scratch, passed as a cl_mem
    Param,    // a spec `param`, by name, passed by value with the param's type
  };
  Kind kind = Kind::Buffer;
  std::string name;  // Buffer, Param
  int scratch = -1;  // Scratch
  bool operator==(const KernelArg&) const = default;
};

/// One kernel launch: NDRange sizes as OpenCL takes them (global is the total number of work-items).
struct KernelLaunch {
  std::string kernel_name;
  int work_dims = 1;  // 1..3
  std::array<uint64_t, 3> global_size{1, 1, 1};
  std::optional<std::array<uint64_t, 3>> local_size;  // nullopt: let the implementation choose
  std::vector<KernelArg> args;
  bool operator==(const KernelLaunch&) const = default;
};

/// A device-side temporary, e.g. partial results of a reduction split over work-groups. Zero-initialisation is
/// not assumed (kernels write before they read) unless `zeroed`: then the runner fills it with zero bytes before the
/// plan's first launch on it (a buffer shared with other plans is filled again), and the kernels leave it zero.
struct ScratchBuffer {
  std::string purpose;  // for humans: "partial results of dimension k"
  uint64_t bytes = 0;
  bool zeroed = false;  // counts of work-groups (WG_COMBINE = last)
  bool operator==(const ScratchBuffer&) const = default;
};

/// Source plus launches, executed in order on one in-order queue.
struct LaunchPlan {
  std::string source;         // complete, standalone OpenCL C
  std::string build_options;  // e.g. "-cl-std=CL1.2"
  std::vector<ScratchBuffer> scratch;
  std::vector<KernelLaunch> kernels;
  bool operator==(const LaunchPlan&) const = default;
};

/// The launch description without the source (that is written to its own .cl file).
nlohmann::json launch_to_json(const LaunchPlan& plan);
/// The same plus what a program outside mdh needs to call the kernels (runtime/mdh_runner.hpp): "md_hom" (its
/// name), "sizes" (the size binding), "buffers" (per spec buffer: name, kind input/table/output, OpenCL C element
/// type, element_bytes, extents, bytes) and "params" (name, type, bytes). `float_as_double`: the plan is the
/// double-precision verifying reference, whose float buffers and params are passed as double.
/// launch_from_json ignores these keys.
nlohmann::json launch_to_json(const LaunchPlan& plan, const BoundMdh& bound, bool float_as_double = false);
/// Reads what launch_to_json wrote; the source is left empty. Throws UserError on malformed JSON.
LaunchPlan launch_from_json(const nlohmann::json& j);

}  // namespace mdh
