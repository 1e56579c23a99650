/// @file reference_odes.cpp
/// ARKODE (ERKStep) integration of the reference ODEs declared in reference_odes.hpp.

#include "reference_odes.hpp"

#include <arkode/arkode_erkstep.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace catena::reference {
namespace {

// What the C callbacks share with integrateOde: no exception may cross ARKODE, so the RHS
// catches it, keeps the message and returns -1 (unrecoverable).
struct CallbackData {
  const OdeRhs* f = nullptr;
  Eigen::Index n = 0;
  std::string rhs_error;
  std::string arkode_error;
};

int rhsCallback(sunrealtype t, N_Vector y, N_Vector ydot, void* user_data) {
  auto* data = static_cast<CallbackData*>(user_data);
  try {
    const Eigen::VectorXd yv = Eigen::Map<const Eigen::VectorXd>(N_VGetArrayPointer(y), data->n);
    const Eigen::VectorXd f = (*data->f)(t, yv);
    if (f.size() != data->n)
      throw std::runtime_error("the right-hand side returned " + std::to_string(f.size()) +
                               " entries for a state of size " + std::to_string(data->n));
    Eigen::Map<Eigen::VectorXd>(N_VGetArrayPointer(ydot), data->n) = f;
    return 0;
  } catch (const std::exception& e) {
    data->rhs_error = e.what();
  } catch (...) {
    data->rhs_error = "unknown exception in the right-hand side";
  }
  return -1;
}

// Keeps ARKODE's message for the exception instead of printing it to stderr.
void errorCallback(int, const char*, const char* function, char* msg, void* user_data) {
  auto* data = static_cast<CallbackData*>(user_data);
  data->arkode_error = std::string(function) + ": " + msg;
}

struct ContextDeleter {
  void operator()(SUNContext ctx) const { SUNContext_Free(&ctx); }
};
struct VectorDeleter {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct ErkDeleter {
  void operator()(void* mem) const { ERKStepFree(&mem); }
};

void checkFlag(int flag, const char* call, const CallbackData& data) {
  if (flag >= 0) return;
  std::ostringstream os;
  char* name = ERKStepGetReturnFlagName(flag);  // malloc'ed by ARKODE
  os << "ARKODE " << call << " failed with " << (name ? name : "an unknown flag") << " (" << flag
     << ")";
  std::free(name);
  if (!data.arkode_error.empty()) os << "; " << data.arkode_error;
  if (!data.rhs_error.empty()) os << "; right-hand side: " << data.rhs_error;
  throw std::runtime_error(os.str());
}

ARKODE_ERKTableID tableId(ErkTable table) {
  switch (table) {
    case ErkTable::kDormandPrince45:
      return ARKODE_DORMAND_PRINCE_7_4_5;
    case ErkTable::kFehlberg78:
      return ARKODE_FEHLBERG_13_7_8;
  }
  throw std::invalid_argument("integrateOde: unknown ERK table");
}

}  // namespace

Eigen::MatrixXd integrateOde(const OdeRhs& f, double t0, const Eigen::VectorXd& y0,
                             const std::vector<double>& times, const OdeOptions& options) {
  const Eigen::Index n = y0.size();
  if (n == 0) throw std::invalid_argument("integrateOde: empty initial state");
  for (std::size_t k = 0; k < times.size(); ++k) {
    const double previous = k == 0 ? t0 : times[k - 1];
    if (!(times[k] >= previous))
      throw std::invalid_argument("integrateOde: output time " + std::to_string(k) + " (" +
                                  std::to_string(times[k]) +
                                  ") is before t0 or the previous output time");
  }

  CallbackData data;
  data.f = &f;
  data.n = n;

  SUNContext raw_ctx = nullptr;
  if (SUNContext_Create(nullptr, &raw_ctx) != 0)
    throw std::runtime_error("integrateOde: SUNContext_Create failed");
  const std::unique_ptr<std::remove_pointer_t<SUNContext>, ContextDeleter> ctx(raw_ctx);
  const std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorDeleter> y(
      N_VNew_Serial(n, raw_ctx));
  if (!y) throw std::runtime_error("integrateOde: N_VNew_Serial failed");
  Eigen::Map<Eigen::VectorXd> ymap(N_VGetArrayPointer(y.get()), n);
  ymap = y0;

  const std::unique_ptr<void, ErkDeleter> mem(ERKStepCreate(rhsCallback, t0, y.get(), raw_ctx));
  if (!mem) throw std::runtime_error("integrateOde: ERKStepCreate failed");
  void* erk = mem.get();
  checkFlag(ERKStepSetUserData(erk, &data), "ERKStepSetUserData", data);
  checkFlag(ERKStepSetErrHandlerFn(erk, errorCallback, &data), "ERKStepSetErrHandlerFn", data);
  checkFlag(ERKStepSStolerances(erk, options.rtol, options.atol), "ERKStepSStolerances", data);
  checkFlag(ERKStepSetTableNum(erk, tableId(options.table)), "ERKStepSetTableNum", data);
  checkFlag(ERKStepSetMaxNumSteps(erk, options.max_steps), "ERKStepSetMaxNumSteps", data);

  Eigen::MatrixXd out(n, static_cast<Eigen::Index>(times.size()));
  double t = t0;
  for (std::size_t k = 0; k < times.size(); ++k) {
    if (times[k] > t) {
      // Stopping exactly at each output keeps the 8th-order accuracy; ARKODE's dense output
      // is a degree <= 5 Hermite interpolant, less accurate than the tolerance asks for.
      checkFlag(ERKStepSetStopTime(erk, times[k]), "ERKStepSetStopTime", data);
      checkFlag(ERKStepEvolve(erk, times[k], y.get(), &t, ARK_NORMAL), "ERKStepEvolve", data);
      t = times[k];
    }
    out.col(static_cast<Eigen::Index>(k)) = ymap;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

PlanarPendulumSolution planarPendulum(double L, double g, double theta0, double omega0,
                                      const std::vector<double>& times, const OdeOptions& options) {
  if (!(L > 0.0)) throw std::invalid_argument("planarPendulum: L must be positive");
  const OdeRhs f = [L, g](double, const Eigen::VectorXd& y) {
    return Eigen::VectorXd{{y[1], -(g / L) * std::sin(y[0])}};
  };
  const Eigen::MatrixXd Y = integrateOde(f, 0.0, Eigen::VectorXd{{theta0, omega0}}, times, options);
  return {Y.row(0).transpose(), Y.row(1).transpose()};
}

// ---------------------------------------------------------------------------------------------
// Why spherical coordinates and not Cartesian ones with the rod force eliminated
// (r'' = -g e_z - (|v|^2 - g r_z) r / L^2): that ODE is regular everywhere but lets |r| drift,
// so the reference itself would violate the constraint it is meant to check. The polar chart
// keeps |r| = L exactly and, with the polar axis along gravity, L_z = m L^2 sin^2(th) ph' is
// conserved, which keeps every trajectory with L_z != 0 away from the poles. Trajectories that
// do come close (L_z ~ 0) are refused rather than integrated through the singular chart.

namespace {
constexpr double kMinSinPolar = 1e-3;  // closer to a pole, ph' ~ L_z / sin^2(th) is unresolvable
}

SphericalPendulumSolution sphericalPendulum(double m, double L, double g, const Eigen::Vector3d& r0,
                                            const Eigen::Vector3d& v0,
                                            const std::vector<double>& times,
                                            const OdeOptions& options) {
  if (!(m > 0.0) || !(L > 0.0))
    throw std::invalid_argument("sphericalPendulum: m and L must be positive");
  if (std::abs(r0.norm() - L) > 1e-9 * L) {
    std::ostringstream os;
    os << "sphericalPendulum: |r0| = " << r0.norm() << " but L = " << L;
    throw std::invalid_argument(os.str());
  }
  if (std::abs(r0.dot(v0)) > 1e-9 * L * v0.norm()) {
    std::ostringstream os;
    os << "sphericalPendulum: v0 is not tangent to the sphere, r0 . v0 = " << r0.dot(v0);
    throw std::invalid_argument(os.str());
  }
  // Chart: theta from -z, phi about +z from +x.
  const double rho = std::hypot(r0.x(), r0.y());
  const double th0 = std::atan2(rho, -r0.z());
  const double ph0 = std::atan2(r0.y(), r0.x());
  if (std::sin(th0) < kMinSinPolar)
    throw std::invalid_argument("sphericalPendulum: r0 is at a pole of the spherical chart");
  const Eigen::Vector3d e_th(std::cos(th0) * std::cos(ph0), std::cos(th0) * std::sin(ph0),
                             std::sin(th0));
  const Eigen::Vector3d e_ph(-std::sin(ph0), std::cos(ph0), 0.0);
  const Eigen::VectorXd y0{{th0, ph0, e_th.dot(v0) / L, e_ph.dot(v0) / (L * std::sin(th0))}};

  // Lagrangian m L^2 (th'^2 + sin^2 th ph'^2) / 2 + m g L cos th.
  const OdeRhs f = [L, g](double t, const Eigen::VectorXd& y) {
    const double s = std::sin(y[0]), c = std::cos(y[0]);
    if (std::abs(s) < kMinSinPolar) {
      std::ostringstream os;
      os << "sphericalPendulum: at t = " << t << " the mass is within sin(theta) = " << s
         << " of a pole of the spherical chart (L_z too small for this reference)";
      throw std::runtime_error(os.str());
    }
    return Eigen::VectorXd{
        {y[2], y[3], s * c * y[3] * y[3] - (g / L) * s, -2.0 * (c / s) * y[2] * y[3]}};
  };
  const Eigen::MatrixXd Y = integrateOde(f, 0.0, y0, times, options);

  SphericalPendulumSolution out{Eigen::Matrix3Xd(3, Y.cols()), Eigen::Matrix3Xd(3, Y.cols())};
  for (Eigen::Index k = 0; k < Y.cols(); ++k) {
    const double st = std::sin(Y(0, k)), ct = std::cos(Y(0, k));
    const double sp = std::sin(Y(1, k)), cp = std::cos(Y(1, k));
    const double thd = Y(2, k), phd = Y(3, k);
    out.r.col(k) = L * Eigen::Vector3d(st * cp, st * sp, -ct);
    out.v.col(k) =
        L * Eigen::Vector3d(ct * cp * thd - st * sp * phd, ct * sp * thd + st * cp * phd, st * thd);
  }
  return out;
}

double sphericalPendulumEnergy(double m, double g, const Eigen::Vector3d& r,
                               const Eigen::Vector3d& v) {
  return 0.5 * m * v.squaredNorm() + m * g * r.z();
}

double sphericalPendulumAngularMomentumZ(double m, const Eigen::Vector3d& r,
                                         const Eigen::Vector3d& v) {
  return m * (r.x() * v.y() - r.y() * v.x());
}

// ---------------------------------------------------------------------------------------------

DoublePendulumSolution doublePendulumTwoAngle(double m, double l, double a, double g, double phi0,
                                              double psi0, double phidot0, double psidot0,
                                              const std::vector<double>& times,
                                              const OdeOptions& options) {
  if (!(m > 0.0) || !(l > 0.0))
    throw std::invalid_argument("doublePendulumTwoAngle: m and l must be positive");
  const double C = m * (l * l + a * a) / 12.0;
  const double M11 = C + 1.25 * m * l * l, M22 = C + 0.25 * m * l * l, ml2 = 0.5 * m * l * l;
  // (26) as M(q) q'' = b(q, q'); M is SPD (det >= M11 M22 - ml2^2 > 0), solved by Cramer.
  const OdeRhs f = [=](double, const Eigen::VectorXd& y) {
    const double d = y[0] - y[1], cd = std::cos(d), sd = std::sin(d);
    const double M12 = ml2 * cd;
    const double b1 = -ml2 * sd * y[3] * y[3] - 1.5 * m * g * l * std::sin(y[0]);
    const double b2 = ml2 * sd * y[2] * y[2] - 0.5 * m * g * l * std::sin(y[1]);
    const double det = M11 * M22 - M12 * M12;
    return Eigen::VectorXd{{y[2], y[3], (M22 * b1 - M12 * b2) / det, (M11 * b2 - M12 * b1) / det}};
  };
  const Eigen::MatrixXd Y =
      integrateOde(f, 0.0, Eigen::VectorXd{{phi0, psi0, phidot0, psidot0}}, times, options);
  return {Y.row(0).transpose(), Y.row(1).transpose(), Y.row(2).transpose(), Y.row(3).transpose()};
}

double doublePendulumEnergy(double m, double l, double a, double g, double phi, double psi,
                            double phidot, double psidot) {
  const double C = m * (l * l + a * a) / 12.0;
  const double T = 0.5 * (C + 1.25 * m * l * l) * phidot * phidot +
                   0.5 * (C + 0.25 * m * l * l) * psidot * psidot +
                   0.5 * m * l * l * std::cos(phi - psi) * phidot * psidot;
  const double V = -m * g * l * (1.5 * std::cos(phi) + 0.5 * std::cos(psi));
  return T + V;
}

DoublePendulumPoints doublePendulumPoints(double l, double phi, double psi) {
  const Eigen::Vector2d h1 = l * Eigen::Vector2d(std::cos(phi), std::sin(phi));
  return {h1, 0.5 * h1, h1 + 0.5 * l * Eigen::Vector2d(std::cos(psi), std::sin(psi))};
}

std::vector<double> doubleFourBarHorizontalTimes() {
  const double g = 9.81, inertia = 3.0 / 3.0 + 2.0, energy = 0.5 * inertia + 3.5 * g;
  auto inverse_rate = [&](double theta) {
    return 1.0 / std::sqrt((energy - 3.5 * g * std::sin(theta)) / (0.5 * inertia));
  };
  auto integral = [&](double a, double b) {
    const int n = 20000;
    const double h = (b - a) / n;
    double sum = inverse_rate(a) + inverse_rate(b);
    for (int k = 1; k < n; ++k) sum += (k % 2 ? 4.0 : 2.0) * inverse_rate(a + k * h);
    return sum * h / 3.0;
  };
  const double first = integral(0.0, M_PI / 2);
  return {first, first + integral(-M_PI, 0.0)};
}

}  // namespace catena::reference
