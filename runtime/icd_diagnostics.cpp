#include "runtime/icd_diagnostics.h"

#include <dlfcn.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace mdh {
namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value ? value : fallback;
}

std::vector<std::filesystem::path> icd_files(const std::filesystem::path& folder_or_file) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(folder_or_file, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(folder_or_file, ec))
      if (entry.path().extension() == ".icd") files.push_back(entry.path());
  } else if (std::filesystem::exists(folder_or_file, ec)) {
    files.push_back(folder_or_file);
  }
  std::sort(files.begin(), files.end());
  return files;
}

/// Loads the library (as the ICD loader does) and reports the outcome. The library stays loaded: unloading a GPU
/// driver mid-process is riskier than keeping it.
std::string try_loading(const std::string& library) {
  ::dlerror();
  if (::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL)) return "loads";
  const char* error = ::dlerror();
  return std::string("does not load: ") + (error ? error : "unknown dlopen error");
}

std::string signal_list(bool (*selected)(int)) {
  std::string list;
  for (int sig = 1; sig < NSIG; ++sig)
    if (selected(sig)) {
      if (!list.empty()) list += ' ';
      list += std::to_string(sig);
    }
  return list.empty() ? "none" : list;
}

}  // namespace

std::string describe_icd_loading() {
  std::string text;
  std::vector<std::filesystem::path> files;
  if (const char* names = std::getenv("OCL_ICD_FILENAMES")) {
    text += "OCL_ICD_FILENAMES=" + std::string(names) + "\n";
    std::string list = names;
    for (size_t start = 0; start <= list.size();) {
      size_t end = list.find(':', start);
      if (end == std::string::npos) end = list.size();
      if (end > start)
        text += "  " + list.substr(start, end - start) + ": " + try_loading(list.substr(start, end - start)) + "\n";
      start = end + 1;
    }
  }
  const std::string vendors = env_or("OCL_ICD_VENDORS", "/etc/OpenCL/vendors");
  text += "ICD files (" + vendors + "):\n";
  files = icd_files(vendors);
  if (files.empty()) text += "  none\n";
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string library;
    std::getline(in, library);
    library.erase(library.find_last_not_of(" \t\r\n") + 1);
    text += "  " + file.filename().string() + " -> " + library + ": " + try_loading(library) + "\n";
  }
  text += "LD_LIBRARY_PATH=" + env_or("LD_LIBRARY_PATH", "(unset)") + "\n";
  static sigset_t blocked;
  ::sigprocmask(SIG_BLOCK, nullptr, &blocked);
  text += "blocked signals: " + signal_list([](int sig) { return ::sigismember(&blocked, sig) == 1; }) + "\n";
  text += "ignored signals: " + signal_list([](int sig) {
            struct sigaction action {};
            return ::sigaction(sig, nullptr, &action) == 0 && action.sa_handler == SIG_IGN;
          }) +
          "\n";
  return text;
}

}  // namespace mdh
