// What a family module hands the tunable kernel's emitter (codegen/emitter/): its code at named points of the
// kernel, for families whose code is local to one place (ParameterFamily::hooks). The emitter calls the hooks of
// the families an md_hom has, in table order, at each point; families whose code runs through the loop nest (tile
// sizes, caches, combines) keep it in emitter/.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel_config.h"
#include "codegen/preamble.h"
#include "codegen/tunable_geometry.h"

namespace mdh {

/// What a hook sees: the configuration and its geometry, and the emitter's text primitives, none of its state.
struct FamilyEmitContext {
  const BoundMdh& bound;
  const KernelConfig& config;
  const TunableGeometry& geometry;
  std::function<void(const std::string& text)> line;  // one line of code at the current indentation
  std::function<void(const std::string& name, int64_t value)> define_tuning;  // an `#ifndef`-guarded macro

  const std::string& dim(int d) const { return bound.mdh->dims[static_cast<size_t>(d)].name; }
  /// A per-dimension macro: "WG_SWIZZLE_i".
  std::string macro(const std::string& family, int d) const { return family + "_" + dim(d); }
  /// The product of a per-dimension macro over some dimensions: "(NUM_WG_i * NUM_WG_j)", "1" for none.
  std::string product(const std::string& family, const std::vector<int>& dims) const {
    std::string factors;
    for (int d : dims) factors += (factors.empty() ? "" : " * ") + macro(family, d);
    return factors.empty() ? "1" : "(" + factors + ")";
  }
};

/// The points at which the emitter calls a family; each may be left unset.
struct FamilyEmitterHooks {
  /// The preamble's options (mdh's log, how f meets the loop nest), set before anything is written.
  std::function<void(const KernelConfig&, PreambleOptions&)> preamble_options;
  /// `#ifndef`-guarded macros of the family's values (define_tuning), after the tile sizes'.
  std::function<void(const FamilyEmitContext&)> tuning_macros;
  /// A note for the kernel's summary comment, after the ownership notes; "" for none.
  std::function<std::string(const FamilyEmitContext&)> summary_note;
  /// The work-group ids `wg_<dim>` of every dimension, in place of the decoding of the OpenCL ids by ORDER_OCL_G;
  /// returns false, having written nothing, where the configuration keeps that decoding.
  std::function<bool(const FamilyEmitContext&)> work_group_ids;
};

/// The names a family's hooks declare in the kernel beyond its parameters' macros (the table reserves a family's
/// name and every name that starts with it and '_'): reserved, so that a spec cannot declare them
/// (codegen/generated_names.h). Built-ins the hooks call are reserved with the emitters'.
struct FamilyGeneratedNames {
  std::vector<std::string> identifiers;       // as written: "wg_sw_rest"
  std::vector<std::string> derived_prefixes;  // followed by a declared name or a number: "wg_sw_span_" + a dimension
};

}  // namespace mdh
