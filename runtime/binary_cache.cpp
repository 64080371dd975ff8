#include "runtime/binary_cache.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "support/error.h"
#include "support/fnv1a.h"

namespace mdh {

namespace {
// Names the file layout below, so that a file of the layout before it (no build log) has another key, and with it
// another name, and never reads as a binary of this one.
constexpr const char* kLayout = "mdh binary cache 2 (key, build log, binary)";

// Everything that decides whether a binary is valid for a build, in one string.
std::string full_key(const DeviceInfo& device, const std::string& source, const std::string& options) {
  return std::string(kLayout) + '\n' + device.platform_name + '\n' + device.name + '\n' + device.driver_version + '\n' +
         options + '\n' + source;
}

bool read_sized(std::istream& in, std::string& text) {
  uint64_t length = 0;
  if (!in.read(reinterpret_cast<char*>(&length), sizeof length)) return false;
  // A truncated or foreign file may claim any length: read in bounded steps, never allocate the claim up front.
  text.clear();
  char buffer[4096];
  while (length > 0) {
    const std::streamsize step = static_cast<std::streamsize>(std::min<uint64_t>(length, sizeof buffer));
    if (!in.read(buffer, step)) return false;
    text.append(buffer, static_cast<size_t>(step));
    length -= static_cast<uint64_t>(step);
  }
  return true;
}

void write_sized(std::ostream& out, const std::string& text) {
  const uint64_t length = text.size();
  out.write(reinterpret_cast<const char*>(&length), sizeof length);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
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

// File layout (kLayout): 8-byte key length, the key, 8-byte log length, the build log, then the binary.
std::optional<CachedBinary> BinaryCache::load(const DeviceInfo& device, const std::string& source,
                                              const std::string& options) const {
  const std::string key = full_key(device, source, options);
  std::ifstream in(path_of(key), std::ios::binary);
  if (!in) return std::nullopt;
  uint64_t key_length = 0;
  if (!in.read(reinterpret_cast<char*>(&key_length), sizeof key_length) || key_length != key.size())
    return std::nullopt;
  std::string stored(key_length, '\0');
  if (!in.read(stored.data(), static_cast<std::streamsize>(key_length)) || stored != key) return std::nullopt;
  CachedBinary built;
  if (!read_sized(in, built.build_log)) return std::nullopt;
  built.binary.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (built.binary.empty()) return std::nullopt;
  return built;
}

void BinaryCache::store(const DeviceInfo& device, const std::string& source, const std::string& options,
                        const CachedBinary& built) const {
  const std::string key = full_key(device, source, options);
  const std::string path = path_of(key);
  const std::string temporary =
      path + ".tmp" + std::to_string(::getpid()) + "-" + std::to_string(reinterpret_cast<uintptr_t>(&built));
  {
    std::ofstream out(temporary, std::ios::binary);
    write_sized(out, key);
    write_sized(out, built.build_log);
    out.write(reinterpret_cast<const char*>(built.binary.data()), static_cast<std::streamsize>(built.binary.size()));
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
