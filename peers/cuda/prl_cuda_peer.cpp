// prl_cuda: probabilistic record linkage on the GPU (prl_kernel.h), the weights precomputed per field and value
// (prl_weights.h) and read into registers once per record of a; the number of threads per record of a is timed at
// set-up for 1 to 32 and the fastest kept.
#include <cstring>
#include <limits>

#include "cuda_state.h"
#include "peers/prl_weights.h"
#include "prl_kernel.h"

namespace mdh::peers {
namespace {

/// Records of 14 bytes packed into 16 (two zero bytes), the unit the kernel compares four fields at a time in.
std::vector<uint4> packed_records(const HostBuffer& buffer) {
  if (buffer.element_size != static_cast<size_t>(kPrlFields))
    throw UserError("buffer " + buffer.name + " does not hold 14-byte records");
  std::vector<uint4> packed(static_cast<size_t>(buffer.element_count()));
  for (size_t r = 0; r < packed.size(); ++r) {
    unsigned char bytes[16] = {};
    std::memcpy(bytes, buffer.bytes.data() + r * kPrlFields, kPrlFields);
    std::memcpy(&packed[r], bytes, sizeof bytes);
  }
  return packed;
}

}  // namespace

void prepare_prl_cuda(PeerCase& pc, CudaState& s, PeerSetup& setup) {
  if (pc.options().routine != "prl")
    throw UserError("peer_cuda --peer prl_cuda has no routine '" + pc.options().routine + "' (it offers prl)");
  static_assert(sizeof(PrlMatch) == 8 && sizeof(uint4) == 16, "match and packed record layouts");
  const PrlWeights weights = prl_weights_of(pc);  // first: it refuses a spec of another md_hom
  const std::vector<uint4> a_host = packed_records(pc.input("a")), b_host = packed_records(pc.input("b"));
  const int n = static_cast<int>(a_host.size()), m = static_cast<int>(b_host.size());
  auto upload_records = [&s](const std::vector<uint4>& host, const std::string& what) {
    float* device = s.allocate(host.size() * 4, what);
    check_cuda(cudaMemcpy(device, host.data(), host.size() * sizeof(uint4), cudaMemcpyHostToDevice),
               "cudaMemcpy(" + what + ")");
    return reinterpret_cast<const uint4*>(device);
  };
  const uint4* a = upload_records(a_host, "a");
  const uint4* b = upload_records(b_host, "b");
  const float* agree = s.upload(weights.agree, "agree weights");
  const float* differ = s.upload(weights.differ, "differ weights");
  s.output_count = static_cast<size_t>(n) * 2;  // match {float, int} = two 4-byte words
  s.output = s.allocate(s.output_count, "best");
  PrlMatch* best = reinterpret_cast<PrlMatch*>(s.output);

  nlohmann::json tried = nlohmann::json::object();
  int best_lanes = 1;
  double best_ns = std::numeric_limits<double>::infinity();
  for (int lanes : {1, 2, 4, 8, 16, 32}) {
    const double ns = s.time_candidate_ns(
        [&] { check_cuda(launch_prl(a, n, b, m, agree, differ, best, lanes, s.stream), "prl kernel"); }, 5);
    tried[std::to_string(lanes)] = ns;
    if (ns < best_ns) best_lanes = lanes, best_ns = ns;
  }
  setup.layouts =
      "a, b: records packed to 16 bytes (set-up); weight tables float[14][256] agree/differ (set-up, "
      "global memory, read once per record of a into registers); best {float, int}[N] as the spec";
  setup.notes["threads_per_record_of_a"] = best_lanes;
  setup.notes["threads_per_record_ns"] = tried;
  setup.notes["setup_not_timed"] = "weight tables (the spec's, or from freq); records packed to 16 bytes";
  s.enqueue = [&s, a, n, b, m, agree, differ, best, best_lanes] {
    check_cuda(launch_prl(a, n, b, m, agree, differ, best, best_lanes, s.stream), "prl kernel");
  };
}

}  // namespace mdh::peers
