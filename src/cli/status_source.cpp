// Live or offline status, through the same answer_status_query() either way.
#include "status_source.hpp"

#include <jansson.h>
#include <strings.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "decision_log.hpp"
#include "input_error.hpp"
#include "ledger.hpp"
#include "options.hpp"
#include "status_queries.hpp"
#include "status_service.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

std::string slurm_conf_path() {
    const char *env = std::getenv("SLURM_CONF");
    return env && *env ? env : "/etc/slurm/slurm.conf";
}

std::string morpheus_conf_beside_slurm_conf() {
    std::string slurm_conf = slurm_conf_path();
    std::string dir = slurm_conf.find('/') == std::string::npos ? "." : slurm_conf.substr(0, slurm_conf.rfind('/'));
    return dir + "/morpheus.conf";
}

bool take_status_option(int c, const char *arg, StatusSource &s) {
    switch (c) {
    case 'c': s.files.conf = arg; return true;
    case kOptServer: s.server = arg; return true;
    case kOptState: s.files.state = arg; return true;
    default: return false;
    }
}

namespace {

// The first SlurmctldHost's address ("ctl1(10.0.0.1)" -> 10.0.0.1, "ctl1" -> ctl1), or "".
std::string slurmctld_host(const std::string &slurm_conf) {
    std::ifstream in(slurm_conf);
    std::string line;
    while (std::getline(in, line)) {
        size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#') continue;
        for (const char *key : {"SlurmctldHost=", "ControlMachine="}) {
            size_t n = std::strlen(key);
            if (line.size() - start <= n || strncasecmp(line.c_str() + start, key, n) != 0) continue;
            std::string v = line.substr(start + n);
            v = v.substr(0, v.find_first_of(" \t#"));
            size_t open = v.find('('), close = v.find(')');
            if (open != std::string::npos && close != std::string::npos && close > open + 1)
                return v.substr(open + 1, close - open - 1);
            return v;
        }
    }
    return "";
}

// With no --server, --conf or files named: morpheus.conf beside slurm.conf, and, when it sets
// StatusPort, the status service on the SlurmctldHost (as scontrol finds slurmctld).
void find_default_source(StatusSource &s) {
    if (!s.server.empty() || !s.files.conf.empty() || !s.files.fabric.empty()) return;
    std::string slurm_conf = slurm_conf_path();
    std::string conf = morpheus_conf_beside_slurm_conf();
    if (::access(conf.c_str(), R_OK) != 0)
        throw InputError(conf, "", "no morpheus.conf beside " + slurm_conf,
                         "give --server HOST:PORT, --conf FILE, or set SLURM_CONF / MORPHEUS_CONF");
    Config c = read_config(conf);
    std::string host = c.status_address.empty() ? slurmctld_host(slurm_conf) : c.status_address;
    if (c.status_port && !host.empty()) {
        s.server = host + ":" + std::to_string(c.status_port);
        s.found_in = conf;
        return;
    }
    s.files.conf = conf;  // no status service: the files, offline
}

}  // namespace

namespace {

// The server's HOST:PORT split; throws naming --server when it is malformed.
std::pair<std::string, uint16_t> server_address(const std::string &server) {
    size_t colon = server.rfind(':');
    if (colon == std::string::npos)
        throw InputError("", "--server", "'" + server + "' has no port", "write HOST:PORT, e.g. ctl1:7820");
    int port = std::atoi(server.c_str() + colon + 1);
    if (port <= 0 || port > 65535) throw InputError("", "--server", "bad port in '" + server + "'");
    return {server.substr(0, colon), static_cast<uint16_t>(port)};
}

std::string ask_server(StatusSource &s, const std::string &query) {
    auto [host, port] = server_address(s.server);
    try {
        return query_status_service(host, port, query);
    } catch (const InputError &e) {
        if (s.found_in.empty()) throw;
        // Say where the address came from: the user gave none.
        throw InputError(s.found_in, "StatusPort", "status service " + s.server + ": " + e.what());
    }
}

}  // namespace

std::string ask_status_service(StatusSource &s, const std::string &query_json, const std::string &no_service) {
    if (s.server.empty()) {
        const char *env = std::getenv(MORPHEUS_ENV_SERVER);
        if (env && *env && s.files.fabric.empty()) s.server = env;
    }
    find_default_source(s);
    if (s.server.empty())
        throw InputError(s.files.conf, "StatusPort", no_service,
                         "set StatusPort= in morpheus.conf, or give --server HOST:PORT");
    return ask_server(s, query_json);
}

std::string fetch_status(StatusSource &s, const std::string &op, long job) {
    return fetch_status_query(s, "{\"op\": \"" + op + "\", \"job\": " + std::to_string(job) + "}");
}

std::string fetch_status_query(StatusSource &s, const std::string &query) {
    if (s.server.empty()) {
        const char *env = std::getenv(MORPHEUS_ENV_SERVER);
        if (env && *env && s.files.fabric.empty()) s.server = env;
    }
    find_default_source(s);
    std::string reply;
    if (!s.server.empty()) {
        reply = ask_server(s, query);
    } else {
        Config conf;
        ClusterModel model = load_model(s.files, &conf);
        std::string state = s.files.state.empty() ? conf.state_file : s.files.state;
        // Offline, reservations come from the ledger alone: without it every blade would
        // look free, so say so rather than show a confident, wrong picture.
        if (state.empty())
            std::fprintf(stderr,
                         "morpheus: warning: no ledger given (--state FILE or StateFile= in morpheus.conf): "
                         "reservations are unknown and every blade shows free\n");
        else if (::access(state.c_str(), R_OK) != 0)
            std::fprintf(stderr, "morpheus: warning: %s: cannot read the ledger (%s): every blade shows free\n",
                         state.c_str(), std::strerror(errno));
        Ledger ledger = state.empty() || ::access(state.c_str(), R_OK) != 0 ? Ledger(model.fabric().blades.size())
                                                                            : Ledger::load(state, model.fabric());
        DecisionLog none;
        uid_t uid = getuid();
        reply = answer_status_query(model, ledger, none, uid, uid == 0, query);
    }
    json_error_t err;
    json_t *doc = json_loads(reply.c_str(), 0, &err);
    if (!doc)
        throw InputError(s.server.empty() ? "status" : s.server, "", std::string("unreadable answer: ") + err.text);
    json_t *e = json_object_get(doc, "error");
    std::string message = json_is_string(e) ? json_string_value(e) : "";
    json_decref(doc);
    if (!message.empty()) throw InputError(s.server.empty() ? "" : s.server, "", message);
    return reply;
}

int parse_view_command(int argc, char **argv, const char *usage, StatusSource &src, ViewOptions &v,
                       const std::string &extra_short, const std::vector<option> &extra_long,
                       const std::function<int(int, const char *)> &take_extra) {
    enum { kHelp = 999 };  // below the views' own options (1000 and up)
    std::vector<option> longopts = {{"conf", required_argument, nullptr, 'c'},
                                    {"server", required_argument, nullptr, kOptServer},
                                    {"state", required_argument, nullptr, kOptState}};
    longopts.insert(longopts.end(), extra_long.begin(), extra_long.end());
    longopts.insert(longopts.end(), {MORPHEUS_VIEW_LONG_OPTIONS,
                                     {"help", no_argument, nullptr, kHelp},
                                     {"usage", no_argument, nullptr, kHelp},
                                     {nullptr, 0, nullptr, 0}});
    int rc =
        parse_options(argc, argv, "c:" + extra_short + kViewShortOptions, longopts.data(), [&](int c, const char *arg) {
            if (take_status_option(c, arg, src) || take_view_option(c, arg, v)) return kGoOn;
            if (c == kHelp) {
                std::fputs(usage, stdout);
                return static_cast<int>(kOk);
            }
            return take_extra ? take_extra(c, arg) : static_cast<int>(kUsage);
        });
    if (rc != kGoOn) return rc;
    if (!v.format.empty() && !v.Format.empty()) throw InputError("", "-o", "give -o or -O, not both");
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    return kGoOn;
}

}  // namespace morpheus::cli
