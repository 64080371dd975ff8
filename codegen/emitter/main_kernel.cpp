// The main kernel: ids, tile loops, caches, the private element loop, combines and the write-back in order.
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"

namespace mdh::emitter {

void add_input_buffer_parameters(const BoundMdh& bound, const PreambleOptions& options,
                                 std::vector<std::string>& params, KernelLaunch& launch) {
  const Mdh& mdh = *bound.mdh;
  for (const Buffer& buffer : mdh.buffers) {
    if (buffer.kind != BufferKind::Input) continue;
    params.push_back("__global const " + storage_type_name(mdh, buffer.type, options) + "* restrict " + buffer.name);
    launch.args.push_back({KernelArg::Kind::Buffer, buffer.name, -1});
  }
}

void add_param_and_table_parameters(const BoundMdh& bound, const PreambleOptions& options,
                                    std::vector<std::string>& params, KernelLaunch& launch) {
  const std::string trailing = param_and_table_decls(bound, options);
  if (!trailing.empty()) params.push_back(trailing);
  for (const auto& p : bound.mdh->params) launch.args.push_back({KernelArg::Kind::Param, p.name, -1});
  for (const auto& buffer : bound.mdh->buffers)
    if (buffer.kind == BufferKind::Table) launch.args.push_back({KernelArg::Kind::Buffer, buffer.name, -1});
}

// The main kernel's parameters in order; adds the matching arguments to `launch` and scratch buffers to `plan`.
std::vector<std::string> TunableEmitter::kernel_parameters(LaunchPlan& plan, KernelLaunch& launch) {
  const int out_buffer = m_.output_buffer();
  std::vector<std::string> params;
  add_input_buffer_parameters(b_, options_, params, launch);
  auto add_scratch = [&](const std::string& name, const std::string& purpose, uint64_t bytes,
                         bool shared_by_work_items = false) {
    plan.scratch.push_back({purpose, bytes});
    params.push_back("__global " + result_type_ + "* " + (shared_by_work_items ? "" : "restrict ") + name);
    launch.args.push_back({KernelArg::Kind::Scratch, "", static_cast<int>(plan.scratch.size()) - 1});
  };
  if (g_.combines_work_groups() && !g_.accumulates_atomically())
    add_scratch("partials", "partial results of the work-groups along the reduction dimensions",
                g_.partial_results_bytes);
  if (!g_.combines_work_groups() || g_.folds_in_last_group()) {
    params.push_back("__global " + output_storage_type() + "* restrict " + buffer_name(out_buffer));
    launch.args.push_back({KernelArg::Kind::Buffer, buffer_name(out_buffer), -1});
  }
  if (g_.folds_in_last_group()) {
    plan.scratch.push_back(
        {"counts of the work-groups that stored their partial results, per work-group of the "
         "`++` dimensions (zero before and after each launch)",
         g_.work_group_count_bytes, true});
    params.push_back("__global int* restrict wg_counts");
    launch.args.push_back({KernelArg::Kind::Scratch, "", static_cast<int>(plan.scratch.size()) - 1});
  }
  if (g_.accumulates_atomically()) {
    plan.scratch.push_back(
        {"accumulators of the work-groups' partial results, one per output point (zero before "
         "and after each launch)",
         g_.accumulator_bytes, true});
    params.push_back("__global " + result_type_ + "* accumulators");  // every work-group adds into them
    launch.args.push_back({KernelArg::Kind::Scratch, "", static_cast<int>(plan.scratch.size()) - 1});
  }
  // Where work-items share a reduction, the leader reads and resets the others' res_p slots between barriers.
  // `restrict` would let the compiler assume that no other work-item touches them: a barrier is a call that never
  // sees the pointer, so a work-item may keep its slot's old value across it (NVIDIA's compiler did, once the
  // unguarded element loop made the slot's stores unconditional: 3 of 5,000 GPU soak configurations added their
  // partial results twice).
  if (result_memory(Layer::Private) == Memory::Global)
    add_scratch("res_p", "private-layer partial results (MEM_RES P = global)", g_.global_private_results_bytes,
                g_.combines_work_items());
  if (g_.combines_work_items() && result_memory(Layer::Local) == Memory::Global)
    add_scratch("res_l", "local-layer partial results (MEM_RES L = global)", g_.global_local_results_bytes);
  add_param_and_table_parameters(b_, options_, params, launch);
  return params;
}

// The work-group and work-item ids of every dimension (ORDER_OCL) and their linear indices.
void TunableEmitter::emit_ids_of_every_dimension() {
  line("// Work-group and work-item ids of every dimension (ORDER_OCL).");
  emit_ids(0, "get_group_id", "wg_", "NUM_WG");
  emit_ids(1, "get_local_id", "wi_", "NUM_WI");
  linear_index("wi_c_lin", g_.concat_dims, "wi_", "NUM_WI");
  linear_index("wi_r_lin", g_.reduction_dims, "wi_", "NUM_WI");
  line("const int wi_lin = wi_c_lin*REDUCTION_WI + wi_r_lin;");
  // CMB_WI shuffle works in the hardware's order of work-items, in which warps are formed.
  if (c_.work_item_combine == WorkItemCombine::shuffle && g_.combines_work_items())
    line(
        "const int wi_hw = (int)get_local_id(0) + LOCAL_SIZE_0*((int)get_local_id(1) + "
        "LOCAL_SIZE_1*(int)get_local_id(2));");
  std::vector<int> all_dims;
  for (size_t d = 0; d < m_.dims.size(); ++d) all_dims.push_back(static_cast<int>(d));
  linear_index("wg_lin", all_dims, "wg_", "NUM_WG");
  linear_index("wg_r_lin", g_.reduction_dims, "wg_", "NUM_WG");
  line("(void)wi_lin; (void)wi_c_lin; (void)wi_r_lin; (void)wg_lin; (void)wg_r_lin;");
  if (g_.folds_in_last_group()) linear_index("wg_c_lin", g_.concat_dims, "wg_", "NUM_WG");
}

// Partial results (MEM_RES), the folding work-group's flag and shares, and the input caches.
void TunableEmitter::emit_result_and_cache_storage() {
  line("// Partial results: res_p per work-item (MEM_RES P), res_l per leading work-item (MEM_RES L).");
  switch (result_memory(Layer::Private)) {
    case Memory::Private:
      if (const int64_t lanes = vector_lanes(); lanes > 1) {
        // VECTOR_LANES: an array of vectors keeps whole vectors in registers; scalar code reaches the same slots.
        line(result_type_ + str(lanes) + " res_pv[RESULT_SLOTS / " + str(lanes) + "];");
        line(result_type_ + "* const res_p = (" + result_type_ + "*)res_pv;");
      } else {
        line(result_type_ + " res_p[RESULT_SLOTS];");
      }
      if (g_.stages_results) line("__local " + result_type_ + " res_shared[RESULT_SLOTS * WG_SIZE];");
      break;
    case Memory::Local:
      line("__local " + result_type_ + " res_p[RESULT_SLOTS * WG_SIZE];");
      break;
    default:
      break;
  }
  if (g_.combines_work_items()) {
    switch (result_memory(Layer::Local)) {
      case Memory::Private:
        line(result_type_ + " res_l[RESULT_SLOTS];");
        break;
      case Memory::Local:
        line("__local " + result_type_ + " res_l[RESULT_SLOTS * CONCAT_WI];");
        break;
      default:
        break;
    }
  }
  if (g_.folds_in_last_group()) {
    line("__local int fold_here;  // WG_COMBINE last or atomic: whether this work-group finishes the reduction");
    if (g_.fold_shares > 1) line("__local " + result_type_ + " fold_shares[WG_SIZE];");
  }
  for (const CachedTile& t : g_.cached_tiles) {
    const std::string type = buffer_type(m_.inputs[t.access].buffer);
    const std::string size = allocated_size(t.layer, t.access);
    // Vector loads and stores of a local cache need its rows, hence its start, aligned to the vector.
    const std::string aligned =
        t.layer == Layer::Local && vector_width(t.access) > 1
            ? " __attribute__((aligned(" +
                  str(vector_width(t.access) * m_.compute_size_of(m_.buffers[m_.inputs[t.access].buffer].type)) + ")))"
            : "";
    if (t.memory == Memory::Local && t.layer == Layer::Local && two_local_tiles()) {
      line("__local " + type + " " + second_tile_array(t.access) + "[2 * " + size + "]" + aligned + ";");
      line("__local " + type + "* " + cache_array(t.layer, t.access) + " = " + second_tile_array(t.access) + ";");
    } else if (t.memory == Memory::Local)
      line("__local " + type + " " + cache_array(t.layer, t.access) + "[" + size + (t.copies > 1 ? " * WG_SIZE" : "") +
           "]" + aligned + ";");
    else
      line(type + " " + cache_array(t.layer, t.access) + "[" + size + "];");
  }
}

// The local tile's results, written through the output view (or as partials of this work-group): full tiles
// unguarded, edge tiles guarded (peel), in vectors where STORE_WIDTH applies.
void TunableEmitter::emit_results_write_back() {
  const int out_buffer = m_.output_buffer();
  line("// Results of this local tile: " +
       std::string(!g_.combines_work_groups()    ? "through the output view."
                   : g_.accumulates_atomically() ? "added into the accumulators, copied by the last work-group."
                   : g_.folds_in_last_group()    ? "partials of this work-group, folded by the last work-group."
                                                 : "partials of this work-group, combined by the second kernel."));
  std::vector<FullTest> slot_tests;
  for (int d : g_.concat_dims) slot_tests.push_back({g_.tile_slots_fullness[d], local_tile_is_full(d)});
  peel(slot_tests, [&](bool guarded) {
    // Full tiles store STORE_WIDTH results at a time along the innermost slot dimension (store_width()); edge
    // tiles, whose elements are guarded one by one, store them one at a time.
    const int64_t width = guarded ? 1 : store_width();
    std::vector<CountedLoop> loops;
    std::vector<std::string> slots;
    for (int d : g_.concat_dims) {
      const int64_t count = g_.private_steps[d] * c_.private_tile_size[d];
      if (width > 1 && d == g_.concat_dims.back())
        loops.push_back({"sv_" + dim(d), "(" + macro("SLOTS", d) + " / " + str(width) + ")", count / width});
      else
        loops.push_back({"s_" + dim(d), macro("SLOTS", d), count});
      slots.push_back("s_" + dim(d));
    }
    open_counted_loops(loops);
    if (width > 1) {
      const std::string n = dim(g_.concat_dims.back());
      line("const int s_" + n + " = sv_" + n + "*" + str(width) + ";");
    }
    for (size_t n = 0; n < g_.concat_dims.size(); ++n) {
      const int d = g_.concat_dims[n];
      const std::string step = "(" + slots[n] + " / " + macro("PT_SIZE", d) + ")*" + macro("STEP", d);
      const std::string element = slots[n] + " % " + macro("PT_SIZE", d);
      line("const " + index_type() + " " + dim(d) + " = tile_begin_" + dim(d) + " + " + step + " + " +
           (!strided(d)          ? "wi_" + dim(d) + "*" + macro("PT_SIZE", d) + " + " + element
            : run_length(d) == 1 ? owned_offset(d, element) + " + wi_" + dim(d)
                                 : owned_offset(d, element) + " + wi_" + dim(d) + "*" + str(run_length(d))) +
           ";");
    }
    std::vector<std::string> inside;
    if (g_.combines_work_items()) inside.push_back("wi_r_lin == 0");
    for (size_t n = 0; n < g_.concat_dims.size(); ++n)
      if (guarded && slot_tests[n].fullness != Fullness::Always)
        inside.push_back(dim(g_.concat_dims[n]) + " < tile_end_" + dim(g_.concat_dims[n]));
    if (!inside.empty()) open("if (" + join(inside, " && ") + ")");
    auto result = [&](const std::vector<std::string>& at) {
      return g_.combines_work_items() ? res_l(slot_of(at)) : res_p(slot_of(at));
    };
    if (g_.accumulates_atomically()) {
      line("mdh_accumulate(&accumulators[" + point_index() + "], " + result(slots) + ");");
    } else if (g_.combines_work_groups()) {
      line("partials[wg_r_lin*OUTPUT_POINTS + " + point_index() + "] = " + result(slots) + ";");
    } else if (width > 1) {
      std::vector<std::string> elements;
      for (int64_t k = 0; k < width; ++k) {
        std::vector<std::string> at = slots;
        if (k > 0) at.back() = "(" + at.back() + " + " + str(k) + ")";
        elements.push_back(result(at));
      }
      line("vstore" + str(width) + "((" + buffer_type(out_buffer) + str(width) + ")(" + join(elements, ", ") +
           "), 0, " + buffer_name(out_buffer) + " + " + output_offset() + ");");
    } else {
      line(store_output(output_offset(), result(slots)));
    }
    if (!inside.empty()) close();
    close_loops(loops.size());
  });
  // Not needed by OpenCL's rules, but PoCL 3.1's optimised builds crash (wild private-array index in the region
  // after the last barrier) on some kernels whose `++` tile loops contain barriers and end without one. Without
  // `++` tile loops the last work-group's fold, which has barriers of its own, may follow at once.
}

void TunableEmitter::emit_main_kernel(LaunchPlan& plan) {
  const std::string kernel_name = m_.name + "_tunable";
  KernelLaunch launch;
  launch.kernel_name = kernel_name;
  const std::vector<std::string> params = kernel_parameters(plan, launch);

  line("__kernel __attribute__((reqd_work_group_size(LOCAL_SIZE_0, LOCAL_SIZE_1, LOCAL_SIZE_2)))");
  line("void " + kernel_name + "(" + join(params, ", ") + ")");
  line("{");
  ++indent_;
  // 1. Ids.
  emit_ids_of_every_dimension();

  // 2. Storage.
  emit_result_and_cache_storage();

  // 3. Global layer: the work-group's local tiles, `++` dimensions outside the reductions.
  std::vector<int> concat_order, reduction_order;
  for (int d : c_.loop_order[0]) (m_.dims[d].combine.is_concat() ? concat_order : reduction_order).push_back(d);
  for (int d : concat_order) open_tile_loop(d);
  if (has_reduction()) {
    line("// Start the partial results of this local tile of the `++` dimensions.");
    open_counted_loops({{"slot", "RESULT_SLOTS", g_.result_slots}});
    line(res_p("slot") + " = " + identity() + ";");
    if (g_.combines_work_items()) line("if (wi_r_lin == 0) " + res_l("slot") + " = " + identity() + ";");
    close();
  }
  // DOUBLE_BUFFER: the first tile's loads before the pipelined loop, the next tile's inside it.
  // Where no tile loop can prefetch at these sizes, "on" leaves the kernel as it is.
  const int prefetch = c_.double_buffer != DoubleBuffer::off ? g_.prefetch_dimension : -1;
  std::vector<bool> loop_open(m_.dims.size(), false);
  for (int d : concat_order) loop_open[d] = true;
  for (int d : reduction_order) {
    if (d == prefetch) {
      line("// Double buffering: registers for the next local tile of each cached input, the first one loaded now.");
      for (int a : locally_cached())
        line(vector_prefetch(a)
                 ? vector_type(a) + " " + prefetch_array(a) + "[" + cache_macro(Layer::Local, a, "SIZE") + " / (" +
                       str(vector_width(a)) + "*WG_SIZE)];"
                 : buffer_type(m_.inputs[a].buffer) + " " + prefetch_array(a) + "[(" +
                       cache_macro(Layer::Local, a, "SIZE") + " + WG_SIZE - 1) / WG_SIZE];");
      line("{");
      ++indent_;
      emit_prefetch(d, true, loop_open);
      close();
      if (two_local_tiles()) emit_first_tile_stores();
    }
    if (d == g_.peeled_tile_loop) break;  // that loop and those inside it: emit_peeled_tile_loop, below
    open_tile_loop(d);
    loop_open[d] = true;
  }
  if (const int peeled = g_.peeled_tile_loop; peeled >= 0) {
    // The reduction tile loops inside the peeled one hold one tile each.
    const auto inner = std::find(reduction_order.begin(), reduction_order.end(), peeled) + 1;
    const std::vector<int> inside(inner, reduction_order.end());
    emit_peeled_tile_loop(peeled, [&] {
      for (int d : inside) open_tile_loop(d);
      emit_local_tile(prefetch);
      close_loops(inside.size());
    });
    close_loops(reduction_order.size() - inside.size() - 1);
  } else {
    emit_local_tile(prefetch);
    if (two_local_tiles()) {  // the loops inside the pipelined one first
      const size_t pipelined = static_cast<size_t>(std::find(reduction_order.begin(), reduction_order.end(), prefetch) -
                                                   reduction_order.begin());
      close_loops(reduction_order.size() - pipelined - 1);
      emit_second_tile_stores(prefetch);
      close_loops(pipelined + 1);
    } else {
      close_loops(reduction_order.size());
    }
  }
  if (g_.combines_work_items() && c_.combine_layer == Layer::Global) emit_work_item_combine(false);

  // 6. Write the local tile's results through the output view (or as partials of this work-group).
  emit_results_write_back();
  if (has_barriers() && !(concat_order.empty() && g_.folds_in_last_group())) line("barrier(CLK_LOCAL_MEM_FENCE);");
  close_loops(concat_order.size());
  if (g_.folds_in_last_group()) emit_last_group_fold(concat_order);
  --indent_;
  line("}");
  out_ << '\n';

  launch.work_dims = g_.work_dims;
  std::array<uint64_t, 3> local{1, 1, 1};
  for (int o = 0; o < 3; ++o) {
    launch.global_size[o] = g_.num_groups[o] * g_.local_size[o];
    local[o] = g_.local_size[o];
  }
  launch.local_size = local;
  plan.kernels.push_back(launch);
}

}  // namespace mdh::emitter
