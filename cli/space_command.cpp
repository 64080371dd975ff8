// mdh space SPEC --size ...: the tunable kernel's tuning space for a device: parameters with their ranges, the
// constraints between them, and how many configurations satisfy them all.
#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/common.h"
#include "codegen/tuning_space.h"
#include "pipeline/compute_precision.h"
#include "pipeline/device_limits_query.h"
#include "pipeline/tuning_request.h"
#include "pipeline/tuning_search_space.h"
#include "runtime/device.h"

namespace mdh::cli {

int space_command(const Args& args) {
  po::options_description options("mdh space options");
  options.add_options()                                                                                  //
      ("size", po::value<std::string>()->default_value(""), "size bindings, e.g. I=1024,J=1024,K=1024")  //
      ("device", po::value<std::string>()->default_value(""), "device whose limits bound the space")     //
      ("restrict", po::value<std::vector<std::string>>()->composing(),
       "narrow a parameter: NAME=V1,V2,... (repeatable)")                                             //
      ("full-ranges", "search every integer of each range, not only the lattices of sensible sizes")  //
      ("quiet,q", "print only the size");
  add_device_profile_option(options);
  add_precision_option(options);
  po::variables_map vm;
  if (!parse_options("space", "SPEC --size I=..,J=.. [--device D | --device-profile P] [--full-ranges]", args, options,
                     vm))
    return 0;
  BoundMdh bound = load_and_bind(vm["spec"].as<std::string>(), vm["size"].as<std::string>());
  // A profile's limits bound the space as a device's do: the space of a GPU is shown on a machine without one.
  const TargetDevice target = target_device(vm, true);
  const DeviceLimits& limits = target.limits;
  settle_precision(bound, precision_option(vm), limits, target.name, print_note);
  const TuningSpace space = restricted_tuning_space(bound, limits, restrictions(vm), vm.count("full-ranges") > 0);
  const std::vector<std::vector<int64_t>> searched = search_values(space);
  if (!vm.count("quiet")) {
    std::cout << "tuning space of " << bound.mdh->name << " (" << vm["size"].as<std::string>() << ") on "
              << target.described() << "\n\nparameters (" << space.parameters.size() << "):\n";
    for (size_t n = 0; n < space.parameters.size(); ++n) {
      const TuningParameter& p = space.parameters[n];
      std::cout << "  " << p.name << " in ";
      const int64_t count = p.restricted ? static_cast<int64_t>(p.restricted->size()) : p.hi - p.lo + 1;
      if (p.kind() == FamilyValueKind::integer && !p.restricted) {
        // The range, and the lattice the tuner searches in it.
        std::cout << '[' << p.lo << ", " << p.hi << ']';
        if (static_cast<int64_t>(searched[n].size()) < count) {
          std::cout << ", searched {";
          for (size_t k = 0; k < searched[n].size(); ++k) std::cout << (k ? ", " : "") << searched[n][k];
          std::cout << '}';
        }
      } else {
        std::cout << '{';
        for (int64_t k = 0; k < count; ++k) {
          if (k == 12 && count > 14) {
            std::cout << ", ... (" << count << " values)";
            break;
          }
          std::cout << (k ? ", " : "") << p.value_name(p.restricted ? (*p.restricted)[k] : p.lo + k);
        }
        std::cout << '}';
      }
      if (p.neutral) std::cout << ", neutral " << p.value_name(*p.neutral);
      std::cout << '\n';
    }
    std::cout << "\nfamilies:\n";
    for (const ParameterFamily& family : parameter_families())
      std::cout << "  " << family.name << ": " << family.meaning << '\n';
    size_t applied = 0;
    for (const TuningConstraint& c : space.constraints) applied += space.applies(c) ? 1 : 0;
    std::cout << "\nconstraints (" << applied << "):\n";
    for (const TuningConstraint& c : space.constraints)
      if (space.applies(c))
        std::cout << "  " << c.description() << (c.lattice_only ? " [default space only; --full-ranges lifts it]" : "")
                  << '\n';
    std::cout << '\n';
  }
  std::cout.flush();
  // The tuner's own space generation counts exactly (chain of trees, one per independent group).
  const auto start = std::chrono::steady_clock::now();
  tuner::SearchSpace search_space = make_search_space(space);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "space generated in " << seconds << " s (" << search_space.group_count() << " independent groups, "
            << search_space.memory_bytes() / 1024 << " KiB of trees, " << search_space.global_constraints().size()
            << " constraints checked per configuration)\n";
  if (!search_space.has_global_constraints()) {
    std::cout << "valid configurations: " << tuner::to_grouped_decimal(search_space.size()) << " (exact)\n";
  } else if (search_space.known_valid_size()) {
    std::cout << "valid configurations: " << tuner::to_grouped_decimal(*search_space.known_valid_size())
              << " (exact, of " << tuner::to_grouped_decimal(search_space.size()) << " candidates)\n";
  } else {
    // Counting would enumerate the candidates; estimate the valid share from uniform samples instead.
    tuner::ValidSizeEstimate estimate = search_space.estimate_valid_size(20000, 1);
    char line[160];
    std::snprintf(line, sizeof line, "valid configurations: about %.3g (95%% interval %.3g to %.3g; %llu of %llu ",
                  estimate.valid, estimate.low, estimate.high, static_cast<unsigned long long>(estimate.valid_samples),
                  static_cast<unsigned long long>(estimate.samples));
    const tuner::SamplingBlocks& blocks = search_space.sampling_blocks();
    if (blocks.active())  // uniform candidates would almost all be invalid (tuner/space/sampling_blocks.h)
      std::cout << line << "uniform draws valid from the " << tuner::to_grouped_decimal(blocks.drawn_from())
                << " configurations that " << blocks.block_count() << " sampling blocks admit, of "
                << tuner::to_grouped_decimal(search_space.size()) << " candidates)\n";
    else
      std::cout << line << "uniform samples of the " << tuner::to_grouped_decimal(search_space.size())
                << " candidates valid)\n";
  }
  return 0;
}

}  // namespace mdh::cli
