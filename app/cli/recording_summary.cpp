// The session summary shared by `record` and `inspect`.
#include "cli/recording_summary.hpp"

#include <algorithm>
#include <array>
#include <ctime>
#include <set>
#include <system_error>

namespace actorscope::cli {

std::string file_size_text(std::uintmax_t bytes) {
  char buf[32];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%ju bytes", bytes);
  } else if (bytes < 1024 * 1024) {
    std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return buf;
}

std::uintmax_t recording_size(const std::filesystem::path& file) {
  std::error_code ec;
  std::uintmax_t total = std::filesystem::file_size(file, ec);
  if (ec) total = 0;
  std::filesystem::path wal = file;
  wal += "-wal";
  const std::uintmax_t w = std::filesystem::file_size(wal, ec);
  if (!ec) total += w;
  return total;
}

namespace {

std::string utc(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

std::string seconds(Duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

void print_session_summary(std::FILE* to, const SessionReader& reader, const SessionInfo& s) {
  std::string what = s.scenario.empty() ? std::string("(no scenario)") : s.scenario;
  std::fprintf(to, "session %lld: %s on %s (%u thread%s), detail %s", static_cast<long long>(s.id),
               what.c_str(), s.runtime.c_str(), s.threads, s.threads == 1 ? "" : "s",
               std::string(to_string(s.detail)).c_str());
  if (s.detail == Detail::sampled) std::fprintf(to, " (1 message in %u)", s.sample_every);
  if (s.seed) std::fprintf(to, ", seed %llu", static_cast<unsigned long long>(*s.seed));
  std::fprintf(to, "\n");

  std::fprintf(to, "  started     %s, by %s\n", utc(s.started_at).c_str(), s.recorder.c_str());
  if (s.ended_cleanly()) {
    std::fprintf(to, "  ended       cleanly, %s\n", utc(*s.ended_at).c_str());
  } else {
    std::fprintf(
        to,
        "  ended       UNCLEANLY: the recording process stopped without closing the session (or is still "
        "recording); last write %s\n",
        utc(s.updated_at).c_str());
  }
  std::fprintf(to, "  time range  %s of runtime clock (t_ns %lld to %lld)\n", seconds(s.duration()).c_str(),
               static_cast<long long>(observe::to_ns(s.start_time)),
               static_cast<long long>(observe::to_ns(s.end_time)));

  const std::vector<ActorInfo> actors = reader.actors(s.id);
  std::uint64_t alive = 0, by_exit[3] = {0, 0, 0};
  for (const ActorInfo& a : actors) {
    if (a.exit_kind) {
      ++by_exit[static_cast<int>(*a.exit_kind)];
    } else {
      ++alive;
    }
  }
  std::fprintf(to, "  actors      %s: %s stopped, %s failed, %s killed, %s still alive at the end\n",
               with_commas(actors.size()).c_str(), with_commas(by_exit[0]).c_str(),
               with_commas(by_exit[1]).c_str(), with_commas(by_exit[2]).c_str(), with_commas(alive).c_str());

  std::fprintf(
      to, "  events      %s recorded, %s dropped%s\n", with_commas(s.events_recorded).c_str(),
      with_commas(s.events_dropped).c_str(),
      s.events_dropped > 0 ? " (the engine's buffers were full; statistics below are still exact)" : "");
  const auto counts = reader.event_counts(s.id);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] == 0) continue;
    const std::string name(observe::to_string(static_cast<observe::EventKind>(k)));
    std::fprintf(to, "    %-22s %12s\n", name.c_str(), with_commas(counts[k]).c_str());
  }

  std::uint64_t handled = 0, sent = 0, buckets = 0, mailbox_max = 0, dropped = 0, rejected = 0;
  for (const observe::StatsSample& b : reader.stats(s.id)) {
    handled += b.handled;
    sent += b.sent;
    dropped += b.dropped;
    rejected += b.rejected;
    mailbox_max = std::max(mailbox_max, b.mailbox_max);
    ++buckets;
  }
  // The buckets count from the start of the session, not over the actors' lives (RECORDING-FORMAT.md).
  std::fprintf(to,
               "  statistics  %s messages handled, %s sent by actors while recording; largest mailbox %s "
               "(%s buckets)\n",
               with_commas(handled).c_str(), with_commas(sent).c_str(), with_commas(mailbox_max).c_str(),
               with_commas(buckets).c_str());
  // Bounded mailboxes: what each lost is in actor_stats; here, the totals, so that nothing lost goes unsaid.
  const auto bounded = std::count_if(actors.begin(), actors.end(), [](const ActorInfo& a) { return a.mailbox_capacity > 0; });
  if (bounded > 0 || dropped > 0 || rejected > 0)
    std::fprintf(to, "  mailboxes   %s bounded; %s messages dropped and %s refused by full mailboxes while recording\n",
                 with_commas(static_cast<std::uint64_t>(bounded)).c_str(), with_commas(dropped).c_str(),
                 with_commas(rejected).c_str());
  // Factories (format 7): their ids from their samples and configurations, and the totals of the samples.
  std::set<ActorId> factories;
  FactoryCounters jobs;
  for (const observe::FactorySample& f : reader.factory_stats(s.id)) {
    factories.insert(f.factory);
    jobs.add(f);
  }
  if (counts[static_cast<std::size_t>(observe::EventKind::factory_configured)] > 0)
    reader.for_each_event(s.id, EventFilter{.kinds = {observe::EventKind::factory_configured}},
                          [&](const observe::Event& e) {
                            factories.insert(ActorId{0, e.actor.pid});
                            return true;
                          });
  if (!factories.empty())
    std::fprintf(to,
                 "  factories   %s; jobs done %s; discarded %s (ttl %s, shed %s, shutdown %s, rate %s); stuck %s; "
                 "retried %s\n",
                 with_commas(factories.size()).c_str(), with_commas(jobs.completed).c_str(),
                 with_commas(jobs.discarded_total()).c_str(), with_commas(jobs.discarded_ttl).c_str(),
                 with_commas(jobs.discarded_load_shed).c_str(), with_commas(jobs.discarded_shutdown).c_str(),
                 with_commas(jobs.discarded_rate_limited).c_str(), with_commas(jobs.stuck).c_str(),
                 with_commas(jobs.retried).c_str());
}

}  // namespace actorscope::cli
