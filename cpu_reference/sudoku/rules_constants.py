"""Compile-time constants of the Sudoku rules o3_m0_l1_t1_p0_c0_x1 (order 3, move sirdey).

Written by cpu_reference.sudoku.rules.constants_text for every specialisation model()
builds; rules_constants.py, which the templates import when imported as themselves, is
this text for rules.DEFAULT (tests/test_rules_template.py checks it).
"""

import numpy as np
from numba import uint32, uint64

from cpu_reference.anneal.bits import host_has_deposit
from cpu_reference.sudoku.packing import (
    cell_count_units,
    linear_peer_tables,
    peer_tables,
    row_bit_cells,
    table_parts,
)

n = 3
move = 0
N = 9
CELLS = 81
R = 3
WR = 2
NM1 = uint32(8)
TMAX = 20
THR_CAP = 20
CAPPED = False
THR_OFF = 0
WIDE = True
WT = uint64
COLPAT = uint64(262657)
BANDPAT = uint64(262657)
ROWMASK = uint64(511)
BOXROW = uint64(7)
BOX_IN_WORD = True
BAND_WORDS = 1
VBITS = uint32(4)
VMASK = uint32(15)
CPW_SHIFT = uint32(3)
CPW_MASK = uint32(7)
ONE = uint32(1)
UN = uint32(9)
Un = uint32(3)
UR = uint32(3)
UWR = uint32(2)
LANES = 1
ULANES = uint32(1)
ULANES64 = uint64(1)
PACKED = False
TABLE = True
BRANCH_FREE = False
FLAT_LISTS = False
VOFF = 0
BOFF = 0
TOFF = 0
UNR = uint32(27)
FOCUS = False
TWO_CHOICE = False
FOFF = 18
MOFF = 20
NWFOCUS = 18
CANDS = False
UCELLS = uint32(81)
DIV_WORD = (19, 9)
DIV_ROW = (29, 8)
DIV_BOX = (11, 5)
VWROW = 11
NWROW = 18
PEER_TABLE, CELL_WORD, CELL_BIT = linear_peer_tables(3)
PEER_PARTS, PART_CELLS = table_parts(PEER_TABLE, 2)
LINEAR = True
DEPOSIT = True and host_has_deposit()
ROW_WR = 3
ROW_NW = 27
COUNTS = False
CELL_UNITS = cell_count_units(3)
NCOUNT = 729
ROW_BITS = 32
ROW_WT = uint32
_ROW_PEERS, ROW_CELL_WORD, ROW_CELL_BIT = peer_tables(3)
ROW_BIT_CELL = row_bit_cells(3)
LINEAR_BIT_CELL = np.arange(128, dtype=np.int32)
SWAP = False
RUNNING = 0
SOLVED = 1
EXHAUSTED = 2
STOPPED = 3
THR_ROWS = 21
COUNTER = False
C_COST = 0
C_BEST = 1
C_PLATEAU = 2
C_LAST_IMPROVE = 3
C_TRIALS = 4
C_PROPOSALS = 5
C_STATUS = 6
C_BEST_VALS_COST = 7
C_ACCEPTED = 8
C_BETA = 9
C_REHEATED = 10
