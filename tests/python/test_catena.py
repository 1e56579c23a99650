"""Tests of the Python module catena (docs/python.md), run by ctest (label python) with
PYTHONPATH at build/python, CATENA_CLI the command-line program and CATENA_SOURCE the source
tree. The module's results must equal the CLI's JSON to the last digit (%.17g round-trips)."""

import json
import os
import subprocess
import tempfile
import threading
import unittest

import numpy as np

import catena

SOURCE = os.environ.get("CATENA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("CATENA_CLI", os.path.join(SOURCE, "build", "bin", "catena"))


def inp(name):
    return os.path.join(SOURCE, "inputs", name)


def run_cli(*args):
    """Runs the CLI with --terse and --json into a temporary folder: (exit status, stderr, JSON)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        p = subprocess.run([CLI, *args, "--terse", "--json", out], cwd=tmp,
                           capture_output=True, text=True)
        data = None
        if os.path.exists(out):
            with open(out) as f:
                data = json.load(f)
        return p.returncode, p.stderr, data


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class SameAsCli(unittest.TestCase):
    def test_statics(self):
        rc, _, d = run_cli("statics", inp("anchor_chain.yaml"))
        self.assertEqual(rc, 0)
        r = catena.statics(catena.load(inp("anchor_chain.yaml")))
        self.assertTrue(r.converged)
        self.assertEqual(r.iterations, d["statics"]["iterations"])
        self.assertEqual(r.q.tolist(), d["statics"]["q"])
        self.assertEqual(r.lambda_.tolist(), d["statics"]["lambda"])
        self.assertEqual(r.sag, d["statics"]["sag_m"])
        self.assertEqual(r.lowest_joint, d["statics"]["lowest_joint"])
        for k, reaction in enumerate(d["statics"]["reactions"]):
            self.assertEqual(r.joints[k], reaction["joint"])
            self.assertEqual(r.reaction_forces[k].tolist(), reaction["force_world_N"])

    def test_modal(self):
        rc, _, d = run_cli("modal", inp("anchor_chain.yaml"), "--modes", "3")
        self.assertEqual(rc, 0)
        r = catena.modal(catena.load(inp("anchor_chain.yaml")), modes=3)
        modes = d["modal"]["modes"]
        self.assertEqual(len(modes), 3)
        self.assertEqual(r.frequencies.tolist(), [x["frequency_hz"] for x in modes])
        self.assertEqual([z.imag for z in r.s], [x["s_imag"] for x in modes])
        self.assertEqual(r.directions, [x["direction"] for x in modes])
        for k, x in enumerate(modes):
            self.assertEqual(r.shapes[:, k].tolist(), x["shape_real"])
        self.assertEqual(r.shapes.shape, (catena.load(inp("anchor_chain.yaml")).n_v, 3))

    def test_mobility(self):
        rc, _, d = run_cli("mobility", inp("merged_four_bar_lattice_3x4.yaml"))
        self.assertEqual(rc, 0)
        r = catena.mobility(catena.load(inp("merged_four_bar_lattice_3x4.yaml")))
        self.assertEqual((r.n, r.m, r.rank, r.dof), (d["n"], d["m"], d["rank"], d["dof"]))
        self.assertEqual(r.redundant_rows, d["redundant_rows"])
        self.assertEqual(r.pivots.tolist(), d["pivots"])
        self.assertEqual(r.where, d["where"])
        self.assertEqual(r.tangent.shape, (r.n, r.dof))

    def test_simulate_trajectory(self):
        # The CLI's time history (max_digits10) against the module's, every integrator.
        runs = [([], {}),
                (["--integrator", "ida", "--formulation", "index3"],
                 {"integrator": "ida", "formulation": "index3"}),
                (["--integrator", "ida"], {"integrator": "ida"}),
                (["--integrator", "ida", "--formulation", "index1"],
                 {"integrator": "ida", "formulation": "index1"}),
                (["--integrator", "rk"], {"integrator": "rk"}),
                (["--integrator", "rk", "--rk-table", "fehlberg78"],
                 {"integrator": "rk", "rk_table": "fehlberg78"}),
                (["--integrator", "rk", "--accuracy", "1e-5"],
                 {"integrator": "rk", "accuracy": 1e-5}),
                (["--formulation", "mcs", "--mcs-csv", "mcs.csv"], {"formulation": "mcs"})]
        for extra, kw in runs:
            with tempfile.TemporaryDirectory() as tmp:
                csv = os.path.join(tmp, "t.csv")
                p = subprocess.run([CLI, "simulate", inp("pendulum.yaml"), "--t-end", "0.5",
                                    "--output-interval", "0.1", "--terse", "--csv", csv,
                                    "--json", os.path.join(tmp, "t.json"), *extra],
                                   cwd=tmp, capture_output=True, text=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                table = np.loadtxt(csv, delimiter=",", skiprows=1, ndmin=2)
            r = catena.simulate(catena.load(inp("pendulum.yaml")), 0.5, output_interval=0.1,
                                **kw)
            self.assertEqual(r.t.tolist(), table[:, 0].tolist())
            self.assertEqual(r.q.tolist(), table[:, 1:8].tolist())
            self.assertEqual(r.v[:, :3].tolist(), table[:, 8:11].tolist())

    def test_simulate(self):
        model = catena.load(inp("pendulum.yaml"))
        r = catena.simulate(model, 0.5, output_interval=0.1)
        self.assertTrue(r.ok)
        self.assertEqual(r.q.shape, (len(r.t), model.n))
        self.assertAlmostEqual(r.t[-1] - r.t[0], 0.5, places=12)
        ida = catena.simulate(model, 0.5, integrator="ida", formulation="index2",
                              output_interval=0.1, rtol=1e-8, atol=1e-10)
        self.assertLess(np.abs(ida.q[-1] - r.q[-1]).max(), 1e-2)


class Errors(unittest.TestCase):
    def test_input_error_is_the_cli_message(self):
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.yaml")
            with open(bad, "w") as f:
                f.write("bodies:\n  - name: bob\n    mass: -1\n")
            p = subprocess.run([CLI, "check", bad], capture_output=True, text=True)
            with self.assertRaises(catena.InputError) as e:
                catena.load(bad)
            self.assertEqual(p.returncode, 1)
            self.assertEqual(str(e.exception), p.stderr.strip())
            self.assertTrue(str(e.exception).startswith(bad + ":2:5: error:"))
            self.assertIsInstance(e.exception, catena.Error)

    def test_solver_error_is_the_cli_message(self):
        rc, err, _ = run_cli("statics", inp("pendulum.yaml"), "--no-kc")
        self.assertEqual(rc, 1)
        with self.assertRaises(catena.SolverError) as e:
            catena.statics(catena.load(inp("pendulum.yaml")), kc=False)
        self.assertEqual(str(e.exception), err.strip().splitlines()[-1])
        self.assertFalse(e.exception.result.converged)

    def test_bad_argument(self):
        with self.assertRaises(ValueError):
            catena.modal(catena.load(inp("pendulum.yaml")), modes=0)


class Matrices(unittest.TestCase):
    def test_constraint_jacobian_is_the_derivative_of_c(self):
        model = catena.load(inp("spatial_slider_crank.yaml"))
        mats = model.matrices()
        cq = mats["C_q"]
        self.assertEqual(cq.shape, (model.m, model.n_v))
        for name in ("K_c", "M", "K"):
            self.assertEqual(mats[name].shape, (model.n_v, model.n_v))
        # M is symmetric positive definite: its diagonal holds masses and inertias.
        self.assertTrue((mats["M"].diagonal() > 0).all())
        # Each column of C_q is the central difference of C along that velocity coordinate.
        q, h = model.initial_q(), 1e-6
        fd = np.empty((model.m, model.n_v))
        for j in range(model.n_v):
            e = np.zeros(model.n_v)
            e[j] = 1.0
            fd[:, j] = (model.constraints(model.apply_variation(q, e, h)) -
                        model.constraints(model.apply_variation(q, e, -h))) / (2 * h)
        self.assertLess(np.abs(fd - cq.toarray()).max(), 1e-8 * max(1.0, abs(fd).max()))
        # C_q times a motion the constraints admit vanishes.
        tangent = catena.mobility(model).tangent
        self.assertLess(np.abs(cq @ tangent).max(), 1e-10)


class Resources(unittest.TestCase):
    def test_no_leak_over_repeated_calls(self):
        model = catena.load(inp("pendulum.yaml"))
        for _ in range(500):
            catena.statics(model)
        before = rss_kib()
        for _ in range(10000):
            catena.statics(model)
        self.assertLess(rss_kib() - before, 8 * 1024, "RSS grew by more than 8 MiB")

    def test_independent_models_from_threads(self):
        expected = catena.statics(catena.load(inp("anchor_chain.yaml"))).q.tolist()
        results, errors = {}, []

        def work(k):
            try:
                for _ in range(3):
                    results[k] = catena.statics(catena.load(inp("anchor_chain.yaml"))).q.tolist()
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        for k in range(4):
            self.assertEqual(results[k], expected)


if __name__ == "__main__":
    unittest.main()
