// peer_prl: probabilistic record linkage on every core of the CPU, written as an expert would for this machine: the
// weights precomputed per field and value (apps/prl_weights.mdh's tables, prl_weights.h), `b` stored field by field so
// that the pair loop is a vectorisable compare-and-add over a chunk of `b`, one std::thread per hardware thread over
// contiguous blocks of `a`. Weights add in field order, as the spec's scalar function does, so they equal the
// reference's; ties go to the smaller index of b. Built with -O3 and -march (MDH_PEERS_MARCH, default native).
// Device time = call time = steady time per call = host wall time, thread creation and joining included.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "peers/peer_common.h"
#include "peers/prl_weights.h"
#include "runtime/prl_data.h"

namespace mdh::peers {
namespace {

constexpr size_t kChunk = 512;  // records of b per pass: their weights stay in L1 while the fields are added

/// The spec's `match` struct: { float weight; int index; }.
struct Match {
  float weight;
  int32_t index;
};
static_assert(sizeof(Match) == 8, "match must be laid out as in apps/prl_weights.mdh");

struct PrlOperands {
  std::vector<PrlRecord> a;
  size_t b_count = 0;
  std::vector<uint8_t> b_fields;                   // [kPrlFields][b_count]: field f of every record of b
  std::vector<float> agree_weight, differ_weight;  // [kPrlFields][kPrlValues], of the value x[f] of a's record
  std::vector<Match> best;
};

/// Best match in b for the records [begin, end) of a.
void link_block(const PrlOperands& ops, size_t begin, size_t end, Match* best) {
  alignas(64) float weight[kChunk];
  for (size_t i = begin; i < end; ++i) {
    float agree[kPrlFields], differ[kPrlFields];
    uint8_t value[kPrlFields];
    for (int f = 0; f < kPrlFields; ++f) {
      value[f] = ops.a[i][f];
      agree[f] = ops.agree_weight[static_cast<size_t>(f * kPrlValues + value[f])];
      differ[f] = ops.differ_weight[static_cast<size_t>(f * kPrlValues + value[f])];
    }
    Match m{-INFINITY, -1};
    for (size_t j0 = 0; j0 < ops.b_count; j0 += kChunk) {
      const size_t len = std::min(kChunk, ops.b_count - j0);
      std::fill(weight, weight + len, 0.0f);
      for (int f = 0; f < kPrlFields; ++f) {
        const uint8_t* field = ops.b_fields.data() + static_cast<size_t>(f) * ops.b_count + j0;
        const uint8_t v = value[f];
        const float yes = agree[f], no = differ[f];
        for (size_t j = 0; j < len; ++j) weight[j] += field[j] == v ? yes : no;
      }
      for (size_t j = 0; j < len; ++j)
        if (weight[j] > m.weight)
          m = Match{weight[j], static_cast<int32_t>(j0 + j)};  // ascending j: ties keep the first
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
  PrlWeights weights = prl_weights_of(pc);
  const unsigned threads = host_cpu_threads();
  auto ops = std::make_shared<PrlOperands>();
  ops->a = records_of(pc.input("a"));
  const std::vector<PrlRecord> b = records_of(pc.input("b"));
  ops->b_count = b.size();
  ops->b_fields.resize(static_cast<size_t>(kPrlFields) * b.size());
  for (size_t j = 0; j < b.size(); ++j)
    for (int f = 0; f < kPrlFields; ++f) ops->b_fields[static_cast<size_t>(f) * b.size() + j] = b[j][f];
  ops->agree_weight = std::move(weights.agree);
  ops->differ_weight = std::move(weights.differ);
  ops->best.assign(ops->a.size(), Match{0.0f, 0});

  PeerSetup setup;
  setup.peer = "cpp-threads";
  setup.library_version = "C++20 std::thread, -O3 " MDH_PEERS_MARCH_OPTION ", " + std::string(__VERSION__);
  setup.device_name = host_cpu_name(std::to_string(threads) + " threads");
  setup.layouts =
      "a: 14-uchar records (array of structs); b: field-major uchar[14][M] (set-up); weight tables "
      "float[14][256] for agreeing and differing fields (set-up); best {float, int}[N]";
  setup.device_time_includes = "same as call time";
  setup.call_time_includes = "host wall time: starting the threads, linking every record of a, joining";
  setup.steady_time_includes = "host steady clock around n calls back to back, each starting and joining its threads";
  setup.notes["threads"] = threads;
  setup.notes["setup_not_timed"] = "weight tables (the spec's, or from freq); b transposed to field-major";
  auto call = [ops, threads] { link_records(*ops, threads); };
  setup.run_once = [call] {
    const double start = now_ns();
    call();
    const double wall = now_ns() - start;
    return RunTimes{wall, wall};
  };
  setup.steady_calls = host_steady_calls(call);
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
