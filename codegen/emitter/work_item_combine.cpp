// Partial results of the work-items, and how the work-items sharing a reduction combine them (CMB_RES, CMB_WI).
#include <algorithm>
#include <functional>
#include <limits>
#include <sstream>

#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"
#include "codegen/tuning_space.h"
#include "support/error.h"

namespace mdh::emitter {

bool TunableEmitter::has_barriers() const {
  if (g_.combines_work_items()) return true;
  for (const CachedTile& t : g_.cached_tiles)
    if (t.layer == Layer::Local) return true;
  return false;
}

std::string TunableEmitter::combine(const std::string& lhs, const std::string& rhs) const {
  return combine_call(g_.reduction_dims.front(), lhs, rhs);
}

std::string TunableEmitter::res_p(const std::string& slot, const std::string& who) const {
  switch (result_memory(Layer::Private)) {
    case Memory::Local:
      return "res_p[(" + slot + ")*WG_SIZE + " + who + "]";
    case Memory::Global:
      return "res_p[(wg_lin*RESULT_SLOTS + " + slot + ")*WG_SIZE + " + who + "]";
    default:
      return "res_p[" + slot + "]";
  }
}

// Where the combine reads and writes work-item `who`'s partial result of `slot` (TunableGeometry::stages_results).
std::string TunableEmitter::res_combined(const std::string& slot, const std::string& who) const {
  return g_.stages_results ? "res_shared[(" + slot + ")*WG_SIZE + " + who + "]" : res_p(slot, who);
}

std::string TunableEmitter::res_l(const std::string& slot) const {
  switch (result_memory(Layer::Local)) {
    case Memory::Local:
      return "res_l[(" + slot + ")*CONCAT_WI + wi_c_lin]";
    case Memory::Global:
      return "res_l[(wg_lin*RESULT_SLOTS + " + slot + ")*CONCAT_WI + wi_c_lin]";
    default:
      return "res_l[" + slot + "]";
  }
}

// The slot of a `++` point from per-dimension slot expressions, row-major over the `++` dimensions.
std::string TunableEmitter::slot_of(const std::vector<std::string>& per_concat_dim) const {
  if (per_concat_dim.empty()) return "0";
  std::string s = per_concat_dim[0];
  for (size_t n = 1; n < per_concat_dim.size(); ++n)
    s = "(" + s + ")*" + macro("SLOTS", g_.concat_dims[n]) + " + " + per_concat_dim[n];
  return s;
}

// `slot` declared from the slot loops' variables, or the constant 0 where there are none (no declaration: the
// caller may be at a scope that has one already).
std::string TunableEmitter::slot_name(const std::vector<std::string>& per_concat_dim) {
  if (per_concat_dim.empty()) return "0";
  line("const int slot = " + slot_of(per_concat_dim) + ";");
  return "slot";
}

// Opens one loop per `++` dimension over slots; `step_only`: only the slots of the current private step.
std::vector<std::string> TunableEmitter::open_slot_loops(bool step_only) {
  std::vector<std::string> per_dim;
  for (int d : g_.concat_dims) {
    const std::string s = "s_" + dim(d);
    if (step_only) {
      open("for (int e_" + dim(d) + " = 0; e_" + dim(d) + " < " + macro("PT_SIZE", d) + "; ++e_" + dim(d) + ")");
      line("const int " + s + " = ps_" + dim(d) + "*" + macro("PT_SIZE", d) + " + e_" + dim(d) + ";");
    } else {
      open("for (int " + s + " = 0; " + s + " < " + macro("SLOTS", d) + "; ++" + s + ")");
    }
    per_dim.push_back(s);
  }
  return per_dim;
}

void TunableEmitter::close_loops(size_t n) {
  for (size_t k = 0; k < n; ++k) close();
}

// The parallel reduction over the work-items that share `++` points (CMB_RES). CMB_WI serial: the leader of each
// group (reduction work-item index 0) folds their partial results in work-item order, which is index order.
// CMB_WI tree: pairwise rounds, then the leader folds the group's result into res_l.
// Work-item dependent conditions guard single statements, never loops: PoCL 3.1 miscompiles a divergent `if`
// around loops in a loop nest with barriers (found by the property tests).
void TunableEmitter::emit_work_item_combine(bool step_only) {
  if (g_.stages_results) {
    line("// Every work-item's partial results into local memory, for the combine.");
    const auto per_dim = open_slot_loops(step_only);
    const std::string slot = slot_name(per_dim);
    line(res_combined(slot) + " = " + res_p(slot) + ";");
    close_loops(per_dim.size());
  }
  line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
  if (c_.work_item_combine == WorkItemCombine::tree) {
    emit_tree_combine(step_only);
    return;
  }
  if (c_.work_item_combine == WorkItemCombine::shuffle) {
    emit_shuffle_combine(step_only);
    return;
  }
  const auto per_dim = open_slot_loops(step_only);
  line("const int slot = " + slot_of(per_dim) + ";");
  open("for (int w = 0; w < REDUCTION_WI; ++w)");
  open("if (wi_r_lin == 0)");
  line("const int owner = wi_c_lin*REDUCTION_WI + w;");
  line(res_l("slot") + " = " + combine(res_l("slot"), res_combined("slot", "owner")) + ";");
  line(res_combined("slot", "owner") + " = " + identity() + ";");
  close();
  close();
  if (g_.stages_results) line(res_p("slot") + " = " + identity() + ";");  // each work-item its own registers
  close_loops(per_dim.size());
  line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
}

// One round per halving, unrolled here (the work-item count is bound; emit_macros refuses another REDUCTION_WI),
// each followed by a barrier: constant offsets, and no loop around barriers for PoCL 3.1 to mishandle (a loop
// `for (active = REDUCTION_WI; active > 1; active = (active + 1) / 2)` around the rounds made its DOT kernel
// return 0). A commutative operator halves the active work-items per round (work-item w takes w + upper, upper =
// ceil(active / 2): consecutive work-items read consecutive slots, and the active ones stay together in few
// warps); another operator combines neighbours, w with w + s for w a multiple of 2s, so that every partial result
// stays the fold of a consecutive range of work-items in order.
void TunableEmitter::emit_tree_combine(bool step_only) {
  const bool commutative = m_.dims[g_.reduction_dims.front()].combine.is_commutative();
  line(commutative ? "// Tree combine: each round folds the upper part of the active work-items into the lower part."
                   : "// Tree combine in order: each round folds work-item w + s into w, for w a multiple of 2s.");
  std::vector<std::pair<std::string, std::string>> rounds;  // (who takes, partner offset)
  if (commutative) {
    for (int64_t active = g_.reduction_work_items; active > 1; active = (active + 1) / 2) {
      const int64_t upper = (active + 1) / 2;
      rounds.push_back({"wi_r_lin < " + str(active - upper), str(upper)});
    }
  } else {
    for (int64_t s = 1; s < g_.reduction_work_items; s *= 2)
      rounds.push_back({"wi_r_lin % " + str(2 * s) + " == 0 && wi_r_lin + " + str(s) + " < REDUCTION_WI", str(s)});
  }
  for (const auto& [takes, offset] : rounds) {
    const auto per_dim = open_slot_loops(step_only);
    const std::string slot = slot_name(per_dim);
    line("if (" + takes + ") " + res_combined(slot) + " = " +
         combine(res_combined(slot), res_combined(slot, "wi_lin + " + offset)) + ";");
    close_loops(per_dim.size());
    line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
  }
  emit_leader_keeps_result(step_only);
}

// CMB_WI shuffle. The rounds run over positions of res_p, not over work-items: the work-item at hardware position
// wi_hw (OpenCL dimension 0 fastest, the order in which warps are formed) takes the partial result at position
// wi_hw*stride, whichever work-item wrote it. res_p is ordered by wi_lin, in which each point's REDUCTION_WI
// work-items are consecutive, so a sub-group always holds whole aligned segments of one point's partial results,
// whatever ORDER_OCL does. Level 1 folds segments of min(REDUCTION_WI, width) positions (stride 1); where a point
// has several sub-groups, level 2 folds their results (stride width), in one sub-group. Each round folds position
// p + o into p for p a multiple of 2o: the fold stays in order, so any associative operator may take it. A level's
// first position keeps the segment's result in res_p, so the point's result ends at position wi_c_lin*REDUCTION_WI,
// the leader's own slot. Under NVIDIA's driver the rounds exchange registers with shfl.sync (no barrier); elsewhere
// through res_p, with two barriers per round, the same positions and rounds. (With MEM_RES_P private, read res_p as
// res_shared, its copy in local memory: res_combined.)
void TunableEmitter::emit_shuffle_combine(bool step_only) {
  const int64_t width = subgroup_width_, sharing = g_.reduction_work_items;
  struct Level {
    int64_t stride, segment;
  };
  std::vector<Level> levels{{1, std::min(sharing, width)}};
  if (sharing > width) levels.push_back({width, sharing / width});
  MDH_INTERNAL_ASSERT(g_.work_group_size % width == 0 &&
                          (width % sharing == 0 || (sharing % width == 0 && width % (sharing / width) == 0)),
                      "CMB_WI shuffle with " + str(sharing) + " work-items per point in work-groups of " +
                          str(g_.work_group_size) + " and sub-groups of " + str(width));
  line("// Shuffle combine: rounds over res_p's positions in sub-groups of " + str(width) +
       ", then the leader keeps the result.");
  for (const Level& level : levels) {
    const std::string position = level.stride == 1 ? "wi_hw" : "wi_hw*" + str(level.stride);
    const std::string valid = level.stride == 1 ? "" : "if (" + position + " < WG_SIZE) ";
    line("{");  // v and the exchanged values are the level's own
    ++indent_;
    const auto per_dim = open_slot_loops(step_only);
    const std::string slot = slot_name(per_dim);
    line(result_type_ + " v = " + identity() + ";");
    line(valid + "v = " + res_combined(slot, position) + ";");
    for (int64_t o = 1; o < level.segment; o *= 2) {
      if (nvidia_driver_) {
        // Every lane of the warp shuffles: shfl.sync names all 32 (the constraint keeps warps whole). Every lane
        // folds too, without the test: what a taker reads at p + o is, by the same rounds, the fold of
        // [p + o, p + 2o) within its segment; the other lanes' values are never read by a taker.
        const std::string other = "other_" + str(o);
        line("const " + result_type_ + " " + other + " = mdh_shuffle_down(v, " + str(o) + ");");
        line("v = " + combine("v", other) + ";");
      } else {
        line(valid + res_combined(slot, position) + " = v;");
        line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
        line("if (" + std::string(level.stride == 1 ? "" : position + " < WG_SIZE && ") + "wi_hw % " + str(2 * o) +
             " == 0) v = " + combine("v", res_combined(slot, position + " + " + str(o * level.stride))) + ";");
        line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
      }
    }
    line("if (wi_hw % " + str(level.segment) + " == 0" + (level.stride == 1 ? "" : " && " + position + " < WG_SIZE") +
         ") " + res_combined(slot, position) + " = v;");
    close_loops(per_dim.size());
    close();
    line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
  }
  emit_leader_keeps_result(step_only);
}

// After the tree or shuffle rounds, the point's result is in its leader's res_p slot.
void TunableEmitter::emit_leader_keeps_result(bool step_only) {
  // The leader keeps the group's result, then every work-item starts its partial results again. The barrier
  // between the two is needed by PoCL 3.1 only: its optimised build let the reset overtake the leader's read of
  // its own slot (DOT 65536 returned 0; right with -cl-opt-disable or with the barrier).
  // After the reduction loops (CMB_RES G) nothing accumulates again before the next `++` tile starts its partial
  // results (and a barrier ends each `++` tile: see the results' write), so there is no reset and no barrier:
  // two barriers less at the end of a reduction (docs/decisions.md).
  const bool restart = step_only || c_.combine_layer != Layer::Global;
  line(restart ? "// The leader keeps the group's result; every work-item starts its partial results again."
               : "// The leader keeps the group's result.");
  {
    const auto per_dim = open_slot_loops(step_only);
    const std::string slot = slot_name(per_dim);
    line("if (wi_r_lin == 0) " + res_l(slot) + " = " + combine(res_l(slot), res_combined(slot)) + ";");
    close_loops(per_dim.size());
  }
  if (!restart) return;
  line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
  {
    const auto per_dim = open_slot_loops(step_only);
    const std::string slot = slot_name(per_dim);
    line(res_p(slot) + " = " + identity() + ";");
    close_loops(per_dim.size());
  }
  line("barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);");
}

}  // namespace mdh::emitter
