// Where the status views get their document: the live status service inside slurmctld
// (--server HOST:PORT or $MORPHEUS_SERVER, munge-authenticated), or the files offline.
#pragma once
#include <getopt.h>

#include <functional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "options.hpp"
#include "status_model.hpp"
#include "view.hpp"

namespace morpheus::cli {

struct StatusSource {
    Sources files;
    std::string server;  // HOST:PORT; empty: offline from files
    std::string found_in;  // the morpheus.conf that named the server, when the user named none
};

// slurm.conf as Slurm's commands find it: $SLURM_CONF, else /etc/slurm/slurm.conf.
std::string slurm_conf_path();
// morpheus.conf in slurm.conf's directory.
std::string morpheus_conf_beside_slurm_conf();

// Adds --server and the file options to a subcommand's getopt loop; returns true if it took c.
bool take_status_option(int c, const char *arg, StatusSource &s);
constexpr int kOptServer = 2000, kOptState = 2001;

// Sends {"op": op, "job": job} to the service, or answers it offline with the same code.
// Throws InputError when the answer is an error document.
std::string fetch_status(StatusSource &s, const std::string &op, long job = 0);
// The same for any query (JSON), e.g. one with the op's own selection members.
std::string fetch_status_query(StatusSource &s, const std::string &query_json);
// The same, read into its typed value (status_model.hpp); a malformed answer is an error
// naming the server and what is wrong.
template <class T>
T fetch(StatusSource &s, const std::string &op, long job = 0) {
    std::string text = fetch_status(s, op, job);
    return from_json<T>(text, s.server.empty() ? "status" : s.server);
}
template <class T>
T fetch_query(StatusSource &s, const std::string &query_json) {
    std::string text = fetch_status_query(s, query_json);
    return from_json<T>(text, s.server.empty() ? "status" : s.server);
}

// Sends any query (JSON) to the live status service and returns its answer as it stands
// (an error document included); throws InputError when there is no service to ask, with
// `no_service` as the problem.
std::string ask_status_service(StatusSource &s, const std::string &query_json,
                               const std::string &no_service = "no status service to ask");

// The command line of a status view (pools, jobs, fabric): the source (FABRIC INVENTORY,
// --conf, --state, --server), the view options (view.hpp), --help/--usage (prints `usage`),
// and the view's own options: `extra_short` and `extra_long` for getopt, handed to
// take_extra(c, optarg), which returns kGoOn or an exit status. Returns kGoOn when the view
// is to run, else the exit status.
int parse_view_command(int argc, char **argv, const char *usage, StatusSource &src, ViewOptions &v,
                       const std::string &extra_short = "", const std::vector<option> &extra_long = {},
                       const std::function<int(int, const char *)> &take_extra = nullptr);

}  // namespace morpheus::cli
