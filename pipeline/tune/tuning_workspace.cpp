// Temporary files named after this process, so that runs side by side never share them.
#include "pipeline/tune/tuning_workspace.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "support/error.h"

namespace mdh {
namespace {

namespace fs = std::filesystem;

// The names of a run's temporary files: PREFIX + the tuner's pid, and for some a suffix after a dot (the request's
// ".json", a shared reference's ".partial-WORKER").
constexpr std::array<const char*, 4> kTemporaryPrefixes = {"mdh-kernels-", "mdh-reference-",
                                                           "mdh-nvidia-compute-cache-", "mdh-request-"};

fs::path temporary_folder() {
  std::error_code ec;
  fs::path folder = fs::temp_directory_path(ec);
  if (ec || !fs::is_directory(folder, ec)) {
    const char* tmpdir = std::getenv("TMPDIR");
    throw UserError(std::string("no temporary folder for the tuning run's files: ") +
                    (tmpdir ? "TMPDIR='" + std::string(tmpdir) + "' is not a folder" : "/tmp is not a folder") +
                    "; set TMPDIR to a folder you can write");
  }
  return folder;
}

std::string temporary_path(const std::string& name, const std::string& suffix = "") {
  return (temporary_folder() / (name + std::to_string(::getpid()) + suffix)).string();
}

// The pid in a name of a run's temporary file, or 0 where the name is none of them.
pid_t pid_in_temporary_name(const std::string& name) {
  for (const char* prefix : kTemporaryPrefixes) {
    const std::string start = prefix;
    if (name.compare(0, start.size(), start) != 0) continue;
    const size_t digits_end = name.find_first_not_of("0123456789", start.size());
    const size_t digits = (digits_end == std::string::npos ? name.size() : digits_end) - start.size();
    if (digits == 0 || digits > 9 || (digits_end != std::string::npos && name[digits_end] != '.')) return 0;
    return static_cast<pid_t>(std::stol(name.substr(start.size(), digits)));
  }
  return 0;
}

// A run killed with SIGKILL leaves its temporary files behind: removes those of this user whose process is gone.
void remove_stale_temporaries(const fs::path& folder) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t pid = pid_in_temporary_name(name);
    if (pid <= 0 || pid == ::getpid()) continue;
    struct stat info {};
    if (::lstat(it->path().c_str(), &info) != 0 || info.st_uid != ::getuid()) continue;
    // ESRCH only: a live process, or one of another user (EPERM), keeps its files.
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
  }
}

}  // namespace

TuningWorkspace::TuningWorkspace(TuningRequest& request, const TuningSettings& settings,
                                 const CostSettings& cost_settings) {
  remove_stale_temporaries(temporary_folder());
  if (request.binary_cache.empty()) {
    request.binary_cache = temporary_path("mdh-kernels-");
    temporary_.push_back(request.binary_cache);
  }
  cache_ = std::make_shared<BinaryCache>(request.binary_cache);
  // In the temporary folder, never beside a --binary-cache folder: a file of the user's may have that name.
  request_path_ = temporary_path("mdh-request-", ".json");
  // This process's own, also where --binary-cache names a shared folder: another run's data may differ.
  request.shared_reference = temporary_path("mdh-reference-");
  temporary_.push_back(request.shared_reference);
  if (cost_settings.reject_spills && !settings.in_process && request.nvidia_compute_cache.empty()) {
    // This process's own, also where --binary-cache names a shared folder: it is removed when the run ends.
    request.nvidia_compute_cache = temporary_path("mdh-nvidia-compute-cache-");
    temporary_.push_back(request.nvidia_compute_cache);
  }
}

TuningWorkspace::~TuningWorkspace() {
  std::error_code ignored;
  for (const std::string& path : temporary_) std::filesystem::remove_all(path, ignored);
}

void TuningWorkspace::write_request(const TuningRequest& request) {
  request.write(request_path_);
  temporary_.push_back(request_path_);
}

}  // namespace mdh
