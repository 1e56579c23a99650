#include "integrators/distributed_dynamics.hpp"

#include <petscsys.h>

#include <memory>

#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "integrators/ida_driver.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/singular_passage.hpp"
#include "parallel/reproducible_sum.hpp"

namespace catena {

IdaResult integrateDistributedIda(const DistributedAssembly& as, const State& initial,
                                  const IdaOptions& o, const TrajectoryObserver& observer) {
  const std::unique_ptr<IdaSystem> system = makeMpiIdaSystem(as, o);
  return runIda(*system, initial, o, observer);
}

Energy distributedEnergy(const DistributedAssembly& as, const State& s) {
  // Each owned body's kinetic and gravity terms, summed exactly over the ranks: the same bits on
  // any rank count. M is block-diagonal, so an owned body's rows of M v hold its own v only.
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  CATENA_CHECK(m.springs.empty() && m.rotational_springs.empty(),
               "distributedEnergy: distributed models have no springs");
  SparseMatrixCSR M = makeBodyMatrix(as.plan());
  assembleMass(m, as.plan(), s.q, M);
  const VecX Mv = M * s.v;
  const Index owned = dm.part().owned_bodies;
  Energy e;
  e.kinetic = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    const Index vo = m.vOffset(b);
    return 0.5 * s.v.segment(vo, m.nv_body).dot(Mv.segment(vo, m.nv_body));
  });
  e.gravity = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    return -m.bodies[b].mass * m.gravity.dot(centreOfMass(m, s.q, b));
  });
  return e;
}

ConstraintDrift distributedConstraintDrift(const DistributedAssembly& as, const State& s) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  SparseMatrixCSR Cq = makeConstraintMatrix(as.plan());
  VecX C(m.nc), Ct(m.nc);
  assembleConstraints(m, as.plan(), s.q, s.t, &C, &Cq);
  assembleConstraintTimeDerivative(m, as.plan(), s.q, s.t, Ct);
  VecX G(m.nc);
  velocityConstraints(m, Cq, s.v, Ct, G.data());  // the same bits on any rank count
  return {dm.maxAbs(C), dm.maxAbs(G)};
}

DistributedDynamicsResult integrateDistributedThroughPassages(
    const Model& model, const AssemblyPlan& plan, const State& start, const IdaOptions& options,
    const TrajectoryObserver& observer, const DistributedSegment& segment) {
  return withSingularPassages<DistributedDynamicsResult>(
      model, plan, start, options.t_end, passageOptions(options.rtol, options.output_interval),
      observer, [&](const State& from, bool resumed, double t_end, const TrajectoryObserver& obs) {
        if (!resumed) return segment(from, t_end, obs);
        // A bridge's end: its velocities drift (the distributed IDA only checks a start).
        const InitialStateResult consistent = assembleInitialState(model, plan, from);
        if (!consistent.status.ok()) {
          DistributedDynamicsResult failed;
          failed.status = consistent.status;
          failed.state = from;
          failed.worst_rows = consistent.worst_rows;
          return failed;
        }
        return segment(consistent.state, t_end, obs);
      });
}

}  // namespace catena
