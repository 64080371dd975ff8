// A folder of built OpenCL program binaries, keyed by device, driver, source and build options. One process can
// compile ahead (the tuner's prepare threads, each with its own Context) while another — the worker that runs the
// kernels — loads the binary instead of compiling: parallel compilation across processes without sharing handles.
// The build log is kept beside each binary: loading a binary does not compile the source again, so what the compiler
// said about it (NVIDIA's ptxas report of registers and spills, which the tuner acts on) would otherwise be lost.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace mdh {

/// A built program as the cache keeps it.
struct CachedBinary {
  std::vector<unsigned char> binary;
  std::string build_log;  // the driver's log of the build that made the binary, as it was ("" when it gave none)
};

class BinaryCache {
 public:
  /// Creates the folder if needed; UserError when it cannot.
  explicit BinaryCache(std::string folder);

  /// The binary and build log stored for exactly this device, driver, source and options, if any. A file whose
  /// recorded key differs (a hash collision, or a file of an older layout) or that is truncated counts as absent.
  std::optional<CachedBinary> load(const DeviceInfo& device, const std::string& source,
                                   const std::string& options) const;
  /// Stores a binary with its build log; written to a temporary file and renamed, so readers never see a partial
  /// file. Failures to write are ignored: the cache only saves time.
  void store(const DeviceInfo& device, const std::string& source, const std::string& options,
             const CachedBinary& built) const;

  const std::string& folder() const { return folder_; }

 private:
  std::string path_of(const std::string& key) const;
  std::string folder_;
};

}  // namespace mdh
