#include "scale_model.hpp"

#include <mpi.h>

#include <cmath>
#include <iostream>
#include <vector>

#include "analysis/reactions.hpp"
#include "assembly/plan.hpp"
#include "core/check.hpp"
#include "io/yaml_loader.hpp"
#include "model/state.hpp"
#include "parallel/model_partition.hpp"
#include "parallel/reproducible_sum.hpp"
#include "statics/distributed_statics.hpp"

namespace catena {
namespace {

/// The first kSupportReactions joints of `whole` that have a marker on the ground.
std::vector<std::string> supportJoints(const Model& whole) {
  std::vector<std::string> names;
  for (const Joint& joint : whole.joints)
    if (names.size() < kSupportReactions &&
        (whole.markerBody(joint.marker1) == kGround || whole.markerBody(joint.marker2) == kGround))
      names.push_back(joint.name);
  return names;
}

void writeReactions(JsonWriter& j, const std::vector<std::string>& names,
                    const std::vector<double>& forces) {
  j.key("support_reactions_n").beginObject();
  for (std::size_t n = 0; n < names.size(); ++n)
    j.key(names[n]).array(std::vector<double>(forces.begin() + 3 * n, forces.begin() + 3 * n + 3));
  j.endObject();
}

}  // namespace

void onEveryRankAlike(const std::string& path, const std::function<void()>& step) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::string why;
  try {
    step();
  } catch (const Error& e) {
    why = e.what();
  }
  int failed = why.empty() ? ranks : rank, first = ranks;
  MPI_Allreduce(&failed, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == ranks) return;
  if (why.empty()) why = "failed on rank " + std::to_string(first);
  if (why.find(path) == std::string::npos) why = "input '" + path + "': " + why;
  throw Error(why);
}

InputModel loadInputModel(const std::string& path, const std::string& prefix) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  InputModel in;
  onEveryRankAlike(path, [&] {
    LoadedInput loaded = loadMechanismFile(path);
    requireBodies(loaded.model, path);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      for (const std::string& w : loaded.warnings) std::cerr << prefix << w << "\n";
    in.model = std::move(loaded.model);
  });
  double seconds = MPI_Wtime() - start;
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  in.load_seconds = seconds;
  return in;
}

DistributedLatticePart partitionInputModel(const Model& whole, const std::string& path,
                                           InputNumbering* numbering, bool reproducible) {
  // partitionModel refuses what every rank refuses alike before its first collective call (the
  // springs), or after agreeing (a rank without a body): no rank is left waiting.
  DistributedLatticePart out;
  onEveryRankAlike(path, [&] {
    PartitionedModel pm = partitionModel(whole, "model_", reproducible);
    if (numbering) *numbering = {std::move(pm.body), std::move(pm.joint)};
    out = {std::move(pm.part), pm.partitioner};
  });
  return out;
}

IndependentRows independentInputRows(const Model& whole) {
  const State s = initialState(whole);
  return independentRows(whole, buildAssemblyPlan(whole), s.q, s.t);
}

State gatherWholeState(const DistributedModel& dm, const InputNumbering& numbering,
                       const Model& whole, const State& s) {
  const Model& m = dm.local();
  State w;
  w.t = s.t;
  w.q = VecX::Zero(whole.nq);
  w.v = VecX::Zero(whole.nv);
  w.lambda = VecX::Zero(whole.nc);
  for (Index b = 0; b < dm.part().owned_bodies; ++b) {
    const Index g = numbering.body[b];
    w.q.segment(whole.qOffset(g), m.nq_body) = s.q.segment(m.qOffset(b), m.nq_body);
    w.v.segment(whole.vOffset(g), m.nv_body) = s.v.segment(m.vOffset(b), m.nv_body);
  }
  // A joint's rows in the part are its rows in the whole model, in the same order.
  if (s.lambda.size() == m.nc)
    for (std::size_t j = 0; j < m.joints.size(); ++j) {
      const Index first = m.joint_row_offset[j], rows = m.joint_row_offset[j + 1] - first;
      w.lambda.segment(whole.joint_row_offset[numbering.joint[j]], rows) =
          s.lambda.segment(first, rows);
    }
  for (VecX* x : {&w.q, &w.v, &w.lambda})
    MPI_Allreduce(MPI_IN_PLACE, x->data(), static_cast<int>(x->size()), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
  return w;
}

double totalMass(const DistributedModel& dm) {
  return reproducibleSum(MPI_COMM_WORLD, dm.part().owned_bodies,
                         [&](Index k) { return dm.local().bodies[k].mass; });
}

double groundSupportForce(const DistributedAssembly& as, const VecX& q, double t,
                          const VecX& lambda) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const double g = m.gravity.norm();
  const Vec3 up = g > 0.0 ? Vec3(-m.gravity / g) : Vec3::UnitZ();
  const std::vector<JointReaction> R = computeJointReactions(m, as.plan(), q, t, lambda);
  double support = 0.0;
  for (std::size_t k = 0; k < m.joints.size(); ++k) {
    // The reaction acts on body 1; the ground's joints act on their other body.
    if (m.markerBody(m.joints[k].marker2) == kGround) support += R[k].force_world.dot(up);
    if (m.markerBody(m.joints[k].marker1) == kGround) support -= R[k].force_world.dot(up);
  }
  return dm.sum(support);
}

void writeSupportReactions(JsonWriter& j, const DistributedAssembly& as, const Model& whole,
                           const VecX& q, double t, const VecX& lambda) {
  const std::vector<std::string> names = supportJoints(whole);
  const Model& m = as.distributedModel().local();
  const std::vector<JointReaction> R = computeJointReactions(m, as.plan(), q, t, lambda);
  std::vector<double> forces(3 * names.size(), 0.0);  // each joint's owner fills its entries
  for (std::size_t k = 0; k < m.joints.size(); ++k)
    for (std::size_t n = 0; n < names.size(); ++n)
      if (m.joints[k].name == names[n])
        for (int i = 0; i < 3; ++i) forces[3 * n + i] = R[k].force_world[i];
  MPI_Allreduce(MPI_IN_PLACE, forces.data(), static_cast<int>(forces.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  writeReactions(j, names, forces);
}

void writeWholeSupportReactions(JsonWriter& j, const Model& whole, const AssemblyPlan& plan,
                                const VecX& q, double t, const VecX& lambda) {
  const std::vector<std::string> names = supportJoints(whole);
  const std::vector<JointReaction> R = computeJointReactions(whole, plan, q, t, lambda);
  std::vector<double> forces(3 * names.size(), 0.0);
  for (std::size_t k = 0; k < whole.joints.size(); ++k)
    for (std::size_t n = 0; n < names.size(); ++n)
      if (whole.joints[k].name == names[n])
        for (int i = 0; i < 3; ++i) forces[3 * n + i] = R[k].force_world[i];
  writeReactions(j, names, forces);
}

bool writeRedundantRows(JsonWriter& j, const Model& whole, const AssemblyPlan* plan,
                        const IndependentRows& rows, const State& w, double selection_seconds) {
  j.key("redundant_rows").array(rows.dropped_names);
  if (rows.dropped.empty()) return false;
  j.key("time_selection_s").value(selection_seconds);
  j.key("multipliers")
      .value(std::string("support reactions from the minimum-norm multipliers over every row "
                         "(reactions of redundant joints are not unique)"));
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {  // only rank 0's line is written
    const double start = MPI_Wtime();
    const VecX lambda = minimumNormMultipliers(whole, *plan, rows, w.q, w.t, w.lambda);
    j.key("time_minimum_norm_s").value(MPI_Wtime() - start);
    writeWholeSupportReactions(j, whole, *plan, w.q, w.t, lambda);
  }
  return true;
}

bool modelStaticsChecks(JsonWriter& j, const DistributedAssembly& as, const Model& whole,
                        const StaticsResult& r, double weight_tolerance, bool reactions) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const StaticsIteration last =
      r.history.empty() ? StaticsIteration{NAN, NAN, NAN} : r.history.back();
  j.key("check_force_residual").value(last.force_residual);
  j.key("check_position_residual").value(last.position_residual);
  if (!r.status.ok()) j.key("worst_rows").array(r.worst_rows);
  j.key("warnings").array(r.warnings);
  j.key("lowest_point_m").value(lowestMarkerHeight(dm, r.state.q));
  if (reactions) writeSupportReactions(j, as, whole, r.state.q, 0.0, r.state.lambda);
  const double support = groundSupportForce(as, r.state.q, 0.0, r.state.lambda);
  const double weight = totalMass(dm) * m.gravity.norm();
  // Loads would enter the balance with their own directions: no weight check for them (nor
  // without weight).
  const bool checked = dm.sum(static_cast<double>(m.loads.size())) == 0.0 && weight > 0.0;
  const double residual = checked ? std::abs(support - weight) / weight : NAN;
  j.key("ground_reactions_n").value(support).key("weight_n").value(weight);
  j.key("check_weight_residual").value(residual);
  const bool pass = r.status.ok() && (!checked || residual <= weight_tolerance);
  j.key("check_weight_pass").value(pass);
  return pass;
}

}  // namespace catena
