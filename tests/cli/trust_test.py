#!/usr/bin/python3
"""What catena says and where it writes (issue 26 "Trust"; docs/reliability.md).

Run by CTest (tests/CMakeLists.txt, label regression), one test class per CTest test
cli_trust_CLASS; every run happens in a fresh folder under --work (the build tree):

  OutputDir    outputs not named on the command line go to out/ of the current directory (made
               when missing), or to --output-dir DIR; named paths (--json, --csv, --mcs-csv) are
               taken as they are; nothing else is written into the current directory
  NoBodies     a file without bodies: statics, modal, simulate and mobility refuse it right
               after loading, naming the file (exit 1, no file written); check accepts it
  EnergyWarning
               a mechanism held by a `fix` (no motion, energy change at round-off) gives no
               accuracy warning with any integrator (it printed "1.16e+12 %"); a fixed step far
               too large warns with a percentage of the kinetic energy that measures it
  IntegratorAdvice
               the accuracy warning advises the settings of the method that ran: IDA index 3
               is told of --rtol/--atol and --formulation index2, not "--integrator ida"; IDA
               index 1 only of the tolerances; fixed-step generalized-alpha of --dt and
               --fixed-step
  Threads      `catena modal inputs/anchor_chain.yaml` (--modes 20, and --damped) writes the
               same JSON, bit for bit but for the timings, with OMP_NUM_THREADS=1 and 2 (the
               BLAS was threaded by OMP_NUM_THREADS and changed the modes at 6e-16)
  Progress     stderr not a terminal (a batch log): statics on a 10000-link chain prints a line
               per Newton iteration when one is due (CATENA_PROGRESS_SECONDS=0.1 here, 5 s by
               default), modal the start and end of its eigensolve, simulate and mobility --t-end
               the time reached; --terse and short runs print none
  SingularPassage
               IDA index 1 on the double four-bar (it left the parallelogram branch at 2.65 s)
               reaches t_end: the crossings it fails at are passed by generalized-alpha, each
               passage reported brackets a crossing of the closed form, the cranks stay parallel
  RedundantHint
               the modified double four-bar written out body by body: generalized-alpha and IDA
               leave its redundant row out themselves; mobility says which joint to replace by a
               `lock` with which `mask`; that edit, made literally to the file, leaves no
               redundant row, and both models move alike (positions, total ground reaction)

Usage: trust_test.py --catena BIN --inputs DIR --work DIR [unittest arguments]
"""
import csv
import json
import math
import os
import re
import subprocess
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cli_support import WorkDirTest, parse_arguments  # noqa: E402

ARGS = None
REGRESSION = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "regression")


class CatenaTest(WorkDirTest):
    def run_catena(self, args, env=None, expect=0):
        p = subprocess.run([ARGS.catena] + args, cwd=self.dir, env=env, capture_output=True,
                           text=True, timeout=300)
        if expect is not None:
            self.assertEqual(p.returncode, expect,
                             f"catena {' '.join(args)}\nstdout:\n{p.stdout}\nstderr:\n{p.stderr}")
        return p

    def files(self):
        """Every file under the run's folder, relative to it."""
        out = []
        for root, _, names in os.walk(self.dir):
            out += [os.path.relpath(os.path.join(root, n), self.dir) for n in names]
        return sorted(out)


class OutputDir(CatenaTest):
    def test_defaults_go_to_out(self):
        self.run_catena(["statics", "--terse", self.input("pendulum.yaml")])
        self.run_catena(["modal", "--terse", "--modes", "1", self.input("pendulum.yaml")],
                        expect=None)
        self.run_catena(["mobility", "--terse", "--t-end", "0.2",
                         self.input("double_four_bar.yaml")])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", self.input("pendulum.yaml")])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", "--formulation", "mcs",
                         self.input("double_four_bar.yaml")])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1",
                         self.input(os.path.join("natural", "rscr.yaml"))])
        self.assertEqual(self.files(), sorted([
            "out/pendulum.statics.json", "out/pendulum.modal.json",
            "out/double_four_bar.mobility.json", "out/double_four_bar.mobility.csv",
            "out/pendulum.trajectory.csv", "out/pendulum.simulate.json",
            "out/double_four_bar.trajectory.csv", "out/double_four_bar.simulate.json",
            "out/double_four_bar.mcs.csv", "out/rscr.trajectory.csv", "out/rscr.simulate.json"]))

    def test_output_dir_and_named_paths(self):
        self.run_catena(["statics", "--terse", "--output-dir", "a/b", self.input("pendulum.yaml")])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", "--output-dir", "s",
                         "--csv", "h.csv", self.input("pendulum.yaml")])
        self.run_catena(["mobility", "--terse", "--t-end", "0.2", "--output-dir", "m",
                         "--json", "m.json", "--csv", "m.csv", self.input("double_four_bar.yaml")])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", "--output-dir", "n",
                         self.input(os.path.join("natural", "rscr.yaml"))])
        # A folder named only for outputs that are all named is not made.
        self.assertEqual(self.files(), sorted([
            "a/b/pendulum.statics.json", "s/pendulum.simulate.json", "h.csv", "m.json",
            "m.csv", "n/rscr.trajectory.csv", "n/rscr.simulate.json"]))

    def test_an_output_dir_that_is_a_file(self):
        with open(self.path("f"), "w"):
            pass
        p = self.run_catena(["statics", "--output-dir", "f", self.input("pendulum.yaml")],
                            expect=1)
        self.assertIn("cannot create the output folder f", p.stderr)

    def test_mobility_csv_needs_t_end(self):
        p = self.run_catena(["mobility", "--csv", "m.csv", self.input("pendulum.yaml")], expect=2)
        self.assertIn("needs --t-end", p.stderr)


class NoBodies(CatenaTest):
    def test_refused_by_the_analyses_accepted_by_check(self):
        empty = self.path("empty.yaml")
        with open(empty, "w") as f:
            f.write("name: empty\ngravity: [0, 0, -9.81]\n")
        for command in ["statics", "modal", "simulate", "mobility"]:
            p = self.run_catena([command, empty], expect=1)
            self.assertIn(f"{empty}: error: the mechanism has no bodies: nothing to analyse",
                          p.stderr)
            self.assertNotIn("KLU", p.stderr)
        self.assertEqual(self.files(), ["empty.yaml"])
        self.run_catena(["check", empty])


class EnergyWarning(CatenaTest):
    def test_no_warning_for_round_off(self):
        fixed = os.path.join(REGRESSION, "pendulum_fixed.yaml")
        for extra in [[], ["--integrator", "ida"],
                      ["--integrator", "ida", "--formulation", "index3"]]:
            # The exit status is not this test's (the branch watch may stop a run whose speed
            # is round-off); the energy witness must not speak.
            p = self.run_catena(["simulate", "--t-end", "0.2"] + extra + [fixed], expect=None)
            self.assertNotIn("the energy changed", p.stderr, extra)
            self.assertNotIn("warning", p.stderr, extra)

    def test_percentage_of_a_kinetic_energy_that_measures_it(self):
        p = self.run_catena(["simulate", "--fixed-step", "--t-end", "5", "--dt", "0.25",
                             self.input("pendulum.yaml")])
        m = re.search(r"the energy changed by (\S+) % of the largest kinetic energy \((\S+) J\)",
                      p.stderr)
        self.assertIsNotNone(m, p.stderr)
        self.assertLess(float(m.group(1)), 1e3)
        self.assertGreater(float(m.group(2)), 1.0)


class IntegratorAdvice(CatenaTest):
    def advice(self, args):
        p = self.run_catena(["simulate", "--t-end", "5", "--output-dir", "o"] + args +
                            [self.input("pendulum.yaml")])
        m = re.search(r"the trajectory is not accurate \((.*)\)$", p.stderr, re.M)
        self.assertIsNotNone(m, p.stderr)
        return m.group(1)

    def test_ida_index3(self):
        a = self.advice(["--integrator", "ida", "--formulation", "index3", "--rtol", "0.1",
                         "--atol", "0.1"])
        self.assertIn("tighten --rtol and --atol", a)
        self.assertIn("--formulation index2", a)
        self.assertNotIn("--integrator ida", a)
        self.assertNotIn("--fixed-step", a)

    def test_ida_index1(self):
        a = self.advice(["--integrator", "ida", "--formulation", "index1", "--rtol", "0.1",
                         "--atol", "0.1"])
        self.assertEqual(a, "tighten --rtol and --atol")

    def test_generalized_alpha_fixed_step(self):
        a = self.advice(["--fixed-step", "--dt", "0.25"])
        self.assertIn("reduce --dt", a)
        self.assertIn("drop --fixed-step", a)
        self.assertNotIn("--rtol", a)


class Threads(CatenaTest):
    def summary(self, threads, args):
        env = {k: v for k, v in os.environ.items()
               if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS")}
        env["OMP_NUM_THREADS"] = str(threads)
        json_path = self.path(f"modal_{threads}.json")
        self.run_catena(["modal", "--terse", "--json", json_path] + args +
                        [self.input("anchor_chain.yaml")], env=env)
        with open(json_path) as f:
            return re.sub(r'"seconds":[-+.e0-9]+', '"seconds":0', f.read())

    def test_modes_identical_for_1_and_2_threads(self):
        for args in (["--modes", "20"], ["--damped"]):
            one, two = self.summary(1, args), self.summary(2, args)
            self.assertIn('"modes"', one)
            self.assertEqual(one, two, args)


class Progress(CatenaTest):
    def chain(self, links):
        with open(self.input("catenary_chain.yaml")) as f:
            text = f.read()
        self.assertIn("links: 20\n", text)
        path = self.path(f"chain_{links}.yaml")
        with open(path, "w") as f:
            f.write(text.replace("links: 20\n", f"links: {links}\n"))
        return path

    def lines(self, args, seconds="0.1"):
        env = dict(os.environ, CATENA_PROGRESS_SECONDS=seconds)
        with open(self.path("stderr.txt"), "w") as err:  # a file: not a terminal
            p = subprocess.run([ARGS.catena] + args + ["--output-dir", "o"], cwd=self.dir,
                               env=env, stdout=subprocess.DEVNULL, stderr=err, timeout=300)
        with open(self.path("stderr.txt")) as f:
            text = f.read()
        self.assertEqual(p.returncode, 0, text)
        self.assertNotIn("\r", text)  # whole lines in a log
        return [line for line in text.splitlines() if line.startswith("[catena] ")]

    def test_statics_and_modal(self):
        chain = self.chain(10000)  # statics about 1.3 s on the 2-core machine
        lines = self.lines(["statics", chain])
        newton = [l for l in lines if l.startswith("[catena] statics: Newton iteration ")]
        self.assertGreaterEqual(len(newton), 2, lines)
        self.assertIn("force residual", newton[0])
        lines = self.lines(["modal", "--modes", "2", chain])
        self.assertIn("[catena] modal: eigensolve for 2 modes started (60000 velocity "
                      "coordinates)", lines)
        self.assertTrue(any(l.startswith("[catena] modal: eigensolve done in ") for l in lines),
                        lines)
        self.assertEqual(self.lines(["statics", "--terse", chain]), [])

    def test_simulate_and_mobility(self):
        pendulum = self.input("pendulum.yaml")
        lines = self.lines(["simulate", "--t-end", "20", "--output-interval", "0.001",
                            pendulum], seconds="0.02")
        self.assertTrue(any(l.startswith("[catena] simulate: t = ") for l in lines), lines)
        lines = self.lines(["mobility", "--t-end", "20", "--interval", "0.001",
                            self.input("double_four_bar.yaml")], seconds="0.02")
        self.assertTrue(any(l.startswith("[catena] mobility: t = ") for l in lines), lines)
        # The default interval, 5 s: a short run says nothing.
        self.assertEqual(self.lines(["simulate", "--t-end", "1", pendulum], seconds=""), [])


# inputs/modified_double_four_bar.yaml without its generator: cranks crank_0..2 (1 m, 1 kg,
# frame at the ground hinge, x along the crank) standing at x = 0, 1, 2 and turning at -1 rad/s;
# one coupler (2 m, 2 kg) on their tops moving at 1 m/s. Six revolutes, 12 rows, rank 11.
DOUBLE_FOUR_BAR = """\
name: modified_double_four_bar_explicit
dimension: 2
gravity: [0, -9.81]
bodies:
  - {name: crank_0, mass: 1, inertia: 0.0833333333333333, com: [0.5, 0], position: [0, 0],
     angle_deg: 90, angular_velocity: -1}
  - {name: crank_1, mass: 1, inertia: 0.0833333333333333, com: [0.5, 0], position: [1, 0],
     angle_deg: 90, angular_velocity: -1}
  - {name: crank_2, mass: 1, inertia: 0.0833333333333333, com: [0.5, 0], position: [2, 0],
     angle_deg: 90, angular_velocity: -1}
  - {name: coupler, mass: 2, inertia: 0.666666666666667, com: [1, 0], position: [0, 1],
     velocity: [1, 0]}
markers:
  - {name: ground/0, body: ground, position: [0, 0]}
  - {name: ground/1, body: ground, position: [1, 0]}
  - {name: ground/2, body: ground, position: [2, 0]}
  - {name: crank_0/bottom, body: crank_0}
  - {name: crank_1/bottom, body: crank_1}
  - {name: crank_2/bottom, body: crank_2}
  - {name: crank_0/top, body: crank_0, position: [1, 0]}
  - {name: crank_1/top, body: crank_1, position: [1, 0]}
  - {name: crank_2/top, body: crank_2, position: [1, 0]}
  - {name: coupler/0, body: coupler, position: [0, 0]}
  - {name: coupler/1, body: coupler, position: [1, 0]}
  - {name: coupler/2, body: coupler, position: [2, 0]}
joints:
"""
for _j in range(3):
    DOUBLE_FOUR_BAR += (
        f"  - name: bottom_{_j}\n    type: revolute\n    marker1: crank_{_j}/bottom\n"
        f"    marker2: ground/{_j}\n"
        f"  - name: top_{_j}\n    type: revolute\n    marker1: crank_{_j}/top\n"
        f"    marker2: coupler/{_j}\n")


class RedundantHint(CatenaTest):
    HINT = re.compile(r"replace joint '([^']+)' \((\w+)\) by a `lock` with `mask: (\[[01, ]+\])`")

    @staticmethod
    def last_row(csv):
        """The header and the last row of a trajectory CSV, as a dict of floats."""
        with open(csv) as f:
            lines = [line.strip() for line in f if line.strip()]
        return dict(zip(lines[0].split(","), (float(x) for x in lines[-1].split(","))))

    def test_redundant_rows_are_left_out_as_by_hand(self):
        """Issue 28: generalized-alpha and IDA run the over-constrained model by leaving its
        redundant row out themselves; `catena mobility` says how to write the model without it;
        that edit, made literally, leaves no redundant row, and both models then move alike:
        the same positions, and the same total ground reaction (its split between the redundant
        hinges is not unique: the minimum-norm one is reported)."""
        model = self.path("model.yaml")
        with open(model, "w") as f:
            f.write(DOUBLE_FOUR_BAR)
        p = self.run_catena(["mobility", "--terse", "--output-dir", "o", model])
        self.assertIn("rank 11\n", p.stdout)
        self.assertIn("redundant 1\n", p.stdout)
        p = self.run_catena(["mobility", "--output-dir", "o", model])
        self.assertNotIn("a joint's `mask`", p.stdout)  # the old hint, which did not work
        edits = self.HINT.findall(p.stdout)
        self.assertEqual(len(edits), 1, p.stdout)
        name, kind, mask = edits[0]
        self.assertEqual(kind, "revolute")
        # The edit, literally: the joint's type becomes lock, with the mask given.
        text = DOUBLE_FOUR_BAR
        old = f"  - name: {name}\n    type: revolute\n"
        self.assertIn(old, text)
        fixed = self.path("fixed.yaml")
        with open(fixed, "w") as f:
            f.write(text.replace(old, f"  - name: {name}\n    type: lock\n    mask: {mask}\n"))
        p = self.run_catena(["mobility", "--terse", "--output-dir", "o", fixed])
        self.assertIn("m 11\n", p.stdout)
        self.assertIn("rank 11\n", p.stdout)
        self.assertIn("redundant 0\n", p.stdout)
        for integrator in ["gen-alpha", "ida"]:
            rows = {}
            for path, redundant in [(model, 1), (fixed, 0)]:
                csv = self.path(f"{integrator}_{redundant}.csv")
                p = self.run_catena(["simulate", "--terse", "--integrator", integrator, "--t-end",
                                     "0.5", "--tolerance", "1e-7", "--rtol", "1e-9", "--atol",
                                     "1e-11", "--output-dir", "o", "--csv", csv, path])
                self.assertIn("reached_end yes", p.stdout)
                if redundant:
                    self.assertIn("redundant_rows 1\n", p.stdout)
                else:
                    self.assertNotIn("redundant_rows", p.stdout)
                rows[redundant] = self.last_row(csv)
            a, b = rows[1], rows[0]
            self.assertEqual(a["t_s"], b["t_s"])
            moved = [k for k in a if k.endswith("_m_world") or k.endswith("_rad_world")]
            self.assertGreater(len(moved), 0)
            worst = max(abs(a[k] - b[k]) for k in moved)
            self.assertLess(worst, 1e-6, f"{integrator}: positions differ by {worst}")
            ground = [k for k in a if "_bottom.F" in k]
            for axis in ["Fx", "Fy"]:
                total_a = sum(a[k] for k in ground if f".{axis}_" in k)
                total_b = sum(b[k] for k in ground if f".{axis}_" in k)
                self.assertLess(abs(total_a - total_b), 1e-4 * (1.0 + abs(total_b)),
                                f"{integrator} {axis}: {total_a} against {total_b}")


def double_four_bar_crossings(t_end):
    """The times [s] at which inputs/double_four_bar.yaml's cranks pass horizontal (theta = 0
    and -pi, every revolution) up to t_end, from the parallelogram branch's energy in closed form
    (tests/support/reference_odes.cpp, doubleFourBarHorizontalTimes; Simpson, 2e4 panels)."""
    import math
    g, inertia = 9.81, 3.0 / 3.0 + 2.0
    energy = 0.5 * inertia + 3.5 * g

    def time(a, b):  # integral of dtheta / |omega| from b down to a
        n = 20000
        h = (b - a) / n
        f = [1.0 / math.sqrt((energy - 3.5 * g * math.sin(a + k * h)) / (0.5 * inertia))
             for k in range(n + 1)]
        return h / 3.0 * (f[0] + f[-1] + sum((4 if k % 2 else 2) * f[k] for k in range(1, n)))

    first, half, period = time(0.0, math.pi / 2), time(-math.pi, 0.0), time(-2 * math.pi, 0.0)
    out, k = [], 0
    while first + k * period <= t_end:
        out += [t for t in (first + k * period, first + half + k * period) if t <= t_end]
        k += 1
    return out


class SingularPassage(CatenaTest):
    def test_ida_index1_passes_the_double_four_bar(self):
        # IDA index 1 left the parallelogram branch at t = 2.65 s (the branch watch stopped it);
        # now generalized-alpha integrates each crossing it fails at. Every passage reported
        # brackets a crossing of the closed form, and the cranks stay parallel.
        t_end = 3.0
        p = self.run_catena(["simulate", "--terse", "--integrator", "ida", "--formulation",
                             "index1", "--t-end", str(t_end), "--output-dir", "o", "--json",
                             self.path("s.json"), "--csv", self.path("s.csv"),
                             self.input("double_four_bar.yaml")])
        self.assertIn("reached_end yes", p.stdout)
        with open(self.path("s.json")) as f:
            passages = json.load(f)["singular_passages"]
        self.assertGreater(len(passages), 0)
        self.assertIn(f"singular_passages {len(passages)}\n", p.stdout)
        crossings = double_four_bar_crossings(t_end)
        for x in passages:
            self.assertLess(x["from_s"], x["to_s"])
            self.assertTrue(any(x["from_s"] < c < x["to_s"] for c in crossings),
                            f"{x} brackets none of {crossings}")
        last = RedundantHint.last_row(self.path("s.csv"))
        angles = [last[f"crank_0_{j}.theta_rad_world"] for j in range(3)]
        self.assertLess(max(angles) - min(angles), 1e-6, angles)

    def test_mcs_at_1e_10_passes_the_double_four_bar(self):
        # MCS at rtol 1e-10 left the branch at the crossing near 4.6 s (a step ended at a relative
        # pivot of 1.4e-8; the branch watch stopped it: the former sample
        # sample_simulate_branch_switch). Now that crossing is bridged and the run reaches 5 s with
        # its cranks parallel, the minimal coordinate continuous across the passage.
        t_end = 5.0
        p = self.run_catena(["simulate", "--terse", "--formulation", "mcs", "--rtol", "1e-10",
                             "--atol", "1e-12", "--t-end", str(t_end), "--output-dir", "o",
                             "--json", self.path("m.json"), "--csv", self.path("m.csv"),
                             "--mcs-csv", self.path("m.mcs.csv"),
                             self.input("double_four_bar.yaml")])
        self.assertIn("reached_end yes", p.stdout)
        with open(self.path("m.json")) as f:
            passages = json.load(f)["singular_passages"]
        self.assertGreater(len(passages), 0)
        crossings = double_four_bar_crossings(t_end)
        for x in passages:
            self.assertTrue(any(x["from_s"] < c < x["to_s"] for c in crossings),
                            f"{x} brackets none of {crossings}")
        last = RedundantHint.last_row(self.path("m.csv"))
        angles = [last[f"crank_0_{j}.theta_rad_world"] for j in range(3)]
        self.assertLess(max(angles) - min(angles), 1e-6, angles)
        # q_1 follows q'_1 by the trapezoid rule across every row (no restart at a passage).
        with open(self.path("m.mcs.csv")) as f:
            rows = [(float(r["t"]), float(r["qdot_1"]), float(r["q_1"])) for r in csv.DictReader(f)]
        worst = max(abs((q1 - q0) - 0.5 * (t1 - t0) * (d0 + d1))
                    for (t0, d0, q0), (t1, d1, q1) in zip(rows, rows[1:]))
        self.assertLess(worst, 1e-3, worst)


class CoarseOutputs(CatenaTest):
    @staticmethod
    def rows(path):
        with open(path) as f:
            return {round(float(r["t_s"]), 9): r for r in csv.DictReader(f)}

    def coarse_and_fine(self, model, t_end, coarse, integrator):
        """The rows of runs with outputs every `coarse` s and every 0.01 s (the default)."""
        runs = {}
        for interval in (coarse, "0.01"):
            out = self.path(f"s{interval}.csv")
            p = self.run_catena(["simulate", "--terse", "--t-end", t_end, "--output-interval",
                                 interval, "--output-dir", "o", "--csv", out]
                                + integrator + [self.input(model)])
            self.assertIn("reached_end yes", p.stdout, f"{integrator} every {interval} s")
            runs[interval] = self.rows(out)
        return runs[coarse], runs["0.01"]

    def assert_same_positions(self, coarse, fine, integrator):
        worst = max(abs(float(row[k]) - float(fine[t][k]))
                    for t, row in coarse.items() for k in row if k.endswith("_m_world"))
        self.assertLess(worst, 1e-12, f"{integrator}: {worst} m from the fine run")

    def test_a_fast_smooth_reversal_between_outputs_is_no_jump(self):
        # With outputs 0.1 s apart, the spatial slider-crank's slider turns back within 0.2 s:
        # the branch watch's ratio test saw a jump and stopped every integrator at 1.5 s ("the
        # velocity jumped between t = 1.3 s and 1.5 s"), though every run agrees to 1e-10 m
        # there. The command now runs at --dt (0.01 s) and writes every
        # tenth output: the fine run's positions.
        for integrator in (["--integrator", "ida", "--rtol", "1e-10"],
                           ["--integrator", "rk", "--rtol", "1e-10"], ["--tolerance", "1e-8"]):
            coarse, fine = self.coarse_and_fine("spatial_slider_crank.yaml", "3", "0.1",
                                                integrator)
            self.assertEqual(len(coarse), 31)
            self.assert_same_positions(coarse, fine, integrator)

    def test_singular_configurations_between_outputs(self):
        # The double four-bar passes horizontal at 0.714 and 1.228 s: with outputs 0.5 s apart
        # its velocity turns over between two outputs, which the branch watch cannot tell from a
        # branch switch, and every integrator stopped at 2 s ("the velocity jumped between
        # t = 0.5 s and 1.5 s"), MCS too. Now each runs at 0.01 s, writes the 0.5 s rows, and
        # they are the default run's.
        for integrator in ([], ["--integrator", "ida"], ["--integrator", "rk"],
                           ["--formulation", "mcs"]):
            coarse, fine = self.coarse_and_fine("double_four_bar.yaml", "3", "0.5", integrator)
            self.assertEqual(sorted(coarse), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0])
            self.assert_same_positions(coarse, fine, integrator)

    def test_a_long_run_with_the_default_outputs(self):
        # Over 200 s the default outputs are 0.2 s apart (t_end / 1000): Runge-Kutta's run left
        # the parallelogram branch at 131.3 s (one crank turned back at a crossing), the branch
        # watch saw it only at 134.6 s, and the 15 rows in between were written. The watch now
        # sees every --dt (0.01 s): the run reaches 200 s with every row on the branch.
        out = self.path("long.csv")
        p = self.run_catena(["simulate", "--terse", "--t-end", "200", "--integrator", "rk",
                             "--output-dir", "o", "--csv", out, self.input("double_four_bar.yaml")])
        self.assertIn("reached_end yes", p.stdout)
        rows = self.rows(out)
        self.assertEqual(len(rows), 1001)
        worst = 0.0
        for row in rows.values():
            angles = [float(row[f"crank_0_{j}.theta_rad_world"]) for j in range(3)]
            worst = max(worst, max(abs(math.remainder(a - angles[0], 2 * math.pi))
                                   for a in angles))
        self.assertLess(worst, 1e-6, f"cranks {worst} rad from parallel")


if __name__ == "__main__":
    ARGS, argv = parse_arguments()
    unittest.main(argv=argv)
