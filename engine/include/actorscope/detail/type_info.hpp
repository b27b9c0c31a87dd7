// Type identity without RTTI: a unique tag per type, and a readable type name for logs and views.
#pragma once

#include <string_view>

namespace actorscope::detail {

/// The object whose address is a type's tag: one per type, shared across translation units (an
/// inline variable), and not const, so that no linker could fold two of them into one.
template <class T>
inline char type_tag_v = 0;

/// A unique address per type.
template <class T>
constexpr const void* type_tag() noexcept {
  return &type_tag_v<T>;
}

template <class T>
constexpr std::string_view pretty_type_name() noexcept {
  std::string_view s = __PRETTY_FUNCTION__;
  const auto start = s.find("T = ");
  if (start == std::string_view::npos) return "unknown";
  s.remove_prefix(start + 4);
  const auto end = s.find_first_of(";]");
  return s.substr(0, end);
}

/// Computed once, at compile time: searching the signature at run time cost a spawn about
/// 1,700 instructions (50 memchr calls).
template <class T>
inline constexpr std::string_view type_name_v = pretty_type_name<T>();

/// "Counter", "std::variant<Add, Get>", ... as the compiler spells it.
template <class T>
constexpr std::string_view type_name() noexcept {
  return type_name_v<T>;
}

/// What a cell knows of its types: one constant per actor type, which the cell points to (a
/// pointer instead of the two fields: 16 bytes of every actor).
struct CellType {
  std::string_view name;              ///< the actor's (or task's) type, type_name<A>()
  const void* message_tag = nullptr;  ///< type_tag<M>() of its message type; nullptr for a task
};

/// The CellType of an actor `A` whose message type is `M`.
template <class A, class M>
inline constexpr CellType actor_cell_type_v{type_name_v<A>, type_tag<M>()};

/// The CellType of a task running `F`.
template <class F>
inline constexpr CellType task_cell_type_v{type_name_v<F>, nullptr};

}  // namespace actorscope::detail
