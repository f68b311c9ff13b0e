// The subcommands of `morpheus`; each takes its own argv (argv[0] is the subcommand name).
#pragma once
#include <string>

#include "cluster_model.hpp"
#include "config.hpp"

namespace morpheus::cli {

int cmd_check(int argc, char **argv);
int cmd_place(int argc, char **argv);
int cmd_pools(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_fabric(int argc, char **argv);  // the pod x blade latency matrix, measured or static
int cmd_links(int argc, char **argv);  // the link time checkpoint windows book
int cmd_update(int argc, char **argv);  // set a blade's state, reason and time in the inventory
int cmd_explain(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_node(int argc, char **argv);  // morpheus node: the compute node seen by the SPANK plugin
int cmd_node_agent(int argc, char **argv);  // morpheus node agent: the node's periodic work
int cmd_ckpt(int argc, char **argv);  // morpheus ckpt: is this job's checkpoint window open

// Exit codes shared by the subcommands.
enum Exit { kOk = 0, kInputError = 1, kUsage = 2, kPending = 3, kImpossible = 4 };

// Where a subcommand's files come from: a morpheus.conf, or fabric + inventory given directly.
struct Sources {
    std::string conf;  // --conf, or $MORPHEUS_CONF
    std::string fabric, inventory, state;
};

// Loads the model the same way the plugin does (weights and bound from the conf if given).
ClusterModel load_model(const Sources &s, Config *config_out = nullptr);

}  // namespace morpheus::cli
