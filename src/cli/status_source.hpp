// Where the status views get their document: the live status service inside slurmctld
// (--server HOST:PORT or $MORPHEUS_SERVER, munge-authenticated), or the files offline.
#pragma once
#include <jansson.h>

#include <string>

#include "commands.hpp"

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
// The same, parsed: a new reference the caller owns. A reply that is not JSON is an error
// naming the op.
json_t *fetch_document(StatusSource &s, const std::string &op, long job = 0);

}  // namespace morpheus::cli
