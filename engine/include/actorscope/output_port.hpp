// OutputPort<T>: publish/subscribe. An actor subscribes with a function that maps each published
// value to its own message type (or filters it out); send() fans a value out to every subscriber.
// Nothing is lost silently: a value a subscriber does not get (it died, or its bounded backlog was
// full) is counted as a drop on its subscription, and a dead subscriber is forgotten.
#pragma once

#include <actorscope/actor_ref.hpp>
#include <actorscope/derived_ref.hpp>
#include <actorscope/detail/core_access.hpp>
#include <actorscope/detail/typed_cell.hpp>
#include <actorscope/errors.hpp>
#include <actorscope/ref_counted.hpp>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace actorscope {

struct SubscribeOptions {
  /// At most this many of the port's messages may wait in the subscriber's mailbox (or be in its
  /// handler) at once; what comes beyond is dropped and counted. 0 means unbounded.
  std::size_t capacity = 0;
};

namespace detail {
/// One subscription's counters, shared by the port, its handle, and the messages in flight (each
/// tells it when it has been handled, through the Receipt).
class SubscriptionCore : public Receipt {
 public:
  using Counter = std::shared_ptr<std::atomic<std::uint64_t>>;
  SubscriptionCore(ActorCell subscriber, std::size_t capacity, Counter port_drops)
      : subscriber_(std::move(subscriber)), capacity_(capacity), port_drops_(std::move(port_drops)) {}

  const ActorCell& subscriber() const noexcept { return subscriber_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool is_active() const noexcept { return active_.load(std::memory_order_acquire); }
  void deactivate() noexcept { active_.store(false, std::memory_order_release); }
  std::size_t pending() const noexcept { return pending_.load(std::memory_order_acquire); }
  std::uint64_t delivered() const noexcept { return delivered_.load(std::memory_order_acquire); }
  std::uint64_t dropped() const noexcept { return dropped_.load(std::memory_order_acquire); }

  void consumed() noexcept override { pending_.fetch_sub(1, std::memory_order_acq_rel); }

 protected:
  // Reserves a place in the backlog; false (and counted as a drop) if the bound is reached.
  bool reserve() noexcept {
    const std::size_t before = pending_.fetch_add(1, std::memory_order_acq_rel);
    if (capacity_ == 0 || before < capacity_) return true;
    pending_.fetch_sub(1, std::memory_order_acq_rel);
    count_dropped();
    return false;
  }
  void unreserve() noexcept { pending_.fetch_sub(1, std::memory_order_acq_rel); }
  void count_delivered() noexcept { delivered_.fetch_add(1, std::memory_order_acq_rel); }
  void count_dropped() noexcept {
    dropped_.fetch_add(1, std::memory_order_acq_rel);
    port_drops_->fetch_add(1, std::memory_order_acq_rel);
  }

 private:
  ActorCell subscriber_;
  const std::size_t capacity_;
  std::atomic<bool> active_{true};
  std::atomic<std::size_t> pending_{0};
  std::atomic<std::uint64_t> delivered_{0};
  std::atomic<std::uint64_t> dropped_{0};
  Counter port_drops_;  // the port's total, which outlives the subscription's place in its list
};

template <class T>
class PortSubscription : public SubscriptionCore {
 public:
  enum class Offer : std::uint8_t { delivered, filtered, dropped, gone };
  using SubscriptionCore::SubscriptionCore;
  virtual Offer offer(const T& value) noexcept = 0;
};

template <class R>
struct is_optional : std::false_type {};
template <class X>
struct is_optional<std::optional<X>> : std::true_type {};

/// Whether a map's result R gives a message M: directly, or through a std::optional (a filter).
template <class R, class M>
constexpr bool maps_to() {
  if constexpr (is_optional<R>::value) {
    return std::constructible_from<M, typename R::value_type>;
  } else {
    return std::constructible_from<M, R>;
  }
}

/// Queues a port's message at an ActorRef or a DerivedRef subscriber, with the subscription's receipt.
template <class M>
Expected<void, SendError<M>> deliver(const ActorRef<M>& to, M&& message, Receipt* receipt, SendMode mode) {
  return static_cast<TypedCell<M>&>(*CoreAccess::cell(to)).send(std::move(message), receipt, mode);
}
template <class Sub>
Expected<void, SendError<Sub>> deliver(const DerivedRef<Sub>& to, Sub&& message, Receipt* receipt, SendMode mode) {
  return DerivedAccess::send(to, std::move(message), receipt, mode);
}

/// A subscription whose subscriber is `Target` (an ActorRef<M> or a DerivedRef<M>), taking M.
template <class T, class Target, class F>
class TypedSubscription final : public PortSubscription<T> {
  using Offer = typename PortSubscription<T>::Offer;
  using M = typename Target::Message;

 public:
  TypedSubscription(Target subscriber, std::size_t capacity, typename SubscriptionCore::Counter port_drops, F map)
      : PortSubscription<T>(subscriber, capacity, std::move(port_drops)),
        target_(std::move(subscriber)),
        map_(std::move(map)) {}

  Offer offer(const T& value) noexcept override {
    if (!this->is_active()) return Offer::gone;
    if (!this->reserve()) return Offer::dropped;
    std::optional<M> message;
    try {
      auto mapped = map_(value);
      if constexpr (is_optional<decltype(mapped)>::value) {
        if (!mapped) {
          this->unreserve();
          return Offer::filtered;
        }
        message.emplace(std::move(*mapped));
      } else {
        message.emplace(std::move(mapped));
      }
    } catch (...) {
      // A map that throws loses this value for this subscriber: counted, like any other drop.
      this->unreserve();
      this->count_dropped();
      return Offer::dropped;
    }
    // A port never waits for a subscriber: a full bounded mailbox drops or refuses by its policy.
    auto sent = deliver(target_, std::move(*message), this, SendMode::no_wait);
    if (sent) {
      this->count_delivered();
      return Offer::delivered;
    }
    this->unreserve();
    this->count_dropped();
    if (sent.error().kind() != SendFailure::stopped) return Offer::dropped;  // its mailbox is full
    this->deactivate();  // it stopped taking messages: forget it
    return Offer::gone;
  }

 private:
  Target target_;
  F map_;
};
}  // namespace detail

/// The handle of one subscription: its counters, and a way to end it.
class Subscription {
 public:
  Subscription() noexcept = default;
  explicit Subscription(Ref<detail::SubscriptionCore> core) noexcept : s_(std::move(core)) {}

  explicit operator bool() const noexcept { return static_cast<bool>(s_); }
  /// Still receiving: not unsubscribed, the port not destroyed, the subscriber not known dead.
  bool is_active() const noexcept { return s_ && s_->is_active(); }
  /// Ends the subscription. Messages already queued at the subscriber are still handled.
  void unsubscribe() const noexcept {
    if (s_) s_->deactivate();
  }
  ActorCell subscriber() const { return s_ ? s_->subscriber() : ActorCell(); }
  /// Messages queued at the subscriber and not yet handled.
  std::size_t pending() const noexcept { return s_ ? s_->pending() : 0; }
  std::uint64_t delivered() const noexcept { return s_ ? s_->delivered() : 0; }
  /// Values this subscriber did not get: its backlog was full, its map threw, or it had stopped.
  std::uint64_t dropped() const noexcept { return s_ ? s_->dropped() : 0; }

 private:
  Ref<detail::SubscriptionCore> s_;
};

/// A publisher's port. Movable (an actor may keep it in its State); every method may be called from
/// any thread. Values sent from one thread reach each subscriber in the order they were sent.
/// Destroying the port ends its subscriptions; what was already queued is still delivered.
template <class T>
class OutputPort {
 public:
  OutputPort() : s_(std::make_shared<Shared>()) {}
  OutputPort(OutputPort&&) noexcept = default;
  OutputPort& operator=(OutputPort&& o) noexcept {
    if (this != &o) {
      close();
      s_ = std::move(o.s_);
    }
    return *this;
  }
  OutputPort(const OutputPort&) = delete;
  OutputPort& operator=(const OutputPort&) = delete;
  ~OutputPort() { close(); }

  /// Subscribes `subscriber`: each value v becomes the message `map(v)`; a map returning
  /// std::optional may return nullopt to skip a value (a filter, not a drop).
  template <class M, class F>
    requires std::invocable<F&, const T&>
  Subscription subscribe(const ActorRef<M>& subscriber, F map, SubscribeOptions options = {}) {
    static_assert(detail::maps_to<std::invoke_result_t<F&, const T&>, M>(),
                  "the map of an OutputPort subscription must return the subscriber's message (or a "
                  "std::optional of it, to skip values)");
    return add(subscriber, std::move(map), options);
  }
  /// The same for a subscriber whose message type can be built from T directly.
  template <class M>
    requires std::constructible_from<M, const T&>
  Subscription subscribe(const ActorRef<M>& subscriber, SubscribeOptions options = {}) {
    return subscribe(subscriber, [](const T& v) { return M(v); }, options);
  }

  /// Subscribes through a derived reference: each value v becomes the Sub message `map(v)` (or is
  /// skipped when a std::optional map returns nullopt), converted into the actor's own message type
  /// on the way in. Drops are counted and a dead subscriber is forgotten, as for an ActorRef.
  /// ```cpp context=outside
  /// prices.subscribe(counter.derived<Add>(), [](const Price& p) { return Add{p.cents}; });
  /// ```
  template <class Sub, class F>
    requires std::invocable<F&, const T&>
  Subscription subscribe(const DerivedRef<Sub>& subscriber, F map, SubscribeOptions options = {}) {
    static_assert(detail::maps_to<std::invoke_result_t<F&, const T&>, Sub>(),
                  "the map of an OutputPort subscription through a DerivedRef<Sub> must return a Sub (or a "
                  "std::optional of it, to skip values)");
    return add(subscriber, std::move(map), options);
  }
  /// The same for a derived reference whose Sub can be built from T directly.
  template <class Sub>
    requires std::constructible_from<Sub, const T&>
  Subscription subscribe(const DerivedRef<Sub>& subscriber, SubscribeOptions options = {}) {
    return subscribe(subscriber, [](const T& v) { return Sub(v); }, options);
  }

  /// Ends every subscription of `subscriber`; returns how many there were.
  std::size_t unsubscribe(const ActorCell& subscriber) {
    if (!s_) return 0;
    std::size_t n = 0;
    std::lock_guard lk(s_->m);
    for (const auto& sub : *s_->list)
      if (sub->subscriber() == subscriber && sub->is_active()) {
        sub->deactivate();
        ++n;
      }
    prune_locked();
    return n;
  }

  /// Offers `value` to every subscriber; returns how many were sent a message (filtered and
  /// dropped ones are not counted).
  std::size_t send(const T& value) {
    if (!s_) return 0;
    std::shared_ptr<const List> list;
    {
      std::lock_guard lk(s_->m);
      list = s_->list;
    }
    std::size_t reached = 0;
    bool gone = false;
    using Offer = typename detail::PortSubscription<T>::Offer;
    for (const auto& sub : *list) {
      switch (sub->offer(value)) {
        case Offer::delivered: ++reached; break;
        case Offer::gone: gone = true; break;
        case Offer::filtered:
        case Offer::dropped: break;
      }
    }
    if (gone) {
      std::lock_guard lk(s_->m);
      prune_locked();
    }
    return reached;
  }

  /// Subscriptions still active; a subscriber that has stopped is forgotten here too.
  std::size_t subscriber_count() const {
    if (!s_) return 0;
    std::lock_guard lk(s_->m);
    for (const auto& sub : *s_->list)
      if (!sub->subscriber().is_alive() || sub->subscriber().status() >= ActorStatus::draining) sub->deactivate();
    prune_locked();
    return s_->list->size();
  }

  /// Drops over the port's life, across all its subscriptions (ended ones included).
  std::uint64_t dropped() const noexcept { return s_ ? s_->drops->load(std::memory_order_acquire) : 0; }

 private:
  using List = std::vector<Ref<detail::PortSubscription<T>>>;

  template <class Target, class F>
  Subscription add(const Target& subscriber, F map, SubscribeOptions options) {
    if (!subscriber)
      throw OutputPortError("OutputPort::subscribe: the subscriber handle is empty; pass a handle returned by spawn");
    if (!s_) throw OutputPortError("OutputPort::subscribe: this port was moved from; subscribe to the port it moved to");
    auto sub =
        make_ref<detail::TypedSubscription<T, Target, F>>(subscriber, options.capacity, s_->drops, std::move(map));
    {
      std::lock_guard lk(s_->m);
      auto next = std::make_shared<List>(*s_->list);
      next->emplace_back(sub);
      s_->list = std::move(next);
    }
    return Subscription(Ref<detail::SubscriptionCore>(std::move(sub)));
  }

  // The subscriber list is copy-on-write: send() takes a snapshot under the lock and offers outside
  // it, so user map functions never run under a lock and a slow subscriber never blocks subscribe.
  struct Shared {
    std::mutex m;
    std::shared_ptr<const List> list = std::make_shared<const List>();
    detail::SubscriptionCore::Counter drops = std::make_shared<std::atomic<std::uint64_t>>(0);
  };

  void prune_locked() const {
    if (std::all_of(s_->list->begin(), s_->list->end(), [](const auto& sub) { return sub->is_active(); })) return;
    auto next = std::make_shared<List>();
    for (const auto& sub : *s_->list)
      if (sub->is_active()) next->push_back(sub);
    s_->list = std::move(next);
  }

  void close() noexcept {
    if (!s_) return;
    std::lock_guard lk(s_->m);
    for (const auto& sub : *s_->list) sub->deactivate();
    s_->list = std::make_shared<const List>();
  }

  std::shared_ptr<Shared> s_;
};

}  // namespace actorscope
