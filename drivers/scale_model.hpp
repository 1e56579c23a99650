#pragma once
/// @file scale_model.hpp
/// catena-scale's family "model": a mechanism file loaded whole on every rank and partitioned
/// (parallel/model_partition.hpp), and the physical checks that hold for any model: the
/// supports carry the weight. docs/scaling.md, "Any model".

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "io/json_writer.hpp"
#include "mobility/independent_rows.hpp"
#include "model/model.hpp"
#include "parallel/distributed_assembly.hpp"
#include "parallel/lattice_part.hpp"
#include "statics/statics.hpp"

namespace catena {

/// The whole model of a mechanism file, read by every rank (io/yaml_loader.hpp), and the wall
/// seconds the slowest rank took. Collective: if any rank fails (no such file, a bad file, no
/// bodies), every rank throws catena::Error naming the file and why (rank 0's reason, or the
/// rank that failed). The loader's warnings go to stderr on rank 0, after `prefix`.
struct InputModel {
  Model model;
  double load_seconds = 0.0;
};
InputModel loadInputModel(const std::string& path, const std::string& prefix = "catena-scale: ");

/// Runs `step` on every rank; if it throws catena::Error on any, every rank throws: rank 0 its
/// own message, or that the lowest rank that failed did, naming `path` (prefixed "input 'PATH':
/// " when the message does not name it). Collective.
void onEveryRankAlike(const std::string& path, const std::function<void()>& step);

/// Where the bodies and joints of the partitioned model went: this rank's local body b is body
/// body[b] of the whole model (owned bodies, then ghosts), its local joint j is joint[j].
struct InputNumbering {
  std::vector<Index> body, joint;
};

/// This rank's part of `whole` (partitionModel) with the partitioner's name; numbering (if not
/// null) receives where the whole model's bodies and joints went. Throws catena::Error on every
/// rank alike, naming `path` and why, for a model the distributed analyses do not take
/// (springs, fewer bodies than ranks). reproducible: contiguous ranges of bodies and the halo
/// (partitionModel), for dynamics bitwise the same on any rank count. Collective.
DistributedLatticePart partitionInputModel(const Model& whole, const std::string& path,
                                           InputNumbering* numbering = nullptr,
                                           bool reproducible = false);

/// The input model without the constraint rows that the QRCP of C_q^T at its initial state
/// finds redundant (mobility/independent_rows.hpp, as `catena simulate` selects them): the
/// distributed saddle-point matrices are singular on dependent rows. Deterministic, so every
/// rank selects the same rows from its copy of `whole`; not collective. dropped empty: none.
IndependentRows independentInputRows(const Model& whole);

/// The state of `whole` gathered from every rank's local state s of its part (numbering from
/// partitionInputModel): q and v of every body, lambda of every row, t. The same bits on every
/// rank (each entry has one owner, the others add zeros). Collective.
State gatherWholeState(const DistributedModel& dm, const InputNumbering& numbering,
                       const Model& whole, const State& s);

/// Mass of the whole distributed model, kg: an exact sum over the owned bodies, the same bits
/// on any rank count. Collective.
double totalMass(const DistributedModel& dm);

/// The force the ground joints exert on the bodies at (q, t, lambda) along -gravity (world z
/// without gravity), N, summed over every rank's joints: at an equilibrium under gravity alone,
/// the weight. A joint counts when one of its markers is on the ground. Collective.
double groundSupportForce(const DistributedAssembly& as, const VecX& q, double t,
                          const VecX& lambda);

/// Writes "redundant_rows", the rows of `whole` that a run left out (rows.dropped_names), and if
/// there are any, "time_selection_s" (given), "multipliers" (where the support reactions come
/// from) and "support_reactions_n" from the minimum-norm multipliers of every row
/// (minimumNormMultipliers, on rank 0, "time_minimum_norm_s") at w, a state of rows.model
/// gathered from the ranks (gatherWholeState) (writeWholeSupportReactions; plan: whole's,
/// non-null when rows are left out). Returns whether it wrote the support reactions (false:
/// no rows left out; the caller writes them). Not collective.
bool writeRedundantRows(JsonWriter& j, const Model& whole, const AssemblyPlan* plan,
                        const IndependentRows& rows, const State& w, double selection_seconds);

/// How many ground joints writeSupportReactions reports.
inline constexpr std::size_t kSupportReactions = 16;

/// Writes "support_reactions_n": {joint: [x, y, z], ...}, the reactions (N, world basis, on
/// the joint's body 1, as `catena statics` reports them) of the first kSupportReactions joints
/// of `whole` that have a marker on the ground, at (q, t, lambda). Collective.
void writeSupportReactions(JsonWriter& j, const DistributedAssembly& as, const Model& whole,
                           const VecX& q, double t, const VecX& lambda);

/// As writeSupportReactions, from a state (q, t, lambda: every row of `whole`) of the whole
/// model `whole` with its plan. Not collective.
void writeWholeSupportReactions(JsonWriter& j, const Model& whole, const AssemblyPlan& plan,
                                const VecX& q, double t, const VecX& lambda);

/// The check values of a model's equilibrium r (writes them into j): the statics' own residuals
/// (its convergence test, per body and per joint), the lowest marker, the support reactions
/// (writeSupportReactions; `whole`: the model partitioned), and, for a model loaded
/// by gravity alone, the ground joints' support against the weight (relative residual at most
/// `weight_tolerance`; a model with loads or without gravity has no such check: null). Returns
/// whether the statics converged and the weight check passed. reactions false: the caller wrote
/// the support reactions (writeRedundantRows). Collective.
bool modelStaticsChecks(JsonWriter& j, const DistributedAssembly& as, const Model& whole,
                        const StaticsResult& r, double weight_tolerance, bool reactions = true);

}  // namespace catena
