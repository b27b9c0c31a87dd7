// SendArena: per-thread bump allocation out of 64 KiB slabs aligned to their size, so a block finds
// its slab's header by masking its address. A slab counts its live blocks: it starts at a huge
// number, each free subtracts one, and the sender subtracts the blocks it never handed out when it
// moves on to a new slab (retires it). Whoever brings the count to zero recycles the slab: a few
// are kept for reuse, the rest go back to the system, so memory follows the messages in flight.
// Under AddressSanitizer the arena steps aside, so that a use-after-free of a message is caught.
#include <actorscope/detail/send_arena.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

namespace actorscope::detail {

namespace {
std::atomic<std::size_t> slabs_allocated{0};
std::atomic<std::size_t> slabs_kept{0};
}  // namespace

SendArena::Usage SendArena::usage() noexcept {
  return {slabs_allocated.load(std::memory_order_relaxed), slabs_kept.load(std::memory_order_relaxed)};
}

#if defined(__SANITIZE_ADDRESS__)

void* SendArena::allocate(std::size_t size) { return ::operator new(size); }
void SendArena::deallocate(void* p, std::size_t size) noexcept { ::operator delete(p, size); }

#else

namespace {

constexpr std::size_t kSlabBytes = SendArena::kSlabBytes;
// Empty slabs kept for reuse. A burst of casts to a busy actor holds its whole backlog in slabs
// (100,000 messages of 256 bytes: about 470); keeping only 16 made every burst fetch fresh pages
// from the kernel, and 256-byte casts 3x slower than with glibc, which keeps freed memory too.
constexpr std::size_t kKeptSlabs = SendArena::kKeptSlabs;
constexpr std::int64_t kUnretired = std::int64_t{1} << 40;  // more blocks than a slab can hold

// The first cache line of a slab. Only receivers write it (once per block) until the sender
// retires the slab, so it stays in the receiver's cache, away from the blocks the sender writes.
struct alignas(64) SlabHeader {
  std::atomic<std::int64_t> live{kUnretired};
};
static_assert(sizeof(SlabHeader) % SendArena::kAlignment == 0);

SlabHeader* slab_of(void* block) noexcept {
  return reinterpret_cast<SlabHeader*>(reinterpret_cast<std::uintptr_t>(block) & ~(std::uintptr_t{kSlabBytes} - 1));
}

// Slabs waiting for reuse. Never destroyed, so that a thread that exits late can still give its
// slab back.
class SlabDepot {
 public:
  SlabHeader* take() {
    {
      std::lock_guard lk(m_);
      if (!kept_.empty()) {
        void* s = kept_.back();
        kept_.pop_back();
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
      if (kept_.size() < kKeptSlabs) {
        kept_.push_back(slab);  // capacity reserved up front: cannot throw
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
  SlabDepot() { kept_.reserve(kKeptSlabs); }
  std::mutex m_;
  std::vector<void*> kept_;
};

void count_off(SlabHeader* slab, std::int64_t blocks) noexcept {
  if (slab->live.fetch_sub(blocks, std::memory_order_acq_rel) == blocks) SlabDepot::instance().give(slab);
}

// The sending thread's current slab.
struct Cursor {
  char* next = nullptr;
  char* end = nullptr;
  SlabHeader* slab = nullptr;
  std::int64_t handed_out = 0;

  Cursor() = default;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
  ~Cursor() { retire(); }

  void retire() noexcept {
    if (slab == nullptr) return;
    count_off(std::exchange(slab, nullptr), kUnretired - handed_out);
    next = end = nullptr;
  }

  void refill() {
    SlabHeader* fresh = SlabDepot::instance().take();
    retire();
    slab = fresh;
    handed_out = 0;
    next = reinterpret_cast<char*>(fresh) + sizeof(SlabHeader);
    end = reinterpret_cast<char*>(fresh) + kSlabBytes;
  }
};

thread_local Cursor cursor;

// Blocks are whole cache lines, so that no line holds the end of one envelope and the start of
// the next: the receiver reading one and the sender writing the next would otherwise pass that line
// back and forth between their cores.
constexpr std::size_t kLine = 64;
static_assert(kLine % SendArena::kAlignment == 0 && sizeof(SlabHeader) % kLine == 0);
constexpr std::size_t round_up(std::size_t size) noexcept { return (size + kLine - 1) & ~(kLine - 1); }

}  // namespace

void* SendArena::allocate(std::size_t size) {
  if (size > kMaxBlock) return ::operator new(size);
  size = round_up(size == 0 ? 1 : size);
  Cursor& c = cursor;
  if (static_cast<std::size_t>(c.end - c.next) < size) c.refill();
  void* p = c.next;
  c.next += size;
  ++c.handed_out;
  return p;
}

void SendArena::deallocate(void* p, std::size_t size) noexcept {
  if (size > kMaxBlock) {
    ::operator delete(p, size);
    return;
  }
  count_off(slab_of(p), 1);
}

#endif

}  // namespace actorscope::detail
