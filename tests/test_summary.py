"""benchmarks/summary.py: the committed SUMMARY.md, docs/performance.md's block and README's block
are its output, and its output follows the results files (a typed edit of any of them, or a
changed figure, shows)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from benchmarks import summary as sm

ROOT = Path(__file__).resolve().parent.parent
TRACKED = sm.tracked(sm.RESULTS)


PAGE_BLOCK = f"{sm.BEGIN}\n{sm.END}\n"
README_BLOCK = f"{sm.README_BEGIN}\n{sm.README_END}\n"


def copy_results(tmp_path: Path) -> Path:
    """The tracked results JSON files copied into a fresh folder, each in its topic folder."""
    folder = tmp_path / "results"
    for path in sm.RESULTS.rglob("*.json"):
        name = path.relative_to(sm.RESULTS).as_posix()
        if TRACKED is None or name in TRACKED:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, folder / name)
    return folder


def edit(path: Path, change) -> None:
    """Rewrite a JSON file with `change(data)` applied."""
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_committed_summary_is_the_generators_output():
    want = sm.summary_text(sm.RESULTS, TRACKED)
    assert sm.SUMMARY.read_text(encoding="utf-8") == want, "run python -m benchmarks.summary"


def test_committed_page_block_is_the_generators_output():
    page = sm.PAGE.read_text(encoding="utf-8")
    assert sm.BEGIN in page and sm.END in page
    assert sm.page_text(page, sm.RESULTS, TRACKED) == page, "run python -m benchmarks.summary"


def test_committed_readme_block_is_the_generators_output():
    readme = sm.README.read_text(encoding="utf-8")
    assert sm.README_BEGIN in readme and sm.README_END in readme
    assert sm.readme_text(readme, sm.RESULTS, TRACKED) == readme, "run python -m benchmarks.summary"


def test_readme_holds_a_few_of_the_pages_headlines():
    """README's block is HEADLINES' bullets of the page's list, word for word, and fewer."""
    page, readme = sm.bullets(sm.RESULTS, TRACKED), sm.headlines(sm.RESULTS, TRACKED)
    assert 0 < len(sm.HEADLINES) < len(sm.BULLETS)
    assert readme and len(readme) < len(page)

    def items(lines: list[str]) -> list[str]:
        text = " ".join(line for line in lines if line.startswith(("- ", "  ")))
        return [" ".join(item.split()).rstrip(";.") for item in text.split("- ")[1:]]

    assert set(items(readme)) < set(items(page))


def outputs(tmp_path: Path, folder: Path) -> tuple[list[str], dict[str, Path]]:
    """Arguments of main writing into tmp_path, and the three files they name."""
    files = {"summary": tmp_path / "SUMMARY.md", "page": tmp_path / "performance.md",
             "readme": tmp_path / "README.md"}  # fmt: skip
    files["page"].write_text(f"# p\n\n{PAGE_BLOCK}")
    files["readme"].write_text(f"# x\n\n{README_BLOCK}")
    args = ["--results", str(folder)]
    for name, path in files.items():
        args += [f"--{name}", str(path)]
    return args, files


@pytest.mark.parametrize("typed_in", ["summary", "page", "readme"])
def test_a_typed_edit_is_caught_by_check(tmp_path, capsys, typed_in):
    folder = copy_results(tmp_path)
    args, files = outputs(tmp_path, folder)
    assert sm.main(args) == 0
    assert sm.main([*args, "--check"]) == 0
    path = files[typed_in]
    text = path.read_text()
    if typed_in == "summary":
        figure = re.search(r"\*\*([0-9.]+)\*\*", text).group(0)  # the first bold figure
        typed = "**123.456**"
    else:
        figure = re.search(r"[0-9]+\.[0-9]+ s\b", text).group(0)  # the first figure in seconds
        typed = "123.456 s"
    path.write_text(text.replace(figure, typed, 1))
    assert sm.main([*args, "--check"]) == 1
    assert str(path) in capsys.readouterr().err
    assert typed not in sm.summary_text(folder)
    assert typed not in sm.page_text(PAGE_BLOCK, folder) + sm.readme_text(README_BLOCK, folder)


def test_a_file_outside_the_topic_folders_is_named_and_left_out(tmp_path, capsys):
    folder = copy_results(tmp_path)
    (folder / "throughput" / "throughput.json").rename(folder / "throughput.json")
    args, _ = outputs(tmp_path, folder)
    assert sm.main(args) == 0
    assert "not in a topic folder" in capsys.readouterr().err
    summary = (tmp_path / "SUMMARY.md").read_text()
    assert "| throughput/throughput.json | no results file |" in summary


def test_changing_a_figure_in_a_results_file_changes_both_outputs(tmp_path):
    folder = copy_results(tmp_path)
    before = sm.summary_text(folder), sm.page_text(PAGE_BLOCK, folder)

    def slower(data):
        row = next(r for r in data["rows"] if r["threads"] == 1)
        row["engine_proposals_per_second"] = 45_670_000.0
        row["ratio"] = 0.45

    edit(folder / "throughput" / "throughput.json", slower)
    text, block = sm.summary_text(folder), sm.page_text(PAGE_BLOCK, folder)
    assert (text, block) != before
    assert "45.7 M/s" in text and "**0.45**" in text
    assert "0.45x the tuned native loop on one thread" in block


def test_changing_a_headline_figure_changes_readme_and_page(tmp_path):
    folder = copy_results(tmp_path)
    before = sm.readme_text(README_BLOCK, folder), sm.page_text(PAGE_BLOCK, folder)

    def faster(data):
        data["summary"]["tts99_median"] = 0.00123

    edit(folder / "tts" / "tts_top95_default.json", faster)
    after = sm.readme_text(README_BLOCK, folder), sm.page_text(PAGE_BLOCK, folder)
    for old, new in zip(before, after, strict=True):
        assert "median TTS99 1.23 ms of one core on top95" in " ".join(new.split()), new
        assert new != old


def test_missing_files_give_a_row_or_nothing(tmp_path):
    folder = copy_results(tmp_path)
    (folder / "throughput" / "throughput.json").unlink()
    (folder / "exact" / "exact_peers.json").unlink(missing_ok=True)
    text = sm.summary_text(folder)
    assert "| throughput/throughput.json | no results file |" in text
    assert "exact beside tdoku" not in text
    assert "native loop" not in sm.page_text(PAGE_BLOCK, folder)


def test_untracked_files_are_left_out_of_the_default_folder():
    if TRACKED is None:
        pytest.skip("not a git checkout")
    res = sm.Results(sm.RESULTS, TRACKED)
    for path in sm.RESULTS.rglob("*.json"):
        name = path.relative_to(sm.RESULTS).as_posix()
        if name not in TRACKED:
            with pytest.raises(sm.Missing):
                res.load(name)


def model_file(arch: str, label: str) -> dict:
    """A kernel_model file with one record of two cards."""
    card = {"cc": [int(arch[3]), int(arch[4])]}
    record = {
        "kernel": "sudoku",
        "size": 3,
        "registers": 72,
        "sass": {"instructions_per_proposal": 164, "instructions_per_proposal_is_upper_bound": 1},
        "model": {
            "Card A": {"proposals_per_second": 1.786e11, "bound": "issue"},
            "Card B": {"proposals_per_second": 7.4e10, "bound": "l1"},
        },
    }
    return {
        "arch": arch,
        "label": label,
        "git_commit": "0123456789abcdef",
        "cards": {"Card A": card, "Card B": {"cc": [1, 0]}},
        "records": [record],
    }


def test_model_rows_say_model_not_measured(tmp_path):
    folder = tmp_path
    (folder / "kernels").mkdir()
    for label in ("before", "after"):
        (folder / "kernels" / f"kernel_model_sm_80_{label}.json").write_text(
            json.dumps(model_file("sm_80", label))
        )
    rows = sm.kernel_model(sm.Results(folder))
    assert [r.source for r in rows] == [
        "kernels/kernel_model_sm_80_before.json",
        "kernels/kernel_model_sm_80_after.json",
    ]
    for r in rows:
        assert r.figure.startswith("model, not measured: ")
        # only the card of the file's architecture (cc 8.0), at 1.786e11 proposals/s
        assert "9x9: 179 G/s (issue bound), <= 164 instr./proposal, 72 regs" in r.figure
        assert "Card B" not in r.what + r.figure
    committed = sm.kernel_model(sm.Results(sm.RESULTS, TRACKED))
    assert committed and all(r.figure.startswith(sm.MODEL) for r in committed)


def test_exact_peers_rows_with_large_grids(tmp_path):
    limit = {"tdoku_puzzles_per_second": 200_000.0, "fast_puzzles_per_second": 150_000.0}
    data = {
        "sets": {
            "17_clue.txt": [{**limit, "limit": 2, "puzzles": 10, "ratio_fast_to_tdoku": 0.75}]
        },
        "large_25": {
            "45": {
                "instances": 4,
                "median_s": 0.5,
                "p90_s": 0.9,
                "max_s": 1.25,
                "counts": {"1": 3, "-1": 1},
            }
        },
    }
    (tmp_path / "exact").mkdir()
    (tmp_path / "exact" / "exact_peers.json").write_text(json.dumps(data))
    rows = sm.exact_peers(sm.Results(tmp_path))
    target = sm.script_constant("bench_exact_peers.py", "TARGET_RATIO")
    assert rows[0].figure == "150.0k/s / 200.0k/s = **0.75**"
    assert rows[0].target == f">= {target}"
    assert rows[1].what == "exact, 25x25 (Lloyd & Amos) at 45 % fill (4), count to 2"
    assert rows[1].figure == "median 0.5 s, p90 0.9 s, max 1.25 s; counts -1: 1, 1: 3"


def test_anneal_peers_rows_sum_levels(tmp_path):
    base = {"set": "25x25", "method": "propagate", "limit": 10.0}
    table = [
        {**base, "level": 50, "instances": 3, "solved": 3, "median": 0.2, "ratio_to_cpsat": 4.0},
        {**base, "level": 60, "instances": 3, "solved": 1, "median": None, "ratio_to_cpsat": None},
    ]
    (tmp_path / "anneal").mkdir()
    path = tmp_path / "anneal" / "anneal_peers.json"
    path.write_text(json.dumps({"table": table, "commands": ["c"]}))
    (row,) = sm.anneal_peers(sm.Results(tmp_path))
    assert row.what == "25x25 at 50, 60 % fill, propagate, 10 s limit"
    assert row.figure == "4/6 solved; median per level 0.2 s; ratio to CP-SAT 4"
