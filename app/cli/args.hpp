// Args: the command-line parser every `actorscope` subcommand shares, so that every one of them
// answers a mistake the same way: a typed ArgError that names the option and says what to do.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace actorscope::cli {

/// A command line the user got wrong. The message is meant to be printed as it is.
class ArgError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Takes options out of a subcommand's arguments one query at a time; finish() then refuses
/// whatever nobody asked for. Options are `--name value`, `--name=value` or a bare `--flag`.
class Args {
 public:
  /// `command` is the subcommand's name, used in error messages ("actorscope bench: ...").
  Args(std::string command, std::vector<std::string> args);

  /// The value of `--name`, if given. Throws ArgError if it is given without a value or twice.
  std::optional<std::string> value(std::string_view name);
  /// The same, or `fallback`.
  std::string value_or(std::string_view name, std::string fallback);
  /// A whole number in [min, max]; throws ArgError naming the option if it is not one.
  std::optional<std::int64_t> integer(std::string_view name, std::int64_t min, std::int64_t max);
  /// A number of seconds (decimals allowed) in (0, max].
  std::optional<double> seconds(std::string_view name, double max);
  /// A comma-separated list: `--runtime asio,qt`.
  std::vector<std::string> list(std::string_view name);
  /// One whole number for both of two sides, or two (A's, B's): `--threads 2` or `--threads 1,2`,
  /// each in [min, max]. Throws ArgError naming the option and the value that is wrong.
  std::optional<std::pair<std::int64_t, std::int64_t>> integer_pair(std::string_view name, std::int64_t min,
                                                                    std::int64_t max);
  /// Whether `--name` is present (it takes no value).
  bool flag(std::string_view name);
  /// Arguments that are not options, in order. Call after every option has been taken. They
  /// still count for finish(): taking them does not make any number of them acceptable.
  std::vector<std::string> positionals();

  /// Throws ArgError for the first option nobody asked for, or for the first argument beyond
  /// `max_positionals`. `takes` says what the command does take, for that message: "one recording"
  /// gives "... \"b.db\" is one argument too many: export takes one recording".
  void finish(std::size_t max_positionals = 0, std::string_view takes = {});

  /// "actorscope <command>: <text> (try 'actorscope <command> --help')".
  [[nodiscard]] ArgError error(std::string_view text) const;

 private:
  struct Item {
    std::string text;
    bool used = false;        // taken as an option or an option's value
    bool positional = false;  // handed out by positionals()
  };
  std::string command_;
  std::vector<Item> items_;
};

}  // namespace actorscope::cli
