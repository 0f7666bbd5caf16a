// Open MPI baseline for `make bench`: times MPI_Allreduce (float32, MPI_SUM) over
// shared memory so our own all-reduce can be compared against it.
//
// Run with `mpirun -np N` (see tests/bench/baselines/mpi_allreduce.sh for the exact flags).
// For each message size (4 bytes, the latency of one float; then 4 KiB .. 64 MiB, x4 steps) it allocates and fills fresh
// send/receive buffers, checks one all-reduce result element by element, and then
// measures exactly as tests/bench/bench-allreduce measures ours:
//   warm-up: batches doubling from one call until a batch lasts kWarmupSeconds;
//   kSamples batches, each sized to last about kSampleSeconds (at least one call),
//   each timed from a barrier to the slowest rank's end (MPI_MAX of the ranks'
//   elapsed times), divided by the batch's call count.
// Many short batches and their median: a batch the OS preempted (other processes
// share these cores) is an outlier, not the result. It checks the last result again,
// and rank 0 prints one JSON object per size to stdout:
//
//   {"size_bytes": N, "ranks": n, "seconds": median, "min_seconds": ., "max_seconds": .,
//    "algbw_gbps": N/median/1e9, "busbw_gbps": algbw*2*(n-1)/n, "samples_ps": [...]}
//
// (samples_ps: picoseconds per call of each batch, for tests/bench/benchmarks.py to pool over
// runs). Nothing else goes to stdout; diagnostics go to stderr (batch sizes with
// MPI_ALLREDUCE_BENCH_VERBOSE=1). A wrong result aborts the run with MPI_Abort, so
// mpirun exits non-zero.

// Only the C API is used; skip the deprecated C++ bindings (and their warnings).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace {

constexpr std::size_t kSizes[] = {
    std::size_t{4},        std::size_t{4} << 10,  std::size_t{16} << 10, std::size_t{64} << 10, std::size_t{256} << 10,
    std::size_t{1} << 20,  std::size_t{4} << 20,  std::size_t{16} << 20, std::size_t{64} << 20,
};
constexpr std::size_t kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);

constexpr double kWarmupSeconds = 0.005;  // warm-up: until one batch lasts this long
constexpr double kSampleSeconds = 0.001;  // each timed batch
constexpr int kSamples = 15;
constexpr long kMaxBatch = 1L << 20;

// Input element i of rank r. Values are multiples of 0.25 in [-256, 255.75], so any
// sum over a few ranks is exact in float whatever order MPI adds them in, and the
// check below can demand bit-exact equality.
float input_value(int rank, std::size_t i) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 2654435761u +
                      static_cast<std::uint32_t>(rank + 1) * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return static_cast<float>(static_cast<int>(h % 2048u) - 1024) * 0.25f;
}

// Rank 0 only: every element of `result` must equal the sum of all ranks' inputs,
// recomputed here from input_value() (in double) rather than taken from any buffer.
void verify_or_abort(const std::vector<float>& result, int nranks, std::size_t size_bytes,
                     const char* when) {
    for (std::size_t i = 0; i < result.size(); ++i) {
        double expected = 0.0;
        for (int r = 0; r < nranks; ++r) expected += static_cast<double>(input_value(r, i));
        if (!(static_cast<double>(result[i]) == expected)) {
            std::fprintf(stderr,
                         "mpi_allreduce: WRONG RESULT (%s) at size %zu bytes: element %zu is %.9g, "
                         "expected %.9g (sum over %d ranks)\n",
                         when, size_bytes, i, static_cast<double>(result[i]), expected, nranks);
            std::fflush(stderr);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
}

// Barrier, `iters` all-reduces, and the slowest rank's elapsed time on every rank (so all ranks
// take the same calibration decisions from it); also the reported measurement.
double timed_allreduces(const float* send, float* recv, int count, long iters) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long k = 0; k < iters; ++k) {
        MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    }
    const double local = MPI_Wtime() - t0;
    double slowest = 0.0;
    MPI_Allreduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    int nranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    if (nranks < 2) {
        if (rank == 0) {
            std::fprintf(stderr, "mpi_allreduce: needs at least 2 ranks (got %d); run it with mpirun -np 2\n",
                         nranks);
        }
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char* verbose_env = std::getenv("MPI_ALLREDUCE_BENCH_VERBOSE");
    const bool verbose = verbose_env != nullptr && verbose_env[0] != '\0' && verbose_env[0] != '0';

    const double program_start = MPI_Wtime();

    for (std::size_t s = 0; s < kNumSizes; ++s) {
        const std::size_t size_bytes = kSizes[s];
        const std::size_t count = size_bytes / sizeof(float);

        std::vector<float> send(count);
        for (std::size_t i = 0; i < count; ++i) send[i] = input_value(rank, i);
        // NaN everywhere, so a receive buffer the all-reduce did not write fails the check.
        std::vector<float> recv(count, std::numeric_limits<float>::quiet_NaN());

        // 1. One checked all-reduce (also the first, page-faulting warm-up iteration).
        MPI_Allreduce(send.data(), recv.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM,
                      MPI_COMM_WORLD);
        if (rank == 0) verify_or_abort(recv, nranks, size_bytes, "first call");

        // 2. Warm-up: double the batch until it lasts kWarmupSeconds. Every rank sees the
        //    same (max) time, so all agree on the batches and on the sample size.
        long batch = 1;
        double batch_seconds = 0.0;
        for (;;) {
            batch_seconds = timed_allreduces(send.data(), recv.data(), static_cast<int>(count), batch);
            if (batch_seconds >= kWarmupSeconds || batch >= kMaxBatch) break;
            batch *= 2;
        }
        const double estimate = std::max(batch_seconds / static_cast<double>(batch), 1e-9);
        const long sample_batch = std::clamp(static_cast<long>(kSampleSeconds / estimate), 1L, kMaxBatch);

        // 3. The samples.
        std::vector<double> samples(kSamples);
        for (int k = 0; k < kSamples; ++k) {
            samples[k] = timed_allreduces(send.data(), recv.data(), static_cast<int>(count), sample_batch) /
                         static_cast<double>(sample_batch);
        }

        if (rank == 0) {
            verify_or_abort(recv, nranks, size_bytes, "last timed call");
            std::vector<double> sorted = samples;
            std::sort(sorted.begin(), sorted.end());
            const double median = kSamples % 2 ? sorted[kSamples / 2]
                                               : 0.5 * (sorted[kSamples / 2 - 1] + sorted[kSamples / 2]);
            const double algbw = static_cast<double>(size_bytes) / median / 1e9;
            const double busbw = algbw * 2.0 * static_cast<double>(nranks - 1) / static_cast<double>(nranks);
            std::printf("{\"size_bytes\": %zu, \"ranks\": %d, \"seconds\": %.6e, \"min_seconds\": %.6e, "
                        "\"max_seconds\": %.6e, \"algbw_gbps\": %.4f, \"busbw_gbps\": %.4f, \"samples_ps\": [",
                        size_bytes, nranks, median, sorted.front(), sorted.back(), algbw, busbw);
            for (int k = 0; k < kSamples; ++k) std::printf("%s%.0f", k ? ", " : "", samples[k] * 1e12);
            std::printf("]}\n");
            std::fflush(stdout);
            if (verbose) {
                std::fprintf(stderr, "mpi_allreduce: %zu bytes: warm-up batch %ld (%.3f s), %d samples of %ld calls\n",
                             size_bytes, batch, batch_seconds, kSamples, sample_batch);
            }
        }
    }

    if (rank == 0 && verbose) {
        std::fprintf(stderr, "mpi_allreduce: %d ranks, total %.2f s\n", nranks, MPI_Wtime() - program_start);
    }
    MPI_Finalize();
    return 0;
}
