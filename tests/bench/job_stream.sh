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

# submit_wide_mix JOBS: JOBS jobs of every shape Morpheus meets, queued while the partition is
# down (the caller lets them go as above). Besides the one-node jobs of submit_mix: four-node
# jobs, jobs tight-bound to their own pod's nearest blade (300ns: one blade a pod, on
# etc/fabric.json and on contrib/gen-fabric.py's fat-tree alike), and a few two-node jobs whose
# 900G of hot memory fills that blade, so that they wait for memory while the rest flows past
# (they run 1 s; niced, so they never hold the head of the queue).
submit_wide_mix() {
	local jobs=$1 mem per
	mem=$((jobs / 100 > 8 ? jobs / 100 : 8))
	per=$(((jobs - mem) / 8))
	scontrol update partitionname=gpu state=down >/dev/null
	sbatch -Q --array=1-"$mem" -N2 -o /dev/null --nice=100 --mem-hot=450G --mem-hot-latency=300ns --wrap 'sleep 1'
	sbatch -Q --array=1-$((2 * per)) -N1 -o /dev/null --wrap true
	sbatch -Q --array=1-$((2 * per)) -N1 -o /dev/null --mem-hot=32G --mem-hot-latency=400ns --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-hot=16G --mem-cold=64G --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-cold=128G --wrap true
	sbatch -Q --array=1-"$per" -N2 -o /dev/null --mem-hot=16G --mem-cold=32G --wrap true
	sbatch -Q --array=1-"$per" -N1 -o /dev/null --mem-hot=64G --mem-hot-latency=300ns --wrap true
	echo $((mem + 8 * per))
}
