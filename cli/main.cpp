// mdh: the command line driver. Dispatches to one subcommand; turns user errors into `error: ...` and exit 2.
#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include "cli/subcommands.h"
#include "cli/watched_run.h"
#include "support/error.h"

namespace {

struct Subcommand {
  const char* name;
  int (*run)(const mdh::cli::Args&);
  const char* summary;
  bool runs_kernels = false;  // runs user code on the device: in a watched child process (cli/watched_run.h)
};

constexpr Subcommand kSubcommands[] = {
    {"devices", mdh::cli::devices_command, "list OpenCL platforms and devices with their limits and selectors"},
    {"check", mdh::cli::check_command, "parse and verify a spec; print its dimensions, operators, buffers, views"},
    {"generate", mdh::cli::generate_command, "print the generated OpenCL C and its launch description"},
    {"export", mdh::cli::export_command,
     "write the tuned kernel, its launch description and a runner for an application"},
    {"inspect", mdh::cli::inspect_command,
     "build a configuration on the device; write its binary and build log; print registers and spills"},
    {"run", mdh::cli::run_command, "run an md_hom on given or random inputs; time it; verify it", true},
    {"bench", mdh::cli::bench_command,
     "time configurations against each other: verified, interleaved rounds, steady device time", true},
    {"space", mdh::cli::space_command, "print the tuning parameters, their constraints and the space's size"},
    {"tune", mdh::cli::tune_command, "auto-tune the kernel for a device and size binding"},
    {"tune-worker", mdh::cli::tune_worker_command, "(internal) the evaluation process that mdh tune starts"},
};

void print_usage(std::ostream& out) {
  out << "usage: mdh <command> [options]   (mdh help <command> or mdh <command> --help for its options;\n"
         "       mdh --version for the commit it was built from)\n\ncommands:\n";
  for (const auto& s : kSubcommands)
    out << "  " << s.name << std::string(13 - std::strlen(s.name), ' ') << s.summary << '\n';
}

// Output that could not be written is lost output: a command whose standard output is full, closed or a pipe whose
// reader has gone says so and fails, instead of exiting 0.
int with_output_checked(int status) {
  errno = 0;
  std::cout.flush();
  const bool written = std::cout.good() && std::fflush(stdout) == 0 && !std::ferror(stdout);
  if (written) return status;
  const int error = errno;
  std::cerr << "error: cannot write to standard output" << (error ? std::string(": ") + std::strerror(error) : "")
            << '\n';
  return status == 0 ? 2 : status;
}

// Every user error reads `error: ...` or `file:line:col: error: ...`, whichever stage threw it.
std::string user_error_text(const std::string& what) {
  return what.substr(0, what.find('\n')).find("error: ") != std::string::npos ? what : "error: " + what;
}

int run_subcommand(const Subcommand& s, const std::string& name, const mdh::cli::Args& args) {
  try {
    return s.run(args);
  } catch (const mdh::UserError& e) {
    std::cerr << user_error_text(e.what()) << '\n';
    return 2;
  } catch (const boost::program_options::error& e) {
    std::cerr << "error: mdh " << name << ": " << e.what() << " (see mdh " << name << " --help)\n";
    return 2;
  } catch (const mdh::InternalError& e) {
    std::cerr << e.what() << "\nThis is a bug in mdh; please report it with the spec and command line.\n";
    return 3;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: mdh " << name << ": out of memory (are the sizes or the tuning space too large?)\n";
    return 2;
  } catch (const std::exception& e) {
    // Every user error is meant to be a UserError with a message naming its input; this is the net below them.
    std::cerr << "internal error: mdh " << name << ": " << e.what()
              << "\nThis is a bug in mdh; please report it with the spec and command line.\n";
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that goes away (`mdh tune ... | head`) makes writes fail with EPIPE instead of killing mdh mid-run:
  // the run finishes, keeps its result and cleans up, and the lost output is reported at the end.
  std::signal(SIGPIPE, SIG_IGN);
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0 ||
      std::strcmp(argv[1], "help") == 0) {
    // `mdh help COMMAND` is `mdh COMMAND --help`.
    if (argc >= 3 && std::strcmp(argv[1], "help") == 0) {
      for (const auto& s : kSubcommands)
        if (argv[2] == std::string(s.name)) return with_output_checked(run_subcommand(s, s.name, {"--help"}));
      std::cerr << "error: unknown command '" << argv[2] << "'\n";
      print_usage(std::cerr);
      return 2;
    }
    print_usage(argc < 2 ? std::cerr : std::cout);
    return with_output_checked(argc < 2 ? 2 : 0);
  }
  if (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "version") == 0) {
    std::cout << "mdh " << (*mdh::cli::kBuildCommit ? mdh::cli::kBuildCommit : "(built outside a git checkout)")
              << (mdh::cli::kBuildSourceModified ? " with local changes" : "") << '\n';
    return with_output_checked(0);
  }
  const std::string name = argv[1];
  mdh::cli::Args args(argv + 2, argv + argc);
  for (const auto& s : kSubcommands) {
    if (name != s.name) continue;
    auto body = [&] { return with_output_checked(run_subcommand(s, name, args)); };
    return s.runs_kernels ? mdh::cli::run_watched(name, mdh::cli::time_limit_of(args), body) : body();
  }
  std::cerr << "error: unknown command '" << name << "'\n";
  print_usage(std::cerr);
  return 2;
}
