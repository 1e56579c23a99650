#include "io/report.hpp"

#include <chrono>
#include <iomanip>
#include <map>
#include <ostream>

#include "assembly/assemble.hpp"
#include "model/state.hpp"

namespace catena {
namespace {

/// Largest |x_i| and its index (-1 for an empty vector).
std::pair<double, Index> worst(const VecX& x) {
  Index at = -1;
  double w = 0.0;
  for (Index i = 0; i < x.size(); ++i)
    if (at < 0 || std::abs(x(i)) > w) {
      w = std::abs(x(i));
      at = i;
    }
  return {w, at};
}

}  // namespace

AssemblyReport computeAssemblyReport(const Model& model) {
  AssemblyReport r;
  const AssemblyPlan plan = buildAssemblyPlan(model);
  const State s = initialState(model);
  VecX C(model.nc), Ct(model.nc);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan), Kc = makeBodyMatrix(plan);
  assembleConstraints(model, plan, s.q, s.t, &C, &Cq);
  assembleConstraintTimeDerivative(model, plan, s.q, s.t, Ct);
  const VecX vel = Cq * s.v + Ct;
  const auto [wc, ic] = worst(C);
  const auto [wv, iv] = worst(vel);
  r.max_position_violation = wc;
  r.max_velocity_violation = wv;
  if (ic >= 0) r.worst_position_row = model.rowName(ic);
  if (iv >= 0) r.worst_velocity_row = model.rowName(iv);
  r.cq_rows = Cq.rows();
  r.cq_cols = Cq.cols();
  r.cq_nonzeros = Cq.nonZeros();
  r.body_matrix_nonzeros = Kc.nonZeros();
  r.joint_colours = static_cast<int>(plan.joint_colours.size());
  for (const Body& b : model.bodies) r.total_mass += b.mass;
  // Best of a few refills: a first indication of cost (benchmarks/ has the real measurements).
  const VecX lambda = VecX::Ones(model.nc);
  r.refill_seconds = 1e300;
  for (int k = 0; k < 5; ++k) {
    const auto t0 = std::chrono::steady_clock::now();
    assembleConstraintJacobianAndStiffness(model, plan, s.q, s.t, lambda, Cq, Kc);
    const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
    r.refill_seconds = std::min(r.refill_seconds, dt.count());
  }
  return r;
}

void printModelSummary(std::ostream& os, const Model& m) {
  std::map<std::string, int> by_type;
  for (const Joint& j : m.joints) ++by_type[std::string(jointTypeName(j.type))];
  int point_masses = 0;
  for (const Body& b : m.bodies)
    point_masses += m.dimension == 3 ? b.isPointMass() : b.inertia(2, 2) == 0.0;
  auto row = [&](const std::string& key) -> std::ostream& {
    return os << "  " << std::left << std::setw(14) << key;
  };
  os << "mechanism '" << m.name << "' (" << m.dimension << "D, SI units)\n";
  row("bodies") << m.bodies.size();
  if (point_masses) os << " (" << point_masses << " point masses)";
  os << "\n";
  row("markers") << m.markers.size() << "\n";
  row("joints") << m.joints.size();
  if (!by_type.empty()) {
    os << " (";
    bool first = true;
    for (const auto& [type, count] : by_type) {
      os << (first ? "" : ", ") << count << " " << type;
      first = false;
    }
    os << ")";
  }
  os << "\n";
  row("gravity") << "[" << m.gravity.x() << ", " << m.gravity.y() << ", " << m.gravity.z()
                 << "] m/s^2\n";
  row("forces") << m.loads.size() << " loads, " << m.springs.size() << " springs, "
                << m.rotational_springs.size() << " rotational springs\n";
  row("coordinates") << "n = " << m.nq << " positions, n_v = " << m.nv << " velocities\n";
  row("constraints") << "m = " << m.nc << " rows\n";
  row("DOF estimate") << m.dofEstimate()
                      << " (n_v - m, Gruebler; redundant rows are not detected here)\n";
}

void printAssemblyReport(std::ostream& os, const AssemblyReport& r) {
  auto row = [&](const std::string& key) -> std::ostream& {
    return os << "  " << std::left << std::setw(14) << key;
  };
  os << "assembly at the initial state\n";
  row("total mass") << r.total_mass << " kg\n";
  row("|C|max") << std::scientific << std::setprecision(3) << r.max_position_violation;
  if (!r.worst_position_row.empty()) os << " at " << r.worst_position_row;
  os << "\n";
  row("|C_q v+C_t|") << r.max_velocity_violation;
  if (!r.worst_velocity_row.empty()) os << " at " << r.worst_velocity_row;
  os << std::defaultfloat << std::setprecision(6) << "\n";
  row("C_q") << r.cq_rows << " x " << r.cq_cols << ", " << r.cq_nonzeros << " nonzeros\n";
  row("M, D, K, K_c") << r.cq_cols << " x " << r.cq_cols << ", " << r.body_matrix_nonzeros
                      << " nonzeros (one shared pattern)\n";
  row("refill") << "C_q + K_c in " << r.refill_seconds * 1e6 << " us (" << r.joint_colours
                << " joint colours)\n";
}

void printTerseCheck(std::ostream& os, const Model& m, const AssemblyReport& r) {
  os << "name " << m.name << "\n"
     << "dimension " << m.dimension << "\n"
     << "bodies " << m.bodies.size() << "\n"
     << "joints " << m.joints.size() << "\n"
     << "forces " << m.loads.size() + m.springs.size() + m.rotational_springs.size() << "\n"
     << "n " << m.nq << "\n"
     << "n_v " << m.nv << "\n"
     << "m " << m.nc << "\n"
     << "dof_estimate " << m.dofEstimate() << "\n"
     << "positions_assembled " << (r.max_position_violation <= kAssembledTolerance ? "yes" : "no")
     << "\n"
     << "velocities_assembled " << (r.max_velocity_violation <= kAssembledTolerance ? "yes" : "no")
     << "\n";
}

}  // namespace catena
