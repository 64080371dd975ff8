#include "cli/common.h"

#include <fstream>
#include <iostream>

#include "mdh/parser.h"

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
