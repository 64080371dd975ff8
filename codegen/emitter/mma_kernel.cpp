// The tensor-core kernel (codegen/tensor_core.h): C[m, n] = sum_k A[m, k] * B[k, n] over the flattened roles, on
// warp-level m16n8k8 TF32 fragments.
//
// A work-group owns a MMA_BLOCK_M x MMA_BLOCK_N tile of C (work-groups taken MMA_SWIZZLE tile rows at a time) and
// walks the reduction in tiles of MMA_BLOCK_K: its work-items copy the tiles of A and B into local memory
// (rounded to TF32 on the way, zero past the extents), then each warp multiplies its part from there, fragment
// by fragment, accumulating in registers. With MMA_PREFETCH on, the next tiles are loaded into registers while
// the current ones are multiplied; with MMA_STAGES S > 1 they are copied asynchronously (cp.async) into a ring of S
// pairs of local tiles, S - 1 reduction tiles ahead, and rounded to TF32 as the fragments are read instead. Full
// tiles load and store without tests; only the edge tiles test the extents.
//
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32): lane = 4g + t holds A rows g and g + 8 at columns t and t + 4,
// B column g at rows t and t + 4, and C rows g and g + 8 at columns 2t and 2t + 1. Under NVIDIA's driver the
// multiply is inline PTX `mma.sync`; elsewhere each warp exchanges its fragments through local memory and every
// work-item computes its four results from them, so that PoCL runs (and the tests check) the same index arithmetic.
// Half and bfloat16 inputs are converted to float as their tiles are loaded (exactly) and multiply as m16n8k16
// fragments of their type (emit_k16_fragment_products), without vector loads or asynchronous copies; half and bfloat16
// results round on their store.
#include <algorithm>
#include <functional>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/tensor_core.h"

namespace mdh {

namespace {

using emitter::affine;
using emitter::join;
using emitter::str;

class MmaEmitter {
 public:
  MmaEmitter(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
             const PreambleOptions& options)
      : b_(bound), m_(*bound.mdh), c_(config), roles_(*tensor_core_roles(bound)), options_(options) {
    nvidia_ = limits.nvidia_driver;
    options_.contract_multiply_add = true;
  }

  LaunchPlan emit();

 private:
  void line(const std::string& text) { out_ << std::string(2 * indent_, ' ') << text << '\n'; }
  void open(const std::string& text) {
    line(text + " {");
    ++indent_;
  }
  void close(const std::string& tail = "") {
    --indent_;
    line("}" + tail);
  }
  int64_t value(const char* family) const { return c_.value(family); }
  // MMA_SPLIT_K > 1: work-groups along the reduction write partial results, which a second kernel adds up.
  bool split() const { return value("MMA_SPLIT_K") > 1; }
  void emit_split_combine_kernel(LaunchPlan& plan);
  int64_t tiles_points() const { return roles_.batch_extent * roles_.m_extent * roles_.n_extent; }
  int64_t vector_width(int a) const { return c_.value("MMA_VECTOR", a); }
  int64_t stages() const { return value("MMA_STAGES"); }
  // MMA_FRAGMENT_LOADS paired: the mma's reduction slots t and t + 4 read the tiles' steps 2t and 2t + 1.
  bool paired() const { return value("MMA_FRAGMENT_LOADS") == 1; }
  // Half and bfloat16 inputs multiply as m16n8k16 fragments of their own type (PTX .f16 or .bf16).
  bool k16() const { return !roles_.stored_as_computed; }
  const char* fragment_type() const {
    return m_.buffers[b_.inputs[0].buffer].type.scalar == ScalarType::Half ? "f16" : "bf16";
  }
  void emit_k16_helpers();
  struct WarpExchange {
    const char* instruction;  // "mma.m16n8k8"
    const char* function;     // the helper's name
    int k, a_per_lane, b_per_lane;
    const char* k_step_prelude;  // lines at the start of each reduction step
    const char* a_cell;          // where lane 4g + t put A's row mma_row, step mma_k
    const char* b_cell;          // where it put B's column mma_column, step mma_k (after A's cells)
  };
  void emit_warp_exchange(const WarpExchange& x);
  void open_fragment_grid();
  void emit_k16_fragment_products();
  std::string vector_type(int a) const { return vector_width(a) == 1 ? "float" : "float" + str(vector_width(a)); }
  // `v` rounded to TF32, component by component.
  std::string rounded(int a, const std::string& v) const;

  void emit_macros();
  void emit_tf32_helpers();
  // `const int <prefix><dim> = ...;` for each dimension of `dims` from the flattened index `flat`.
  void decompose(const std::vector<int>& dims, const std::string& flat, const std::string& prefix);
  // The element offset of access `x` where each dimension d is the variable prefix_of(d) + name.
  std::string offset(const BoundAccess& x, const std::function<std::string(int)>& var_of) const;
  std::string role_var(int d, const std::string& m_prefix, const std::string& n_prefix,
                       const std::string& k_prefix) const;
  // Loads of one input's tile (access a, 0 = A, 1 = B) into registers `reg[round]` or straight into local memory.
  void emit_tile_cell(int a);
  // Where a tile load puts its cells: registers (MMA_PREFETCH), the local tile, or the local tile by an
  // asynchronous copy (MMA_STAGES; a plain store outside NVIDIA's driver), not rounded until the fragments are read.
  enum class Into { registers, local, local_async };
  void emit_tile_load(int a, const std::string& k_tile, Into into, bool guarded);
  void emit_tile_loads(const std::string& k_tile, Into into);
  void emit_async_copy(int a, bool guarded);
  std::string emit_cell_offset(int a);
  void emit_pipelined_loop();
  void emit_register_stores();
  void emit_fragment_products();
  void emit_write_back(bool guarded);
  // MMA_EPILOGUE staged: one band of 16 rows of the warp's results at a time through local memory, stored by
  // consecutive work-items along consecutive columns.
  bool staged() const { return value("MMA_EPILOGUE") == 1; }
  void emit_staged_write_back(bool guarded);
  // The store of result `value` at flattened row and column `row`, `column` (into the splits' partials or C).
  void emit_result_store(const std::string& row, const std::string& column, const std::string& value);
  std::vector<std::string> kernel_parameters(KernelLaunch& launch);

  const BoundMdh& b_;
  const Mdh& m_;
  const KernelConfig& c_;
  TensorCoreRoles roles_;
  PreambleOptions options_;
  bool nvidia_ = false;
  std::ostringstream out_;
  int indent_ = 0;
};

void MmaEmitter::emit_macros() {
  const auto tuning = [&](const char* name) {
    out_ << "#ifndef " << name << "\n#define " << name << ' ' << value(name) << "\n#endif\n";
  };
  for (const char* name :
       {"MMA_BLOCK_M", "MMA_BLOCK_N", "MMA_BLOCK_K", "MMA_WARPS_M", "MMA_WARPS_N", "MMA_SWIZZLE", "MMA_SPLIT_K"})
    tuning(name);
  // Not a -D option: the waits for the asynchronous copies name MMA_STAGES - 2 as a literal.
  if (stages() > 1) out_ << "#define MMA_STAGES " << stages() << "\n";
  out_ << "#define MMA_M_EXTENT " << roles_.m_extent << "\n#define MMA_N_EXTENT " << roles_.n_extent
       << "\n#define MMA_K_EXTENT " << roles_.k_extent << "\n#define MMA_BATCH_EXTENT " << roles_.batch_extent << "\n";
  out_ << "#define MMA_WORK_ITEMS (32*MMA_WARPS_M*MMA_WARPS_N)\n"
          "#define MMA_WARP_ROWS (MMA_BLOCK_M/MMA_WARPS_M)\n"
          "#define MMA_WARP_COLUMNS (MMA_BLOCK_N/MMA_WARPS_N)\n"
          "#define MMA_FRAGMENTS_M (MMA_WARP_ROWS/16)\n"
          "#define MMA_FRAGMENTS_N (MMA_WARP_COLUMNS/8)\n"
          "#define MMA_TILES_M ((MMA_M_EXTENT + MMA_BLOCK_M - 1)/MMA_BLOCK_M)\n"
          "#define MMA_TILES_N ((MMA_N_EXTENT + MMA_BLOCK_N - 1)/MMA_BLOCK_N)\n"
          "#define MMA_TILES_K ((MMA_K_EXTENT + MMA_BLOCK_K - 1)/MMA_BLOCK_K)\n"
          "#define MMA_TILES_K_PER_SPLIT ((MMA_TILES_K + MMA_SPLIT_K - 1)/MMA_SPLIT_K)\n"
          "#define MMA_A_ELEMENTS (MMA_BLOCK_M*MMA_BLOCK_K)\n"
          "#define MMA_B_ELEMENTS (MMA_BLOCK_N*MMA_BLOCK_K)\n";
  // Vectors of the tiles' loads (MMA_VECTOR): their types follow from the value, so it is not a -D option.
  out_ << "#define MMA_A_VECTOR " << vector_width(0) << "\n#define MMA_B_VECTOR " << vector_width(1) << "\n";
  out_ << "#define MMA_A_CHUNKS (MMA_A_ELEMENTS/MMA_A_VECTOR)\n"
          "#define MMA_B_CHUNKS (MMA_B_ELEMENTS/MMA_B_VECTOR)\n"
          "#define MMA_A_ROUNDS ((MMA_A_CHUNKS + MMA_WORK_ITEMS - 1)/MMA_WORK_ITEMS)\n"
          "#define MMA_B_ROUNDS ((MMA_B_CHUNKS + MMA_WORK_ITEMS - 1)/MMA_WORK_ITEMS)\n";
  // Local tiles: K-major rows of the free extent plus 8, or free-major rows of BLOCK_K plus 4, so that a warp's
  // fragment loads (4 x 8 work-items) reach 32 different banks; paired loads (steps 2t and 2t + 1) need plus 4
  // and plus 8 instead.
  const auto layout = [&](const char* tile, bool k_major, const char* free) {
    if (k_major)
      out_ << "#define " << tile << "_ROW (" << free << (paired() ? " + 4" : " + 8") << ")\n#define " << tile
           << "_AT(mma_f, mma_k) ((mma_k)*" << tile << "_ROW + (mma_f))\n#define " << tile << "_FLOATS (MMA_BLOCK_K*"
           << tile << "_ROW)\n";
    else
      out_ << "#define " << tile << "_ROW (MMA_BLOCK_K" << (paired() ? " + 8" : " + 4") << ")\n#define " << tile
           << "_AT(mma_f, mma_k) ((mma_f)*" << tile << "_ROW + (mma_k))\n#define " << tile << "_FLOATS (" << free << "*"
           << tile << "_ROW)\n";
  };
  layout("MMA_A_TILE", roles_.a_k_major, "MMA_BLOCK_M");
  layout("MMA_B_TILE", roles_.b_k_major, "MMA_BLOCK_N");
  if (staged())
    out_ << "#define MMA_STAGING_ROW (MMA_WARP_COLUMNS + 8)\n#define MMA_STAGING_FLOATS (16*MMA_STAGING_ROW)\n";
  out_ << "#if MMA_BLOCK_M % (16*MMA_WARPS_M) != 0 || MMA_BLOCK_N % (8*MMA_WARPS_N) != 0 || MMA_BLOCK_K % "
       << (k16() ? "16" : "8")
       << " != 0\n"
          "#error \"MMA_BLOCK_M, _N, _K must be multiples of the warps' fragments\"\n#endif\n\n";
}

void MmaEmitter::emit_tf32_helpers() {
  if (nvidia_) {
    out_ << "// A float rounded to TF32 (10 fraction bits, to nearest, ties away from zero), kept as a float.\n"
            "inline float mma_tf32(float mma_x) {\n"
            "  uint mma_r;\n"
            "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(mma_r) : \"f\"(mma_x));\n"
            "  return as_float(mma_r);\n"
            "}\n\n";
    return;
  }
  out_ << "// A float rounded to TF32 (10 fraction bits, to nearest, ties away from zero), as cvt.rna.tf32.f32 does.\n"
          "inline float mma_tf32(float mma_x) {\n"
          "  return isfinite(mma_x) ? as_float((as_uint(mma_x) + 0x1000u) & 0xffffe000u) : mma_x;\n"
          "}\n\n";
  emit_warp_exchange({"mma.m16n8k8", "mma_mma", 8, 4, 2, "",
                      "((mma_row & 7)*4 + (mma_k & 3))*4 + (mma_row >> 3) + 2*(mma_k >> 2)",
                      "(mma_column*4 + (mma_k & 3))*2 + (mma_k >> 2)"});
}

// Unrolled loops over the warp's fragments of C, mma_fm (rows) outside mma_fn (columns); close() twice ends them.
void MmaEmitter::open_fragment_grid() {
  line("#pragma unroll");
  open("for (int mma_fm = 0; mma_fm < MMA_FRAGMENTS_M; ++mma_fm)");
  line("#pragma unroll");
  open("for (int mma_fn = 0; mma_fn < MMA_FRAGMENTS_N; ++mma_fn)");
}

// One warp's m16n8k`k` on a device without the instruction: each work-item publishes its fragments of A and B in
// local memory, then computes its four results of C from all of them, reading each fragment where its lane put it.
void MmaEmitter::emit_warp_exchange(const WarpExchange& x) {
  const int b_base = 32 * x.a_per_lane;
  out_ << "// " << x.instruction << " of one warp through local memory (`mma_exchange`: " << b_base + 32 * x.b_per_lane
       << " floats of this warp): each work-item\n"
          "// publishes its fragments of A ("
       << x.a_per_lane << ") and B (" << x.b_per_lane
       << "), then computes its four results of C from all of them.\n"
          "inline void "
       << x.function
       << "(float* mma_acc, const float* mma_a, const float* mma_b, __local float* mma_exchange, int mma_lane) {\n"
          "  for (int mma_q = 0; mma_q < "
       << x.a_per_lane << "; ++mma_q) mma_exchange[mma_lane*" << x.a_per_lane
       << " + mma_q] = mma_a[mma_q];\n"
          "  for (int mma_q = 0; mma_q < "
       << x.b_per_lane << "; ++mma_q) mma_exchange[" << b_base << " + mma_lane*" << x.b_per_lane
       << " + mma_q] = mma_b[mma_q];\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  const int mma_g = mma_lane >> 2, mma_t = mma_lane & 3;\n"
          "  for (int mma_q = 0; mma_q < 4; ++mma_q) {\n"
          "    const int mma_row = mma_g + 8*(mma_q >> 1), mma_column = 2*mma_t + (mma_q & 1);\n"
          "    float mma_sum = mma_acc[mma_q];\n"
          "    for (int mma_k = 0; mma_k < "
       << x.k << "; ++mma_k) {\n"
       << x.k_step_prelude << "      const float mma_a_rk = mma_exchange[" << x.a_cell
       << "];\n"
          "      const float mma_b_kc = mma_exchange["
       << b_base << " + " << x.b_cell
       << "];\n"
          "      mma_sum += mma_a_rk * mma_b_kc;\n"
          "    }\n"
          "    mma_acc[mma_q] = mma_sum;\n"
          "  }\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "}\n\n";
}

// m16n8k16 (PTX ISA, .f16/.bf16): lane 4g + t holds A rows g and g + 8 at columns 2t, 2t + 1, 2t + 8, 2t + 9 (a0-a7:
// row g cols 2t, 2t+1; row g+8 the same; then both rows 8 columns on), B column g at rows 2t, 2t + 1, 2t + 8, 2t + 9,
// and C as m16n8k8. Each 32-bit register holds two neighbours, the lower index in its lower half.
void MmaEmitter::emit_k16_helpers() {
  if (nvidia_) {
    out_ << "// Two floats (exact in " << fragment_type()
         << ") packed into one register, `mma_low` in its lower half.\n"
         << "inline uint mma_pack(float mma_low, float mma_high) {\n"
         << "  uint mma_r;\n"
         << "  asm(\"cvt.rn." << fragment_type() << "x2.f32 %0, %1, %2;\" : \"=r\"(mma_r) : \"f\"(mma_high), "
         << "\"f\"(mma_low));\n"
         << "  return mma_r;\n"
         << "}\n\n";
    return;
  }
  emit_warp_exchange({"mma.m16n8k16", "mma_mma16", 16, 8, 4,
                      "      const int mma_pair = (mma_k & 7) >> 1, mma_half = mma_k & 1, mma_upper = mma_k >> 3;\n",
                      "((mma_row & 7)*4 + mma_pair)*8 + mma_half + 2*(mma_row >> 3) + 4*mma_upper",
                      "(mma_column*4 + mma_pair)*4 + mma_half + 2*mma_upper"});
}

// The warp's m16n8k16 fragments of the current local tiles, 16 reduction steps at a time (cells read one by one:
// MMA_FRAGMENT_LOADS is scalar and the tiles hold floats, loaded whole).
void MmaEmitter::emit_k16_fragment_products() {
  const auto cell = [&](bool a, const std::string& free, const std::string& step) {
    const std::string tile = a ? "mma_a_tile" : "mma_b_tile";
    return tile + "[" + (a ? "MMA_A" : "MMA_B") + "_TILE_AT(" + free + ", mma_ks + " + step + ")]";
  };
  const std::vector<std::string> steps = {"2*mma_t", "2*mma_t + 1", "2*mma_t + 8", "2*mma_t + 9"};
  line("#pragma unroll");
  open("for (int mma_ks = 0; mma_ks < MMA_BLOCK_K; mma_ks += 16)");
  line("float mma_fa[MMA_FRAGMENTS_M][8], mma_fb[MMA_FRAGMENTS_N][4];");
  line("#pragma unroll");
  open("for (int mma_fm = 0; mma_fm < MMA_FRAGMENTS_M; ++mma_fm)");
  line("const int mma_row = mma_warp_m*MMA_WARP_ROWS + mma_fm*16 + mma_g;");
  for (int i = 0; i < 8; ++i) {
    const std::string row = (i & 2) ? "mma_row + 8" : "mma_row";
    line("mma_fa[mma_fm][" + str(i) + "] = " + cell(true, row, steps[(i & 1) + 2 * (i >> 2)]) + ";");
  }
  close();
  line("#pragma unroll");
  open("for (int mma_fn = 0; mma_fn < MMA_FRAGMENTS_N; ++mma_fn)");
  line("const int mma_column = mma_warp_n*MMA_WARP_COLUMNS + mma_fn*8 + mma_g;");
  for (int i = 0; i < 4; ++i) line("mma_fb[mma_fn][" + str(i) + "] = " + cell(false, "mma_column", steps[i]) + ";");
  close();
  open_fragment_grid();
  if (nvidia_) {
    const std::string type = fragment_type();
    line("asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32." + type + "." + type +
         ".f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\"");
    line(
        "    : \"+f\"(mma_acc[mma_fm][mma_fn][0]), \"+f\"(mma_acc[mma_fm][mma_fn][1]), "
        "\"+f\"(mma_acc[mma_fm][mma_fn][2]), \"+f\"(mma_acc[mma_fm][mma_fn][3])");
    line(
        "    : \"r\"(mma_pack(mma_fa[mma_fm][0], mma_fa[mma_fm][1])), \"r\"(mma_pack(mma_fa[mma_fm][2], "
        "mma_fa[mma_fm][3])), \"r\"(mma_pack(mma_fa[mma_fm][4], mma_fa[mma_fm][5])), "
        "\"r\"(mma_pack(mma_fa[mma_fm][6], mma_fa[mma_fm][7])), \"r\"(mma_pack(mma_fb[mma_fn][0], "
        "mma_fb[mma_fn][1])), \"r\"(mma_pack(mma_fb[mma_fn][2], mma_fb[mma_fn][3])));");
  } else {
    line("mma_mma16(mma_acc[mma_fm][mma_fn], mma_fa[mma_fm], mma_fb[mma_fn], mma_exchange + mma_warp*384, mma_lane);");
  }
  close();
  close();
  close();
}

void MmaEmitter::decompose(const std::vector<int>& dims, const std::string& flat, const std::string& prefix) {
  if (dims.size() == 1) {
    line("const int " + prefix + m_.dims[dims[0]].name + " = " + flat + ";");
    return;
  }
  std::string rest = "(" + flat + ")";
  for (size_t k = dims.size(); k-- > 0;) {
    const int64_t extent = b_.dim_extents[dims[k]];
    const std::string name = prefix + m_.dims[dims[k]].name;
    line("const int " + name + " = " + (k == 0 ? rest : rest + " % " + str(extent)) + ";");
    if (k > 0) rest = "(" + rest + " / " + str(extent) + ")";
  }
}

std::string MmaEmitter::offset(const BoundAccess& x, const std::function<std::string(int)>& var_of) const {
  const std::vector<int64_t>& extents = b_.buffer_extents[x.buffer];
  std::vector<std::string> vars;
  for (size_t d = 0; d < m_.dims.size(); ++d) vars.push_back(var_of(static_cast<int>(d)));
  std::string sum;
  int64_t stride = 1;
  for (size_t i = extents.size(); i-- > 0;) {
    const std::string term = affine(x.indices[i].coefficient, vars, x.indices[i].offset);
    sum = (stride == 1 ? term : term + "*" + str(stride)) + (sum.empty() ? "" : " + " + sum);
    stride *= extents[i];
  }
  return sum;
}

static bool contains(const std::vector<int>& dims, int d) {
  return std::find(dims.begin(), dims.end(), d) != dims.end();
}

std::string MmaEmitter::role_var(int d, const std::string& m_prefix, const std::string& n_prefix,
                                 const std::string& k_prefix) const {
  const std::string& name = m_.dims[d].name;
  if (contains(roles_.m_dims, d)) return m_prefix + name;
  if (contains(roles_.n_dims, d)) return n_prefix + name;
  if (contains(roles_.k_dims, d)) return k_prefix + name;
  return "mma_batch_" + name;
}

// One input's tile, element e = w + round * WORK_ITEMS in the order of the tile's local layout (its unit-stride
// role fastest, so that neighbouring work-items read neighbouring elements); cell (fi, ki): free index, depth.
void MmaEmitter::emit_tile_cell(int a) {
  const bool k_major = a == 0 ? roles_.a_k_major : roles_.b_k_major;
  const std::string T = a == 0 ? "MMA_A" : "MMA_B";
  const std::string free_block = a == 0 ? "MMA_BLOCK_M" : "MMA_BLOCK_N";
  line("const int mma_e = (mma_w + mma_round*MMA_WORK_ITEMS)*" + T + "_VECTOR;");
  line("if (" + T + "_CHUNKS % MMA_WORK_ITEMS != 0 && mma_e >= " + T + "_ELEMENTS) break;");
  if (k_major)
    line("const int mma_fi = mma_e % " + free_block + ", mma_ki = mma_e / " + free_block + ";");
  else
    line("const int mma_fi = mma_e / MMA_BLOCK_K, mma_ki = mma_e % MMA_BLOCK_K;");
}

void MmaEmitter::emit_tile_load(int a, const std::string& k_tile, Into into, bool guarded) {
  const bool is_a = a == 0;
  const std::string T = is_a ? "MMA_A" : "MMA_B", t = is_a ? "mma_a" : "mma_b";
  const std::string free_block = is_a ? "MMA_BLOCK_M" : "MMA_BLOCK_N";
  const std::string free_extent = is_a ? "MMA_M_EXTENT" : "MMA_N_EXTENT";
  const std::string block = is_a ? "mma_block_m" : "mma_block_n";
  const BoundAccess& x = b_.inputs[a];
  const std::string buffer = m_.buffers[x.buffer].name;

  line("#pragma unroll");
  open("for (int mma_round = 0; mma_round < " + T + "_ROUNDS; ++mma_round)");
  emit_tile_cell(a);
  line("const int mma_free = " + block + "*" + free_block + " + mma_fi;");
  line("const int mma_depth = " + k_tile + "*MMA_BLOCK_K + mma_ki;");
  if (into == Into::local_async && nvidia_) {
    emit_async_copy(a, guarded);
    close();
    return;
  }
  line(vector_type(a) + " mma_v = (" + vector_type(a) + ")(0.0f);");
  if (guarded)
    open("if (mma_free < " + free_extent + " && mma_depth < MMA_K_EXTENT)");
  else
    open("");
  const std::string at = emit_cell_offset(a);
  if (vector_width(a) == 1)
    line("mma_v = " + load_element(m_.buffers[x.buffer].type, buffer, at) + ";");
  else
    line("mma_v = *(__global const " + vector_type(a) + "*)(" + buffer + " + " + at + ");");
  close();
  if (into == Into::registers)
    line(t + "_reg[mma_round] = mma_v;");
  else
    line("*(__local " + vector_type(a) + "*)(" + t + "_tile + " + T +
         "_TILE_AT(mma_fi, mma_ki)) = " + (into == Into::local ? rounded(a, "mma_v") : std::string("mma_v")) + ";");
  close();
}

// The element offset of the tile cell (mma_free, mma_depth) in input `a`, after the lines that decompose both.
std::string MmaEmitter::emit_cell_offset(int a) {
  const std::string t = a == 0 ? "mma_a" : "mma_b";
  decompose(a == 0 ? roles_.m_dims : roles_.n_dims, "mma_free", t + "_");
  decompose(roles_.k_dims, "mma_depth", t + "k_");
  return offset(b_.inputs[a], [&](int d) { return role_var(d, t + "_", t + "_", t + "k_"); });
}

// One cell's cp.async of 4, 8 or 16 bytes; past the extents it reads nothing (source size 0) and fills zeros.
void MmaEmitter::emit_async_copy(int a, bool guarded) {
  const bool is_a = a == 0;
  const std::string T = is_a ? "MMA_A" : "MMA_B", t = is_a ? "mma_a" : "mma_b";
  const BoundAccess& x = b_.inputs[a];
  const std::string buffer = m_.buffers[x.buffer].name;
  const std::string bytes = str(4 * vector_width(a)) + "u";
  if (guarded)
    line(std::string("const bool mma_inside = mma_free < ") + (is_a ? "MMA_M_EXTENT" : "MMA_N_EXTENT") +
         " && mma_depth < MMA_K_EXTENT;");
  line("__global const float* mma_source = " + buffer + ";");
  open(guarded ? "if (mma_inside)" : "");
  line("mma_source = " + buffer + " + " + emit_cell_offset(a) + ";");
  close();
  line("const uint mma_target = (uint)(size_t)(" + t + "_tile + " + T + "_TILE_AT(mma_fi, mma_ki));");
  line(std::string("asm volatile(\"cp.async.") + (vector_width(a) == 4 ? "cg" : "ca") + ".shared.global [%0], [%1], " +
       str(4 * vector_width(a)) + ", %2;\" :: \"r\"(mma_target), \"l\"(mma_source), \"r\"(" +
       (guarded ? "mma_inside ? " + bytes + " : 0u" : bytes) + "));");
}

std::string MmaEmitter::rounded(int a, const std::string& v) const {
  const int64_t width = vector_width(a);
  if (width == 1) return "mma_tf32(" + v + ")";
  std::vector<std::string> parts;
  for (int64_t j = 0; j < width; ++j) parts.push_back("mma_tf32((" + v + ").s" + str(j) + ")");
  return "(" + vector_type(a) + ")(" + join(parts, ", ") + ")";
}

// Loads of both tiles of reduction tile `k_tile`: without tests where the work-group's tiles are full.
void MmaEmitter::emit_tile_loads(const std::string& k_tile, Into into) {
  open("if (mma_full_mn && (" + k_tile + " + 1)*MMA_BLOCK_K <= MMA_K_EXTENT)");
  emit_tile_load(0, k_tile, into, false);
  emit_tile_load(1, k_tile, into, false);
  close(" else {");
  ++indent_;
  emit_tile_load(0, k_tile, into, true);
  emit_tile_load(1, k_tile, into, true);
  close();
}

void MmaEmitter::emit_register_stores() {
  for (int a = 0; a < 2; ++a) {
    const std::string T = a == 0 ? "MMA_A" : "MMA_B", t = a == 0 ? "mma_a" : "mma_b";
    line("#pragma unroll");
    open("for (int mma_round = 0; mma_round < " + T + "_ROUNDS; ++mma_round)");
    emit_tile_cell(a);
    line("*(__local " + vector_type(a) + "*)(" + t + "_tile + " + T +
         "_TILE_AT(mma_fi, mma_ki)) = " + rounded(a, t + "_reg[mma_round]") + ";");
    close();
  }
}

// The warp's fragments of the current local tiles, 8 reduction steps at a time. Slots t and t + 4 of a fragment
// read the tiles' steps t and t + 4, or 2t and 2t + 1 when paired (one float2 where a row runs along the
// reduction); tiles copied asynchronously are rounded to TF32 here.
void MmaEmitter::emit_fragment_products() {
  if (k16()) return emit_k16_fragment_products();
  const std::string low = paired() ? "2*mma_t" : "mma_t", high = paired() ? "2*mma_t + 1" : "mma_t + 4";
  const auto cell = [&](const std::string& tile, const std::string& free, const std::string& step) {
    const std::string v =
        tile + "[" + (tile == "mma_a_tile" ? "MMA_A" : "MMA_B") + "_TILE_AT(" + free + ", mma_ks + " + step + ")]";
    return stages() > 1 ? "mma_tf32(" + v + ")" : v;
  };
  // The float2 of steps 2t, 2t + 1 of one row of a free-major tile.
  const auto pair = [&](const std::string& tile, const std::string& free, const std::string& name) {
    line("const float2 " + name + " = *(__local const float2*)(" + tile + " + " +
         (tile == "mma_a_tile" ? "MMA_A" : "MMA_B") + "_TILE_AT(" + free + ", mma_ks + 2*mma_t));");
  };
  const auto pair_part = [&](const std::string& v) { return stages() > 1 ? "mma_tf32(" + v + ")" : v; };
  line("#pragma unroll");
  open("for (int mma_ks = 0; mma_ks < MMA_BLOCK_K; mma_ks += 8)");
  line("float mma_fa[MMA_FRAGMENTS_M][4], mma_fb[MMA_FRAGMENTS_N][2];");
  line("#pragma unroll");
  open("for (int mma_fm = 0; mma_fm < MMA_FRAGMENTS_M; ++mma_fm)");
  line("const int mma_row = mma_warp_m*MMA_WARP_ROWS + mma_fm*16 + mma_g;");
  if (paired() && !roles_.a_k_major) {
    pair("mma_a_tile", "mma_row", "mma_upper");
    pair("mma_a_tile", "mma_row + 8", "mma_lower");
    line("mma_fa[mma_fm][0] = " + pair_part("mma_upper.s0") + ";");
    line("mma_fa[mma_fm][1] = " + pair_part("mma_lower.s0") + ";");
    line("mma_fa[mma_fm][2] = " + pair_part("mma_upper.s1") + ";");
    line("mma_fa[mma_fm][3] = " + pair_part("mma_lower.s1") + ";");
  } else {
    line("mma_fa[mma_fm][0] = " + cell("mma_a_tile", "mma_row", low) + ";");
    line("mma_fa[mma_fm][1] = " + cell("mma_a_tile", "mma_row + 8", low) + ";");
    line("mma_fa[mma_fm][2] = " + cell("mma_a_tile", "mma_row", high) + ";");
    line("mma_fa[mma_fm][3] = " + cell("mma_a_tile", "mma_row + 8", high) + ";");
  }
  close();
  line("#pragma unroll");
  open("for (int mma_fn = 0; mma_fn < MMA_FRAGMENTS_N; ++mma_fn)");
  line("const int mma_column = mma_warp_n*MMA_WARP_COLUMNS + mma_fn*8 + mma_g;");
  if (paired() && !roles_.b_k_major) {
    pair("mma_b_tile", "mma_column", "mma_steps");
    line("mma_fb[mma_fn][0] = " + pair_part("mma_steps.s0") + ";");
    line("mma_fb[mma_fn][1] = " + pair_part("mma_steps.s1") + ";");
  } else {
    line("mma_fb[mma_fn][0] = " + cell("mma_b_tile", "mma_column", low) + ";");
    line("mma_fb[mma_fn][1] = " + cell("mma_b_tile", "mma_column", high) + ";");
  }
  close();
  open_fragment_grid();
  if (nvidia_) {
    line(
        "asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\"");
    line(
        "    : \"+f\"(mma_acc[mma_fm][mma_fn][0]), \"+f\"(mma_acc[mma_fm][mma_fn][1]), "
        "\"+f\"(mma_acc[mma_fm][mma_fn][2]), \"+f\"(mma_acc[mma_fm][mma_fn][3])");
    line(
        "    : \"r\"(as_uint(mma_fa[mma_fm][0])), \"r\"(as_uint(mma_fa[mma_fm][1])), "
        "\"r\"(as_uint(mma_fa[mma_fm][2])), "
        "\"r\"(as_uint(mma_fa[mma_fm][3])), \"r\"(as_uint(mma_fb[mma_fn][0])), "
        "\"r\"(as_uint(mma_fb[mma_fn][1])));");
  } else {
    line("mma_mma(mma_acc[mma_fm][mma_fn], mma_fa[mma_fm], mma_fb[mma_fn], mma_exchange + mma_warp*192, mma_lane);");
  }
  close();
  close();
  close();
}

// Each work-item's results: rows g and g + 8 of each of its fragments, columns 2t and 2t + 1.
void MmaEmitter::emit_write_back(bool guarded) {
  if (staged()) {
    emit_staged_write_back(guarded);
    return;
  }
  open_fragment_grid();
  line("#pragma unroll");
  open("for (int mma_q = 0; mma_q < 4; ++mma_q)");
  line("const int mma_row = mma_block_m*MMA_BLOCK_M + mma_warp_m*MMA_WARP_ROWS + mma_fm*16 + mma_g + 8*(mma_q >> 1);");
  line(
      "const int mma_column = mma_block_n*MMA_BLOCK_N + mma_warp_n*MMA_WARP_COLUMNS + mma_fn*8 + 2*mma_t + (mma_q & "
      "1);");
  if (guarded)
    open("if (mma_row < MMA_M_EXTENT && mma_column < MMA_N_EXTENT)");
  else
    open("");
  emit_result_store("mma_row", "mma_column", "mma_acc[mma_fm][mma_fn][mma_q]");
  close();
  close();
  close();
  close();
}

void MmaEmitter::emit_result_store(const std::string& row, const std::string& column, const std::string& value) {
  if (split()) {
    // Partial results in the combine kernel's order: split, batch, row, column.
    line("mma_partials[((mma_split*MMA_BATCH_EXTENT + mma_batch)*MMA_M_EXTENT + " + row + ")*MMA_N_EXTENT + " + column +
         "] = " + value + ";");
    return;
  }
  const Buffer& output = m_.buffers[b_.output.buffer];
  decompose(roles_.m_dims, row, "mma_c_");
  decompose(roles_.n_dims, column, "mma_c_");
  line(store_element(output.type, output.name,
                     offset(b_.output, [&](int d) { return role_var(d, "mma_c_", "mma_c_", "mma_c_"); }), value));
}

// Each warp writes one fragment row (16 rows x MMA_WARP_COLUMNS) of its results into its part of `mma_staging`
// (rows padded by 8 floats, so that the float2 of columns 2t, 2t + 1 of rows g reach 32 banks per half-warp), then
// reads them back row by row, a work-item per column: a warp stores 32 neighbouring columns of C at once.
void MmaEmitter::emit_staged_write_back(bool guarded) {
  line("__local float* mma_band = mma_staging + mma_warp*MMA_STAGING_FLOATS;");
  line("#pragma unroll");
  open("for (int mma_fm = 0; mma_fm < MMA_FRAGMENTS_M; ++mma_fm)");
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  line("#pragma unroll");
  open("for (int mma_fn = 0; mma_fn < MMA_FRAGMENTS_N; ++mma_fn)");
  line("const int mma_column = mma_fn*8 + 2*mma_t;");
  line(
      "*(__local float2*)(mma_band + mma_g*MMA_STAGING_ROW + mma_column) = "
      "(float2)(mma_acc[mma_fm][mma_fn][0], mma_acc[mma_fm][mma_fn][1]);");
  line(
      "*(__local float2*)(mma_band + (mma_g + 8)*MMA_STAGING_ROW + mma_column) = "
      "(float2)(mma_acc[mma_fm][mma_fn][2], mma_acc[mma_fm][mma_fn][3]);");
  close();
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  line("#pragma unroll");
  open("for (int mma_e = mma_lane; mma_e < 16*MMA_WARP_COLUMNS; mma_e += 32)");
  line("const int mma_in_row = mma_e / MMA_WARP_COLUMNS, mma_in_column = mma_e % MMA_WARP_COLUMNS;");
  line("const int mma_row = mma_block_m*MMA_BLOCK_M + mma_warp_m*MMA_WARP_ROWS + mma_fm*16 + mma_in_row;");
  line("const int mma_column = mma_block_n*MMA_BLOCK_N + mma_warp_n*MMA_WARP_COLUMNS + mma_in_column;");
  if (guarded)
    open("if (mma_row < MMA_M_EXTENT && mma_column < MMA_N_EXTENT)");
  else
    open("");
  emit_result_store("mma_row", "mma_column", "mma_band[mma_in_row*MMA_STAGING_ROW + mma_in_column]");
  close();
  close();
  close();
}

// One work-item per point of C adds the splits' partial results in split order and stores the sum.
void MmaEmitter::emit_split_combine_kernel(LaunchPlan& plan) {
  KernelLaunch launch;
  launch.kernel_name = m_.name + "_combine_splits";
  const int out = m_.output_buffer();
  line("");
  line("__kernel void " + launch.kernel_name + "(__global const float* restrict mma_partials, __global " +
       storage_type_name(m_, m_.buffers[out].type, options_) + "* restrict " + m_.buffers[out].name + ")");
  open("");
  line("const int mma_point = (int)get_global_id(0);");
  line("if (mma_point >= MMA_BATCH_EXTENT*MMA_M_EXTENT*MMA_N_EXTENT) return;");
  line("float mma_sum = 0.0f;");
  line(
      "for (int mma_split = 0; mma_split < MMA_SPLIT_K; ++mma_split) mma_sum += "
      "mma_partials[mma_split*MMA_BATCH_EXTENT*MMA_M_EXTENT*MMA_N_EXTENT + "
      "mma_point];");
  line("const int mma_batch = mma_point / (MMA_M_EXTENT*MMA_N_EXTENT);");
  line("const int mma_row = (mma_point / MMA_N_EXTENT) % MMA_M_EXTENT, mma_column = mma_point % MMA_N_EXTENT;");
  line("(void)mma_batch;");
  if (!roles_.batch_dims.empty()) decompose(roles_.batch_dims, "mma_batch", "mma_batch_");
  decompose(roles_.m_dims, "mma_row", "mma_c_");
  decompose(roles_.n_dims, "mma_column", "mma_c_");
  line(store_element(m_.buffers[out].type, m_.buffers[out].name,
                     offset(b_.output, [&](int d) { return role_var(d, "mma_c_", "mma_c_", "mma_c_"); }), "mma_sum"));
  close();
  launch.args.push_back({KernelArg::Kind::Scratch, "", 0});
  launch.args.push_back({KernelArg::Kind::Buffer, m_.buffers[out].name, -1});
  constexpr uint64_t kCombineGroup = 256;
  const uint64_t points = static_cast<uint64_t>(tiles_points());
  launch.work_dims = 1;
  launch.global_size = {(points + kCombineGroup - 1) / kCombineGroup * kCombineGroup, 1, 1};
  launch.local_size = std::array<uint64_t, 3>{kCombineGroup, 1, 1};
  plan.kernels.push_back(launch);
}

// MMA_STAGES S > 1: tiles kt .. kt + S - 2 are in flight while tile kt is multiplied. Every iteration commits one
// group of copies (empty past the range), so that waiting for all but the S - 2 newest groups means tile kt has
// landed; the barrier after it also tells that every warp is done with the pair the next copy overwrites.
void MmaEmitter::emit_pipelined_loop() {
  const auto commit = [&] {
    if (nvidia_) line("asm volatile(\"cp.async.commit_group;\");");
  };
  const auto at_stage = [&](const std::string& index) {
    line("__local float* mma_a_tile = mma_a_tiles + (" + index + ")*MMA_A_TILE_FLOATS;");
    line("__local float* mma_b_tile = mma_b_tiles + (" + index + ")*MMA_B_TILE_FLOATS;");
  };
  line("#pragma unroll");
  open("for (int mma_s = 0; mma_s < MMA_STAGES - 1; ++mma_s)");
  open("if (mma_kt_begin + mma_s < mma_kt_end)");
  at_stage("mma_s");
  emit_tile_loads("(mma_kt_begin + mma_s)", Into::local_async);
  close();
  commit();
  close();
  open("for (int mma_kt = mma_kt_begin; mma_kt < mma_kt_end; ++mma_kt)");
  if (nvidia_) line("asm volatile(\"cp.async.wait_group " + str(stages() - 2) + ";\");");
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  open("");
  line("const int mma_ahead = mma_kt + MMA_STAGES - 1;");
  open("if (mma_ahead < mma_kt_end)");
  at_stage("(mma_ahead - mma_kt_begin) % MMA_STAGES");
  emit_tile_loads("mma_ahead", Into::local_async);
  close();
  commit();
  close();
  at_stage("(mma_kt - mma_kt_begin) % MMA_STAGES");
  emit_fragment_products();
  close();
}

std::vector<std::string> MmaEmitter::kernel_parameters(KernelLaunch& launch) {
  std::vector<std::string> params;
  emitter::add_input_buffer_parameters(b_, options_, params, launch);
  const int out = m_.output_buffer();
  if (split()) {
    params.push_back("__global float* restrict mma_partials");
    launch.args.push_back({KernelArg::Kind::Scratch, "", 0});
  } else {
    params.push_back("__global " + storage_type_name(m_, m_.buffers[out].type, options_) + "* restrict " +
                     m_.buffers[out].name);
    launch.args.push_back({KernelArg::Kind::Buffer, m_.buffers[out].name, -1});
  }
  emitter::add_param_and_table_parameters(b_, options_, params, launch);
  return params;
}

LaunchPlan MmaEmitter::emit() {
  LaunchPlan plan;
  KernelLaunch launch;
  launch.kernel_name = m_.name + "_tunable";
  const auto names = [&](const std::vector<int>& dims) {
    std::vector<std::string> out;
    for (int d : dims) out.push_back(m_.dims[d].name);
    return out.empty() ? std::string("-") : join(out, ",");
  };
  out_ << "// " << m_.name << ": tensor-core kernel ("
       << (k16() ? std::string(fragment_type()) == "f16" ? "FP16 mma.m16n8k16" : "BF16 mma.m16n8k16"
                 : "TF32 mma.m16n8k8")
       << ") generated by mdh.\n"
       << "// C[m, n] = sum_k A[m, k] * B[k, n] with M = (" << names(roles_.m_dims) << "), N = ("
       << names(roles_.n_dims) << "), K = (" << names(roles_.k_dims) << "), mma_batch = (" << names(roles_.batch_dims)
       << "); A tile " << (roles_.a_k_major ? "K-major" : "M-major") << ", B tile "
       << (roles_.b_k_major ? "K-major" : "N-major") << ".\n";
  out_ << emit_preamble(b_, options_) << '\n';
  emit_macros();
  emit_tf32_helpers();
  if (k16()) emit_k16_helpers();
  const std::vector<std::string> params = kernel_parameters(launch);
  line("__kernel __attribute__((reqd_work_group_size(MMA_WORK_ITEMS, 1, 1)))");
  line("void " + launch.kernel_name + "(" + join(params, ", ") + ")");
  open("");
  // MMA_PREFETCH local keeps two pairs of tiles and alternates between them.
  const int64_t prefetch = value("MMA_PREFETCH");
  const std::string pairs = stages() > 1 ? "MMA_STAGES*" : prefetch == 2 ? "2*" : "";
  if (staged()) {
    // The staging reuses the tiles' local memory: the epilogue begins after the last products.
    const std::string tiles = "(" + pairs + "(MMA_A_TILE_FLOATS + MMA_B_TILE_FLOATS))";
    const std::string staging = "(MMA_WARPS_M*MMA_WARPS_N*MMA_STAGING_FLOATS)";
    line("__local float mma_shared[" + tiles + " > " + staging + " ? " + tiles + " : " + staging +
         "] __attribute__((aligned(16)));");
    line("__local float* mma_a_tiles = mma_shared;");
    line("__local float* mma_b_tiles = mma_shared + " + pairs + "MMA_A_TILE_FLOATS;");
    line("__local float* mma_staging = mma_shared;");
  } else {
    line("__local float mma_a_tiles[" + pairs + "MMA_A_TILE_FLOATS] __attribute__((aligned(16)));");
    line("__local float mma_b_tiles[" + pairs + "MMA_B_TILE_FLOATS] __attribute__((aligned(16)));");
  }
  if (!nvidia_) line("__local float mma_exchange[MMA_WARPS_M*MMA_WARPS_N*" + str(k16() ? 384 : 192) + "];");
  line("const int mma_w = (int)get_local_id(0);");
  line("const int mma_lane = mma_w & 31, mma_warp = mma_w >> 5;");
  line("const int mma_warp_m = mma_warp % MMA_WARPS_M, mma_warp_n = mma_warp / MMA_WARPS_M;");
  line("const int mma_g = mma_lane >> 2, mma_t = mma_lane & 3;");
  line("// The work-group's tile of C: MMA_SWIZZLE rows of tiles at a time, each such group column by column.");
  line("const int mma_group = (int)get_group_id(0);");
  line("const int mma_batch = mma_group / (MMA_TILES_M*MMA_TILES_N);");
  line("const int mma_in_batch = mma_group % (MMA_TILES_M*MMA_TILES_N);");
  line("const int mma_first_m = (mma_in_batch / (MMA_SWIZZLE*MMA_TILES_N))*MMA_SWIZZLE;");
  line("const int mma_rows_here = min(MMA_SWIZZLE, MMA_TILES_M - mma_first_m);");
  line("const int mma_block_m = mma_first_m + (mma_in_batch % (MMA_SWIZZLE*MMA_TILES_N)) % mma_rows_here;");
  line("const int mma_block_n = (mma_in_batch % (MMA_SWIZZLE*MMA_TILES_N)) / mma_rows_here;");
  if (!roles_.batch_dims.empty()) decompose(roles_.batch_dims, "mma_batch", "mma_batch_");
  line("(void)mma_batch;");
  line(
      "const bool mma_full_mn = (mma_block_m + 1)*MMA_BLOCK_M <= MMA_M_EXTENT && (mma_block_n + 1)*MMA_BLOCK_N <= "
      "MMA_N_EXTENT;");
  line("float mma_acc[MMA_FRAGMENTS_M][MMA_FRAGMENTS_N][4];");
  line("#pragma unroll");
  open("for (int mma_fm = 0; mma_fm < MMA_FRAGMENTS_M; ++mma_fm)");
  line("#pragma unroll");
  line(
      "for (int mma_fn = 0; mma_fn < MMA_FRAGMENTS_N; ++mma_fn) mma_acc[mma_fm][mma_fn][0] = "
      "mma_acc[mma_fm][mma_fn][1] = mma_acc[mma_fm][mma_fn][2] = mma_acc[mma_fm][mma_fn][3] = "
      "0.0f;");
  close();
  line(
      "// The reduction tiles of this work-group's split (MMA_SPLIT_K): a range of MMA_TILES_K_PER_SPLIT, maybe "
      "empty.");
  line("const int mma_split = (int)get_group_id(1);");
  line("const int mma_kt_begin = min(MMA_TILES_K, mma_split*MMA_TILES_K_PER_SPLIT);");
  line("const int mma_kt_end = min(MMA_TILES_K, mma_kt_begin + MMA_TILES_K_PER_SPLIT);");
  line("(void)mma_split;");
  const std::string stage = prefetch == 2 ? " + (mma_kt & 1)*" : "";
  if (stages() > 1) {
    emit_pipelined_loop();
  } else if (prefetch > 0) {
    line(vector_type(0) + " mma_a_reg[MMA_A_ROUNDS];");
    line(vector_type(1) + " mma_b_reg[MMA_B_ROUNDS];");
    open("if (mma_kt_begin < mma_kt_end)");
    emit_tile_loads("mma_kt_begin", Into::registers);
    close();
    open("for (int mma_kt = mma_kt_begin; mma_kt < mma_kt_end; ++mma_kt)");
    line("__local float* mma_a_tile = mma_a_tiles" + (stage.empty() ? "" : stage + "MMA_A_TILE_FLOATS") + ";");
    line("__local float* mma_b_tile = mma_b_tiles" + (stage.empty() ? "" : stage + "MMA_B_TILE_FLOATS") + ";");
    emit_register_stores();
    line("barrier(CLK_LOCAL_MEM_FENCE);");
    open("if (mma_kt + 1 < mma_kt_end)");
    emit_tile_loads("(mma_kt + 1)", Into::registers);
    close();
  } else {
    open("for (int mma_kt = mma_kt_begin; mma_kt < mma_kt_end; ++mma_kt)");
    line("__local float* mma_a_tile = mma_a_tiles;");
    line("__local float* mma_b_tile = mma_b_tiles;");
    emit_tile_loads("mma_kt", Into::local);
    line("barrier(CLK_LOCAL_MEM_FENCE);");
  }
  if (stages() == 1) {
    emit_fragment_products();
    // With two pairs of tiles, the next iteration stores into the other pair: its barrier alone keeps this one
    // whole.
    if (prefetch != 2) line("barrier(CLK_LOCAL_MEM_FENCE);");
    close();
  }
  open("if (mma_full_mn)");
  emit_write_back(false);
  close(" else {");
  ++indent_;
  emit_write_back(true);
  close();
  close();

  const int64_t tiles = ((roles_.m_extent + value("MMA_BLOCK_M") - 1) / value("MMA_BLOCK_M")) *
                        ((roles_.n_extent + value("MMA_BLOCK_N") - 1) / value("MMA_BLOCK_N")) * roles_.batch_extent;
  const uint64_t work_items = static_cast<uint64_t>(32 * value("MMA_WARPS_M") * value("MMA_WARPS_N"));
  launch.work_dims = 2;
  launch.global_size = {static_cast<uint64_t>(tiles) * work_items, static_cast<uint64_t>(value("MMA_SPLIT_K")), 1};
  launch.local_size = std::array<uint64_t, 3>{work_items, 1, 1};
  if (split())
    plan.scratch.push_back({"partial results of the reduction's splits (MMA_SPLIT_K)",
                            static_cast<uint64_t>(value("MMA_SPLIT_K") * tiles_points()) * 4});
  plan.kernels.push_back(launch);
  if (split()) emit_split_combine_kernel(plan);
  plan.source = number_generated_lines(out_.str(), m_.name + "_tunable.cl");
  plan.build_options = "-cl-std=CL1.2";
  return plan;
}

}  // namespace

LaunchPlan generate_tensor_core_kernel(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
                                       const PreambleOptions& options) {
  return MmaEmitter(bound, config, limits, options).emit();
}

}  // namespace mdh
