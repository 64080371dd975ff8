// The family modules' code at the emitter's named points (codegen/family_hooks.h).
#include "codegen/emitter/tunable_emitter.h"
#include "codegen/parameter_families.h"

namespace mdh::emitter {

std::vector<const FamilyEmitterHooks*> TunableEmitter::family_hooks() const {
  std::vector<const FamilyEmitterHooks*> hooks;
  for (const ParameterFamily& f : parameter_families())
    if (!f.members(b_).empty()) hooks.push_back(&f.hooks);
  return hooks;
}

FamilyEmitContext TunableEmitter::family_context() {
  return FamilyEmitContext{b_, c_, g_, [this](const std::string& text) { line(text); },
                           [this](const std::string& name, int64_t value) { define_tuning(name, str(value)); }};
}

}  // namespace mdh::emitter
