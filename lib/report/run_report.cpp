#include "report/run_report.hpp"

#include <iomanip>
#include <ostream>
#include <sstream>

#include "io/json_writer.hpp"
#include "kernels/pose.hpp"

namespace catena {
namespace {

bool toGround(const Model& m, const Joint& j) {
  return m.markerBody(j.marker1) == kGround || m.markerBody(j.marker2) == kGround;
}

std::string vec(const Vec3& v, int precision = 6) {
  std::ostringstream os;
  // + 0.0 prints a negative zero as 0
  os << std::setprecision(precision) << "[" << v.x() + 0.0 << ", " << v.y() + 0.0 << ", "
     << v.z() + 0.0 << "]";
  return os.str();
}

/// The "modal" member of the run summary, if there was a modal analysis.
void writeModal(JsonWriter& j, const ModalResult* modal, double modal_seconds) {
  if (modal) {
    j.key("modal").beginObject();
    j.key("ok").value(modal->status.ok()).key("message").value(modal->status.message);
    j.key("method").value(modal->method).key("iterations").value(modal->iterations);
    j.key("damped").value(modal->damped).key("seconds").value(modal_seconds);
    j.key("constraint_scale").value(modal->constraint_scale);
    j.key("degrees_of_freedom").value(static_cast<long>(modal->dof));
    j.key("modes_requested").value(modal->requested);
    j.key("eigenpairs_rejected").value(modal->rejected);
    j.key("note").value(modal->note);
    j.key("modes").beginArray();
    for (const Mode& mo : modal->modes) {
      j.beginObject();
      j.key("s_real").value(mo.s.real()).key("s_imag").value(mo.s.imag());
      j.key("frequency_hz").value(mo.frequency_hz);
      j.key("natural_frequency_hz").value(mo.natural_frequency_hz);
      j.key("damping_ratio").value(mo.damping_ratio).key("residual").value(mo.residual);
      j.key("direction").value(mo.direction).key("nodes").value(mo.nodes);
      j.key("shape_real").array(mo.shape_re).key("shape_imag").array(mo.shape_im);
      j.endObject();
    }
    j.endArray();
    j.endObject();
  }
}

}  // namespace

EquilibriumSummary summarizeEquilibrium(const Model& m, const AssemblyPlan& plan, const State& s) {
  EquilibriumSummary e;
  e.reactions = computeJointReactions(m, plan, s.q, s.t, s.lambda);
  const Vec3 down = m.gravity.norm() > 0.0 ? Vec3(m.gravity.normalized()) : Vec3(0, 0, -1);
  double lowest = -1e300, top = 1e300;
  for (const Joint& j : m.joints) {
    const Vec3 p = markerPosition(m, s.q.data(), j.marker1);
    const double depth = p.dot(down);
    if (depth > lowest) {
      lowest = depth;
      e.lowest_joint = j.name;
      e.lowest_point = p;
    }
    if (toGround(m, j)) top = std::min(top, depth);
  }
  e.sag = top < 1e300 && lowest > -1e300 ? lowest - top : 0.0;
  return e;
}

void printStatics(std::ostream& os, const Model& m, const StaticsResult& r,
                  const EquilibriumSummary& e) {
  os << "statics of '" << m.name << "' (" << m.dimension
     << "D): " << (r.status.ok() ? "converged" : "FAILED") << " after " << r.history.size() - 1
     << " Newton iterations (linear solver: " << r.linear_solver << ")\n";
  os << "  iteration  force residual  position residual  step\n";
  if (!r.redundant_rows.empty()) {
    os << "  redundant constraints: " << r.redundant_rows.size()
       << " rows left out (the reactions below are the minimum-norm set; reactions of redundant "
          "joints are not unique):";
    for (const std::string& row : r.redundant_rows) os << " [" << row << "]";
    os << "\n";
  }
  for (std::size_t i = 0; i < r.history.size(); ++i) {
    const StaticsIteration& h = r.history[i];
    os << "  " << std::setw(9) << i << "  " << std::scientific << std::setprecision(3)
       << std::setw(14) << h.force_residual << "  " << std::setw(17) << h.position_residual << "  "
       << std::defaultfloat << std::setprecision(4) << h.step << "\n";
  }
  os << "  (force residual: the largest over the bodies, each against the forces acting on it;\n"
        "   position residual: the largest over the joints, each against the joint's size, "
        "rotations in rad)\n";
  for (const std::string& w : r.warnings) os << "warning: " << w << "\n";
  if (!r.status.ok()) {
    os << "error: " << r.status.message << "\n  largest constraint residuals:\n";
    for (const std::string& w : r.worst_rows) os << "    " << w << "\n";
    return;
  }
  os << std::setprecision(6) << "equilibrium\n  lowest joint point: '" << e.lowest_joint << "' at "
     << vec(e.lowest_point) << " m, " << e.sag << " m below the highest support\n";
  os << "reactions at the supports (force and torque the joint exerts on its body, world basis)\n";
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    if (!toGround(m, m.joints[j]) && m.joints.size() > 12) continue;
    os << "  " << std::left << std::setw(16) << m.joints[j].name << std::right
       << " F = " << vec(e.reactions[j].force_world)
       << " N   M = " << vec(e.reactions[j].torque_world) << " N m\n";
  }
}

void printModes(std::ostream& os, const Model& m, const ModalResult& r) {
  os << "modes of '" << m.name << "' at equilibrium (" << (r.damped ? "damped" : "undamped") << "; "
     << r.method << ", " << r.iterations << " iterations)\n";
  if (!r.status.ok()) os << "error: " << r.status.message << "\n";
  if (!r.note.empty()) os << "note: " << r.note << "\n";
  if (r.modes.empty()) return;
  os << "  mode  frequency [Hz]  s [rad/s]                    damping ratio  direction     "
        "nodes  residual\n";
  for (std::size_t k = 0; k < r.modes.size(); ++k) {
    const Mode& mo = r.modes[k];
    std::ostringstream s;
    s << std::setprecision(6) << mo.s.real() + 0.0 << (mo.s.imag() < 0 ? " - " : " + ")
      << std::abs(mo.s.imag()) << "i";
    os << "  " << std::setw(4) << k + 1 << "  " << std::setw(14) << std::setprecision(6)
       << mo.frequency_hz << "  " << std::left << std::setw(27) << s.str() << "  " << std::setw(13)
       << mo.damping_ratio << "  " << std::setw(12) << mo.direction << std::right << "  "
       << std::setw(5) << mo.nodes << "  " << std::scientific << std::setprecision(1) << mo.residual
       << std::defaultfloat << "\n";
  }
}

void writeRunJson(std::ostream& os, const std::string& input, const Model& m,
                  const StaticsResult& st, const EquilibriumSummary& e, const ModalResult* modal,
                  double statics_seconds, double modal_seconds) {
  JsonWriter j(os);
  j.beginObject();
  j.key("input").value(input);
  j.key("units").value(kJsonUnits);
  j.key("model").beginObject();
  j.key("name").value(m.name).key("dimension").value(m.dimension);
  j.key("bodies").value(static_cast<long>(m.bodies.size()));
  j.key("joints").value(static_cast<long>(m.joints.size()));
  j.key("n").value(static_cast<long>(m.nq)).key("n_v").value(static_cast<long>(m.nv));
  j.key("m").value(static_cast<long>(m.nc));
  j.endObject();
  j.key("statics").beginObject();
  j.key("converged").value(st.status.ok());
  j.key("message").value(st.status.message);
  j.key("iterations").value(static_cast<long>(st.history.size()) - 1);
  j.key("linear_solver").value(st.linear_solver);
  j.key("seconds").value(statics_seconds);
  j.key("force_scale_N").value(st.force_scale).key("length_scale_m").value(st.length_scale);
  j.key("residuals")
      .value(
          "force: max over bodies of |f - C_q^T lambda| / the forces on the body; position: max "
          "over joints of |C| / the joint's size (rotations in rad)");
  j.key("history").beginArray();
  for (const StaticsIteration& h : st.history) {
    j.beginObject();
    j.key("force_residual").value(h.force_residual);
    j.key("position_residual").value(h.position_residual);
    j.key("step").value(h.step);
    j.endObject();
  }
  j.endArray();
  j.key("worst_rows").beginArray();
  for (const std::string& w : st.worst_rows) j.value(w);
  j.endArray();
  j.key("warnings").beginArray();
  for (const std::string& w : st.warnings) j.value(w);
  j.endArray();
  j.key("redundant_rows").array(st.redundant_rows);
  if (!st.redundant_rows.empty())
    j.key("multipliers")
        .value(
            "the minimum-norm multipliers of every row, with the generalized constraint force of "
            "the "
            "model without the redundant rows (reactions of redundant joints are not unique)");
  // A failed run's last iterate is no equilibrium: its sag and reactions would mislead.
  j.key("state").value(st.status.ok() ? "equilibrium" : "last iterate (not an equilibrium)");
  j.key("q").array(st.state.q).key("lambda").array(st.state.lambda);
  if (!st.status.ok()) {
    j.endObject();
    writeModal(j, modal, modal_seconds);
    j.endObject();
    os << "\n";
    return;
  }
  j.key("lowest_joint").value(e.lowest_joint);
  j.key("lowest_point_m").array(e.lowest_point);
  j.key("sag_m").value(e.sag);
  j.key("reactions").beginArray();
  for (std::size_t k = 0; k < e.reactions.size(); ++k) {
    const JointReaction& r = e.reactions[k];
    j.beginObject();
    j.key("joint").value(m.joints[k].name);
    j.key("force_world_N").array(r.force_world).key("torque_world_Nm").array(r.torque_world);
    j.key("force_joint_N").array(r.force_joint).key("torque_joint_Nm").array(r.torque_joint);
    j.endObject();
  }
  j.endArray();
  j.endObject();
  writeModal(j, modal, modal_seconds);
  j.endObject();
  os << "\n";
}

}  // namespace catena
