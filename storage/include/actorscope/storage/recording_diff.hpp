// RecordingDiff: the per-actor difference between two sessions (`actorscope diff`), computed from
// each side's final state (SessionReader::state_at(session, TimePoint::max()): the last keyframe
// plus what follows it, never the whole event stream) and its actors, matched by path
// (actor_match.hpp).
//
// For each matched logical actor (all its incarnations added up), each column has side A, side B
// and the ratio B/A:
//   handled        messages handled (exact, from the statistics polls)
//   rate           messages handled per second of the *session's* duration (not of the actor's
//                  lifetime: a short-lived actor then does not show an inflated rate, and a run
//                  that took longer shows a lower rate for the same work)
//   queue p50/p99, handling p50/p99
//                  percentiles of the queue and handling times of the timed messages (every
//                  message at `full` detail, the sampled ones at `sampled`; none at `lifecycle`,
//                  where the column is not measured); within the histogram's 1/8 precision
//   peak mailbox   the highest mailbox depth seen
//   failures       incarnations that ended by failing
//   restarts       incarnations that replaced a failed one (actor_match.hpp)
//   dropped, rejected
//                  messages a bounded mailbox dropped, and sends it refused, because it was full
//                  (exact, from the statistics polls; 0 for an unbounded mailbox and in recordings
//                  older than format 6)
// The ratio: both 0 → none ("—", no difference); 0 in A only → "new"; 0 in B only → "gone";
// a column not measured on either side → none ("—").
// A row's difference is the largest |ln(B/A)| over its columns (infinite for "new" and "gone");
// rows are sorted by it, largest first, then by handled (the larger side), then by path.
#pragma once

#include <actorscope/storage/actor_match.hpp>
#include <actorscope/storage/session_reader.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace actorscope {

enum class DiffColumn : std::uint8_t {
  handled,
  rate,
  queue_p50,
  queue_p99,
  handling_p50,
  handling_p99,
  peak_mailbox,
  failures,
  restarts,
  dropped,
  rejected,
};
inline constexpr std::size_t kDiffColumnCount = 11;
/// "handled", "rate", "queue_p50", ... (the JSON keys).
std::string_view to_string(DiffColumn column) noexcept;

/// One logical actor on one side: the sum over its incarnations.
struct ActorFigures {
  std::uint64_t handled = 0;
  /// handled per second of the session (0 for a session of no duration).
  double rate = 0;
  /// Empty when no timed message was seen (lifecycle detail, or none handled).
  std::optional<std::uint64_t> queue_p50_ns, queue_p99_ns, handling_p50_ns, handling_p99_ns;
  std::uint64_t peak_mailbox = 0;
  std::uint64_t failures = 0;
  std::uint64_t restarts = 0;
  /// What its bounded mailboxes lost because they were full: messages dropped, sends rejected.
  std::uint64_t dropped = 0;
  std::uint64_t rejected = 0;
  std::size_t incarnations = 0;
  /// The value of a column as a number (empty: not measured).
  std::optional<double> value(DiffColumn column) const;
};

/// One session, ready to compare.
struct DiffSide {
  std::string label;  ///< what the reports call it: "a.db, session 1"
  std::string scenario;
  std::string runtime;
  std::uint32_t threads = 0;
  std::string detail;
  Duration duration{};
  std::vector<ActorSlot> actors;
  std::vector<ActorFigures> figures;  ///< parallel to actors
  /// Incarnations the final state no longer held (it keeps the latest stopped actors only): their
  /// handled, peak mailbox, dropped and rejected come from the statistics table, their times are
  /// not counted.
  std::size_t pruned = 0;
};

/// A side from a folded state and the actors the session saw (actors missing from the state count
/// as pruned: identity and failures only). `duration` is the session's, for the rate.
DiffSide make_diff_side(std::string label, std::vector<ActorInfo> actors, const observe::SystemState& state,
                        Duration duration);
/// A side from a recorded session: its actors, its final state (from the last keyframe) and, when
/// the state has pruned stopped actors, their exact statistics. Throws RecordingError.
DiffSide read_diff_side(const SessionReader& reader, std::int64_t session);

struct DiffCell {
  std::optional<double> a, b;
  enum class Ratio : std::uint8_t { none, value, fresh, gone };
  Ratio kind = Ratio::none;
  double ratio = 0;  ///< B/A when kind == value
  /// |ln(B/A)|: 0 for none, infinite for fresh and gone.
  double difference() const noexcept;
};
/// The cell of two values, by the ratio rule above.
DiffCell diff_cell(std::optional<double> a, std::optional<double> b);

struct DiffRow {
  std::string path;  ///< A's path (B's when matched by name: see path_b)
  std::string path_b;
  ActorMatch::By by = ActorMatch::By::path;
  std::array<DiffCell, kDiffColumnCount> cells{};
  double difference = 0;  ///< the largest over the cells
  const DiffCell& cell(DiffColumn c) const { return cells[static_cast<std::size_t>(c)]; }
};

struct OneSidedActor {
  std::string path;
  ActorFigures figures;
};

struct RecordingDiff {
  std::vector<DiffRow> rows;  ///< sorted, largest difference first
  std::vector<OneSidedActor> only_a, only_b;
  /// Over all of each side's actors (matched or not).
  struct Totals {
    std::size_t actors = 0;  ///< logical actors (paths)
    std::size_t incarnations = 0;
    std::uint64_t handled = 0;
    std::uint64_t failures = 0;
    std::uint64_t restarts = 0;
  } total_a, total_b;
  /// Matched rows with a difference (any cell with a ratio other than 1).
  std::size_t differing() const;
};

RecordingDiff diff_sides(const DiffSide& a, const DiffSide& b);

}  // namespace actorscope
