"""The performance model read from compiled code, for every kernel: a model, not a measurement.

Compiles every kernel and size for each architecture (PTX -> ptxas -> nvdisasm), reads the
SASS of its move loop and models proposals/s on the named cards (gpu_anneal.kernels.perf_model).
Writes benchmarks/results/kernels/kernel_model_ARCH[_LABEL].json with the git commit, the
machine, the
cards and the model's assumptions, and a markdown table generated from that JSON.

    python -m benchmarks.bench_kernel_model [--arch sm_90 --arch sm_80] [--label before]
    python -m benchmarks.bench_kernel_model --render \
        benchmarks/results/kernels/kernel_model_sm_90_after.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.machine import git, machine
from benchmarks.paths import results
from gpu_anneal.kernels.cards import CARDS
from gpu_anneal.kernels.perf_model import DEFAULT, record_reader
from gpu_anneal.kernels.ptx import kernel_table
from gpu_anneal.kinds import trial_kernels

CARD_COLUMNS = ("H100 SXM", "A100 SXM", "L4", "RTX 4090")


def run(arch: str, label: str | None, kinds: tuple[str, ...] | None, keep: Path | None) -> dict:
    """Model every kernel of `arch`; the results document."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
    rows = kernel_table(arch, kinds, record_reader(arch, keep), trial_kernels())
    changed = [line[3:] for line in git("status", "--porcelain").splitlines()]
    return {
        "what": "model: proposals/s computed from the compiled code (SASS), not measured on a GPU",
        "label": label,
        "arch": arch,
        "git_commit": git("rev-parse", "HEAD"),
        "git_changed_files": changed,
        "machine": machine("numba"),
        "model_assumptions": DEFAULT.as_dict(),
        "cards": {name: card.as_dict() for name, card in CARDS.items()},
        "records": rows,
    }


def _cell(value, fmt: str = "{}") -> str:
    return "-" if value is None else fmt.format(value)


def markdown(doc: dict) -> str:
    """The markdown table of a results document."""
    a = doc["model_assumptions"]
    lines = [
        f"# Kernel performance model, {doc['arch']}"
        + (f" ({doc['label']})" if doc.get("label") else ""),
        "",
        "Modeled from the compiled code (SASS of each kernel's move loop), **not measured**: "
        "gpu_anneal/kernels/perf_model.py states the model. Counts are static counts of the move "
        "loop's body over all paths (an upper bound on one proposal's path where the loop holds "
        "no inner loop; `*` marks a move loop with inner loops, whose count is no bound).",
        "",
        f"- commit `{doc['git_commit'][:12]}`"
        + (
            f", files changed from it: {', '.join(doc['git_changed_files'])}"
            if doc.get("git_changed_files")
            else ""
        )
        + f"; generated {doc['machine'].get('date')}",
        f"- model assumptions: {', '.join(f'{k} = {v}' for k, v in a.items())}",
        "",
        "| kernel | size | regs | spills st/ld B | instr/proposal | LDL | STL | LDS | LDG | LDC "
        "| 64-bit | FP move loop | FP plateau loop | "
        + " | ".join(f"model G/s {c}" for c in CARD_COLUMNS)
        + " | H100 bound |",
        "|" + "---|" * (14 + len(CARD_COLUMNS)),
    ]
    for r in doc["records"]:
        s = r.get("sass") or {}
        m = r.get("model") or {}
        instr = s.get("instructions_per_proposal")
        star = "" if s.get("instructions_per_proposal_is_upper_bound", True) else "*"
        rates = [m.get(c, {}).get("proposals_per_second") for c in CARD_COLUMNS]
        cells = [
            r["kernel"],
            str(r["size"]),
            _cell(r.get("registers")),
            f"{_cell(r.get('spill_stores'))}/{_cell(r.get('spill_loads'))}",
            _cell(instr) + (star if instr is not None else ""),
            _cell(s.get("local_loads")),
            _cell(s.get("local_stores")),
            _cell(s.get("shared_loads")),
            _cell(s.get("global_loads")),
            _cell(s.get("constant_loads_indexed")),
            _cell(s.get("int64")),
            _cell(s.get("fp")),
            _cell(s.get("plateau_fp")),
            *[_cell(x / 1e9 if x is not None else None, "{:.1f}") for x in rates],
            m.get("H100 SXM", {}).get("bound", "-"),
        ]
        lines.append("| " + " | ".join(cells) + " |")
        if not r.get("ptx"):
            lines.append(f"| ^ compile error: {r.get('error')} |")
        elif s.get("error") or s.get("move_loop_found") is False:
            lines.append(f"| ^ no move loop: {s.get('error') or s.get('rule')} |")
    return "\n".join(lines) + "\n"


def write(doc: dict, out: Path) -> None:
    """Write out.json and out.md (the table generated from the JSON)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(doc, indent=1) + "\n")
    out.with_suffix(".md").write_text(markdown(doc))


def main() -> None:
    """Run the model for each architecture and write the results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", action="append", help="sm_90 and sm_80 unless given")
    parser.add_argument("--label", help="suffix of the result files, e.g. before, after")
    parser.add_argument("--kind", action="append", help="only these kernels")
    parser.add_argument("--keep", help="also write DIR/ARCH/KERNEL-SIZE.ptx|.cubin|.sass")
    parser.add_argument("--out", default=str(results("kernels")), help="results folder")
    parser.add_argument("--render", help="only regenerate the .md of this results JSON")
    args = parser.parse_args()
    if args.render:
        path = Path(args.render)
        path.with_suffix(".md").write_text(markdown(json.loads(path.read_text())))
        return
    for arch in args.arch or ["sm_90", "sm_80"]:
        keep = Path(args.keep) / arch if args.keep else None
        doc = run(arch, args.label, tuple(args.kind) if args.kind else None, keep)
        stem = f"kernel_model_{arch}" + (f"_{args.label}" if args.label else "")
        write(doc, Path(args.out) / stem)
        print(f"wrote {Path(args.out) / stem}.json and .md")


if __name__ == "__main__":
    main()
