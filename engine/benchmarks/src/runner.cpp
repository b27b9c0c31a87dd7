// Runner: validates the options, then runs each (benchmark, runtime) case on a fresh System, with
// the samples taken on a driver thread while the calling thread relays progress.
#include <actorscope/benchmarks/runner.hpp>
#include <actorscope/system.hpp>

#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <mutex>
#include <regex>
#include <thread>

namespace actorscope::bench {

namespace {

std::string utc_now_iso8601() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// What the driver thread tells the calling thread.
struct Channel {
  std::mutex m;
  std::condition_variable cv;
  std::deque<Progress> pending;
  bool done = false;

  void post(Progress p) {
    std::lock_guard lk(m);
    pending.push_back(std::move(p));
    cv.notify_one();
  }
  void finish() {
    std::lock_guard lk(m);
    done = true;
    cv.notify_one();
  }
};

}  // namespace

const Result* RunReport::find(std::string_view benchmark, std::string_view runtime) const {
  for (const Result& r : results)
    if (r.benchmark == benchmark && r.runtime == runtime) return &r;
  return nullptr;
}

Runner::Runner(RunOptions options) : Runner(std::move(options), benchmarks()) {}

Runner::Runner(RunOptions options, std::span<const Benchmark> catalogue) : options_(std::move(options)) {
  for (std::size_t i = 0; i < catalogue.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (catalogue[i].info.name == catalogue[j].info.name) {
        std::string m = "two benchmarks are called \"";
        m += catalogue[i].info.name;
        m += "\"; names must be unique";
        throw RunOptionsError(m);
      }
  const std::vector<std::string> known = runtime_names();
  if (options_.runtimes.empty())
    throw RunOptionsError("no runtime to run the benchmarks on: name at least one (this build knows " + joined(known) + ")");
  for (std::size_t i = 0; i < options_.runtimes.size(); ++i) {
    const std::string& name = options_.runtimes[i];
    if (std::find(known.begin(), known.end(), name) == known.end()) throw UnknownRuntimeError(name, known);
    if (name == "manual")
      throw RunOptionsError(
          "the manual runtime cannot be benchmarked: it runs nothing unless a test steps it and its clock is "
          "virtual; choose a real runtime (asio, qt)");
    if (std::find(options_.runtimes.begin(), options_.runtimes.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        options_.runtimes.begin() + static_cast<std::ptrdiff_t>(i))
      throw RunOptionsError("the runtime \"" + name + "\" is named twice");
  }
  const auto check_spin = [](std::chrono::microseconds spin, const char* what) {
    if (spin < std::chrono::microseconds(0) || spin > std::chrono::seconds(1))
      throw RunOptionsError(std::string("the ") + what + " spin must be from 0 to 1,000,000 us");
  };
  check_spin(options_.idle_spin, "idle");
  check_spin(options_.wait_spin, "wait");
  if (options_.threads > 1024)
    throw RunOptionsError("at most 1024 threads per runtime, not " + std::to_string(options_.threads));

  std::optional<std::regex> filter;
  if (!options_.filter.empty()) {
    try {
      filter.emplace(options_.filter, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw RunOptionsError("the filter \"" + options_.filter + "\" is not a valid regular expression (" + e.what() +
                            ")");
    }
  }
  for (const Benchmark& b : catalogue)
    if (!filter || std::regex_search(b.info.name, *filter)) selected_.push_back(&b);
  if (selected_.empty())
    throw RunOptionsError("the filter \"" + options_.filter + "\" matches none of the " +
                          std::to_string(catalogue.size()) + " benchmarks' names");
}

std::size_t Runner::case_count() const noexcept {
  std::size_t n = 0;
  for (const Benchmark* b : selected_) n += b->info.runs_once ? 1 : options_.runtimes.size();
  return n;
}

RunReport Runner::run() {
  RunReport report;
  report.started_at = utc_now_iso8601();
  report.machine = describe_machine();
  report.git_revision = git_revision();
  report.options = options_;
  const TimePoint run_start = Clock::now();

  const std::size_t count = case_count();
  std::size_t index = 0;
  for (const Benchmark* b : selected_) {
    const std::size_t runtimes = b->info.runs_once ? 1 : options_.runtimes.size();
    for (std::size_t rt = 0; rt < runtimes; ++rt) {
      const std::string& runtime = options_.runtimes[rt];
      ++index;
      if (cancel_ != nullptr && cancel_->load(std::memory_order_acquire)) {
        report.cancelled = true;
        break;
      }
      const BenchmarkInfo& info = b->info;
      Result r;
      r.benchmark = info.name;
      r.group = info.group;
      r.runtime = runtime;
      r.measure = info.measure;
      r.unit = info.unit;
      r.elements = info.elements;
      r.element = info.element;
      r.reference = info.reference;

      Progress base;
      base.benchmark = info.name;
      base.runtime = runtime;
      base.case_index = index;
      base.case_count = count;
      base.samples = options_.samples != 0 ? options_.samples : (options_.quick ? info.quick_samples : info.samples);
      if (progress_) progress_(base);

      // The System lives on this thread: the qt runtime must be created and destroyed on the
      // application's thread.
      std::unique_ptr<System> system;
      try {
        RuntimeOptions ro;
        ro.threads = info.threads != 0 ? info.threads : options_.threads;
        ro.idle_spin = options_.idle_spin;
        ro.wait_spin = options_.wait_spin;
        system = std::make_unique<System>(make_runtime(runtime, ro));
        r.threads = info.runs_once ? 0 : system->runtime().thread_count();
      } catch (const std::exception& e) {
        r.error = std::string("could not start the runtime: ") + e.what();
      }

      bool case_cancelled = false;
      if (system) {
        Channel channel;
        std::vector<std::vector<double>> observations;
        std::vector<std::pair<std::string, std::vector<double>>> phases;
        std::thread driver([&] {
          auto cancelled = [&] { return cancel_ != nullptr && cancel_->load(std::memory_order_acquire); };
          try {
            std::unique_ptr<Workload> w =
                options_.quick && b->make_quick ? b->make_quick(*system) : b->make(*system);
            const auto warm_up = options_.warm_up ? *options_.warm_up : options_.quick ? info.quick_warm_up : info.warm_up;
            if (warm_up.count() > 0) {
              Progress p = base;
              p.phase = Progress::Phase::warming_up;
              channel.post(p);
              const TimePoint until = Clock::now() + warm_up;
              do {
                if (cancelled()) break;
                (void)w->sample();
                ++r.warm_up_iterations;
              } while (Clock::now() < until);
            }
            for (std::size_t i = 0; i < base.samples; ++i) {
              if (cancelled()) {
                case_cancelled = true;
                break;
              }
              Sample s = w->sample();
              r.samples.push_back(s.value);
              if (!s.observations.empty()) observations.push_back(std::move(s.observations));
              for (auto& [name, value] : s.phases) {
                auto it = std::find_if(phases.begin(), phases.end(), [&](const auto& p) { return p.first == name; });
                if (it == phases.end()) it = phases.insert(phases.end(), {name, {}});
                it->second.push_back(value);
              }
              Progress p = base;
              p.phase = Progress::Phase::sampling;
              p.sample = i + 1;
              channel.post(p);
            }
            r.note = w->note();
            w.reset();  // leaves no actor running
          } catch (const std::exception& e) {
            r.error = e.what();
          }
          channel.finish();
        });

        {
          std::unique_lock lk(channel.m);
          for (;;) {
            while (!channel.pending.empty()) {
              Progress p = std::move(channel.pending.front());
              channel.pending.pop_front();
              lk.unlock();
              if (progress_) progress_(p);
              lk.lock();
            }
            if (channel.done) break;
            if (idle_) {
              channel.cv.wait_for(lk, idle_period_);
              lk.unlock();
              idle_();
              lk.lock();
            } else {
              channel.cv.wait(lk);
            }
          }
        }
        driver.join();
        system.reset();

        if (r.ok()) {
          r.statistics = compute_statistics(r.samples);
          if (!observations.empty()) {
            std::vector<double> pooled;
            for (auto& o : observations) pooled.insert(pooled.end(), o.begin(), o.end());
            r.distribution = compute_statistics(pooled);
          }
          for (auto& [name, values] : phases) r.phases.push_back({name, compute_statistics(values)});
        } else {
          r.samples.clear();
        }
      }

      if (case_cancelled) {
        report.cancelled = true;
        break;
      }
      Progress done = base;
      done.phase = Progress::Phase::finished;
      done.sample = r.samples.size();
      if (progress_) progress_(done);
      report.results.push_back(std::move(r));
    }
    if (report.cancelled) break;
  }
  report.seconds = std::chrono::duration<double>(Clock::now() - run_start).count();
  return report;
}

}  // namespace actorscope::bench
