"""What the MPI test scripts (tests/mpi/*_test.py) share: their checks, and their command line
(what tests/mpi.cmake passes: --mpiexec, --scale, --work, --catena, --inputs and a mode), each
mode one test function."""
import argparse
import os
import sys

FAILURES = []


def check(cond, message):
    """Records a failed check and goes on, so that one run reports every failure."""
    if not cond:
        FAILURES.append(message)
        print("FAIL: " + message)


def run_mode(tests, serial_optional=False):
    """Parses the command line, runs tests[mode](args) and exits: status 1 if a check failed.
    Paths are made absolute (runs may happen in folders of their own) and --work is created.
    serial_optional: --catena and --inputs may be left out (modes that do not need them)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--catena", required=not serial_optional, help="the serial catena")
    ap.add_argument("--inputs", required=not serial_optional, help="the repository's inputs/")
    ap.add_argument("mode", choices=list(tests))
    args = ap.parse_args()
    for name in ("catena", "inputs", "work"):
        if getattr(args, name):
            setattr(args, name, os.path.abspath(getattr(args, name)))
    os.makedirs(args.work, exist_ok=True)
    tests[args.mode](args)
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        sys.exit(1)
    print("all checks passed")
    sys.exit(0)
