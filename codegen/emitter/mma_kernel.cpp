// The tensor-core kernel (codegen/tensor_core.h): C[m, n] = sum_k A[m, k] * B[k, n] over the flattened roles, on
// warp-level m16n8k8 TF32 fragments.
//
// A work-group owns a MMA_BLOCK_M x MMA_BLOCK_N tile of C (work-groups taken MMA_SWIZZLE tile rows at a time) and
// walks the reduction in tiles of MMA_BLOCK_K: its work-items copy the tiles of A and B into local memory
// (rounded to TF32 on the way, zero past the extents), then each warp multiplies its part from there, fragment
// by fragment, accumulating in registers. With MMA_PREFETCH on, the next tiles are loaded into registers while
// the current ones are multiplied. Full tiles load and store without tests; only the edge tiles test the extents.
//
// Fragment layout (PTX ISA, mma.m16n8k8 .tf32): lane = 4g + t holds A rows g and g + 8 at columns t and t + 4,
// B column g at rows t and t + 4, and C rows g and g + 8 at columns 2t and 2t + 1. Under NVIDIA's driver the
// multiply is inline PTX `mma.sync`; elsewhere each warp exchanges its fragments through local memory and every
// work-item computes its four results from them, so that PoCL runs (and the tests check) the same index arithmetic.
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
  std::string buffer_type(int buffer) const { return element_type_name(m_, m_.buffers[buffer].type, options_); }
  int64_t value(const char* family) const { return c_.value(family); }
  int64_t vector_width(int a) const { return c_.value("MMA_VECTOR", a); }
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
  void emit_tile_load(int a, const std::string& k_tile, bool into_registers, bool guarded);
  void emit_tile_loads(const std::string& k_tile, bool into_registers);
  void emit_register_stores();
  void emit_fragment_products();
  void emit_write_back(bool guarded);
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
  for (const char* name : {"MMA_BLOCK_M", "MMA_BLOCK_N", "MMA_BLOCK_K", "MMA_WARPS_M", "MMA_WARPS_N", "MMA_SWIZZLE"})
    tuning(name);
  out_ << "#define M_EXTENT " << roles_.m_extent << "\n#define N_EXTENT " << roles_.n_extent << "\n#define K_EXTENT "
       << roles_.k_extent << "\n#define BATCH_EXTENT " << roles_.batch_extent << "\n";
  out_ << "#define WORK_ITEMS (32*MMA_WARPS_M*MMA_WARPS_N)\n"
          "#define WARP_ROWS (MMA_BLOCK_M/MMA_WARPS_M)\n"
          "#define WARP_COLUMNS (MMA_BLOCK_N/MMA_WARPS_N)\n"
          "#define FRAGMENTS_M (WARP_ROWS/16)\n"
          "#define FRAGMENTS_N (WARP_COLUMNS/8)\n"
          "#define TILES_M ((M_EXTENT + MMA_BLOCK_M - 1)/MMA_BLOCK_M)\n"
          "#define TILES_N ((N_EXTENT + MMA_BLOCK_N - 1)/MMA_BLOCK_N)\n"
          "#define TILES_K ((K_EXTENT + MMA_BLOCK_K - 1)/MMA_BLOCK_K)\n"
          "#define A_ELEMENTS (MMA_BLOCK_M*MMA_BLOCK_K)\n"
          "#define B_ELEMENTS (MMA_BLOCK_N*MMA_BLOCK_K)\n";
  // Vectors of the tiles' loads (MMA_VECTOR): their types follow from the value, so it is not a -D option.
  out_ << "#define A_VECTOR " << vector_width(0) << "\n#define B_VECTOR " << vector_width(1) << "\n";
  out_ << "#define A_CHUNKS (A_ELEMENTS/A_VECTOR)\n"
          "#define B_CHUNKS (B_ELEMENTS/B_VECTOR)\n"
          "#define A_ROUNDS ((A_CHUNKS + WORK_ITEMS - 1)/WORK_ITEMS)\n"
          "#define B_ROUNDS ((B_CHUNKS + WORK_ITEMS - 1)/WORK_ITEMS)\n";
  // Local tiles: K-major rows of the free extent plus 8, or free-major rows of BLOCK_K plus 4, so that a warp's
  // fragment loads (4 x 8 work-items) reach 32 different banks.
  const auto layout = [&](const char* tile, bool k_major, const char* free) {
    if (k_major)
      out_ << "#define " << tile << "_ROW (" << free << " + 8)\n#define " << tile << "_AT(f, k) ((k)*" << tile
           << "_ROW + (f))\n#define " << tile << "_FLOATS (MMA_BLOCK_K*" << tile << "_ROW)\n";
    else
      out_ << "#define " << tile << "_ROW (MMA_BLOCK_K + 4)\n#define " << tile << "_AT(f, k) ((f)*" << tile
           << "_ROW + (k))\n#define " << tile << "_FLOATS (" << free << "*" << tile << "_ROW)\n";
  };
  layout("A_TILE", roles_.a_k_major, "MMA_BLOCK_M");
  layout("B_TILE", roles_.b_k_major, "MMA_BLOCK_N");
  out_ << "#if MMA_BLOCK_M % (16*MMA_WARPS_M) != 0 || MMA_BLOCK_N % (8*MMA_WARPS_N) != 0 || MMA_BLOCK_K % 8 != 0\n"
          "#error \"MMA_BLOCK_M, _N, _K must be multiples of the warps' fragments\"\n#endif\n\n";
}

void MmaEmitter::emit_tf32_helpers() {
  if (nvidia_) {
    out_ << "// A float rounded to TF32 (10 fraction bits, to nearest, ties away from zero), kept as a float.\n"
            "inline float mdh_tf32(float x) {\n"
            "  uint r;\n"
            "  asm(\"cvt.rna.tf32.f32 %0, %1;\" : \"=r\"(r) : \"f\"(x));\n"
            "  return as_float(r);\n"
            "}\n\n";
    return;
  }
  out_ << "// A float rounded to TF32 (10 fraction bits, to nearest, ties away from zero), as cvt.rna.tf32.f32 does.\n"
          "inline float mdh_tf32(float x) {\n"
          "  return isfinite(x) ? as_float((as_uint(x) + 0x1000u) & 0xffffe000u) : x;\n"
          "}\n\n"
          "// mma.m16n8k8 of one warp through local memory (`exchange`: 192 floats of this warp): each work-item\n"
          "// publishes its fragments of A (4) and B (2), then computes its four results of C from all of them.\n"
          "inline void mdh_mma(float* acc, const float* a, const float* b, __local float* exchange, int lane) {\n"
          "  for (int q = 0; q < 4; ++q) exchange[lane*4 + q] = a[q];\n"
          "  for (int q = 0; q < 2; ++q) exchange[128 + lane*2 + q] = b[q];\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "  const int g = lane >> 2, t = lane & 3;\n"
          "  for (int q = 0; q < 4; ++q) {\n"
          "    const int row = g + 8*(q >> 1), column = 2*t + (q & 1);\n"
          "    float sum = acc[q];\n"
          "    for (int k = 0; k < 8; ++k) {\n"
          "      const float a_rk = exchange[((row & 7)*4 + (k & 3))*4 + (row >> 3) + 2*(k >> 2)];\n"
          "      const float b_kc = exchange[128 + (column*4 + (k & 3))*2 + (k >> 2)];\n"
          "      sum += a_rk * b_kc;\n"
          "    }\n"
          "    acc[q] = sum;\n"
          "  }\n"
          "  barrier(CLK_LOCAL_MEM_FENCE);\n"
          "}\n\n";
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
  return "batch_" + name;
}

// One input's tile, element e = w + round * WORK_ITEMS in the order of the tile's local layout (its unit-stride
// role fastest, so that neighbouring work-items read neighbouring elements); cell (fi, ki): free index, depth.
void MmaEmitter::emit_tile_cell(int a) {
  const bool k_major = a == 0 ? roles_.a_k_major : roles_.b_k_major;
  const std::string T = a == 0 ? "A" : "B";
  const std::string free_block = a == 0 ? "MMA_BLOCK_M" : "MMA_BLOCK_N";
  line("const int e = (w + round*WORK_ITEMS)*" + T + "_VECTOR;");
  line("if (" + T + "_CHUNKS % WORK_ITEMS != 0 && e >= " + T + "_ELEMENTS) break;");
  if (k_major)
    line("const int fi = e % " + free_block + ", ki = e / " + free_block + ";");
  else
    line("const int fi = e / MMA_BLOCK_K, ki = e % MMA_BLOCK_K;");
}

void MmaEmitter::emit_tile_load(int a, const std::string& k_tile, bool into_registers, bool guarded) {
  const bool is_a = a == 0;
  const std::string T = is_a ? "A" : "B", t = is_a ? "a" : "b";
  const std::string free_block = is_a ? "MMA_BLOCK_M" : "MMA_BLOCK_N";
  const std::string free_extent = is_a ? "M_EXTENT" : "N_EXTENT";
  const std::string block = is_a ? "block_m" : "block_n";
  const std::vector<int>& free_dims = is_a ? roles_.m_dims : roles_.n_dims;
  const BoundAccess& x = b_.inputs[a];
  const std::string buffer = m_.buffers[x.buffer].name;

  line("#pragma unroll");
  open("for (int round = 0; round < " + T + "_ROUNDS; ++round)");
  emit_tile_cell(a);
  line("const int free = " + block + "*" + free_block + " + fi;");
  line("const int depth = " + k_tile + "*MMA_BLOCK_K + ki;");
  line(vector_type(a) + " v = (" + vector_type(a) + ")(0.0f);");
  if (guarded)
    open("if (free < " + free_extent + " && depth < K_EXTENT)");
  else
    open("");
  decompose(free_dims, "free", t + "_");
  decompose(roles_.k_dims, "depth", t + "k_");
  const std::string at = offset(x, [&](int d) { return role_var(d, t + "_", t + "_", t + "k_"); });
  if (vector_width(a) == 1)
    line("v = " + buffer + "[" + at + "];");
  else
    line("v = *(__global const " + vector_type(a) + "*)(" + buffer + " + " + at + ");");
  close();
  if (into_registers)
    line("reg_" + t + "[round] = v;");
  else
    line("*(__local " + vector_type(a) + "*)(" + t + "_tile + " + T + "_TILE_AT(fi, ki)) = " + rounded(a, "v") + ";");
  close();
}

std::string MmaEmitter::rounded(int a, const std::string& v) const {
  const int64_t width = vector_width(a);
  if (width == 1) return "mdh_tf32(" + v + ")";
  std::vector<std::string> parts;
  for (int64_t j = 0; j < width; ++j) parts.push_back("mdh_tf32((" + v + ").s" + str(j) + ")");
  return "(" + vector_type(a) + ")(" + join(parts, ", ") + ")";
}

// Loads of both tiles of reduction tile `k_tile`: without tests where the work-group's tiles are full.
void MmaEmitter::emit_tile_loads(const std::string& k_tile, bool into_registers) {
  open("if (full_mn && (" + k_tile + " + 1)*MMA_BLOCK_K <= K_EXTENT)");
  emit_tile_load(0, k_tile, into_registers, false);
  emit_tile_load(1, k_tile, into_registers, false);
  close(" else {");
  ++indent_;
  emit_tile_load(0, k_tile, into_registers, true);
  emit_tile_load(1, k_tile, into_registers, true);
  close();
}

void MmaEmitter::emit_register_stores() {
  for (int a = 0; a < 2; ++a) {
    const std::string T = a == 0 ? "A" : "B", t = a == 0 ? "a" : "b";
    line("#pragma unroll");
    open("for (int round = 0; round < " + T + "_ROUNDS; ++round)");
    emit_tile_cell(a);
    line("*(__local " + vector_type(a) + "*)(" + t + "_tile + " + T +
         "_TILE_AT(fi, ki)) = " + rounded(a, "reg_" + t + "[round]") + ";");
    close();
  }
}

// The warp's fragments of the current local tiles, 8 reduction steps at a time.
void MmaEmitter::emit_fragment_products() {
  line("#pragma unroll");
  open("for (int ks = 0; ks < MMA_BLOCK_K; ks += 8)");
  line("float fa[FRAGMENTS_M][4], fb[FRAGMENTS_N][2];");
  line("#pragma unroll");
  open("for (int fm = 0; fm < FRAGMENTS_M; ++fm)");
  line("const int row = warp_m*WARP_ROWS + fm*16 + g;");
  line("fa[fm][0] = a_tile[A_TILE_AT(row, ks + t)];");
  line("fa[fm][1] = a_tile[A_TILE_AT(row + 8, ks + t)];");
  line("fa[fm][2] = a_tile[A_TILE_AT(row, ks + t + 4)];");
  line("fa[fm][3] = a_tile[A_TILE_AT(row + 8, ks + t + 4)];");
  close();
  line("#pragma unroll");
  open("for (int fn = 0; fn < FRAGMENTS_N; ++fn)");
  line("const int column = warp_n*WARP_COLUMNS + fn*8 + g;");
  line("fb[fn][0] = b_tile[B_TILE_AT(column, ks + t)];");
  line("fb[fn][1] = b_tile[B_TILE_AT(column, ks + t + 4)];");
  close();
  line("#pragma unroll");
  open("for (int fm = 0; fm < FRAGMENTS_M; ++fm)");
  line("#pragma unroll");
  open("for (int fn = 0; fn < FRAGMENTS_N; ++fn)");
  if (nvidia_) {
    line(
        "asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\"");
    line("    : \"+f\"(acc[fm][fn][0]), \"+f\"(acc[fm][fn][1]), \"+f\"(acc[fm][fn][2]), \"+f\"(acc[fm][fn][3])");
    line(
        "    : \"r\"(as_uint(fa[fm][0])), \"r\"(as_uint(fa[fm][1])), \"r\"(as_uint(fa[fm][2])), "
        "\"r\"(as_uint(fa[fm][3])), \"r\"(as_uint(fb[fn][0])), \"r\"(as_uint(fb[fn][1])));");
  } else {
    line("mdh_mma(acc[fm][fn], fa[fm], fb[fn], exchange + warp*192, lane);");
  }
  close();
  close();
  close();
}

// Each work-item's results: rows g and g + 8 of each of its fragments, columns 2t and 2t + 1.
void MmaEmitter::emit_write_back(bool guarded) {
  const std::string buffer = m_.buffers[b_.output.buffer].name;
  line("#pragma unroll");
  open("for (int fm = 0; fm < FRAGMENTS_M; ++fm)");
  line("#pragma unroll");
  open("for (int fn = 0; fn < FRAGMENTS_N; ++fn)");
  line("#pragma unroll");
  open("for (int q = 0; q < 4; ++q)");
  line("const int row = block_m*MMA_BLOCK_M + warp_m*WARP_ROWS + fm*16 + g + 8*(q >> 1);");
  line("const int column = block_n*MMA_BLOCK_N + warp_n*WARP_COLUMNS + fn*8 + 2*t + (q & 1);");
  if (guarded)
    open("if (row < M_EXTENT && column < N_EXTENT)");
  else
    open("");
  decompose(roles_.m_dims, "row", "c_");
  decompose(roles_.n_dims, "column", "c_");
  line(buffer + "[" + offset(b_.output, [&](int d) { return role_var(d, "c_", "c_", "c_"); }) + "] = acc[fm][fn][q];");
  close();
  close();
  close();
  close();
}

std::vector<std::string> MmaEmitter::kernel_parameters(KernelLaunch& launch) {
  std::vector<std::string> params;
  for (size_t buffer = 0; buffer < m_.buffers.size(); ++buffer) {
    if (m_.buffers[buffer].kind != BufferKind::Input) continue;
    params.push_back("__global const " + buffer_type(static_cast<int>(buffer)) + "* restrict " +
                     m_.buffers[buffer].name);
    launch.args.push_back({KernelArg::Kind::Buffer, m_.buffers[buffer].name, -1});
  }
  const int out = m_.output_buffer();
  params.push_back("__global " + buffer_type(out) + "* restrict " + m_.buffers[out].name);
  launch.args.push_back({KernelArg::Kind::Buffer, m_.buffers[out].name, -1});
  const std::string trailing = param_and_table_decls(b_, options_);
  if (!trailing.empty()) params.push_back(trailing);
  for (const auto& p : m_.params) launch.args.push_back({KernelArg::Kind::Param, p.name, -1});
  for (const auto& buffer : m_.buffers)
    if (buffer.kind == BufferKind::Table) launch.args.push_back({KernelArg::Kind::Buffer, buffer.name, -1});
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
  out_ << "// " << m_.name << ": tensor-core kernel (TF32 mma.m16n8k8) generated by mdh.\n"
       << "// C[m, n] = sum_k A[m, k] * B[k, n] with M = (" << names(roles_.m_dims) << "), N = ("
       << names(roles_.n_dims) << "), K = (" << names(roles_.k_dims) << "), batch = (" << names(roles_.batch_dims)
       << "); A tile " << (roles_.a_k_major ? "K-major" : "M-major") << ", B tile "
       << (roles_.b_k_major ? "K-major" : "N-major") << ".\n";
  out_ << emit_preamble(b_, options_) << '\n';
  emit_macros();
  emit_tf32_helpers();
  const std::vector<std::string> params = kernel_parameters(launch);
  line("__kernel __attribute__((reqd_work_group_size(WORK_ITEMS, 1, 1)))");
  line("void " + launch.kernel_name + "(" + join(params, ", ") + ")");
  open("");
  // MMA_PREFETCH local keeps two pairs of tiles and alternates between them.
  const int64_t prefetch = value("MMA_PREFETCH");
  const std::string stages = prefetch == 2 ? "2*" : "";
  line("__local float a_tiles[" + stages + "A_TILE_FLOATS] __attribute__((aligned(16)));");
  line("__local float b_tiles[" + stages + "B_TILE_FLOATS] __attribute__((aligned(16)));");
  if (!nvidia_) line("__local float exchange[MMA_WARPS_M*MMA_WARPS_N*192];");
  line("const int w = (int)get_local_id(0);");
  line("const int lane = w & 31, warp = w >> 5;");
  line("const int warp_m = warp % MMA_WARPS_M, warp_n = warp / MMA_WARPS_M;");
  line("const int g = lane >> 2, t = lane & 3;");
  line("// The work-group's tile of C: MMA_SWIZZLE rows of tiles at a time, each such group column by column.");
  line("const int group = (int)get_group_id(0);");
  line("const int batch = group / (TILES_M*TILES_N);");
  line("const int in_batch = group % (TILES_M*TILES_N);");
  line("const int first_m = (in_batch / (MMA_SWIZZLE*TILES_N))*MMA_SWIZZLE;");
  line("const int rows_here = min(MMA_SWIZZLE, TILES_M - first_m);");
  line("const int block_m = first_m + (in_batch % (MMA_SWIZZLE*TILES_N)) % rows_here;");
  line("const int block_n = (in_batch % (MMA_SWIZZLE*TILES_N)) / rows_here;");
  if (!roles_.batch_dims.empty()) decompose(roles_.batch_dims, "batch", "batch_");
  line("(void)batch;");
  line("const bool full_mn = (block_m + 1)*MMA_BLOCK_M <= M_EXTENT && (block_n + 1)*MMA_BLOCK_N <= N_EXTENT;");
  line("float acc[FRAGMENTS_M][FRAGMENTS_N][4];");
  line("#pragma unroll");
  open("for (int fm = 0; fm < FRAGMENTS_M; ++fm)");
  line("#pragma unroll");
  line(
      "for (int fn = 0; fn < FRAGMENTS_N; ++fn) acc[fm][fn][0] = acc[fm][fn][1] = acc[fm][fn][2] = acc[fm][fn][3] = "
      "0.0f;");
  close();
  const std::string stage = prefetch == 2 ? " + (kt & 1)*" : "";
  if (prefetch > 0) {
    line(vector_type(0) + " reg_a[A_ROUNDS];");
    line(vector_type(1) + " reg_b[B_ROUNDS];");
    emit_tile_loads("0", true);
    open("for (int kt = 0; kt < TILES_K; ++kt)");
    line("__local float* a_tile = a_tiles" + (stage.empty() ? "" : stage + "A_TILE_FLOATS") + ";");
    line("__local float* b_tile = b_tiles" + (stage.empty() ? "" : stage + "B_TILE_FLOATS") + ";");
    emit_register_stores();
    line("barrier(CLK_LOCAL_MEM_FENCE);");
    open("if (kt + 1 < TILES_K)");
    emit_tile_loads("(kt + 1)", true);
    close();
  } else {
    open("for (int kt = 0; kt < TILES_K; ++kt)");
    line("__local float* a_tile = a_tiles;");
    line("__local float* b_tile = b_tiles;");
    emit_tile_loads("kt", false);
    line("barrier(CLK_LOCAL_MEM_FENCE);");
  }
  emit_fragment_products();
  // With two pairs of tiles, the next iteration stores into the other pair: its barrier alone keeps this one whole.
  if (prefetch != 2) line("barrier(CLK_LOCAL_MEM_FENCE);");
  close();
  open("if (full_mn)");
  emit_write_back(false);
  close(" else {");
  ++indent_;
  emit_write_back(true);
  close();
  close();

  const int64_t tiles = ((roles_.m_extent + value("MMA_BLOCK_M") - 1) / value("MMA_BLOCK_M")) *
                        ((roles_.n_extent + value("MMA_BLOCK_N") - 1) / value("MMA_BLOCK_N")) * roles_.batch_extent;
  const uint64_t work_items = static_cast<uint64_t>(32 * value("MMA_WARPS_M") * value("MMA_WARPS_N"));
  launch.work_dims = 1;
  launch.global_size = {static_cast<uint64_t>(tiles) * work_items, 1, 1};
  launch.local_size = std::array<uint64_t, 3>{work_items, 1, 1};
  plan.kernels.push_back(launch);
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
