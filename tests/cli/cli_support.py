"""What the command-line tests in this folder share: a test case with a folder of its own.

WorkDirTest.work_root (the folder under the build tree that every test case's folder goes in) and
WorkDirTest.inputs (the repository's inputs/) are set by each script's main() from its
arguments before the tests run. Nothing is written outside `work_root`.
"""
import os
import shutil
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
