// Reductions split over work-groups: the last work-group's fold, atomic accumulation, the combine kernel.
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"

namespace mdh::emitter {

// acc (the identity before) folds this share's partial results; `partial` names work-group g's.
void TunableEmitter::emit_share_loop(const SharedFold& f, const std::string& partial) {
  if (m_.dims[g_.reduction_dims.front()].combine.is_commutative()) {
    line("for (int g = " + f.share + "; g < REDUCTION_WG; g += " + f.count_name + ") acc = " + combine("acc", partial) +
         ";");
  } else {
    line("const int block = (REDUCTION_WG + " + f.count_name + " - 1) / " + f.count_name + ";");
    line("const int block_end = min((" + f.share + " + 1)*block, REDUCTION_WG);");
    line("for (int g = " + f.share + "*block; g < block_end; ++g) acc = " + combine("acc", partial) + ";");
  }
}

// acc into the share's slot, then the tree: share 0's slot holds the point's result after the last barrier.
void TunableEmitter::emit_share_tree(const SharedFold& f) {
  line(f.slot(0) + " = acc;");
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  if (m_.dims[g_.reduction_dims.front()].combine.is_commutative()) {
    for (int64_t half = f.count / 2; half >= 1; half /= 2) {
      line("if (" + f.share + " < " + str(half) + ") " + f.slot(0) + " = " + combine(f.slot(0), f.slot(half)) + ";");
      line("barrier(CLK_LOCAL_MEM_FENCE);");
    }
  } else {
    for (int64_t s = 1; s < f.count; s *= 2) {
      line("if (" + f.share + " % " + str(2 * s) + " == 0" +
           (f.idle_work_items ? " && " + f.share + " + " + str(s) + " < " + f.count_name : std::string()) + ") " +
           f.slot(0) + " = " + combine(f.slot(0), f.slot(s)) + ";");
      line("barrier(CLK_LOCAL_MEM_FENCE);");
    }
  }
}

// A fence that orders this work-item's global memory accesses for every work-group of the device. NVIDIA's
// OpenCL compiles mem_fence(CLK_GLOBAL_MEM_FENCE) to membar.cta (the work-group's scope, as its PTX shows), so there
// the fence is the device-scope membar.gl (what CUDA's __threadfence is) as inline PTX.
std::string TunableEmitter::device_fence() const {
  return nvidia_driver_ ? "asm volatile(\"membar.gl;\" ::: \"memory\")" : "mem_fence(CLK_GLOBAL_MEM_FENCE)";
}

// CMB_WI shuffle under NVIDIA's driver: mdh_shuffle_down(v, o) returns v of the lane o above in the warp (a lane
// near the top gets its own). shfl.sync moves 32-bit words, so a result of any type (double, a struct) goes word by
// word through a union. Like mdh_accumulate, a plain function, not `inline`: OpenCL C takes C99's inline, which
// defines nothing to call where the compiler does not inline (NVIDIA's at -cl-opt-disable: "ptxas fatal: Unresolved
// extern function").
void TunableEmitter::emit_shuffle_down() {
  line(result_type_ + " mdh_shuffle_down(" + result_type_ + " v, uint o)");
  line("{");
  ++indent_;
  line("union { " + result_type_ + " value; uint word[(sizeof(" + result_type_ + ") + 3) / 4]; } in, out;");
  line("in.value = v;");
  line("#pragma unroll");
  open("for (int n = 0; n < (int)((sizeof(" + result_type_ + ") + 3) / 4); ++n)");
  line(
      "asm volatile(\"shfl.sync.down.b32 %0, %1, %2, 31, 0xffffffff;\" : \"=r\"(out.word[n]) : \"r\"(in.word[n]), "
      "\"r\"(o));");
  close();
  line("return out.value;");
  --indent_;
  line("}");
  out_ << '\n';
}

// WG_COMBINE atomic: mdh_accumulate(p, v) adds v to *p atomically. int and uint: atomic_add. float: under NVIDIA's
// driver red.global.add.f32 (the add happens in the L2 and returns nothing to wait for; the work-item's fence
// before the count orders it), elsewhere a compare-and-swap loop on the float's bits, which every OpenCL 1.1 device
// has.
void TunableEmitter::emit_atomic_accumulate() {
  const bool floating = compute_type(m_.result_type().scalar) == ScalarType::Float;
  line("void mdh_accumulate(volatile __global " + result_type_ + "* p, " + result_type_ + " v)");
  line("{");
  ++indent_;
  if (!floating) {
    line("atomic_add(p, v);");
  } else if (nvidia_driver_) {
    line("asm volatile(\"red.global.add.f32 [%0], %1;\" :: \"l\"(p), \"f\"(v) : \"memory\");");
  } else {
    line("volatile __global uint* bits = (volatile __global uint*)p;");
    line("uint seen = *bits, expected;");
    open("do");
    line("expected = seen;");
    line("seen = atomic_cmpxchg(bits, expected, as_uint(as_float(expected) + v));");
    close();
    line("while (seen != expected);");
  }
  --indent_;
  line("}");
  out_ << '\n';
}

void TunableEmitter::emit_last_group_fold(const std::vector<int>& concat_order) {
  const bool tree = g_.fold_shares > 1;
  const bool atomic = g_.accumulates_atomically();
  line(atomic ? "// WG_COMBINE atomic: count this work-group in; the last of the REDUCTION_WG work-groups of these "
                "`++` tiles copies their accumulators."
              : "// WG_COMBINE last: count this work-group in; the last of the REDUCTION_WG work-groups of these "
                "`++` tiles folds their partial results.");
  // The work-items that stored (or added) results fence, the others have nothing to order (a fence in every
  // work-item costs time: docs/decisions.md). Where work-item 0 alone stored, it fences and counts in with no barrier
  // between.
  const bool only_first_stored = g_.only_first_work_item_stores();
  if (!only_first_stored) {
    line(std::string(g_.combines_work_items() ? "if (wi_r_lin == 0) " : "") + device_fence() + ";");
    line("barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);");
  }
  // The last to count in sets the count back to zero for the next launch: no other count of this launch follows.
  open("if (wi_lin == 0)");
  if (only_first_stored) line(device_fence() + ";");
  line("fold_here = atomic_inc(&wg_counts[wg_c_lin]) == REDUCTION_WG - 1;");
  line("if (fold_here) wg_counts[wg_c_lin] = 0;");
  close();
  line("barrier(CLK_LOCAL_MEM_FENCE);");
  line("if (fold_here) " + device_fence() + ";");
  std::vector<std::string> extents, clipped;
  for (int d : g_.concat_dims) {
    extents.push_back("(tile_end_" + dim(d) + " - tile_begin_" + dim(d) + ")");
    clipped.push_back("max(" + extents.back() + ", " + size_literal(0) + ")");
  }
  // Each extent clipped at zero: a work-group's last tiles may lie past the extent along several dimensions, and
  // the product of two negative extents is positive (the fold then read and wrote points outside the output).
  const std::string tile_points =
      "const int tile_points = fold_here ? " + (extents.empty() ? std::string("1") : join(clipped, "*")) + " : 0;";
  // The point's coordinates from its index q in the tile, the last `++` dimension fastest.
  auto decode_point = [&] {
    line("int rest = q;");
    for (int n = static_cast<int>(g_.concat_dims.size()) - 1; n >= 0; --n) {
      const std::string v = dim(g_.concat_dims[n]);
      line("const " + index_type() + " " + v + " = tile_begin_" + v + " + rest % " + extents[n] + ";");
      line("rest /= " + extents[n] + ";");
    }
    line("(void)rest;");
  };
  if (atomic) {
    // Read around the non-coherent L1 (volatile), as the fold below reads partial results. No barrier inside.
    line("volatile __global " + result_type_ + "* summed = accumulators;");
    for (int d : concat_order) open_tile_loop(d);
    line(tile_points);
    open("for (int q = wi_lin; q < tile_points; q += WG_SIZE)");
    decode_point();
    line("const int point = " + point_index() + ";");
    line(store_output(output_offset(), "summed[point]"));
    line("summed[point] = 0;");
    close();
    close_loops(concat_order.size());
    return;
  }
  // No barrier within a branch: the other work-groups run the same loops with no points. (With the fold inside
  // `if (fold_here)`, PoCL 3.1 never ran the count's reset placed between the branch and the first loop with
  // barriers, while the fold below it ran: every later launch found no last work-group.)
  line("volatile __global const " + result_type_ + "* stored = partials;");
  line("const int share = wi_lin / FOLD_POINT_GROUPS;");
  for (int d : concat_order) open_tile_loop(d);
  line(tile_points);
  open("for (int q0 = 0; q0 < tile_points; q0 += FOLD_POINT_GROUPS)");
  line("const int q = q0 + wi_lin % FOLD_POINT_GROUPS;");
  line("const bool active = q < tile_points && share < FOLD_SHARES;");
  line(result_type_ + " acc = " + identity() + ";");
  open("if (active)");
  decode_point();
  line("const int point = " + point_index() + ";");
  const SharedFold fold{"share",
                        "FOLD_SHARES",
                        g_.fold_shares,
                        "fold_shares",
                        "wi_lin",
                        "*FOLD_POINT_GROUPS",
                        g_.fold_shares * g_.fold_point_groups < g_.work_group_size};
  emit_share_loop(fold, "stored[g*OUTPUT_POINTS + point]");
  close();
  if (tree) {
    emit_share_tree(fold);
    line("acc = fold_shares[wi_lin];");
    line("barrier(CLK_LOCAL_MEM_FENCE);  // read before the next points' shares are stored");
  }
  open("if (active && share == 0)");
  decode_point();
  line(store_output(output_offset(), "acc"));
  close();
  close();
  close_loops(concat_order.size());
}

bool TunableEmitter::parallel_work_group_combine() const {
  return g_.reduction_work_groups >= kParallelCombineMinimumGroups &&
         g_.output_points <= kParallelCombineMaximumPoints && max_work_group_size_ >= kCombineWorkItems;
}

void TunableEmitter::emit_combine_kernel(LaunchPlan& plan) {
  const int out_buffer = m_.output_buffer();
  const std::string kernel_name = m_.name + "_combine_wg";
  const bool parallel = parallel_work_group_combine();
  line("// Second kernel: combines the partial results of the work-groups along the reduction dimensions.");
  const std::string signature = "void " + kernel_name + "(__global const " + result_type_ +
                                "* restrict partials, __global " + output_storage_type() + "* restrict " +
                                buffer_name(out_buffer) + ")";
  if (parallel) {
    define("COMBINE_WI", str(kCombineWorkItems));
    line("__kernel __attribute__((reqd_work_group_size(COMBINE_WI, 1, 1)))");
    line(signature);
  } else {
    line("__kernel " + signature);
  }
  line("{");
  ++indent_;
  if (parallel) {
    line("const int point = (int)get_group_id(0);");
    line("const int w = (int)get_local_id(0);");
  } else {
    line("const int point = (int)get_global_id(0);");
    line("if (point >= OUTPUT_POINTS) return;");
  }
  line("int rest = point;");
  for (int n = static_cast<int>(g_.concat_dims.size()) - 1; n >= 0; --n) {
    const int d = g_.concat_dims[n];
    if (n > 0) {
      line("const int " + dim(d) + " = rest % " + macro("EXTENT", d) + ";");
      line("rest /= " + macro("EXTENT", d) + ";");
    } else {
      line("const int " + dim(d) + " = rest;");
    }
  }
  line("(void)rest;");
  if (!parallel) {
    line(result_type_ + " acc = partials[point];");
    line("for (int g = 1; g < REDUCTION_WG; ++g) acc = " + combine("acc", "partials[g*OUTPUT_POINTS + point]") + ";");
    line(store_output(output_offset(), "acc"));
  } else {
    line("__local " + result_type_ + " shares[COMBINE_WI];");
    line(result_type_ + " acc = " + identity() + ";");
    emit_share_loop({"w", "COMBINE_WI", kCombineWorkItems, "shares", "w", "", false},
                    "partials[g*OUTPUT_POINTS + point]");
    emit_share_tree({"w", "COMBINE_WI", kCombineWorkItems, "shares", "w", "", false});
    line("if (w == 0) " + store_output(output_offset(), "shares[0]"));
  }
  --indent_;
  line("}");
  KernelLaunch launch;
  launch.kernel_name = kernel_name;
  launch.work_dims = 1;
  if (parallel) {
    launch.global_size = {static_cast<uint64_t>(g_.output_points * kCombineWorkItems), 1, 1};
    launch.local_size = std::array<uint64_t, 3>{static_cast<uint64_t>(kCombineWorkItems), 1, 1};
  } else {
    launch.global_size = {static_cast<uint64_t>(g_.output_points), 1, 1};
  }
  launch.args.push_back({KernelArg::Kind::Scratch, "", 0});
  launch.args.push_back({KernelArg::Kind::Buffer, buffer_name(out_buffer), -1});
  plan.kernels.push_back(launch);
}

}  // namespace mdh::emitter
