// The `mdh` subcommands. Each takes the arguments after its name and returns the process exit status:
// 0 success, 1 a failed check (--verify), 2 a user error (reported by main as `... error: ...`).
#pragma once

#include <string>
#include <vector>

namespace mdh::cli {

using Args = std::vector<std::string>;

/// The commit the binary was built from and whether tracked files differed from it (build_commit.cpp, generated at
/// build time by build_commit.cmake; "" outside a git checkout).
extern const char* const kBuildCommit;
extern const bool kBuildSourceModified;

int devices_command(const Args& args);
int check_command(const Args& args);
int generate_command(const Args& args);
int export_command(const Args& args);
int inspect_command(const Args& args);
int run_command(const Args& args);
int bench_command(const Args& args);
int tune_command(const Args& args);
int tune_worker_command(const Args& args);
int space_command(const Args& args);

}  // namespace mdh::cli
