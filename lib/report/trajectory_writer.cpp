#include "report/trajectory_writer.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>

#include "analysis/energy.hpp"
#include "analysis/reactions.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"

namespace catena {
namespace {

bool endsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

TrajectoryWriter::TrajectoryWriter(const std::string& path, const Model& model,
                                   const AssemblyPlan& plan, const TrajectoryColumns& columns)
    : model_(model),
      plan_(plan),
      columns_(columns),
      out_(path),
      binary_(endsWith(path, ".bin")),
      Cq_(makeConstraintMatrix(plan)),
      C_(model.nc),
      Ct_(model.nc) {
  names_.push_back("t_s");
  const bool two_d = model.dimension == 2;
  for (Index b : columns_.bodies) {
    const std::string n = model.bodies[b].name + ".";
    // The mixed basis (NOTATION.md): position and linear velocity of the body frame's origin
    // in the world basis, the angular velocity in the body basis (2D: about z, both alike).
    if (two_d) {
      for (const char* c : {"x_m_world", "y_m_world", "theta_rad_world", "vx_m/s_world",
                            "vy_m/s_world", "omega_rad/s_world"})
        names_.push_back(n + c);
    } else {
      for (const char* c :
           {"x_m_world", "y_m_world", "z_m_world", "qw_body_to_world", "qx_body_to_world",
            "qy_body_to_world", "qz_body_to_world", "vx_m/s_world", "vy_m/s_world", "vz_m/s_world",
            "wx_rad/s_body", "wy_rad/s_body", "wz_rad/s_body"})
        names_.push_back(n + c);
    }
  }
  for (Index j : columns_.joints) {
    // The reaction on B1 at F1's origin, in the basis of the joint's marker2 F2
    // (analysis/reactions.hpp: JointReaction::force_joint, torque_joint).
    const std::string n = model.joints[j].name + ".";
    for (const char* c : {"Fx_N_F2", "Fy_N_F2", "Fz_N_F2", "Mx_Nm_F2", "My_Nm_F2", "Mz_Nm_F2"})
      names_.push_back(n + c);
  }
  if (columns_.energy)
    for (const char* c : {"kinetic_J", "potential_J", "total_J"}) names_.push_back(c);
  if (columns_.drift)
    for (const char* c : {"position_drift_m_or_rad", "velocity_drift_m/s_or_rad/s"})
      names_.push_back(c);
  row_.resize(names_.size());

  std::ostream& os = out_.stream();
  if (binary_) {
    os << "CATENA-TRAJECTORY 1\n" << names_.size() << "\n";
    for (const std::string& n : names_) os << n << "\n";
  } else {
    for (std::size_t k = 0; k < names_.size(); ++k) os << (k ? "," : "") << names_[k];
    os << "\n" << std::setprecision(std::numeric_limits<double>::max_digits10);
  }
  out_.check();
}

void TrajectoryWriter::write(const State& s) {
  std::size_t k = 0;
  row_[k++] = s.t;
  for (Index b : columns_.bodies) {
    const Index qo = model_.qOffset(b), vo = model_.vOffset(b);
    for (int i = 0; i < model_.nq_body; ++i) row_[k++] = s.q(qo + i);
    for (int i = 0; i < model_.nv_body; ++i) row_[k++] = s.v(vo + i);
  }
  if (!columns_.joints.empty()) {
    const std::vector<JointReaction> r = computeJointReactions(model_, plan_, s.q, s.t, s.lambda);
    for (Index j : columns_.joints) {
      for (int i = 0; i < 3; ++i) row_[k++] = r[j].force_joint(i);
      for (int i = 0; i < 3; ++i) row_[k++] = r[j].torque_joint(i);
    }
  }
  if (columns_.energy) {
    const Energy e = computeEnergy(model_, plan_, s);
    max_kinetic_ = std::max(max_kinetic_, e.kinetic);
    row_[k++] = e.kinetic;
    row_[k++] = e.gravity + e.springs;
    row_[k++] = e.total();
  }
  if (columns_.drift) {
    assembleConstraints(model_, plan_, s.q, s.t, &C_, &Cq_);
    assembleConstraintTimeDerivative(model_, plan_, s.q, s.t, Ct_);
    const double p = model_.nc ? C_.cwiseAbs().maxCoeff() : 0.0;
    const double v = model_.nc ? (Cq_ * s.v + Ct_).cwiseAbs().maxCoeff() : 0.0;
    max_position_drift_ = std::max(max_position_drift_, p);
    max_velocity_drift_ = std::max(max_velocity_drift_, v);
    row_[k++] = p;
    row_[k++] = v;
  }
  std::ostream& os = out_.stream();
  if (binary_) {
    os.write(reinterpret_cast<const char*>(row_.data()),
             static_cast<std::streamsize>(row_.size() * sizeof(double)));
  } else {
    for (std::size_t i = 0; i < row_.size(); ++i) os << (i ? "," : "") << row_[i];
    os << "\n";
  }
  out_.check();
}

}  // namespace catena
