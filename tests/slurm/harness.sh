#!/bin/bash
# harness.sh - a private Slurm cluster on this host for Morpheus's end-to-end tests: munged,
# slurmctld with SelectType=select/morpheus, and one slurmd per node of the example fabric
# (etc/: 4 pods x 4 nodes x 8 GPUs), all under one run directory, torn down on exit. The run
# directory is /tmp/mph.XXXXXX whatever the checkout's path (slurmstepd's socket must fit in
# 107 bytes); run/slurm-current in the checkout points to it.
#
#   harness.sh start [--nodes LIST]     start; prints the run dir (also run/slurm-current)
#   harness.sh stop [RUN_DIR]           cancel jobs, stop every daemon it started, clean up
#   harness.sh run-test CMD [ARGS...]   start, run CMD with the cluster's environment, stop
#                                       (always, also when CMD fails); CMD's status is returned
#   harness.sh env [RUN_DIR]            print the exports a shell needs to use the cluster
#
# Environment: E2E_BUILD (build tree with the plugins, default: the repo),
# E2E_KEEP_RUN=1 keeps the run dir after stop (it is kept anyway when a start fails),
# E2E_NODES (hostlist, default all 16, or every node of E2E_FABRIC), E2E_SLURMCTLD_DEBUG
# (default debug), E2E_FABRIC and E2E_INVENTORY (a fabric map and inventory in place of etc/'s,
# e.g. from contrib/gen-fabric.py: one slurmd per node of the fabric's pods; tests/bench),
# E2E_ACCOUNTING=1 adds a MariaDB and a slurmdbd of the cluster's own (accounting with
# associations, QOS limits, and Morpheus's blade-memory licenses in TRES),
# MORPHEUS_SLURM_PREFIX (a Slurm installed under a private prefix, e.g. the 24.11 one of
# contrib/ci/slurm-24.11.sh: its bin/sbin come first in PATH, its lib/slurm is the system
# PluginDir; default: the distro's Slurm in /usr), E2E_CONTROLLER_CPUS and E2E_NODE_CPUS (CPU
# lists for taskset: slurmctld on the first, every slurmd and its steps on the second, as a real
# controller host is apart from its compute nodes; tests/bench/slurm_throughput.sh),
# E2E_RUN_PARENT (where the run directory is made, default /tmp; e.g. /dev/shm to take the disk
# out of a measurement; keep it short: slurmstepd's socket path must fit in 107 bytes).
# Needs root (slurmd), munge and the Debian Slurm 22.05 packages (or MORPHEUS_SLURM_PREFIX).
set -euo pipefail

HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HARNESS_DIR/../.." && pwd)
BUILD=${E2E_BUILD:-$REPO}
if [ -n "${MORPHEUS_SLURM_PREFIX:-}" ]; then
	MORPHEUS_SLURM_PREFIX=$(cd "$MORPHEUS_SLURM_PREFIX" && pwd)
	[ -x "$MORPHEUS_SLURM_PREFIX/sbin/slurmctld" ] || {
		echo "harness: $MORPHEUS_SLURM_PREFIX/sbin/slurmctld missing" >&2; exit 1; }
	export PATH=$MORPHEUS_SLURM_PREFIX/bin:$MORPHEUS_SLURM_PREFIX/sbin:$PATH
	SYS_PLUGIN_DIR=${SLURM_SYS_PLUGIN_DIR:-$MORPHEUS_SLURM_PREFIX/lib/slurm}
else
	SYS_PLUGIN_DIR=${SLURM_SYS_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}
fi
# The build's Slurm layer (plugins/*/slurm-MAJOR.MINOR), as configure chose it.
LAYER=$(sed -n 's/^SLURM_LAYER = //p' "$BUILD/Makefile" 2>/dev/null || true)
LAYER=${LAYER:-slurm-22.05}
# The layer's SelectType: from 26.05 it keeps "cons_tres" in its name (Slurm tests the name;
# plugins/select/slurm-26.05/select_morpheus.c), so the file is select_cons_tres_morpheus.so.
case $LAYER in
slurm-26.05) MORPHEUS_SELECT=select/cons_tres_morpheus ;;
*) MORPHEUS_SELECT=select/morpheus ;;
esac
# 26.05 only: it lowers a running job's memory only where the job has an extern step
# (test_cr_mem_update.sh; slurmctld logs an error about pam_slurm_adopt with linuxproc,
# harmless), and MaxNodeCount, which slurmctld refuses unless SelectType names cons_tres
# (test_cr_dynamic_node.sh; 22.05 has no MaxNodeCount, and 24.11's select/morpheus lacks the name).
CONF_2605="PrologFlags=Contain
MaxNodeCount=64"
ALL_NODES="gpu[101-104],gpu[201-204],gpu[301-304],gpu[401-404]"

log() { printf 'harness: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc | xargs printf '%.2f'; }

# gpu[101-104],gpu[201-202] -> one name a line (scontrol needs a running cluster; this not).
# Zero-padded ranges keep their width (gpu[00000-00127], as contrib/gen-fabric.py writes).
expand_nodes() {
	local item prefix range lo hi n
	for item in $(echo "$1" | sed 's/\],/]\n/g'); do
		item=${item#,}
		if [[ $item =~ ^([a-z]+)\[([0-9,-]+)\]$ ]]; then
			prefix=${BASH_REMATCH[1]}
			for range in ${BASH_REMATCH[2]//,/ }; do
				lo=${range%-*}; hi=${range#*-}
				for ((n = 10#$lo; n <= 10#$hi; n++)); do printf '%s%0*d\n' "$prefix" ${#lo} "$n"; done
			done
		else
			echo "$item"
		fi
	done
}

# A free TCP port block: base, base+1, ... base+count.
free_port_base() {
	local count=$1 base p busy
	# Below the kernel's ephemeral range (ip_local_port_range, 32768 and up here): a port
	# there can be taken by any outgoing connection between this check and the bind.
	for base in $(shuf -i 20000-32000 -n 20); do
		busy=0
		for ((p = base; p <= base + count; p++)); do
			if ss -Hatn "sport = :$p" | grep -q .; then busy=1; break; fi
		done
		[ $busy = 0 ] && { echo "$base"; return; }
	done
	die "no free port block of $count"
}

# slurmstepd listens on SlurmdSpoolDir/NODE_JOBID.STEPID[.HETCOMP], a Unix socket whose path
# must fit in sun_path (108 bytes with its NUL). A longer one is refused when the step starts,
# so every job fails to launch while nothing in the harness says why: refuse to start instead.
check_socket_paths() { # RUN NODES...
	local run=$1 n path longest=""
	shift
	for n in "$@"; do
		# The widest ids: a 10-digit job id, the batch step (4294967291), a het component.
		path="$run/spool/$n/${n}_4294967294.4294967291.99"
		if [ ${#path} -gt ${#longest} ]; then longest=$path; fi
	done
	if [ ${#longest} -le 107 ]; then return 0; fi
	rm -rf "$run"
	die "slurmstepd's socket path would be ${#longest} bytes, over the 107 a Unix socket allows: $longest (shorter node names)"
}

install_plugins() { # copies our .so files into the private PluginDir (mv: never over a loaded file)
	local dir=$1 so
	for so in "plugins/select/$LAYER/.libs/select_${MORPHEUS_SELECT#select/}.so" \
		  "plugins/job_submit/$LAYER/.libs/job_submit_morpheus.so" \
		  plugins/spank/.libs/spank_morpheus.so; do
		[ -f "$BUILD/$so" ] || die "$BUILD/$so missing: build first (make -j2)"
		cp "$BUILD/$so" "$dir/.$(basename "$so").new"
		mv -f "$dir/.$(basename "$so").new" "$dir/$(basename "$so")"
	done
}

write_config() { # RUN NODES... : slurm.conf, gres.conf, plugstack.conf, morpheus.conf
	local run=$1; shift
	local nodes=("$@") host port_base i n
	host=$(hostname -s)
	port_base=$(free_port_base $((${#nodes[@]} + 3))) # slurmctld, slurmds, status service, metrics
	mkdir -p "$run"/{etc,plugins,state,log,dev,spool}
	for i in 0 1 2 3 4 5 6 7; do ln -sf /dev/null "$run/dev/gpu$i"; done
	# Each emulated node gets a node-local /tmp of its own (SPANK tmpdir=.../%n): on one host
	# they would otherwise share /tmp and hide a file written on the wrong node.
	for n in "${nodes[@]}"; do mkdir -p "$run/spool/$n"; install -d -m 1777 "$run/node/$n/tmp"; done

	cat >"$run/etc/slurm.conf" <<-EOF
	# Generated by tests/slurm/harness.sh for a private test cluster.
	ClusterName=morpheus-e2e
	SlurmctldHost=$host(127.0.0.1)
	SlurmctldPort=$port_base
	SlurmUser=root
	SlurmdUser=root
	AuthType=auth/munge
	# A requeued batch job waits cred_expire+1 s before it may start again (default 120).
	AuthInfo=cred_expire=5
	CredType=cred/munge
	# Up to 24.11 every select_*.so in every PluginDir entry is loaded: ours first, then Slurm's.
	PluginDir=$run/plugins:$SYS_PLUGIN_DIR
	PlugStackConfig=$run/etc/plugstack.conf
	# E2E_SELECT=select/cons_tres gives the baseline the benchmarks compare against.
	SelectType=${E2E_SELECT:-$MORPHEUS_SELECT}
	SelectTypeParameters=CR_Core_Memory
	$([ "${E2E_SELECT:-$MORPHEUS_SELECT}" = "$MORPHEUS_SELECT" ] && echo JobSubmitPlugins=morpheus)
	# shard: shared GPUs (test_cr_shared_gpu.sh), a cons_tres-only feature.
	GresTypes=gpu,shard
	$([ "$LAYER" = slurm-26.05 ] && echo "$CONF_2605")
	SchedulerType=sched/backfill
	# The default 3 s batch delay and scheduling interval dominate test time otherwise.
	SchedulerParameters=batch_sched_delay=0,sched_min_interval=0,sched_interval=2,bf_interval=1
	SlurmdParameters=config_overrides
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	MpiDefault=none
	MailProg=/bin/true
	AccountingStorageType=accounting_storage/none
	JobCompType=jobcomp/none
	JobAcctGatherType=jobacct_gather/none
	ReturnToService=2
	KillWait=2
	MinJobAge=${E2E_MIN_JOB_AGE:-600}
	MaxJobCount=${E2E_MAX_JOB_COUNT:-20000}
	MaxArraySize=10001
	InactiveLimit=0
	SlurmdTimeout=300
	StateSaveLocation=$run/state
	SlurmdSpoolDir=$run/spool/%n
	SlurmctldPidFile=$run/slurmctld.pid
	SlurmdPidFile=$run/slurmd.%n.pid
	SlurmctldLogFile=$run/log/slurmctld.log
	SlurmdLogFile=$run/log/slurmd.%n.log
	SlurmctldDebug=${E2E_SLURMCTLD_DEBUG:-debug}
	SlurmdDebug=info
	# E2E_DEBUG_FLAGS=SelectType shows every plan step, and floods the log from cons_tres.
	DebugFlags=${E2E_DEBUG_FLAGS:-NO_CONF_HASH}
	EOF
	i=1
	for n in "${nodes[@]}"; do
		# Per node, not on NodeName=DEFAULT: NodeAddr/Port must reach the right slurmd.
		echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port_base + i)) CPUs=64 RealMemory=512000 Gres=gpu:8,shard:64 State=UNKNOWN" \
			>>"$run/etc/slurm.conf"
		i=$((i + 1))
	done
	echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$run/etc/slurm.conf"

	# Count-only GRES without File= are dropped and drain the node: point at /dev/null.
	echo "Name=gpu File=$run/dev/gpu[0-7]" >"$run/etc/gres.conf"
	# 64 shards, spread over the 8 GPUs (8 each; a job's shards come from one GPU).
	echo "Name=shard Count=64" >>"$run/etc/gres.conf"
	# These nodes are emulated 8-GPU nodes: give the node side a matching hwloc topology
	# (a DGX-like 8 GPU + 8 NIC export) instead of this CPU-only machine's.
	echo "required $run/plugins/spank_morpheus.so node_topology=$REPO/tests/data/hwloc/dgx-8gpu-8nic.xml tmpdir=$run/node/%n/tmp" \
		>"$run/etc/plugstack.conf"
	# morpheus.conf beside slurm.conf (get_extra_conf_path); fabric and inventory beside it.
	cp "$REPO/etc/morpheus.conf" "$run/etc/"
	cp "${E2E_FABRIC:-$REPO/etc/fabric.json}" "$run/etc/fabric.json"
	cp "${E2E_INVENTORY:-$REPO/etc/inventory.json}" "$run/etc/inventory.json"
	echo "StatusPort=$((port_base + ${#nodes[@]} + 1))" >>"$run/etc/morpheus.conf"
	# Inventory edits are picked up within a second (tests change blade states).
	sed -i '/^InventoryCheckInterval=/d' "$run/etc/morpheus.conf"
	echo "InventoryCheckInterval=1" >>"$run/etc/morpheus.conf"
	echo "$((port_base + ${#nodes[@]} + 1))" >"$run/status_port"
	echo "MetricsPort=$((port_base + ${#nodes[@]} + 2))" >>"$run/etc/morpheus.conf"
	echo "$((port_base + ${#nodes[@]} + 2))" >"$run/metrics_port"
}

start_munge() {
	local run=$1
	if [ -S /run/munge/munge.socket.2 ] && munge -n </dev/null >/dev/null 2>&1; then
		log "munged already running (not ours)"
		return
	fi
	install -d -o munge -g munge -m 0755 /run/munge
	install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
	runuser -u munge -- /usr/sbin/munged
	pgrep -u munge -x munged >"$run/munged.pid" || true
	for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && return; sleep 0.1; done
	die "munged did not come up"
}

# Blade memory in GiB over the inventory: hot (DRAM) and cold (every tier), for Licenses=.
inventory_gib() { # INVENTORY -> "HOT COLD"
	python3 - "$1" <<-'PY'
	import json, sys
	units = {"K": 2**-20, "M": 2**-10, "G": 1, "T": 2**10, "P": 2**20}
	def gib(s): s = str(s); return float(s[:-1]) * units[s[-1].upper()] if s[-1].isalpha() else float(s) / 2**30
	blades = json.load(open(sys.argv[1]))["blades"]
	hot = sum(gib(b.get("dram", "0")) for b in blades)
	print(int(hot), int(hot + sum(gib(b.get("pmem", "0")) for b in blades)))
	PY
}

# E2E_ACCOUNTING=1: MariaDB (private datadir, 127.0.0.1) and slurmdbd, both ours; the cluster,
# an account "e2e" with root and the second test user, and slurm.conf pointed at slurmdbd with
# the blade-memory licenses tracked as TRES and limits enforced.
start_accounting() { # RUN
	local run=$1 base sql dbd hot cold
	command -v mariadbd >/dev/null && command -v slurmdbd >/dev/null ||
		die "E2E_ACCOUNTING=1 needs mariadb-server and slurmdbd (contrib/ci/install-deps.sh)"
	base=$(free_port_base 2); sql=$base; dbd=$((base + 1))
	mariadb-install-db --no-defaults --datadir="$run/mysql" --user=root --skip-test-db \
		>"$run/log/mariadb-install.log" 2>&1 || die "mariadb-install-db failed: $run/log/mariadb-install.log"
	mariadbd --no-defaults --datadir="$run/mysql" --user=root --socket="$run/mysql.sock" --port="$sql" \
		--bind-address=127.0.0.1 --pid-file="$run/mysql.pid" --log-error="$run/log/mariadb.log" \
		--innodb-buffer-pool-size=64M --skip-name-resolve >/dev/null 2>&1 &
	for _ in $(seq 100); do [ -S "$run/mysql.sock" ] && break; sleep 0.1; done
	mariadb --no-defaults --socket="$run/mysql.sock" -u root -e \
		"CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'e2e'; GRANT ALL ON slurm_e2e_acct.* TO 'slurm'@'127.0.0.1';" ||
		die "MariaDB did not come up: $run/log/mariadb.log"
	cat >"$run/etc/slurmdbd.conf" <<-EOF
	AuthType=auth/munge
	DbdAddr=127.0.0.1
	DbdHost=localhost
	DbdPort=$dbd
	SlurmUser=root
	LogFile=$run/log/slurmdbd.log
	PidFile=$run/slurmdbd.pid
	StorageType=accounting_storage/mysql
	StorageHost=127.0.0.1
	StoragePort=$sql
	StorageUser=slurm
	StoragePass=e2e
	StorageLoc=slurm_e2e_acct
	EOF
	chmod 600 "$run/etc/slurmdbd.conf"
	slurmdbd || die "slurmdbd failed: $run/log/slurmdbd.log"
	read -r hot cold < <(inventory_gib "$run/etc/inventory.json")
	sed -i '/^AccountingStorageType=/d' "$run/etc/slurm.conf"
	cat >>"$run/etc/slurm.conf" <<-EOF
	AccountingStorageType=accounting_storage/slurmdbd
	AccountingStorageHost=127.0.0.1
	AccountingStoragePort=$dbd
	AccountingStorageEnforce=associations,limits,qos,safe
	AccountingStorageTRES=license/blade_hot_gb,license/blade_cold_gb
	Licenses=blade_hot_gb:$hot,blade_cold_gb:$cold
	EOF
	printf 'LicenseHot=blade_hot_gb\nLicenseCold=blade_cold_gb\n' >>"$run/etc/morpheus.conf"
	for _ in $(seq 100); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 0.1; done
	sacctmgr -i add cluster morpheus-e2e >/dev/null || die "sacctmgr add cluster failed"
	sacctmgr -i add account e2e Description=e2e Organization=morpheus >/dev/null
	sacctmgr -i add account e2e-other Description=e2e Organization=morpheus >/dev/null
	sacctmgr -i add user root Account=e2e >/dev/null
	sacctmgr -i modify user root set DefaultAccount=e2e >/dev/null
	# An unprivileged test user of our own (lib.sh E2E_USER): "nobody" holds no association
	# from Slurm 26.05 on.
	id -u "${E2E_USER:-mph-e2e}" >/dev/null 2>&1 ||
		useradd --system --no-create-home --shell /usr/sbin/nologin "${E2E_USER:-mph-e2e}" ||
		die "cannot create the test user ${E2E_USER:-mph-e2e}"
	sacctmgr -i add user "${E2E_USER:-mph-e2e}" Account=e2e-other >/dev/null
	echo "$hot $cold" >"$run/licenses"
	log "accounting: MariaDB on 127.0.0.1:$sql, slurmdbd on $dbd, Licenses=blade_hot_gb:$hot,blade_cold_gb:$cold"
}

wait_nodes_idle() { # RUN COUNT TIMEOUT
	local run=$1 count=$2 timeout=$3 t0 idle
	t0=$(date +%s)
	while :; do
		idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)
		[ "$idle" -ge "$count" ] && return 0
		if [ $(($(date +%s) - t0)) -ge "$timeout" ]; then
			sinfo -N -o '%N %t %E' >&2 || true
			return 1
		fi
		sleep 0.2
	done
}

# Every node of a fabric map's pods, as one hostlist.
fabric_nodes() { # FABRIC
	python3 -c 'import json, sys; print(",".join(p["nodes"] for p in json.load(open(sys.argv[1]))["pods"]))' "$1" ||
		die "cannot read the pods of $1"
}

cmd_start() {
	local nodes_expr=${E2E_NODES:-$ALL_NODES} run t0 t n nodes
	[ "$(id -u)" = 0 ] || die "must run as root (slurmd)"
	if [ -n "${E2E_FABRIC:-}" ]; then
		[ -n "${E2E_INVENTORY:-}" ] || die "E2E_FABRIC needs E2E_INVENTORY (the fabric's blades)"
		[ -n "${E2E_NODES:-}" ] || nodes_expr=$(fabric_nodes "$E2E_FABRIC")
	fi
	[ "${1:-}" = --nodes ] && nodes_expr=$2
	mapfile -t nodes < <(expand_nodes "$nodes_expr")
	t0=$(now)
	# Short and outside the checkout: see check_socket_paths.
	run=$(mktemp -d "${E2E_RUN_PARENT:-/tmp}/mph.XXXXXX")
	check_socket_paths "$run" "${nodes[@]}"
	mkdir -p "$REPO/run"
	ln -sfn "$run" "$REPO/run/slurm-current"
	# A failed start must not leave daemons behind; its logs are kept for the post-mortem.
	started_ok=0
	# shellcheck disable=SC2064
	trap "[ \$started_ok = 1 ] || E2E_KEEP_RUN=1 cmd_stop '$run'" EXIT
	write_config "$run" "${nodes[@]}"
	install_plugins "$run/plugins"
	# Other users (tests submit as a second user) read slurm.conf and load the SPANK plugin;
	# the state directory stays root's.
	chmod 755 "$run" "$run/etc" "$run/plugins"
	chmod 700 "$run/state"
	cat >"$run/env" <<-EOF
	export PATH=$PATH
	export SLURM_CONF=$run/etc/slurm.conf
	export E2E_RUN=$run
	export E2E_BUILD=$BUILD
	export E2E_LEDGER=$run/state/morpheus_ledger.json
	export E2E_MORPHEUS_CONF=$run/etc/morpheus.conf
	export E2E_STATUS_PORT=$(cat "$run/status_port")
	export E2E_METRICS_PORT=$(cat "$run/metrics_port")
	export E2E_MORPHEUS_SELECT=$MORPHEUS_SELECT
	export E2E_LAYER=$LAYER
	EOF
	# shellcheck disable=SC1091
	. "$run/env"
	# Marks every process we start, so stop can find them (slurmstepd included) by pid.
	export E2E_HARNESS_RUN=$run

	start_munge "$run"
	[ "${E2E_ACCOUNTING:-0}" = 1 ] && start_accounting "$run"
	t=$(now)
	${E2E_CONTROLLER_CPUS:+taskset -c "$E2E_CONTROLLER_CPUS"} slurmctld -f "$SLURM_CONF" -i || { tail -20 "$run/log/slurmctld.log" >&2; die "slurmctld failed"; }
	for _ in $(seq 100); do scontrol ping 2>/dev/null | grep -q UP && break; sleep 0.1; done
	scontrol ping | grep -q UP || { tail -30 "$run/log/slurmctld.log" >&2; die "slurmctld not answering"; }
	log "slurmctld up in $(since "$t") s"
	t=$(now)
	for n in "${nodes[@]}"; do
		${E2E_NODE_CPUS:+taskset -c "$E2E_NODE_CPUS"} slurmd -f "$SLURM_CONF" -N "$n"
	done
	if ! wait_nodes_idle "$run" "${#nodes[@]}" 120; then
		die "nodes not idle after 120 s; logs in $run/log"
	fi
	log "${#nodes[@]} slurmd idle in $(since "$t") s; cluster ready in $(since "$t0") s: $run"
	started_ok=1
	echo "$run"
}

harness_pids() { # pids of processes carrying our marker (slurmctld, slurmd, slurmstepd, munged)
	local run=$1
	grep -lzsx "E2E_HARNESS_RUN=$run" /proc/[0-9]*/environ 2>/dev/null |
		sed -n 's|^/proc/\([0-9]*\)/environ$|\1|p' | grep -vx "$$" || true
}

cmd_stop() {
	local run=${1:-$REPO/run/slurm-current} t0 pids pid file
	run=$(readlink -f "$run" 2>/dev/null || echo "$run")
	[ -d "$run" ] || { log "nothing to stop ($run)"; return 0; }
	t0=$(now)
	export SLURM_CONF=$run/etc/slurm.conf
	if scontrol ping 2>/dev/null | grep -q UP; then
		scancel --full --quiet --user=root 2>/dev/null || true
		for _ in $(seq 50); do [ -z "$(squeue -h -t R,CG,S 2>/dev/null)" ] && break; sleep 0.1; done
	fi
	# Daemons by their pid files, then anything else we started (stepds, job processes).
	# First lines only: a re-executed slurmctld (reconfigure, Slurm >= 24.05) rewrites its pid
	# file without truncating it, which can leave the old pid's tail on a second line.
	for file in "$run"/slurmd.*.pid "$run/slurmctld.pid" "$run/munged.pid" "$run/slurmdbd.pid" "$run/mysql.pid"; do
		read -r pid 2>/dev/null <"$file" || continue
		[[ $pid =~ ^[0-9]+$ ]] && kill -TERM "$pid" 2>/dev/null || true
	done
	for _ in $(seq 50); do
		pids=$(harness_pids "$run")
		[ -z "$pids" ] && break
		sleep 0.1
	done
	for pid in $(harness_pids "$run"); do kill -KILL "$pid" 2>/dev/null || true; done
	[ "$(readlink -f "$REPO/run/slurm-current" 2>/dev/null)" = "$run" ] && rm -f "$REPO/run/slurm-current"
	if [ "${E2E_KEEP_RUN:-0}" = 1 ]; then
		log "stopped in $(since "$t0") s; kept $run"
	else
		rm -rf "$run"
		log "stopped in $(since "$t0") s"
	fi
}

cmd_run_test() {
	local run rc=0
	[ $# -gt 0 ] || die "run-test needs a command"
	# One private cluster per host at a time: they share munged, and one's stop would kill the
	# other's. A second run (another checkout, another Slurm lane) waits here instead.
	exec 9>"${E2E_LOCK:-/tmp/morpheus-e2e.lock}"
	if ! flock -n 9; then
		log "another end-to-end run holds ${E2E_LOCK:-/tmp/morpheus-e2e.lock}: waiting"
		flock 9
	fi
	run=$(cmd_start 9>&-) || { log "start failed; logs kept in $REPO/run/slurm-current"; return 1; }
	# shellcheck disable=SC2064
	trap "cmd_stop '$run'" EXIT
	trap 'exit 130' INT TERM
	# shellcheck disable=SC1091
	. "$run/env"
	"$@" || rc=$?
	[ $rc != 0 ] && export E2E_KEEP_RUN=1 && log "'$*' failed ($rc): keeping $run"
	return $rc
}

case "${1:-}" in
start) shift; cmd_start "$@" ;;
stop) shift; cmd_stop "$@" ;;
run-test) shift; cmd_run_test "$@" ;;
env) cat "$(readlink -f "${2:-$REPO/run/slurm-current}")/env" ;;
*) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
