// The reference output of a tuning run, shared by its worker processes through a file: the first worker that has
// computed it saves it, and a worker started later (a restart after a timeout or crash, or another device's) reads
// it instead of computing it again. Every worker of the run has the same inputs (the request's data options and
// seed) on identical devices, so the reference is the same; the file lives as long as the run (its temporary files).
// On PoCL at Jacobi 3D 256^3 the reference was 1.34 s of a worker's 1.83 s start-up.
#pragma once

#include <optional>
#include <string>

#include "runtime/host_buffer.h"

namespace mdh {

struct SharedReference {
  HostBuffer output;       // as MdHomRun::reference_output() returns it
  bool in_double = false;  // MdHomRun::reference_in_double()
};

/// Writes the reference `output` to `path` atomically (a temporary file renamed into place), so that a reader sees all
/// of it or nothing. Throws UserError when the file cannot be written.
void save_shared_reference(const std::string& path, const HostBuffer& output, bool in_double);

/// The reference saved at `path` for an output shaped as `shape` (name, type, element size and extents; no bytes,
/// or ignored): nullopt where there is no file yet. Throws UserError for a file that is not such a reference or is
/// for another shape.
std::optional<SharedReference> load_shared_reference(const std::string& path, const HostBuffer& shape);

}  // namespace mdh
