// The blade-memory charge: the most nodes a job can be given in any of the forms Slurm lets a
// user size it (-N MIN-MAX, -n, --gpus), and the job's licences with Morpheus's charge merged
// in so that a licence the user names can never lower it. Slurm-free: the shims pass numbers.
#pragma once
#include <cstdint>
#include <string>

namespace morpheus {

// The forms of a job's size (0: not given).
struct JobSize {
    uint32_t min_nodes = 0;  // -N MIN
    uint32_t max_nodes = 0;  // -N MIN-MAX (Slurm sets MAX = MIN for a plain -N)
    uint32_t tasks = 0;  // -n: a task never spans nodes, so at most this many nodes
    uint32_t gpus = 0;  // --gpus (whole job): every node it gets holds one at least
    uint32_t cluster_nodes = 0;  // the nodes Slurm has: nobody gets more
};

// The most nodes Slurm can allocate the job: MAX when given, otherwise the fewest of the
// task and GPU counts (each bounds the nodes), 1 when the job gives no size at all; never
// more than the cluster has, never fewer than MIN.
uint32_t most_nodes(const JobSize &size);

// The count of licence `name` in a Slurm licence string ("a:3,b,c@srv:2"; a bare name counts
// 1); 0 when absent.
uint64_t license_count(const std::string &licenses, const std::string &name);

// `named` (what the job carries: the user's -L, or a Licenses= update) with each item of
// `charge` ("hot:512,cold:200") set to the higher of the two counts, so the charge is never
// lowered; other licences are kept as they are. Throws InputError (on `flag`) for an OR
// expression ('|') that names a charged licence: Slurm would let the job pick the other.
std::string merge_charge(const std::string &named, const std::string &charge, const std::string &flag);

}  // namespace morpheus
