// A folder of built OpenCL program binaries, keyed by device, driver, source and build options. One process can
// compile ahead (the tuner's prepare threads, each with its own Context) while another — the worker that runs the
// kernels — loads the binary instead of compiling: parallel compilation across processes without sharing handles.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace mdh {

class BinaryCache {
 public:
  /// Creates the folder if needed; UserError when it cannot.
  explicit BinaryCache(std::string folder);

  /// The binary stored for exactly this device, driver, source and options, if any. A file whose recorded key
  /// differs (a hash collision) or that is truncated counts as absent.
  std::optional<std::vector<unsigned char>> load(const DeviceInfo& device, const std::string& source,
                                                 const std::string& options) const;
  /// Stores a binary; written to a temporary file and renamed, so readers never see a partial file.
  /// Failures to write are ignored: the cache only saves time.
  void store(const DeviceInfo& device, const std::string& source, const std::string& options,
             const std::vector<unsigned char>& binary) const;

  const std::string& folder() const { return folder_; }

 private:
  std::string path_of(const std::string& key) const;
  std::string folder_;
};

}  // namespace mdh
