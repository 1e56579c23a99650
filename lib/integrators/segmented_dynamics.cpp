#include "integrators/segmented_dynamics.hpp"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <sstream>
#include <vector>

#include "core/check.hpp"

namespace catena {
namespace {

constexpr const char* kFormat = "catena-dynamics 2";  // 2: with the end record

/// Numbers as exactNumber's words, one blank apart.
std::string exactList(const double* x, Index n) {
  std::string s;
  for (Index i = 0; i < n; ++i) {
    if (i > 0) s += ' ';
    s += exactNumber(x[i]);
  }
  return s;
}

/// The n numbers of a record; throws catena::Error naming the file and the key otherwise.
std::vector<double> numbers(const std::filesystem::path& file, const Checkpoint& c,
                            const std::string& key, std::size_t n) {
  std::istringstream words(c.get(key));
  std::vector<double> out;
  for (std::string word; words >> word;) {
    try {
      out.push_back(parseExactNumber(word));
    } catch (const Error& e) {
      throw Error("checkpoint '" + file.string() + "': record '" + key + "': number " +
                  std::to_string(out.size() + 1) + ": " + e.what());
    }
  }
  CATENA_CHECK(out.size() == n, "checkpoint '" << file.string() << "': record '" << key << "' has "
                                               << out.size() << " numbers, expected " << n
                                               << " (of this rank's part of the model)");
  return out;
}

VecX vector(const std::filesystem::path& file, const Checkpoint& c, const std::string& key,
            Index n) {
  const std::vector<double> x = numbers(file, c, key, static_cast<std::size_t>(n));
  return Eigen::Map<const VecX>(x.data(), n);
}

/// The run's counters: summed over segments, the step sizes' extremes over them.
void accumulate(DynamicsStats& total, const DynamicsStats& s) {
  if (s.steps > 0) {
    total.smallest_step =
        total.steps > 0 ? std::min(total.smallest_step, s.smallest_step) : s.smallest_step;
    total.largest_step = std::max(total.largest_step, s.largest_step);
    total.last_step = s.last_step;
  }
  total.steps += s.steps;
  total.rejected_steps += s.rejected_steps;
  total.newton_iterations += s.newton_iterations;
  total.jacobian_evaluations += s.jacobian_evaluations;
  total.factorizations += s.factorizations;
  total.linear_solves += s.linear_solves;
  total.error_test_failures += s.error_test_failures;
  total.convergence_failures += s.convergence_failures;
  total.projections += s.projections;
}

void accumulate(DistributedDynamicsTimings& total, const DistributedDynamicsTimings& t) {
  total.setup += t.setup;
  total.initial += t.initial;
  total.assembly += t.assembly;
  total.factorization += t.factorization;
  total.solve += t.solve;
  total.integration += t.integration;
}

/// The counters (record "stats") and the step sizes (record "step_sizes": last, smallest,
/// largest) of a run.
void addStats(Checkpoint& c, const DynamicsStats& s) {
  std::ostringstream os;
  os << s.steps << ' ' << s.rejected_steps << ' ' << s.newton_iterations << ' '
     << s.jacobian_evaluations << ' ' << s.factorizations << ' ' << s.linear_solves << ' '
     << s.error_test_failures << ' ' << s.convergence_failures << ' ' << s.projections;
  c.add("stats", os.str());
  const double h[] = {s.last_step, s.smallest_step, s.largest_step};
  c.add("step_sizes", exactList(h, 3));
}

DynamicsStats parseStats(const std::filesystem::path& file, const Checkpoint& c) {
  std::istringstream is(c.get("stats"));
  DynamicsStats s;
  is >> s.steps >> s.rejected_steps >> s.newton_iterations >> s.jacobian_evaluations >>
      s.factorizations >> s.linear_solves >> s.error_test_failures >> s.convergence_failures >>
      s.projections;
  CATENA_CHECK(is, "checkpoint '" << file.string() << "': record 'stats' is not 9 counts");
  const std::vector<double> h = numbers(file, c, "step_sizes", 3);
  s.last_step = h[0];
  s.smallest_step = h[1];
  s.largest_step = h[2];
  return s;
}

std::filesystem::path rankFile(const std::filesystem::path& stem, int rank) {
  std::filesystem::path p = stem;
  p += ".r" + std::to_string(rank);
  return p;
}

std::filesystem::path previous(const std::filesystem::path& file) {
  std::filesystem::path p = file;
  p += ".prev";
  return p;
}

/// Throws on every rank when any rank failed (the message of a failing rank, or a pointer to it).
void agree(const DistributedModel& dm, const std::string& error) {
  const double failed = dm.max(error.empty() ? 0.0 : 1.0);
  if (failed == 0.0) return;
  throw Error(error.empty() ? "a checkpoint of another rank could not be used (see its message)"
                            : error);
}

/// A rank's checkpoint of this run: the segments done, and what it holds.
struct Saved {
  long done = -1;  ///< segments completed; -1: no usable file
  std::filesystem::path file;
  Checkpoint c;
};

/// Reads `file` if it exists and belongs to `run` on this rank count.
Saved readIfOfRun(const std::filesystem::path& file, const std::string& run, int rank, int ranks) {
  Saved s;
  if (!std::filesystem::exists(file)) return s;
  s.c = readCheckpoint(file, kFormat);
  if (s.c.get("run") != run || s.c.get("ranks") != std::to_string(ranks)) return s;
  CATENA_CHECK(s.c.get("rank") == std::to_string(rank),
               "checkpoint '" << file.string() << "' is of rank " << s.c.get("rank")
                              << ", read by rank " << rank);
  s.done = std::stol(s.c.get("segments_done"));
  s.file = file;
  return s;
}

}  // namespace

SegmentedDynamicsResult integrateDistributedIdaInSegments(const DistributedAssembly& as,
                                                          const State& initial, const IdaOptions& o,
                                                          const SegmentOptions& seg,
                                                          const TrajectoryObserver& observer) {
  const DistributedModel& dm = as.distributedModel();
  const Model& model = dm.local();
  CATENA_CHECK(seg.segment >= 0.0 && std::isfinite(seg.segment),
               "segmented IDA: the segment must be >= 0 s, got " << seg.segment);
  CATENA_CHECK(o.t_end > initial.t, "segmented IDA: t_end must be after the initial time "
                                        << initial.t << " s, got " << o.t_end);
  CATENA_CHECK(!seg.restart || !seg.checkpoint.empty(),
               "segmented IDA: a restart needs the checkpoint's file stem");
  const int rank = dm.rank(), ranks = dm.size();

  // Segment k runs from t0 + k h to t0 + (k + 1) h, the last one to t_end (a remainder shorter
  // than 1e-9 h is merged into the one before).
  const double t0 = initial.t, span = o.t_end - t0;
  const long count = seg.segment > 0.0
                         ? std::max(1L, static_cast<long>(std::ceil(span / seg.segment - 1e-9)))
                         : 1L;
  auto segmentEnd = [&](long k) {
    return k + 1 == count ? o.t_end : t0 + static_cast<double>(k + 1) * seg.segment;
  };

  SegmentedDynamicsResult out;
  State s = initial;
  long done = 0;

  // 1. Restart: the latest segment that every rank has (the current file or the previous one).
  if (seg.restart) {
    const std::filesystem::path file = rankFile(seg.checkpoint, rank);
    std::string error;
    // A damaged file (truncated, bytes flipped: its end record says so) is passed over with a
    // warning; the other of the two is used if it is whole.
    auto read = [&](const std::filesystem::path& f) {
      try {
        return readIfOfRun(f, seg.run, rank, ranks);
      } catch (const std::exception& e) {
        out.warnings.push_back(std::string("rank ") + std::to_string(rank) + ": rejected " +
                               e.what());
        return Saved{};
      }
    };
    const Saved cur = read(file), prev = read(previous(file));
    if (!out.warnings.empty() && std::max(cur.done, prev.done) >= 0)
      out.warnings.back() += "; using '" + (cur.done >= prev.done ? cur : prev).file.string() + "'";
    const long mine = std::max(cur.done, prev.done);
    const long common = -static_cast<long>(dm.max(-static_cast<double>(mine)));
    const long any = static_cast<long>(dm.max(static_cast<double>(mine)));
    if (common < 0) {
      std::ostringstream os;
      os << "no checkpoint of this run" << (any >= 0 ? " on every rank" : "") << " in '"
         << seg.checkpoint.string() << ".r*': started at t = " << t0 << " s";
      out.note = os.str();
    } else {
      const Saved& use = cur.done == common ? cur : prev;
      try {
        CATENA_CHECK(use.done == common, "checkpoint '" << file.string() << "': rank " << rank
                                                        << " has no copy of segment " << common
                                                        << ", which the other ranks reached");
        CATENA_CHECK(numbers(use.file, use.c, "t0", 1)[0] == t0 &&
                         std::stol(use.c.get("segment_count")) == count,
                     "checkpoint '" << use.file.string()
                                    << "': its start time or segments differ from this run's");
        s.t = numbers(use.file, use.c, "t", 1)[0];
        s.q = vector(use.file, use.c, "q", model.nq);
        s.v = vector(use.file, use.c, "v", model.nv);
        s.lambda = vector(use.file, use.c, "lambda", model.nc);
        out.stats = parseStats(use.file, use.c);
        if (seg.load) seg.load(use.c);
      } catch (const std::exception& e) {
        error = e.what();
      }
      agree(dm, error);
      done = common;
      out.resumed_at = s.t;
      std::ostringstream os;
      os.precision(10);
      os << "resumed at t = " << s.t << " s after segment " << done << " of " << count << " ('"
         << use.file.string() << "')";
      out.note = os.str();
    }
  }

  // 2. The segments. The observer sees t0 once; a segment's start is the previous one's end.
  bool observer_stopped = false, skip_start = done > 0;
  const TrajectoryObserver each = [&](const State& x) {
    if (skip_start) {
      skip_start = false;
      return true;
    }
    observer_stopped = !observer(x);
    return !observer_stopped;
  };
  out.status = Status::success();
  out.state = s;
  for (long k = done; k < count; ++k) {
    IdaOptions ok = o;
    ok.t_end = segmentEnd(k);
    ok.max_steps = o.max_steps - out.stats.steps;
    // The state a segment ends in is the integrator's own, consistent to its tolerance.
    if (k > 0) ok.assemble_initial_state = false;
    if (ok.max_steps <= 0) {
      std::ostringstream os;
      os << "segmented IDA stopped at t = " << s.t << " s after max_steps = " << o.max_steps
         << " accepted steps (t_end = " << o.t_end << " s): raise max_steps, or loosen rtol/atol";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      return out;
    }
    skip_start = k > 0;
    const DistributedDynamicsResult r =
        integrateDistributedIda(as, s, ok, observer ? each : TrajectoryObserver{});
    accumulate(out.stats, r.stats);
    accumulate(out.timings, r.timings);
    out.method = r.method;
    out.linear_solver = r.linear_solver;
    out.unknowns = r.unknowns;
    out.state = r.state;
    out.status = r.status;
    ++out.segments;
    if (!r.status.ok() || observer_stopped) return out;
    s = r.state;

    // 3. The checkpoint of segment k: every rank's own file, the previous one kept.
    if (!seg.checkpoint.empty()) {
      const std::filesystem::path file = rankFile(seg.checkpoint, rank);
      std::string error;
      try {
        Checkpoint c;
        c.format = kFormat;
        c.add("run", seg.run);
        c.add("ranks", std::to_string(ranks));
        c.add("rank", std::to_string(rank));
        c.add("segments_done", std::to_string(k + 1));
        c.add("segment_count", std::to_string(count));
        c.add("t0", exactNumber(t0));
        c.add("t", exactNumber(s.t));
        addStats(c, out.stats);
        c.add("q", exactList(s.q.data(), s.q.size()));
        c.add("v", exactList(s.v.data(), s.v.size()));
        c.add("lambda", exactList(s.lambda.data(), s.lambda.size()));
        if (seg.save) seg.save(c);
        if (std::filesystem::exists(file)) std::filesystem::rename(file, previous(file));
        writeCheckpoint(file, c);
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (dm.max(error.empty() ? 0.0 : 1.0) > 0.0) {
        std::ostringstream os;
        os.precision(10);
        os << "segmented IDA: the checkpoint at t = " << s.t << " s could not be written ("
           << (error.empty() ? "on another rank" : error) << ")";
        out.status = Status::failure(Status::Code::kResources, os.str());
        return out;
      }
    }
    if (seg.stop_after >= 0 && out.segments == seg.stop_after) {
      installTerminationHandler();  // the flag, not the default action
      std::raise(SIGTERM);
    }
    // The ranks agree on a signal before acting on it: it may reach them at different times.
    if (k + 1 < count && dm.max(terminationRequested() ? 1.0 : 0.0) > 0.0) {
      out.interrupted = true;
      return out;
    }
  }
  return out;
}

}  // namespace catena
