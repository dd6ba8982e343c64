"""Chapter 2's headline findings as checks: each paper claim, its number, ours from the stored sweep (the mean
over its seeds, with the range over seeds where a verdict depends on it), and a verdict (reproduced / partly /
not reproduced) with the reason. Definitions of "ours" are in each function's docstring so a reader can
recompute them from data/satellite_sweep.csv."""

from __future__ import annotations

import math
import textwrap

import numpy as np

from simcore.satellite import SatelliteParams
from simcore.satellite.figure4 import full_segment_plateau

from .satellite import light_load_slope
from .satellite_figures import E3_BPS, PAPER_SLOPE, curves
from .satellite_sweep import load_figure4, load_sweep

__all__ = ["claims_rows", "claims_text", "figure4_text", "latency_gain", "knee_utilisation", "knee_bracket",
           "figure4_plateau_bps"]


def figure4_plateau_bps(rows: list[dict] | None = None) -> float:
    """Return our figure-4 plateau: the mean on-wire NZ-bound rate of the single-connection runs whose
    presented load is at least twice the closed-form limit (bits/s)."""
    rows = load_figure4() if rows is None else rows
    v = [r["carried_nz_bound_bps"] for r in rows if r["presented_load_bps"] > 2 * 409.6e3]
    return float(np.mean(v))


def _below_saturation(c: dict) -> np.ndarray:
    return c["presented_load_bps"] < 0.85 * E3_BPS


def latency_gain(data: dict, label: str = "150 connections") -> tuple[float, float, float]:
    """Return (gain over the loads below 85 % of the E3, gain at the lowest load, mean saving s): gain =
    1 - latency(label) / latency(base), averaged over the common loads."""
    b, p = data["base"], data[label]
    keep = _below_saturation(b) & np.isfinite(b["sample_latency_mean_s"]) & np.isfinite(p["sample_latency_mean_s"])
    g = 1.0 - p["sample_latency_mean_s"][keep] / b["sample_latency_mean_s"][keep]
    saving = b["sample_latency_mean_s"][keep] - p["sample_latency_mean_s"][keep]
    return float(g.mean()), float(g[0]), float(saving.mean())


def knee_utilisation(data: dict, label: str = "50 connections", n: int = 50, plateau_bps: float | None = None,
                     factors: tuple[float, float] = (1.1, 1.5)) -> tuple[float, float]:
    """Return, for each of the two ``factors``, the utilisation of the inter-proxy connections (carried
    NZ-bound load / n x the single-connection plateau on the wire, figure 4) at the first load where the
    sample latency exceeds ``factor`` x its minimum over the curve, beyond that minimum (NaN if never).
    The paper: latency "begins" to rise at ~75 %."""
    c = data[label]
    lat = c["sample_latency_mean_s"]
    cap = n * (figure4_plateau_bps() if plateau_bps is None else plateau_bps)
    i_min = int(np.nanargmin(lat))  # the lightest loads can be slower (cold connections): start at the minimum
    base = lat[i_min]
    out = []
    for f in factors:
        above = i_min + np.flatnonzero(~(lat[i_min:] <= f * base))
        out.append(float(c["carried_nz_bound_bps"][above[0]] / cap) if above.size else math.nan)
    return out[0], out[1]


def knee_bracket(data: dict, label: str = "50 connections", n: int = 50, plateau_bps: float | None = None,
                 factor: float = 1.5) -> tuple[float, float]:
    """Return (utilisation of the last load whose sample latency is at most ``factor`` x its minimum over
    the curve, utilisation of the first load above it), both beyond the minimum: where the latency's rise
    lies on the load grid (NaN if it never rises). Utilisation as in ``knee_utilisation``. A factor well
    above the light-load noise over seeds (cold connections: up to +30 %) keeps the bracket off noise."""
    c = data[label]
    lat = c["sample_latency_mean_s"]
    u = c["carried_nz_bound_bps"] / (n * (figure4_plateau_bps() if plateau_bps is None else plateau_bps))
    i_min = int(np.nanargmin(lat))
    above = i_min + np.flatnonzero(~(lat[i_min:] <= factor * lat[i_min]))
    if not above.size:
        return math.nan, math.nan
    return float(u[above[0] - 1]), float(u[above[0]])


def _verdict(ok: bool | None) -> str:
    return "partly" if ok is None else ("reproduced" if ok else "NOT reproduced")


def claims_rows(rows: list[dict] | None = None, fig4_rows: list[dict] | None = None) -> list[dict]:
    """Return one record per headline claim: id, claim, paper, ours, verdict, why (``rows``: the stored
    sweep's, by default ``load_sweep()``)."""
    rows = load_sweep() if rows is None else rows
    d = curves(rows)
    seeds = sorted({r["seed"] for r in rows})
    per_seed = {s: curves(rows, seed=s) for s in seeds}
    out = []

    def add(cid, claim, paper, ours, ok, why):
        out.append(dict(id=cid, claim=claim, paper=paper, ours=ours, verdict=_verdict(ok), why=why))

    plateau = figure4_plateau_bps(fig4_rows)
    add("fig4_plateau", "one 32 KB-window connection plateaus near the window limit", "415 kbit/s (410 calc.)",
        f"{plateau / 1e3:.0f} kbit/s", abs(plateau / 415e3 - 1) < 0.05,
        "window/RTT = 409.6 kbit/s of data; on the wire (+40-byte headers) a sender of full segments reaches "
        "412.0. 4.4BSD-Lite's delayed ACK on its 200 ms tick costs 1.4 % over a long run (406 on the wire: "
        "simulate_single_connection), and our 600 s mean includes the run's start (handshake, slow start)")
    b = d["base"]
    slope = light_load_slope(b["presented_load_bps"], b["carried_nz_bound_bps"], E3_BPS, 0.85)
    add("fig5a_slope", "carried/presented slope through most of figure 5a (base)", f"{PAPER_SLOPE}", f"{slope:.3f}",
        abs(slope - PAPER_SLOPE) < 0.03,
        "headers, SYN/FIN and ACKs add 3-4 % to our 11.6 kB mean reply, less the reply bytes still on their "
        "way when the run ends (heavy-tailed replies released at their servers' rates). 1.09 needs ~2.2 kB "
        "mean replies, which cannot give the 1:19 ratio of figure 7d; we matched 1:19")
    top = float(b["carried_nz_bound_bps"].max())
    add("fig5a_saturation", "the base case saturates the link (tails off within 2 % of it)", "within 2 %",
        f"{100 * top / E3_BPS:.1f} % of the E3 at most", True if top > 0.98 * E3_BPS else (None if top > 0.94 * E3_BPS
                                                                                              else False),
        "many concurrent connections (figure 7a) fill the E3 although each is window-limited; a run loses "
        "its first ~2 s to handshakes before the first replies (0.3 % of 600 s) and a little to losses at the "
        "full buffer")
    few = max(float(d[k]["carried_nz_bound_bps"].max()) for k in ("1 connections", "10 connections", "50 connections"))
    add("fig5a_few_conns", "50 inter-proxy connections or fewer never saturate the link", "never",
        f"at most {few / 1e6:.1f} Mbit/s ({100 * few / E3_BPS:.0f} %)", few < 0.95 * E3_BPS,
        "50 x ~0.4 Mbit/s = ~20 Mbit/s: the connections' windows limit first")
    order = ("1 connections", "10 connections", "50 connections", "100 connections", "150 connections",
             "200 connections")
    need = next((k for k in order if d[k]["carried_nz_bound_bps"].max() > 0.97 * top), "none")
    add("concl_100", "about 100 connections avoid under-use of the link (carry what the base case carries)",
        "~100", f"{need} (the fewest carrying >= 97 % of the base case's maximum)",
        need == "100 connections", "100 x ~0.4 Mbit/s exceeds the E3; 50 x 0.4 does not")
    gain, gain_low, saving = latency_gain(d)
    add("fig5b_latency_gain", "a US proxy with many connections cuts sample latency by ~45 % (2.5 s/request)",
        "~45 %, 2.5 s", f"{100 * gain:.0f} %, {saving:.1f} s (150 conns, loads < 85 % of E3)",
        True if 0.35 <= gain <= 0.55 else (None if 0.25 <= gain <= 0.7 else False),
        "warm inter-proxy connections save the SYN round trip over the satellite and most slow start. Our "
        "sample pages are single requests of median size (3 kB), which that saving dominates: a larger "
        "fraction but fewer seconds than the paper's (its 2.5 s suggests larger pages or slower servers)")
    mid = latency_gain(d)[0]
    add("fig5b_low_load", "the gain is smaller at very low load", "less", f"{100 * gain_low:.0f} % at the lightest "
        f"load vs {100 * mid:.0f} % on average", gain_low < mid,
        "at light load the few busy inter-proxy connections idle past their RTO and restart from slow start")
    flat, up = knee_bracket(d)
    brackets = [knee_bracket(c) for c in per_seed.values()]
    add("fig5b_knee", "latency climbs once the inter-proxy connections reach ~75 % of their capacity", "~75 %",
        f"within +50 % of its minimum up to {100 * flat:.0f} % of their capacity, above from {100 * up:.0f} % "
        f"(50 conns, mean of {len(seeds)} seeds; each seed: "
        + ", ".join(f"{100 * a:.0f}-{100 * b:.0f} %" for a, b in brackets) + ")",
        True if flat <= 0.75 <= up else (None if flat <= 0.85 else False),
        f"at every seed the latency of 50 connections stays close to its minimum while they carry up to "
        f"{100 * min(a for a, _ in brackets):.0f}-{100 * max(a for a, _ in brackets):.0f} % of their capacity, "
        "and is several times it at the next load (full): queueing at the US proxy starts later and more "
        "sharply than the paper's ~75 %. Our loads are ~12 % of the capacity apart, so the rise lies somewhere "
        "between the two")
    def mid_mean(c):  # mean latency over the loads between 40 and 90 % of the E3
        keep = (c["presented_load_bps"] > 0.4 * E3_BPS) & (c["presented_load_bps"] < 0.9 * E3_BPS)
        return float(np.nanmean(c["sample_latency_mean_s"][keep]))

    big = ("100 connections", "150 connections", "200 connections")
    means = {k: mid_mean(d[k]) for k in big}
    best = min(means, key=means.get)
    bests = [min(big, key=lambda k, c=c: mid_mean(c[k])) for c in per_seed.values()]
    seed_spread = max(max(mid_mean(c[k]) for c in per_seed.values()) - min(mid_mean(c[k]) for c in per_seed.values())
                      for k in big)
    gap = max(means.values()) - min(means.values())
    add("concl_150", "about 150 connections give the best latency", "~150",
        f"{best} (mean latency 40-90 % load: " + ", ".join(f"{k.split()[0]}: {v:.2f} s" for k, v in means.items())
        + f"; best per seed: {', '.join(b.split()[0] for b in bests)})",
        best == "150 connections" if gap > seed_spread else None,
        f"more connections than needed to fill the link do not hurt; beyond 100 the mean latencies differ by "
        f"{gap:.2f} s, less than one curve's spread over seeds ({seed_spread:.2f} s), so our runs cannot single "
        f"out 150" if gap <= seed_spread else "the difference exceeds the spread over seeds")
    prox = d["150 connections"]

    def ratio(c):  # median NZ-bound : US-bound over the loads below 85 % of the E3
        return float(np.median(c["inbound_outbound_ratio"][_below_saturation(c)]))

    rp = sorted(ratio(c["150 connections"]) for c in per_seed.values())
    rb = sorted(ratio(c["base"]) for c in per_seed.values())
    add("fig7d_ratio", "inbound:outbound bytes about 1:19 (with enough proxy connections)", "1:19",
        f"1:{rp[0]:.1f} to 1:{rp[-1]:.1f} (150 conns), 1:{rb[0]:.1f} to 1:{rb[-1]:.1f} (base), over {len(seeds)} "
        "seeds", True if rp[0] <= 19 <= rp[-1] else (None if abs(rp[0] / 19 - 1) < 0.25 else False),
        "our request and reply sizes were chosen to give about 19 (ASSUMPTIONS.md); the ratio follows the "
        "mean reply size, which the heavy tail moves from seed to seed; the base case's separate connections "
        "send more ACKs and handshakes towards the US")
    peak_us = float(b["buffer_peak_bytes_us_end"].max())
    peak_nz = max(float(c["buffer_peak_bytes_nz_end"].max()) for c in d.values())
    add("fig6_buffers", "the 512 KB buffer fills under high load (base); NZ->US use is never heavy",
        "fills; never heavy", f"US end peak {peak_us / 1024:.0f} KB; NZ end peak {peak_nz / 1024:.0f} KB",
        peak_us > 0.9 * 512 * 1024 and peak_nz < 0.25 * 512 * 1024, "requests and ACKs are ~1/19 of the replies")
    one = d["1 connections"]
    flat = float(one["presented_load_bps"][np.flatnonzero(one["carried_us_bound_bps"]
                                                          >= 0.95 * one["carried_us_bound_bps"].max())[0]])
    add("fig7a_single_flat", "with one inter-proxy connection the US connections flatten (requests cannot "
        "reach the US)", "~18 Mbit/s", f"~{flat / 1e6:.0f} Mbit/s (its NZ->US load within 5 % of its maximum)",
        None if abs(flat / 18e6 - 1) > 0.2 else True,
        "the one connection's window also limits the requests and ACKs towards the US (figure 7c); where it "
        "binds depends on the request sizes, which the paper does not give (ours: median 300 bytes)")
    pb, pp = b["us_connections_mean"], prox["us_connections_mean"]
    add("fig7a_connections", "the base case uses more US connections than the US proxy", "more",
        f"base/proxy: {np.median(pb / pp):.1f}x (median over loads)", bool(np.all(pb > pp)),
        "a base connection lives one more satellite round trip per request (handshake across the satellite)")
    return out


def claims_text(rows: list[dict] | None = None, width: int = 100) -> str:
    """Return the claims as text (one block per claim, lines wrapped at ``width`` characters between words)."""
    rows = claims_rows() if rows is None else rows
    lines = []
    for r in rows:
        lines += textwrap.wrap(f"[{r['verdict']}] {r['id']}: {r['claim']}", width, subsequent_indent="    ")
        lines += textwrap.wrap(f"paper: {r['paper']}   ours: {r['ours']}", width, initial_indent="    ",
                               subsequent_indent="      ")
        lines += textwrap.wrap(f"why: {r['why']}", width, initial_indent="    ", subsequent_indent="      ")
    return "\n".join(lines)


def figure4_text(rows: list[dict] | None = None) -> str:
    """Return figure 4's numbers from coarse to fine (kbit/s): the paper's closed form and simulated
    plateau, the full-segment cycle by hand (data and on the wire), and our HTTP-reply plateau."""
    from simcore.satellite.figure4 import window_limit_bps

    p = SatelliteParams()
    hand = full_segment_plateau(p)
    ours = figure4_plateau_bps(rows)
    return "\n".join([
        f"paper, closed form 32767*8/0.64 s       {window_limit_bps(p) / 1e3:7.1f} kbit/s",
        f"paper, simulated plateau                {415.0:7.1f} kbit/s",
        f"by hand, 22 full segments per cycle     {hand.goodput_bps / 1e3:7.1f} kbit/s of data, "
        f"{hand.wire_bps / 1e3:.1f} on the wire",
        f"ours, HTTP replies on one connection    {ours / 1e3:7.1f} kbit/s on the wire "
        f"({100 * (ours / 415e3 - 1):+.1f} % from the paper's)",
    ])
