#!/usr/bin/env python3
"""Draws the contention lab's report from its results.csv (bench/lab/Lab.java): report.html (self-contained, inline
SVG charts), report.md, and the markdown "Which strategy?" table in the shape of the README's.

    python3 bench/lab/report.py OUT_DIR [--focus 64] [--title "..."]

Python 3 standard library only.
"""
import csv
import html
import math
import sys
from pathlib import Path

STRATEGY_ORDER = ["optimistic", "pessimistic", "nowait", "atomic", "serializable", "sharded", "batched"]
COLORS = {
    "optimistic": "#1f77b4", "pessimistic": "#d62728", "nowait": "#9467bd", "atomic": "#2ca02c",
    "serializable": "#ff7f0e", "sharded": "#17becf", "batched": "#e377c2",
    "read-decide-write": "#1f77b4", "condition": "#2ca02c", "GET": "#9467bd",
}
BASELINE_COLORS = ["#000000", "#7f7f7f"]


def num(value):
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def load(out):
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # a pgbench that could not run (say, more clients than max_connections) is a note, not a zero on the charts
    return [r for r in rows if not (r["family"] == "baseline" and r["variant"] == "pgbench" and not num(r["goodput_per_s"]))]


def select(rows, **where):
    return [r for r in rows if all(r[k] == v for k, v in where.items())]


def series_by(rows, key, x, y):
    """{variant: [(x, y)]} sorted by x."""
    out = {}
    for r in rows:
        xv, yv = num(r[x]), num(r[y])
        if xv is None or yv is None:
            continue
        out.setdefault(r[key], []).append((xv, yv))
    return {k: sorted(v) for k, v in out.items()}


def ordered(names):
    return sorted(names, key=lambda n: (STRATEGY_ORDER.index(n) if n in STRATEGY_ORDER else 99, n))


def nice_max(v):
    if v <= 0:
        return 1
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * exp >= v:
            return m * exp
    return 10 * exp


PALETTE = ["#1f77b4", "#2ca02c", "#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def svg_chart(title, series, baselines, xlabel, ylabel, log_y=False, x_values=None, width=660, height=340):
    """Line chart; x placed by category (the sweep's values, evenly spaced); baselines dashed and black/grey."""
    left, right, top, bottom = 70, 210, 34, 46
    pw, ph = width - left - right, height - top - bottom
    all_series = list(series.items()) + list(baselines.items())
    xs = sorted({x for _, pts in all_series for x, _ in pts}) if x_values is None else x_values
    ys = [y for _, pts in all_series for _, y in pts]
    if not xs or not ys:
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="60"><text x="10" y="30">{html.escape(title)}: no data</text></svg>'
    xpos = {x: left + (pw * (i + 0.5) / len(xs)) for i, x in enumerate(xs)}
    if log_y:
        positive = [y for y in ys if y > 0] or [1]
        lo = 10 ** math.floor(math.log10(min(positive)))
        hi = 10 ** math.ceil(math.log10(max(positive)))
        if hi <= lo:
            hi = lo * 10

        def ypos(y):
            y = max(y, lo)
            return top + ph - ph * (math.log10(y) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))
        ticks = []
        t = lo
        while t <= hi * 1.0001:
            ticks.append(t)
            t *= 10
    else:
        hi = nice_max(max(ys) * 1.05)

        def ypos(y):
            return top + ph - ph * y / hi
        ticks = [hi * i / 5 for i in range(6)]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    for t in ticks:
        y = ypos(t)
        label = f"{t:g}" if t < 10000 else f"{t:,.0f}"
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{label}</text>')
    for x, px in xpos.items():
        parts.append(f'<text x="{px:.1f}" y="{top + ph + 16}" text-anchor="middle">{x:g}</text>')
    parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" stroke="#333"/>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" stroke="#333"/>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 8}" text-anchor="middle">{html.escape(xlabel)}</text>')
    parts.append(f'<text transform="translate(16 {top + ph / 2}) rotate(-90)" text-anchor="middle">{html.escape(ylabel)}</text>')
    legend_y = top + 4

    def line(name, pts, color, dashed):
        nonlocal legend_y
        pts = [(x, y) for x, y in pts if x in xpos]
        if not pts:
            return
        path = " ".join(f"{xpos[x]:.1f},{ypos(y):.1f}" for x, y in pts)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        parts.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for x, y in pts:
            parts.append(f'<circle cx="{xpos[x]:.1f}" cy="{ypos(y):.1f}" r="3" fill="{color}"><title>{html.escape(name)}: {y:g} at {x:g}</title></circle>')
        parts.append(f'<line x1="{left + pw + 10}" x2="{left + pw + 34}" y1="{legend_y}" y2="{legend_y}" stroke="{color}" stroke-width="2"{dash}/>')
        parts.append(f'<text x="{left + pw + 38}" y="{legend_y + 4}">{html.escape(name)}</text>')
        legend_y += 16

    for i, (name, pts) in enumerate(series.items()):
        line(name, pts, COLORS.get(name, PALETTE[i % len(PALETTE)]), False)
    for i, (name, pts) in enumerate(baselines.items()):
        line(name, pts, BASELINE_COLORS[i % 2], True)
    parts.append("</svg>")
    return "".join(parts)


def fmt(v, digits=0):
    x = num(v)
    if x is None:
        return ""
    return f"{x:,.{digits}f}".replace(",", " ")


def refused_share(r, reasons):
    total = num(r["requests"]) or 0
    if not total:
        return ""
    counts = 0
    for part in r["answers"].split("; "):
        if "=" in part:
            key, value = part.rsplit("=", 1)
            if any(key.endswith(reason) for reason in reasons):
                counts += int(value)
    return f"{100 * counts / total:.0f} %" if counts else "0"


TABLE_COLUMNS = [
    ("scenario", "scenario"), ("variant", "variant"), ("loop", "loop"), ("concurrency", "clients"), ("rate", "rate/s"),
    ("goodput_per_s", "goodput"), ("unit", "unit"), ("ok", "ok"), ("refused", "refused"), ("errors", "errors"),
    ("ok_p50_ms", "ok p50"), ("ok_p90_ms", "p90"), ("ok_p99_ms", "p99"), ("ok_p999_ms", "p99.9"), ("ok_max_ms", "max"),
    ("refused_p50_ms", "refused p50"), ("refused_p99_ms", "p99"), ("refused_max_ms", "max"),
    ("conflicts", "conflicts"), ("retries", "retries"), ("exhausted", "exhausted"), ("retries_per_success", "retries/success"),
    ("invariant", "invariant"),
]


def which_strategy(rows, focus):
    flash = {r["variant"]: r for r in select(rows, family="flash", concurrency=str(focus))}
    lines = [f"| strategy ({focus} clients, lab run {rows[0]['run']}) | bookings/s | p50 ms | p99 ms | CONTENTION / BUSY | retries per booking |",
             "|---|---|---|---|---|---|"]
    for s in ordered(flash):
        r = flash[s]
        busy = refused_share(r, ["CONTENTION", "BUSY"])
        lines.append(f"| {s} | {fmt(r['goodput_per_s'])} | {fmt(r['ok_p50_ms'], 1)} | {fmt(r['ok_p99_ms'], 1)} | {busy} | "
                     f"{fmt(r['retries_per_success'], 2) or 'n/a'} |")
    for script, label in (("transaction", "pgbench BEGIN/UPDATE/INSERT/END"), ("statement", "pgbench the one statement `atomic` sends")):
        pg = select(rows, scenario=f"pgbench-{script}")
        if pg:
            best = max(pg, key=lambda r: num(r["goodput_per_s"]) or 0)
            at = [r for r in pg if r["concurrency"] == str(focus)]
            at_focus = f", {fmt(at[0]['goodput_per_s'])} at {focus}" if at else ""
            lines.append(f"| {label}, best ({best['concurrency']} client{'s' if best['concurrency'] != '1' else ''}) | "
                         f"{fmt(best['goodput_per_s'])} tps{at_focus} | {fmt(best['ok_p50_ms'], 1)} | {fmt(best['ok_p99_ms'], 1)} | | |")
    return "\n".join(lines)


def ratios(rows, focus):
    pg = select(rows, scenario="pgbench-transaction")
    if not pg:
        return []
    best = max(num(r["goodput_per_s"]) or 0 for r in pg)
    out = []
    for r in select(rows, family="flash", concurrency=str(focus)):
        if best:
            out.append(f"{r['variant']}: {num(r['goodput_per_s']) / best:.2f}x the best pgbench transaction figure ({best:.0f} tps)")
    sdk = {r["concurrency"]: r for r in select(rows, scenario="sdk-rent-return")}
    for r in select(rows, scenario="bikes-uncontended"):
        base = sdk.get(r["concurrency"])
        if base and r["concurrency"] == str(focus) and num(base["goodput_per_s"]):
            out.append(f"bikes uncontended {r['variant']} at {focus}: {num(r['goodput_per_s']) / num(base['goodput_per_s']):.2f}x the SDK cycle")
    return out


def main():
    out = Path(sys.argv[1])
    args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
    rows = load(out)
    if not rows:
        sys.exit("no rows in results.csv")
    xs = sorted({int(r["concurrency"]) for r in rows if r["loop"] == "closed"})
    focus = int(args.get("--focus", 64 if 64 in xs else xs[-1]))
    title = args.get("--title", "Turnstile contention lab")
    meta = (out / "meta.txt").read_text().strip() if (out / "meta.txt").exists() else ""
    notes = (out / "notes.txt").read_text().strip().splitlines() if (out / "notes.txt").exists() else []

    flash = select(rows, family="flash")
    pg_t = series_by(select(rows, scenario="pgbench-transaction"), "scenario", "concurrency", "goodput_per_s")
    pg_s = series_by(select(rows, scenario="pgbench-statement"), "scenario", "concurrency", "goodput_per_s")
    pg_p99 = series_by(select(rows, scenario="pgbench-transaction"), "scenario", "concurrency", "ok_p99_ms")
    base_goodput = {"pgbench transaction": pg_t.get("pgbench-transaction", []),
                    "pgbench statement": pg_s.get("pgbench-statement", [])}
    charts = []

    def by_strategy(rs, y):
        s = series_by(rs, "variant", "concurrency", y)
        return {k: s[k] for k in ordered(s)}

    charts.append(svg_chart("Flash sale: goodput vs clients", by_strategy(flash, "goodput_per_s"), base_goodput,
                            "concurrent clients (closed loop)", "bookings/s (pgbench: tx/s)", x_values=xs))
    charts.append(svg_chart("Flash sale: p99 of successful bookings", by_strategy(flash, "ok_p99_ms"),
                            {"pgbench transaction p99": pg_p99.get("pgbench-transaction", [])},
                            "concurrent clients", "ms (log scale)", log_y=True, x_values=xs))
    charts.append(svg_chart("Flash sale: retries per successful booking", by_strategy(flash, "retries_per_success"),
                            {"pgbench (no retries)": [(x, 0) for x, _ in pg_t.get("pgbench-transaction", [])]},
                            "concurrent clients", "retries / booking", x_values=xs))
    charts.append(svg_chart("Flash sale: p99 of refused requests (409/503)", by_strategy(flash, "refused_p99_ms"),
                            {"pgbench transaction p99": pg_p99.get("pgbench-transaction", [])},
                            "concurrent clients", "ms (log scale)", log_y=True, x_values=xs))
    sell = select(rows, family="sellout")
    charts.append(svg_chart(f"Sell-out: seats sold per second until SOLD_OUT", by_strategy(sell, "goodput_per_s"),
                            {"pgbench transaction": pg_t.get("pgbench-transaction", [])},
                            "concurrent clients", "seats/s (pgbench: tx/s)", x_values=xs))
    bikes_w = [r for r in select(rows, family="bikes") if r["scenario"] != "bikes-read"]
    bike_series = series_by([dict(r, variant=f"{r['scenario'][6:]} {r['variant']}") for r in bikes_w], "variant", "concurrency", "goodput_per_s")
    sdk = series_by(select(rows, scenario="sdk-rent-return"), "scenario", "concurrency", "goodput_per_s")
    sdk_p99 = series_by(select(rows, scenario="sdk-rent-return"), "scenario", "concurrency", "ok_p99_ms")
    charts.append(svg_chart("Bikes: rent+return cycles/s (hot: rents/s of one bike)", bike_series,
                            {"SDK rent+return": sdk.get("sdk-rent-return", [])}, "concurrent clients", "cycles/s", x_values=xs))
    charts.append(svg_chart("Bikes: p99 of successful requests",
                            series_by([dict(r, variant=f"{r['scenario'][6:]} {r['variant']}") for r in select(rows, family="bikes")],
                                      "variant", "concurrency", "ok_p99_ms"),
                            {"SDK call p99": sdk_p99.get("sdk-rent-return", [])}, "concurrent clients", "ms (log scale)",
                            log_y=True, x_values=xs))
    charts.append(svg_chart("Bikes: retries per rent+return (read-decide-write)",
                            series_by([dict(r, variant=f"{r['scenario'][6:]} {r['variant']}") for r in bikes_w if r["variant"] == "read-decide-write"],
                                      "variant", "concurrency", "retries_per_success"),
                            {"SDK (no retries)": [(x, 0) for x, _ in sdk.get("sdk-rent-return", [])]},
                            "concurrent clients", "retries / cycle", x_values=xs))
    charts.append(svg_chart("Bikes: GET /bikes/{id}", series_by(select(rows, scenario="bikes-read", loop="closed"), "variant", "concurrency", "goodput_per_s"),
                            {"SDK consistent GetItem": series_by(select(rows, scenario="sdk-get"), "scenario", "concurrency", "goodput_per_s").get("sdk-get", [])},
                            "concurrent clients", "reads/s", x_values=xs))
    open_rows = select(rows, loop="open")
    if open_rows:
        # x: the offered rate as a share of the best closed-loop goodput of the same scenario (rounded to 10 %)
        best = {}
        for r in select(rows, loop="closed"):
            key = (r["scenario"], r["variant"])
            best[key] = max(best.get(key, 0), num(r["goodput_per_s"]) or 0)
        labelled = []
        for r in open_rows:
            peak = best.get((r["scenario"], r["variant"])) or 0
            share = round(10 * num(r["rate"]) / peak) * 10 if peak else 0
            labelled.append(dict(r, variant=f"{r['scenario']} {r['variant']}", share=str(share),
                                 achieved=str(100 * (num(r["goodput_per_s"]) or 0) / peak if peak else 0)))
        shares = sorted({int(r["share"]) for r in labelled})
        charts.append(svg_chart("Open loop: p99 from the intended send time", series_by(labelled, "variant", "share", "ok_p99_ms"), {},
                                "offered rate, % of the best closed-loop goodput", "ms (log scale)", log_y=True, x_values=shares))
        charts.append(svg_chart("Open loop: goodput vs offered rate", series_by(labelled, "variant", "share", "achieved"),
                                {"offered": [(x, x) for x in shares]}, "offered rate, % of the best closed-loop goodput",
                                "goodput, % of the best closed loop", x_values=shares))

    failed = [r for r in rows if r["invariant"] == "FAILED"]
    table_md = which_strategy(rows, focus)
    ratio_lines = ratios(rows, focus)

    def html_table(rs):
        head = "".join(f"<th>{html.escape(label)}</th>" for _, label in TABLE_COLUMNS)
        body = []
        for r in rs:
            cells = []
            for key, _ in TABLE_COLUMNS:
                v = r[key]
                cls = ' class="bad"' if key == "invariant" and v == "FAILED" else ""
                title = f' title="{html.escape(r["invariant_detail"])}"' if key == "invariant" else ""
                shown = fmt(v, 1) if key in ("goodput_per_s",) else v
                cells.append(f"<td{cls}{title}>{html.escape(shown)}</td>")
            body.append("<tr>" + "".join(cells) + "</tr>")
        return f"<table><tr>{head}</tr>{''.join(body)}</table>"

    families = [("flash", "Flash sale (a fare that never sells out)"), ("sellout", "Sell-out"), ("bikes", "Bikes"),
                ("baseline", "Raw-store baselines (same run)"), ("open", "Open loop (fixed arrival rates)")]
    sections = []
    for fam, heading in families:
        rs = select(rows, family=fam)
        if rs:
            sections.append(f"<h2>{html.escape(heading)}</h2>{html_table(rs)}")
    doc = f"""<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body{{font-family:sans-serif;margin:20px}} .charts{{display:flex;flex-wrap:wrap;gap:12px}}
.charts svg{{border:1px solid #ddd}} table{{border-collapse:collapse;font-size:11px;margin-bottom:18px}}
td,th{{border:1px solid #ccc;padding:2px 5px;text-align:right}} th{{background:#f3f3f3}} td:nth-child(-n+3){{text-align:left}}
.bad{{background:#f8c8c8;font-weight:bold}} pre{{background:#f6f6f6;padding:8px;overflow-x:auto}}</style></head><body>
<h1>{html.escape(title)}</h1>
<p>{html.escape(meta)}</p>
<p>Invariants: {"<b>all held</b>" if not failed else f'<b class="bad">{len(failed)} FAILED</b>'} ({len([r for r in rows if r['invariant'] == 'ok'])} checked:
<code>/audit</code> for every fare, ride counts for every bike). Latencies in ms from HdrHistograms; open-loop latencies count from the
intended send time. Dashed lines are the raw stores measured in the same run.</p>
{"".join(f"<p class='bad' title='{html.escape(n)}'>{html.escape(n if len(n) < 240 else n[:240] + ' ...')}</p>" for n in notes)}
<div class="charts">{"".join(charts)}</div>
<h2>Which strategy? ({focus} clients)</h2><pre>{html.escape(table_md)}</pre>
<ul>{"".join(f"<li>{html.escape(l)}</li>" for l in ratio_lines)}</ul>
{"".join(sections)}
</body></html>"""
    (out / "report.html").write_text(doc)

    md = [f"# {title}", "", meta, "", f"Invariants: {'all held' if not failed else str(len(failed)) + ' FAILED'}.", ""]
    md += [f"- {n}" for n in notes]
    md += ["", f"## Which strategy? ({focus} clients)", "", table_md, ""]
    md += [f"- {l}" for l in ratio_lines]
    cols = [label for _, label in TABLE_COLUMNS]
    for fam, heading in families:
        rs = select(rows, family=fam)
        if not rs:
            continue
        md += ["", f"## {heading}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in rs:
            md.append("| " + " | ".join(fmt(r[k], 1) if k == "goodput_per_s" else r[k] for k, _ in TABLE_COLUMNS) + " |")
    (out / "report.md").write_text("\n".join(md) + "\n")
    print(table_md)
    for line in ratio_lines:
        print(line)


if __name__ == "__main__":
    main()
