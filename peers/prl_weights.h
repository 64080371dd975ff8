// The PRL peers' weight tables: read from the spec's tables agree and differ (apps/prl_weights.mdh), or computed at
// set-up from its table freq (apps/prl.mdh) by the function the data generator fills those tables with, so the
// peers' sums are the same bits as the spec's either way.
#pragma once

#include <vector>

#include "peers/peer_common.h"
#include "runtime/prl_data.h"
#include "support/error.h"

namespace mdh::peers {

/// The weights of pc's spec: apps/prl_weights.mdh (md_hom prl_weights) or apps/prl.mdh (md_hom prl).
inline PrlWeights prl_weights_of(const PeerCase& pc) {
  if (pc.mdh().name == "prl_weights")
    return PrlWeights{float_values(pc.input("agree")), float_values(pc.input("differ"))};
  if (pc.mdh().name != "prl")
    throw UserError("routine 'prl' expects the md_hom 'prl_weights' or 'prl', but " + pc.options().spec +
                    " declares '" + pc.mdh().name + "'");
  return prl_weights(float_values(pc.input("freq")));
}

}  // namespace mdh::peers
