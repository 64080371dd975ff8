#include "pipeline/shared_reference.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/error.h"

namespace mdh {
namespace {

// The first line: what the bytes after it are.
nlohmann::json header_of(const HostBuffer& output, bool in_double) {
  return {{"mdh_shared_reference", 1}, {"buffer", output.name},  {"element_size", output.element_size},
          {"extents", output.extents}, {"in_double", in_double}, {"bytes", output.bytes.size()}};
}

}  // namespace

void save_shared_reference(const std::string& path, const HostBuffer& output, bool in_double) {
  const std::string partial = path + ".partial-" + std::to_string(::getpid());
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    out << header_of(output, in_double).dump() << '\n';
    out.write(reinterpret_cast<const char*>(output.bytes.data()), static_cast<std::streamsize>(output.bytes.size()));
    if (!out.flush()) {
      std::remove(partial.c_str());
      throw UserError("cannot write the shared reference output '" + partial + "'");
    }
  }
  std::error_code error;
  std::filesystem::rename(partial, path, error);
  if (error) {
    std::remove(partial.c_str());
    throw UserError("cannot move the shared reference output into place at '" + path + "': " + error.message());
  }
}

std::optional<SharedReference> load_shared_reference(const std::string& path, const HostBuffer& shape) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  const nlohmann::json header = nlohmann::json::parse(line, nullptr, false);
  if (header.is_discarded() || !header.is_object() || header.value("mdh_shared_reference", 0) != 1)
    throw UserError("'" + path + "' is not a shared reference output");
  SharedReference reference;
  reference.output.name = shape.name;  // the shape's fields, not its bytes (the output's size, unused)
  reference.output.type = shape.type;
  reference.output.extents = shape.extents;
  reference.in_double = header.value("in_double", false);
  const size_t bytes = header.value("bytes", size_t{0});
  // A reference in double widens the output's float, half and bfloat16 elements (MdHomRun::reference_output); other
  // types stay.
  const bool widened =
      reference.in_double && !shape.type.is_struct() && compute_type(shape.type.scalar) == ScalarType::Float;
  const size_t element_size = widened ? sizeof(double) : shape.element_size;
  if (header.value("buffer", std::string()) != shape.name ||
      header.value("extents", std::vector<int64_t>{}) != shape.extents ||
      header.value("element_size", size_t{0}) != element_size ||
      bytes != static_cast<size_t>(shape.element_count()) * element_size)
    throw UserError("the shared reference output '" + path + "' is for another output than " + shape.declaration());
  reference.output.element_size = element_size;
  if (widened) reference.output.type.scalar = ScalarType::Double;
  reference.output.bytes.resize(bytes);
  in.read(reinterpret_cast<char*>(reference.output.bytes.data()), static_cast<std::streamsize>(bytes));
  if (static_cast<size_t>(in.gcount()) != bytes)
    throw UserError("the shared reference output '" + path + "' is cut short");
  return reference;
}

}  // namespace mdh
