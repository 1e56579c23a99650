"""What the command-line tests in this folder share: a test case with a folder of its own.

WorkDirTest.work_root (the folder under the build tree that every test case's folder goes in) and
WorkDirTest.inputs (the repository's inputs/) are set by each script's main() from its
arguments before the tests run. Nothing is written outside `work_root`.
"""
import argparse
import os
import shutil
import sys
import tempfile
import unittest


class WorkDirTest(unittest.TestCase):
    work_root = None
    inputs = None

    def setUp(self):
        os.makedirs(self.work_root, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix=self.id().split(".")[-1] + "_", dir=self.work_root)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def input(self, name):
        return os.path.join(self.inputs, name)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)


def parse_arguments(programs=("catena",)):
    """The arguments of every script here: --NAME BIN for each of `programs`, --inputs DIR and
    --work DIR (any others are unittest's). Sets WorkDirTest's folders from them; returns the
    parsed arguments and the argv for unittest.main."""
    parser = argparse.ArgumentParser()
    for name in tuple(programs) + ("inputs", "work"):
        parser.add_argument("--" + name, required=True)
    args, rest = parser.parse_known_args()
    WorkDirTest.work_root, WorkDirTest.inputs = args.work, args.inputs
    return args, [sys.argv[0]] + rest
