#!/usr/bin/env python3
"""Turn several `actorscope bench --json` files into the Markdown tables of docs/PERFORMANCE.md.

One run on a shared machine says little, so this combines runs: for each benchmark and runtime it
takes the median per element of every run (ns per actor, ns per message, bytes per actor, ...) and
reports the median of those medians with their range; ratios (qt/asio, ractor/asio) are computed
per run first, then summarised the same way.

    engine/benchmarks/tools/bench_tables.py /tmp/perf-run1.json /tmp/perf-run2.json ...
    engine/benchmarks/tools/bench_tables.py --load 2.1 --load 3.4 run1.json run2.json
    engine/benchmarks/tools/bench_tables.py --full-only run*.json   # leave out --quick runs

--load and --name give each file's load average and a name (default "run 1", "run 2", ...), in the
order of the files, for the table of runs; the JSON does not record the load. The table of runs also
shows the median of every individual "Call round trip from outside" on the first runtime, when the run
has it: two thread wake-ups per call, so it tells a run in which waking a thread was cheap from one in
which it was slow (on a virtual machine this changes on its own, and moves many figures). Only the
standard library is needed. Output goes to standard output.
"""

import argparse
import json
import statistics
import sys

FORMAT = "actorscope-bench/1"


def fmt_ns(ns):
    """Three significant digits in the largest unit that keeps the number at or above 1."""
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs"), (1, "ns")):
        if abs(ns) >= factor or factor == 1:
            v = ns / factor
            decimals = 0 if abs(v) >= 100 else 1 if abs(v) >= 10 else 2
            return f"{v:.{decimals}f} {unit}"
    return ""


def fmt_value(v, unit):
    return fmt_ns(v) if unit == "ns" else f"{v:.0f} {unit}"


def fmt_ratio(r):
    return f"{r:.2f}×" if r < 10 else f"{r:.1f}×"


def fmt_spread(values, fmt):
    """`median (low–high)` of a list, or the one value."""
    if not values:
        return "—"
    med = statistics.median(values)
    if len(values) == 1:
        return fmt(med)
    return f"{fmt(med)} ({fmt(min(values))}–{fmt(max(values))})"


def load_runs(paths, loads, names):
    runs = []
    for i, path in enumerate(paths):
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            sys.exit(f"{path}: cannot read it: {e.strerror}")
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            sys.exit(f"{path}: not a complete JSON document ({e}). actorscope bench writes the file "
                     "when the run ends: was the run still going, or stopped before the end?")
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
            sys.exit(f"{path}: not an {FORMAT} document (format {found!r})")
        doc["_path"] = path
        doc["_load"] = loads[i] if i < len(loads) else None
        doc["_name"] = names[i] if i < len(names) else f"run {i + 1}"
        runs.append(doc)
    return runs


class Table:
    """Per (benchmark, runtime): the per-element median of each run, and what goes with it."""

    def __init__(self, runs):
        self.runs = runs
        self.order = []  # benchmark names in run order
        self.info = {}  # name -> (group, unit, element, elements, reference)
        self.per_run = {}  # (name, runtime) -> [(run index, result)]
        self.runtimes = []
        for i, run in enumerate(runs):
            for rt in run["options"]["runtimes"]:
                if rt not in self.runtimes:
                    self.runtimes.append(rt)
            for r in run["results"]:
                if r["error"] is not None:
                    continue
                name = r["benchmark"]
                if name not in self.info:
                    self.order.append(name)
                    self.info[name] = (r["group"], r["unit"], r["element"], r["elements"], r["reference"])
                self.per_run.setdefault((name, r["runtime"]), []).append((i, r))

    def per_element(self, name, rt):
        return [r["per_element"]["median"] for _, r in self.per_run.get((name, rt), [])]

    def by_run(self, name, rt):
        return {i: r for i, r in self.per_run.get((name, rt), [])}

    def ratios(self, name, num_rt, den_rt):
        """num/den per run, for the runs that have both."""
        a, b = self.by_run(name, num_rt), self.by_run(name, den_rt)
        out = []
        for i in sorted(set(a) & set(b)):
            den = b[i]["statistics"]["median"]
            if den > 0:
                out.append(a[i]["statistics"]["median"] / den)
        return out


WAKE_PROBE = "Call round trip from outside"


def wake_probe(run):
    """The median of every individual call from outside on the run's first runtime, or None."""
    first = run["options"]["runtimes"][0]
    for r in run["results"]:
        if r["benchmark"] == WAKE_PROBE and r["runtime"] == first and r["distribution"]:
            return r["distribution"]["median"]
    return None


def runs_table(runs):
    lines = [
        "| run | started (UTC) | kind | filter | load avg (1 min) | call from outside p50 | seconds | revision |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        o = run["options"]
        kind = "quick" if o["quick"] else "full"
        if o["samples"]:
            kind += f", {o['samples']:.0f} samples"
        if o["idle_spin_us"]:
            kind += f", idle spin {o['idle_spin_us']:.0f} µs"
        if o.get("wait_spin_us"):  # absent from reports before --wait-spin-us
            kind += f", wait spin {o['wait_spin_us']:.0f} µs"
        load = "—" if run["_load"] is None else run["_load"]
        filt = "`" + o["filter"].replace("|", "\\|") + "`" if o["filter"] else "all"  # | would end the cell
        probe = wake_probe(run)
        probe = "—" if probe is None else fmt_ns(probe)
        lines.append(
            f"| {run['_name']} | {run['started_at']} | {kind} | {filt} | {load} | {probe} | {run['seconds']:.0f} "
            f"| {run['git_revision']} |"
        )
    return "\n".join(lines)


def summary_table(t, groups):
    """Medians across runs, per element, per runtime, with the qt/asio and ractor ratios."""
    rts = t.runtimes
    head = ["benchmark", "runs"] + [f"{rt}" for rt in rts]
    if len(rts) >= 2:
        head.append(f"{rts[1]}/{rts[0]}")
    head += ["ractor / tokio", f"ractor ÷ {rts[0]}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in t.order:
        group, unit, element, elements, ref = t.info[name]
        if group not in groups:
            continue
        cells = [name]
        n = max(len(t.per_element(name, rt)) for rt in rts)
        cells.append(str(n))
        for rt in rts:
            cells.append(fmt_spread(t.per_element(name, rt), lambda v: fmt_value(v, unit)))
        if len(rts) >= 2:
            cells.append(fmt_spread(t.ratios(name, rts[1], rts[0]), fmt_ratio))
        if ref:
            lo, hi = ref["low"] / elements, ref["high"] / elements
            cells.append(f"{fmt_value(lo, unit)} – {fmt_value(hi, unit)}" if lo != hi else fmt_value(lo, unit))
            first = t.per_element(name, rts[0])
            if first:
                med = statistics.median(first)
                cells.append(f"{lo / med:.1f}–{hi / med:.1f}×" if lo != hi else f"{lo / med:.1f}×")
            else:
                cells.append("—")
        else:
            cells += ["", ""]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def headline_table(t):
    """ractor's five: each with ractor's timing and fully quiescent, per runtime, against ractor."""
    rts = t.runtimes
    head = ["benchmark", "ractor / tokio"]
    for rt in rts:
        head += [f"{rt}, ractor's timing", f"{rt}, quiescent", f"ractor ÷ {rt} (quiescent)"]
    if len(rts) >= 2:
        head.append(f"{rts[1]}/{rts[0]} (quiescent)")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in t.order:
        group, unit, element, elements, ref = t.info[name]
        if group != "core":
            continue
        quiet = name + " (quiescent)"
        lo, hi = (ref["low"] / elements, ref["high"] / elements) if ref else (None, None)
        cells = [f"{name} (per {element})", f"{fmt_value(lo, unit)} – {fmt_value(hi, unit)}" if ref else "—"]
        for rt in rts:
            cells.append(fmt_spread(t.per_element(name, rt), lambda v: fmt_value(v, unit)))
            q = t.per_element(quiet, rt)
            cells.append(fmt_spread(q, lambda v: fmt_value(v, unit)))
            cells.append(f"{lo / statistics.median(q):.1f}–{hi / statistics.median(q):.1f}×" if ref and q else "—")
        if len(rts) >= 2:
            cells.append(fmt_spread(t.ratios(quiet, rts[1], rts[0]), fmt_ratio))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def per_run_table(t, groups):
    """Every run's median per element, side by side, so the spread is visible."""
    n = len(t.runs)
    head = ["benchmark", "runtime"] + [run["_name"] for run in t.runs]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in t.order:
        group, unit, element, elements, ref = t.info[name]
        if group not in groups:
            continue
        for rt in t.runtimes:
            by = t.by_run(name, rt)
            if not by:
                continue
            cells = [name, rt]
            for i in range(n):
                cells.append(fmt_value(by[i]["per_element"]["median"], unit) if i in by else "")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def latency_table(t, groups):
    """Latency benchmarks: the pooled distribution of individual observations, medians across runs."""
    head = ["benchmark", "runtime", "p50", "p99", "max"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in t.order:
        group = t.info[name][0]
        if group not in groups:
            continue
        for rt in t.runtimes:
            dists = [r["distribution"] for _, r in t.per_run.get((name, rt), []) if r["distribution"]]
            if not dists:
                continue
            cells = [name, rt]
            for key in ("median", "p99", "max"):
                cells.append(fmt_spread([d[key] for d in dists], fmt_ns))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", help="JSON files written by actorscope bench --json")
    ap.add_argument("--load", action="append", default=[], help="the load average of each file's run, in order")
    ap.add_argument("--name", action="append", default=[], help="a name for each file's run, in order")
    ap.add_argument("--full-only", action="store_true", help="leave out runs made with --quick")
    ap.add_argument("--groups", default="core,core-quiescent,messaging,lifecycle,timers,memory",
                    help="comma-separated groups to show (default: all)")
    args = ap.parse_args()

    runs = load_runs(args.files, args.load, args.name)
    if args.full_only:
        runs = [r for r in runs if not r["options"]["quick"]]
        if not runs:
            sys.exit("no full (non --quick) run among the files")
    groups = args.groups.split(",")
    t = Table(runs)

    print("### Runs\n")
    print(runs_table(runs))
    if "core" in groups and "core-quiescent" in groups and any(t.info[n][0] == "core" for n in t.order):
        print("\n### ractor's five core benchmarks (median of the runs' medians, and their range)\n")
        print(headline_table(t))
    print("\n### Medians per element across runs (median, and the range of the runs' medians)\n")
    print(summary_table(t, groups))
    lat = latency_table(t, groups)
    if lat:
        print("\n### Individual latencies, pooled per run (median of the runs, range)\n")
        print(lat)
    print("\n### Each run's median per element\n")
    print(per_run_table(t, groups))


if __name__ == "__main__":
    main()
