"""The one place where solve options become Settings: choices and applicability checked, every
value validated, the kind's presets and defaults filled in.

Glossary:
    options    gpu_anneal.settings.SolveOptions, as the API or the command line got them
    spec       the kind's object from the registry (gpu_anneal.kinds)
    naming     how messages name a parameter (settings.API: "time_limit"; settings.CLI:
               "--time-limit")

Rules: a parameter the chosen kind and method do not take must be left at None (fixed_chains
at False; --method auto takes what annealing or the impasse chains take, and anneals where an
option only annealing takes is given, or on --backend cuda);
setting it is an InputError naming it, never ignored. The checks run in a fixed order, so one
bad call always gets the same message.
"""

from __future__ import annotations

from cpu_reference.errors import InputError
from cpu_reference.sudoku.exact_rules import RULES as EXACT_RULES
from cpu_reference.sudoku.formats import FORMATS
from gpu_anneal import validate
from gpu_anneal.backends import BACKENDS
from gpu_anneal.kinds import KINDS, kind_of
from gpu_anneal.kinds.base import PARAMETERS
from gpu_anneal.method_choice import AUTO, pinned
from gpu_anneal.settings import API, POOLS, Naming, Settings, SolveOptions


def resolve(options: SolveOptions, naming: Naming = API) -> Settings:
    """The Settings of these options; InputError (OptionError) naming the first fault the way
    `naming` names parameters."""
    o, name = options, naming
    # propagate None: not given (the technique's); False turns deduction off
    propagate = None if o.propagate is None else validate.flag(name("propagate"), o.propagate)
    schedule = validate.schedule_text(o.schedule, name("schedule"))
    _choice(name, "kind", o.kind, KINDS)
    spec = kind_of(o.kind)
    if not isinstance(o.method, str):  # a list or a number: no method's name (nor hashable)
        _choice(name, "method", o.method, spec.methods, f" for {o.kind}")
    method = spec.method(o.method)
    _choice(name, "method", method, spec.methods, f" for {o.kind}")
    _choice(name, "backend", o.backend, BACKENDS)
    given = {p: getattr(o, p) for p in PARAMETERS}
    given["propagate"] = propagate
    fixed_chains = validate.flag(name("fixed_chains"), o.fixed_chains)
    given["fixed_chains"] = fixed_chains or None
    given["schedule"] = schedule
    _refuse(name, spec, method, given)
    if method == AUTO and (o.backend == "cuda" or pinned(spec, given)):
        method = "anneal"  # auto anneals on a card and wherever an annealing option is given
    if o.backend == "cuda" and method not in spec.cuda_methods:
        raise InputError(f"{name.value('backend', 'cuda')}: {name.value('method', method)} "
                         "runs on the CPU only")  # fmt: skip
    if o.technique is not None:
        _choice(name, "technique", o.technique, spec.techniques, f" for {o.kind}")
    if o.rules is not None:
        _choice(name, "rules", o.rules, EXACT_RULES)
    if o.move is not None:
        _choice(name, "move", o.move, spec.moves, f" for {o.kind}")
    if o.fmt is not None:
        _choice(name, "fmt", o.fmt, FORMATS)
    if o.pool is not None:
        _choice(name, "pool", o.pool, POOLS)
    if o.scheduler is not None and o.workers is not None:
        raise InputError(f"{name('scheduler')} and {name('workers')}: give one, not both")
    batch = validate.batch(o.batch, name("batch"))
    workers = validate.workers(o.workers, name("workers"))
    max_trials = validate.max_trials(o.max_trials, name("max_trials"))
    order = validate.order(o.order, option=name("order"))
    chains = validate.chains(o.chains, (order or 3) ** 4, batch or 1, name("chains"))
    seed = validate.seed(o.seed, name("seed"))
    t0 = validate.t0(o.t0, name("t0"))
    time_limit = validate.time_limit(o.time_limit, name("time_limit"))
    resume = validate.file_name(o.resume, name("resume"))
    threads = validate.threads(o.threads, name("threads"))
    total_time = validate.total_time(o.total_time, name("total_time"))
    lanes = validate.lanes(o.lanes, name("lanes"))
    if lanes is not None and o.backend != "cuda":
        raise InputError(f"{name.value('lanes', lanes)}: lanes set the impasse kernel on a "
                         f"card; give {name.value('backend', 'cuda')}")  # fmt: skip
    anneal = method in ("anneal", AUTO)
    schedule, move, propagate = spec.technique(method, o.technique, schedule, o.move, propagate)
    if anneal and schedule is not None:
        spec.check_schedule(schedule, order, t0)
    if o.on_input_error is not None and not callable(o.on_input_error):
        raise InputError(f"{name('on_input_error')} {o.on_input_error!r}: must be a function "
                         "taking the InputError of a bad puzzle")  # fmt: skip
    return Settings(
        kind=spec.name, method=method, backend=o.backend, chains=chains,
        seed=(0 if seed is None else int(seed)) if spec.takes("seed", method) else None,
        schedule=schedule if anneal else None, move=move, t0=t0,
        time_limit=spec.time_limit(method, time_limit), max_trials=max_trials,
        propagate=bool(propagate), batch=batch, scheduler=o.scheduler, workers=workers,
        rules=(o.rules or "fast") if spec.takes("rules", method) else None, fmt=o.fmt,
        order=order, resume=resume, fixed_chains=bool(fixed_chains), threads=threads,
        total_time=total_time, pool=o.pool, lanes=lanes, on_input_error=o.on_input_error,
        naming=naming,
    )  # fmt: skip


def _choice(name: Naming, parameter: str, value, allowed, where: str = "") -> None:
    if value not in allowed:
        raise InputError(f"{name(parameter)} {value!r}: expected one of {', '.join(allowed)}"
                         f"{where}")  # fmt: skip


def _refuse(name: Naming, spec, method: str, given: dict) -> None:
    """InputError naming the first parameter given that the method does not take: first those
    another method of the kind takes ("does not apply to --method exact"), then those the kind
    never takes ("does not apply to --kind hashi")."""
    wrong = [p for p in PARAMETERS if given.get(p) is not None and not spec.takes(p, method)]
    for parameter in sorted(wrong, key=lambda p: not spec.takes(p)):
        if spec.takes(parameter):
            note = spec.refusal_notes.get((method, parameter))
            where = name.value("method", method) + (f" ({note})" if note else "")
        else:
            where = name.value("kind", spec.name)
        raise InputError(f"{name(parameter)} does not apply to {where}")
