"""Tests of catena.mobility's block-wise rank and rank history, and of the formulations beside
the mixed basis in catena.simulate (natural-coordinate files, rotation-matrix bodies);
docs/python.md. Run by ctest (label python) as test_catena.py is: PYTHONPATH at build/python,
CATENA_CLI the command-line program, CATENA_SOURCE the source tree. Results taken by the CLI
are compared to the last digit (its CSV columns are written with 17 significant digits)."""

import csv
import json
import os
import subprocess
import tempfile
import unittest

import numpy as np

import catena

SOURCE = os.environ.get("CATENA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("CATENA_CLI", os.path.join(SOURCE, "build", "bin", "catena"))


def inp(name):
    return os.path.join(SOURCE, "inputs", name)


def run_cli(*args, with_csv=True):
    """Runs `catena ARGS --terse` with --json (and --csv) into a temporary folder: (exit status,
    stderr, JSON, CSV rows as lists of strings with the header first)."""
    with tempfile.TemporaryDirectory() as tmp:
        js, cs = os.path.join(tmp, "out.json"), os.path.join(tmp, "out.csv")
        files = ["--json", js] + (["--csv", cs] if with_csv else [])
        p = subprocess.run([CLI, *args, "--terse", *files], cwd=tmp, capture_output=True,
                           text=True)
        data, rows = None, None
        if os.path.exists(js):
            with open(js) as f:
                data = json.load(f)
        if os.path.exists(cs):
            with open(cs) as f:
                rows = list(csv.reader(f))
        return p.returncode, p.stderr, data, rows


def column(rows, name, kind=float):
    k = rows[0].index(name)
    return [kind(r[k]) for r in rows[1:]]


class BlockwiseMobility(unittest.TestCase):
    def test_blockwise_rank_equals_dense_and_cli(self):
        model = catena.load(inp("merged_four_bar_lattice_3x4.yaml"))
        dense = catena.mobility(model)
        block = catena.mobility(model, blockwise=True)
        self.assertFalse(dense.blockwise)
        self.assertTrue(block.blockwise)
        self.assertIsNone(block.tangent)
        self.assertEqual((block.n, block.m, block.rank, block.dof),
                         (dense.n, dense.m, dense.rank, dense.dof))
        self.assertEqual(len(block.redundant_rows), len(dense.redundant_rows))
        rc, _, d, _ = run_cli("mobility", "--blockwise", inp("merged_four_bar_lattice_3x4.yaml"),
                                with_csv=False)
        self.assertEqual(rc, 0)
        self.assertEqual((block.rank, block.dof), (d["rank"], d["dof"]))
        self.assertEqual(block.redundant_rows, d["redundant_rows"])
        self.assertEqual(block.where, d["where"])

    def test_dense_refused_above_its_size(self):
        # blockwise=False asks for the dense QRCP, which stops at 2000 velocity coordinates.
        text = ("name: big\ndimension: 2\ngravity: [0, -9.81]\ngenerator:\n"
                "  type: four_bar_lattice\n  levels: 30\n  cells: 12\n")
        try:
            model = catena.loads(text)
        except catena.InputError:
            self.skipTest("generator keys changed")
        if model.n_v <= 2000:
            self.skipTest("model too small")
        with self.assertRaises(ValueError):
            catena.mobility(model, blockwise=False)


class RankHistory(unittest.TestCase):
    def check_history(self, blockwise):
        args = ["mobility", "--t-end", "0.2", "--interval", "0.01"]
        if blockwise:
            args.append("--blockwise")
        rc, _, _, rows = run_cli(*args, inp("modified_2x2_four_bar.yaml"))
        self.assertEqual(rc, 0)
        r = catena.mobility(catena.load(inp("modified_2x2_four_bar.yaml")), blockwise=blockwise,
                            t_end=0.2, interval=0.01)
        h = r.history
        self.assertTrue(h.ok, h.message)
        self.assertEqual(h.times.tolist(), column(rows, "t_s"))
        self.assertEqual(h.rank.tolist(), column(rows, "rank", int))
        self.assertEqual(h.smallest_retained.tolist(), column(rows, "smallest_retained"))
        self.assertEqual(h.largest_dropped.tolist(), column(rows, "largest_dropped"))
        self.assertEqual((r.n - h.rank).tolist(), column(rows, "dof", int))

    def test_dense_history_equals_cli_csv(self):
        self.check_history(False)

    def test_blockwise_history_equals_cli_csv(self):
        self.check_history(True)

    def test_singular_configurations_met(self):
        # The merged lattice's level-0 cranks pass horizontal at t = 0.73 s (the input's header).
        r = catena.mobility(catena.load(inp("merged_four_bar_lattice_3x4.yaml")), t_end=0.8,
                            interval=0.02)
        h = r.history
        self.assertTrue(h.ok, h.message)
        self.assertGreaterEqual(len(h.singular), 1)
        e = h.singular[0]
        self.assertAlmostEqual(e.t, 0.73, delta=0.02)
        self.assertGreaterEqual(e.motions, 1)
        self.assertTrue(all(isinstance(name, str) for name in e.rows))
        self.assertEqual(h.rank.shape, h.times.shape)


class Natural(unittest.TestCase):
    def check_same_as_cli(self, name, t_end, interval):
        path = inp(os.path.join("natural", name))
        rc, _, d, rows = run_cli("simulate", "--t-end", str(t_end), "--output-interval",
                                 str(interval), path)
        self.assertEqual(rc, 0)
        model = catena.load_natural(path)
        r = catena.simulate(model, t_end=t_end, output_interval=interval)
        self.assertTrue(r.ok, r.message)
        self.assertEqual(r.method, d["method"])
        self.assertEqual(r.steps, d["statistics"]["steps"])
        self.assertEqual(r.t.tolist(), column(rows, "t_s"))
        for k, c in enumerate(model.coordinates):
            self.assertEqual(r.q[:, k].tolist(), column(rows, c))
            self.assertEqual(r.v[:, k].tolist(), column(rows, c + "_rate"))
        self.assertEqual(r.energy.tolist(), column(rows, "energy_J"))
        self.assertEqual(r.max_abs_C.tolist(), column(rows, "max_abs_C"))
        return model, r

    def test_dynamics_equal_cli_csv(self):
        model, r = self.check_same_as_cli("rscr.yaml", 0.2, 0.02)
        self.assertFalse(model.massless)
        self.assertEqual(r.q.shape, (len(r.t), model.n))

    def test_kinematics_equal_cli_csv(self):
        model, r = self.check_same_as_cli("closed_chain_robot.yaml", 0.2, 0.05)
        self.assertTrue(model.massless)
        self.assertGreaterEqual(r.free_dof, 0)

    def test_load_error_names_file_line_column(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("formulation: natural\ntitle: broken\ndimension: 5\n")
        try:
            with self.assertRaises(catena.InputError) as e:
                catena.load_natural(f.name)
            self.assertIn(f.name + ":", str(e.exception))
            self.assertIn("error:", str(e.exception))
        finally:
            os.unlink(f.name)

    def test_refuses_other_integrators(self):
        with self.assertRaises(ValueError):
            catena.simulate(catena.load_natural(inp("natural/rscr.yaml")), t_end=0.1,
                            integrator="gen-alpha")


class RotationMatrix(unittest.TestCase):
    def test_double_pendulum_agrees_with_the_mixed_basis(self):
        model = catena.load(inp("double_pendulum.yaml"))
        ref = catena.simulate(model, 0.5, integrator="ida", formulation="index2",
                              output_interval=0.05, rtol=1e-10, atol=1e-12)
        for method in ("ida", "two_step"):
            r = catena.simulate(model, 0.5, integrator=method, formulation="rotation_matrix",
                                output_interval=0.05, rtol=1e-10, atol=1e-12)
            self.assertTrue(r.ok, r.message)
            self.assertEqual(r.t.shape, ref.t.shape)
            np.testing.assert_allclose(r.t, ref.t, rtol=0, atol=1e-12)
            self.assertEqual(r.q.shape, (len(r.t), 24))
            # Centres of mass (the bodies' frame origins in the mixed basis): 3e-11 m measured.
            worst = max(np.abs(r.centres[:, 3 * b:3 * b + 3] - ref.q[:, 7 * b:7 * b + 3]).max()
                        for b in range(2))
            self.assertLess(worst, 1e-8, method)
            # The energy (kinetic + gravitational) is conserved to the tolerance.
            self.assertLess(np.ptp(r.energy), 1e-9)

    def test_refused_model_raises_the_librarys_sentence(self):
        path = inp("pendulum.yaml")  # a revolute joint
        with self.assertRaises(catena.InputError) as e:
            catena.simulate(catena.load(path), 0.1, integrator="ida",
                            formulation="rotation_matrix")
        self.assertTrue(str(e.exception).startswith(path + ": error: rotation-matrix bodies: "),
                        str(e.exception))
        self.assertIn("is not a scleronomic spherical joint", str(e.exception))

    def test_refuses_gen_alpha(self):
        with self.assertRaises(ValueError):
            catena.simulate(catena.load(inp("double_pendulum.yaml")), 0.1,
                            formulation="rotation_matrix")


if __name__ == "__main__":
    unittest.main()
