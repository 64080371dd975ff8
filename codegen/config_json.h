// The config JSON form (`--config cfg.json`, tuning results, journals): one key per tuning parameter of the
// tunable kernel's space (codegen/tuning_space.h), read and written through the parameter families.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include "codegen/kernel_config.h"
#include "mdh/bind.h"

namespace mdh {

/// The version of the config JSON form written by config_to_json.
inline constexpr int kConfigFormatVersion = 2;

/// The config JSON form: one key per tuning parameter, named as in `mdh space` and the tuner's journals, with its
/// value as a number, a name or a list of names, plus the format version:
///   {"mdh_config": 2, "NUM_WG_i": 4, ..., "MEM_INP_L_A": "local", "BUF_ORDER_L_A": [1, 0],
///    "LOOP_ORDER_G": ["i", "j", "k"], "MEM_RES_P": "private", "CMB_RES": "P"}
nlohmann::json config_to_json(const BoundMdh& bound, const KernelConfig& config);
/// Reads the current form and the older ones: version 1 (nested by family and layer: {"NUM_WG": {"i": 4}, ...,
/// "MEM_INP": {"L": {"A": "local"}}}) and the journals' flat form with enum ordinals and permutation ranks. A
/// parameter missing from the file takes its family's neutral value (the value that generates the kernel as it
/// was before the family existed); a family without one must be named. Throws UserError("config: ...") naming
/// the parameter for anything missing, unknown or malformed.
KernelConfig config_from_json(const BoundMdh& bound, const nlohmann::json& json);

}  // namespace mdh
