#!/usr/bin/env python3
"""report-timeline.py - write report-timeline.json, the version-3 fixture
of pmon-report's timeline outputs (tests/report-html.test):

    python3 tests/data/report-timeline.py > tests/data/report-timeline.json

Two nodes of two ranks each, 120 s, one meter (pm_counters).  The power of
each node is a made-up function of time (init, a solve loop of 300 short
pairs with a small checkpoint write about every second, a region with a
name that needs escaping, three final checkpoints); each slice is its
average, each slice's energy its integral, and the node's energy the sum of
the slices as written (7 significant digits), as docs/report-format.md
asks.  Node B misses one slice (a gap: power and energy null), node A one
CPU reading.  Node A has 85 I/O phases (the first 32 and the last 32
listed, 21 between), node B 6 (all listed).  Deterministic: no random
numbers.
"""
import json
import math
import re

WALL = {"nid001": 120.0, "nid002": 119.6}
SLICES = 120
STEP = 0.001  # the integration step, s
GAP = ("nid002", 47)  # the slice that node B did not measure
CPU_MISSING = ("nid001", 0)


def sig7(x):
    return float("%.7g" % x)


def r4(x):
    return round(x, 4)


# Regions of the measuring rank of each node: name -> list of (begin, end).
def regions(node):
    solve = [(10.0 + k * 0.3, 10.0 + k * 0.3 + 0.27) for k in range(300)]
    return {
        "init": [(0.5, 8.0)],
        "solve": solve,
        'a<b & "c"': [(100.5, 102.0), (103.0, 104.5)],
        "checkpoint": [(105.0, 108.0), (109.0, 112.0), (113.0, 117.0)],
    }


# I/O phases of each node: (start, end, bytes).
def phases(node):
    if node == "nid001":
        ph = [(2.0, 6.0, 268435456)]
        ph += [(10.5 + k * 1.1, 10.65 + k * 1.1, 4194304) for k in range(81)]
        ph += [(105.2, 107.8, 134217728), (109.2, 111.8, 134217728),
               (113.2, 116.8, 201326592)]
    else:
        ph = [(2.0, 6.2, 268435456), (40.0, 40.6, 16777216),
              (70.0, 70.6, 16777216), (105.3, 107.7, 134217728),
              (109.3, 111.7, 134217728), (113.3, 116.7, 201326592)]
    return ph


def inside(t, spans):
    return any(a <= t < b for a, b in spans)


def power(node, t, regs, ph):
    if inside(t, [(a, b) for a, b, _ in ph]):
        p = 262.0
    elif inside(t, regs["solve"]):
        p = 425.0
    elif inside(t, regs['a<b & "c"']):
        p = 350.0
    elif inside(t, regs["checkpoint"]):
        p = 285.0
    elif inside(t, regs["init"]):
        p = 225.0
    elif 10.0 <= t < 100.0:
        p = 300.0  # between two solve pairs
    else:
        p = 185.0
    p += 8.0 * math.sin(t * 1.7) + 4.0 * math.sin(t * 0.21)
    return p * 0.9 + 5.0 if node == "nid002" else p


def cpu(node, t, regs, ph):
    if inside(t, [(a, b) for a, b, _ in ph]):
        u = 0.31
    elif inside(t, regs["solve"]) or inside(t, regs['a<b & "c"']):
        u = 0.97
    elif 10.0 <= t < 100.0 or inside(t, regs["init"]):
        u = 0.55
    else:
        u = 0.08
    return u - (0.04 if node == "nid002" else 0.0)


def node_record(name, rank0):
    wall = WALL[name]
    dt = wall / SLICES
    regs, ph = regions(name), phases(name)
    t_s, pw, ej, cu = [], [], [], []
    fine = int(round(dt / STEP))
    for i in range(SLICES):
        t0 = i * dt
        e = u = 0.0
        for k in range(fine):
            t = t0 + (k + 0.5) * dt / fine
            e += power(name, t, regs, ph) * dt / fine
            u += cpu(name, t, regs, ph) / fine
        t_s.append(round(t0, 6))
        if (name, i) == GAP:
            pw.append(None)
            ej.append(None)
        else:
            pw.append(sig7(e / dt))
            ej.append(sig7(e))
        cu.append(None if (name, i) == CPU_MISSING else round(u, 3))
    energy = sig7(sum(x for x in ej if x is not None))
    measured = wall - (dt if name == GAP[0] else 0.0)

    def span_energy(a, b):
        total, t = 0.0, a
        while t < b:
            i = int(t / dt)
            if (name, i) != GAP:
                total += power(name, t + STEP / 2, regs, ph) * STEP
            t += STEP
        return total

    def span_gap(a, b):
        if name != GAP[0]:
            return 0.0
        g0, g1 = GAP[1] * dt, (GAP[1] + 1) * dt
        return max(0.0, min(b, g1) - max(a, g0))

    region_figs = {}
    for rname, spans in regs.items():
        time = sum(b - a for a, b in spans)
        en = sum(span_energy(a, b) for a, b in spans)
        lost = sum(span_gap(a, b) for a, b in spans)
        region_figs[rname] = (len(spans), time, en, 1.0 - lost / time)
    listed = ph if len(ph) <= 64 else ph[:32] + ph[-32:]
    between = None
    if len(ph) > 64:
        mid = ph[32:-32]
        between = {"count": len(mid), "start_s": r4(mid[0][0]),
                   "end_s": r4(mid[-1][1]), "bytes": sum(p[2] for p in mid)}
    io_time = sum(b - a for a, b, _ in ph)
    io_energy = sum(span_energy(a, b) for a, b, _ in ph)
    nbytes_r = ph[0][2]
    nbytes_w = sum(p[2] for p in ph[1:])
    rec = {
        "name": name,
        "ranks": 2,
        "leader_rank": rank0,
        "energy_j": energy,
        "wall_s": wall,
        "power_w": energy / wall,
        "estimated": False,
        "total_from": "pm_counters",
        "covers": "node",
        "total_how": "pm_counters: node",
        "channels": {"node": energy, "cpu": sig7(energy * 0.61),
                     "memory": sig7(energy * 0.12)},
        "samples": int(wall * 10) + 1,
        "monotonic_ns": [1000000000 * (7 + rank0),
                         1000000000 * (7 + rank0) + int(wall * 1e9)],
        "events": [],
        "coverage": [{
            "meter": "pm_counters", "total": True, "covered_s": r4(measured),
            "fraction": round(measured / wall, 6),
            "gaps": 1 if name == GAP[0] else 0, "readings": int(wall * 10),
            "failed_reads": 0, "rejected": 0, "lost_at_s": None,
            "stale": 0, "stale_at_s": None, "stale_limit_s": 30,
        }],
        "energy_coverage": round(measured / wall, 6),
        "timeline": {
            "slices": SLICES,
            "dt_s": round(dt, 9),
            "t_s": t_s,
            "power_w": pw,
            "energy_j": ej,
            "cpu_util": cu,
            "io_phases": [[r4(a), r4(b), n] for a, b, n in listed],
            "io_phases_between": between,
            "regions": [
                {"name": rname, "rank": rank0, "count": len(spans),
                 "first": [r4(spans[0][0]), r4(spans[0][1])],
                 "last": [r4(spans[-1][0]), r4(spans[-1][1])]}
                for rname, spans in regs.items()
            ],
            "regions_omitted": 0,
        },
        "io": {
            "bytes_read": nbytes_r, "bytes_written": nbytes_w,
            "reads": 16, "writes": 2 * (len(ph) - 1), "meta_ops": 8,
            "ops": 16 + 2 * (len(ph) - 1) + 8, "errors": 0,
            "time_s": r4(io_time * 0.93), "phases": len(ph),
            "phase_time_s": r4(io_time), "energy_j": sig7(io_energy),
            "power_w": io_energy / io_time, "gap_s": 0.01,
        },
    }
    if name == GAP[0]:
        rec["events"].append({
            "t_s": r4(GAP[1] * dt + 0.2), "meter": "pm_counters",
            "type": "gap",
            "detail": "no reading for 1.4 s (2.5 intervals is 0.25 s): "
                      "not counted"})
    return rec, region_figs


def stat(values):
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / n)
    return {"min": min(values), "max": max(values), "mean": mean,
            "stddev": sd}


def main():
    names = ["nid001", "nid002"]
    recs, figs = [], []
    for i, n in enumerate(names):
        rec, f = node_record(n, 2 * i)
        recs.append(rec)
        figs.append(f)
    energy = sig7(sum(r["energy_j"] for r in recs))
    wall = max(WALL.values())
    regions = []
    for rname in figs[0]:
        per = [f[rname] for f in figs]
        nodes = []
        for rec, (count, time, en, cov) in zip(recs, per):
            nodes.append({"name": rec["name"], "count": 2 * count,
                          "time_s": r4(time), "energy_j": sig7(en),
                          "power_w": en / time, "coverage": round(cov, 6),
                          "rank": rec["leader_rank"]})
        en = [n["energy_j"] for n in nodes]
        tm = [n["time_s"] for n in nodes]
        es, ts = stat(en), stat(tm)
        es["min_node"] = nodes[en.index(min(en))]["name"]
        es["max_node"] = nodes[en.index(max(en))]["name"]
        ts["min_node"] = nodes[tm.index(min(tm))]["name"]
        ts["max_node"] = nodes[tm.index(max(tm))]["name"]
        regions.append({
            "name": rname,
            "count": sum(n["count"] for n in nodes),
            "time_s": max(tm),
            "energy_j": sig7(sum(en)),
            "power_w": sum(n["power_w"] for n in nodes),
            "coverage": min(n["coverage"] for n in nodes),
            "unclosed": 0,
            "first_s": recs[0]["timeline"]["regions"][
                list(figs[0]).index(rname)]["first"][0],
            "nodes_without_energy": 0,
            "node_stats": {"nodes": 2, "energy_j": es, "time_s": ts},
            "nodes": nodes,
        })
    nio = [r["io"] for r in recs]
    io_bytes = sum(x["bytes_read"] + x["bytes_written"] for x in nio)
    io_time = max(x["time_s"] for x in nio)
    io_energy = sig7(sum(x["energy_j"] for x in nio))
    io_power = sum(x["power_w"] for x in nio)
    io = {
        "gap_s": 0.01,
        "bytes_read": sum(x["bytes_read"] for x in nio),
        "bytes_written": sum(x["bytes_written"] for x in nio),
        "reads": sum(x["reads"] for x in nio),
        "writes": sum(x["writes"] for x in nio),
        "meta_ops": sum(x["meta_ops"] for x in nio),
        "ops": sum(x["ops"] for x in nio),
        "errors": 0,
        "time_s": io_time,
        "phases": sum(x["phases"] for x in nio),
        "phase_time_s": max(x["phase_time_s"] for x in nio),
        "energy_j": io_energy,
        "power_w": io_power,
        "mb_per_s": io_bytes / 1e6 / io_time,
        "mb_per_j": io_bytes / 1e6 / io_energy,
        "mb_per_s_per_w": io_bytes / 1e6 / io_time / io_power,
        "j_per_byte": io_energy / io_bytes,
        "estimated": False,
        "nodes_without_energy": 0,
        "files": [
            {"name": "out/checkpoint.h5", "bytes_read": 0,
             "bytes_written": 1409286144, "reads": 0, "writes": 184,
             "meta_ops": 8, "ops": 192, "time_s": 19.2, "ranks": 4},
            {"name": "in/mesh.dat", "bytes_read": 536870912,
             "bytes_written": 0, "reads": 32, "writes": 0, "meta_ops": 8,
             "ops": 40, "time_s": 3.91, "ranks": 4},
        ],
        "files_omitted": 0,
    }
    report = {
        "format": {"name": "pmon", "version": 3},
        "pmon_version": "0.1.0",
        "job": {
            "id": "8812345", "id_source": "SLURM_JOB_ID", "ranks": 4,
            "nodes": 2, "wall_s": wall, "start": "2026-11-24T09:00:00Z",
            "end": "2026-11-24T09:02:00Z", "mpi": True,
            "region_names_limit": 10000, "region_names_folded": 0,
            "region_names_folded_exact": True,
        },
        "energy_j": energy,
        "power_w": energy / wall,
        "estimated": False,
        "covers": "node",
        "meters": [{
            "driver": "pm_counters", "spec": "pm_counters",
            "kind": "counter", "estimated": False, "interval_s": 0.1,
            "channels": [
                {"name": "node", "domain": "node", "total": True},
                {"name": "cpu", "domain": "cpu", "total": False,
                 "overlaps": "node"},
                {"name": "memory", "domain": "memory", "total": False,
                 "overlaps": "node"},
            ],
        }],
        "stats": {
            "node_energy_j": stat([r["energy_j"] for r in recs]),
            "node_power_w": stat([r["power_w"] for r in recs]),
        },
        "io": io,
        "nodes": recs,
        "regions": regions,
    }
    text = json.dumps(report, indent=2, ensure_ascii=False)
    # Arrays of numbers on one line each, so that a slice is easy to find.
    text = re.sub(r"\[\s*([-0-9.e, \nnul]*?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]",
                  text)
    print(text)


main()
