#!/usr/bin/env bash
# The measurements of one lent-card session, as one device command a phase.
#
#   bash benchmarks/card_session.sh PHASE COMMIT
#
# PHASE sets:  card_vs_cores on the 9x9 workloads (start, iso6000 and its card-only variants:
#              64 chains, fixed chains, Sirdey's move; forum375, single, iso60000, throughput),
#              CVC_BUDGET seconds (default 300).
# PHASE large: card_vs_cores on the 25x25 and 36x36 grids merged into .gpudata/card_vs_cores.json
#              when that file is there (the sets phase's results, copied back), then bench_gpu's
#              throughput of the order 5 and 6 kernels beside the cores and the equality of the
#              order 4 and 5 kernels with the CPU runner, each under a time limit.
# PHASE check: Ctrl-C on 60,000 isomorphs on the card (benchmarks/card_interrupt.py), then the
#              equality of the kernels with the CPU runner, one order at a time (orders 3-6).
#
# Needs, in the checkout (carried as ignored paths): .whl/ with numpy < 2.5 (numba-cuda needs it;
# the image's numpy is newer) and .gpudata/ with forum_hardest_1106.txt and general_25x25.tsv
# (benchmarks/bench_gpu.py's docstring says how). Results and logs go to $OUT.
set -u -o pipefail
phase=$1
commit=$2
out=${OUT:-/tmp/card_session}
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,utilization.gpu,memory.used --format=csv \
  | tee "$out/smi_$phase.txt"
python3 -c "import numpy, numba, numba_cuda; print('numpy', numpy.__version__, 'numba',
numba.__version__, 'numba-cuda', numba_cuda.__version__)" | tee -a "$out/smi_$phase.txt"
bench="python3 -m benchmarks.bench_gpu --data .gpudata --commit $commit --out-dir $out"
case $phase in
  sets)
    $bench --part card_vs_cores --fresh --budget "${CVC_BUDGET:-300}" \
      --workloads start,iso6000,iso6000c64,iso6000fixed,iso6000focused,iso6000candidate,forum375,single,iso60000,throughput \
      2>&1 | tee "$out/sets.log"
    ;;
  large)
    [ -f .gpudata/card_vs_cores.json ] && cp .gpudata/card_vs_cores.json "$out/"
    $bench --part card_vs_cores --budget "${CVC_BUDGET:-240}" --workloads grids25,grids36 \
      2>&1 | tee "$out/large.log"
    timeout "${THROUGHPUT_SECONDS:-60}" $bench --part throughput --orders 5,6 \
      --moves sirdey,focused --seconds 1 --tag _large 2>&1 | tail -n 20
    timeout "${EQUALITY_SECONDS:-90}" $bench --part equality --orders 4,5 --moves focused \
      --tag _coop 2>&1 | tail -n 20
    ;;
  check)
    timeout "${INTERRUPT_SECONDS:-150}" python3 -m benchmarks.card_interrupt \
      --file .gpudata/forum_hardest_1106.txt --backend cuda --puzzles 60000 --after 22,12 \
      --out-dir "$out" 2>&1 | tee "$out/check.log"
    for order in 4 3 5 6; do
      timeout "${EQUALITY_SECONDS:-50}" $bench --part equality --orders $order \
        --moves focused,sirdey,focused-two --tag "_o$order" 2>&1 | grep -E "^equality|wrote" \
        | tee -a "$out/check.log"
    done
    ;;
  *)
    echo "card_session.sh: phase must be sets, large or check, not '$phase'" >&2
    exit 2
    ;;
esac
