// Loading an md_hom's inputs from the user's options.
#include "pipeline/run_inputs.h"

#include "runtime/npy.h"
#include "runtime/prl_data.h"
#include "support/error.h"

namespace mdh {

nlohmann::json DataOptions::to_json() const {
  return {{"seed", seed}, {"params", params}, {"input_files", input_files}, {"prl_data", prl_data}};
}

DataOptions DataOptions::from_json(const nlohmann::json& json) {
  DataOptions o;
  o.seed = json.at("seed").get<uint64_t>();
  o.params = json.at("params").get<std::map<std::string, std::string>>();
  o.input_files = json.at("input_files").get<std::map<std::string, std::string>>();
  o.prl_data = json.at("prl_data").get<bool>();
  return o;
}

SizeBinding sizes_from_shapes(const Mdh& mdh, const std::map<std::string, std::vector<int64_t>>& shapes) {
  SizeBinding sizes;
  for (const auto& [name, shape] : shapes) {
    const int b = mdh.find_buffer(name);
    if (b < 0 || mdh.buffers[b].extents.size() != shape.size()) continue;
    for (size_t k = 0; k < shape.size(); ++k) {
      const SizeExpr& extent = mdh.buffers[b].extents[k];
      if (extent.kind() == SizeExpr::Kind::Symbol) sizes.emplace(extent.symbol_name(), shape[k]);
    }
  }
  return sizes;
}

RunInputs load_run_inputs(const BoundMdh& bound, const DataOptions& options) {
  const Mdh& mdh = *bound.mdh;
  RunInputs data;
  data.seed = options.seed;
  data.params = options.params;
  for (const auto& [name, path] : options.input_files) {
    const int b = mdh.find_buffer(name);
    if (b < 0) throw UserError("--input " + name + "=" + path + ": the spec declares no buffer '" + name + "'");
    if (mdh.buffers[b].kind == BufferKind::Output)
      throw UserError("--input " + name + "=" + path + ": '" + name + "' is the output");
    HostBuffer buffer = make_host_buffer(bound, b);
    read_buffer_file(path, buffer, "input " + name);
    data.inputs.emplace(name, std::move(buffer));
  }
  if (options.prl_data) {
    PrlData prl = make_prl_data(bound, data.seed);
    for (HostBuffer* b : prl.buffers())
      if (!data.inputs.count(b->name)) data.inputs.emplace(b->name, std::move(*b));
  }
  return data;
}

}  // namespace mdh
