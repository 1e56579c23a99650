#!/usr/bin/env python3
"""Tables and performance model of benchmarks/studies/schur_scaling.sh.

Reads the study's JSON lines (one record per run, tagged with its part) and prints markdown: A
the 1-2 rank comparison with the serial KLU statics, B the per-rank work of the
Schur-complement decomposition on oversubscribed ranks, C weak scaling, D threads, E
communication, F the large chain (serial and decomposed, with each rank's memory), and the
model fitted to B and C that predicts the factorization phase of 10^7-link chain statics to
1024 ranks.

    /usr/bin/python3 benchmarks/summarize_schur_scaling.py benchmarks/results/schur_scaling.jsonl
    /usr/bin/python3 benchmarks/summarize_schur_scaling.py --memory \
        benchmarks/results/schur_scaling.jsonl          # the memory model alone
"""
import json
import math
import sys


def median(values):
    v = sorted(values)
    return 0.5 * (v[(len(v) - 1) // 2] + v[len(v) // 2])


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


def statics_phase(r):
    """Seconds of the statics itself: the serial run's own clock, or catena-scale's
    (time_statics_s: the whole Newton solve, the linear solver's set-up included, as the serial
    clock includes it; the slowest rank's). Records from before catena-scale wrote it (before
    2026-11-29, session 26): assembly + factorization + solve, which left out the solver's
    set-up (its matrix pattern) that the serial clock counts."""
    if "time_statics_s" in r:
        return r["time_statics_s"]
    keys = ("time_assembly_s", "time_factorization_s", "time_solve_s")
    if not all(k in r for k in keys):
        return None
    return sum(r[k] for k in keys)


def statics_cells(r, serial):
    """The first cells of a row of tables A and F: links, path, ranks, status, Newton its,
    statics s, speed-up against serial (links -> serial statics s), factorization s, interior
    CPU s."""
    n = r.get("size")
    s = statics_phase(r)
    speed = serial.get(n) / s if s and serial.get(n) else None
    path = {"serial klu": "catena statics (KLU)", "direct": "catena-scale, MUMPS",
            "schur": "catena-scale, Schur"}[r["solver"]]
    interior = "-"
    if "cpu_interior_factorization_s_max" in r:
        interior = (f"{r['cpu_interior_factorization_s_max']:.3g} / "
                    f"{r['cpu_interior_factorization_s_min']:.3g}")
    return (f"| {n} | {path} | {r.get('ranks')} | {str(r.get('status'))[:40]} |"
            f" {fmt(r.get('newton_iterations'))} | {fmt(s)} | {fmt(speed)} |"
            f" {fmt(r.get('time_factorization_s'))} | {interior} |")


def part_a(runs):
    rows = [r for r in runs if r.get("part") == "A"]
    if not rows:
        return
    print("## A. One and two ranks against the serial statics")
    print()
    print("statics s: the serial run's statics clock; catena-scale: its statics clock"
          " (time_statics_s, the slowest rank's: the whole Newton solve with the linear solver's"
          " set-up, as the serial clock counts it; records without it: assembly + factorization"
          " + solve, without that set-up). set-up s: catena-scale's model, partition and"
          " patterns, the solver's set-up included. Speed-up: serial statics s / this run's"
          " statics s.")
    print()
    print("| links | path | ranks | status | Newton its | statics s | speed-up vs serial |"
          " factorization s | interior CPU s max / min | set-up s | wall s | peak RSS MiB |"
          " sag m |")
    print("|---:|:---|---:|:---|---:|---:|---:|---:|---|---:|---:|---:|---|")
    serial = {r["size"]: r["time_statics_s"] for r in rows if r["solver"] == "serial klu"}
    for r in rows:
        print(f"{statics_cells(r, serial)} {fmt(r.get('time_setup_s'))} | {fmt(r.get('wall_s'))} |"
              f" {r.get('peak_rss_kib_largest_process', 0) / 1024:.0f} | {fmt(r.get('sag_m'), 10)} |")
    print()


def part_b(runs):
    rows = sorted((r for r in runs if r.get("part") == "B"), key=lambda r: r["ranks"])
    if not rows:
        return
    print("## B. Per-rank work on oversubscribed ranks")
    print()
    print("CPU seconds of each rank's own interior factorizations over the whole statics"
          " (multiplier estimate included); max is a middle rank (an interface at both ends),"
          " min an end rank. The interface factorization is the wall time of S's factorizations"
          " (MUMPS', or since -dd_interface klu the gathered KLU's with its gather), waiting for"
          " the slowest rank included: an upper bound where ranks share cores; its KLU CPU s is"
          " the gathered KLU's own work on the slowest rank (- with MUMPS).")
    print()
    print("| ranks | links | links per rank | interior unknowns max | interface unknowns |"
          " moved | interior CPU s max | min | max / min | Schur part CPU s max |"
          " interface factorization s | its KLU CPU s | status |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---|")
    for r in rows:
        if "cpu_interior_factorization_s_max" not in r:
            print(f"| {r['ranks']} | {r.get('size')} | | | | | | | | | | | {r.get('status')} |")
            continue
        mx, mn = r["cpu_interior_factorization_s_max"], r["cpu_interior_factorization_s_min"]
        print(f"| {r['ranks']} | {r['size']} | {r['size'] // r['ranks']} |"
              f" {r['schur_interior_unknowns_max']} | {r['schur_interface_unknowns']} |"
              f" {r['schur_moved_unknowns']} | {mx:.3g} | {mn:.3g} | {mx / mn:.2f} |"
              f" {r['cpu_schur_part_s_max']:.3g} | {r['time_interface_factorization_s_max']:.3g} |"
              f" {fmt(r.get('cpu_interface_factorization_s_max') or None)} | {r['status']} |")
    print()


def part_c(runs):
    rows = sorted((r for r in runs if r.get("part") == "C"), key=lambda r: r["ranks"])
    if not rows:
        return
    print("## C. Weak scaling (links per rank fixed)")
    print()
    print("Work: the slowest rank's interior factorizations plus its Schur part (the interface"
          " columns' solves, which a middle rank runs over its whole block), CPU s over the"
          " statics.")
    print()
    print("| ranks | links | interior CPU s max | min | Schur part CPU s max | work |"
          " work relative to 1 rank | status |")
    print("|---:|---:|---:|---:|---:|---:|---:|:---|")
    one = next((r for r in rows if r["ranks"] == 1 and "cpu_interior_factorization_s_max" in r),
               None)
    for r in rows:
        if "cpu_interior_factorization_s_max" not in r:
            print(f"| {r['ranks']} | {r.get('size')} | | | | | | {r.get('status')} |")
            continue
        mx = r["cpu_interior_factorization_s_max"]
        rel = work(r) / work(one) if one else None
        print(f"| {r['ranks']} | {r['size']} | {mx:.3g} |"
              f" {r['cpu_interior_factorization_s_min']:.3g} | {r['cpu_schur_part_s_max']:.3g} |"
              f" {work(r):.3g} | {fmt(rel)} | {r['status']} |")
    print()


def work(r):
    """The slowest rank's factorization work over the statics, CPU s: its interior blocks'
    factorizations and its Schur part (the largest of each, possibly on two ranks: an upper
    bound)."""
    return r["cpu_interior_factorization_s_max"] + r.get("cpu_schur_part_s_max", 0.0)


def part_d(runs):
    rows = [r for r in runs if r.get("part") == "D"]
    if not rows:
        return
    print("## D. Threads inside a rank beside ranks")
    print()
    print("1 rank x 2 threads: -statics_dd_parts 2 (two interior blocks per rank, one thread"
          " each); the same bits as with one thread (distributed_chain_test).")
    print()
    print("| links | ranks x threads | parts per rank | status | statics s | factorization s |"
          " interior CPU s (all threads) | interface unknowns | sag m |")
    print("|---:|:---|---:|:---|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r.get('size')} | {r.get('ranks')} x {r.get('threads')} |"
              f" {r.get('schur_parts', '-')} | {str(r.get('status'))[:40]} | {fmt(statics_phase(r))} |"
              f" {fmt(r.get('time_factorization_s'))} |"
              f" {fmt(r.get('cpu_interior_factorization_s_max'))} |"
              f" {r.get('schur_interface_unknowns', '-')} | {fmt(r.get('sag_m'), 13)} |")
    print()


def part_e(runs):
    rows = sorted((r for r in runs if r.get("part") == "E"),
                  key=lambda r: (r["solver"], r["size"], r["ranks"]))
    if not rows:
        return
    print("## E. Communication per rank")
    print()
    print("Bytes and point-to-point messages each rank sent during the statics (assembly,"
          " factorizations, solves, Newton's norms), as PETSc's logging counts them"
          " (lib/parallel/message_counters.hpp): every send of PETSc's scatters and parallel"
          " assembly and of catena's own calls; not MUMPS' internal traffic, so for"
          " --linear-solver direct only what PETSc sends MUMPS (its centralized input), and for"
          " schur not MUMPS' factorization of S. Set-up: model part, partition, patterns.")
    print()
    print("| solver | links | ranks | status | Newton its | bytes sent, largest rank |"
          " mean | bytes per link, largest rank | messages, largest rank | reductions |"
          " set-up bytes, largest rank |")
    print("|:---|---:|---:|:---|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if "bytes_sent_statics_max" not in r:
            print(f"| {r['solver']} | {r.get('size')} | {r.get('ranks')} | {r.get('status')} |"
                  " | | | | | | |")
            continue
        mx = r["bytes_sent_statics_max"]
        print(f"| {r['solver']} | {r['size']} | {r['ranks']} | {str(r['status'])[:30]} |"
              f" {r['newton_iterations']} | {mx:.0f} | {r['bytes_sent_statics_mean']:.0f} |"
              f" {mx / r['size']:.3g} | {r['messages_sent_statics_max']:.0f} |"
              f" {r['reductions_statics_max']:.0f} | {r['bytes_sent_setup_max']:.0f} |")
    print()


def model(runs):
    """The factorization phase T(N, P) = a_P N / P + c0 + c1 P + latency, fitted to B and C."""
    b = [r for r in runs if r.get("part") in ("B", "C") and "cpu_interior_factorization_s_max"
         in r and r.get("threads", 1) == 1]
    one = [r for r in b if r["ranks"] == 1]
    two = [r for r in b if r["ranks"] == 2]
    many = [r for r in b if r["ranks"] >= 3]
    if not one or not many:
        if b:
            print("## Model\n\nnot enough runs to fit.\n")
        return
    # CPU seconds per link of the whole statics' interior factorizations and Schur parts.
    a1 = sum(work(r) / r["size"] for r in one) / len(one)
    a2 = sum(work(r) / (r["size"] / 2) for r in two) / len(two) if two else a1
    am = sum(work(r) / (r["size"] / r["ranks"]) for r in many) / len(many)
    # Interface factorization. Gathered on every rank and factored there by KLU (the default
    # since -dd_interface klu; cpu_interface_factorization_s_max > 0): its local CPU work, linear
    # in P (S of a chain is block-tridiagonal, about 19 unknowns per rank), fitted through the
    # origin over every run with P >= 2 (CPU seconds are a rank's own work, also where ranks
    # wait for cores), plus the gather of S's entries on a network of 1/beta bytes per second
    # with a ring's P - 1 message latencies alpha (Open MPI's allgatherv for large messages).
    # With MUMPS on S (older records): c1 P from the 2-rank runs, whose ranks had a core each;
    # the least-squares fit over the oversubscribed runs is printed as an upper bound (ranks
    # waiting for a core inflate MUMPS' wall time).
    c0 = 0.0
    beta, factorizations = 1e-10, 8
    gathered = [r for r in b if r["ranks"] >= 2 and r.get("cpu_interface_factorization_s_max", 0) > 0]
    # Interface unknowns per rank where the most ranks ran (middle ranks dominate there).
    widest = max(gathered, key=lambda r: r["ranks"]) if gathered else None
    per_rank = widest["schur_interface_unknowns"] / widest["ranks"] if widest else 0.0
    if gathered:
        c1 = (sum(r["ranks"] * r["cpu_interface_factorization_s_max"] for r in gathered)
              / sum(r["ranks"] ** 2 for r in gathered))
        # Each factorization gathers S's entries: a rank's dense block and its couplings to
        # its neighbours' rows, about 3 u^2 doubles for u interface unknowns per rank.
        c1 += factorizations * (beta * 8 * 3 * per_rank ** 2 + 5e-6)
        c1_upper = c1
    else:
        c1 = (sum(r["time_interface_factorization_s_max"] / r["ranks"] for r in two) / len(two)
              if two else 0.0)
        pts = [(r["ranks"], r["time_interface_factorization_s_max"]) for r in b if r["ranks"] >= 2]
        n = len(pts)
        sx = sum(p for p, _ in pts)
        sy = sum(t for _, t in pts)
        sxx = sum(p * p for p, _ in pts)
        sxy = sum(p * t for p, t in pts)
        c1_upper = (n * sxy - sx * sy) / (n * sxx - sx * sx) if n > 1 and n * sxx != sx * sx else c1
    # Latency: about 20 collectives per factorization (status, moved rows, the interface's
    # gathers), 8 factorizations per statics, 5 us per tree level of an allreduce across nodes.
    alpha, collectives = 5e-6, 20 * 8

    def t(N, P):
        a = a1 if P == 1 else (a2 if P == 2 else am)
        extra = 0.0 if P == 1 else c0 + c1 * P + alpha * collectives * math.log2(P)
        return a * N / P + extra

    print("## Model of the factorization phase")
    print()
    print("T(N, P) = a_P N / P + (c0 + c1 P) + alpha k log2 P, fitted to B and C:")
    print()
    print(f"- a_1 = {a1:.3g} CPU s per link (one rank: KLU on the whole chain), a_2 = {a2:.3g}"
          f" (two ranks, both blocks one-sided), a_P = {am:.3g} for P >= 3 (the slowest rank, a"
          f" block with an interface at both ends: {am / a1:.2f} a_1); each the interior"
          " factorizations plus the Schur part;")
    if gathered:
        print(f"- interface: S gathered on every rank and factored there by KLU, c1 P with c1 ="
              f" {fmt(c1)} s per rank over the statics: KLU's CPU seconds fitted through the origin"
              f" over {len(gathered)} runs on 2-{max(r['ranks'] for r in gathered)} ranks, plus"
              f" the gather of S's entries ({per_rank:.1f} interface unknowns per rank, about 3 u^2"
              f" doubles each, {factorizations} factorizations) at {1 / beta / 1e9:.0f} GB/s"
              " with a ring's P - 1 latencies of 5 us;")
    else:
        print(f"- interface: MUMPS on S, c1 P with c1 = {fmt(c1)} s per rank over the statics,"
              f" from the 2-rank runs (the fit over the oversubscribed runs, {fmt(c1_upper)} s"
              " per rank, bounds it from above: their ranks waited for cores);")
    print(f"- latency: {collectives} collectives per statics at {alpha * 1e6:.0f} us per tree"
          " level (an InfiniBand-class network); one rank per core, one thread per rank;")
    print("- the other phases (assembly, residuals, solves) are left out: assembly scaled at"
          " 0.95 from 1 to 2 ranks (docs/performance-model.md), a solve is one sweep through"
          " each rank's factors and one interface solve.")
    print()
    N = 10**7
    print(f"Strong scaling, N = {N:.0e} links (efficiency T(N,1) / (P T(N,P))):")
    print()
    print("| ranks | T s | efficiency |")
    print("|---:|---:|---:|")
    for P in (1, 2, 4, 16, 64, 256, 1024):
        tp = t(N, P)
        print(f"| {P} | {tp:.3g} | {t(N, 1) / (P * tp):.2f} |")
    print()
    n_rank = 10**5
    print(f"Weak scaling, {n_rank:.0e} links per rank (T(n P, P) / T(n, 1)):")
    print()
    print("| ranks | T s | relative to 1 rank |")
    print("|---:|---:|---:|")
    for P in (1, 2, 4, 32, 256, 1024):
        print(f"| {P} | {t(n_rank * P, P):.3g} | {t(n_rank * P, P) / t(n_rank, 1):.2f} |")
    print()


def memory_fit(runs):
    """Peak resident memory of the largest rank against links per rank, a + b n (MiB, MiB per
    link), least squares over the one-thread runs of B and C; (a, b, rows) or None."""
    rows = sorted(((r["size"] / r["ranks"], r["max_rss_mib_max"], r["max_rss_mib_sum"] / r["ranks"],
                    r) for r in runs if r.get("part") in ("B", "C") and "max_rss_mib_max" in r
                   and r.get("threads", 1) == 1), key=lambda x: (x[0], x[3]["ranks"]))
    if len(rows) < 2:
        return None
    n = len(rows)
    sx = sum(x for x, *_ in rows)
    sy = sum(y for _, y, *_ in rows)
    sxx = sum(x * x for x, *_ in rows)
    sxy = sum(x * y for x, y, *_ in rows)
    b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
    a = (sy - b * sx) / n
    return a, b, rows


def rank0_against_others(r):
    """Rank 0's peak resident set over the mean of the other ranks' (None if not recorded)."""
    if "max_rss_mib_rank0" not in r or r["ranks"] < 2:
        return None
    return r["max_rss_mib_rank0"] / ((r["max_rss_mib_sum"] - r["max_rss_mib_rank0"]) /
                                     (r["ranks"] - 1))


def memory(runs):
    """Peak resident memory per rank against links per rank: a + b n, least squares over the
    one-thread runs of B and C (catena-scale's max_rss_mib_max and max_rss_mib_sum)."""
    fit = memory_fit(runs)
    if not fit:
        print("not enough runs for the memory model")
        return
    a, b, rows = fit
    print("## Memory per rank (issue 30, item 3)")
    print()
    print(f"Peak resident set of the largest rank = a + b n (n: links per rank), least squares"
          f" over the B and C runs: a = {a:.0f} MiB, b = {b * 1024 * 1024:.0f} bytes per link"
          f" ({b * 1024:.1f} KiB). The largest rank against the mean of the ranks (max / mean)"
          f" bounds every rank's excess over the others; rank 0 / others: rank 0's peak over"
          f" the mean of the other ranks' (where recorded).")
    print()
    print("| part | ranks | links | links per rank | largest rank MiB | model MiB |"
          " model error | mean MiB | largest / mean | rank 0 / others |")
    print("|:---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for x, y, mean, r in rows:
        m = a + b * x
        print(f"| {r['part']} | {r['ranks']} | {r['size']} | {x:.0f} | {y:.0f} | {m:.0f} |"
              f" {(m - y) / y:+.1%} | {mean:.0f} | {y / mean:.3f} |"
              f" {fmt(rank0_against_others(r))} |")
    print()
    for N, P in ((10**6, 2), (10**6, 4), (10**7, 256)):
        print(f"- predicted: {N:.0e} links on {P} ranks: {(a + b * N / P) / 1024:.1f} GiB per rank")
    print()


def part_f(runs):
    rows = [r for r in runs if r.get("part") == "F"]
    if not rows:
        return
    fit = memory_fit(runs)
    print("## F. The large chain: serial and decomposed statics")
    print()
    print("statics s and speed-up as in A. Peak RSS: the largest rank's, rank 0's and the"
          " smallest rank's (catena-scale's max_rss_mib_*; the serial run's from /usr/bin/time);"
          " rank 0 / others: rank 0's over the mean of the other ranks'; model: the memory"
          " model below (fitted to B and C) for this run's links per rank.")
    print()
    print("| links | path | ranks | status | Newton its | statics s | speed-up vs serial |"
          " factorization s | interior CPU s max / min | set-up s | wall s |"
          " peak RSS MiB largest / rank 0 / smallest | rank 0 / others | model MiB |")
    print("|---:|:---|---:|:---|---:|---:|---:|---:|---|---:|---:|---|---:|---:|")
    times = {}  # (links, path, ranks) -> statics s of each repeat, in run order
    for r in rows:
        if r.get("status") == "ok" and statics_phase(r):
            times.setdefault((r["size"], r["solver"], r["ranks"]), []).append(statics_phase(r))
    serial = {n: median(t) for (n, solver, _), t in times.items() if solver == "serial klu"}
    for r in rows:
        if r["solver"] == "serial klu":
            peak, model = f"{r['peak_rss_kib_largest_process'] / 1024:.0f}", None
        else:
            peak = " / ".join(f"{r.get(k, 0):.0f}" for k in
                              ("max_rss_mib_max", "max_rss_mib_rank0", "max_rss_mib_min"))
            model = fit[0] + fit[1] * r["size"] / r["ranks"] if fit else None
        print(f"{statics_cells(r, serial)} {fmt(r.get('time_setup_s'))} | {fmt(r.get('wall_s'))} |"
              f" {peak} | {fmt(rank0_against_others(r))} | {fmt(model, 4) if model else '-'} |")
    print()
    print("The serial and the decomposed runs alternate (BIG_REPEATS times each); speed-ups are"
          " against the serial runs' median. Over the repeats, statics s:")
    print()
    print("| links | path | ranks | runs | median | fastest | slowest |"
          " speed-up: median / median | fastest serial / slowest decomposed |")
    print("|---:|:---|---:|---:|---:|---:|---:|---:|---:|")
    for (n, solver, ranks), t in sorted(times.items(), key=lambda i: (i[0][0], i[0][2], i[0][1])):
        fastest_serial = min(times.get((n, "serial klu", 1), [math.nan]))
        path = "catena statics (KLU)" if solver == "serial klu" else "catena-scale, " + solver
        print(f"| {n} | {path} | {ranks} | {len(t)} | {fmt(median(t))} | {fmt(min(t))} |"
              f" {fmt(max(t))} | {fmt(serial[n] / median(t)) if n in serial else '-'} |"
              f" {fmt(fastest_serial / max(t))} |")
    print()


def main():
    if sys.argv[1] == "--memory":
        memory(load(sys.argv[2]))
        return
    runs = load(sys.argv[1])
    part_a(runs)
    part_b(runs)
    part_c(runs)
    part_d(runs)
    part_e(runs)
    part_f(runs)
    model(runs)


if __name__ == "__main__":
    main()
