"""benchmarks.bench_million_cells: the puzzles it times are the grids it names, a commit's code
is unpacked whole to run from, and one command's result is read back from its JSON line."""

from __future__ import annotations

import pytest

from benchmarks import bench_million_cells as mc
from cpu_reference.hashi import puzzle as hashi
from cpu_reference.shikaku import puzzle as shikaku


def test_the_puzzles_are_ones_dominoes_and_a_lattice():
    """side 6: a 6x6 Shikaku of 36 ones, a 6x6 of 18 twos at even columns, a 5x5 Hashi of 9
    islands of 2 at even rows and columns."""
    made = mc.puzzles(6)
    ones = shikaku.parse_grid(made["shikaku ones"][1])
    assert (ones.width, ones.height, ones.n_clues) == (6, 6, 36) and set(ones.clues[:, 2]) == {1}
    dominoes = shikaku.parse_grid(made["shikaku dominoes"][1])
    assert (dominoes.width, dominoes.height, dominoes.n_clues) == (6, 6, 18)
    assert set(dominoes.clues[:, 1]) == {0, 2, 4} and set(dominoes.clues[:, 2]) == {2}
    lattice = hashi.parse_grid(made["hashi lattice"][1])
    assert (lattice.width, lattice.height, len(lattice.islands)) == (5, 5, 9)
    assert {tuple(i) for i in lattice.islands.tolist()} == {
        (r, c, 2) for r in (0, 2, 4) for c in (0, 2, 4)
    }
    assert [kind for kind, _ in made.values()] == ["shikaku", "shikaku", "hashi"]


def test_a_commit_is_unpacked_whole_and_a_bad_one_refused(tmp_path):
    """HEAD's files land in a folder named by its short hash; a name that is no commit stops the
    run with one line."""
    folder, short = mc.tree_of("HEAD", tmp_path)
    assert folder == tmp_path / short and (folder / "gpu_anneal" / "__main__.py").is_file()
    with pytest.raises(SystemExit, match="not a commit"):
        mc.tree_of("no-such-commit-here", tmp_path)


def test_one_command_reads_its_result(tmp_path):
    """The working tree solves a 4x4 Shikaku of ones: status solved, timing read back."""
    path = tmp_path / "ones.txt"
    path.write_text(mc.puzzles(4)["shikaku ones"][1])
    run = mc.one_command(mc.ROOT, path, "shikaku", 5.0, None)
    assert run["status"] == "solved" and run["wall"] > 0 and run["timing"]["search"] >= 0
