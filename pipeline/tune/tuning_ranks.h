// `mdh tune` under mpirun: this process as one rank of one tuning run (docs/distributed-tuning.md). Rank 0 searches,
// prints and writes the journal and the result; the other ranks evaluate for it and print nothing, not even their
// errors, which reach rank 0 and are reported there (with rank 0's exit status).
#pragma once

#include <memory>
#include <optional>

#include "pipeline/tune/tuning_settings.h"
#include "pipeline/tuning_request.h"

namespace mdh::tuner {
class MpiSession;  // tuner/evaluate/mpi_evaluators.h, in builds with MPI
}

namespace mdh {

/// Whether this process writes the run's outputs (the journal, the result): it is not under mpirun, or it is rank 0.
/// Only that process checks them before the run: another rank would race rank 0, which may already have created
/// the journal.
bool writes_tuning_outputs();

class TuningRanks {
 public:
  /// Alone: changes nothing. Under mpirun with more than one rank: UserError where this build has no MPI or the
  /// settings ask --in-process; otherwise keeps an unbound rank to its share of the host's cores (before MPI and
  /// the workers start, so that they inherit it), opens the MPI session and makes `settings` this rank's. A rank
  /// other than 0 drops its notes, progress and interrupt (quiet()).
  TuningRanks(TuningSettings& settings, bool rank0_evaluates);
  ~TuningRanks();
  TuningRanks(const TuningRanks&) = delete;
  TuningRanks& operator=(const TuningRanks&) = delete;

  bool under_mpirun() const { return under_mpirun_; }
  /// A rank other than 0: it prints nothing.
  bool quiet() const { return quiet_; }
  /// tune_md_hom. A UserError on a rank other than 0 goes to rank 0, which reports it: nullopt here then, and the
  /// rank ends with status 0 (mpirun would kill rank 0 before it could report if this rank failed first).
  std::optional<TuningOutcome> tune(const TuningRequest& request, const TuningSettings& settings);

 private:
  bool under_mpirun_ = false;
  bool quiet_ = false;
  std::unique_ptr<tuner::MpiSession> mpi_;
};

}  // namespace mdh
