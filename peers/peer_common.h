// The harness every peer program shares: the command line, the inputs exactly as mdh creates them, the check
// against mdh's reference output, the one measurement method (runtime/measurement.h) and the JSON record.
// A peer only says how to run its library on the prepared inputs (a PeerSetup).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mdh/bind.h"
#include "peers/steady_measurement.h"
#include "pipeline/md_hom_run.h"
#include "runtime/context.h"
#include "runtime/host_buffer.h"
#include "runtime/measurement.h"

namespace mdh::peers {

// A peer multiplies in mdh's ComputePrecision (mdh/bind.h): fp32 throughout, or tf32 (float inputs rounded to
// TF32 for the tensor cores' products, float accumulation); storage stays float either way.

/// An option of one peer beyond the common ones (e.g. CLBlast's --tuned DIR); always takes a value.
struct ExtraOption {
  std::string name;
  std::string help;
};

struct PeerOptions {
  std::string routine;             // --routine: which computation, e.g. gemm, gemm_nt, gemv, dot, prl
  std::string spec;                // --spec apps/X.mdh
  std::string sizes;               // --size I=..,J=..
  uint64_t seed = 1;               // --seed, as `mdh run --seed`
  std::string device;              // --device: the OpenCL device of the reference (and of OpenCL peers)
  std::string json_path;           // --json FILE: also write the record there
  std::string label;               // --label RW / PC / ...
  MeasurementOptions measurement;  // --warmups, --min-runs, --max-runs
  ComputePrecision precision = ComputePrecision::fp32;  // --precision
  std::map<std::string, std::string> extra;             // values of the peer's ExtraOptions that were given
};

/// Parses the command line; returns false after printing --help. Throws UserError for a bad or missing option.
bool parse_peer_options(int argc, const char* const* argv, const std::string& program,
                        const std::vector<ExtraOption>& extra, PeerOptions& options);

/// Everything a peer needs to set itself up: the bound spec, the OpenCL device of the reference, and the inputs.
class PeerCase {
 public:
  explicit PeerCase(PeerOptions options);

  const PeerOptions& options() const { return options_; }
  const BoundMdh& bound() const { return run_->bound(); }
  const Mdh& mdh() const { return *run_->bound().mdh; }
  Context& context() { return *context_; }
  /// Input or table `name` as mdh fills it (fill_random with the seed; PRL: make_prl_data).
  const HostBuffer& input(const std::string& name) const { return run_->input(name); }
  /// The extent of size symbol `name` (UserError if the spec has no such size).
  int64_t size(const std::string& name) const;
  /// An output buffer of the spec's shape, zero-filled, for the peer to fill.
  HostBuffer make_output() const;
  /// mdh's reference output (double precision where possible), computed on first use.
  const HostBuffer& reference_output() { return run_->reference_output(); }
  bool reference_in_double() { return run_->reference_in_double(); }
  /// The md_hom with its device buffers (for mdh's own kernels, measured like every peer).
  MdHomRun& md_hom_run() { return *run_; }

  /// UserError unless the spec's md_hom is named `md_hom_name` (guards against a routine/spec mix-up).
  void require_md_hom(const std::string& md_hom_name) const;
  /// As require_md_hom for a routine a peer also computes on inputs stored in 2 bytes: accepts `md_hom_name`, or
  /// `md_hom_name`_half / _bfloat16 where every input is of that type (apps/gemm_half.mdh, apps/gemm_bfloat16.mdh).
  void require_md_hom_of_any_storage(const std::string& md_hom_name) const;

 private:
  PeerOptions options_;
  std::unique_ptr<Context> context_;
  std::unique_ptr<MdHomRun> run_;
};

/// What a peer provides for one routine.
struct PeerSetup {
  std::string peer;             // "openblas", "clblast-tuned", ...
  std::string library_version;  // "OpenBLAS 0.3.21 ..."
  std::string device_name;      // where the peer computes
  std::string layouts;          // storage of every operand, in the library's terms
  // The precision the peer computes in; run_and_record refuses a setup whose precision is not the one asked for
  // (--precision), so a program without a TF32 path never passes its FP32 results off as a TF32 row.
  ComputePrecision precision = ComputePrecision::fp32;
  std::string device_time_includes;
  std::string call_time_includes;
  nlohmann::json notes = nlohmann::json::object();  // peer-specific facts (algorithm chosen, parameters, ...)
  std::function<nlohmann::json()> late_notes;       // optional: facts known only after the runs, merged into notes
  std::function<RunTimes()> run_once;               // one whole call, timed
  // Optional: one whole call without the instruments that give the device time (kernel events), its host wall time
  // in ns. Where a peer has one, each timed run is run_once for the device time and then this for the call time: an
  // application's call pays no timing events, and their cost differs by API (docs/decisions.md).
  std::function<double()> plain_call;
  std::function<HostBuffer()> read_output;  // the output the last call produced, shaped as the spec's output
  // Optional: one more call after the timed ones, from a poisoned output, whose output is checked as the first
  // call's is. For a peer whose calls depend on what the previous call left (mdh's work-group counters, which its
  // kernels reset and no fill zeroes between calls): a kernel that failed to reset them would be timed on stale
  // counters, and this call would find it.
  std::function<void()> checked_call;
  // The headline instrument (peers/steady_measurement.h): n calls back to back between one pair of device
  // timestamps, their total device ns. Every peer provides it; a record without it says "not measured". mdh's own
  // kernels plug in as `setup.steady_calls = [&](int n) { return <enqueue n calls between one timestamp pair>; }`.
  SteadyCalls steady_calls;
  std::string steady_time_includes;  // what the pair of timestamps encloses, in the peer's terms
};

/// Validates (one call, compared with the reference), measures, validates again where the peer has a checked_call,
/// prints the JSON record on stdout and writes it to --json. Returns the record.
nlohmann::json run_and_record(PeerCase& peer_case, PeerSetup& setup);

/// Thrown by a peer's set-up when this machine lacks what the peer runs on (no CUDA device, no usable driver): not
/// an error of the case, so the experiment driver records the peer as not available here.
class PeerUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The whole program: parse, prepare the case, let `prepare` set up the peer, run_and_record.
/// Exit codes: 0 validated, 1 validation failed (the record says so), 2 user error (message on stderr),
/// 3 the peer cannot run on this machine (PeerUnavailable; message on stderr).
int peer_main(int argc, const char* const* argv, const std::string& program, const std::vector<ExtraOption>& extra,
              const std::function<PeerSetup(PeerCase&)>& prepare);

/// The name of the host CPU as a peer's record gives it: "CPU, 16 cores (DETAIL)", so that a table never shows a CPU
/// program as a peer of the GPU's kind (the physical cores of /proc/cpuinfo this process may run on).
std::string host_cpu_name(const std::string& detail);

/// The hardware threads this process may run on (its affinity mask: a container's cpuset, not the whole host).
unsigned host_cpu_threads();

/// The steady instrument of a CPU library, whose calls return with the result in host memory: the host steady
/// clock around n calls of `call`.
SteadyCalls host_steady_calls(std::function<void()> call);

/// Host wall clock in nanoseconds (steady clock).
double now_ns();

/// The one scalar type of every input buffer of `mdh` (tables aside); nullopt where they differ or one is a struct.
std::optional<ScalarType> input_scalar_type(const Mdh& mdh);
/// A type as records name it: "fp32", "fp64", "fp16" (half), "bf16" (bfloat16), else the spec's spelling.
std::string data_type_name(const Mdh& mdh, const ElementType& type);
/// The records' input_type: data_type_name of the inputs' one type, else of each distinct type, joined with ",".
std::string input_type_name(const Mdh& mdh);

/// Copies `values` into an output HostBuffer of float elements (UserError if the counts differ).
HostBuffer float_output(const PeerCase& peer_case, const std::vector<float>& values);
/// The float elements of a float HostBuffer.
std::vector<float> float_values(const HostBuffer& buffer);

}  // namespace mdh::peers
