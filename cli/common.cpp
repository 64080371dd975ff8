#include "cli/common.h"

#include <fstream>
#include <sstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "codegen/tuning_space.h"
#include "mdh/parser.h"
#include "runtime/npy.h"
#include "runtime/prl_data.h"

namespace mdh::cli {

bool parse_options(const std::string& command, const std::string& synopsis, const Args& args,
                   po::options_description& options, po::variables_map& vm, const std::string& positional) {
  options.add_options()("help,h", "show this help");
  po::positional_options_description pos;
  if (!positional.empty()) {
    options.add_options()(positional.c_str(), po::value<std::string>(), "the spec file");
    pos.add(positional.c_str(), 1);
  }
  po::store(po::command_line_parser(args).options(options).positional(pos).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: mdh " << command << ' ' << synopsis << "\n\n" << options << '\n';
    return false;
  }
  po::notify(vm);
  if (!positional.empty() && !vm.count(positional))
    throw UserError("mdh " + command + ": missing the spec file (usage: mdh " + command + ' ' + synopsis + ")");
  return true;
}

BoundMdh load_and_bind(const std::string& spec_path, const std::string& size_text) {
  std::shared_ptr<const Mdh> mdh = parse_spec_file(spec_path);
  return bind(mdh, parse_size_binding(size_text));
}

std::pair<std::string, std::string> split_assignment(const std::string& text, const std::string& option) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw UserError("--" + option + " '" + text + "': expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

void add_data_options(po::options_description& options) {
  options.add_options()                                                                                    //
      ("param", po::value<std::vector<std::string>>()->composing(), "a param value, NAME=VALUE (repeatable)")  //
      ("input", po::value<std::vector<std::string>>()->composing(),
       "read input NAME from FILE (.npy for numeric types, raw .bin for structs): NAME=FILE (repeatable)")  //
      ("prl-data", "inputs a, b and freq from the seeded synthetic record generator (for apps/prl.mdh)")     //
      ("seed", po::value<uint64_t>()->default_value(1), "seed of the inputs not given with --input");
}

RunData load_run_data(const po::variables_map& vm, const BoundMdh& bound) {
  const Mdh& mdh = *bound.mdh;
  RunData data;
  data.seed = vm["seed"].as<uint64_t>();
  if (vm.count("param"))
    for (const auto& text : vm["param"].as<std::vector<std::string>>()) {
      auto [name, value] = split_assignment(text, "param");
      data.params[name] = value;
    }
  if (vm.count("input"))
    for (const auto& text : vm["input"].as<std::vector<std::string>>()) {
      auto [name, path] = split_assignment(text, "input");
      int b = mdh.find_buffer(name);
      if (b < 0) throw UserError("--input " + text + ": the spec declares no buffer '" + name + "'");
      if (mdh.buffers[b].kind == BufferKind::Output) throw UserError("--input " + text + ": '" + name + "' is the output");
      HostBuffer buffer = make_host_buffer(bound, b);
      read_buffer_file(path, buffer, "input " + name);
      data.inputs.emplace(name, std::move(buffer));
    }
  if (vm.count("prl-data")) {
    PrlData prl = make_prl_data(bound, data.seed);
    for (HostBuffer* b : {&prl.a, &prl.b, &prl.freq})
      if (!data.inputs.count(b->name)) data.inputs.emplace(b->name, std::move(*b));
  }
  return data;
}

std::vector<std::string> data_option_words(const po::variables_map& vm) {
  std::vector<std::string> words{"--seed", std::to_string(vm["seed"].as<uint64_t>())};
  for (const char* option : {"param", "input"})
    if (vm.count(option))
      for (const auto& text : vm[option].as<std::vector<std::string>>()) words.insert(words.end(), {std::string("--") + option, text});
  if (vm.count("prl-data")) words.push_back("--prl-data");
  return words;
}

TuningSpace restricted_tuning_space(const po::variables_map& vm, const BoundMdh& bound, const DeviceLimits& limits) {
  TuningSpace space = make_tuning_space(bound, limits);
  if (vm.count("restrict"))
    for (const auto& text : vm["restrict"].as<std::vector<std::string>>()) {
      auto [name, list] = split_assignment(text, "restrict");
      std::vector<int64_t> values;
      std::stringstream in(list);
      for (std::string item; std::getline(in, item, ',');) {
        // A value by its label as `mdh space` prints it ("local", "P", "i,j,k"), else by number.
        const int p = space.find(name);
        if (p < 0) throw UserError("--restrict " + text + ": the tuning space has no parameter '" + name + "'");
        const TuningParameter& parameter = space.parameters[p];
        bool found = false;
        for (size_t k = 0; k < parameter.value_names.size() && !found; ++k)
          if (parameter.value_names[k] == item) values.push_back(parameter.values[k]), found = true;
        if (found) continue;
        try {
          values.push_back(std::stoll(item));
        } catch (const std::exception&) {
          throw UserError("--restrict " + text + ": '" + item + "' is neither a value name nor an integer");
        }
      }
      space.restrict_to(name, values);
    }
  return space;
}

void write_text(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UserError("cannot write '" + path + "'");
  out << text;
  if (!out.flush()) throw UserError("cannot write '" + path + "'");
}

}  // namespace mdh::cli
