"""The grid puzzles' CUDA trial kernels, one declaration a kind (see gpu_anneal.kernels.launch).

Each kernel runs its kind's jitted trial, the function the CPU runner calls, on one chain a
thread; the declaration names the trial's arguments that are not arrays.
"""

from __future__ import annotations

from cpu_reference.hashi.rules import hashi_trial
from cpu_reference.shikaku.rules import shikaku_trial
from gpu_anneal.kernels.launch import SCHEDULE, TrialKernel

KERNELS = {
    "shikaku": TrialKernel(shikaku_trial, ("width", *SCHEDULE)),
    "hashi": TrialKernel(hashi_trial, ("maxb", "tree", "wc", "square", "we", "wg", *SCHEDULE)),
}
