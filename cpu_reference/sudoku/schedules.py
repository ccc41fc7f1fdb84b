"""Cooling schedules as data: beta = 1/T for plateau k in closed form.

Glossary:
    k        plateau index inside a trial, from 0
    beta_k   inverse temperature of plateau k
    e_P      largest possible cost (810 for 9x9 with the course's counting)
    L        moves per plateau (the number of cells by default)
    K        plateaus in a full trial: the first k whose temperature is below T_f

Sirdey's law T_{k+1} = T_k / (1 + log(1 + delta) / (e_P + 1) * T_k) is linear in beta:

    beta_k = 1/T0 + k * log(1 + delta) / (e_P + 1)                     (kind "linear")

A geometric schedule T_{k+1} = ratio * T_k is beta_k = beta_0 * ratio**(-k)  (kind "geometric").

With reheat = T_r, a trial that ends unsolved does not restart from a fresh random grid: the
chain keeps its grid and cools on from plateau k_r, the first whose temperature is at most T_r
(a new trial for the counters and the trial cap). With reheats = M as well, every (M + 1)-th
trial starts from a fresh random grid again (M reheated trials in a row at most):

    T  t0 |\\
          |  \\     |\\      |\\          reheat: the grid stays, the temperature climbs
      T_r |    \\   |  \\    |  \\        back to T_r and the law runs on from k_r
      T_f |      \\ |    \\  |    \\
          +------------------------> plateaus

The failure temperature is T_f = eps / (log|Omega| - log(1 - alpha)) with the instance-independent
|Omega| = N**cells (0.00273852 for 9x9, eps = 1/2, alpha = 0.99).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

from cpu_reference.errors import OptionError
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.presets import PRESETS, expand

KIND_LINEAR = 0
KIND_GEOMETRIC = 1

SCHEDULE_NAMES = ("sirdey-course", "sirdey-paper", "geometric")

# The paper prints e_P = 16202 for 9x9 against the course's 810 (= 81 cells x 20 peers / 2);
# for other orders the paper variant keeps that ratio to the course's e_P.
PAPER_EP_9X9 = 16202


@dataclass(frozen=True)
class Schedule:
    """Everything a chain needs to cool and to give up: all numbers, no arrays."""

    name: str
    kind: int
    beta0: float
    step: float  # linear: beta increment per plateau; geometric: log of the beta growth factor
    plateau: int
    max_plateaus: int
    stall: int  # abandon a trial after this many plateaus without a new best; 0 = never
    t0: float
    t_final: float
    e_p: float
    delta: float
    reheat: float = 0.0  # T_r: an unsolved trial's chain keeps its grid, cools on from T_r; 0 = off
    reheats: int = 0  # with reheat: reheated trials in a row before a fresh one; 0 = no limit

    def beta(self, k: int) -> float:
        """Inverse temperature of plateau k (the kernels compute the same in float64)."""
        if self.kind == KIND_LINEAR:
            return self.beta0 + k * self.step
        return self.beta0 * math.exp(k * self.step)

    def reheat_plateau(self) -> int:
        """The plateau a reheated trial starts at: the first whose temperature is at most T_r
        (0 when reheating is off or T_r >= t0)."""
        if self.reheat <= 0.0 or 1.0 / self.reheat <= self.beta0 or self.step <= 0.0:
            return 0
        gap = 1.0 / self.reheat - self.beta0
        if self.kind == KIND_LINEAR:
            return math.ceil(gap / self.step - 1e-9)
        return math.ceil(math.log(1.0 / (self.reheat * self.beta0)) / self.step - 1e-9)

    def as_dict(self) -> dict:
        """Plain dict for JSON output."""
        return asdict(self)


def final_temperature(order: int, eps: float = 0.5, alpha: float = 0.99) -> float:
    """T_f = eps / (cells log N - log(1 - alpha)), the paper's instance-independent form."""
    lay = layout(order)
    return eps / (lay.cells * math.log(lay.N) - math.log(1.0 - alpha))


def default_stall(e_p: float) -> int:
    """10,000 stall plateaus (the paper's figure, given with e_P = 16202; the course page has no
    stall rule) kept at that length for the course's e_P = 810 and scaled by (e_P + 1) / 811."""
    return round(10_000 * (e_p + 1) / (course_e_p(3) + 1))


def course_e_p(order: int) -> int:
    """e_P as the course page counts it: cells x peers / 2 (810 for 9x9)."""
    return layout(order).max_cost


def sirdey(
    order: int,
    variant: str = "course",
    delta: float = 0.1,
    eps: float = 0.5,
    alpha: float = 0.99,
    plateau: int | None = None,
    stall: int | None = None,
    t0: float | None = None,
) -> Schedule:
    """Sirdey's schedule: variant "course" (T0 = e_P = 810 for 9x9) or "paper" (e_P = 16202).

    stall: plateaus without a new best after which a trial is abandoned. The paper gives 10,000
    with e_P = 16202 (the course page has no stall rule); the default applies 10,000 at the
    course's e_P = 810 and scales it by (e_P + 1) / 811 so that it always spans the same change
    of beta. Taken literally at e_P = 16202 (`sirdey-paper:stall=10000`), 0 of 32 runs solved
    the paper's grids (benchmarks/results/paper.md).
    """
    if variant not in ("course", "paper"):
        raise OptionError(f"schedule variant {variant!r}: expected 'course' or 'paper'")
    e_p = course_e_p(order)
    if variant == "paper":
        e_p = round(PAPER_EP_9X9 * e_p / course_e_p(3))
    t_final = final_temperature(order, eps, alpha)
    t_start = float(e_p) if t0 is None else float(t0)
    _check_positive(delta=delta, eps=eps, t0=t_start)
    if not 0.0 < alpha < 1.0:
        raise OptionError(f"alpha = {alpha}: must lie strictly between 0 and 1")
    step = math.log1p(delta) / (e_p + 1)
    max_plateaus = max(1, math.ceil((1.0 / t_final - 1.0 / t_start) / step))
    if stall is None:
        stall = default_stall(e_p)
    return Schedule(
        name=f"sirdey-{variant}",
        kind=KIND_LINEAR,
        beta0=1.0 / t_start,
        step=step,
        plateau=layout(order).cells if plateau is None else int(plateau),
        max_plateaus=max_plateaus,
        stall=int(stall),
        t0=t_start,
        t_final=t_final,
        e_p=float(e_p),
        delta=delta,
    )


def geometric(
    order: int,
    t0: float = 2.0,
    ratio: float = 0.999,
    t_final: float | None = None,
    plateau: int | None = None,
    stall: int = 10_000,
) -> Schedule:
    """Geometric cooling T_{k+1} = ratio T_k from t0 to t_final (default: T_f of the order)."""
    t_end = final_temperature(order) if t_final is None else float(t_final)
    _check_positive(t0=t0, t_final=t_end)
    if not MIN_RATIO < ratio < 1.0:
        raise OptionError(f"ratio = {ratio}: must lie strictly between {MIN_RATIO} and 1")
    if t_end >= t0:
        raise OptionError(f"t_final = {t_end} must be below t0 = {t0}")
    step = -math.log(ratio)
    return Schedule(
        name="geometric",
        kind=KIND_GEOMETRIC,
        beta0=1.0 / t0,
        step=step,
        plateau=layout(order).cells if plateau is None else int(plateau),
        max_plateaus=max(1, math.ceil(math.log(t0 / t_end) / step)),
        stall=int(stall),
        t0=float(t0),
        t_final=t_end,
        e_p=float(course_e_p(order)),
        delta=0.0,
    )


@dataclass(frozen=True)
class Range:
    """The values a schedule key may take: lo..hi, open at an end when lo_open / hi_open, whole
    numbers only when integer."""

    lo: float
    hi: float
    integer: bool = False
    lo_open: bool = False
    hi_open: bool = False

    def text(self) -> str:
        """The range as a message writes it: (0, 100], 1..10,000,000."""
        if self.integer:
            return f"a whole number in {self.lo:,.0f}..{self.hi:,.0f}"
        left, right = "(" if self.lo_open else "[", ")" if self.hi_open else "]"
        return f"a finite number in {left}{self.lo:g}, {self.hi:g}{right}"

    def holds(self, x: float) -> bool:
        """Whether x is finite, inside the range, and whole when the key takes whole numbers."""
        if not math.isfinite(x) or (self.integer and x != int(x)):
            return False
        above = x > self.lo if self.lo_open else x >= self.lo
        below = x < self.hi if self.hi_open else x <= self.hi
        return above and below


# The lowest temperature a schedule may name (t0, t_final): its beta = 1 / T held in Q23.40
# stays below cpu_reference.anneal.fixed_point.BETA_MAX (any T >= 4.8e-7 does). Every uphill move
# is refused from T = 1/23 down (exp(-23) * 2**32 < 1), so a lower start would add nothing.
MIN_TEMPERATURE = 1e-6
# A geometric schedule's lowest ratio (excluded): the chains hold its growth factor 1 / ratio
# below 4 (cpu_reference.anneal.fixed_point.growth_fixed)
MIN_RATIO = 0.25
MAX_PLATEAUS = 10**11  # plateaus per trial; with plateau <= 10**7 every counter fits in int64
# What each key of a schedule string may be (every key finite: nan, inf and 1e30 are refused).
RANGES = {
    "delta": Range(0.0, 100.0, lo_open=True),
    "eps": Range(0.0, 100.0, lo_open=True),
    "alpha": Range(0.0, 1.0, lo_open=True, hi_open=True),
    "plateau": Range(1, 10**7, integer=True),
    "stall": Range(0, 10**9, integer=True),
    "t0": Range(MIN_TEMPERATURE, 1e9),
    "max_plateaus": Range(1, MAX_PLATEAUS, integer=True),
    # the chains' growth factor 1 / ratio is held in Q2.62 (fixed_point.growth_fixed): below 4
    "ratio": Range(MIN_RATIO, 1.0, lo_open=True, hi_open=True),
    "t_final": Range(MIN_TEMPERATURE, 1e9),
    "reheat": Range(0.0, 1e9),
    "reheats": Range(0, 10**9, integer=True),
}
# keys of every schedule that set the Schedule's fields after its cooling law is built
_TRIAL_KEYS = ("max_plateaus", "reheat", "reheats")
# parameters a schedule string may set, per base schedule: "geometric:t0=2,ratio=0.999"
_PARAMETERS = {
    "sirdey": ("delta", "eps", "alpha", "plateau", "stall", "t0", *_TRIAL_KEYS),
    "geometric": ("t0", "ratio", "t_final", "plateau", "stall", *_TRIAL_KEYS),
}


def parse_overrides(
    name: str, text: str, ranges: dict[str, Range], *, once: bool = True
) -> dict[str, float | int]:
    """The key=value pairs of a schedule string's tail ("delta=0.2,plateau=162"), each checked
    against its Range (whole-number keys come back as int); OptionError naming the schedule,
    the key and the allowed range otherwise. With `once` a key given twice (`t0=1,t0=2`: which
    one would run is no guess to make) is an OptionError too; without, the last one counts (a
    preset's string followed by the user's keys)."""
    params: dict[str, float | int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or key not in ranges:
            allowed = ", ".join(ranges)
            raise OptionError(f"schedule {name!r}: {item!r} is not one of {allowed} as key=value")
        if once and key in params:
            raise OptionError(f"schedule {name!r}: {key} is given twice; give each key once")
        params[key] = check_value(name, key, value, ranges[key])
    return params


def check_value(name: str, key: str, value, allowed: Range) -> float | int:
    """One schedule value (text or number) checked against its Range."""
    try:
        x = float(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError, OverflowError):
        raise OptionError(
            f"schedule {name!r}: {key} = {value!r} is not a number; must be {allowed.text()}"
        ) from None
    if not allowed.holds(x):
        raise OptionError(f"schedule {name!r}: {key} = {value}: must be {allowed.text()}")
    return int(x) if allowed.integer else x


def by_name(name: str, order: int, **overrides) -> Schedule:
    """The named schedule for an order, with fields overridden (plateau, stall, max_plateaus...).

    A custom schedule is a name with parameters: "sirdey-course:delta=0.2,plateau=162",
    "sirdey-paper:stall=0", "geometric:t0=1.5,ratio=0.9995,t_final=0.05". Every value must be
    finite and inside its RANGES entry (OptionError naming the range otherwise), and the
    schedule may take at most MAX_PLATEAUS plateaus per trial.
    """
    if not isinstance(name, str):
        raise OptionError(f"schedule {name!r}: expected a name such as {SCHEDULE_NAMES[0]!r}")
    _once_each(name)
    preset = name.partition(":")[0] if name.partition(":")[0] in PRESETS else None
    given = name  # messages name the schedule as given, a preset's name not expanded
    name = expand(name, order)  # a named preset: its measured schedule string (presets.py)
    base, _, text = name.partition(":")
    if base not in SCHEDULE_NAMES:
        known = ", ".join((*SCHEDULE_NAMES, *PRESETS))
        raise OptionError(f"schedule {given!r}: expected one of {known}")
    family = "geometric" if base == "geometric" else "sirdey"
    params = parse_overrides(given, text, {k: RANGES[k] for k in _PARAMETERS[family]}, once=False)
    trial = {key: params.pop(key) for key in _TRIAL_KEYS if key in params}
    if base == "geometric":
        sched = geometric(order, **params)
    else:
        sched = sirdey(order, base.removeprefix("sirdey-"), **params)
    for key, value in trial.items():
        overrides.setdefault(key, value)
    overrides = {key: value for key, value in overrides.items() if value is not None}
    for key, value in overrides.items():
        if key in RANGES:
            overrides[key] = check_value(given, key, value, RANGES[key])
    sched = replace(sched, **overrides) if overrides else sched
    if preset is not None:
        sched = replace(sched, name=preset)
    if sched.max_plateaus > MAX_PLATEAUS:
        raise OptionError(
            f"schedule {given!r}: cools over {float(sched.max_plateaus):.3g} plateaus per trial, "
            f"more than {MAX_PLATEAUS:.0e}; raise delta (or lower ratio) or set max_plateaus"
        )
    if sched.reheat > 0.0 and sched.reheat_plateau() >= sched.max_plateaus:
        raise OptionError(
            f"schedule {given!r}: reheat = {sched.reheat} is not reached within the trial's "
            f"{sched.max_plateaus} plateaus; take a temperature between t0 and the last plateau's"
        )
    return sched


def _check_positive(**values: float) -> None:
    for key, value in values.items():
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            raise OptionError(f"{key} = {value}: must be a finite positive number")


def _once_each(name: str) -> None:
    """OptionError when a key appears twice in a schedule string's tail."""
    seen = set()
    for item in name.partition(":")[2].split(","):
        key = item.partition("=")[0].strip()
        if key and key in seen:
            raise OptionError(f"schedule {name!r}: {key} is given twice; give each key once")
        seen.add(key)


def with_start(name: str, order: int, t0: float | None = None) -> Schedule:
    """The named schedule, restarted at temperature t0 when given (same cooling law and T_f;
    t0 takes the place of a t0 key in the string). OptionError names t0, the schedule and the
    order when the schedule runs as given but not from t0 (a t0 at or below its t_final)."""
    if t0 is None or not isinstance(name, str):
        return by_name(name, order)
    _once_each(name)
    base, _, tail = name.partition(":")
    keys = [item for item in tail.split(",") if item.partition("=")[0].strip() != "t0"]
    try:
        return by_name(f"{base}:" + ",".join([*filter(str.strip, keys), f"t0={t0}"]), order)
    except OptionError as exc:
        by_name(name, order)  # a fault of the schedule itself is named as it is
        side = order * order
        raise OptionError(f"t0 = {t0} with schedule {name!r} at {side}x{side}: {exc}") from None
