#!/usr/bin/python3
"""Every file catena writes (issue 26 items 5, 6, 7; docs/reliability.md "Outputs").

Run by CTest (tests/CMakeLists.txt, label regression), one test class per CTest test:

  FullDisk, FullDiskSimulate
               --json and --csv on a full device (a private node like /dev/full when the tests
               may make one, else /dev/full itself) for statics, modal, mobility (JSON and its
               --t-end CSV), and simulate (JSON, CSV, binary, natural coordinates): exit status
               1, "cannot write PATH: No space left on device", no "summary written"
  Truncation   a write that fails partway (RLIMIT_FSIZE, SIGXFSZ ignored; lowered on the running
               simulation once its history is written): exit status 1, and neither the target
               nor a PATH.tmp.* file is left (simulate CSV and binary trajectories, statics and
               mobility JSON); a path in a missing folder leaves nothing either
  Replace      a JSON path that is a symbolic link: the link stays a link and its target is
               replaced whole (a reader holding the old file keeps the old text: no truncation
               in place); a directory and a FIFO that nobody reads are refused, named, and left
               as they were; an unwritable --vtk folder is an error naming it, not an internal
               error
  Interrupt    SIGINT and SIGTERM to `catena simulate` (generalized-alpha, IDA, natural
               coordinates): the CSV ends with a complete row, the JSON summary exists with
               "success": false and the signal, the exit status is 128 + the signal
  Scale        catena-scale --json on a full device leaves it a character device, exits 1 and
               says why

Usage: output_test.py --catena BIN --scale BIN --inputs DIR --work DIR [unittest arguments]
"""
import contextlib
import glob
import json
import os
import resource
import signal
import stat
import subprocess
import sys
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from cli_support import WorkDirTest, parse_arguments  # noqa: E402

ARGS = None


def make_full_device(folder):
    """A character device like /dev/full (1, 7) in folder, or /dev/full if mknod is refused."""
    path = os.path.join(folder, "full")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        with open(path, "wb") as f:  # a file system mounted nodev refuses to open it
            pass
        return path
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return "/dev/full"


def limit_file_size(limit=None):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() fails with EFBIG instead
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


# Open MPI's PMIx keeps its data store in files that the size limit would cut short (MPI_Init
# fails); its hash store is in memory.
LIMITED_ENV = dict(os.environ, PMIX_MCA_gds="hash")


class CatenaTest(WorkDirTest):
    def catena(self, args, expect, timeout=20, **kw):
        p = subprocess.run([ARGS.catena] + args, capture_output=True, text=True, cwd=self.dir,
                           timeout=timeout, **kw)
        self.assertEqual(p.returncode, expect, f"catena {' '.join(args)}\n{p.stdout}\n{p.stderr}")
        return p

    def assertCannotWrite(self, p, path, reason):
        self.assertIn(f"cannot write {path}: {reason}", p.stderr)
        self.assertNotIn("summary written", p.stdout)
        self.assertNotIn("internal error", p.stderr)

    def assertNothingLeft(self, target):
        self.assertFalse(os.path.lexists(target), f"{target} was left behind")
        self.assertEqual(glob.glob(target + ".tmp.*"), [], "a temporary was left behind")


class FullDeviceTest(CatenaTest):
    def setUp(self):
        super().setUp()
        self.full = make_full_device(self.dir)

    def tearDown(self):
        self.assertTrue(stat.S_ISCHR(os.stat(self.full).st_mode), "the device was replaced")
        super().tearDown()


class FullDisk(FullDeviceTest):
    def test_statics_and_modal_json(self):
        for command in ("statics", "modal"):
            p = self.catena([command, self.input("pendulum.yaml"), "--json", self.full], 1)
            self.assertCannotWrite(p, self.full, "No space left on device")

    def test_mobility_json(self):
        p = self.catena(["mobility", self.input("double_four_bar.yaml"), "--json", self.full], 1)
        self.assertCannotWrite(p, self.full, "No space left on device")

    def test_mobility_history_csv(self):
        # The history (--csv) through a link to the device.
        csv = self.path("modified_2x2_four_bar.mobility.csv")
        os.symlink(self.full, csv)
        p = self.catena(["mobility", self.input("modified_2x2_four_bar.yaml"), "--t-end", "0.2",
                         "--json", self.path("m.json"), "--csv", csv], 1)
        # The summary is in place; the history is not.
        self.assertIn(f"cannot write {csv}: No space left on device", p.stderr)
        self.assertNotIn("history written", p.stdout)
        self.assertTrue(os.path.islink(csv))



class FullDiskSimulate(FullDeviceTest):
    def test_simulate_json_csv_and_binary(self):
        pendulum = self.input("pendulum.yaml")
        for csv, js in ((self.full, self.path("s.json")), (self.path("s.csv"), self.full),
                        (self.path("s.bin"), self.full)):
            p = self.catena(["simulate", pendulum, "--t-end", "0.1", "--csv", csv, "--json", js], 1)
            self.assertCannotWrite(p, self.full, "No space left on device")
        self.assertNothingLeft(self.path("s.json"))

    def test_simulate_natural(self):
        rscr = self.input("natural/rscr.yaml")
        for csv, js in ((self.full, self.path("n.json")), (self.path("n.csv"), self.full)):
            p = self.catena(["simulate", rscr, "--t-end", "0.1", "--csv", csv, "--json", js], 1)
            self.assertCannotWrite(p, self.full, "No space left on device")
        self.assertNothingLeft(self.path("n.json"))


class Truncation(CatenaTest):
    def test_trajectory_that_outgrows_the_limit(self):
        # The limit is lowered on the running simulation (a disk filling up during a run), to
        # 1000 bytes past what its history holds: the next write stops partway.
        for name in ("t.csv", "t.bin"):
            csv, js = self.path(name), self.path(name + ".json")
            p = subprocess.Popen([ARGS.catena, "simulate", self.input("pendulum.yaml"), "--t-end",
                                  "1e5", "--output-interval", "0.001", "--csv", csv, "--json",
                                  js], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 cwd=self.dir, preexec_fn=limit_file_size())
            deadline = time.monotonic() + 10
            while not (glob.glob(csv + ".tmp.*") or os.path.exists(csv)):
                self.assertLess(time.monotonic(), deadline, "the run did not start")
                time.sleep(0.01)
            written = sum(os.path.getsize(f) for f in glob.glob(csv + ".tmp.*") + glob.glob(csv))
            resource.prlimit(p.pid, resource.RLIMIT_FSIZE, (written + 1000, written + 1000))
            try:
                out, err = p.communicate(timeout=20)
            finally:
                p.kill()
            self.assertEqual(p.returncode, 1, err)
            self.assertCannotWrite(subprocess.CompletedProcess([], 1, out, err), csv,
                                   "File too large")
            self.assertNothingLeft(csv)
            self.assertNothingLeft(js)

    def test_json_that_outgrows_the_limit(self):
        cases = (["statics", self.input("pendulum.yaml")],
                 ["mobility", self.input("double_four_bar.yaml")])
        for args in cases:
            js = self.path(args[0] + ".json")
            p = self.catena(args + ["--json", js], 1, preexec_fn=limit_file_size(200),
                            env=LIMITED_ENV)
            self.assertCannotWrite(p, js, "File too large")
            self.assertNothingLeft(js)

    def test_missing_folder(self):
        js = self.path("missing/x.json")
        p = self.catena(["mobility", self.input("double_four_bar.yaml"), "--json", js], 1)
        self.assertCannotWrite(p, js, "No such file or directory")
        self.assertFalse(os.path.exists(self.path("missing")))


class Replace(CatenaTest):
    def test_symlink_target_replaced_whole(self):
        real, link = self.path("real.json"), self.path("link.json")
        with open(real, "w") as f:
            f.write("old\n")
        os.symlink("real.json", link)
        with open(real) as reader:  # opened before the run, read after it
            self.catena(["mobility", self.input("double_four_bar.yaml"), "--json", link], 0)
            self.assertEqual(reader.read(), "old\n", "the old file was truncated in place")
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), "real.json")
        with open(real) as f:
            self.assertEqual(json.load(f)["analysis"], "mobility")
        self.assertEqual(glob.glob(self.path("*.tmp.*")), [])

    def test_directory_refused(self):
        folder = self.path("outdir")
        os.mkdir(folder)
        p = self.catena(["mobility", self.input("double_four_bar.yaml"), "--json", folder], 1)
        self.assertCannotWrite(p, folder, "it is a directory")
        self.assertTrue(os.path.isdir(folder))
        self.assertEqual(os.listdir(folder), [])

    def test_fifo_without_reader_refused(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        # An open() that waits for a reader would hang here: the timeout fails the test.
        p = self.catena(["mobility", self.input("double_four_bar.yaml"), "--json", fifo], 1,
                        timeout=10)
        self.assertCannotWrite(p, fifo, "it is a FIFO that no process reads")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_unwritable_vtk_folder(self):
        plain = self.path("plain")
        with open(plain, "w") as f:
            f.write("a file, not a folder\n")
        vtk = os.path.join(plain, "vtk")
        for args in (["modal", self.input("pendulum.yaml"), "--json", self.path("m.json")],
                     ["simulate", self.input("pendulum.yaml"), "--t-end", "0.1", "--csv",
                      self.path("s.csv"), "--json", self.path("s.json")]):
            p = self.catena(args + ["--vtk", vtk], 1)
            self.assertIn(f"cannot create the output folder {vtk}: Not a directory", p.stderr)
            self.assertNotIn("internal error", p.stderr)


class Interrupt(CatenaTest):
    def interrupt(self, args, csv, sig):
        p = subprocess.Popen([ARGS.catena] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=self.dir)
        # The history is open (so the handler is installed) once its temporary exists.
        deadline = time.monotonic() + 10
        while not (glob.glob(csv + ".tmp.*") or os.path.exists(csv)):
            self.assertLess(time.monotonic(), deadline, "the run did not start")
            self.assertIsNone(p.poll(), "the run ended before the signal")
            time.sleep(0.02)
        time.sleep(0.2)
        p.send_signal(sig)
        out, err = p.communicate(timeout=10)
        self.assertEqual(p.returncode, 128 + sig, f"{' '.join(args)}\n{out}\n{err}")
        return out, err

    def check_files(self, csv, js, sig):
        with open(csv) as f:
            text = f.read()
        self.assertTrue(text.endswith("\n"), "the last row is cut")
        lines = text.splitlines()
        self.assertGreater(len(lines), 2)
        self.assertEqual(len(lines[-1].split(",")), len(lines[0].split(",")))
        with open(js) as f:
            summary = json.load(f)
        self.assertFalse(summary["success"])
        self.assertEqual(summary["interrupted_by_signal"], sig)
        self.assertIn(f"interrupted by signal {sig}", summary["message"])
        self.assertLess(summary["t_reached_s"], 1000.0)
        self.assertEqual(glob.glob(self.path("*.tmp.*")), [])

    def test_sigint_and_sigterm(self):
        runs = ((signal.SIGINT, ["--integrator", "gen-alpha"]),
                (signal.SIGTERM, ["--integrator", "ida"]))
        for sig, integrator in runs:
            csv, js = self.path(f"p{sig}.csv"), self.path(f"p{sig}.json")
            out, err = self.interrupt(["simulate", self.input("pendulum.yaml"), "--t-end", "1e5",
                                       "--output-interval", "0.01", "--csv", csv, "--json", js]
                                      + integrator, csv, sig)
            self.assertIn("summary written", out)
            self.assertIn(f"interrupted by signal {sig}", err)
            self.check_files(csv, js, sig)

    def test_signal_between_outputs(self):
        # One output at t_end: the integrators poll the signal at every step (before
        # 2026-11-27 only the outputs did, and these runs went on until killed).
        for integrator in ("gen-alpha", "ida", "rk"):
            csv, js = self.path(f"b_{integrator}.csv"), self.path(f"b_{integrator}.json")
            out, err = self.interrupt(["simulate", self.input("pendulum.yaml"), "--t-end", "1e5",
                                       "--output-interval", "1e5", "--csv", csv, "--json", js,
                                       "--integrator", integrator], csv, signal.SIGTERM)
            self.assertIn(f"interrupted by signal {int(signal.SIGTERM)}", err, integrator)
            with open(js) as f:
                summary = json.load(f)
            self.assertFalse(summary["success"])
            self.assertEqual(summary["interrupted_by_signal"], signal.SIGTERM)
            self.assertGreater(summary["t_reached_s"], 0.0, integrator)
            self.assertLess(summary["t_reached_s"], 1e5, integrator)
            self.assertEqual(glob.glob(self.path("*.tmp.*")), [])
            # The state where the run stopped ends the history (before, the rows stopped at the
            # last output, here t = 0, and the state reached was in the summary's time only).
            with open(csv) as f:
                rows = list(f)
            last = float(rows[-1].split(",")[0])
            self.assertEqual(len(rows), 3, integrator)  # the header, t = 0, the state reached
            self.assertAlmostEqual(last, summary["t_reached_s"], delta=1e-9 * last)

    def test_natural(self):
        csv, js = self.path("n.csv"), self.path("n.json")
        self.interrupt(["simulate", self.input("natural/rscr.yaml"), "--t-end", "1e5",
                        "--output-interval", "0.001", "--csv", csv, "--json", js], csv,
                       signal.SIGINT)
        self.check_files(csv, js, signal.SIGINT)


class Scale(CatenaTest):
    def test_json_on_a_full_device(self):
        full = make_full_device(self.dir)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMP_NUM_THREADS="1")
        p = subprocess.run([ARGS.scale, "--family", "chain", "--sizes", "10", "--json", full,
                            "--checkpoint", self.path("study.ckpt")],
                           capture_output=True, text=True, cwd=self.dir, env=env, timeout=60)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(f"cannot write {full}: No space left on device", p.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(full).st_mode), "the device was replaced")


if __name__ == "__main__":
    ARGS, argv = parse_arguments(("catena", "scale"))
    for name in ("catena", "scale", "inputs", "work"):  # the runs start in their own folders
        setattr(ARGS, name, os.path.abspath(getattr(ARGS, name)))
    unittest.main(argv=argv, verbosity=2)
