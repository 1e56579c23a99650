"""Tests of catena.Builder (docs/python.md, "Building a mechanism in Python"), run by ctest
(label python) with PYTHONPATH at build/python and CATENA_SOURCE the source tree.

A mechanism is written once as a dict in the YAML format's structure; `yaml_text` turns it into
YAML (JSON is YAML) for catena.loads and `build` makes the same calls on a Builder, one keyword
per key. Models must be equal bit for bit, and each validation error must carry the loader's
sentence (the text after "FILE:LINE:COL: " from loads, after "Builder.<call>(...): " here)."""

import copy
import json
import os
import re
import unittest

import catena

SOURCE = os.environ.get("CATENA_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))


def inp(name):
    return os.path.join(SOURCE, "inputs", name)


def yaml_text(spec):
    return json.dumps(spec)  # repr of floats: the loader reads back the same doubles


def build(spec):
    """The Builder calls that translate `spec` (the YAML's structure) one to one."""
    spec = copy.deepcopy(spec)
    b = catena.Builder(dimension=spec.get("dimension", 3), name=spec.get("name", "mechanism"))
    if "gravity" in spec:
        b.set_gravity(spec["gravity"])
    if "generator" in spec:
        g = spec["generator"]
        getattr(b, "add_" + g.pop("type"))(**g)
    for body in spec.get("bodies", []):
        b.add_body(**body)
    for marker in spec.get("markers", []):
        b.add_marker(**marker)
    for joint in spec.get("joints", []):
        b.add_joint(**joint)
    for force in spec.get("forces", []):
        getattr(b, "add_" + force.pop("type"))(**force)
    return b.build()


def after_prefix(message, prefix):
    m = re.match(prefix, message)
    if m is None:
        raise AssertionError(f"{message!r} does not start with /{prefix}/")
    return message[m.end():]


LOADER_PREFIX = r"<string>:\d+:\d+: "
BUILDER_PREFIX = r"Builder(\.\w+(\('[^']*'\))?)?: "

# A 3D pendulum on a revolute with a follower load, a pulse load, a spring and a rotational
# spring, a second body on a driven joint, and the forms of inertia and orientation.
PENDULUM_3D = {
    "name": "pendulum_3d",
    "dimension": 3,
    "gravity": [0.0, 0.0, -9.81],
    "bodies": [
        {"name": "arm", "mass": 1.5, "inertia": [0.02, 0.3, 0.31, 0.001, 0.0, -0.002],
         "com": [0.05, 0.0, 0.0], "position": [0.5, 0.0, 0.0],
         "orientation": {"axis": [0.0, 1.0, 0.2], "angle_deg": 12.5},
         "angular_velocity": [0.0, 0.4, 0.0], "fixed": ["x", "rz"]},
        {"name": "tip", "mass": 0.3,
         "inertia": [[0.001, 0.0, 0.0], [0.0, 0.002, 0.0], [0.0, 0.0, 0.002]],
         "position": [1.1, 0.0, 0.0],
         "orientation": {"quaternion": [0.999, 0.0, 0.0447, 0.0]},
         "velocity": [0.0, 0.01, 0.0]},
    ],
    "markers": [
        {"name": "ground/o", "body": "ground", "position": [0.0, 0.0, 0.0],
         "orientation": {"axis": [0.0, 0.0, 1.0], "angle": 1.5707963267948966}},
        {"name": "arm/o", "body": "arm", "position": [-0.5, 0.0, 0.0],
         "orientation": {"axis": [0.0, 0.0, 1.0], "angle": 1.5707963267948966}},
        {"name": "arm/end", "body": "arm", "position": [0.5, 0.0, 0.0]},
        {"name": "tip/o", "body": "tip", "position": [-0.1, 0.0, 0.0]},
        {"name": "ground/s", "body": "ground", "position": [0.5, 0.3, 0.2]},
    ],
    "joints": [
        {"name": "hinge", "type": "revolute", "marker1": "arm/o", "marker2": "ground/o"},
        {"name": "drive", "type": "driven_revolute", "marker1": "tip/o", "marker2": "arm/end",
         "motion": {"axis": [0.0, 0.0, 1.0],
                    "angle_deg": {"type": "sine", "amplitude": 5.0, "frequency": 0.5}}},
    ],
    "forces": [
        {"type": "load", "name": "push", "marker": "arm/end", "force": [0.0, 1.0, 0.5],
         "torque": [0.0, 0.0, 0.1], "basis": "marker",
         "scale": {"type": "ramp", "initial": 0.5, "slope": 2.0, "start": 0.1}},
        {"type": "load", "name": "kick", "marker": "tip/o", "force": [0.0, 0.0, 3.0],
         "scale": {"type": "pulse", "value": 1.0, "start": 0.2, "end": 0.3}},
        {"type": "spring", "name": "spring", "marker1": "arm/end", "marker2": "ground/s",
         "stiffness": 40.0, "damping": 0.5, "rest_length": 0.1, "preload": 1.0},
        {"type": "rotational_spring", "name": "torsion", "marker1": "arm/o",
         "marker2": "ground/o", "stiffness": 2.0, "damping": 0.1},
    ],
}

# A planar double pendulum: a revolute, a distance joint with a polynomial length, a lock with a
# mask on a slider, loads with scalar torques and a rotational spring with a rest angle.
PENDULUM_2D = {
    "name": "pendulum_2d",
    "dimension": 2,
    "gravity": [0.0, -9.81],
    "bodies": [
        {"name": "bar", "mass": 1.0, "inertia": 0.0833, "position": [0.0, -0.5],
         "angle_deg": -90.0, "angular_velocity": 0.3, "fixed": ["theta"]},
        {"name": "bob", "mass": 0.5, "inertia": 0.001, "position": [0.3, -1.4],
         "orientation": {"angle": 0.1}},
        {"name": "slider", "mass": 2.0, "inertia": 0.01, "position": [2.0, 0.0],
         "velocity": [0.1, 0.0]},
    ],
    "markers": [
        {"name": "ground/o", "body": "ground", "position": [0.0, 0.0]},
        {"name": "ground/rail", "body": "ground", "position": [2.0, 0.0], "angle": 0.0},
        {"name": "bar/top", "body": "bar", "position": [-0.5, 0.0]},
        {"name": "bar/end", "body": "bar", "position": [0.5, 0.0]},
        {"name": "bob/c", "body": "bob", "position": [0.0, 0.0]},
        {"name": "slider/c", "body": "slider", "position": [0.0, 0.0], "angle_deg": 0.0},
    ],
    "joints": [
        {"name": "hinge", "type": "revolute", "marker1": "bar/top", "marker2": "ground/o"},
        {"name": "rope", "type": "distance", "marker1": "bob/c", "marker2": "bar/end",
         "length": {"type": "polynomial", "coefficients": [0.5, 0.0, 0.01]}},
        {"name": "rail", "type": "lock", "marker1": "slider/c", "marker2": "ground/rail",
         "mask": [0, 1, 1]},
    ],
    "forces": [
        {"type": "load", "name": "wind", "marker": "bob/c", "force": [0.5, 0.0], "torque": 0.01},
        {"type": "spring", "name": "tie", "marker1": "slider/c", "marker2": "bar/end",
         "stiffness": 10.0, "rest_length": 1.5},
        {"type": "rotational_spring", "name": "torsion", "marker1": "bar/top",
         "marker2": "ground/o", "stiffness": 1.0, "rest_angle_deg": -80.0},
        {"type": "rotational_spring", "name": "bob_torsion", "marker1": "bob/c",
         "marker2": "bar/end", "stiffness": 0.5, "rest_angle": 0.1},
    ],
}

CATENARY = {"name": "catenary_chain", "gravity": [0, 0, -9.81],
            "generator": {"type": "catenary_chain", "links": 12, "end_a": [0, 0, 0],
                          "end_b": [10, 0, 0], "sag_point": [5, 0, -6],
                          "mass_per_length": 1.0, "radius": 0.02}}

NODE_CHAIN = {"name": "anchor_chain", "gravity": [0, 0, -9.81],
              "generator": {"type": "node_chain", "nodes_per_leg": 10, "node_mass": 10.0,
                            "node_inertia": 10.0}}

LATTICE = {"name": "lattice", "dimension": 2, "gravity": [0, -9.81],
           "generator": {"type": "four_bar_lattice", "levels": 2, "cells": 3,
                         "merged_couplers": True, "crank_angle_deg": 80, "crank_rate": -1.0,
                         "level_rates": [0.5, -0.5]}}


class SameAsYaml(unittest.TestCase):
    def assertSameModel(self, built, loaded):
        self.assertEqual((built.n, built.n_v, built.m), (loaded.n, loaded.n_v, loaded.m))
        self.assertEqual(built.bodies, loaded.bodies)
        self.assertEqual(built.joints, loaded.joints)
        self.assertEqual([built.row_name(i) for i in range(built.m)],
                         [loaded.row_name(i) for i in range(loaded.m)])
        self.assertEqual(built.initial_q().tolist(), loaded.initial_q().tolist())
        for key, matrix in built.matrices().items():
            other = loaded.matrices()[key]
            self.assertEqual((matrix != other).nnz, 0, key)

    def assertSameStatics(self, built, loaded, **kw):
        a, b = catena.statics(built, **kw), catena.statics(loaded, **kw)
        self.assertTrue(a.converged, a.message)
        self.assertEqual(a.iterations, b.iterations)
        self.assertEqual(a.q.tolist(), b.q.tolist())
        self.assertEqual(a.lambda_.tolist(), b.lambda_.tolist())
        self.assertEqual(a.reaction_forces.tolist(), b.reaction_forces.tolist())

    def assertSameModal(self, built, loaded, modes=4):
        a, b = catena.modal(built, modes=modes), catena.modal(loaded, modes=modes)
        self.assertTrue(a.ok, a.message)
        self.assertEqual(a.frequencies.tolist(), b.frequencies.tolist())
        self.assertEqual(a.shapes.tolist(), b.shapes.tolist())

    def check(self, spec, statics=True, modal=True):
        built, loaded = build(spec), catena.loads(yaml_text(spec))
        self.assertSameModel(built, loaded)
        self.assertEqual(built.name, spec["name"])
        if statics:
            self.assertSameStatics(built, loaded)
        if modal:
            self.assertSameModal(built, loaded)
        return built, loaded

    def test_pendulum_3d_with_loads_and_springs(self):
        built, loaded = self.check(PENDULUM_3D)
        # The time functions (motion, load scale) at a later time.
        q = catena.statics(built).q
        self.assertEqual(built.constraints(q, t=0.37).tolist(),
                         loaded.constraints(q, t=0.37).tolist())
        for key, matrix in built.matrices(q, t=0.37).items():
            self.assertEqual((matrix != loaded.matrices(q, t=0.37)[key]).nnz, 0, key)
        # The tip's quaternion is not unit: the same warning, named by the call.
        self.assertEqual(len(built.warnings), len(loaded.warnings))
        for w, v in zip(built.warnings, loaded.warnings):
            self.assertEqual(after_prefix(w, BUILDER_PREFIX), after_prefix(v, LOADER_PREFIX))
        self.assertTrue(built.warnings[0].startswith("Builder.add_body('tip'): warning: "))

    def test_planar_model(self):
        built, loaded = self.check(PENDULUM_2D, modal=False)
        self.assertEqual(catena.simulate(built, 0.3).q.tolist(),
                         catena.simulate(loaded, 0.3).q.tolist())

    def test_generated_chains(self):
        self.check(CATENARY)
        self.check(NODE_CHAIN)

    def test_lattice(self):
        built, loaded = self.check(LATTICE, statics=False, modal=False)
        self.assertEqual(catena.mobility(built).pivots.tolist(),
                         catena.mobility(loaded).pivots.tolist())

    def test_input_files(self):
        # The shipped inputs, written as calls by hand.
        b = catena.Builder(dimension=2, name="double_four_bar")
        b.set_gravity([0, -9.81])
        b.add_four_bar_lattice(levels=1, cells=2, merged_couplers=False, cell_width=1.0,
                               crank_length=1.0, crank_angle_deg=90, crank_rate=-1.0,
                               mass_per_length=1.0)
        built, loaded = b.build(), catena.load(inp("double_four_bar.yaml"))
        self.assertSameModel(built, loaded)
        self.assertEqual(catena.simulate(built, 0.2).q.tolist(),
                         catena.simulate(loaded, 0.2).q.tolist())

        b = catena.Builder(name="anchor_chain")
        b.set_gravity((0, 0, -9.81))
        b.add_node_chain(nodes_per_leg=20, end_a=[0, 0, 0], end_b=[10, 0, 0],
                         sag_point=[5, 0, -6], node_mass=10.0, node_inertia=10.0)
        built, loaded = b.build(), catena.load(inp("anchor_chain.yaml"))
        self.assertSameModel(built, loaded)
        self.assertSameModal(built, loaded)

    def test_numpy_arguments(self):
        import numpy as np
        spec = copy.deepcopy(PENDULUM_3D)
        body = spec["bodies"][1]
        body["inertia"] = np.array(body["inertia"])
        body["position"] = np.array(body["position"])
        body["mass"] = np.float64(body["mass"])
        self.assertEqual(build(spec).initial_q().tolist(),
                         catena.loads(yaml_text(PENDULUM_3D)).initial_q().tolist())


def with_change(spec, change):
    spec = copy.deepcopy(spec)
    change(spec)
    return spec


def first(spec, section, name):
    return next(x for x in spec[section] if x["name"] == name)


def set_(section, element, **values):
    def change(spec):
        first(spec, section, element).update(values)
    return change


def drop(section, name, key):
    def change(spec):
        del first(spec, section, name)[key]
    return change


def append(section, item):
    def change(spec):
        spec.setdefault(section, []).append(item)
    return change


def generator(**values):
    def change(spec):
        spec["generator"].update(values)
    return change


# (what is wrong, the model, the change, the Builder call that must be named)
ERRORS = [
    ("negative mass", PENDULUM_3D, set_("bodies", "arm", mass=-1.0), "add_body('arm')"),
    ("mass out of range", PENDULUM_3D, set_("bodies", "arm", mass=1e-30), "add_body('arm')"),
    ("asymmetric inertia", PENDULUM_3D,
     set_("bodies", "tip", inertia=[[1.0, 0.1, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),
     "add_body('tip')"),
    ("triangle inequality", PENDULUM_3D, set_("bodies", "arm", inertia=[1.0, 1.0, 3.0]),
     "add_body('arm')"),
    ("duplicate body", PENDULUM_3D,
     append("bodies", {"name": "arm", "mass": 1.0, "inertia": [1.0, 1.0, 1.0]}),
     "add_body('arm')"),
    ("body named ground", PENDULUM_3D,
     append("bodies", {"name": "ground", "mass": 1.0, "inertia": [1.0, 1.0, 1.0]}),
     "add_body('ground')"),
    ("2D key in 3D", PENDULUM_3D, set_("bodies", "arm", angle=0.3), "add_body('arm')"),
    ("unknown fixed coordinate", PENDULUM_3D, set_("bodies", "arm", fixed=["theta"]),
     "add_body('arm')"),
    ("quaternion and axis", PENDULUM_3D,
     set_("bodies", "tip", orientation={"quaternion": [1, 0, 0, 0], "axis": [1, 0, 0]}),
     "add_body('tip')"),
    ("zero axis", PENDULUM_3D,
     set_("bodies", "arm", orientation={"axis": [0, 0, 0], "angle": 1.0}), "add_body('arm')"),
    ("angle without axis", PENDULUM_3D,
     set_("bodies", "arm", orientation={"angle": 1.0}), "add_body('arm')"),
    ("unknown orientation key", PENDULUM_3D,
     set_("bodies", "arm", orientation={"axes": [1, 0, 0]}), "add_body('arm')"),
    ("zero quaternion", PENDULUM_3D,
     set_("bodies", "tip", orientation={"quaternion": [0, 0, 0, 0]}), "add_body('tip')"),
    ("orientation and angle in 2D", PENDULUM_2D, set_("bodies", "bob", angle=0.2),
     "add_body('bob')"),
    ("angle and angle_deg", PENDULUM_2D, set_("bodies", "bar", angle=0.2), "add_body('bar')"),
    ("marker on an unknown body", PENDULUM_3D, set_("markers", "arm/end", body="armm"),
     "add_marker('arm/end')"),
    ("duplicate marker", PENDULUM_3D,
     append("markers", {"name": "arm/o", "body": "arm"}), "add_marker('arm/o')"),
    ("unknown marker", PENDULUM_3D, set_("joints", "hinge", marker1="x"), "add_joint('hinge')"),
    ("same body", PENDULUM_3D, set_("joints", "hinge", marker2="arm/end"), "add_joint('hinge')"),
    ("joint type of the other dimension", PENDULUM_3D, set_("joints", "hinge", type="distance"),
     "add_joint('hinge')"),
    ("unknown joint type", PENDULUM_2D, set_("joints", "hinge", type="hinge"),
     "add_joint('hinge')"),
    ("mask on a revolute", PENDULUM_3D, set_("joints", "hinge", mask=[1, 1, 1, 0, 0, 0]),
     "add_joint('hinge')"),
    ("lock without mask", PENDULUM_2D, drop("joints", "rail", "mask"), "add_joint('rail')"),
    ("mask entry not 0 or 1", PENDULUM_2D, set_("joints", "rail", mask=[0, 2, 1]),
     "add_joint('rail')"),
    ("empty mask", PENDULUM_2D, set_("joints", "rail", mask=[0, 0, 0]), "add_joint('rail')"),
    ("distance without length", PENDULUM_2D, drop("joints", "rope", "length"),
     "add_joint('rope')"),
    ("non-positive length", PENDULUM_2D, set_("joints", "rope", length=-1.0),
     "add_joint('rope')"),
    ("duplicate joint", PENDULUM_3D,
     append("joints", {"name": "hinge", "type": "spherical", "marker1": "tip/o",
                       "marker2": "ground/s"}), "add_joint('hinge')"),
    ("pulse motion", PENDULUM_3D,
     set_("joints", "drive", motion={"angle": {"type": "pulse", "value": 1.0, "end": 1.0}}),
     "add_joint('drive')"),
    ("motion axis not unit", PENDULUM_3D,
     set_("joints", "drive", motion={"axis": [0, 0, 2], "angle": 0.1}), "add_joint('drive')"),
    ("unknown time function", PENDULUM_3D,
     set_("joints", "drive", motion={"angle": {"type": "cosine", "amplitude": 1.0}}),
     "add_joint('drive')"),
    ("unknown time function key", PENDULUM_3D,
     set_("forces", "push", scale={"type": "ramp", "slope": 1.0, "end": 2.0}),
     "add_load('push')"),
    ("missing time function key", PENDULUM_3D,
     set_("forces", "push", scale={"type": "sine", "amplitude": 1.0}), "add_load('push')"),
    ("pulse ends before it starts", PENDULUM_3D,
     set_("forces", "kick", scale={"type": "pulse", "value": 1.0, "start": 0.5, "end": 0.4}),
     "add_load('kick')"),
    ("load on the ground", PENDULUM_3D, set_("forces", "push", marker="ground/s"),
     "add_load('push')"),
    ("bad basis", PENDULUM_3D, set_("forces", "push", basis="body"), "add_load('push')"),
    ("load on an unknown marker", PENDULUM_2D, set_("forces", "wind", marker="bob"),
     "add_load('wind')"),
    ("negative stiffness", PENDULUM_3D, set_("forces", "spring", stiffness=-1.0),
     "add_spring('spring')"),
    ("duplicate force", PENDULUM_3D, set_("forces", "torsion", name="spring"),
     "add_rotational_spring('spring')"),
    ("rest angle in 3D", PENDULUM_3D, set_("forces", "torsion", rest_angle=0.1),
     "add_rotational_spring('torsion')"),
    ("negative damping", PENDULUM_2D, set_("forces", "torsion", damping=-0.1),
     "add_rotational_spring('torsion')"),
    ("chain in 2D", CATENARY, lambda s: s.update(dimension=2, gravity=[0, -9.81]),
     "add_catenary_chain"),
    ("odd links", CATENARY, generator(links=7), "add_catenary_chain"),
    ("no links", CATENARY, generator(links=0), "add_catenary_chain"),
    ("sag point on an end", CATENARY, generator(sag_point=[0, 0, 0]), "add_catenary_chain"),
    ("too many nodes", NODE_CHAIN, generator(nodes_per_leg=10**8), "add_node_chain"),
    ("no cells", LATTICE, generator(cells=0), "add_four_bar_lattice"),
    ("level rates", LATTICE, generator(level_rates=[1.0, 2.0, 3.0]), "add_four_bar_lattice"),
    ("negative width", LATTICE, generator(cell_width=-1.0), "add_four_bar_lattice"),
    ("generated names taken", CATENARY,
     append("bodies", {"name": "link_0", "mass": 1.0, "inertia": [1, 1, 1]}),
     "add_body('link_0')"),
]


class Errors(unittest.TestCase):
    def assert_same_sentence(self, spec, call):
        """`spec` fails as YAML text and as Builder calls with the same sentence."""
        with self.assertRaises(catena.InputError) as loaded:
            catena.loads(yaml_text(spec))
        with self.assertRaises(catena.InputError) as built:
            build(spec)
        message = str(built.exception)
        self.assertTrue(message.startswith(f"Builder.{call}: error: "), message)
        self.assertEqual(after_prefix(message, BUILDER_PREFIX),
                         after_prefix(str(loaded.exception), LOADER_PREFIX))

    def test_the_loader_sentence(self):
        for what, spec, change, call in ERRORS:
            with self.subTest(what):
                bad = with_change(spec, change)
                self.assert_same_sentence(bad, call)

    def test_dimension(self):
        with self.assertRaises(catena.InputError) as built:
            catena.Builder(dimension=4)
        with self.assertRaises(catena.InputError) as loaded:
            catena.loads("dimension: 4\n")
        self.assertEqual(after_prefix(str(built.exception), BUILDER_PREFIX),
                         after_prefix(str(loaded.exception), LOADER_PREFIX))

    def test_python_values(self):
        # YAML has no types: a value of the wrong kind gets the sentence a file gets for it.
        cases = [
            ({"bodies": [{"name": "a", "mass": "1", "inertia": [1, 1, 1]}]}, "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": True, "inertia": [1, 1, 1]}]}, "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": 1.0, "inertia": [1, 1]}]}, "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": 1.0, "inertia": [1, 1, 1], "position": [1, 2]}]},
             "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": float("nan"), "inertia": [1, 1, 1]}]},
             "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": 1.0, "inertia": [1, 1, 1],
                          "orientation": [1, 0, 0, 0]}]}, "add_body('a')"),
            ({"bodies": [{"name": "a", "mass": 1.0, "inertia": [1, 1, 1], "fixed": "x"}]},
             "add_body('a')"),
            ({"gravity": 9.81}, "set_gravity"),
            ({"gravity": [0, -9.81]}, "set_gravity"),
            ({"generator": {"type": "catenary_chain", "links": 2.0}}, "add_catenary_chain"),
            ({"generator": {"type": "catenary_chain", "link": 4}}, "add_catenary_chain"),
            ({"generator": {"type": "four_bar_lattice", "merged_couplers": 1}},
             "add_four_bar_lattice"),
        ]
        for k, (spec, call) in enumerate(cases):
            with self.subTest(k):
                self.assert_same_sentence(spec, call)

    def test_python_types(self):
        b = catena.Builder()
        with self.assertRaises(TypeError) as e:
            b.add_body("a", mass=object(), inertia=[1, 1, 1])  # no YAML form
        self.assertTrue(str(e.exception).startswith("Builder.add_body('a'): "), str(e.exception))
        with self.assertRaises(TypeError):
            b.add_body("a", 1.0)  # inertia is required, as in YAML
        self.assertEqual(b.build().n, 0)  # nothing was added

    def test_spent_builder(self):
        b = catena.Builder()
        b.add_body("a", mass=1.0, inertia=[1, 1, 1])
        self.assertEqual(b.build().n, 7)
        for call in (b.build, lambda: b.add_body("b", mass=1.0, inertia=[1, 1, 1])):
            with self.assertRaises(catena.Error) as e:
                call()
            self.assertNotIsInstance(e.exception, catena.InputError)
            self.assertIn("has built its model already", str(e.exception))

    def test_generator_failing_part_way(self):
        # The chain's link_3 exists: the generator fails after adding links 0 to 2, which the
        # builder can not take back, so the builder is spent.
        b = catena.Builder()
        b.add_body("link_3", mass=1.0, inertia=[1, 1, 1])
        with self.assertRaises(catena.InputError) as e:
            b.add_catenary_chain(links=8)
        self.assertIn("duplicate body name 'link_3'", str(e.exception))
        with self.assertRaises(catena.Error) as e:
            b.build()
        self.assertIn("an earlier call, Builder.add_catenary_chain, failed", str(e.exception))
        # A failed check before anything is added leaves the builder usable.
        b = catena.Builder()
        with self.assertRaises(catena.InputError):
            b.add_catenary_chain(links=7)
        b.add_catenary_chain(links=8)
        self.assertEqual(b.build().n, 8 * 7)


if __name__ == "__main__":
    unittest.main()
