// The observatory's heap policy for replay: see heap_reserve.hpp.
#include "gui/heap_reserve.hpp"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace actorscope::gui {

void keepFreedHeap() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__GLIBC__)
    // Freed memory at the top of the heap is returned past M_TRIM_THRESHOLD (128 KB by default,
    // raised only as big mmapped blocks are freed). Setting it fixes the mmap threshold too, which
    // is then set to glibc's largest dynamic value, so that big vectors are reused the same way.
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
#endif
  });
}

}  // namespace actorscope::gui
