// peer_prl: probabilistic record linkage written the way an existing registry code does it (SAC'19 baseline):
// one std::thread per hardware thread, the records of `a` split into contiguous blocks, each thread scanning all of
// `b` for every record of its block, the weight computed per pair exactly as apps/prl.mdh's scalar function does
// (float, fields in order), ties going to the smaller index of b. Device time = call time = host wall time of the
// call, thread creation and joining included.
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "peers/peer_common.h"
#include "runtime/prl_data.h"

namespace mdh::peers {
namespace {

// m_i of SAC'19: names 0.975, birth date 0.99, gender 0.999, municipality 0.9 (apps/prl.mdh's m_prob).
constexpr float kMatchProbability[kPrlFields] = {0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f, 0.975f,
                                                 0.975f, 0.975f, 0.99f,  0.99f,  0.99f,  0.999f, 0.9f};

/// The spec's `match` struct: { float weight; int index; }.
struct Match {
  float weight;
  int32_t index;
};
static_assert(sizeof(Match) == 8, "match must be laid out as in apps/prl.mdh");

struct PrlOperands {
  std::vector<PrlRecord> a, b;
  std::vector<float> freq;  // [kPrlFields][kPrlValues]
  std::vector<Match> best;
};

float pair_weight(const PrlRecord& x, const PrlRecord& y, const float* freq) {
  float w = 0.0f;
  for (int f = 0; f < kPrlFields; ++f) {
    const float u = freq[f * kPrlValues + x[f]];
    const float m = kMatchProbability[f];
    w += x[f] == y[f] ? std::log(m / u) : std::log((1.0f - m) / (1.0f - u));
  }
  return w;
}

/// Best match in b for the records [begin, end) of a.
void link_block(const PrlOperands& ops, size_t begin, size_t end, Match* best) {
  for (size_t i = begin; i < end; ++i) {
    Match m{-INFINITY, -1};
    for (size_t j = 0; j < ops.b.size(); ++j) {
      const float w = pair_weight(ops.a[i], ops.b[j], ops.freq.data());
      if (w > m.weight) m = Match{w, static_cast<int32_t>(j)};  // j ascends: a tie keeps the smaller index
    }
    best[i] = m;
  }
}

void link_records(PrlOperands& ops, unsigned threads) {
  const size_t n = ops.a.size();
  const size_t block = (n + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    const size_t begin = std::min(n, t * block), end = std::min(n, begin + block);
    if (begin == end) break;
    workers.emplace_back(link_block, std::cref(ops), begin, end, ops.best.data());
  }
  for (std::thread& w : workers) w.join();
}

std::vector<PrlRecord> records_of(const HostBuffer& buffer) {
  if (buffer.element_size != sizeof(PrlRecord))
    throw UserError("buffer " + buffer.name + " holds " + std::to_string(buffer.element_size) +
                    "-byte elements, not 14-byte records");
  std::vector<PrlRecord> records(static_cast<size_t>(buffer.element_count()));
  std::memcpy(records.data(), buffer.bytes.data(), buffer.bytes.size());
  return records;
}

PeerSetup prepare_prl(PeerCase& pc) {
  if (pc.options().routine != "prl")
    throw UserError("peer_prl has no routine '" + pc.options().routine + "' (it offers prl)");
  pc.require_md_hom("prl");
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  auto ops = std::make_shared<PrlOperands>();
  ops->a = records_of(pc.input("a"));
  ops->b = records_of(pc.input("b"));
  ops->freq = float_values(pc.input("freq"));
  if (ops->freq.size() != static_cast<size_t>(kPrlFields * kPrlValues))
    throw UserError("table freq must be float[14][256]");
  ops->best.assign(ops->a.size(), Match{0.0f, 0});

  PeerSetup setup;
  setup.peer = "cpp-threads";
  setup.library_version = "C++20 std::thread, " + std::string(__VERSION__);
  setup.device_name = "host CPU (" + std::to_string(threads) + " threads)";
  setup.layouts = "records: 14 uchar fields each, arrays of structs; freq float[14][256]; best {float, int}[N]";
  setup.device_time_includes = "same as call time";
  setup.call_time_includes = "host wall time: starting the threads, linking every record of a, joining";
  setup.notes["threads"] = threads;
  setup.run_once = [ops, threads] {
    const double start = now_ns();
    link_records(*ops, threads);
    const double wall = now_ns() - start;
    return RunTimes{wall, wall};
  };
  setup.read_output = [&pc, ops] {
    HostBuffer out = pc.make_output();
    if (out.bytes.size() != ops->best.size() * sizeof(Match)) throw UserError("output best must be match[N]");
    std::memcpy(out.bytes.data(), ops->best.data(), out.bytes.size());
    return out;
  };
  return setup;
}

}  // namespace
}  // namespace mdh::peers

int main(int argc, char** argv) {
  return mdh::peers::peer_main(argc, argv, "peer_prl", {}, mdh::peers::prepare_prl);
}
