#include "runtime/binary_cache.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/error.h"
#include "support/fnv1a.h"

namespace mdh {

namespace {
// Everything that decides whether a binary is valid for a build, in one string.
std::string full_key(const DeviceInfo& device, const std::string& source, const std::string& options) {
  return device.platform_name + '\n' + device.name + '\n' + device.driver_version + '\n' + options + '\n' + source;
}
}  // namespace

BinaryCache::BinaryCache(std::string folder) : folder_(std::move(folder)) {
  std::error_code ec;
  std::filesystem::create_directories(folder_, ec);
  if (ec) throw UserError("cannot create the kernel binary cache folder '" + folder_ + "': " + ec.message());
}

std::string BinaryCache::path_of(const std::string& key) const {
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(fnv1a_64(key)));
  return (std::filesystem::path(folder_) / name).string();
}

// File layout: 8-byte key length, the key, then the binary.
std::optional<std::vector<unsigned char>> BinaryCache::load(const DeviceInfo& device, const std::string& source,
                                                            const std::string& options) const {
  const std::string key = full_key(device, source, options);
  std::ifstream in(path_of(key), std::ios::binary);
  if (!in) return std::nullopt;
  uint64_t key_length = 0;
  if (!in.read(reinterpret_cast<char*>(&key_length), sizeof key_length) || key_length != key.size())
    return std::nullopt;
  std::string stored(key_length, '\0');
  if (!in.read(stored.data(), static_cast<std::streamsize>(key_length)) || stored != key) return std::nullopt;
  std::vector<unsigned char> binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (binary.empty()) return std::nullopt;
  return binary;
}

void BinaryCache::store(const DeviceInfo& device, const std::string& source, const std::string& options,
                        const std::vector<unsigned char>& binary) const {
  const std::string key = full_key(device, source, options);
  const std::string path = path_of(key);
  const std::string temporary =
      path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(&binary));
  {
    std::ofstream out(temporary, std::ios::binary);
    const uint64_t key_length = key.size();
    out.write(reinterpret_cast<const char*>(&key_length), sizeof key_length);
    out.write(key.data(), static_cast<std::streamsize>(key.size()));
    out.write(reinterpret_cast<const char*>(binary.data()), static_cast<std::streamsize>(binary.size()));
    if (!out.flush()) {
      std::error_code ec;
      std::filesystem::remove(temporary, ec);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) std::filesystem::remove(temporary, ec);
}

}  // namespace mdh
