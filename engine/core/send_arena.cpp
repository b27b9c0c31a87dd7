// SendArena's slow paths: taking a new slab when the cursor's is full, recycling a slab whose
// blocks are all free, and retiring a thread's slab when the thread exits. Slabs are 64 KiB and
// aligned to their size, so a block finds its slab's header by masking its address. Whoever brings
// a slab's count to zero recycles it: a few are kept for reuse, the rest go back to the system, so
// memory follows the messages in flight.
#include <actorscope/detail/send_arena.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>

namespace actorscope::detail {

namespace {
std::atomic<std::size_t> slabs_allocated{0};
std::atomic<std::size_t> slabs_kept{0};
}  // namespace

SendArena::Usage SendArena::usage() noexcept {
  return {slabs_allocated.load(std::memory_order_relaxed), slabs_kept.load(std::memory_order_relaxed)};
}

#if !defined(__SANITIZE_ADDRESS__)

namespace {

using SlabHeader = SendArena::SlabHeader;
using Cursor = SendArena::Cursor;
constexpr std::size_t kSlabBytes = SendArena::kSlabBytes;
constexpr std::int64_t kUnretired = SendArena::kUnretired;
static_assert(sizeof(SlabHeader) == SendArena::kLine);
static_assert(SendArena::kLine % SendArena::kAlignment == 0);
// Empty slabs kept for reuse. A burst of casts to a busy actor holds its whole backlog in slabs
// (100,000 messages of 256 bytes: about 470); keeping only 16 made every burst fetch fresh pages
// from the kernel, and 256-byte casts 3x slower than with glibc, which keeps freed memory too.
constexpr std::size_t kKeptSlabs = SendArena::kKeptSlabs;

// Slabs waiting for reuse, oldest first. Never destroyed, so that a thread that exits late can
// still give its slab back.
//
// The oldest goes out first. The slab given back last is the one whose last block a receiver
// freed a moment ago: its lines sit in the receiver's caches, modified (the drain rewrote each
// envelope's link as it put the batch in order), so a sender carving it again waited for every
// line to come back from the other core. After a burst the depot holds many slabs, and the
// oldest has long left the receiver's private caches. Taking the newest made 64-byte casts from
// outside about twice as slow (0.44x asio, 0.63x qt, PERFORMANCE.md, the fifth round).
class SlabDepot {
 public:
  SlabHeader* take() {
    {
      std::lock_guard lk(m_);
      if (count_ > 0) {
        void* s = ring_[first_];
        first_ = (first_ + 1) % kKeptSlabs;
        --count_;
        slabs_kept.fetch_sub(1, std::memory_order_relaxed);
        return ::new (s) SlabHeader;
      }
    }
    void* s = std::aligned_alloc(kSlabBytes, kSlabBytes);
    if (s == nullptr) throw std::bad_alloc();
    slabs_allocated.fetch_add(1, std::memory_order_relaxed);
    return ::new (s) SlabHeader;
  }

  void give(SlabHeader* slab) noexcept {
    slab->~SlabHeader();
    {
      std::lock_guard lk(m_);
      if (count_ < kKeptSlabs) {
        ring_[(first_ + count_) % kKeptSlabs] = slab;
        ++count_;
        slabs_kept.fetch_add(1, std::memory_order_relaxed);
        return;
      }
    }
    std::free(slab);
    slabs_allocated.fetch_sub(1, std::memory_order_relaxed);
  }

  static SlabDepot& instance() {
    static SlabDepot* d = new SlabDepot;
    return *d;
  }

 private:
  SlabDepot() = default;
  std::mutex m_;
  std::array<void*, kKeptSlabs> ring_{};  // count_ slabs from first_, wrapping around
  std::size_t first_ = 0;
  std::size_t count_ = 0;
};

constexpr std::uint8_t kUnarmed = 0, kArmed = 1, kExiting = 2;

// Subtracts the blocks the cursor's slab never handed out, so that the slab is recycled when its
// last handed-out block is freed (or now, if they all were).
void retire(Cursor& c) noexcept {
  SlabHeader* slab = std::exchange(c.slab, nullptr);
  c.next = c.end = nullptr;
  if (slab == nullptr) return;
  const std::int64_t unused = kUnretired - c.handed_out;
  if (slab->live.fetch_sub(unused, std::memory_order_acq_rel) == unused) SlabDepot::instance().give(slab);
}

// Retires the thread's slab when the thread exits. Constructed by the first slow allocation on a
// thread, which registers its destructor.
struct ExitCleanup {
  Cursor* cursor = nullptr;
  ~ExitCleanup() {
    cursor->state = kExiting;
    retire(*cursor);
  }
};

thread_local ExitCleanup exit_cleanup;

}  // namespace

void* SendArena::allocate_slow(std::size_t size) {
  Cursor& c = cursor_;
  if (c.state == kUnarmed) {
    exit_cleanup.cursor = &c;  // the first use constructs it, which registers its destructor
    c.state = kArmed;
  }
  SlabHeader* fresh = SlabDepot::instance().take();
  retire(c);
  c.slab = fresh;
  c.handed_out = 1;
  char* block = reinterpret_cast<char*>(fresh) + sizeof(SlabHeader);
  c.next = block + size;
  c.end = reinterpret_cast<char*>(fresh) + kSlabBytes;
  // A thread that sends from another thread_local's destructor, after its exit cleanup ran, gets
  // a slab of its own for each block: nothing would retire a slab it kept.
  if (c.state == kExiting) retire(c);
  return block;
}

void SendArena::recycle(SlabHeader* slab) noexcept { SlabDepot::instance().give(slab); }

#endif

}  // namespace actorscope::detail
