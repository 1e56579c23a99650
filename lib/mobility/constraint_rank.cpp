#include "mobility/constraint_rank.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <sstream>

#include "assembly/assemble.hpp"
#include "core/check.hpp"

namespace catena {

std::vector<Index> ConstraintRank::redundantRows() const {
  return {pivot_rows.begin() + rank, pivot_rows.end()};
}

double ConstraintRank::smallestRetained() const {
  return rank > 0 ? pivots(rank - 1) : 0.0;
}

double ConstraintRank::largestDropped() const {
  return rank < pivots.size() ? pivots(rank) : 0.0;
}

ConstraintRank analyzeConstraintRank(const MatX& A, double tolerance) {
  CATENA_CHECK(tolerance > 0.0 && tolerance < 1.0,
               "the rank tolerance must be in (0, 1), got " << tolerance);
  ConstraintRank out;
  out.m = A.rows();
  out.n = A.cols();
  out.tolerance = tolerance;
  const Index k = std::min(out.m, out.n);
  if (k == 0) {
    out.tangent = MatX::Identity(out.n, out.n);
    out.normal = MatX(out.n, 0);
    for (Index i = 0; i < out.m; ++i) out.pivot_rows.push_back(i);
    return out;
  }
  const Eigen::ColPivHouseholderQR<MatX> qr(A.transpose());
  const VecX diag = qr.matrixR().diagonal().head(k).cwiseAbs();
  out.largest_pivot = diag.maxCoeff();
  out.pivots = out.largest_pivot > 0.0 ? VecX(diag / out.largest_pivot) : VecX(VecX::Zero(k));
  // Column pivoting keeps |R_ii| non-increasing, so the rank is where it first falls below.
  while (out.rank < k && out.pivots(out.rank) > tolerance) ++out.rank;
  const auto& perm = qr.colsPermutation().indices();
  out.pivot_rows.assign(perm.data(), perm.data() + perm.size());
  const MatX Q = qr.householderQ() * MatX::Identity(out.n, out.n);
  out.normal = Q.leftCols(out.rank);
  out.tangent = Q.rightCols(out.n - out.rank);
  return out;
}

ConstraintRank analyzeConstraintRank(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                     double t, double tolerance) {
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  assembleConstraints(model, plan, q, t, nullptr, &Cq);
  return analyzeConstraintRank(MatX(Cq), tolerance);
}

std::string diagnoseSingularSaddlePoint(const Model& model, const AssemblyPlan& plan, const VecX& q,
                                        double t) {
  std::ostringstream os;
  if (model.nv > kMaxDiagnosedCoordinates) {
    os << "either constraints are redundant (`catena mobility` lists them) or a free motion "
          "carries no mass";
    return os.str();
  }
  const ConstraintRank r = analyzeConstraintRank(model, plan, q, t);
  if (r.rank == r.m) {
    os << "C_q has full rank (" << r.rank << " of " << r.m
       << " rows), so a free motion carries no mass or inertia: give every body mass and "
          "inertia in the directions its joints leave free";
    return os.str();
  }
  const std::vector<Index> rows = r.redundantRows();
  os << "the constraints are redundant: C_q has rank " << r.rank << " of " << r.m
     << " rows, and these depend on the others:";
  for (std::size_t k = 0; k < std::min<std::size_t>(rows.size(), 5); ++k)
    os << (k ? ", " : " ") << "[" << model.rowName(rows[k]) << "]";
  if (rows.size() > 5) os << " and " << rows.size() - 5 << " more";
  os << " (`catena mobility` lists them all). Generalized-alpha and IDA need independent "
        "constraints: leave the redundant rows out (";
  const std::vector<std::string> edits = redundantRowEdits(model, rows);
  for (std::size_t k = 0; k < std::min<std::size_t>(edits.size(), 5); ++k)
    os << (k ? "; " : "") << edits[k];
  if (edits.size() > 5) os << "; and so for " << edits.size() - 5 << " more joints";
  os << "), or integrate with --formulation mcs, which projects them away";
  return os.str();
}

std::vector<std::string> redundantRowEdits(const Model& model, const std::vector<Index>& rows) {
  static const char* k3[] = {"x", "y", "z", "Rx", "Ry", "Rz"};
  static const char* k2[] = {"x", "y", "theta"};
  const char* const* axis_name = model.dimension == 3 ? k3 : k2;
  // The rows to leave out, joint by joint (in the order the joints first appear in `rows`).
  std::vector<Index> joints;
  std::vector<RowMask> drop;
  for (Index row : rows) {
    const Index j = model.jointOfRow(row);
    const int axis = model.rowAxis(row);
    const auto at = std::find(joints.begin(), joints.end(), j);
    if (at == joints.end()) {
      joints.push_back(j);
      drop.push_back(RowMask(1u << axis));
    } else {
      drop[at - joints.begin()] |= RowMask(1u << axis);
    }
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const Joint& J = model.joints[joints[i]];
    const RowMask keep = J.mask & ~drop[i];
    std::ostringstream os;
    if (keep == 0 || J.type == JointType::kDistance) {
      os << "remove joint '" << J.name << "' (" << jointTypeName(J.type)
         << "), whose rows all depend on the others";
      out.push_back(os.str());
      continue;
    }
    os << (J.type == JointType::kLock ? "give joint '" : "replace joint '") << J.name << "' ("
       << jointTypeName(J.type) << ") " << (J.type == JointType::kLock ? "" : "by a `lock` with ")
       << "`mask: [";
    for (int a = 0; a < model.rows_per_joint; ++a) os << (a ? ", " : "") << ((keep >> a) & 1u);
    os << "]`" << (J.motion.active ? " and the same `motion`" : "") << ", which leaves out its "
       << (activeRowCount(drop[i]) > 1 ? "redundant rows" : "redundant row");
    for (int a = 0; a < model.rows_per_joint; ++a)
      if (drop[i] & (1u << a)) os << " " << axis_name[a];
    out.push_back(os.str());
  }
  return out;
}

}  // namespace catena
