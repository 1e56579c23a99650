#pragma once
/// @file singular_passage.hpp
/// Singular configurations passed by the integrators that break down next to one (IDA in every
/// formulation, fixed-step generalized-alpha; issue 28, docs/dynamics-redundant.md, "Singular
/// configurations"). Near a crossing of two branches of C(q) = 0 their Newton matrices lose
/// rank and their corrections reach a round-off floor above the tolerance, or a step ends so
/// close to the crossing that the next one leaves the branch. withSingularPassages takes a run
/// that fails, or leaves its branch, where C_q is close to losing rank (the smallest retained
/// relative pivot of C_q^T's QRCP fallen below PassageOptions::margin times its value at the
/// start, or the rank below the start's) back to its last output before the failure;
/// generalized-alpha with error control, which passed every crossing measured
/// (benchmarks/results/singular_passage.md), integrates from there across the crossing until the
/// pivot has grown back above the margin; the run resumes from that state (a fresh start). Outputs
/// reach the observer two outputs late, so that a state that a branch watch rejects after the fact
/// is never seen. Internal to lib/integrators.

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "integrators/branch_watch.hpp"
#include "integrators/dynamics.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "mobility/blockwise_rank.hpp"

namespace catena {

struct PassageOptions {
  /// A failure is a passage where the smallest retained pivot is below margin times its value
  /// at the start (a pivot's size depends on units and lever arms; its fall does not). IDA at
  /// rtol 1e-10 fails 4 ms before the double four-bar's crossing, at 1/20 of the start's pivot
  /// (3D); generous, since a bridge where none was needed is still a correct integration and a
  /// bridge that fails returns the run's own failure.
  double margin = 0.25;
  double bridge_tolerance = 1e-6;  ///< generalized-alpha's error tolerance across a passage
  double mcs_tolerance = 1e-8;     ///< MCS's rtol across a passage (dense models)
  double output_interval = 0.0;    ///< s, the run's (0: every accepted step)
  int max_passages = 1000;         ///< passages in one run; more is a failure
};

/// The passage settings of a run at relative tolerance rtol with outputs every output_interval
/// s (IDA, Runge-Kutta, MCS, the distributed IDA): generalized-alpha bridges tighter than rtol,
/// MCS bridges at 1e-8 (its tightest reliable setting) whatever rtol.
PassageOptions passageOptions(double rtol, double output_interval);

/// The smallest retained relative pivot |R_rr| / |R_11| of C_q^T's QRCP at (q, t), 0 if the rank
/// there is below `rank` (the run's): dense up to kDenseRowLimit velocity coordinates,
/// block-wise above. `rank` < 0: the rank at (q, t) itself; `rank_out` (optional) receives it.
double smallestRetainedPivot(const Model& model, const AssemblyPlan& plan, const VecX& q, double t,
                             Index rank = -1, Index* rank_out = nullptr);

/// Adds the counts of `more` to `total` (a run continued in segments).
void addStats(DynamicsStats& total, const DynamicsStats& more);

/// One segment of a run: from `start` to `t_end`, calling `observer` at its start and outputs.
/// `resumed`: the start is a bridge's end (velocities consistent only to generalized-alpha's
/// drift; assemble them), not the caller's initial state.
template <class Result>
using SegmentRun = std::function<Result(const State& start, bool resumed, double t_end,
                                        const TrajectoryObserver& observer)>;

/// result = run(start, false, t_end, ...) and, after each failure at a singular configuration,
/// a generalized-alpha bridge and run(bridge end, true, t_end, ...), as above. The observer sees
/// every output once, in time order. result: the last segment's, with the statistics of all,
/// `passages` listing the bridges; a failure away from a singular configuration, or of a bridge,
/// is returned as it is (its segment's outputs all seen).
template <class Result>
Result withSingularPassages(const Model& model, const AssemblyPlan& plan, const State& start,
                            double t_end, const PassageOptions& o,
                            const TrajectoryObserver& observer, const SegmentRun<Result>& run) {
  // Outputs not yet seen by the observer (at most kDelay, oldest first) and the last one seen.
  constexpr std::size_t kDelay = 2;  // a watch sees a jump split over two outputs two late
  std::deque<State> pending;
  std::optional<State> forwarded;
  State stopped_at;
  bool stopped = false;
  // One branch watch over the whole output, across segments: a segment's own watch is blind
  // for its first outputs, where a resumed run can leave the branch. Restarted from the last
  // outputs seen when a run is taken back.
  std::optional<BranchWatch> watch;
  watch.emplace(model, plan);
  std::deque<State> recent;  // the last outputs seen, oldest first
  std::optional<Status> jump;
  auto forward = [&] {  // the oldest pending output to the observer
    if (observer && !observer(pending.front())) {
      stopped = true;
      stopped_at = pending.front();  // the run ends where the observer stopped it
      return false;
    }
    forwarded = std::move(pending.front());
    pending.pop_front();
    recent.push_back(*forwarded);
    if (recent.size() > 5) recent.pop_front();
    return true;
  };
  auto add = [&](const State& s) {
    if (stopped) return false;
    if (!watch->add(s)) {
      jump = watch->status();
      return false;
    }
    pending.push_back(s);
    return pending.size() <= kDelay || forward();
  };
  auto flush = [&] {
    while (!pending.empty() && !stopped && !jump && forward()) {
    }
    pending.clear();
  };
  // Back to the last output seen (or `fallback`, the segment's start), the watch restarted
  // from the outputs seen before it.
  auto rewind = [&](const State& fallback) {
    // Outputs up to the segment's start came from a finished bridge: seen, not dropped (a
    // segment that failed within kDelay outputs of its start lost the bridge's last output).
    while (!pending.empty() && pending.front().t <= fallback.t && !stopped && forward()) {
    }
    const State from = forwarded && forwarded->t >= fallback.t ? *forwarded : fallback;
    pending.clear();
    jump.reset();
    watch.emplace(model, plan);
    for (const State& seen : recent)
      if (seen.t <= from.t) watch->add(seen);
    return from;
  };
  Index rank = -1;      // C_q's at the start, and its smallest retained pivot: taken at the first
  double margin = 0.0;  // failure (a block-wise rank costs)
  // One bridge from `from` until past `failure` with the pivot above the margin and growing;
  // `end`: its last output.
  auto cross = [&](bool mcs, const State& from, double failure, State& end) {
    double previous = 0.0;
    // pivot: the state's smallest retained pivot where the bridge has it (MCS's sample), else
    // negative (a QRCP of its own).
    auto observe = [&](const State& st, double pivot) {
      if (st.t == from.t) return true;  // seen already
      if (!add(st)) return false;
      const double p = pivot >= 0.0 ? pivot : smallestRetainedPivot(model, plan, st.q, st.t, rank);
      end = st;
      const bool past = st.t > failure && p >= margin && p > previous;
      previous = p;
      return !past;
    };
    // The run's state may drift off C_q v + C_t = 0 (index 1 by up to its projection
    // tolerance): generalized-alpha's first error estimate would take that for a local error.
    // MCS takes the state as it is: it integrates its own minimal coordinates from it, and a
    // projection this close to the crossing is ill-conditioned (IDA at rtol 1e-8 on a spinning
    // 10 x 10 merged lattice: the assembly moved q and v by 5.4e-4 and the cells out of
    // parallel; 1.2e-6 rad at 5 s without it, 7.5e-5 with it).
    State start = from;
    if (!mcs) {
      InitialStateResult consistent = assembleInitialState(model, plan, from);
      if (consistent.status.ok()) start = std::move(consistent.state);
    }
    if (mcs) {
      McsOptions m;
      m.t_end = t_end;
      m.output_interval = o.output_interval;
      m.rtol = o.mcs_tolerance;
      m.atol = 1e-2 * o.mcs_tolerance;
      m.max_coordinates = kDenseRankMaxCoordinates;
      m.assemble_initial_state = false;
      return integrateMcs(model, plan, start, m,
                          [&](const State& st, const McsSample& x) {
                            return observe(st, x.smallestRetainedPivot(rank));
                          })
          .dynamics;
    }
    GeneralizedAlphaOptions g;
    g.t_end = t_end;
    g.output_interval = o.output_interval;
    g.error_tolerance = o.bridge_tolerance;
    if (o.output_interval > 0.0) g.step = std::min(g.step, o.output_interval);
    return integrateGeneralizedAlpha(model, plan, start, g,
                                     [&](const State& st) { return observe(st, -1.0); });
  };
  DynamicsStats stats;
  std::vector<SingularPassage> passages;
  bool reselected = false;  // the current segment resumed after a new selection of rows
  State s = start;
  bool resumed = false;
  for (;;) {
    const double t0 = s.t;
    Result r = run(s, resumed, t_end, [&](const State& st) {
      return (resumed && st.t == t0) || add(st);  // a resumed start was the bridge's last output
    });
    addStats(stats, r.stats);
    if (jump && !stopped) {
      r.status = *jump;  // the states after the jump were never seen
      if (!pending.empty()) r.state = pending.back();
    }
    auto finish = [&](Result& out) {
      out.stats = stats;
      out.passages = passages;
      if (stopped) {
        out.status = Status::success();
        out.state = stopped_at;
        out.worst_rows.clear();
      }
      return out;
    };
    if (stopped || r.status.ok() || r.status.code == Status::Code::kInterrupted) {
      flush();
      return finish(r);
    }
    // A failure near a singular configuration: back to the last output seen, and across.
    if (rank < 0)
      margin = o.margin * smallestRetainedPivot(model, plan, start.q, start.t, -1, &rank);
    const double pivot = smallestRetainedPivot(model, plan, r.state.q, r.state.t, rank);
    double pending_pivot = 1.0;
    for (const State& p : pending)
      pending_pivot = std::min(pending_pivot, smallestRetainedPivot(model, plan, p.q, p.t, rank));
    // Away from a singular configuration: a run on a model without its redundant rows can fail
    // because the rows it kept, selected at its start, turned dependent on the way (which rows
    // of a merged lattice's hinges are independent depends on the angle: those selected next to
    // horizontal cranks are not at vertical ones). The run goes back to its last output seen and
    // resumes there, selecting its rows again; not twice in a row (a failure for another reason
    // fails again, and is returned).
    if (std::min(pivot, pending_pivot) >= margin && !r.redundant_rows.empty() && !reselected &&
        forwarded && forwarded->t > s.t && static_cast<int>(passages.size()) < o.max_passages) {
      reselected = true;
      const State from = rewind(s);
      SingularPassage passage;
      passage.from = passage.to = from.t;
      passage.failure = r.state.t;
      passage.why = r.status.message.substr(0, r.status.message.find('\n'));
      passage.by = "a new selection of independent rows";
      passages.push_back(passage);
      s = from;
      resumed = true;
      continue;
    }
    if (std::min(pivot, pending_pivot) >= margin ||
        static_cast<int>(passages.size()) >= o.max_passages) {
      flush();
      if (std::min(pivot, pending_pivot) < margin)
        r.status.message +=
            " (after " + std::to_string(passages.size()) + " singular passages, the most allowed)";
      return finish(r);
    }
    const State from = rewind(s);
    SingularPassage passage;
    passage.from = from.t;
    passage.failure = r.state.t;
    passage.why = r.status.message.substr(0, r.status.message.find('\n'));
    // Across: MCS where the model is dense (fifth order; generalized-alpha's second order set
    // the error of IDA at 1e-10), generalized-alpha where it is not or where MCS fails.
    State end = from;
    passage.by = model.nv <= kDenseRankMaxCoordinates ? "MCS" : "generalized-alpha";
    DynamicsResult bridge = cross(passage.by == "MCS", from, passage.failure, end);
    const auto interrupted = [&] { return bridge.status.code == Status::Code::kInterrupted; };
    if (passage.by == "MCS" && !stopped && !interrupted() && (jump || !bridge.status.ok())) {
      addStats(stats, bridge.stats);
      const State again = rewind(from);
      end = again;
      passage.by = "generalized-alpha";
      bridge = cross(false, again, passage.failure, end);
    }
    addStats(stats, bridge.stats);
    passage.to = end.t;
    passages.push_back(passage);
    if (interrupted() && !stopped) {  // a termination signal during the bridge: stop there
      flush();
      r.status = bridge.status;
      if (end.t > r.state.t) r.state = end;
      return finish(r);
    }
    if ((jump || !bridge.status.ok()) && !stopped) {
      // Not a passage after all (a mechanism driven into a limit position, say): the run's own
      // failure, and how far the bridge got.
      flush();
      const std::string& why = jump ? jump->message : bridge.status.message;
      const State& reached = jump ? end : bridge.state;
      r.status.message += "\n" + passage.by + ", which took over at t = " + std::to_string(from.t) +
                          " s, stopped at t = " + std::to_string(reached.t) +
                          " s too: " + why.substr(0, why.find('\n'));
      if (reached.t > r.state.t) {
        r.state = reached;
        if (!jump && !bridge.worst_rows.empty()) r.worst_rows = bridge.worst_rows;
      }
      return finish(r);
    }
    if (stopped || end.t >= t_end) {
      flush();
      r.status = Status::success();
      r.state = end;
      r.worst_rows.clear();
      return finish(r);
    }
    s = end;
    resumed = true;
    reselected = false;
  }
}

}  // namespace catena
