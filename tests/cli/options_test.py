#!/usr/bin/python3
"""The command lines of catena and catena-scale (drivers/options.hpp; tests/CMakeLists.txt, label
regression). Run as  options_test.py CATENA CATENA_SCALE INPUTS_DIR WORK_DIR [TestCase ...].

  Numbers   every number is read whole and checked: inf, nan, trailing junk, a fraction for an
            integer, zero or negative where a positive value is needed, integer overflow; all
            refused with exit status 2 and a message naming the option, what it expects and
            what came, before the FILE is read (the FILE given does not exist: reading it would
            fail with exit status 1 instead)
  Commands  an option of another command is refused naming the commands it belongs to;
            `catena COMMAND --help` (and -h) prints that command's options only, exit status 0
  Scale     catena-scale --sizes and its other numbers, refused before MPI starts
  Petsc     a PETSc option that nothing read is warned of at the end of the run (statics, which
            starts PETSc; check, which does not); the options the solvers read are not
"""
import os
import subprocess
import sys
import tempfile
import unittest

CATENA = CATENA_SCALE = INPUTS = WORK = None
MISSING = "no_such_mechanism.yaml"  # never read: the command line is refused first


def run(program, args, cwd=None):
    """Runs program with args (10 s at most: an unchecked size allocates until killed)."""
    return subprocess.run([program] + args, capture_output=True, text=True, timeout=10,
                          cwd=cwd or WORK)


class Refusals(unittest.TestCase):
    def assertRefused(self, program, args, *messages):
        p = run(program, args)
        self.assertEqual(p.returncode, 2, f"{args}: exit {p.returncode}, stderr: {p.stderr}")
        for message in messages:
            self.assertIn(message, p.stderr, f"{args}")


class Numbers(Refusals):
    def test_t_end_inf_with_a_real_file(self):
        # Accepted before: 0 steps and exit status 0.
        self.assertRefused(CATENA, ["simulate", "--t-end", "inf",
                                    os.path.join(INPUTS, "pendulum.yaml")],
                           "catena simulate: --t-end expects a finite number > 0 s, got 'inf'")

    def test_simulate(self):
        for option, value, expected in [
                ("--t-end", "1abc", "a finite number > 0 s"),
                ("--t-end", "nan", "a finite number > 0 s"),
                ("--t-end", " 1", "a finite number > 0 s"),
                ("--dt", "inf", "a finite number > 0 s"),
                ("--tolerance", "inf", "a finite number > 0"),
                ("--atol", "inf", "a finite number > 0"),
                ("--rtol", "1e400", "a finite number > 0"),
                ("--output-interval", "0", "a finite number > 0 s"),
                ("--output-interval", "-1", "a finite number > 0 s"),
                ("--output-interval", "nan", "a finite number > 0 s"),
                ("--newton-tolerance", "inf", "a finite number >= 0"),
                ("--rho-inf", "0.5x", "a finite number in [0, 1)")]:
            with self.subTest(option=option, value=value):
                self.assertRefused(CATENA, ["simulate", option, value, MISSING],
                                   f"catena simulate: {option} expects {expected}",
                                   f"got '{value}'")

    def test_modal(self):
        for value in ["2.5", "0", "-1", "4294967297", "99999999999999999999", "3x"]:
            with self.subTest(value=value):
                self.assertRefused(CATENA, ["modal", "--modes", value, MISSING],
                                   f"--modes expects an integer in [1, 1000000], got '{value}'")
        self.assertRefused(CATENA, ["modal", "--target", "inf", MISSING],
                           "--target expects a finite number >= 0 Hz, got 'inf'")

    def test_mobility(self):
        for option, value in [("--t-end", "inf"), ("--interval", "1abc"), ("--margin", "nan"),
                              ("--rank-tolerance", "1")]:
            with self.subTest(option=option, value=value):
                self.assertRefused(CATENA, ["mobility", option, value, MISSING],
                                   f"{option} expects a finite number")


class Commands(Refusals):
    def test_option_of_another_command(self):
        for command, option, owners in [
                ("statics", ["--modes", "3"], "--modes is an option of modal, not of statics"),
                ("statics", ["--vtk", "out"], "--vtk is an option of modal and simulate"),
                ("check", ["--t-end", "1"], "--t-end is an option of simulate and mobility"),
                ("check", ["--no-kc"], "--no-kc is an option of statics, modal and simulate"),
                ("mobility", ["--dt", "0.1"], "--dt is an option of simulate, not of mobility"),
                ("simulate", ["--modes", "2"], "--modes is an option of modal, not of simulate")]:
            with self.subTest(command=command, option=option):
                self.assertRefused(CATENA, [command] + option + [MISSING], owners)

    def test_unknown_option(self):
        self.assertRefused(CATENA, ["statics", "--bogus", MISSING], "unknown option '--bogus'")

    def test_command_help(self):
        # What only that command's help says.
        own = {"statics": "STEM.statics.json", "modal": "--modes K", "simulate": "--integrator I",
               "mobility": "--margin M"}
        for command in ["check", "statics", "modal", "simulate", "mobility"]:
            for flag in ["--help", "-h"]:
                with self.subTest(command=command, flag=flag):
                    p = run(CATENA, [command, MISSING, flag])
                    self.assertEqual(p.returncode, 0, p.stderr)
                    self.assertTrue(p.stdout.startswith(f"usage: catena {command} "), p.stdout)
                    for other, text in own.items():
                        if other == command:
                            self.assertIn(text, p.stdout)
                        else:
                            self.assertNotIn(text, p.stdout)

    def test_overall_help(self):
        p = run(CATENA, ["--help"])
        self.assertEqual(p.returncode, 0)
        for command in ["check", "statics", "modal", "simulate", "mobility"]:
            self.assertIn(f"options of {command}:", p.stdout)


class Scale(Refusals):
    def test_sizes(self):
        # 4294967298 ran a 2-link chain (and said "size":4294967298,"status":"ok"); 10^11 was
        # allocated until the process was killed.
        for value in ["4294967298", "100000000000", "100000002", "0", "-2", "2.5", "40,4x", ""]:
            with self.subTest(value=value):
                self.assertRefused(CATENA_SCALE, ["--sizes", value],
                                   "--sizes expects integers in [1, 100000000] separated by "
                                   "commas, got '")

    def test_numbers(self):
        for option, value, expected in [
                ("--t-end", "inf", "a finite number > 0 s"),
                ("--t-end", "1abc", "a finite number > 0 s"),
                ("--rtol", "nan", "a finite number in (0, 1)"),
                ("--segment", "inf", "a finite number >= 0 s"),
                ("--modes", "2.5", "an integer in [1, 1000000]"),
                ("--repeats", "4294967297", "an integer in [1, 1000000]"),
                ("--stop-after", "1e3", "an integer in [0, 1000000]")]:
            with self.subTest(option=option, value=value):
                self.assertRefused(CATENA_SCALE, ["--sizes", "40", option, value],
                                   f"catena-scale: {option} expects {expected}",
                                   f"got '{value}'")

    def test_help(self):
        for flag in ["--help", "-h"]:
            p = run(CATENA_SCALE, [flag])
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn("--sizes N,N,...", p.stdout)


class Petsc(unittest.TestCase):
    def statics(self, extra):
        with tempfile.TemporaryDirectory(dir=WORK) as cwd:
            p = run(CATENA, ["statics", "--terse", os.path.join(INPUTS, "pendulum.yaml")] + extra,
                    cwd=cwd)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stderr

    def test_unused_option_warns(self):
        err = self.statics(["-statics_ksp_tpye", "gmres"])
        self.assertIn("catena: warning: PETSc option -statics_ksp_tpye was not used", err)

    def test_used_option_is_quiet(self):
        self.assertNotIn("warning", self.statics(["-statics_pc_factor_mat_solver_type", "mumps"]))

    def test_command_without_petsc_warns(self):
        p = run(CATENA, ["check", "--terse", os.path.join(INPUTS, "pendulum.yaml"), "-ksp_type",
                         "gmres"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("catena: warning: PETSc option -ksp_type was not used", p.stderr)


if __name__ == "__main__":
    CATENA, CATENA_SCALE, INPUTS, WORK = sys.argv[1:5]
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + sys.argv[5:], verbosity=2)
