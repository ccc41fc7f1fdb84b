"""What Shikaku and Hashiwokakero share as puzzle kinds: Tatham game IDs or text grids, one
puzzle solved at a time by annealing (CPU or CUDA) or by an integer program.

Glossary:
    p          a parsed puzzle (cpu_reference.shikaku.puzzle.Shikaku or hashi.puzzle.Hashi)
    game ID    Tatham's "WxH:description" of a puzzle
    raw        the dict solve_one returns for one puzzle (gpu_anneal.grid_puzzles documents it)
    options    per-kind solver options (shikaku anneal: candidates; hashi anneal: energy; hashi
               ilp: ilp_mode; shikaku ilp: pruned) and the schedule keys t0, t_final,
               n_plateaus, plateau, max_trials
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Iterator

from cpu_reference.errors import InputError
from cpu_reference.tatham import split_game_id
from gpu_anneal import items, solvers
from gpu_anneal.kinds.base import PuzzleKind
from gpu_anneal.stoppable_trials import StoppableCpuTrials
from gpu_anneal.validate import grid_schedule

GRID_METHODS = ("anneal", "ilp")
SCHEDULE_KEYS = ("t0", "t_final", "n_plateaus", "plateau", "max_trials")
MIN_SECONDS = 1e-3  # the annealer's time limit where parsing spent the puzzle's: one plateau


def check(name: str, value, allowed) -> None:
    """InputError "name: 'value' is not one of ..." when value is not allowed."""
    if value not in allowed:
        raise InputError(f"{name}: {value!r} is not one of {', '.join(allowed)}")


def no_options(options, allowed) -> None:
    """InputError naming the first option that is not allowed."""
    for key in options:
        if key not in allowed:
            raise InputError(f"option: {key!r} is not known here (allowed: {', '.join(allowed)})")


class GridKind(PuzzleKind):
    """A puzzle of Tatham's collection solved one at a time. Subclasses set `model` (the
    cpu_reference puzzle module) and implement the solver hooks."""

    methods = GRID_METHODS
    method_aliases = {"exact": "ilp"}
    default_time_limit = 60.0
    cuda_methods = ("anneal",)
    game_ids = True
    solution_key = ""  # the key of the answer in raw["solution"]
    warm_up_id = ""  # a tiny puzzle whose solve compiles the chain loops
    model = None  # the cpu_reference puzzle module
    ilp_module = ""  # the cpu_reference module of the ILP (scipy's milp): imported when used
    rules = None  # the cpu_reference annealing module: anneal(p, chains, max_trials, runner)
    # The CUDA trial kernel (gpu_anneal.kernels.launch.TrialKernel, one chain a thread): the
    # rules' jitted trial, its non-array arguments besides the schedule's, and a small instance
    # whose argument types stand for every instance (arrays of the same ranks) in PTX checks.
    trial = None
    trial_scalars: tuple[str, ...] = ()
    ptx_example = ""
    # gpu_anneal.backend_choice: the most cells at which the cores' median time a puzzle is
    # under the card's run overhead (auto takes the cores up to there, the card above)
    cores_up_to = 0

    # ---- the CUDA trial kernel ----------------------------------------------------------

    def trial_kernel(self):
        """The kind's TrialKernel (built on first use; numba.cuda is loaded by its launches)."""
        kernel = self.__dict__.get("_trial_kernel")
        if kernel is None:
            from gpu_anneal.kernels.launch import SCHEDULE, TrialKernel

            kernel = TrialKernel(self.trial, (*self.trial_scalars, *SCHEDULE))
            self.__dict__["_trial_kernel"] = kernel
        return kernel

    def trial_types(self) -> tuple:
        """The numba types of the trial kernel's arguments, taken from a real launch on
        ptx_example (gpu_anneal.kernels.ptx compiles the kernel for them)."""
        import numba

        captured: list = []
        puzzle = self.model.parse_grid(self.ptx_example)
        self.rules.anneal(puzzle, chains=2, max_trials=1, runner=lambda *a: captured.append(a))
        return tuple(numba.typeof(a) for a in captured[0])

    # ---- reading and writing ------------------------------------------------------------

    def parse(self, text: str, where: str = "input"):
        """A puzzle from a game ID or a text grid; InputError if malformed or not text."""
        if not isinstance(text, str):
            raise InputError(f"{where}: {type(text).__name__}; expected a {self.title} game ID "
                             "or text grid")  # fmt: skip
        return self.model.parse(text, where)

    def parsed(self, puzzle, where: str = "input"):
        """A puzzle given as text (parsed) or parsed already; InputError for anything else."""
        if isinstance(puzzle, self.parsed_types):
            return puzzle
        return self.parse(puzzle, where)

    def parse_game_id(self, text: str, where: str):
        """A puzzle from a game ID; InputError if malformed."""
        return self.model.parse_game_id(text, where)

    def parse_grid(self, text: str, where: str):
        """A puzzle from a text grid; InputError if malformed."""
        return self.model.parse_grid(text, where)

    drawn_fields: tuple[str, ...] = ()  # the fields of a solution row a picture draws
    # the generator's settings besides the size: name -> (integer, least, most (None: no
    # bound), None means the generator's default)
    generator_ranges: dict[str, tuple[bool, float, float | None, bool]] = {}

    def check_drawn(self, p, solution) -> None:
        """InputError unless `solution` is rows of drawn_fields integers that drawn_fault
        passes for this puzzle (a picture draws them as given)."""
        try:
            rows = [tuple(int(v) for v in row) for row in solution]
            ok = all(len(row) == len(self.drawn_fields) for row in rows)
        except (TypeError, ValueError, OverflowError):
            ok = False
        if not ok:
            raise InputError(f"solution: expected rows of ({', '.join(self.drawn_fields)}) "
                             "integers")  # fmt: skip
        for k, row in enumerate(rows):
            fault = self.drawn_fault(p, row)
            if fault is not None:
                raise InputError(f"solution row {k} {list(row)}: {fault}")

    def drawn_fault(self, p, row: tuple[int, ...]) -> str | None:
        """What keeps one solution row from being drawn on this puzzle, or None."""
        return None

    def game_id(self, p) -> str:
        """Tatham's game ID of a parsed puzzle (InputError for anything else)."""
        if not isinstance(p, self.parsed_types):
            raise InputError(f"puzzle: {type(p).__name__}; expected a parsed {self.title} puzzle")
        return self.model.to_game_id(p)

    def read(self, source, fmt: str | None, order: int | None) -> Iterator:
        """Every puzzle of one source: a game ID a line or one text grid (items.read_grid)."""
        return items.read_grid(self, source)

    def size(self, item) -> str:
        """WIDTHxHEIGHT."""
        return f"{item.puzzle.width}x{item.puzzle.height}"

    def givens(self, item) -> str:
        """The game ID."""
        return self.game_id(item.puzzle)

    def givens_text(self, item) -> str:
        """The game ID."""
        return self.game_id(item.puzzle)

    def text(self, item, state) -> str:
        """The solved grid as text (cpu_reference's solution_text)."""
        return self.model.solution_text(item.puzzle, state)

    def identity_size(self, order: int | None, givens) -> tuple[str, str]:
        """(WxH, the game ID) of a game ID or a parsed puzzle."""
        text = givens if isinstance(givens, str) else self.game_id(givens)
        w, h, _, _ = split_game_id(text, "game ID")
        return f"{w}x{h}", text

    def verify(self, item, state) -> str | None:
        """The kind's verifier (cpu_reference); None when it accepts."""
        ok, reason = self.model.verify(item.puzzle, state)
        return None if ok else reason

    def check_schedule(self, text: str, order: int | None, t0: float | None) -> None:
        """'geometric[:key=value,...]' within validate.GRID_SCHEDULE_RANGES."""
        grid_schedule(text, t0)

    # ---- solving ------------------------------------------------------------------------

    def solve(self, items, settings) -> Iterator:
        """One puzzle at a time (gpu_anneal.solvers.grid_puzzles)."""
        return solvers.grid_puzzles(items, settings, self)

    def anneal_options(self, settings) -> dict:
        """The kind's options of solve_one for an annealing run of these settings."""
        return {}

    def ran_move(self, settings) -> str | None:
        """The move an annealing run of these settings ran (None: the kind has none)."""
        return None

    def state_of(self, raw: dict):
        """The answer (or best state) of a solve_one dict, None without one."""
        solution = raw.get("solution")
        return solution.get(self.solution_key) if solution else None

    def solve_one(
        self,
        puzzle,
        method: str,
        backend: str,
        chains: int,
        seed: int,
        time_limit: float,
        **options,
    ) -> dict:
        """Solve one puzzle (text or parsed) by a method of GRID_METHODS on a backend taken
        already ("cpu" or "cuda": gpu_anneal.run_plan) with `chains` chains; the dict
        gpu_anneal.grid_puzzles.solve_grid_puzzle documents. `time_limit` counts from the
        call: parsing the puzzle and loading the ILP's modules spend it too."""
        t0 = time.perf_counter()
        p = self.parsed(puzzle)
        out = {"kind": self.name, "game_id": self.game_id(p), "method": method}
        sched = {k: options.pop(k) for k in SCHEDULE_KEYS if k in options}
        if method == "ilp":
            out["backend"] = "cpu"
            if self.ilp_module:
                importlib.import_module(self.ilp_module)
            left = time_limit - (time.perf_counter() - t0)
            res, solution = self.ilp(p, left, options, out)
            out["status"] = res["status"]
            out["reason"] = res.get("reason")  # why the program was not built (too_large)
            out["energy"] = None
        else:
            used = backend
            out["backend"] = used
            if used != "cpu":  # a fresh CUDA runner keeping this run's arrays on the device
                from gpu_anneal.grid_runners import cuda_trials  # numba.cuda: CUDA runs only

                runner = cuda_trials(self.trial_kernel())
            left = max(MIN_SECONDS, time_limit - (time.perf_counter() - t0))
            if used == "cpu":  # trials that the time limit and Ctrl-C stop after a plateau
                names = self.trial_kernel().names
                runner = StoppableCpuTrials(self.rules.run_chains_cpu, names, left)
            res, solution = self.anneal(p, chains, seed, left, runner, sched, options, out)
            out["energy"] = res["energy"]
            out["trials"] = res["trials"]
            out["first_round"] = res.get("first_round")  # seconds of one trial of every chain
            out["chains"] = chains
            out["schedule"] = res["schedule"]  # t0, t_final, n_plateaus, plateau that ran
            out["reason"] = res.get("reason")  # why no answer exists, when anneal ruled it out
            out["status"] = "no_solution" if res.get("no_solution") else (
                "solved" if res["solved"] else "unsolved")  # fmt: skip
        verified = False
        reason = "no answer"
        checked = time.perf_counter()
        if solution is not None:
            verified, reason = self.model.verify(p, solution)
        out["verify_seconds"] = time.perf_counter() - checked
        out["verified"] = bool(verified)
        out["verdict"] = reason
        out["solved"] = bool(verified)
        out["seconds"] = time.perf_counter() - t0
        out["solution"] = self.solution_dict(solution)
        out["text"] = self.model.solution_text(p, solution) if verified else None
        out["move"] = self.move_text(p, solution) if verified else None
        return out

    # ---- the hooks of each kind ---------------------------------------------------------

    def ilp(self, p, time_limit: float, options: dict, out: dict):
        """(the ILP's result dict, its answer or None); extra facts go into out."""
        raise NotImplementedError

    def anneal(self, p, chains, seed, time_limit, runner, sched: dict, options: dict, out: dict):
        """(the annealer's result dict, its answer or None); extra facts go into out."""
        raise NotImplementedError

    def solution_dict(self, solution) -> dict | None:
        """raw["solution"] of an answer (None without one)."""
        raise NotImplementedError

    def move_text(self, p, solution) -> str:
        """Tatham's solve move of a verified answer."""
        raise NotImplementedError

    def generate(self, height: int, width: int, rng, **params):
        """(a puzzle, its planted answer) from the kind's seeded generator."""
        raise NotImplementedError

    def is_unique(self, p, time_limit: float = 60.0) -> bool | None:
        """Whether the puzzle has exactly one solution (None: unknown, as when `time_limit`
        seconds ran out)."""
        raise NotImplementedError

    def render(self, p, path, solution=None) -> None:
        """Write a PNG or SVG picture of the puzzle (and the answer when given)."""
        raise NotImplementedError

    def game_move(self, item, state) -> str | None:
        """Tatham's solve move of a solved state."""
        return self.move_text(item.puzzle, state)
