// Workload traces as the simulator reads them: one record per job in the terms of the Standard
// Workload Format (SWF), whether read from a site log or generated.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace morpheus::sim {

// The SWF columns the simulator uses (1-based column numbers); -1 is "unknown", as in SWF.
struct TraceJob {
    uint64_t id = 0;  // 1: job number
    int64_t submit = 0;  // 2: submit time, seconds from the log's start
    int64_t runtime = -1;  // 4: run time, seconds
    int64_t processors = -1;  // 8: requested processors (5, allocated, when 8 is unknown)
    int64_t requested_time = -1;  // 9: the user's estimate, seconds
    int64_t memory_kb = -1;  // 10: requested memory per processor, KB (7, used, when unknown)
    int status = -1;  // 11: 1 done, 0 failed, 5 cancelled
};

struct Trace {
    std::string source;
    std::vector<TraceJob> jobs;  // in submit order
    size_t skipped = 0;  // records without a run time or a processor count
};

// Reads an SWF file (plain, or gzip-compressed when the name ends in ".gz"). Lines starting
// with ';' are header comments. Throws InputError naming the file and line of a malformed record.
Trace read_swf(const std::string &path);
Trace parse_swf(const std::string &text, const std::string &name);

// A generated trace, for scale and for what-ifs the real logs do not cover.
//   arrivals   Poisson; the rate is chosen so the offered load (processor-seconds asked per
//              second) is `load` times `processors`
//   size       processors = 2^k, k uniform in [0, log2(max_job_processors)]
//   runtime    log-uniform in [min_runtime, max_runtime] seconds
//   estimate   runtime times a factor uniform in [1, 3] (users over-estimate)
//   memory     unknown (-1): the job model draws it, as for the real logs without memory
struct SyntheticParams {
    size_t jobs = 10000;
    uint64_t seed = 1;
    uint64_t processors = 128;  // the machine the load is relative to
    uint64_t max_job_processors = 64;
    double load = 0.6;
    int64_t min_runtime = 60, max_runtime = 36 * 3600;
};
Trace synthetic_trace(const SyntheticParams &p);

}  // namespace morpheus::sim
