#!/usr/bin/env bash
# Open MPI baseline for `make bench`: builds tests/bench/baselines/mpi_allreduce.cpp and runs it on
# MPI_BENCH_NP ranks (default 2) over shared memory. stdout gets only its JSON lines, one per
# message size (T: the median of the per-call times of 15 short batches, see the .cpp):
#   {"size_bytes": N, "ranks": n, "seconds": T, "min_seconds": ., "max_seconds": .,
#    "algbw_gbps": ..., "busbw_gbps": ..., "samples_ps": [...]}
# Everything else (build output, Open MPI messages, warnings) goes to stderr. Exits
# non-zero with a message on stderr if the build, the run or the output check fails.
#
# mpirun flags, and why:
#   --allow-run-as-root       mpirun refuses to start as root without it (we run as root in
#                             the container); OMPI_ALLOW_RUN_AS_ROOT{,_CONFIRM}=1 are set too.
#   --mca plm isolated        single-node launcher that never looks for ssh/rsh; without it
#                             mpirun aborts when no ssh client is installed ("plm_rsh_agent
#                             ... could not be found"), even for a purely local run.
#   --oversubscribe           no "not enough slots" failure when the machine/container shows
#                             fewer cores than ranks; with ranks <= cores it changes nothing
#                             (each rank is still bound to its own core).
#   --mca pml ob1             the point-to-point layer that drives the BTLs below (not UCX).
#   --mca btl self,vader      self + shared memory only, no TCP sockets on eth0. The
#                             shared-memory BTL is "vader" in Open MPI 4.x ("sm" there is a
#                             removed component that aborts the run) and "sm" in 5.x; the
#                             script asks ompi_info which one exists.
#   --mca btl_base_warn_component_unused 0
#                             silences "no relevant network interfaces" notices from unused
#                             BTLs (Debian's openmpi-mca-params.conf already sets this).
# Binding is left at Open MPI's default (bind-to core for 2 ranks): bind-to none measured
# much worse and much noisier here. (The runtime's host threads are not pinned: that only
# favours MPI.)
#
# Environment: MPI_BENCH_MPIRUN_ARGS adds mpirun arguments, e.g. in a Docker container whose
# seccomp profile blocks process_vm_readv (vader's default CMA single copy), use
#   MPI_BENCH_MPIRUN_ARGS="--mca btl_vader_single_copy_mechanism none"
# MPI_BENCH_NP sets the rank count (default 2); MPI_BENCH_TIMEOUT overrides the 120 s limit on the run.
# MPI_ALLREDUCE_BENCH_VERBOSE=1 makes the benchmark report iteration counts on stderr.

set -uo pipefail

readonly NP=${MPI_BENCH_NP:-2}
readonly TIME_LIMIT=${MPI_BENCH_TIMEOUT:-120}   # seconds; the run itself takes ~2-5 s
readonly EXPECTED_LINES=9   # message sizes 4 bytes, 4 KiB .. 64 MiB

die() {
    echo "mpi_allreduce.sh: FAILED: $*" >&2
    exit 1
}

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd) || die "cannot find the repo root"
cd "$repo_root" || die "cannot cd to $repo_root"

# ---- Open MPI (Debian packages), installed on first use like the rest of the project
missing=()
for p in openmpi-bin libopenmpi-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "mpi_allreduce.sh: installing ${missing[*]}" >&2
    { "${sudo[@]}" apt-get update && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"; } >&2 \
        || die "could not install ${missing[*]} (apt-get install -y openmpi-bin libopenmpi-dev)"
fi
for tool in mpicxx mpirun ompi_info; do
    command -v "$tool" >/dev/null || die "$tool not found on PATH (is openmpi-bin/libopenmpi-dev installed?)"
done

# ---- build
mkdir -p build/bench || die "cannot create build/bench"
mpicxx -O2 -o build/bench/mpi_allreduce tests/bench/baselines/mpi_allreduce.cpp >&2 \
    || die "build failed: mpicxx -O2 -o build/bench/mpi_allreduce tests/bench/baselines/mpi_allreduce.cpp"

# ---- mpirun flags
if ompi_info --parsable 2>/dev/null | grep -q '^mca:btl:vader:'; then
    shm_btl=vader   # Open MPI 4.x
elif ompi_info --parsable 2>/dev/null | grep -q '^mca:btl:sm:'; then
    shm_btl=sm      # Open MPI 5.x
else
    die "this Open MPI has no shared-memory BTL (neither vader nor sm in ompi_info)"
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun_args=(
    -np "$NP"
    --allow-run-as-root
    --oversubscribe
    --mca plm isolated
    --mca pml ob1
    --mca btl "self,$shm_btl"
    --mca btl_base_warn_component_unused 0
)
# shellcheck disable=SC2206  # word splitting of the user's extra arguments is intended
extra_args=(${MPI_BENCH_MPIRUN_ARGS:-})

# ---- the numbers are only meaningful on an otherwise idle machine: warn if it is busy
read -r _ u1 n1 s1 i1 w1 q1 sq1 st1 _ < /proc/stat
sleep 0.3
read -r _ u2 n2 s2 i2 w2 q2 sq2 st2 _ < /proc/stat
busy=$(( (u2 + n2 + s2 + q2 + sq2 + st2) - (u1 + n1 + s1 + q1 + sq1 + st1) ))
total=$(( busy + (i2 + w2) - (i1 + w1) ))
if [ "$total" -gt 0 ] && [ $(( 100 * busy / total )) -ge 20 ]; then
    echo "mpi_allreduce.sh: warning: CPUs were $(( 100 * busy / total ))% busy before the run;" \
         "$NP busy-polling ranks compete with that load, so the numbers will be low and noisy" >&2
fi

# ---- run
out=$(mktemp) || die "mktemp failed"
trap 'rm -f "$out"' EXIT
timeout --kill-after=10 "$TIME_LIMIT" \
    mpirun "${mpirun_args[@]}" "${extra_args[@]}" build/bench/mpi_allreduce > "$out"
rc=$?
if [ "$rc" -ne 0 ]; then
    if [ -s "$out" ]; then
        echo "mpi_allreduce.sh: partial output before the failure:" >&2
        cat "$out" >&2
    fi
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        die "mpirun did not finish within ${TIME_LIMIT}s (killed by timeout)"
    fi
    die "mpirun exited with status $rc: mpirun ${mpirun_args[*]} ${extra_args[*]} build/bench/mpi_allreduce" \
        "(a 'process_vm_readv'/CMA error means: MPI_BENCH_MPIRUN_ARGS=\"--mca btl_${shm_btl}_single_copy_mechanism none\")"
fi

# ---- check the output shape: exactly the expected JSON lines, nothing else
num='[0-9.e+-]+'
json_re="^\\{\"size_bytes\": [0-9]+, \"ranks\": $NP, \"seconds\": $num, \"min_seconds\": $num, \"max_seconds\": $num, \"algbw_gbps\": $num, \"busbw_gbps\": $num, \"samples_ps\": \\[[0-9, ]+\\]\\}\$"
lines=$(wc -l < "$out")
if [ "$lines" -ne "$EXPECTED_LINES" ] || [ "$(grep -cE "$json_re" "$out")" -ne "$EXPECTED_LINES" ]; then
    echo "mpi_allreduce.sh: unexpected output:" >&2
    cat "$out" >&2
    die "expected $EXPECTED_LINES JSON lines on stdout, got $lines lines"
fi
cat "$out"
