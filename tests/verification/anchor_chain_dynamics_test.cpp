/// @file anchor_chain_dynamics_test.cpp
/// The tangent-stiffness paper's cross-check of its eigen analysis (section 4.2.2, Fig. 6): a
/// constant force at the sag point C for the first 5 s excites the anchor chain about its
/// equilibrium; after release, the spectrum of the free vibration peaks at the modal
/// frequencies. Force along +X: mode 2 (in-plane swinging); +Y: mode 1 (out-of-plane swinging)
/// with mode 4 as a smaller peak; -Z: mode 3. Here the time integration (generalized-alpha) and
/// the modal analysis (SLEPc) share only the assembly; agreement within 2 %.
#define BOOST_TEST_MODULE anchor_chain_dynamics
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <complex>
#include <unsupported/Eigen/FFT>
#include <vector>

#include "integrators/generalized_alpha.hpp"
#include "io/yaml_loader.hpp"
#include "modal/modal.hpp"
#include "petsc_fixture.hpp"
#include "statics/statics.hpp"

using namespace catena;

namespace {

constexpr double kStep = 0.04, kRelease = 5.0, kSkip = 10.0, kEnd = 70.0;  // s

struct Spectrum {
  double df = 0.0;  ///< Hz between bins
  std::vector<double> amplitude;
  /// Frequency of the largest amplitude in [lo, hi] Hz, refined by a parabola through the
  /// three bins around it.
  double peak(double lo, double hi) const {
    std::size_t best = 0;
    for (std::size_t k = 1; k + 1 < amplitude.size(); ++k) {
      const double f = k * df;
      if (f >= lo && f <= hi && (best == 0 || amplitude[k] > amplitude[best])) best = k;
    }
    const double a = amplitude[best - 1], b = amplitude[best], c = amplitude[best + 1];
    return (best + 0.5 * (a - c) / (a - 2.0 * b + c)) * df;
  }
  double at(double f) const { return amplitude[static_cast<std::size_t>(std::lround(f / df))]; }
};

/// Amplitude spectrum of a uniformly sampled signal: mean removed, Hann window, zero-padded 8x.
Spectrum spectrum(std::vector<double> x, double dt) {
  double mean = 0.0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  const std::size_t n = x.size();
  for (std::size_t k = 0; k < n; ++k)
    x[k] = (x[k] - mean) * (0.5 - 0.5 * std::cos(2.0 * M_PI * k / static_cast<double>(n - 1)));
  x.resize(8 * n, 0.0);
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> X;
  fft.fwd(X, x);
  Spectrum s;
  s.df = 1.0 / (dt * static_cast<double>(x.size()));
  for (std::size_t k = 0; k < X.size() / 2; ++k) s.amplitude.push_back(std::abs(X[k]));
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(free_vibration_peaks_at_the_modal_frequencies) {
  Model m = loadMechanismFile(CATENA_SOURCE_DIR "/inputs/anchor_chain.yaml").model;
  const AssemblyPlan plan0 = buildAssemblyPlan(m);
  const StaticsResult st = solveStatics(m, plan0, initialState(m), {});
  BOOST_REQUIRE_MESSAGE(st.status.ok(), st.status.message);
  const ModalResult mr = solveModal(m, plan0, st.state, {});
  BOOST_REQUIRE_MESSAGE(mr.status.ok(), mr.status.message);
  double f[4];
  for (int k = 0; k < 4; ++k) f[k] = mr.modes[k].frequency_hz;

  // The excitation: a pulse of 50 N (2.4 % of a support's vertical reaction) at the body at C.
  const Index c = static_cast<Index>(m.bodies.size() / 2);
  m.markers.push_back({"C/excitation", c, Vec3::Zero(), Quat::Identity()});
  MarkerLoad load;
  load.name = "excitation";
  load.marker = static_cast<Index>(m.markers.size() - 1);
  load.scale = TimeFunction::pulse(1.0, 0.0, kRelease);
  m.loads.push_back(load);

  struct Case {
    const char* name;
    Vec3 direction;
    int component;       ///< displacement of C that is recorded
    int mode;            ///< dominant mode (0-based)
    int secondary = -1;  ///< a smaller peak the paper also sees
  };
  const Case cases[] = {
      {"+X", Vec3::UnitX(), 0, 1}, {"+Y", Vec3::UnitY(), 1, 0, 3}, {"-Z", -Vec3::UnitZ(), 2, 2}};
  for (const Case& k : cases) {
    m.loads.back().force = 50.0 * k.direction;
    const AssemblyPlan plan = buildAssemblyPlan(m);
    GeneralizedAlphaOptions o;
    o.step = kStep;
    o.error_tolerance = 0.0;  // the fixed step of the study above
    o.t_end = kEnd;
    o.output_interval = kStep;
    o.rho_inf = 0.9;
    std::vector<double> signal;
    const DynamicsResult r = integrateGeneralizedAlpha(m, plan, st.state, o, [&](const State& s) {
      if (s.t > kSkip - 1e-9) signal.push_back(s.q(m.qOffset(c) + k.component));
      return true;
    });
    BOOST_REQUIRE_MESSAGE(r.status.ok(), k.name << ": " << r.status.message);
    const Spectrum sp = spectrum(signal, kStep);
    const double dominant = sp.peak(0.1, 1.0);
    BOOST_TEST_MESSAGE("force " << k.name << ": dominant peak " << dominant << " Hz, mode "
                                << k.mode + 1 << " at " << f[k.mode] << " Hz");
    BOOST_TEST(std::abs(dominant - f[k.mode]) / f[k.mode] < 0.02, k.name);
    if (k.secondary >= 0) {
      const double fs = f[k.secondary];
      const double secondary = sp.peak(0.85 * fs, 1.15 * fs);
      BOOST_TEST_MESSAGE("  secondary peak "
                         << secondary << " Hz (amplitude " << sp.at(secondary) / sp.at(dominant)
                         << " of the dominant), mode " << k.secondary + 1 << " at " << fs << " Hz");
      BOOST_TEST(std::abs(secondary - fs) / fs < 0.02);
      // A real peak, not the skirt of the dominant one: higher than the spectrum halfway.
      BOOST_TEST(sp.at(secondary) > 3.0 * sp.at(0.5 * (dominant + secondary)));
    }
  }
}
