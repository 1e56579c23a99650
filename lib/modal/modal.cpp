// solveModal: the one modal analysis (modal_analysis.cpp) on one Model, PETSC_COMM_SELF.
#include "modal/modal.hpp"

#include <numeric>

#include "assembly/assemble.hpp"
#include "modal/modal_system.hpp"

namespace catena {
ModalResult solveModal(const Model& m, const AssemblyPlan& plan, const State& eq,
                       const ModalOptions& o) {
  const double start = MPI_Wtime();
  SparseMatrixCSR Cq = makeConstraintMatrix(plan), K = makeBodyMatrix(plan),
                  D = makeBodyMatrix(plan), M = makeBodyMatrix(plan);
  assembleConstraints(m, plan, eq.q, eq.t, nullptr, &Cq);
  assembleForceJacobians(m, plan, eq.q, eq.v, eq.t, nullptr, K, D);
  assembleMass(m, plan, eq.q, M);
  if (o.constraint_stiffness) {
    SparseMatrixCSR Kc = makeBodyMatrix(plan);
    assembleConstraintStiffness(m, plan, eq.q, eq.t, eq.lambda, Kc);
    values(K) += values(Kc);
  }
  ModalSystem sys;
  sys.comm = MPI_COMM_SELF;
  sys.model = &m;
  sys.owned_bodies = static_cast<Index>(m.bodies.size());
  sys.global_nv = m.nv;
  sys.q = &eq.q;
  sys.K = &K;
  sys.D = &D;
  sys.M = &M;
  sys.Cq = &Cq;
  sys.max_k = maxAbsEntry(K, K.rows());
  sys.max_d = maxAbsEntry(D, D.rows());
  sys.max_m = maxAbsEntry(M, M.rows());
  sys.max_cq = maxAbsEntry(Cq, Cq.rows());
  // Undamped: (phi, lambda); damped: (phi, s phi, lambda).
  const Index nv = m.nv, nc = m.nc;
  PencilLayout& u = sys.undamped;
  u.size = nv + nc;
  u.phi.resize(nv);
  std::iota(u.phi.begin(), u.phi.end(), 0);
  u.rows.resize(nc);
  std::iota(u.rows.begin(), u.rows.end(), nv);
  PencilLayout& d = sys.damped;
  d.size = 2 * nv + nc;
  d.phi = u.phi;
  d.v.resize(nv);
  std::iota(d.v.begin(), d.v.end(), nv);
  d.rows.resize(nc);
  std::iota(d.rows.begin(), d.rows.end(), 2 * nv);
  sys.degrees_of_freedom = [&Cq] { return degreesOfFreedom(Cq); };
  return computeModes(sys, o, start);
}

}  // namespace catena
