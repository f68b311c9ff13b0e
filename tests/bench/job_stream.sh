# job_stream.sh - sourced by the slurmctld benchmarks (slurm_throughput.sh, slurm_memory.sh),
# inside the harness's environment: one stream of jobs, the same for every selector.

# rss: slurmctld's resident memory, KiB.
rss() { awk '/VmRSS/ {print $2}' "/proc/$(cat "$E2E_RUN/slurmctld.pid")/status"; }

# submit_mix PER: four arrays of PER one-node jobs each, queued while the partition is down:
# hot inside 400ns, hot plus cold, cold only, and no Morpheus flags. Every pod meets these
# bounds, so both selectors may use all 16 nodes and the figures compare what select/morpheus
# costs slurmctld, not what a tighter placement costs the queue (that is the simulator's job).
# The caller lets them go with: scontrol update partitionname=gpu state=up
submit_mix() {
	local per=$1
	scontrol update partitionname=gpu state=down >/dev/null
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-hot=32G --mem-hot-latency=400ns --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-hot=16G --mem-cold=64G --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-cold=128G --wrap true
}

# wait_purged TIMEOUT: until Slurm holds no job record at all (ended jobs are purged
# MinJobAge after their end, in passes at most every 10 s).
wait_purged() {
	local i
	for ((i = 0; i < $1 * 2; i++)); do
		[ "$(squeue -h -r -t all -o %i | wc -l)" = 0 ] && return 0
		sleep 0.5
	done
	echo "job_stream: records still held after $1 s" >&2
	return 1
}
