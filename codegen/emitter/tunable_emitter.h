// The emitter of the tunable kernel (codegen/tunable_kernel.h): one object per generated kernel, writing OpenCL C
// into a stream. Its parts live in the files of this folder, one feature each: names and text (names.cpp), the
// tuning macros (macros.cpp), the loops over tiles and the ids (tile_loops.cpp), local and private caches
// (caches.cpp), their vector copies (vector_copies.cpp), work-items combining a reduction (work_item_combine.cpp),
// work-groups combining one (work_group_combine.cpp), and the main kernel that puts them together (main_kernel.cpp).
// Internal to codegen/.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/family_hooks.h"
#include "codegen/index_range.h"
#include "codegen/kernel_config.h"
#include "codegen/launch_plan.h"
#include "codegen/preamble.h"
#include "codegen/tunable_geometry.h"

namespace mdh::emitter {

// Text helpers of every emitter file.
inline std::string str(int64_t v) {
  return std::to_string(v);
}

inline std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? separator : "") + parts[k];
  return out;
}

// coefficient * var terms plus a constant, as readable OpenCL C: "(2*i + r + 1)".
inline std::string affine(const std::vector<int64_t>& coefficients, const std::vector<std::string>& vars,
                          int64_t constant) {
  std::string s;
  for (size_t d = 0; d < coefficients.size(); ++d) {
    const int64_t c = coefficients[d];
    if (c == 0) continue;
    const std::string term = (c == 1 || c == -1) ? vars[d] : str(c < 0 ? -c : c) + "*" + vars[d];
    if (s.empty())
      s = (c < 0 ? "-" : "") + term;
    else
      s += (c < 0 ? " - " : " + ") + term;
  }
  if (constant != 0 || s.empty()) {
    if (s.empty())
      s = str(constant);
    else
      s += (constant < 0 ? " - " : " + ") + str(constant < 0 ? -constant : constant);
  }
  return "(" + s + ")";
}

// The kernel parameters every generated kernel shape shares, with their launch arguments: the input buffers in
// declaration order (first), and the spec's params and tables (last).
void add_input_buffer_parameters(const BoundMdh& bound, const PreambleOptions& options,
                                 std::vector<std::string>& params, KernelLaunch& launch);
void add_param_and_table_parameters(const BoundMdh& bound, const PreambleOptions& options,
                                    std::vector<std::string>& params, KernelLaunch& launch);

// Where f reads an input access from.
enum class Source { Global, LocalTile, PrivateTile };

class TunableEmitter {
 public:
  TunableEmitter(const BoundMdh& bound, const KernelConfig& config, const DeviceLimits& limits,
                 const PreambleOptions& options)
      : b_(bound),
        m_(*bound.mdh),
        c_(config),
        g_(tunable_geometry(bound, config)),
        options_(options),
        max_work_group_size_(limits.max_work_group_size),
        nvidia_driver_(limits.nvidia_driver),
        subgroup_width_(static_cast<int64_t>(limits.subgroup_width)) {
    // Tunable kernels fuse a*b+c (FP_CONTRACT ON); the verification tolerance covers the rounding difference.
    options_.contract_multiply_add = true;
    // Across f and the combine operator too where local memory is global memory (PoCL on a CPU); see
    // PreambleOptions::contract_across_functions for why not on GPUs.
    options_.contract_across_functions = !limits.local_memory_dedicated;
    for (const FamilyEmitterHooks* hooks : family_hooks())
      if (hooks->preamble_options) hooks->preamble_options(config, options_);
    for (const auto& d : m_.dims) dim_vars_.push_back(d.name);
    result_type_ = element_type_name(m_, m_.result_type(), options_);
    wide_indices_ = options.wide_indices || needs_wide_indices(bound, config);
  }

  LaunchPlan emit();

 private:
  // ------------------------------------------------------------------ names
  const std::string& dim(int d) const { return m_.dims[d].name; }
  // The type of positions along the dimensions (and of the tile counters they are computed from), and the suffix of
  // the extents and tile sizes: `long` where positions may pass 2^31 (codegen/index_range.h), else `int`. The counts
  // of work-groups and work-items stay `int`, so that built-ins such as min() never mix the two types.
  std::string index_type() const { return wide_indices_ ? "long" : "int"; }
  std::string size_literal(int64_t value) const { return str(value) + (wide_indices_ ? "L" : ""); }
  std::string macro(const char* family, int d) const { return std::string(family) + "_" + dim(d); }
  std::string access_id(int a) const;
  std::string cache_macro(Layer l, int a, const std::string& what) const;
  void emit_cache_layout(const CachedTile& t);
  std::string padded_extent(const CachedTile& t, int k) const;
  std::string allocated_size(Layer l, int a) const;
  std::string cache_array(Layer l, int a) const;
  std::string cache_var(Layer l, int a, const std::string& what, int k) const;
  bool strided(int d) const { return c_.ownership_of(d) == Ownership::strided; }
  // WG_OWNERSHIP strided along d: work-group g takes local tiles g, g + NUM_WG, ...
  bool strided_tiles(int d) const { return c_.work_group_ownership_of(d) == Ownership::strided; }
  int64_t store_width() const;
  // STRIDED_RUN: the consecutive elements of each run a work-item owns along d (1 with block ownership, whose
  // one run is the private tile).
  int64_t run_length(int d) const { return strided(d) ? c_.strided_run_of(d) : 1; }
  std::string owned_offset(int d, const std::string& e) const;
  int strided_dimension_of(int a, size_t k) const;
  Memory cached(Layer l, int a) const { return c_.input_memory[static_cast<int>(l)][a]; }
  Memory result_memory(Layer l) const { return c_.result_memory[static_cast<int>(l)]; }
  const std::string& buffer_name(int buffer) const { return m_.buffers[buffer].name; }
  std::string buffer_type(int buffer) const { return element_type_name(m_, m_.buffers[buffer].type, options_); }
  // The output buffer's elements as stored, and the statement storing `value` (a result) at `offset` of it.
  std::string output_storage_type() const {
    return storage_type_name(m_, m_.buffers[m_.output_buffer()].type, options_);
  }
  std::string store_output(const std::string& offset, const std::string& value) const {
    return store_element(m_.buffers[m_.output_buffer()].type, buffer_name(m_.output_buffer()), offset, value);
  }

  Source source_of(int a) const;

  // ------------------------------------------------------------------ family modules' hooks (family_hooks.cpp)
  // The hooks of the families this md_hom has, in table order, and what they see.
  std::vector<const FamilyEmitterHooks*> family_hooks() const;
  FamilyEmitContext family_context();

  // ------------------------------------------------------------------ text helpers
  void line(const std::string& text) { out_ << std::string(2 * indent_, ' ') << text << '\n'; }
  void open(const std::string& text);
  void close();

  void emit_tile_copy(const std::string& body, const std::string& counter, int64_t k);

  std::string summary();
  static std::string join_ints(const std::vector<int>& v);

  std::vector<int64_t> buffer_strides(int buffer) const;
  std::string flat_offset(int buffer, const std::vector<std::string>& coords) const;
  std::vector<std::string> access_coords(const BoundAccess& access) const;
  std::string cache_offset(Layer l, int a, const std::vector<std::string>& relative) const;
  std::string element_at(int a, Source source, const std::vector<std::string>& coords) const;

  std::vector<std::optional<WindowBinding>> window_bindings() const;

  // ------------------------------------------------------------------ macros
  void define_tuning(const std::string& name, const std::string& value);
  void define(const std::string& name, const std::string& value) { out_ << "#define " << name << ' ' << value << '\n'; }

  std::string product_of(const char* family, const std::vector<int>& dims) const;

  void emit_macros();

  // ------------------------------------------------------------------ results
  bool has_reduction() const { return !g_.reduction_dims.empty(); }
  bool has_barriers() const;
  std::string combine(const std::string& lhs, const std::string& rhs) const;
  std::string identity() const { return identity_call(g_.reduction_dims.front()); }

  std::string res_p(const std::string& slot, const std::string& who = "wi_lin") const;
  std::string res_combined(const std::string& slot, const std::string& who = "wi_lin") const;
  std::string res_l(const std::string& slot) const;
  std::string slot_of(const std::vector<std::string>& per_concat_dim) const;

  std::string slot_name(const std::vector<std::string>& per_concat_dim);
  std::vector<std::string> open_slot_loops(bool step_only);
  void close_loops(size_t n);

  void emit_work_item_combine(bool step_only);
  void emit_tree_combine(bool step_only);

  void emit_shuffle_combine(bool step_only);

  void emit_leader_keeps_result(bool step_only);

  // ------------------------------------------------------------------ full tiles and edge tiles
  // Sizes are bound, so the emitter knows which tiles are full (tunable_geometry.h): full tiles get code without
  // guards, the edge tiles guarded code. A test says when the unguarded code is valid along one dimension (or one
  // dimension of a cached box): always, never, or when `runtime` holds. Every runtime test depends only on the tile
  // and the private step, never on the work-item, so a whole work-group takes the same branch.
  struct FullTest {
    Fullness fullness;
    std::string runtime;
  };
  void peel(const std::vector<FullTest>& tests, const std::function<void(bool guarded)>& body);
  std::string local_tile_is_full(int d) const;
  Fullness box_fullness(int a, size_t k, const std::vector<Fullness>& per_dim) const;

  // Fully unrolled loops of constant trip count index private arrays (results, private caches) with constants, so
  // those arrays can live in registers, and let the compiler share loads between neighbouring elements. Up to
  // kMaxUnrolled iterations in all: enough for the register tiles a GPU thread can hold (8x8 results fed 8 reduction
  // steps at a time); a larger body cannot stay in registers anyway and would only multiply the code and the build
  // time that the tuner pays for every candidate.
  static constexpr int64_t kMaxUnrolled = 512;
  // Opens the nest `loops` (variable, trip count macro, trip count), outermost first, with `#pragma unroll` on the
  // innermost loops as long as their iterations together stay within kMaxUnrolled.
  struct CountedLoop {
    std::string var, count_macro;
    int64_t count;
    int64_t step = 1;  // VECTOR_LANES' loop moves a vector at a time
  };
  void open_counted_loops(const std::vector<CountedLoop>& loops);

  // ------------------------------------------------------------------ caches
  void emit_box(Layer l, int a, const std::string& begin_prefix, const std::string& end_prefix,
                const std::string& nonempty = "", bool with_extents = true, const std::string& lo_name = "lo");
  std::vector<std::string> box_coordinates(Layer l, int a, const std::vector<std::string>& relative,
                                           const std::string& lo = "lo") const;
  void emit_copy_body(Layer l, int a, const std::vector<std::string>& relative, const std::string& guard = "",
                      const std::string& otherwise = "");
  void emit_local_tile_loads();
  std::vector<std::string> emit_copy_coordinates(int a, int64_t width = 1);
  std::vector<int> locally_cached() const;
  std::string prefetch_array(int a) const { return "pf_" + access_id(a); }
  // Opens the loop in which each work-item handles its ceil(SIZE / WG_SIZE) elements `c` of access `a`'s local
  // cache (register n of the prefetch), and where WG_SIZE does not divide SIZE, the test that skips the elements
  // past SIZE in the last round. Close with close_copy_loop(a).
  bool uneven_copy(int a) const { return cached_tile(Layer::Local, a).elements() % g_.work_group_size != 0; }
  void open_copy_rounds(int a);
  void close_copy_rounds(int a);
  void emit_prefetch(int r, bool first, const std::vector<bool>& loop_open);
  void emit_prefetch_loads(int a);
  void emit_guarded_prefetch_loads(int a, const std::vector<FullTest>& tests);
  // UNROLL_TILES while the first copy of the unrolled tile loop's body is emitted: its indentation and where it
  // starts in out_ (close() repeats it), and the expression of its first tile.
  struct UnrolledBody {
    int indent = -1;
    size_t body_start = 0;
    std::string counter;
  };
  UnrolledBody unrolled_;
  int unrolled_tile_loop() const;
  // DOUBLE_BUFFER local: two tiles per local cache, `cache_l_<access>` pointing at the one being read.
  bool two_local_tiles() const { return c_.double_buffer == DoubleBuffer::local && g_.prefetch_dimension >= 0; }
  std::string second_tile_array(int a) const { return cache_array(Layer::Local, a) + "_tiles"; }
  void emit_prefetched_local_tile_loads(int r);
  void emit_first_tile_stores();
  void emit_second_tile_stores(int r);
  void emit_prefetch_stores(bool boxes);

  void emit_private_tile_loads(bool guarded);
  // ------------------------------------------------------------------ vector copies (VECTOR_WIDTH)
  // The unguarded copies (full boxes) into the caches of an access with VECTOR_WIDTH > 1 move vectors along the
  // buffer's unit-stride dimension, its last, where the width divides the box's extent there (each row of the box
  // is then whole vectors). Edge boxes keep the copy element by element.
  int64_t vector_width(int a) const { return c_.vector_width_of(a); }
  std::string vector_type(int a) const { return buffer_type(m_.inputs[a].buffer) + str(vector_width(a)); }
  size_t unit_stride(int a) const { return b_.inputs[a].indices.size() - 1; }
  static std::string component(int64_t j) { return std::string(".s") + "0123456789abcdef"[j]; }
  bool reads_local_cache(Layer l, int a) const;
  size_t vector_dimension(Layer l, int a) const;
  bool vector_copy(Layer l, int a) const;
  bool even_vector_copy(int a) const;
  bool vector_prefetch(int a) const { return vector_copy(Layer::Local, a) && even_vector_copy(a); }
  bool vector_source_aligned(Layer l, int a, std::vector<std::string>* assumptions = nullptr) const;
  std::string vector_load(Layer l, int a, const std::vector<std::string>& absolute) const;
  void vector_store(Layer l, int a, std::vector<std::string> relative, const std::string& value);
  void open_vector_copy_rounds(int a);
  void emit_vector_local_copy(int a);
  void emit_vector_private_copy(int a);

  const CachedTile& cached_tile(Layer l, int a) const;

  // ------------------------------------------------------------------ the main kernel
  std::string f_call() const;
  // VECTOR_LANES where this configuration computes lanes as vectors (the innermost private loop runs along
  // vector_lanes_dimension with block ownership, results in private memory, the last slot dimension, every input
  // that moves with it contiguous along it in its source), else 1.
  int64_t vector_lanes() const;
  std::string f_call_lanes() const;

  void linear_index(const std::string& name, const std::vector<int>& dims, const char* id_prefix,
                    const char* count_family);

  void emit_ids(int ocl_layer, const char* getter, const char* prefix, const char* count_family);

  std::string local_tile(int d, const std::string& t) const;
  std::string next_tile_begin(int d) const;

  void open_tile_loop(int d);
  void emit_tile_bounds(int d);
  void emit_peeled_tile_loop(int d, const std::function<void()>& tile_body);

  std::string output_offset() const;
  std::string point_index() const;

  void emit_private_elements(bool guarded);

  void emit_local_tile(int prefetch);

  std::vector<std::string> kernel_parameters(LaunchPlan& plan, KernelLaunch& launch);
  void emit_ids_of_every_dimension();
  void emit_result_and_cache_storage();
  void emit_results_write_back();
  void emit_main_kernel(LaunchPlan& plan);

  // WG_COMBINE = last. The partial results of a work-group reach global memory (each storing work-item's fence) before
  // its count (one atomic per work-group, after the barrier); the work-group whose count completes REDUCTION_WG folds
  // them after a fence of its own, reading them around the non-coherent L1 (volatile: another work-group's partial
  // results may share a cache line with this one's, read earlier on the same compute unit). The fold walks the same
  // local tiles of the `++` dimensions as the work-group did: FOLD_POINT_GROUPS points at a time, FOLD_SHARES
  // work-items per point (neighbouring work-items take neighbouring points of one partial result row), each folding
  // every FOLD_SHARES-th partial result (a consecutive block where the operator does not commute), and a tree in
  // local memory combines the shares. Every loop bound is the same for all work-items of the group, so each barrier
  // is reached by all of them.
  // One output point's partial results folded by several work-items, the shares (the second kernel's COMBINE_WI per
  // point; WG_COMBINE last's FOLD_SHARES). Share k folds every count-th work-group's partial result (neighbouring
  // shares read neighbouring partial results), or, where the operator does not commute, a consecutive block of them
  // in order; then the shares meet in local memory (share k at array[index + k*step]) and a tree combines them into
  // share 0's slot: halving the active shares, or, in order, neighbours w and w + s for w a multiple of 2s.
  struct SharedFold {
    std::string share;       // the work-item's share, a variable
    std::string count_name;  // the number of shares, a macro
    int64_t count = 1;       // its value (a power of two)
    std::string array, index, step;
    bool idle_work_items = false;  // work-items beyond count shares of every point, which the tree must not read past
    std::string slot(int64_t k) const {
      return array + "[" + index + (k ? " + " + std::to_string(k) + step : "") + "]";
    }
  };
  void emit_share_loop(const SharedFold& f, const std::string& partial);
  void emit_share_tree(const SharedFold& f);

  std::string device_fence() const;

  void emit_shuffle_down();

  void emit_atomic_accumulate();

  void emit_last_group_fold(const std::vector<int>& concat_order);

  // The second kernel folds the work-groups' partial results of every output point. With few output points and
  // many work-groups per point (DOT: one point, up to 1,024 partials) one work-item per point would fold them all
  // in a row, a chain of dependent loads; then a work-group of kCombineWorkItems work-items shares each point:
  // each folds a share of the partials, and a tree in local memory combines the shares. A commutative operator
  // takes every kCombineWorkItems-th partial (neighbouring work-items read neighbouring partials) and halves the
  // active work-items per round; another folds a consecutive block in order and combines neighbours, so the fold
  // keeps work-group order. Otherwise one work-item per point folds in work-group order (= index order).
  static constexpr int64_t kCombineWorkItems = 64;
  static constexpr int64_t kParallelCombineMinimumGroups = 16;
  static constexpr int64_t kParallelCombineMaximumPoints = 4096;
  bool parallel_work_group_combine() const;
  void emit_combine_kernel(LaunchPlan& plan);

  const BoundMdh& b_;
  const Mdh& m_;
  const KernelConfig& c_;
  TunableGeometry g_;
  PreambleOptions options_;
  uint64_t max_work_group_size_;
  bool nvidia_driver_;
  int64_t subgroup_width_;  // CMB_WI shuffle's sub-groups (DeviceLimits::subgroup_width)
  std::vector<std::string> dim_vars_;
  std::string result_type_;
  bool wide_indices_ = false;
  std::ostringstream out_;
  int indent_ = 0;
};

}  // namespace mdh::emitter
