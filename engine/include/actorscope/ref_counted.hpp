// Intrusive reference counting for engine objects that are shared across threads
// (actor cells, waits, reply and join states). One atomic per object, no control block.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace actorscope {

class RefCounted {
 public:
  RefCounted() noexcept = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;

  /// @thread any
  void retain() const noexcept { refs_.fetch_add(1, std::memory_order_relaxed); }
  /// @thread any. Deletes the object when the last reference goes.
  void release() const noexcept {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 protected:
  virtual ~RefCounted() = default;

 private:
  mutable std::atomic<std::uint32_t> refs_{1};
};

/// An owning pointer to a RefCounted object. `adopt` takes over an existing reference,
/// the constructor from a raw pointer adds one.
template <class T>
class Ref {
 public:
  Ref() noexcept = default;
  explicit Ref(T* p) noexcept : p_(p) {
    if (p_) p_->retain();
  }
  static Ref adopt(T* p) noexcept {
    Ref r;
    r.p_ = p;
    return r;
  }
  Ref(const Ref& o) noexcept : Ref(o.p_) {}
  Ref(Ref&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
    requires std::is_convertible_v<U*, T*>
  Ref(const Ref<U>& o) noexcept : Ref(o.get()) {}
  template <class U>
    requires std::is_convertible_v<U*, T*>
  Ref(Ref<U>&& o) noexcept : p_(o.detach()) {}
  Ref& operator=(Ref o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~Ref() {
    if (p_) p_->release();
  }

  T* get() const noexcept { return p_; }
  T* operator->() const noexcept { return p_; }
  T& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  /// Gives up ownership without releasing.
  T* detach() noexcept { return std::exchange(p_, nullptr); }
  void reset() noexcept { Ref().swap_with(*this); }

  friend bool operator==(const Ref& a, const Ref& b) noexcept { return a.p_ == b.p_; }

 private:
  void swap_with(Ref& o) noexcept { std::swap(p_, o.p_); }
  T* p_ = nullptr;
};

template <class T, class... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>::adopt(new T(std::forward<Args>(args)...));
}

}  // namespace actorscope
