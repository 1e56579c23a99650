#!/usr/bin/python3
"""catena-scale under mpiexec (tests/mpi.cmake, label mpi).

  ranks    the same study on 1 and 2 ranks: every line parses and passes its check, the check
           values (sag, support reactions, weight, Newton iterations) agree to 1e-10 relative
  restart  a study (the decomposition's statics, deterministic) stopped by SIGTERM after one
           run (--stop-after 1 raises it in every rank) and continued with --restart gives
           the lines of an uninterrupted run, bitwise: the restarted study keeps the first
           run's line as it was and equals the uninterrupted one in every field but the
           timings and memory; so does one stopped inside its first run after 2 Newton
           iterations (--stop-after-iterations), which writes no line for that run; a
           one-rank study sent SIGTERM from outside stops with status 3 and its restart
           finishes it
  options  bad options end with status 2 and say what was expected (once on 2 ranks); a PETSc
           option that nothing read is warned of once at the end
  iterative --linear-solver iterative (augmented Lagrangian, FGMRES + PCFIELDSPLIT) on 2 ranks:
           the chain's check values equal the direct solver's to 1e-10 relative, the lattice's
           statics and modes pass their closed-form checks, the lines say which solver ran and
           how many Krylov iterations it took; --linear-solver schur (Schur-complement
           decomposition) gives the direct solver's check values to 1e-10 too
  modal    --analysis modal on 1 and 2 ranks: every line passes its checks (weight, mode
           residuals) and the lowest frequencies agree to 1e-8 relative
  lattice  --family lattice --analysis modal on 1, 2 and 4 ranks (PT-Scotch on 2 and 4): every
           line passes its checks against the closed-form hanging lattice (lowest point, weight,
           frequencies) and the frequencies agree across rank counts to 1e-9 relative; a Krylov
           solve that does not converge fails the run with a status that says so
  dynamics --analysis dynamics (the chain released from its 'V', distributed IDA) on 1 and 2
           ranks: every line passes its checks (energy and constraint drift) and the two agree
           to the integration error: the midpoint to 10 rtol of the span (10 m), the support
           reactions to 1e-4 of the weight (the multipliers' Newton corrections are weighed
           with multiplier_atol = 1e-2 N), the step counts to 15 % (docs/parallel.md)
  dynamics_restart
           a dynamics run in restartable segments (--segment) on 2 ranks, stopped by SIGTERM
           after 2 of 4 segments (--stop-after-segments) and restarted, ends where the
           uninterrupted run with the same segments ends (every field but the timings, memory
           and the restart's own counters; to 1e-12 with MUMPS on 2 ranks, see same_run); so
           does a restart after one rank's newest file was lost (a kill between its rename
           and its write: the ranks fall back to the segment before); the segments change
           the result by no more than the integration error (midpoint within 10 rtol of the
           span of the run without segments); a one-rank run sent SIGTERM from outside stops
           at a segment's end with status 3, and its restart ends bitwise where the
           uninterrupted one does
  reproducible
           --reproducible dynamics of a 2048-link chain (halo parts, a redundant KLU) on 1
           rank, 2 ranks with 1 and with 2 OpenMP threads, and 4 ranks: every field but the
           timings, memory, ranks and threads bitwise the same (state, steps, checks); 1024
           and 512 links per rank pass the assembly's threshold of 512 for its parallel loops
  lattice_dynamics
           --family lattice --analysis dynamics (released in its slowest mode's shape) on 1, 2
           and 4 ranks: every line passes its checks (energy, constraints, the closed-form small
           oscillations), and the runs take the same steps and agree to round-off: the top
           level's angle to 1e-10 rad (measured 2.8e-12; runs whose step sequences parted
           would differ by the integration error, about 1e-7 rad at rtol 1e-6: hand runs of
           K = 6 at rtol 1e-6 and 1e-8 differ by that much)
  interrupt
           SIGTERM to mpiexec -n 2 (Open MPI sends SIGCONT, waits odls_base_sigkill_timeout s,
           sends SIGTERM, waits again, then SIGKILL): rank 0 says at once that the signal came,
           the ranks stop before the next Newton iteration of the run in progress ("stopped
           by SIGTERM in run K + 1 of N after I Newton iterations") or, between runs, after
           the run ("after run K of N"), the checkpoint holds K runs, and --restart gives the
           lines of an uninterrupted
           study; kill -9 of rank 1 during the first run of a dynamics study in segments (the
           study checkpoint exists from the start): --restart resumes from the last segment
           that both ranks have and ends where the uninterrupted run ends (same_run); a newest
           segment file with a flipped digit or truncated is rejected with a warning naming it
           and the run falls back to its .prev, the same again; PATH.tmp.<pid> files of
           dead processes next to the study's files are removed at a restart, other files
           (live pids, other names) are left alone
  input    --input FILE.yaml (family "model"): catenary_chain.yaml and anchor_chain.yaml on 1 and
           2 ranks pass their checks (converged, supports carry the weight to 1e-10), and their
           lowest point, support reactions and Newton iterations equal the serial `catena
           statics` answer (JSON summary) to 1e-9 relative; the anchor chain's modes on 2 ranks
           equal `catena modal`'s frequencies to 1e-8; the catenary chain's dynamics from its
           'V' passes its checks, the anchor chain's unassembled start fails with exit 1 and a
           message naming the file; a study file's `input` is relative to it; a pendulum with a
           load has no weight check and its hinge balances the load; --sizes with
           --input is exit 2; a missing file, a model with a spring and a model with fewer
           bodies than ranks are exit 1 with the file named
  memory   out of memory: 2 ranks under RLIMIT_AS 600 MB at 4e5 links (the C++ allocator) and one
           rank under 1.1 GB at 5e4 links (PETSc's allocator, which returns a source line as its
           error code): exit status 4, the run's line with "status": "out_of_memory", the
           estimated need per rank and the limit, the checkpoint keeps the finished runs only;
           the serial catena statics of 2e5 links under 600 MB says "out of memory while
           running 'catena statics'" with the model's size and estimate, exit status 1
"""
import json
import os
import signal
import subprocess
import sys
import time

from script_support import check, run_mode

TIMING = {"time_total_s", "time_setup_s", "time_statics_s", "time_solver_setup_s",
          "time_assembly_s", "time_factorization_s", "time_solve_s", "max_rss_mib_max", "max_rss_mib_sum", "max_rss_mib_min",
          "max_rss_mib_rank0", "time_initial_s",
          "time_integration_s"}


def run(args, np, extra, expect=0):
    """catena-scale EXTRA on np ranks under mpiexec, or, with np = 0, started directly."""
    cmd = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(np)] if np else []
    cmd += [args.scale]
    cmd += extra
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    sys.stdout.write(p.stdout[-2000:])
    sys.stdout.write(p.stderr[-2000:])
    check(p.returncode == expect, f"exit status {p.returncode}, expected {expect}: {' '.join(cmd)}")
    return p


def study(args, np, name, extra, expected):
    """Runs a fresh study on np ranks into WORK/NAME_npNP.jsonl; its lines (checked: as many as
    expected)."""
    out = os.path.join(args.work, f"{name}_np{np}.jsonl")
    if os.path.exists(out):
        os.remove(out)
    run(args, np, extra + ["--json", out])
    lines = read_lines(out)
    check(len(lines) == expected, f"{np} ranks: {len(lines)} lines, expected {expected}")
    return lines


def read_lines(path):
    """The JSON lines of path ([] if there is no such file: the length checks then fail)."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def relative(a, b):
    return abs(a - b) / max(abs(a), abs(b), 1e-300)


def test_ranks(args):
    sizes = "40,42"
    results = {}
    for np in (1, 2):
        lines = study(args, np, "ranks", ["--family", "chain", "--sizes", sizes, "--analysis",
                                          "statics", "--repeats", "2"], 4)
        for l in lines:
            check(l["ranks"] == np, f"{np} ranks: line says {l['ranks']} ranks")
            check(l["status"] == "ok", f"{np} ranks: status {l['status']}")
            check(l["check_weight_pass"] is True, f"{np} ranks: weight check failed: {l}")
            check(l["check_weight_residual"] <= 1e-10,
                  f"{np} ranks: weight residual {l['check_weight_residual']}")
            check(l["sag_m"] > 5.0, f"{np} ranks: sag {l['sag_m']} m")
            for k in ("time_total_s", "time_setup_s", "time_statics_s", "time_solver_setup_s",
                      "time_assembly_s", "time_factorization_s", "time_solve_s",
                      "max_rss_mib_max", "max_rss_mib_sum"):
                check(l[k] > 0.0, f"{np} ranks: {k} = {l[k]}")
            # The statics' clock holds each of its phases and the solver's set-up (each field
            # the slowest rank's).
            for k in ("time_solver_setup_s", "time_assembly_s", "time_factorization_s"):
                check(l["time_statics_s"] >= l[k],
                      f"{np} ranks: statics clock {l['time_statics_s']} below {k} = {l[k]}")
            check(l["max_rss_mib_sum"] >= l["max_rss_mib_max"], f"{np} ranks: memory sum < max")
            check(l["max_rss_mib_min"] <= l["max_rss_mib_rank0"] <= l["max_rss_mib_max"] and
                  l["max_rss_mib_min"] * np <= l["max_rss_mib_sum"] and l["max_rss_mib_min"] > 0.0,
                  f"{np} ranks: rank 0's or the smallest peak out of order: {l}")
        results[np] = lines
    worst = 0.0
    for one, two in zip(results[1], results[2]):
        check(one["size"] == two["size"] and one["repeat"] == two["repeat"], "run order differs")
        check(one["newton_iterations"] == two["newton_iterations"],
              f"N = {one['size']}: Newton iterations {one['newton_iterations']} (1 rank) vs "
              f"{two['newton_iterations']} (2 ranks)")
        H = abs(one["reaction_a_n"][0])
        pairs = [(one["sag_m"], two["sag_m"], one["sag_m"]), (one["weight_n"], two["weight_n"],
                                                              one["weight_n"])]
        for key in ("reaction_a_n", "reaction_b_n"):
            pairs += [(x, y, H) for x, y in zip(one[key], two[key])]
        for x, y, scale in pairs:
            worst = max(worst, abs(x - y) / scale)
    print(f"worst relative difference of the check values, 1 vs 2 ranks: {worst:.3g}")
    check(worst <= 1e-10, f"check values differ between 1 and 2 ranks by {worst}")


def test_restart(args):
    study = os.path.join(args.work, "restart_study.yaml")
    whole = os.path.join(args.work, "restart_whole.jsonl")
    parts = os.path.join(args.work, "restart_parts.jsonl")
    for f in (whole, parts, whole + ".ckpt", parts + ".ckpt"):
        if os.path.exists(f):
            os.remove(f)
    # The decomposition (KLU on each rank and on the gathered interface) is deterministic, so
    # the restart is bitwise. MUMPS, the default, assembles its parallel fronts in the order
    # its messages arrive: under load one run of it moved reaction_a_n by one unit in the last
    # place (a full test run, 2026-11-28); test_interrupt checks it to round-off.
    with open(study, "w") as f:
        f.write("family: chain\nanalysis: statics\nsizes: [40, 42, 44]\nrepeats: 1\n"
                "linear_solver: schur\n")
    np = 2
    run(args, np, ["--study", study, "--json", whole])
    p = run(args, np, ["--study", study, "--json", parts, "--stop-after", "1"], expect=3)
    check("stopped by SIGTERM after run 1 of 3" in p.stderr, "no stop message")
    check(len(read_lines(parts)) == 1, "the stopped study did not keep exactly one line")
    with open(parts + ".ckpt") as f:
        ckpt = f.read()
    check(ckpt.startswith("# checkpoint catena-scale 2\n"), "checkpoint header")
    first = read_lines(parts)[0]
    # A restart of another study is refused.
    run(args, np, ["--sizes", "40,42", "--json", parts, "--restart"], expect=1)
    p = run(args, np, ["--study", study, "--json", parts, "--restart"])
    check("1 runs done" in p.stderr, "the restart did not read the checkpoint")
    a, b = read_lines(whole), read_lines(parts)
    check(len(a) == 3 and len(b) == 3, f"{len(a)} and {len(b)} lines, expected 3 and 3")
    check(b[0] == first, "the restart changed the line of the run it skipped")
    for x, y in zip(a, b):
        for k in x:
            if k in TIMING or k.startswith(("time_", "cpu_")):  # the decomposition's phases too
                continue
            check(x[k] == y[k], f"N = {x['size']}: {k} = {x[k]} uninterrupted, {y[k]} restarted")
    # Restarting a finished study runs nothing and keeps the lines.
    run(args, np, ["--study", study, "--json", parts, "--restart"])
    check(read_lines(parts) == b, "restarting a finished study changed its lines")
    # SIGTERM inside a statics run (a 10^6-link statics outlasts Slurm's 30 s between SIGTERM
    # and SIGKILL): the ranks stop before the next Newton iteration with status 3 and no line,
    # and --restart runs that run again from its start: the uninterrupted study's lines.
    inside = os.path.join(args.work, "restart_inside.jsonl")
    for f in (inside, inside + ".ckpt"):
        if os.path.exists(f):
            os.remove(f)
    p = run(args, np, ["--study", study, "--json", inside, "--stop-after-iterations", "2"],
            expect=3)
    check("stopping at the end of the Newton iteration" in p.stderr, "no notice of the signal")
    check("stopped by SIGTERM in run 1 of 3 after 2 Newton iterations" in p.stderr,
          f"the stop does not say where: {p.stderr[-500:]}")
    check(read_lines(inside) == [], "an interrupted statics run wrote a line")
    run(args, np, ["--study", study, "--json", inside, "--restart"])
    c = read_lines(inside)
    check(len(c) == 3, f"{len(c)} lines after the restart, expected 3")
    for x, y in zip(a, c):
        same_run({k: v for k, v in x.items() if not k.startswith(("time_", "cpu_"))}, y,
                 f"N = {x['size']}, stopped inside run 1 and restarted")
    run(args, np, ["--sizes", "40", "--analysis", "dynamics", "--stop-after-iterations", "1"],
        expect=2)
    test_external_signal(args)


def test_external_signal(args):
    """SIGTERM from outside (as Slurm sends it) to a one-rank study, once its checkpoint holds
    a run: it stops at the next safe point with status 3, and the restart finishes the study."""
    out = os.path.join(args.work, "signal.jsonl")
    for f in (out, out + ".ckpt"):
        if os.path.exists(f):
            os.remove(f)
    study = ["--sizes", "400", "--repeats", "8", "--json", out]
    p = subprocess.Popen([args.scale] + study, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if os.path.exists(out + ".ckpt") and len(read_lines(out)) >= 1:
            break
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    stopped = len(read_lines(out))
    print(f"external SIGTERM: status {p.returncode} after {stopped} of 8 runs")
    check(p.returncode == 3 or (p.returncode == 0 and stopped == 8),
          f"external SIGTERM: status {p.returncode}: {err[-500:]}")
    r = subprocess.run([args.scale] + study + ["--restart"], capture_output=True, text=True,
                       timeout=300)
    check(r.returncode == 0, f"restart after SIGTERM: status {r.returncode}: {r.stderr[-500:]}")
    lines = read_lines(out)
    check(len(lines) == 8 and [l["repeat"] for l in lines] == list(range(8)),
          f"restart after SIGTERM: runs {[l['repeat'] for l in lines]}")
    check(all(l["check_weight_pass"] for l in lines), "restart after SIGTERM: a check failed")
    check(len({l["sag_m"] for l in lines}) == 1, "restart after SIGTERM: sags differ")


def test_options(args):
    cases = [
        (["--sizes", "41"], "even"),
        (["--sizes", "4x"], "--sizes expects integers in [1, 100000000]"),
        (["--sizes", "40", "--family", "tree"], "family: expected 'chain' or 'lattice'"),
        (["--sizes", "0", "--family", "lattice"], "--sizes expects integers in [1, 100000000]"),
        (["--sizes", "40", "--analysis", "buckling"],
         "analysis: expected 'statics', 'modal' or 'dynamics'"),
        (["--sizes", "40", "--analysis", "dynamics", "--t-end", "0"],
         "--t-end expects a finite number > 0 s, got '0'"),
        (["--sizes", "40", "--analysis", "dynamics", "--rtol", "x"],
         "--rtol expects a finite number in (0, 1), got 'x'"),
        (["--sizes", "40", "--analysis", "modal", "--modes", "0"],
         "--modes expects an integer in [1, 1000000], got '0'"),
        (["--sizes", "40", "--repeats", "zero"], "--repeats expects an integer"),
        (["--sizes", "40", "--linear-solver", "cg"],
         "linear_solver: expected 'direct', 'iterative' or 'schur', got 'cg'"),
        (["--sizes", "40", "--analysis", "dynamics", "--linear-solver", "iterative"],
         "'iterative' is for statics"),
        (["--sizes", "40", "--bogus", "1"], "unknown option '--bogus'"),
        (["--sizes", "40", "--restart"], "--restart needs a checkpoint"),
        (["--sizes", "40", "--analysis", "dynamics", "--segment", "-1"],
         "--segment expects a finite number >= 0 s"),
        (["--sizes", "40", "--reproducible"],
         "reproducible: bitwise runs are for the dynamics of the chain or an input model"),
        (["--sizes", "40", "--segment", "0.01"],
         "segment: restartable segments are for 'dynamics', not 'statics'"),
        ([], "sizes: expected at least one size"),
    ]
    # Options are read before MPI starts: the process is started directly (under mpiexec each
    # refusal cost 2 s of waiting).
    for extra, message in cases:
        p = run(args, 0, extra, expect=2)
        check(message in p.stderr, f"{extra}: message '{message}' missing from: {p.stderr}")
    # Refused before MPI starts, said once on 2 ranks.
    p = run(args, 2, ["--sizes", "4294967298"], expect=2)
    check(p.stderr.count("--sizes expects integers in [1, 100000000]") == 1,
          f"--sizes 4294967298 on 2 ranks: {p.stderr}")
    # A PETSc option nothing read is warned of once (rank 0); one the solvers read is not.
    p = run(args, 2, ["--sizes", "40", "-statics_ksp_tpye", "gmres",
                      "-statics_pc_factor_mat_solver_type", "mumps"])
    check(p.stderr.count("catena-scale: warning: PETSc option -statics_ksp_tpye was not used")
          == 1 and "mat_solver_type was not used" not in p.stderr,
          f"unused PETSc option on 2 ranks: {p.stderr}")


def worst_difference(reference, lines):
    """Largest difference of the chain's check values (sag, support reactions) between two
    sets of lines, relative to the sag and to the horizontal reaction."""
    worst = 0.0
    for d, i in zip(reference, lines):
        H = abs(d["reaction_a_n"][0])
        pairs = [(d["sag_m"], i["sag_m"], d["sag_m"])]
        for key in ("reaction_a_n", "reaction_b_n"):
            pairs += [(x, y, H) for x, y in zip(d[key], i[key])]
        worst = max(worst, max(abs(x - y) / scale for x, y, scale in pairs))
    return worst


def test_iterative(args):
    chain = ["--family", "chain", "--sizes", "40,42", "--analysis", "statics"]
    direct = study(args, 2, "direct", chain, 2)
    iterative = study(args, 2, "iterative", chain + ["--linear-solver", "iterative"], 2)
    for d, i in zip(direct, iterative):
        check(d["linear_solver"] == "mumps" and d["krylov_iterations"] == d["solves"],
              f"direct line: {d['linear_solver']}, {d['krylov_iterations']} Krylov iterations")
        check(i["status"] == "ok" and i["check_weight_pass"] is True, f"iterative line: {i}")
        check(i["linear_solver"] == "fieldsplit-al" and i["krylov_iterations"] > i["solves"],
              f"iterative line: {i['linear_solver']}, {i['krylov_iterations']} Krylov iterations")
    worst = worst_difference(direct, iterative)
    print(f"worst relative difference, direct vs iterative: {worst:.3g}")
    check(worst <= 1e-10, f"direct and iterative statics differ by {worst}")
    lattice = study(args, 2, "iterative_lattice",
                    ["--family", "lattice", "--sizes", "4", "--analysis", "modal", "--modes", "3",
                     "--linear-solver", "iterative"], 1)
    for l in lattice:
        check(l["status"] == "ok" and l["check_weight_pass"] is True and
              l["check_modes_pass"] is True, f"iterative lattice line: {l}")
    # The Schur-complement decomposition (--linear-solver schur): the direct lines' answer, and
    # its per-rank fields (docs/scaling.md).
    schur = study(args, 2, "schur", chain + ["--linear-solver", "schur"], 2)
    for s in schur:
        check(s["status"] == "ok" and s["check_weight_pass"] is True, f"schur line: {s}")
        check(s["linear_solver"] == "schur (klu + mumps)" and s["schur_interface_unknowns"] > 0
              and s["cpu_interior_factorization_s_max"] >= s["cpu_interior_factorization_s_min"],
              f"schur line: {s}")
    worst = worst_difference(direct, schur)
    print(f"worst relative difference, direct vs schur: {worst:.3g}")
    check(worst <= 1e-10, f"direct and schur statics differ by {worst}")
    # Traffic per rank (PETSc's counters): the decomposition sends the interface's values, the
    # same for 400 and 4000 links (measured 15992 bytes from the largest rank at both, and at
    # 2e4 and 8e4 links: benchmarks/results/schur_communication.md); MUMPS is sent the matrix,
    # ~1 kB per link.
    sizes = ["--family", "chain", "--sizes", "400,4000", "--analysis", "statics"]
    traffic = {solver: study(args, 2, f"traffic_{solver}", sizes + ["--linear-solver", solver], 2)
               for solver in ("schur", "direct")}
    for solver, (small, large) in traffic.items():
        sent = [line["bytes_sent_statics_max"] for line in (small, large)]
        print(f"{solver}: bytes sent by the largest rank {sent[0]:.0f} (400 links), "
              f"{sent[1]:.0f} (4000 links)")
        check(small["status"] == "ok" and large["status"] == "ok" and sent[0] > 0,
              f"{solver} traffic lines: {small['status']}, {large['status']}, {sent}")
        if solver == "schur":
            check(sent[1] <= 1.1 * sent[0], f"schur traffic grows with the chain: {sent}")
        else:
            check(sent[1] >= 5.0 * sent[0], f"direct traffic does not grow with the chain: {sent}")


def test_modal(args):
    sizes = "40,42"
    results = {}
    for np in (1, 2):
        lines = study(args, np, "modal", ["--family", "chain", "--sizes", sizes, "--analysis",
                                          "modal", "--modes", "4"], 2)
        for l in lines:
            check(l["analysis"] == "modal", f"{np} ranks: analysis {l['analysis']}")
            check(l["status"] == "ok" and l["modal_status"] == "ok",
                  f"{np} ranks: status {l['status']}, modal status {l['modal_status']}")
            check(l["check_weight_pass"] is True, f"{np} ranks: weight check failed")
            check(l["check_modes_pass"] is True, f"{np} ranks: modes check failed: {l}")
            check(l["modes"] == 4 and len(l["frequencies_hz"]) == 4,
                  f"{np} ranks: {len(l['frequencies_hz'])} frequencies, expected 4")
            check(all(r <= 1e-8 for r in l["mode_residuals"]),
                  f"{np} ranks: mode residuals {l['mode_residuals']}")
            check(l["frequencies_hz"] == sorted(l["frequencies_hz"]) and
                  l["frequencies_hz"][0] > 0.0, f"{np} ranks: frequencies {l['frequencies_hz']}")
            for k in ("time_eigen_s", "time_eigen_factorization_s", "time_eigen_solve_s"):
                check(l[k] > 0.0, f"{np} ranks: {k} = {l[k]}")
        results[np] = lines
    worst = 0.0
    for one, two in zip(results[1], results[2]):
        check(one["size"] == two["size"], "run order differs")
        for x, y in zip(one["frequencies_hz"], two["frequencies_hz"]):
            worst = max(worst, relative(x, y))
        print(f"N = {one['size']}: frequencies {one['frequencies_hz']} Hz (1 rank)")
    print(f"worst relative difference of the frequencies, 1 vs 2 ranks: {worst:.3g}")
    check(worst <= 1e-8, f"frequencies differ between 1 and 2 ranks by {worst}")


def test_lattice(args):
    sizes = "6,12"
    results = {}
    for np in (1, 2, 4):
        lines = study(args, np, "lattice", ["--family", "lattice", "--sizes", sizes,
                                            "--analysis", "modal", "--modes", "3"], 2)
        for l in lines:
            K = l["size"]
            check(l["family"] == "lattice" and l["constraints"] == 2 * K * (3 * K + 1),
                  f"{np} ranks: {l['constraints']} constraints for K = {K}")
            check(l["partitioner"] == ("none" if np == 1 else "ptscotch"),
                  f"{np} ranks: partitioner {l['partitioner']}")
            check(l["status"] == "ok" and l["modal_status"] == "ok",
                  f"{np} ranks: status {l['status']}, modal status {l['modal_status']}")
            check(l["check_weight_pass"] is True and l["check_modes_pass"] is True,
                  f"{np} ranks: a check failed: {l}")
            check(abs(l["lowest_point_m"] + K) <= 1e-9 * K,
                  f"{np} ranks: lowest point {l['lowest_point_m']} m, closed form {-K} m")
            check(l["check_frequency_residual"] <= 1e-8,
                  f"{np} ranks: frequencies off the closed form by {l['check_frequency_residual']}")
        results[np] = lines
    worst = 0.0
    for np in (2, 4):
        for one, other in zip(results[1], results[np]):
            for x, y in zip(one["frequencies_hz"], other["frequencies_hz"]):
                worst = max(worst, relative(x, y))
    print(f"worst relative difference of the lattice frequencies, 1 vs 2 and 4 ranks: {worst:.3g}")
    check(worst <= 1e-9, f"lattice frequencies differ between rank counts by {worst}")
    # An iterative solve that does not converge (PETSc options reach the statics' KSP) is a
    # failed run that says so, with exit status 1 and its JSON line.
    out = os.path.join(args.work, "lattice_krylov.jsonl")
    run(args, 2, ["--family", "lattice", "--sizes", "6", "--json", out, "-statics_ksp_type",
                  "gmres", "-statics_pc_type", "none", "-statics_ksp_max_it", "5"], expect=1)
    status = read_lines(out)[0]["status"]
    check("DIVERGED_ITS after 5 Krylov iterations" in status, f"Krylov failure status: {status}")


def test_dynamics(args):
    sizes = "40,42"
    rtol = 1e-6
    results = {}
    for np in (1, 2):
        lines = study(args, np, "dynamics", ["--family", "chain", "--sizes", sizes,
                                             "--analysis", "dynamics", "--t-end", "0.1",
                                             "--rtol", str(rtol)], 2)
        for l in lines:
            check(l["analysis"] == "dynamics" and l["ranks"] == np,
                  f"{np} ranks: analysis {l['analysis']}, ranks {l['ranks']}")
            check(l["status"] == "ok", f"{np} ranks: status {l['status']}")
            check(l["check_energy_pass"] is True and l["check_constraint_pass"] is True,
                  f"{np} ranks: a dynamics check failed: {l}")
            check(l["t_end_s"] == 0.1 and l["rtol"] == rtol, f"{np} ranks: t_end, rtol {l}")
            check(l["steps"] > 10 and l["newton_iterations"] >= l["steps"],
                  f"{np} ranks: {l['steps']} steps, {l['newton_iterations']} Newton iterations")
            check(l["kinetic_energy_j"] > 1.0, f"{np} ranks: kinetic energy {l['kinetic_energy_j']}")
            for k in ("time_total_s", "time_setup_s", "time_integration_s",
                      "time_factorization_s", "time_solve_s"):
                check(l[k] > 0.0, f"{np} ranks: {k} = {l[k]}")
        results[np] = lines
    worst_position = worst_reaction = worst_steps = 0.0
    for one, two in zip(results[1], results[2]):
        check(one["size"] == two["size"], "run order differs")
        worst_position = max(worst_position, max(abs(x - y) for x, y in
                                                 zip(one["midpoint_m"], two["midpoint_m"])) / 10.0)
        for key in ("reaction_a_n", "reaction_b_n"):
            worst_reaction = max(worst_reaction, max(abs(x - y) for x, y in
                                                     zip(one[key], two[key])) / one["weight_n"])
        worst_steps = max(worst_steps, abs(one["steps"] - two["steps"]) / one["steps"])
        print(f"N = {one['size']}: {one['steps']} / {two['steps']} steps, midpoint "
              f"{one['midpoint_m']} m (1 rank), energy drift {one['check_energy_drift']:.3g} / "
              f"{two['check_energy_drift']:.3g}")
    print(f"1 vs 2 ranks: midpoint {worst_position:.3g} of the span, reactions "
          f"{worst_reaction:.3g} of the weight, steps {worst_steps:.3g}")
    check(worst_position <= 10 * rtol, f"midpoints differ by {worst_position} of the span")
    check(worst_reaction <= 1e-4, f"reactions differ by {worst_reaction} of the weight")
    check(worst_steps <= 0.15, f"step counts differ by {worst_steps}")


def same_run(whole, restarted, what):
    """Every field of two JSON lines equal but the timings, memory and the restart's own:
    bitwise, or to round-off where MUMPS ran on several ranks (it assembles its parallel fronts
    in the order its messages arrive, see test_restart)."""
    own = TIMING | {"segments_run", "resumed_at_s"}
    exact = whole.get("ranks", 1) == 1 or "mumps" not in str(whole.get("linear_solver", ""))
    equal = (lambda a, b: a == b) if exact else roundoff_equal
    for k in whole:
        if k not in own:
            check(equal(whole[k], restarted.get(k)),
                  f"{what}: {k} = {whole[k]} uninterrupted, {restarted.get(k)} restarted")


def test_dynamics_restart(args):
    rtol = 1e-6
    base = ["--family", "chain", "--sizes", "40", "--analysis", "dynamics", "--t-end", "0.04",
            "--rtol", str(rtol)]
    segmented = base + ["--segment", "0.01"]
    whole = study(args, 2, "segments_whole", segmented, 1)[0]
    plain = study(args, 2, "segments_none", base, 1)[0]
    check(whole["status"] == "ok" and whole["check_energy_pass"] and whole["check_constraint_pass"],
          f"segmented run: {whole}")
    check(whole["segments_run"] == 4 and whole["resumed_at_s"] is None,
          f"segmented run: {whole['segments_run']} segments, resumed at {whole['resumed_at_s']}")
    check(plain["segments_run"] == 1, f"run without segments: {plain['segments_run']} segments")
    deviation = max(abs(x - y) for x, y in zip(whole["midpoint_m"], plain["midpoint_m"])) / 10.0
    print(f"segments against none: midpoint {deviation:.3g} of the span, steps "
          f"{whole['steps']} / {plain['steps']}")
    check(deviation <= 10 * rtol, f"the segments moved the midpoint by {deviation} of the span")

    parts = os.path.join(args.work, "segments_parts.jsonl")
    stem = parts + ".ckpt.run"
    for f in (parts, parts + ".ckpt", stem + ".r0", stem + ".r1"):
        if os.path.exists(f):
            os.remove(f)
    p = run(args, 2, segmented + ["--json", parts, "--stop-after-segments", "2"], expect=3)
    check("stopped by SIGTERM in run 1 of 1 at t = 0.02 s" in p.stderr,
          f"the stop does not say where: {p.stderr[-500:]}")
    check(read_lines(parts) == [], "an interrupted run wrote a line")
    for r in (0, 1):
        check(os.path.exists(f"{stem}.r{r}") and os.path.exists(f"{stem}.r{r}.prev"),
              f"rank {r}: no checkpoint and previous checkpoint")
    saved = {f: open(f, "rb").read() for f in (parts + ".ckpt", stem + ".r0", stem + ".r0.prev",
                                               stem + ".r1", stem + ".r1.prev")}
    p = run(args, 2, segmented + ["--json", parts, "--restart"])
    check("resumed at t = 0.02 s after segment 2 of 4" in p.stderr,
          f"the restart did not resume at 0.02 s: {p.stderr[-500:]}")
    restarted = read_lines(parts)
    check(len(restarted) == 1 and restarted[0]["resumed_at_s"] == 0.02 and
          restarted[0]["segments_run"] == 2, f"restarted line: {restarted}")
    if restarted:
        same_run(whole, restarted[0], "restart")

    # Rank 1 killed after moving its file to .prev, before writing the new one.
    for f, data in saved.items():
        with open(f, "wb") as out:
            out.write(data)
    os.remove(stem + ".r1")
    p = run(args, 2, segmented + ["--json", parts, "--restart"])
    check("resumed at t = 0.01 s after segment 1 of 4" in p.stderr,
          f"the restart without rank 1's newest file did not fall back: {p.stderr[-500:]}")
    restarted = read_lines(parts)
    if restarted:
        same_run(whole, restarted[0], "restart from the previous segment")

    # SIGTERM from outside, one rank: it stops at the end of the segment in progress.
    one = ["--family", "chain", "--sizes", "100", "--analysis", "dynamics", "--t-end", "0.1",
           "--segment", "0.002"]
    reference = study(args, 1, "segments_signal_whole", one, 1)[0]
    out = os.path.join(args.work, "segments_signal.jsonl")
    for f in (out, out + ".ckpt", out + ".ckpt.run.r0", out + ".ckpt.run.r0.prev"):
        if os.path.exists(f):
            os.remove(f)
    # Started without mpiexec (a singleton, as test_external_signal), which would forward the
    # signal and report its own status.
    q = subprocess.Popen([args.scale] + one + ["--json", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    deadline = time.time() + 120
    while not os.path.exists(out + ".ckpt.run.r0") and q.poll() is None and time.time() < deadline:
        time.sleep(0.01)
    q.send_signal(signal.SIGTERM)
    _, err = q.communicate(timeout=120)
    print(f"external SIGTERM: status {q.returncode}; {err.strip().splitlines()[-1:]}")
    check(q.returncode == 3 and "stopped by SIGTERM in run 1 of 1 at t = " in err,
          f"external SIGTERM: status {q.returncode}: {err[-500:]}")
    p = run(args, 1, one + ["--json", out, "--restart"])
    lines = read_lines(out)
    check(len(lines) == 1 and lines[0]["resumed_at_s"] is not None, f"restart: {lines}")
    if lines:
        same_run(reference, lines[0], "restart after an external SIGTERM")


def test_reproducible(args):
    """Bitwise the same on 1, 2 (1 and 2 threads) and 4 ranks: the chain, and the 3 x 4 merged
    four-bar lattice given as an input (9 redundant rows left out; bodies meeting 3 and 4 joints)."""
    chain = ["--family", "chain", "--sizes", "2048", "--t-end", "0.01"]
    lattice = ["--input", os.path.join(args.inputs, "merged_four_bar_lattice_3x4.yaml"),
               "--t-end", "0.3", "--rtol", "1e-8"]
    for name, extra in (("chain", chain), ("lattice", lattice)):
        lines = {}
        for np, threads in ((1, 1), (2, 1), (2, 2), (4, 1)):
            out = os.path.join(args.work, f"reproducible_{name}_np{np}_t{threads}.jsonl")
            if os.path.exists(out):
                os.remove(out)
            cmd = [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(np),
                   "-x", f"OMP_NUM_THREADS={threads}", args.scale] + extra + [
                       "--analysis", "dynamics", "--reproducible", "--json", out]
            print("$ " + " ".join(cmd), flush=True)
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
            key = f"{name}, {np} ranks x {threads} threads"
            check(p.returncode == 0, f"{key}: status {p.returncode}: {p.stderr[-1000:]}")
            got = read_lines(out)
            check(len(got) == 1, f"{key}: {len(got)} lines")
            if got:
                l = got[0]
                check(l["linear_solver"] == "gathered klu", f"{key}: {l['linear_solver']}")
                check(l["ranks"] == np and l["threads"] == threads and l["reproducible"] is True,
                      f"{key}: ranks {l['ranks']}, threads {l['threads']}")
                check(l["status"] == "ok" and l["check_energy_pass"] and
                      l["check_constraint_pass"], f"{key}: {l}")
                lines[(np, threads)] = l
        ref = lines.get((1, 1))
        if ref is None:
            continue
        print(f"{name}, 1 rank: {ref['steps']} steps, energy drift "
              f"{ref['check_energy_drift']:.3g}, rows left out "
              f"{len(ref.get('redundant_rows', []))}")
        if name == "lattice":
            check(len(ref.get("redundant_rows", [])) == 9 and ref["steps"] > 20,
                  f"lattice: {len(ref.get('redundant_rows', []))} rows left out (9 expected), "
                  f"{ref['steps']} steps")
        for key, l in lines.items():
            for k in ref:
                if k not in TIMING | {"ranks", "threads"} and not k.startswith("time_"):
                    check(ref[k] == l.get(k), f"{name}, {key[0]} ranks x {key[1]} threads: {k} = "
                                              f"{l.get(k)}, 1 rank: {ref[k]}")


def test_lattice_dynamics(args):
    sizes = "6,9"
    t_end = 3.0  # most of the slowest period (4.2 s for K = 6, 5.0 s for K = 9)
    results = {}
    for np in (1, 2, 4):
        lines = study(args, np, "lattice_dynamics",
                      ["--family", "lattice", "--sizes", sizes, "--analysis", "dynamics",
                       "--t-end", str(t_end)], 2)
        for l in lines:
            check(l["family"] == "lattice" and l["analysis"] == "dynamics" and l["ranks"] == np,
                  f"{np} ranks: {l['family']} {l['analysis']} on {l['ranks']} ranks")
            check(l["status"] == "ok", f"{np} ranks: status {l['status']}")
            check(l["check_energy_pass"] is True and l["check_constraint_pass"] is True and
                  l["check_small_motion_pass"] is True, f"{np} ranks: a check failed: {l}")
            check(l["partitioner"] == ("none" if np == 1 else "ptscotch"),
                  f"{np} ranks: partitioner {l['partitioner']}")
            # It swings: the top level has left its start (0.02 rad, the top of the mode shape).
            check(abs(l["top_level_angle_rad"] - 0.02) > 0.01,
                  f"{np} ranks: top level at {l['top_level_angle_rad']} rad")
        results[np] = lines
    worst = 0.0
    for np in (2, 4):
        for one, other in zip(results[1], results[np]):
            check(one["steps"] == other["steps"],
                  f"K = {one['size']}: {one['steps']} steps on 1 rank, {other['steps']} on {np}")
            worst = max(worst, abs(one["top_level_angle_rad"] - other["top_level_angle_rad"]))
    for l in results[1]:
        print(f"K = {l['size']}: {l['steps']} steps, top level {l['top_level_angle_rad']} rad "
              f"(closed form {l['closed_form_top_level_angle_rad']}), small-motion residual "
              f"{l['check_small_motion_residual']:.3g}")
    print(f"top level's angle, 1 vs 2 and 4 ranks: {worst:.3g} rad")
    check(worst <= 1e-10, f"top level's angles differ between rank counts by {worst} rad")


def remove(*files):
    for f in files:
        if os.path.exists(f):
            os.remove(f)


def mpiexec_cmd(args, np, extra):
    return [args.mpiexec, "--allow-run-as-root", "--oversubscribe", "-np", str(np),
            args.scale] + extra


def rank_pid(mpiexec_pid, rank):
    """The pid of MPI rank `rank` among mpiexec's children (their OMPI_COMM_WORLD_RANK)."""
    try:
        with open(f"/proc/{mpiexec_pid}/task/{mpiexec_pid}/children") as f:
            children = [int(c) for c in f.read().split()]
    except OSError:
        return None
    for c in children:
        try:
            with open(f"/proc/{c}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if f"OMPI_COMM_WORLD_RANK={rank}".encode() in env:
            return c
    return None


def segments_done(path):
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("segments_done "):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def dead_pid():
    """A process id that no process has now (a child that has exited)."""
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


def roundoff_equal(a, b):
    """Equal, or numbers (lists of numbers) within 1e-12 of max(1, |a|, |b|)."""
    if a is None or b is None:
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(roundoff_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))
    return a == b


def test_interrupt(args):
    # 1. SIGTERM to mpiexec. Open MPI 4.1 forwards it after odls_base_sigkill_timeout seconds
    #    and kills as many seconds later: the run in progress must end within those 3 s. Runs of
    #    3000 links (0.7 s idle on this 2-core machine) once took longer beside other MPI tests
    #    in CI and were killed; a 1000-link run takes 0.23 s idle. The study (30 runs, about 7 s
    #    idle) must outlast the forwarding: with 16 runs of 400 links it was over before the
    #    signal came on an idle machine.
    env = dict(os.environ, OMPI_MCA_odls_base_sigkill_timeout="3")
    runs = 30
    base = ["--sizes", "1000", "--repeats", str(runs)]
    whole = study(args, 2, "interrupt_whole", base, runs)
    out = os.path.join(args.work, "interrupt.jsonl")
    remove(out, out + ".ckpt")
    cmd = mpiexec_cmd(args, 2, base + ["--json", out])
    print("$ " + " ".join(cmd) + "   (SIGTERM to mpiexec after the first line)", flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if os.path.exists(out) and len(read_lines(out)) >= 1:
            break
        time.sleep(0.02)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    print(err[-1500:])
    stopped = len(read_lines(out))
    print(f"SIGTERM to mpiexec: status {p.returncode} after {stopped} of {runs} runs")
    check(p.returncode != 0, "SIGTERM to mpiexec: status 0")
    check("catena-scale: SIGTERM received during run " in err or
          "catena-scale: SIGTERM received after run " in err,
          f"SIGTERM to mpiexec: rank 0 did not say that it came: {err[-800:]}")
    # Inside a run the ranks stop before its next Newton iteration, between runs after the run.
    inside = (f"stopped by SIGTERM in run {stopped + 1} of {runs} after " in err and
              f"holds the {stopped} runs done; restart with --restart, which runs this one again"
              in err)
    between = (f"stopped by SIGTERM after run {stopped} of {runs}; checkpoint '{out}.ckpt' "
               "written") in err
    check(inside or between, f"SIGTERM to mpiexec: no stop message for run {stopped}: {err[-800:]}")
    check(0 < stopped < runs, f"SIGTERM to mpiexec: {stopped} of {runs} runs done")
    with open(out + ".ckpt") as f:
        check(f.read().count("\nrun ") == stopped, "the checkpoint does not hold the runs done")
    run(args, 2, base + ["--json", out, "--restart"])
    lines = read_lines(out)
    check(len(lines) == runs, f"restart after SIGTERM to mpiexec: {len(lines)} lines")
    # MUMPS on 2 ranks: two computations of one run may differ in the last bits, so same_run
    # holds them to round-off (docs/parallel.md).
    for x, y in zip(whole, lines):
        same_run(x, y, f"SIGTERM to mpiexec: run {x['repeat']}")

    # 2. kill -9 of rank 1 during the first (only) run of a dynamics study in segments.
    seg = ["--family", "chain", "--sizes", "40", "--analysis", "dynamics", "--t-end", "0.1",
           "--segment", "0.005"]
    reference = study(args, 2, "kill_whole", seg, 1)[0]
    out = os.path.join(args.work, "kill.jsonl")
    stem = out + ".ckpt.run"
    remove(out, out + ".ckpt", *[f"{stem}.r{r}{e}" for r in (0, 1) for e in ("", ".prev")])
    cmd = mpiexec_cmd(args, 2, seg + ["--json", out])
    print("$ " + " ".join(cmd) + "   (kill -9 of rank 1 after 3 segments)", flush=True)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    victim = None
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        if victim is None:
            victim = rank_pid(p.pid, 1)
        if victim and segments_done(f"{stem}.r1") >= 3:
            os.kill(victim, signal.SIGKILL)
            break
        time.sleep(0.005)
    _, err = p.communicate(timeout=120)
    killed_at = segments_done(f"{stem}.r1")
    print(f"kill -9 of rank 1 (pid {victim}) at segment {killed_at}: mpiexec status "
          f"{p.returncode}")
    check(victim is not None and p.returncode != 0 and 3 <= killed_at < 20,
          f"kill -9 did not hit the run: status {p.returncode}, segment {killed_at}")
    check(os.path.exists(out + ".ckpt"), "no study checkpoint after a kill in the first run")
    saved = {f: open(f, "rb").read() for f in
             [f"{stem}.r{r}{e}" for r in (0, 1) for e in ("", ".prev")] + [out + ".ckpt"]
             if os.path.exists(f)}
    q = run(args, 2, seg + ["--json", out, "--restart"])
    check("resumed at t = " in q.stderr, f"the restart after kill -9 did not resume: "
                                         f"{q.stderr[-600:]}")
    lines = read_lines(out)
    check(len(lines) == 1, f"restart after kill -9: {len(lines)} lines")
    if lines:
        check(lines[0]["resumed_at_s"] is not None, "restart after kill -9: started over")
        same_run(reference, lines[0], "restart after kill -9")

    # 3. A damaged newest segment file falls back to the previous one, with a warning. Both
    #    ranks hold segment 2 (newest) and 1 (.prev) after a stop by --stop-after-segments 2.
    remove(out, out + ".ckpt", *[f"{stem}.r{r}{e}" for r in (0, 1) for e in ("", ".prev")])
    run(args, 2, seg + ["--json", out, "--stop-after-segments", "2"], expect=3)
    saved = {f: open(f, "rb").read() for f in
             [f"{stem}.r{r}{e}" for r in (0, 1) for e in ("", ".prev")] + [out + ".ckpt"]}
    for damage in ("flip", "truncate"):
        for f, data in saved.items():
            with open(f, "wb") as w:
                w.write(data)
        newest = f"{stem}.r0"
        data = saved[newest]
        if damage == "flip":  # the first fraction digit of q's first number: another digit
            at = data.index(b".", data.index(b"\nq ")) + 1
            data = data[:at] + (b"2" if data[at:at + 1] != b"2" else b"3") + data[at + 1:]
        else:
            data = data[:len(data) * 2 // 3]
        with open(newest, "wb") as w:
            w.write(data)
        q = run(args, 2, seg + ["--json", out, "--restart"])
        why = "checksum mismatch" if damage == "flip" else "truncated"
        check(f"rejected checkpoint '{newest}'" in q.stderr and why in q.stderr,
              f"{damage}: no warning naming {newest} and '{why}': {q.stderr[-800:]}")
        check("resumed at t = 0.005 s after segment 1 of 20" in q.stderr,
              f"{damage}: did not fall back to segment 1: {q.stderr[-800:]}")
        lines = read_lines(out)
        check(len(lines) == 1, f"{damage}: {len(lines)} lines after the restart")
        if lines:
            same_run(reference, lines[0], f"restart from .prev ({damage})")

    # 4. Temporaries of dead processes next to the study's files are removed at a restart.
    dead = dead_pid()
    orphans = [f"{out}.tmp.{dead}", f"{out}.ckpt.tmp.{dead}", f"{stem}.r0.tmp.{dead}",
               f"{stem}.r1.tmp.{dead}"]
    others = [f"{out}.tmp.{os.getpid()}", f"{out}.tmp.x{dead}", f"{out}.tmpx.{dead}",
              os.path.join(args.work, f"other.jsonl.tmp.{dead}"), f"{out}.tmp.{dead}.bak"]
    for f in orphans + others:
        with open(f, "w") as w:
            w.write("partial")
    q = run(args, 2, seg + ["--json", out, "--restart"])
    for f in orphans:
        check(not os.path.exists(f), f"the orphan {f} was not removed")
        check(f"removed '{f}', left by a killed run" in q.stderr, f"no message for {f}")
    for f in others:
        check(os.path.exists(f), f"{f} was removed, but it is not an orphan of this study")
        remove(f)


def limited(limit_bytes):
    def preexec():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return preexec


def test_memory(args):
    # 2 ranks, 600 MB of address space each: MPI starts (it needs about 400 MB), the chain of
    # 4e5 links does not fit (about 7 GiB per rank); the 40 links before it do.
    out = os.path.join(args.work, "memory.jsonl")
    remove(out, out + ".ckpt")
    cmd = mpiexec_cmd(args, 2, ["--sizes", "40,400000,40", "--json", out])
    print("$ " + " ".join(cmd) + "   (RLIMIT_AS 600 MB)", flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       preexec_fn=limited(600 * 10**6))
    print(p.stderr[-1500:])
    check(p.returncode == 4, f"out of memory on 2 ranks: status {p.returncode}")
    check("out of memory in run 2 of 3 on rank " in p.stderr and "per rank on 2 ranks" in p.stderr
          and "the address-space limit (ulimit -v) is 572 MiB" in p.stderr,
          f"out of memory on 2 ranks: message: {p.stderr[-800:]}")
    lines = read_lines(out) if os.path.exists(out) else []
    check(len(lines) == 2 and lines[0]["status"] == "ok" and
          lines[1]["status"] == "out_of_memory" and lines[1]["size"] == 400000 and
          lines[1]["estimated_bytes_per_rank"] > 600e6 and
          lines[1]["memory_limit_bytes"] == 600e6 and lines[1]["check_memory_pass"] is False and
          "needs about" in lines[1]["message"], f"out of memory on 2 ranks: lines {lines}")
    with open(out + ".ckpt") as f:
        check(f.read().count("\nrun ") == 1, "the checkpoint does not hold exactly the run done")

    # One rank under 900 MB at 5e4 links: the set-up runs out of memory. Until 2026-11-29
    # PETSc's allocator failed first (MatSetPreallocationCOO, 950-1200 MB); the saddle-point
    # pattern is now built by catena (parallel/petsc_coo_matrix.cpp) in less memory, and from
    # 700 to 1050 MB its own allocations fail first (at about 1320 MB PETSc's did at 2225989),
    # from 1100 MB MUMPS' factorization (measured on 2026-11-29 at one thread). Either set-up
    # failure must give the out-of-memory report, never "PETSc call failed"; PETSc's own report
    # is checked by mpi_coo_matrix_test.
    out = os.path.join(args.work, "memory_petsc.jsonl")
    remove(out, out + ".ckpt")
    cmd = [args.scale, "--sizes", "50000", "--json", out]
    print("$ " + " ".join(cmd) + "   (RLIMIT_AS 900 MB)", flush=True)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                       preexec_fn=limited(900 * 10**6))
    print(p.stderr[-1000:])
    check(p.returncode == 4 and "out of memory in run 1 of 1 on rank 0" in p.stderr and
          "PETSc call failed (error" not in p.stderr,
          f"set-up out of memory: status {p.returncode}: {p.stderr[-800:]}")
    lines = read_lines(out) if os.path.exists(out) else []
    check(len(lines) == 1 and lines[0]["status"] == "out_of_memory",
          f"set-up out of memory: lines {lines}")

    # The serial catena: a chain of 2e5 links under 600 MB.
    if args.catena:
        source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "inputs",
                              "catenary_chain.yaml")
        big = os.path.join(args.work, "chain_2e5.yaml")
        with open(source) as f, open(big, "w") as w:
            for line in f:
                if line.strip().startswith("links:"):
                    line = line[:line.index("links:")] + "links: 200000\n"
                w.write(line)
        cmd = [args.catena, "statics", big]
        print("$ " + " ".join(cmd) + "   (RLIMIT_AS 600 MB)", flush=True)
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                           preexec_fn=limited(600 * 10**6))
        print(p.stderr[-800:])
        check(p.returncode == 1 and
              "catena: out of memory while running 'catena statics': the model has 200000 bodies"
              in p.stderr and "internal error" not in p.stderr and "needs at least" in p.stderr,
              f"serial out of memory: status {p.returncode}: {p.stderr[-800:]}")


def serial_json(args, command, name, extra=()):
    """The JSON summary of the serial `catena COMMAND inputs/NAME` (its "statics" object and its
    "modal" object, or None)."""
    out = os.path.join(args.work, f"serial_{command}_{name}.json")
    cmd = [args.catena, command, os.path.join(args.inputs, name), "--json", out, "--terse"]
    p = subprocess.run(cmd + list(extra), capture_output=True, text=True, timeout=300)
    check(p.returncode == 0, f"{' '.join(cmd)}: exit status {p.returncode}: {p.stderr}")
    with open(out) as f:
        summary = json.load(f)
    return summary["statics"], summary.get("modal")


def test_input(args):
    worst = 0.0
    for name, bodies in (("catenary_chain.yaml", 20), ("anchor_chain.yaml", 43)):
        serial, _ = serial_json(args, "statics", name)
        reactions = {r["joint"]: r["force_world_N"] for r in serial["reactions"]}
        for np in (1, 2):
            lines = study(args, np, "input_" + name,
                          ["--input", os.path.join(args.inputs, name)], 1)
            for l in lines:
                check(l["family"] == "model" and l["size"] == bodies and l["ranks"] == np and
                      l["input"].endswith(name), f"{name}, {np} ranks: {l}")
                check(l["status"] == "ok" and l["check_weight_pass"] is True and
                      l["check_weight_residual"] <= 1e-10, f"{name}, {np} ranks: {l}")
                check(l["check_force_residual"] <= 1e-9 and
                      l["check_position_residual"] <= 1e-10, f"{name}, {np} ranks: residuals")
                check(l["newton_iterations"] == serial["iterations"],
                      f"{name}, {np} ranks: {l['newton_iterations']} Newton iterations, serial "
                      f"{serial['iterations']}")
                # The lowest marker (scale) is the lowest joint's point (serial) to |C|.
                lowest = serial["lowest_point_m"][2]
                pairs = [(l["lowest_point_m"], lowest, abs(lowest))]
                support = l["support_reactions_n"]
                check(len(support) == 2, f"{name}: supports {list(support)}")
                for joint, force in support.items():
                    scale = max(abs(x) for x in reactions[joint])
                    pairs += [(x, y, scale) for x, y in zip(force, reactions[joint])]
                for x, y, scale in pairs:
                    worst = max(worst, abs(x - y) / scale)
    print(f"worst relative difference from the serial catena statics: {worst:.3g}")
    check(worst <= 1e-9, f"catena-scale --input differs from catena statics by {worst}")

    # Modes of the partitioned anchor chain against the serial ones.
    _, modal = serial_json(args, "modal", "anchor_chain.yaml", ["--modes", "4"])
    lines = study(args, 2, "input_modal", ["--input", os.path.join(args.inputs,
                                                                   "anchor_chain.yaml"),
                                           "--analysis", "modal", "--modes", "4"], 1)
    for l in lines:
        check(l["check_modes_pass"] is True, f"input modal: {l}")
        exact = [m["frequency_hz"] for m in modal["modes"]]
        error = max(relative(x, y) for x, y in zip(sorted(l["frequencies_hz"]), sorted(exact)))
        check(len(l["frequencies_hz"]) == 4 and error <= 1e-8,
              f"input modal: {l['frequencies_hz']} vs serial {exact} ({error})")

    # Dynamics from the model's initial state: the catenary chain's 'V' is assembled, the anchor
    # chain's is not (its statics assembles it).
    lines = study(args, 2, "input_dynamics", ["--input", os.path.join(args.inputs,
                                                                      "catenary_chain.yaml"),
                                              "--analysis", "dynamics", "--t-end", "0.05"], 1)
    for l in lines:
        check(l["status"] == "ok" and l["check_energy_pass"] is True and
              l["check_constraint_pass"] is True, f"input dynamics: {l}")
    anchor = os.path.join(args.inputs, "anchor_chain.yaml")
    p = run(args, 2, ["--input", anchor, "--analysis", "dynamics"], expect=1)
    check(f"{anchor}: distributed IDA: the initial state is not consistent" in p.stderr,
          f"unassembled dynamics: {p.stderr}")

    # A study file's input, relative to the study file.
    folder = os.path.join(args.work, "studies")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "study.yaml"), "w") as f:
        f.write(f"input: {os.path.relpath(anchor, folder)}\nrepeats: 2\n")
    lines = study(args, 1, "input_study", ["--study", os.path.join(folder, "study.yaml")], 2)
    check([l["repeat"] for l in lines] == [0, 1] and
          all(l["check_weight_pass"] and l["size"] == 43 for l in lines), f"study: {lines}")

    # A load: no weight check (null), the support balances the load and the weight.
    pendulum = os.path.join(args.inputs, "pendulum.yaml")
    with open(pendulum) as f:
        text = f.read()
    loaded = os.path.join(args.work, "load.yaml")
    with open(loaded, "w") as f:
        f.write(text.replace("analysis:", "forces:\n  - {name: push, type: load, marker: "
                             "bob/hinge, force: [5, 0, 0]}\nanalysis:"))
    for l in study(args, 1, "input_load", ["--input", loaded], 1):
        hinge = l["support_reactions_n"]["hinge"]
        check(l["status"] == "ok" and l["check_weight_residual"] is None and
              l["check_weight_pass"] is True and abs(hinge[0] + 5.0) <= 1e-9 and
              relative(hinge[2], l["weight_n"]) <= 1e-12, f"a load: {l}")

    # What is refused, and how.
    p = run(args, 2, ["--input", anchor, "--sizes", "40"], expect=2)
    check(p.stderr.count("--sizes does not apply to --input") == 1, f"--sizes: {p.stderr}")
    missing = os.path.join(args.work, "missing.yaml")
    p = run(args, 2, ["--input", missing], expect=1)
    check(f"{missing}: error: cannot open the file" in p.stderr, f"missing file: {p.stderr}")
    spring = os.path.join(args.work, "spring.yaml")
    with open(spring, "w") as f:
        f.write(text.replace("analysis:", "forces:\n  - {name: s, type: spring, marker1: "
                             "bob/hinge, marker2: ground/hinge, stiffness: 10}\nanalysis:"))
    for np in (1, 2):
        p = run(args, np, ["--input", spring], expect=1)
        check(f"input '{spring}'" in p.stderr and "spring-dampers" in p.stderr and
              "internal error" not in p.stderr, f"spring, {np} ranks: {p.stderr}")
    p = run(args, 2, ["--input", pendulum], expect=1)
    check(f"input '{pendulum}'" in p.stderr and "leaves a rank without" in p.stderr,
          f"one body on 2 ranks: {p.stderr}")


def main():
    run_mode({"ranks": test_ranks, "restart": test_restart, "options": test_options,
              "iterative": test_iterative, "modal": test_modal, "lattice": test_lattice,
              "dynamics": test_dynamics, "dynamics_restart": test_dynamics_restart,
              "reproducible": test_reproducible, "lattice_dynamics": test_lattice_dynamics,
              "interrupt": test_interrupt, "memory": test_memory, "input": test_input},
             serial_optional=True)


if __name__ == "__main__":
    main()
