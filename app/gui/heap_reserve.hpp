// The observatory's heap policy for replay. A scrub step builds a whole SystemState (for 10,000
// actors, about ten megabytes in small blocks) and frees the one it replaces. When the allocator
// gives freed memory back to the system and takes it again, every page is faulted in anew, and on
// a virtual machine a fault costs microseconds: measured here, 50 ms of a 70 ms step. So a replay
// keeps what it frees, and warms the heap once after opening (ReplaySession::warmUp).
#pragma once

namespace actorscope::gui {

/// Asks the allocator to keep freed memory for reuse instead of returning it to the system (up to
/// a quarter of a gigabyte), and to serve blocks of up to 32 MB from that heap. Process-wide and
/// idempotent; a no-op where the C library is not glibc.
void keepFreedHeap();

}  // namespace actorscope::gui
