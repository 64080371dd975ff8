// One bound md_hom on one device with its data: host inputs (given or seeded random), params, device buffers.
// Runs any LaunchPlan of that md_hom (reference or tunable) and produces the reference output to check against.
// The CLI's `mdh run`, the integration tests and the tuner's cost function all go through this.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "codegen/launch_plan.h"
#include "mdh/bind.h"
#include "runtime/context.h"
#include "runtime/device_check.h"
#include "runtime/execute.h"
#include "runtime/host_buffer.h"
#include "runtime/steady_timing.h"

namespace mdh {

/// Whether MdHomRun::run fills the output with NaNs before its first run. A call whose output is checked afterwards
/// poisons it; the timed calls after it keep what the kernels wrote, as an application's calls follow one another
/// (no fill and wait between them). This keeps the protocol faithful to an application, not faster: the fill made
/// no difference beyond the noise (docs/decisions.md).
enum class OutputPoison { before_first_run, none };

/// The bytes of every param of `bound`'s md_hom from its text (`--param alpha=2.5`): UserError for a param the spec
/// does not declare, a missing one, and a value its type cannot hold. A tuning run checks them before it starts any
/// worker (which would fail on each evaluation).
std::map<std::string, std::vector<unsigned char>> checked_param_bytes(const BoundMdh& bound,
                                                                      const std::map<std::string, std::string>& params);

class MdHomRun {
 public:
  /// `inputs` and `input_views` may hold some or all input and table buffers (checked against their declarations;
  /// views are copied to the device straight from the caller's memory); the rest are filled by fill_random(seed).
  /// `params` maps every spec param to its text (`--param alpha=2.5`); a missing one is a UserError.
  MdHomRun(Context& context, BoundMdh bound, std::map<std::string, HostBuffer> inputs,
           const std::map<std::string, std::string>& params, uint64_t seed,
           const std::map<std::string, HostBufferView>& input_views = {});

  const BoundMdh& bound() const { return bound_; }
  Context& context() { return context_; }
  /// An input the run holds (not one given as a view).
  const HostBuffer& input(const std::string& name) const;

  /// Runs `plan` warmups + repetitions times on the device buffers. With OutputPoison::before_first_run the output
  /// buffer is first filled with 0xFF bytes (NaN for floating types), so a kernel that misses an element cannot pass
  /// a check.
  PlanTiming run(const LaunchPlan& plan, int warmups, int repetitions, KernelEvents events = KernelEvents::profiled,
                 OutputPoison poison = OutputPoison::before_first_run);
  /// The steady-state instrument for `plan` on the run's buffers (runtime/steady_timing.h): runs the warm-up calls
  /// and chooses the calls per pair of time stamps; `plan` must outlive the timer. The output is not poisoned.
  SteadyTimer steady_timer(const LaunchPlan& plan, const SteadyOptions& options = {});
  /// The output buffer as the last run left it.
  HostBuffer read_output();

  /// The output of the reference kernel, computed once: in double precision where the md_hom allows it
  /// (can_promote_to_double and a device with fp64), else in the spec's own types.
  const HostBuffer& reference_output();
  bool reference_in_double();
  /// Takes a reference computed for the same md_hom, sizes and data on an identical device (pipeline/
  /// shared_reference.h) instead of computing it; `output` is shaped as reference_output() would be.
  void adopt_reference(HostBuffer output, bool in_double);
  /// Whether the output as the last run left it passes the check against reference_output(), decided on the device
  /// (runtime/device_check.h, which copies the reference there at the first call); nullopt where the device cannot
  /// decide it (read_output() and verify_result then).
  std::optional<bool> output_passes_on_device();

 private:
  Context& context_;
  BoundMdh bound_;
  std::map<std::string, HostBuffer> inputs_;
  std::map<std::string, HostBufferView> input_views_;
  std::map<std::string, std::vector<unsigned char>> param_bytes_;
  std::map<std::string, std::string> param_texts_;
  std::map<std::string, DeviceBuffer> device_buffers_;
  std::optional<HostBuffer> reference_;
  bool reference_double_ = false;
  std::optional<DeviceCheck> device_check_;
  bool device_check_made_ = false;  // tried: device_check_ is nullopt where the device cannot check
};

/// The buffer map execute_plan takes, from named device buffers.
std::map<std::string, cl_mem> buffer_handles(const std::map<std::string, DeviceBuffer>& buffers);
/// A zero-filled device buffer of its bound size for every spec buffer of `bound`, by name: data for launches whose
/// results do not matter (runtime/first_launch.h), safe where a spec indexes with its input values.
std::map<std::string, DeviceBuffer> zeroed_device_buffers(Context& context, const BoundMdh& bound);

}  // namespace mdh
