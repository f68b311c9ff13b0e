#!/usr/bin/env python3
"""Generates a large fabric map and inventory (morpheus-fabric(5), morpheus-inventory(5)).

For benchmarks and the simulator: the default run is the 100k-GPU scale (12,500 nodes x 8 GPUs
in 200 pods, 4,096 memory blades). Output is deterministic for a given set of arguments.

Layouts
  fat-tree   every pod hangs off its own leaf switch; leaves join every spine; memory pool
             switches hang off two spines each. Blades sit on leaves (near one pod), on spines
             and on pool switches (shared by all pods, one spine hop further).
  dragonfly  pods are grouped; each group has routers joined all-to-all by local links and one
             pool switch; groups are joined all-to-all by global links between routers. Blades
             sit on routers and on the group's pool switch; another group's blades are one
             global hop away.

Latencies are per link, one way, in ns, jittered by up to +-10% per blade link so that ties
are rare (as on a real fabric, where cable lengths differ). With the defaults and the default
500ns hot bound, a fat-tree pod sees its own leaf's blades at ~190ns, spine and pool blades at
~390-400ns and other leaves' blades beyond the bound.

Usage: gen-fabric.py [options] -o PREFIX   writes PREFIX-fabric.json and PREFIX-inventory.json
Then:  src/cli/morpheus check PREFIX-fabric.json PREFIX-inventory.json
"""

import argparse
import json
import random
import sys


def hostlist(prefix, first, count, width):
    """Slurm hostlist for `count` consecutive node numbers starting at `first`."""
    if count == 1:
        return "%s%0*d" % (prefix, width, first)
    return "%s[%0*d-%0*d]" % (prefix, width, first, width, first + count - 1)


def split_nodes(total, pods):
    """Spreads `total` nodes over `pods` pods as evenly as possible (larger pods first)."""
    base, extra = divmod(total, pods)
    return [base + (1 if p < extra else 0) for p in range(pods)]


class FabricBuilder:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.pods, self.switches, self.blades, self.links = [], [], [], []
        self.blade_kind = {}  # blade name -> "leaf" | "spine" | "pool", sizes its capacity

    def jitter(self, ns):
        return max(1, int(round(ns * self.rng.uniform(0.9, 1.1))))

    def link(self, a, b, ns, gbps):
        self.links.append({"from": a, "to": b, "latency": "%dns" % ns, "bandwidth": gbps})

    def switch(self, name, tier):
        self.switches.append({"name": name, "tier": tier})
        return name

    def blade(self, kind, attach, ns, gbps):
        name = "blade%05d" % len(self.blades)
        self.blades.append({"name": name})
        self.blade_kind[name] = kind
        self.link(name, attach, self.jitter(ns), gbps)
        return name

    def add_pods(self):
        a = self.args
        width = max(5, len(str(a.nodes - 1)))
        first = 0
        for p, count in enumerate(split_nodes(a.nodes, a.pods)):
            self.pods.append({
                "name": "pod%03d" % p,
                "nodes": hostlist(a.node_prefix, first, count, width),
                "gpus_per_node": a.gpus_per_node,
                "node_latency": "%dns" % a.node_latency,
            })
            first += count

    def blade_split(self, near_slots):
        """How many blades go near pods (leaf/router), on spines, and on pool switches."""
        a = self.args
        near = min(a.blades, int(a.blades * a.near_share))
        near -= near % near_slots if near >= near_slots else 0
        spine = 0 if a.layout == "dragonfly" else int(a.blades * a.spine_share)
        return near, spine, a.blades - near - spine

    def fat_tree(self):
        a = self.args
        spines = [self.switch("spine%02d" % s, "spine") for s in range(a.spines)]
        leaves = []
        for p, pod in enumerate(self.pods):
            leaf = self.switch("leaf%03d" % p, "leaf")
            leaves.append(leaf)
            self.link(pod["name"], leaf, 90, 800)
            for s in spines:
                self.link(leaf, s, 180, 400)
        near, on_spine, pooled = self.blade_split(len(leaves))
        for i in range(near):
            self.blade("leaf", leaves[i % len(leaves)], 80, 400)
        for i in range(on_spine):
            self.blade("spine", spines[i % len(spines)], 110, 200)
        pools = [self.switch("pool%02d" % i, "pool") for i in range(max(1, (pooled + a.blades_per_pool - 1) // a.blades_per_pool))]
        for i, pool in enumerate(pools):
            # Two spines per pool switch: enough for redundancy, and keeps the link count small.
            self.link(pool, spines[(2 * i) % len(spines)], 60, 800)
            self.link(pool, spines[(2 * i + 1) % len(spines)], 60, 800)
        for i in range(pooled):
            self.blade("pool", pools[i % len(pools)], 50, 200)

    def dragonfly(self):
        a = self.args
        groups = [list(range(g, min(g + a.pods_per_group, a.pods))) for g in range(0, a.pods, a.pods_per_group)]
        routers = []  # per group, its router names
        pools = []
        for g, members in enumerate(groups):
            count = max(1, (len(members) + 1) // 2)  # two pods per router
            rs = [self.switch("g%02dr%d" % (g, r), "router") for r in range(count)]
            routers.append(rs)
            for i, p in enumerate(members):
                self.link(self.pods[p]["name"], rs[i // 2], 90, 800)
            for i in range(count):
                for j in range(i + 1, count):
                    self.link(rs[i], rs[j], 120, 400)  # local (intra-group) links
            pool = self.switch("g%02dpool" % g, "pool")
            pools.append(pool)
            for r in rs:
                self.link(pool, r, 60, 800)
        for g in range(len(groups)):
            for h in range(g + 1, len(groups)):
                # One global link per pair of groups, spread over the routers of each.
                self.link(routers[g][h % len(routers[g])], routers[h][g % len(routers[h])], 300, 200)
        all_routers = [r for rs in routers for r in rs]
        near, _, pooled = self.blade_split(len(all_routers))
        for i in range(near):
            self.blade("leaf", all_routers[i % len(all_routers)], 80, 400)
        for i in range(pooled):
            self.blade("pool", pools[i % len(pools)], 50, 200)

    def fabric(self):
        self.add_pods()
        if self.args.layout == "fat-tree":
            self.fat_tree()
        else:
            self.dragonfly()
        a = self.args
        return {
            "version": 1,
            "name": "generated %s: %d pods, %d nodes x %d GPUs, %d blades (seed %d)"
                    % (a.layout, a.pods, a.nodes, a.gpus_per_node, len(self.blades), a.seed),
            "pods": self.pods,
            "switches": self.switches,
            "blades": self.blades,
            "links": self.links,
        }

    def inventory(self):
        """Capacities by where a blade sits: near blades are DRAM-rich, pool blades PMEM-rich."""
        a = self.args
        capacity = {"leaf": ("1T", "2T"), "spine": ("768G", "3T"), "pool": ("512G", "4T")}
        out = []
        for b in self.blades:
            dram, pmem = capacity[self.blade_kind[b["name"]]]
            r = self.rng.random()
            state = "failed" if r < a.failed_share else "draining" if r < a.failed_share + a.draining_share else "up"
            # Load: most blades lightly used, a few hot spots.
            load = round(min(1.0, self.rng.betavariate(1.5, 6.0)), 3)
            out.append({"name": b["name"], "dram": dram, "pmem": pmem, "state": state, "load": load})
        return {"version": 1, "blades": out}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--layout", choices=["fat-tree", "dragonfly"], default="fat-tree")
    p.add_argument("--pods", type=int, default=200)
    p.add_argument("--nodes", type=int, default=12500, help="total nodes, spread evenly over the pods")
    p.add_argument("--nodes-per-pod", type=int, help="nodes per pod (overrides --nodes)")
    p.add_argument("--gpus-per-node", type=int, default=8)
    p.add_argument("--blades", type=int, default=4096)
    p.add_argument("--spines", type=int, default=16, help="fat-tree: spine switches")
    p.add_argument("--blades-per-pool", type=int, default=64, help="blades per pool switch (fat-tree)")
    p.add_argument("--pods-per-group", type=int, default=8, help="dragonfly: pods per group")
    p.add_argument("--near-share", type=float, default=0.4, help="share of blades on leaves/routers")
    p.add_argument("--spine-share", type=float, default=0.1, help="fat-tree: share of blades on spines")
    p.add_argument("--node-latency", type=int, default=20, help="ns from a node to its pod's port")
    p.add_argument("--node-prefix", default="gpu")
    p.add_argument("--failed-share", type=float, default=0.0025)
    p.add_argument("--draining-share", type=float, default=0.005)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("-o", "--output", default="fabric-100k", help="PREFIX of the two files written")
    a = p.parse_args()
    if a.nodes_per_pod:
        a.nodes = a.pods * a.nodes_per_pod
    if a.pods < 1 or a.nodes < a.pods or a.blades < 1 or a.gpus_per_node < 0:
        p.error("need at least one pod, one node per pod and one blade")
    builder = FabricBuilder(a)
    fabric = builder.fabric()
    inventory = builder.inventory()
    for suffix, doc in (("fabric", fabric), ("inventory", inventory)):
        with open("%s-%s.json" % (a.output, suffix), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    print("%s-fabric.json: %d pods, %d nodes, %d GPUs, %d switches, %d blades, %d links"
          % (a.output, len(fabric["pods"]), a.nodes, a.nodes * a.gpus_per_node, len(fabric["switches"]),
             len(fabric["blades"]), len(fabric["links"])), file=sys.stderr)


if __name__ == "__main__":
    main()
