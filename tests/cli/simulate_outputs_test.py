#!/usr/bin/python3
"""The files of `catena simulate` and `catena modal --vtk`, read back (issue 26).

Run by CTest (tests/CMakeLists.txt, label regression), one test class per CTest test
cli_simulate_outputs_CLASS; everything is written under --work (the build tree):

  Headers      every column of the time history says its unit and basis (3D and 2D), and every
               JSON summary (statics, modal, mobility, simulate, natural coordinates) has the
               same "units" entry

Usage: simulate_outputs_test.py --catena BIN --inputs DIR --work DIR [unittest arguments]
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ARGS = None
UNITS = "SI: m, kg, s, N, J, rad; frequencies in Hz"


class CatenaTest(unittest.TestCase):
    def setUp(self):
        os.makedirs(ARGS.work, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix=self.id().split(".")[-1] + "_", dir=ARGS.work)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def input(self, name):
        return os.path.join(ARGS.inputs, name)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def run_catena(self, args):
        p = subprocess.run([ARGS.catena] + args + ["--output-dir", self.dir], cwd=self.dir,
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, f"catena {' '.join(args)}\n{p.stdout}\n{p.stderr}")
        return p

    def read_csv(self, path):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        header = rows[0]
        return header, [{k: float(v) for k, v in zip(header, r)} for r in rows[1:]]

    def read_json(self, path):
        with open(path) as f:
            return json.load(f)


class Headers(CatenaTest):
    def test_spatial_columns(self):
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", self.input("pendulum.yaml")])
        header, _ = self.read_csv(self.path("pendulum.trajectory.csv"))
        self.assertEqual(header, [
            "t_s", "bob.x_m_world", "bob.y_m_world", "bob.z_m_world", "bob.qw_body_to_world",
            "bob.qx_body_to_world", "bob.qy_body_to_world", "bob.qz_body_to_world",
            "bob.vx_m/s_world", "bob.vy_m/s_world", "bob.vz_m/s_world", "bob.wx_rad/s_body",
            "bob.wy_rad/s_body", "bob.wz_rad/s_body", "hinge.Fx_N_F2", "hinge.Fy_N_F2",
            "hinge.Fz_N_F2", "hinge.Mx_Nm_F2", "hinge.My_Nm_F2", "hinge.Mz_Nm_F2", "kinetic_J",
            "potential_J", "total_J", "position_drift_m_or_rad", "velocity_drift_m/s_or_rad/s"])

    def test_planar_columns(self):
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", "--bodies", "crank_0_0",
                         "--joints", "hinge_crank_0_0_bottom", self.input("double_four_bar.yaml")])
        header, _ = self.read_csv(self.path("double_four_bar.trajectory.csv"))
        self.assertEqual(header[:7], [
            "t_s", "crank_0_0.x_m_world", "crank_0_0.y_m_world", "crank_0_0.theta_rad_world",
            "crank_0_0.vx_m/s_world", "crank_0_0.vy_m/s_world", "crank_0_0.omega_rad/s_world"])
        self.assertEqual(header[7], "hinge_crank_0_0_bottom.Fx_N_F2")

    def test_units_in_every_summary(self):
        pendulum = self.input("pendulum.yaml")
        self.run_catena(["statics", "--terse", pendulum])
        self.run_catena(["modal", "--terse", "--modes", "2", self.input("anchor_chain.yaml")])
        self.run_catena(["mobility", "--terse", pendulum])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1", pendulum])
        self.run_catena(["simulate", "--terse", "--t-end", "0.1",
                         self.input(os.path.join("natural", "rscr.yaml"))])
        for name in ["pendulum.statics.json", "anchor_chain.modal.json",
                     "pendulum.mobility.json", "pendulum.simulate.json", "rscr.simulate.json"]:
            self.assertEqual(self.read_json(self.path(name)).get("units"), UNITS, name)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--catena", required=True)
    parser.add_argument("--inputs", required=True)
    parser.add_argument("--work", required=True)
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
