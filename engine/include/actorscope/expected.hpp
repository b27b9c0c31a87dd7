// Expected<T, E>: a value or an error, for outcomes a caller is meant to handle
// (a spawn whose pre_start failed, a cast to a stopped actor, a refused link).
#pragma once

#include <concepts>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

namespace actorscope {

template <class E>
class Unexpected {
 public:
  explicit Unexpected(E e) : e_(std::move(e)) {}
  E& error() & noexcept { return e_; }
  E&& error() && noexcept { return std::move(e_); }

 private:
  E e_;
};

template <class E>
Unexpected<std::decay_t<E>> unexpected(E&& e) {
  return Unexpected<std::decay_t<E>>(std::forward<E>(e));
}

/// Thrown by Expected::value() when it holds an error. The message is the error's own text.
class BadExpectedAccess : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
template <class E>
std::string describe_error(const E& e) {
  if constexpr (requires { std::string(e.what()); }) {
    return std::string(e.what());
  } else if constexpr (std::is_convertible_v<const E&, std::string>) {
    return std::string(e);
  } else {
    return "Expected holds an error";
  }
}
}  // namespace detail

template <class T, class E>
class Expected {
 public:
  using value_type = T;
  using error_type = E;

  template <class U = T>
    requires std::constructible_from<T, U&&> && (!std::same_as<std::decay_t<U>, Expected>)
  Expected(U&& v) : v_(std::in_place_index<0>, std::forward<U>(v)) {}
  Expected(Unexpected<E> e) : v_(std::in_place_index<1>, std::move(e).error()) {}

  bool has_value() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return check(), std::get<0>(v_); }
  const T& value() const& { return check(), std::get<0>(v_); }
  T&& value() && { return check(), std::get<0>(std::move(v_)); }
  T& operator*() & noexcept { return *std::get_if<0>(&v_); }
  const T& operator*() const& noexcept { return *std::get_if<0>(&v_); }
  T* operator->() noexcept { return std::get_if<0>(&v_); }
  const T* operator->() const noexcept { return std::get_if<0>(&v_); }

  E& error() & noexcept { return *std::get_if<1>(&v_); }
  const E& error() const& noexcept { return *std::get_if<1>(&v_); }
  E&& error() && noexcept { return std::move(*std::get_if<1>(&v_)); }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(v_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!has_value()) throw BadExpectedAccess(detail::describe_error(std::get<1>(v_)));
  }
  std::variant<T, E> v_;
};

template <class E>
class Expected<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Expected() noexcept = default;
  Expected(Unexpected<E> e) : e_(std::move(e).error()) {}

  bool has_value() const noexcept { return !e_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  void value() const {
    if (e_) throw BadExpectedAccess(detail::describe_error(*e_));
  }
  E& error() & noexcept { return *e_; }
  const E& error() const& noexcept { return *e_; }
  E&& error() && noexcept { return std::move(*e_); }

 private:
  std::optional<E> e_;
};

}  // namespace actorscope
