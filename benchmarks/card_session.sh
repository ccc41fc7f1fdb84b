#!/usr/bin/env bash
# The measurements of one lent-card session, as one device command a phase.
#
#   bash benchmarks/card_session.sh PHASE COMMIT
#
# PHASE all:   every open question in one device command of at most 9 minutes
#              (benchmarks/card_session.py: each pool on 6,000 and 60,000 isomorphs, the same
#              6,000 on the cores by annealing and exactly, the start-up timeline, per-chain rate
#              against occupancy, ncu where the image has it, each beside the models'
#              prediction); at most 5 files in $OUT. COMMIT may be left out (then "unknown").
#              `all --dry` runs the same code here: the CPU and the CUDA simulator, tiny sizes,
#              the environment as it is (no wheels installed; $PYTHON, else python3).
#              CARD_BUDGET (default 510) is the session's seconds; a shorter one scales each
#              step's phase down in proportion.
# PHASE lent:  a 15-minute lease's one command: warp (IMPASSE_SECONDS 40), then frontier36 and
#              frontier49 with the impasse chains a warp a chain on the card against the
#              engine's default on the cores (the impasse chains there; FRONTIER_SOLVERS
#              gpu-anneal-impasse-warp, FRONTIER_CPU_SOLVERS gpu-anneal-auto, FRONTIER_LIMIT 20,
#              FRONTIER_SECONDS 75), then all (CARD_BUDGET 120), each under what is left of
#              LENT_SECONDS (default 565); every phase's files in $OUT/card_lent.tgz. Commit
#              frontierCELL_cuda.json and frontierCELL_cpu.json as
#              frontier/frontier_card_CARD_CELL_warp_{cuda,cpu}.json (card_lent_report pairs
#              them), the rates as throughput/impasse_rate_CARD_*.
# PHASE prepare (here, not on the card): .gpudata/ with the base sets from ../shared and .whl/
#              with the numpy numba-cuda needs (.gitignore names both); then, on the card,
#              `bash benchmarks/card_session.sh all HASH` with carry [".gpudata", ".whl"].
# PHASE sets:  card_vs_cores on the 9x9 workloads (start, iso6000 and its card-only variants:
#              64 chains, fixed chains, Sirdey's move; forum375, single, iso60000, throughput),
#              CVC_BUDGET seconds (default 300).
# PHASE large: card_vs_cores on the 25x25 and 36x36 grids merged into .gpudata/card_vs_cores.json
#              when that file is there (the sets phase's results, copied back), then bench_gpu's
#              throughput of the order 5 and 6 kernels beside the cores and the equality of the
#              order 4 and 5 kernels with the CPU runner, each under a time limit.
# PHASE check: Ctrl-C on 60,000 isomorphs on the card (benchmarks/card_interrupt.py), then the
#              equality of the kernels with the CPU runner, one order at a time (orders 3-6).
# PHASE frontier36, frontier49: the frontier's card targets (issue: the card faster in wall time
#              than the same machine's cores, solving no fewer): bench_frontier's own instances
#              (seed 1, made again there) by gpu-anneal alone, on the card (--backend cuda), then
#              on the machine's cores (--backend cpu), under the same limit: frontier36 36x36 at
#              50 % (5 instances, FRONTIER_LIMIT seconds each, default 50), frontier49 49x49 at
#              45 % (3, default 80). Each backend's run is stopped after FRONTIER_SECONDS
#              (default 270; its finished instances are kept). FRONTIER_SOLVERS (default
#              gpu-anneal) names bench_frontier's engine solvers: gpu-anneal,gpu-anneal-impasse
#              adds --method impasse on the same instances; FRONTIER_CPU_SOLVERS (default
#              FRONTIER_SOLVERS) those of the cores' run. Results:
#              $out/{frontier36,frontier49}_{cuda,cpu}.{json,md} and $out/PHASE.log.
# PHASE impasse: --method impasse's moves a second against chains (benchmarks.bench_impasse_rate),
#              on the card (IMPASSE_CHAINS, default 1024,4096,16384,65536; IMPASSE_SLICES,
#              default 5, launches of 20,000 moves a chain) then on the machine's cores (one
#              chain a core), each under IMPASSE_SECONDS (default 200). Results:
#              $out/impasse_rate_{cuda,cpu}.{json,md}.
# PHASE warp:  the impasse chains a warp a chain (--lanes 32, gpu_anneal.kernels.impasse_warp):
#              moves a second against chains (WARP_CHAINS, default 1,32,132,528,924,1452,2112;
#              3 launches of 20,000 moves a chain), each chain's state in shared memory, then in
#              global memory (WARP_GLOBAL_CHAINS, default 1,132,1056, under half of
#              IMPASSE_SECONDS), then the impasse phase (a
#              thread a chain at IMPASSE_CHAINS, default 1,1056,4096, IMPASSE_SLICES 3, then the
#              machine's cores), each under IMPASSE_SECONDS (default 60). Results:
#              $out/impasse_rate_{warp,warp_global,cuda,cpu}.*, $out/warp.log and
#              $out/impasse.log.
#
# Needs, in the checkout (carried as ignored paths): .whl/ with numpy < 2.5 (numba-cuda needs it;
# the image's numpy is newer) and .gpudata/ with forum_hardest_1106.txt and general_25x25.tsv
# (benchmarks/bench_gpu.py's docstring says how). Results and logs go to $OUT.
set -u -o pipefail
phase=${1:-}
commit=${2:-unknown}
out=${OUT:-/tmp/card_session}
case $phase in
  prepare)
    mkdir -p .gpudata
    for f in forum_hardest_1106.txt general_25x25.tsv; do
      cp "../shared/data/sudoku/$f" .gpudata/ || exit 1
    done
    ls .whl/numpy-2.4.*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps \
      --only-binary=:all: --python-version 3.12 --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d .whl numpy==2.4.6 \
      || exit 1
    du -sh .gpudata .whl
    exit 0
    ;;
  all)
    mkdir -p "$out"
    if [ "$commit" = --dry ]; then
      exec "${PYTHON:-python3}" -m benchmarks.card_session --dry --out-dir "$out"
    fi
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
      || exit 1
    export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
    # the session's own budget (510 s, a stopped step's 20 s of grace after it) ends it; this
    # limit only guards against a hang (SIGTERM: the files are still written)
    budget=${CARD_BUDGET:-510}
    exec timeout $((budget + 35)) python3 -m benchmarks.card_session --data .gpudata \
      --out-dir "$out" --commit "$commit" --budget "$budget"
    ;;
  lent)
    # one lease's single command: warp, frontier36, frontier49, all in turn, each under what is
    # left of LENT_SECONDS; every file in one archive, $OUT/card_lent.tgz (a call returns 8
    # files)
    work=${TMPDIR:-/tmp}/card_lent
    rm -rf "$work" && mkdir -p "$work" "$out" || exit 1
    end=$(($(date +%s) + ${LENT_SECONDS:-565}))
    within() {
      local left=$((end - $(date +%s)))
      if [ "$left" -lt 10 ]; then echo "card_session.sh: no time left for $1" >&2; return 0; fi
      OUT=$work/$1 timeout "$left" bash "$0" "$1" "$commit"
    }
    IMPASSE_SECONDS=${IMPASSE_SECONDS:-40} within warp
    for cell in frontier36 frontier49; do
      FRONTIER_SOLVERS=${FRONTIER_SOLVERS:-gpu-anneal-impasse-warp} \
        FRONTIER_CPU_SOLVERS=${FRONTIER_CPU_SOLVERS:-gpu-anneal-auto} \
        FRONTIER_LIMIT=${FRONTIER_LIMIT:-20} FRONTIER_SECONDS=${FRONTIER_SECONDS:-75} \
        within "$cell"
    done
    CARD_BUDGET=${CARD_BUDGET:-120} within all
    tar czf "$out/card_lent.tgz" -C "$work" . && ls -l "$out"
    exit 0
    ;;
  sets|large|check|frontier36|frontier49|impasse|warp) ;;
  *)
    echo "card_session.sh: phase must be all, lent, prepare, sets, large, check, frontier36," \
      "frontier49, impasse or warp, not '$phase'" >&2
    exit 2
    ;;
esac
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
  warp)
    IMPASSE_SECONDS=${IMPASSE_SECONDS:-60}
    timeout "$IMPASSE_SECONDS" python3 -m benchmarks.bench_impasse_rate --backend cuda --lanes 32 \
      --chains "${WARP_CHAINS:-1,32,132,528,924,1452,2112}" --slices 3 --moves 20000 \
      --out "$out/impasse_rate_warp" 2>&1 | tee "$out/warp.log" | tail -n 12
    # half the time: three counts, and the lent phase's sum stays within LENT_SECONDS
    timeout $((IMPASSE_SECONDS / 2)) python3 -m benchmarks.bench_impasse_rate --backend cuda \
      --lanes 32 --warp-state global --chains "${WARP_GLOBAL_CHAINS:-1,132,1056}" --slices 3 \
      --moves 20000 --out "$out/impasse_rate_warp_global" 2>&1 | tee -a "$out/warp.log" \
      | tail -n 6
    IMPASSE_CHAINS=${IMPASSE_CHAINS:-1,1056,4096} IMPASSE_SLICES=${IMPASSE_SLICES:-3}
    ;&  # then the impasse phase: a thread a chain, then the cores
  impasse)
    timeout "${IMPASSE_SECONDS:-200}" python3 -m benchmarks.bench_impasse_rate --backend cuda \
      --chains "${IMPASSE_CHAINS:-1024,4096,16384,65536}" --slices "${IMPASSE_SLICES:-5}" \
      --moves 20000 --out "$out/impasse_rate_cuda" 2>&1 | tee "$out/impasse.log" | tail -n 12
    timeout "${IMPASSE_SECONDS:-200}" python3 -m benchmarks.bench_impasse_rate --backend cpu \
      --chains "$(nproc)" --out "$out/impasse_rate_cpu" 2>&1 | tee -a "$out/impasse.log" \
      | tail -n 12
    ;;
  frontier36|frontier49)
    if [ "$phase" = frontier36 ]; then
      cell=(--orders 36x36 --fills 50 --count 5 --limit "${FRONTIER_LIMIT:-50}")
    else
      cell=(--orders 49x49 --fills 45 --count 3 --limit "${FRONTIER_LIMIT:-80}")
    fi
    for backend in cuda cpu; do
      solvers=${FRONTIER_SOLVERS:-gpu-anneal}
      [ "$backend" = cpu ] && solvers=${FRONTIER_CPU_SOLVERS:-$solvers}
      timeout "${FRONTIER_SECONDS:-270}" python3 -m benchmarks.bench_frontier "${cell[@]}" \
        --solvers "$solvers" --backend "$backend" --grace 30 \
        --instances "${TMPDIR:-/tmp}/frontier_instances" --out "$out/${phase}_$backend" 2>&1 \
        | tee -a "$out/$phase.log" | grep -E '^\{"instance"'
    done
    ;;
esac
