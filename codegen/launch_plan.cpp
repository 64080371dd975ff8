#include "codegen/launch_plan.h"

#include <nlohmann/json.hpp>

#include "mdh/bind.h"
#include "support/error.h"

namespace mdh {

namespace {
const char* buffer_kind_name(BufferKind k) {
  switch (k) {
    case BufferKind::Input:
      return "input";
    case BufferKind::Table:
      return "table";
    case BufferKind::Output:
      return "output";
  }
  return "?";
}

const char* kind_name(KernelArg::Kind k) {
  switch (k) {
    case KernelArg::Kind::Buffer:
      return "buffer";
    case KernelArg::Kind::Scratch:
      return "scratch";
    case KernelArg::Kind::Param:
      return "param";
  }
  return "?";
}
}  // namespace

nlohmann::json launch_to_json(const LaunchPlan& plan) {
  nlohmann::json j;
  j["build_options"] = plan.build_options;
  j["scratch"] = nlohmann::json::array();
  for (const auto& s : plan.scratch) {
    nlohmann::json js{{"purpose", s.purpose}, {"bytes", s.bytes}};
    if (s.zeroed) js["zeroed"] = true;
    j["scratch"].push_back(js);
  }
  j["kernels"] = nlohmann::json::array();
  for (const auto& k : plan.kernels) {
    nlohmann::json jk;
    jk["name"] = k.kernel_name;
    jk["work_dims"] = k.work_dims;
    jk["global_size"] = std::vector<uint64_t>(k.global_size.begin(), k.global_size.begin() + k.work_dims);
    if (k.local_size)
      jk["local_size"] = std::vector<uint64_t>(k.local_size->begin(), k.local_size->begin() + k.work_dims);
    else
      jk["local_size"] = nullptr;
    jk["args"] = nlohmann::json::array();
    for (const auto& a : k.args) {
      nlohmann::json ja{{"kind", kind_name(a.kind)}};
      if (a.kind == KernelArg::Kind::Scratch)
        ja["scratch"] = a.scratch;
      else
        ja["name"] = a.name;
      jk["args"].push_back(ja);
    }
    j["kernels"].push_back(jk);
  }
  return j;
}

nlohmann::json launch_to_json(const LaunchPlan& plan, const BoundMdh& bound, bool float_as_double) {
  const Mdh& mdh = *bound.mdh;
  const auto promoted = [&](const ElementType& t) {
    return float_as_double && !t.is_struct() && t.scalar == ScalarType::Float ? ElementType{ScalarType::Double, ""} : t;
  };
  nlohmann::json j = launch_to_json(plan);
  j["md_hom"] = mdh.name;
  j["sizes"] = bound.sizes;
  j["buffers"] = nlohmann::json::array();
  for (size_t b = 0; b < mdh.buffers.size(); ++b) {
    ElementType type = promoted(mdh.buffers[b].type);
    // The verifying reference writes a half or bfloat16 output in double (codegen/reference_kernel.h).
    if (float_as_double && mdh.buffers[b].kind == BufferKind::Output && !type.is_struct() &&
        is_storage_only(type.scalar))
      type = ElementType{ScalarType::Double, ""};
    const uint64_t element_bytes = mdh.size_of(type);
    j["buffers"].push_back(
        {{"name", mdh.buffers[b].name},
         {"kind", buffer_kind_name(mdh.buffers[b].kind)},
         {"type", mdh.type_name(type)},
         {"element_bytes", element_bytes},
         {"extents", bound.buffer_extents[b]},
         {"bytes", element_bytes * static_cast<uint64_t>(bound.element_count(static_cast<int>(b)))}});
  }
  j["params"] = nlohmann::json::array();
  for (const Param& p : mdh.params) {
    const ElementType type = promoted(p.type);
    j["params"].push_back({{"name", p.name}, {"type", mdh.type_name(type)}, {"bytes", mdh.size_of(type)}});
  }
  return j;
}

LaunchPlan launch_from_json(const nlohmann::json& j) {
  try {
    LaunchPlan plan;
    plan.build_options = j.at("build_options").get<std::string>();
    for (const auto& s : j.at("scratch"))
      plan.scratch.push_back({s.at("purpose"), s.at("bytes"), s.value("zeroed", false)});
    for (const auto& jk : j.at("kernels")) {
      KernelLaunch k;
      k.kernel_name = jk.at("name");
      k.work_dims = jk.at("work_dims");
      if (k.work_dims < 1 || k.work_dims > 3) throw UserError("launch description: work_dims must be 1, 2 or 3");
      auto global = jk.at("global_size").get<std::vector<uint64_t>>();
      if (static_cast<int>(global.size()) != k.work_dims)
        throw UserError("launch description: global_size has the wrong length");
      for (int d = 0; d < k.work_dims; ++d) k.global_size[d] = global[d];
      if (!jk.at("local_size").is_null()) {
        auto local = jk.at("local_size").get<std::vector<uint64_t>>();
        if (static_cast<int>(local.size()) != k.work_dims)
          throw UserError("launch description: local_size has the wrong length");
        std::array<uint64_t, 3> l{1, 1, 1};
        for (int d = 0; d < k.work_dims; ++d) l[d] = local[d];
        k.local_size = l;
      }
      for (const auto& ja : jk.at("args")) {
        KernelArg a;
        std::string kind = ja.at("kind");
        if (kind == "buffer")
          a.kind = KernelArg::Kind::Buffer, a.name = ja.at("name");
        else if (kind == "param")
          a.kind = KernelArg::Kind::Param, a.name = ja.at("name");
        else if (kind == "scratch")
          a.kind = KernelArg::Kind::Scratch, a.scratch = ja.at("scratch");
        else
          throw UserError("launch description: unknown argument kind '" + kind + "'");
        k.args.push_back(a);
      }
      plan.kernels.push_back(k);
    }
    return plan;
  } catch (const nlohmann::json::exception& e) {
    throw UserError(std::string("launch description: ") + e.what());
  }
}

}  // namespace mdh
