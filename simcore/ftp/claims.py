"""The paper's claims C1-C3, judged with confidence intervals under each reading of its loss setting.

One computation (``verdicts``) makes every verdict the chapter shows: the notebook's table, the generated
``data/ftp_sctp_verdicts.csv`` and the text beside them all come from it. Input: per (reading, file size,
loss, design) the sample of ``mget`` times (``PointStats``: runs, sessions that finished, sessions whose
transport gave up, mean and standard deviation of the finished ones). The designs' samples are treated
as independent (each design runs its own seeds' loss draws on its own packet sequence).

The claims (Ladha et al. 2002, sec. 6), as tested:

- **C1** "FTP over multistreamed SCTP with command pipelining outperforms FTP over TCP cutting the latency
  by more than half for higher loss rates": at each non-zero loss of the reading, the 90% interval of
  t4 / t1 (Fieller's, for a ratio of two independent means) lies below 0.5. yes: at both; no: above 0.5
  at either; otherwise not resolved.
- **C2** "as the loss rate increases the relative improvement in transfer time increases": the
  improvement 1 - t4 / t1 grows from no loss to the highest loss by at least ``VISIBLE_CHANGE`` (the paper
  says it "can be seen from the graph") and its interval excludes no growth, and neither step between
  the three losses shrinks it visibly (by ``VISIBLE_CHANGE`` or more, with an interval above 0). no: a
  step shrinks it visibly, or the whole interval of the growth lies below ``VISIBLE_CHANGE`` (a trend too
  small to see); otherwise not resolved.
- **C3** "Even without the use of command pipelining there is a significant improvement": at every loss
  of the reading the 90% interval of t1 - t3 lies above 0. no: below 0 at some loss; otherwise not
  resolved.

All intervals are two-sided 90% (the paper's confidence level), Student t with Welch-Satterthwaite degrees
of freedom; at zero loss every design is deterministic (standard deviation 0), so its interval is a point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .sampling import t95

__all__ = ["PointStats", "Interval", "Verdict", "VISIBLE_CHANGE", "CLAIMS", "welch", "ratio_interval",
           "verdicts", "verdict_table"]

VISIBLE_CHANGE = 0.05  # a change of t4 / t1 by 5% of design 1's time: the least we call visible on a graph
CLAIMS = {"C1": "design 4 cuts design 1's time by more than half at the higher losses",
          "C2": "the relative improvement of design 4 over design 1 grows with loss",
          "C3": "design 3 is significantly faster than design 1 at every loss"}


@dataclass(frozen=True)
class PointStats:
    """One design's sample at one point: ``n_runs`` sessions started, ``n_done`` finished (their mean and
    standard deviation, s), ``n_gave_up`` ended because a transport gave up (TCP's connect timeout or
    retransmission limit, SCTP's Max.Init.Retransmits or Association.Max.Retrans)."""

    n_runs: int
    n_done: int
    n_gave_up: int
    mean_s: float
    sd_s: float

    @property
    def var_of_mean(self) -> float:
        """Return the variance of the mean, s^2 (sd^2 / n; 0 for a deterministic point)."""
        return self.sd_s ** 2 / self.n_done if self.n_done > 0 else math.inf


@dataclass(frozen=True)
class Interval:
    """An estimate with its two-sided 90% interval [lo, hi]."""

    value: float
    lo: float
    hi: float

    def below(self, x: float) -> bool:
        """Return True if the whole interval lies below ``x``."""
        return self.hi < x

    def above(self, x: float) -> bool:
        """Return True if the whole interval lies above ``x``."""
        return self.lo > x


def _t(df: float) -> float:
    return t95(max(1, int(math.floor(df)))) if math.isfinite(df) else 1.6448536269514722


def _welch_df(terms: list[tuple[float, int]]) -> float:
    """Welch-Satterthwaite degrees of freedom of a sum of variance terms (v_i, n_i)."""
    tot = sum(v for v, _ in terms)
    den = sum(v * v / (n - 1) for v, n in terms if v > 0 and n > 1)
    return tot * tot / den if den > 0 else math.inf


def welch(coef: list[tuple[float, PointStats]]) -> Interval:
    """Return the 90% interval of sum(c_i * mean_i) over independent samples (Welch-Satterthwaite)."""
    value = sum(c * p.mean_s for c, p in coef)
    terms = [(c * c * p.var_of_mean, p.n_done) for c, p in coef]
    var = sum(v for v, _ in terms)
    half = _t(_welch_df(terms)) * math.sqrt(var)
    return Interval(value, value - half, value + half)


def ratio_interval(num: PointStats, den: PointStats) -> Interval:
    """Return the 90% interval of mean(num) / mean(den) by Fieller's theorem (independent samples; the
    degrees of freedom those of num - r den at the estimate r). Unbounded if the denominator's own
    interval reaches zero."""
    r = num.mean_s / den.mean_s
    vn, vd = num.var_of_mean, den.var_of_mean
    t = _t(_welch_df([(vn, num.n_done), (r * r * vd, den.n_done)]))
    a = den.mean_s ** 2 - t * t * vd
    b = -2.0 * num.mean_s * den.mean_s
    c = num.mean_s ** 2 - t * t * vn
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:
        return Interval(r, -math.inf, math.inf)
    s = math.sqrt(disc)
    return Interval(r, (-b - s) / (2 * a), (-b + s) / (2 * a))


def _ratio_difference(a: tuple[PointStats, PointStats], b: tuple[PointStats, PointStats]) -> Interval:
    """Return the 90% interval of r_b - r_a for ratios r = num / den of independent samples (delta method)."""
    def part(num, den):
        r = num.mean_s / den.mean_s
        terms = [(num.var_of_mean / den.mean_s ** 2, num.n_done),
                 (r * r * den.var_of_mean / den.mean_s ** 2, den.n_done)]
        return r, terms

    ra, ta = part(*a)
    rb, tb = part(*b)
    terms = ta + tb
    half = _t(_welch_df(terms)) * math.sqrt(sum(v for v, _ in terms))
    return Interval(rb - ra, rb - ra - half, rb - ra + half)


@dataclass(frozen=True)
class Verdict:
    """One claim under one reading for one file size: ``verdict`` is 'yes', 'no', 'not resolved' or
    'not measurable' (too few sessions finished); ``why`` gives the numbers it rests on."""

    claim: str
    reading: str
    file_size_bytes: int
    verdict: str
    why: str


def _pct(x: float) -> str:
    return "0" if x == 0 else f"{100 * x:g}%"


def _iv(i: Interval, spec: str = ".3f") -> str:
    if not math.isfinite(i.lo):
        return f"{i.value:{spec}} (interval unbounded)"
    return f"{i.value:{spec}} [{i.lo:{spec}}, {i.hi:{spec}}]"


def _gave_up_note(stats: dict, losses, designs) -> str:
    parts = [f"design {d} at {_pct(lo)}: {stats[(lo, d)].n_gave_up} of {stats[(lo, d)].n_runs} gave up"
             for lo in losses for d in designs if stats[(lo, d)].n_gave_up]
    return ("; " + ", ".join(parts)) if parts else ""


def _c1(stats, losses):
    out, ivs = [], []
    for lo in losses[1:]:
        iv = ratio_interval(stats[(lo, 4)], stats[(lo, 1)])
        ivs.append(iv)
        out.append(f"t4/t1 at {_pct(lo)} = {_iv(iv)}")
    if all(iv.below(0.5) for iv in ivs):
        v = "yes"
    elif any(iv.above(0.5) for iv in ivs):
        v = "no"
    else:
        v = "not resolved"
    return v, "; ".join(out)


def _c2(stats, losses):
    r = [ratio_interval(stats[(lo, 4)], stats[(lo, 1)]) for lo in losses]
    pairs = [(stats[(lo, 4)], stats[(lo, 1)]) for lo in losses]
    steps = [_ratio_difference(pairs[i], pairs[i + 1]) for i in range(2)]  # r_{i+1} - r_i
    growth = _ratio_difference(pairs[2], pairs[0])  # r_0 - r_hi: the improvement gained
    text = ("1 - t4/t1 = " + " -> ".join(f"{1 - x.value:.3f}" for x in r)
            + f" at {', '.join(_pct(lo) for lo in losses)}; growth {_iv(growth)}")
    shrinks = [i for i, s in enumerate(steps) if s.above(0.0) and s.value >= VISIBLE_CHANGE]
    if shrinks:
        i = shrinks[0]
        return "no", text + f" (shrinks from {_pct(losses[i])} to {_pct(losses[i + 1])})"
    if growth.below(VISIBLE_CHANGE):
        return "no", text + f" (all of the interval below {VISIBLE_CHANGE}: too small to see)"
    if growth.value >= VISIBLE_CHANGE and growth.above(0.0):
        return "yes", text
    return "not resolved", text


def _c3(stats, losses):
    ivs = [welch([(1.0, stats[(lo, 1)]), (-1.0, stats[(lo, 3)])]) for lo in losses]
    text = "; ".join(f"t1 - t3 at {_pct(lo)} = {_iv(iv, '.2f')} s "
                     f"(t3/t1 {stats[(lo, 3)].mean_s / stats[(lo, 1)].mean_s:.2f})"
                     for lo, iv in zip(losses, ivs, strict=True))
    if all(iv.above(0.0) for iv in ivs):
        return "yes", text
    if any(iv.below(0.0) for iv in ivs):
        return "no", text
    return "not resolved", text


_RULES = {"C1": (_c1, (1, 4)), "C2": (_c2, (1, 4)), "C3": (_c3, (1, 3))}


def verdicts(records: list[dict], readings=None) -> list[Verdict]:
    """Return every claim's verdict under every reading and file size in ``records`` (rows of
    ``data/ftp_sctp_readings.csv``: reading, file_size_bytes, loss, design, n_runs, n_done, n_gave_up,
    mean_s, sd_s). ``readings``: the ``Reading`` records by name (default ``READINGS``)."""
    from .readings import READINGS

    readings = readings or READINGS
    table: dict = {}
    for r in records:
        table.setdefault((r["reading"], r["file_size_bytes"]), {})[(r["loss"], r["design"])] = PointStats(
            r["n_runs"], r["n_done"], r["n_gave_up"], r["mean_s"], r["sd_s"])
    out = []
    for name, rd in readings.items():
        for size in sorted({s for (n, s) in table if n == name}):
            stats = table[(name, size)]
            for claim, (rule, designs) in _RULES.items():
                if any(stats[(lo, d)].n_done < 2 for lo in rd.losses for d in designs):
                    v, why = "not measurable", "fewer than 2 sessions finished at some point"
                else:
                    v, why = rule(stats, rd.losses)
                out.append(Verdict(claim, name, size, v, why + _gave_up_note(stats, rd.losses, designs)))
    return out


def verdict_table(vs: list[Verdict]) -> dict[tuple[str, int], dict[str, str]]:
    """Return {(claim, file size): {reading: verdict}} for a compact table."""
    out: dict = {}
    for v in vs:
        out.setdefault((v.claim, v.file_size_bytes), {})[v.reading] = v.verdict
    return out
