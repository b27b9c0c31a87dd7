// RingWorkload: many actors passing tokens round rings as fast as they can, for load tests of the
// observatory: a "rings" root supervises R ring supervisors, each with N nodes in a ring and a few
// tokens going round it forever. 100 rings of 100 nodes is the frame-time benchmark's 10,000
// actors at full message rate.
#pragma once

#include "gui/workload.hpp"

namespace actorscope::gui {

struct RingShape {
  std::size_t rings = 100;
  std::size_t nodes = 100;  ///< per ring
  std::size_t tokens = 8;   ///< per ring, always in flight
};

/// The workload (named "rings"); `shape` says how big.
Workload ringWorkload(RingShape shape = {});

}  // namespace actorscope::gui
