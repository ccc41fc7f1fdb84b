"""Sudoku of orders 7 and 8 (49x49, 64x64): Lloyd & Amos instance files read and written, their
faults one line each, 64 candidates a cell in the exact solvers' masks, a 64x64 file solved on
the CPU and its answer checked by the independent verifier, the CUDA kernel chosen for them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from peer_masks import marked_cells
from typer.testing import CliRunner

from benchmarks.frontier_instances import cut, lloyd_amos_text, pattern_grid, read_lloyd_amos
from cli.main import app
from cli.tally import is_summary
from cpu_reference.errors import InputError
from cpu_reference.sudoku import rules
from cpu_reference.sudoku.batch import logic_fill_many
from cpu_reference.sudoku.exact import solve_exact
from cpu_reference.sudoku.format_writer import format_grid
from cpu_reference.sudoku.formats import FORMAT_ORDERS, iter_puzzles, read_puzzles
from cpu_reference.sudoku.layout import layout
from cpu_reference.sudoku.packing import FROZEN_ARRAY_BYTES, linear_peer_tables, packing
from cpu_reference.sudoku.verify import verify_solution

runner = CliRunner()


def instance(order: int, fill: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(givens uint8[cells], the full grid they were cut from) of a random pattern grid."""
    grid = pattern_grid(order, np.random.default_rng([seed, order])).ravel().astype(np.uint8)
    return cut(grid, order, fill, np.random.default_rng([seed, fill])).astype(np.uint8), grid


def faults(text: str) -> list[str]:
    """The one-line faults the reader yields for an input text named f.txt."""
    return [str(x) for x in iter_puzzles(_stream(text), name="f.txt") if isinstance(x, Exception)]


def _stream(text: str):
    import io

    return io.BytesIO(text.encode())


def solve(*args):
    """`gpu-anneal solve ARGS` in-process; the click Result."""
    return runner.invoke(app, ["solve", *[str(a) for a in args]])


@pytest.mark.parametrize("order", range(2, 9))
def test_lloyd_amos_files_read_and_write_back_at_every_order(order):
    """A published-style file (CRLF lines, a tab after each number, -1 blank) reads as the
    givens it holds, its format detected from the order and `1` lines; the writer gives the
    same text back (LF lines), and the benchmarks' own reader agrees."""
    givens, _ = instance(order, 45)
    text = lloyd_amos_text(order, givens)
    (puzzle,) = read_puzzles(text.replace("\n", "\r\n"))
    assert (puzzle.order, puzzle.fmt, puzzle.line) == (order, "lloyd-amos", 1)
    assert np.array_equal(puzzle.cells, givens)
    assert format_grid(puzzle.cells, order, "lloyd-amos") + "\n" == text
    assert order in FORMAT_ORDERS["lloyd-amos"]


def test_lloyd_amos_blocks_one_after_another_and_after_a_faulty_one():
    """Blocks separated by blank lines are a puzzle each, numbered by their order line; a block
    with a bad value is one fault and the block after it still reads."""
    first, _ = instance(7, 50, seed=1)
    bad = first.copy()
    bad[49 * 2 + 4] = 50
    second, _ = instance(3, 50, seed=2)
    text = "\n".join(lloyd_amos_text(o, g) for o, g in ((7, first), (7, bad), (3, second)))
    got = list(iter_puzzles(_stream(text), name="f.txt"))
    assert [x.line for x in got if not isinstance(x, Exception)] == [1, 105]
    assert [str(x) for x in got if isinstance(x, Exception)] == [
        "f.txt line 57, cell r3c5: number '50' is not a digit 1..49 or -1 (blank) of a 49x49 grid"
    ]


def test_comments_between_a_blocks_order_and_its_1_are_passed_over():
    """A `#` comment between the order line and the `1` was 'line 2: '# c' where a Lloyd & Amos
    file has `1`' and a second, wrong fault; the block reads as without it, numbered by its
    order line, and a line that is neither is still named."""
    givens, _ = instance(3, 50, seed=3)
    order_line, one, *rows = lloyd_amos_text(3, givens).splitlines()
    text = "\n".join(["# a file", order_line, "# c", "  # d", one, *rows]) + "\n"
    (puzzle,) = read_puzzles(text)
    assert (puzzle.fmt, puzzle.line) == ("lloyd-amos", 2)
    assert np.array_equal(puzzle.cells, givens)
    broken = "\n".join([order_line, "# c", "x", *rows]) + "\n"
    got = [str(x) for x in iter_puzzles(_stream(broken), "lloyd-amos", name="f.txt")]
    assert got[0] == "f.txt line 3: 'x' where a Lloyd & Amos file has `1`"


def test_lloyd_amos_faults_are_one_line_naming_what_and_where():
    """63 rows in a 64x64 file, a 0 (no blank in this format), an order outside 2..8, a line
    that is not `1`, a short row: each is one line naming the file and line."""
    grid64, _ = instance(8, 100)
    lines = lloyd_amos_text(8, grid64).splitlines()
    assert faults("\n".join(lines[:-1]) + "\n") == [
        "f.txt line 1: puzzle ends after 63 rows, expected 64"
    ]
    givens49, _ = instance(7, 50)
    zero = lloyd_amos_text(7, givens49).replace("-1\t", "0\t", 1)
    assert (
        len(faults(zero)) == 1
        and "number '0' is not a digit 1..49 or -1 (blank)" in (faults(zero)[0])
    )
    for written in ("000", "+00"):  # 0 in any writing is no digit here, never a blank
        row = "\t".join([written, "-1", "-1", "-1"]) + "\n"
        assert faults("2\n1\n" + row + ("-1\t" * 4 + "\n") * 3) == [
            f"f.txt line 3, cell r1c1: number '{written}' is not a digit 1..4 or -1 (blank) of a "
            "4x4 grid"
        ]
    assert faults("9\n1\n1\t2\n") == ["f.txt line 1: order field '9' is not an order 2..8"]
    # a row too many read as the next block's order line ("order field '-1\t-1...'"), a row of
    # spaces as "1 numbers on a row"
    row = "\t".join(["-1"] * 4) + "\n"
    assert faults("2\n1\n" + row * 5) == [
        "f.txt line 7: 4 numbers where a Lloyd & Amos puzzle starts with its order alone (a row "
        "more than the puzzle before holds?)"
    ]
    assert faults("2\n1\n" + row + "-1 -1 -1 -1\n" + row * 2) == [
        "f.txt line 4: 4 numbers separated by spaces; a Lloyd & Amos row separates them by tabs"
    ]
    # an order field that is a number but no whole one was read as a one-line puzzle, and the
    # fault named line 2's cell count
    for field in ("nan", "-2", "2.0", "1e3", "inf"):
        assert faults(f"{field}\n1\n" + ("-1\t" * 4 + "\n") * 4) == [
            f"f.txt line 1: order field '{field}' is not an order 2..8"
        ]
    assert faults("2\n1\n1\t2\t3\n") == [
        "f.txt line 3: 3 numbers on a row, expected 4"
    ]  # fmt: skip
    assert faults("2\n1\n" + "-1\t" * 4 + "\n") == [
        "f.txt line 1: puzzle ends after 1 rows, expected 4"
    ]  # fmt: skip


def test_a_lloyd_amos_file_without_its_head_names_the_head_at_its_first_blank():
    """A 49x49 Lloyd & Amos file whose second line is not `1` is not detected as one; its rows'
    first -1 is a fault that says -1 is a blank only under that head. A -1 in a csv row stays a
    blank, and a number other than -1 gets no such hint."""
    givens49, _ = instance(7, 50)
    lines = lloyd_amos_text(7, givens49).splitlines()
    at = next(k for k, v in enumerate(lines[2].split("\t")) if v == "-1")
    got = faults("\n".join([lines[0], "2", *lines[2:]]) + "\n")
    assert got[-1] == (
        f"f.txt line 3, cell r1c{at + 1}: number '-1' is not a digit 0..49 of a 49x49 grid; -1 is "
        "a blank in a Lloyd & Amos file, which starts with the order alone on a line and `1` on "
        "the next"
    )
    (puzzle,) = read_puzzles("-1,2,3,4\n3,4,1,2\n2,1,4,3\n4,3,2,1\n")
    assert puzzle.cells[0] == 0
    assert faults("-2 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 1\n") == [
        "f.txt line 1, cell r1c1: number '-2' is not a digit 0..4 of a 4x4 grid"
    ]


@pytest.mark.parametrize(
    "text, fragment",
    [
        (lambda: lloyd_amos_text(8, instance(8, 100)[0]).rsplit("\n", 2)[0] + "\n",
         "line 1: puzzle ends after 63 rows, expected 64"),
        (lambda: "x\t7\t" + ",".join(["50"] + ["0"] * 2400) + "\n",
         "line 1, cell r1c1: number '50' is not a digit 0..49 of a 49x49 grid"),
    ],
)  # fmt: skip
def test_bad_large_grids_exit_2_with_one_line(tmp_path, text, fragment):
    """`gpu-anneal solve` of a 64x64 file with 63 rows, or a 49x49 tsv line holding 50: exit
    code 2 and one error line naming the file, line and fault, no traceback."""
    path = tmp_path / "bad.txt"
    path.write_text(text())
    result = solve(path, "--method", "exact", "--output", "jsonl")
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip() and not is_summary(line)]
    assert lines == [f"gpu-anneal: {path} {fragment}"]


def test_digit_64_lives_in_the_sign_bit_of_the_exact_masks():
    """At 64x64 digit 64 is bit 63 of an int64 mask: a grid missing one cell of each digit,
    64 among them, is completed by deduction (logic_fill_many) and by the exact solver; a
    puzzle with another completion than the grid it was cut from counts two, the solution it
    gives differing from that grid and passing the verifier (so two exist)."""
    _, grid = instance(8, 100)
    blank = np.array([int(np.flatnonzero(grid == d)[0]) for d in range(1, 65)])
    puzzle = grid.copy()
    puzzle[blank] = 0
    filled, masks, ok = logic_fill_many(puzzle[None], 8)
    assert ok[0] and np.array_equal(filled[0], grid)
    assert masks[0, blank[63]] == np.int64(-(2**63))  # bit 63 alone
    count, solution = solve_exact(puzzle, 8, 2)[:2]
    assert count == 1 and np.array_equal(np.asarray(solution).ravel(), grid)
    grid = pattern_grid(8, np.random.default_rng(8)).ravel().astype(np.uint8)
    two = cut(grid, 8, 70, np.random.default_rng(1)).astype(np.uint8)
    count, solution = solve_exact(two, 8, 2)[:2]
    other = np.asarray(solution).ravel()
    assert count == 2 and not np.array_equal(other, grid)
    assert verify_solution(other, 8, two) is None and verify_solution(grid, 8, two) is None


def solved_and_verified(path, order: int, givens: np.ndarray, fmt: str, *args) -> dict:
    """`gpu-anneal solve PATH ARGS --output jsonl`: its one record, solved, its answer (in the
    input's format) keeping the givens and accepted by the independent verifier."""
    result = solve(path, "--output", "jsonl", *args)
    assert result.exit_code == 0, result.output[-2000:]
    (record,) = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    side = order * order
    assert record["solved"] and record["order"] == order and record["size"] == f"{side}x{side}"
    (answer,) = read_puzzles(record["solution"])
    assert answer.fmt == fmt
    assert verify_solution(answer.cells, order, givens) is None
    return record


def published_file(tmp_path, order: int, fill: int, seed: int):
    """(path, givens) of a published-style Lloyd & Amos file (CRLF lines) of a random grid."""
    givens, _ = instance(order, fill, seed)
    side = order * order
    path = tmp_path / f"inst{side}x{side}_{fill}_{seed}.txt"
    path.write_bytes(lloyd_amos_text(order, givens).replace("\n", "\r\n").encode())
    read_order, cells = read_lloyd_amos(path)  # the benchmarks' reader agrees
    assert read_order == order and np.array_equal(cells, givens)
    return path, givens


def test_a_64x64_lloyd_amos_file_is_solved_exactly_and_verified(tmp_path):
    """A 64x64 grid in a Lloyd & Amos file, a tenth of its cells blank: the exact method solves
    it; the answer, in the file's format, keeps the givens and passes the verifier."""
    path, givens = published_file(tmp_path, 8, 90, seed=3)
    record = solved_and_verified(path, 8, givens, "lloyd-amos", "--method", "exact")
    assert record["unique"] is True


def test_a_49x49_grid_is_annealed_on_the_cpu_and_verified(tmp_path):
    """A 49x49 tsv puzzle, a tenth of its cells blank: the CPU runner (deduction, then
    annealing) solves it and the verifier accepts the answer."""
    givens, _ = instance(7, 90, seed=4)
    path = tmp_path / "p49.tsv"
    path.write_text("p49\t7\t" + ",".join(map(str, givens.tolist())) + "\n")
    args = ("--backend", "cpu", "--time-limit", "300", "--method", "anneal")
    record = solved_and_verified(path, 7, givens, "tsv", *args)
    assert record["method"] == "anneal" and record["verified"]


@pytest.mark.slow
def test_a_64x64_lloyd_amos_file_is_annealed_on_the_cpu_and_verified(tmp_path):
    """The 64x64 file as above, annealed on the CPU (deduction first): solved, verified. Slow
    where the 64x64 rules compile afresh (a cold cache, as in CI); the 49x49 and exact 64x64
    cases above and the mask tests below check the same path in CI."""
    path, givens = published_file(tmp_path, 8, 90, seed=3)
    args = ("--backend", "cpu", "--time-limit", "300", "--method", "anneal")
    record = solved_and_verified(path, 8, givens, "lloyd-amos", *args)
    assert record["method"] == "anneal" and record["verified"]


@pytest.mark.parametrize("order", [7, 8])
def test_computed_masks_mark_exactly_each_cells_peers_at_49x49_and_64x64(order):
    """The peer masks the kernels compute from a cell's row and column mark its peers and
    nothing else: the first and last row and column, both diagonals and 100 cells drawn at
    random."""
    pk = packing(order)
    peer_words = rules.model(order, rules.MOVE_FOCUSED, table=False).peer_words
    N = pk.N
    edges = [c for i in range(N) for c in (i, (N - 1) * N + i, i * N, i * N + N - 1)]
    diagonals = [i * N + i for i in range(N)] + [i * N + N - 1 - i for i in range(N)]
    drawn = np.random.default_rng(order).integers(0, pk.cells, 100).tolist()
    words = np.zeros(pk.WR, dtype=pk.word_dtype)
    peer_list = layout(order).peer_list
    for c in sorted(set(edges + diagonals + drawn)):
        peer_words(c, words)
        assert marked_cells(words, order) == set(peer_list[c].tolist()), c


def test_the_64x64_peer_table_is_read_in_parts_numba_caches():
    """numba keeps a global array of up to FROZEN_ARRAY_BYTES in its cached code: 49x49's
    cell-linear peer table fits whole; 64x64's (2 MB) is cut into parts of whole cells that
    do, which together are the table, and the CPU runner reads its masks from them: every
    drawn cell's words equal the table's."""
    table, _, _ = linear_peer_tables(7)
    assert table.nbytes <= FROZEN_ARRAY_BYTES
    assert rules.cpu_model(7, rules.MOVE_FOCUSED).constants.PEER_PARTS[0] is table
    table, _, _ = linear_peer_tables(8)
    assert table.nbytes > FROZEN_ARRAY_BYTES
    m = rules.cpu_model(8, rules.MOVE_FOCUSED)
    parts, wr = m.constants.PEER_PARTS, m.constants.WR
    assert len(parts) > 1 and all(part.nbytes <= FROZEN_ARRAY_BYTES for part in parts)
    assert all(part.size % wr == 0 for part in parts) and m.constants.LINEAR
    np.testing.assert_array_equal(np.concatenate(parts), table)
    words = np.zeros(wr, np.uint64)
    step = m.constants.PART_CELLS
    for c in (0, step - 1, step, 2 * step + 7, 4095):
        m.peer_words(c, words)
        np.testing.assert_array_equal(words, table[c * wr : (c + 1) * wr])


def test_orders_7_and_8_run_one_chain_a_thread_on_cuda_with_the_reason():
    """49x49 and 64x64 draw from Philox (as 16x16 to 36x36 do); their cooperative block does not
    fit the 48 KB a block may declare, so auto picks the one-thread kernel and says why in one
    line; asking for the cooperative kernel is a one-line InputError."""
    pytest.importorskip("numba.cuda")
    from gpu_anneal.kernels import sudoku as thread
    from gpu_anneal.kernels import sudoku_coop as coop

    big = 228 * 1024
    for order, side, need in ((7, 49, 62_016), (8, 64, 104_920)):
        assert rules.counter_based(order, rules.MOVE_FOCUSED)
        assert order in thread.CUDA_ORDERS
        thread.check_order(order)
        kernel, why = coop.choose(order, rules.MOVE_FOCUSED, "auto", 227 * 1024, big)
        assert kernel == "thread"
        assert why == (
            f"{side}x{side}: a cooperative chain needs {need:,} B of shared memory a block, "
            "this device allows 49,152: one chain a thread instead (the same chains)"
        )
        assert order not in coop.block_orders(rules.MOVE_FOCUSED)
        with pytest.raises(InputError, match=f"^kernel coop: {side}x{side}: a cooperative"):
            coop.choose(order, rules.MOVE_FOCUSED, "coop", 227 * 1024, big)
    assert coop.block_orders(rules.MOVE_FOCUSED) == (4, 5, 6)
    for move in (rules.MOVE_SIRDEY, rules.MOVE_FOCUSED):  # no spills at 64x64 (ptx tests)
        assert 8 in thread.orders_for(move)
    for move in (rules.MOVE_CANDIDATE, rules.MOVE_FOCUSED_TWO):
        assert thread.orders_for(move) == (2, 3, 4, 5, 6, 7)
    assert thread.orders_for(rules.MOVE_BOX_SWAP) == (2, 3, 4, 5, 6)
    for order, moves in thread.SPILLING.items():
        for move in moves:
            name = rules.move_name(move)
            with pytest.raises(InputError, match=f"^order {order}, move {name}: the CUDA"):
                thread.check_order(order, move)
    with pytest.raises(InputError, match="built for orders 2, 3, 4, 5, 6, 7, 8"):
        thread.check_order(9)
