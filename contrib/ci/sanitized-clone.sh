# What contrib/ci/sanitizers.sh and tsan.sh share: a clone of the committed tree, configured
# with clang for one sanitizer and without the Slurm plugins (sanitized code is never loaded
# into slurmctld), so the main build's configured tree is left alone. Sourced, never run.
# shellcheck shell=bash

#   sanitized_clone TOP DIR SANITIZER   clones TOP into DIR (removed first), configures it with
#                                       --enable-sanitizers=SANITIZER and enters it
sanitized_clone() {
	local top=$1 dir=$2
	rm -rf "$dir"
	git clone -q "$top" "$dir"
	cd "$dir" || exit 1
	./autogen.sh >/dev/null 2>&1
	export CC=${CC:-clang} CXX=${CXX:-clang++}
	./configure --enable-sanitizers="$3" --with-slurm=/nonexistent >/dev/null
	# The clone is not beside ../shared; the tests that read it are told where it is.
	if [ -d "$top/../shared/reference/nccl-topo" ]; then
		export MORPHEUS_NCCL_REFERENCE_DIR=$top/../shared/reference/nccl-topo
	fi
}
