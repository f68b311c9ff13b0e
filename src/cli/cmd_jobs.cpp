// morpheus jobs: the squeue of placements: job, user, pod, hot blades with bytes and latency,
// cold blades, state; filters by user, job, pod and blade.
#include <jansson.h>
#include <pwd.h>

#include <cstdio>
#include <ctime>

#include "input_error.hpp"
#include "options.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

namespace {

std::string user_name(uint32_t uid) {
    struct passwd *pw = getpwuid(uid);
    return pw ? pw->pw_name : std::to_string(uid);
}

std::string segments(json_t *job, const char *use, bool with_latency) {
    std::string s;
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(job, "segments"), i, g) {
        if (std::string(json_string_value(json_object_get(g, "use"))) != use) continue;
        s += (s.empty() ? "" : ",") + std::string(json_string_value(json_object_get(g, "blade"))) + ":" +
             format_size(json_integer_value(json_object_get(g, "bytes")));
        if (with_latency) s += "@" + format_latency(json_integer_value(json_object_get(g, "latency_ns")));
    }
    return s.empty() ? "-" : s;
}

bool uses_blade(json_t *job, const std::string &blade) {
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(job, "segments"), i, g)
        if (blade == json_string_value(json_object_get(g, "blade"))) return true;
    return false;
}

// squeue's TIME: [days-]hours:minutes:seconds, or minutes:seconds under an hour.
std::string elapsed(int64_t s) {
    if (s < 0) s = 0;
    char buf[48];
    int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
    if (d) std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", (long long)d, (long long)h, (long long)m, (long long)sec);
    else if (h) std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)h, (long long)m, (long long)sec);
    else std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)m, (long long)sec);
    return buf;
}

}  // namespace

int cmd_jobs(int argc, char **argv) {
    StatusSource src;
    bool json = false, header = true;
    std::string user, pod, blade;
    long job = 0;
    enum { kJson = 1000, kPod, kBlade, kHelp };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"user", required_argument, nullptr, 'u'},
                                      {"jobs", required_argument, nullptr, 'j'},
                                      {"pod", required_argument, nullptr, kPod},
                                      {"blade", required_argument, nullptr, kBlade},
                                      {"json", no_argument, nullptr, kJson},
                                      {"noheader", no_argument, nullptr, 'h'},
                                      {"help", no_argument, nullptr, kHelp},
                                      {"usage", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:u:j:h", longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src)) continue;
        switch (c) {
        case 'u': user = optarg; break;
        case 'j': job = std::atol(optarg); break;
        case kPod: pod = optarg; break;
        case kBlade: blade = optarg; break;
        case kJson: json = true; break;
        case 'h': header = false; break;  // as squeue: -h is --noheader
        case kHelp:
            std::printf("usage: morpheus jobs [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
                        "                     [-u USER] [-j JOBID] [--pod POD] [--blade BLADE] [-h|--noheader] [--json]\n");
            return kOk;
        default: return kUsage;
        }
    }
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    if (!user.empty() && user.find_first_not_of("0123456789") != std::string::npos && !getpwnam(user.c_str()))
        throw InputError("", "-u", "invalid user: " + user);
    std::string text = fetch_status(src, "jobs");
    json_error_t err;
    json_t *root = json_loads(text.c_str(), 0, &err);
    if (!pod.empty()) {
        // An unknown pod is a typo to report, not an empty table (as squeue -p does).
        std::string status = fetch_status(src, "status");
        json_t *s = json_loads(status.c_str(), 0, &err);
        bool known = false;
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(s, "pods"), k, p) known = known || pod == json_string_value(json_object_get(p, "pod"));
        json_decref(s);
        if (!known) {
            json_decref(root);
            throw InputError("", "--pod", "invalid pod: " + pod, "see morpheus pools for the pods");
        }
    }
    json_t *kept = json_array();
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(root, "jobs"), i, j) {
        uint32_t uid = static_cast<uint32_t>(json_integer_value(json_object_get(j, "uid")));
        if (!user.empty() && user != user_name(uid) && user != std::to_string(uid)) continue;
        if (job && json_integer_value(json_object_get(j, "job_id")) != job) continue;
        json_t *pods = json_object_get(j, "pods");
        if (!pod.empty()) {
            std::string p = json_is_string(pods) ? json_string_value(pods) : "";
            if (("," + p + ",").find("," + pod + ",") == std::string::npos) continue;
        }
        if (!blade.empty() && !uses_blade(j, blade)) continue;
        json_object_set_new(j, "user", json_string(user_name(uid).c_str()));
        json_array_append(kept, j);
    }
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "jobs", kept);
        char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        std::printf("%s\n", s);
        std::free(s);
        json_decref(o);
    } else {
        Table t({"JOBID", "USER", "STATE", "TIME", "NODELIST", "POD", "HOT_BLADES", "COLD_BLADES", "REASON"});
        int64_t now = static_cast<int64_t>(std::time(nullptr));
        json_array_foreach(kept, i, j) {
            json_t *pods = json_object_get(j, "pods"), *reason = json_object_get(j, "reason");
            bool detail = json_object_get(j, "segments") != nullptr;
            json_t *since = json_object_get(j, "since"), *nodes = json_object_get(j, "nodes");
            t.add({std::to_string(json_integer_value(json_object_get(j, "job_id"))),
                   json_string_value(json_object_get(j, "user")), json_string_value(json_object_get(j, "state")),
                   json_is_integer(since) ? elapsed(now - json_integer_value(since)) : "-",
                   json_is_string(nodes) && *json_string_value(nodes) ? json_string_value(nodes) : "-",
                   json_is_string(pods) ? json_string_value(pods) : "-",
                   detail ? segments(j, "hot", true) : "-", detail ? segments(j, "cold", false) : "-",
                   json_is_string(reason) ? json_string_value(reason) : "-"});
        }
        std::fputs(t.render(header).c_str(), stdout);
        json_decref(kept);
    }
    json_decref(root);
    return kOk;
}

int cmd_explain(int argc, char **argv) {
    StatusSource src;
    bool json = false;
    enum { kJson = 1000 };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"json", no_argument, nullptr, kJson},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src)) continue;
        switch (c) {
        case kJson: json = true; break;
        case 'h': std::printf("usage: morpheus explain JOBID [--server HOST:PORT] [--json]\n"); return kOk;
        default: return kUsage;
        }
    }
    if (optind + 1 != argc) {
        std::fprintf(stderr, "morpheus explain: give one JOBID\n");
        return kUsage;
    }
    long job = std::atol(argv[optind]);
    if (job <= 0) throw InputError("", "JOBID", std::string("'") + argv[optind] + "' is not a job id");
    if (src.server.empty() && !std::getenv(MORPHEUS_ENV_SERVER))
        throw InputError("", "explain", "decisions live inside slurmctld",
                         "give --server HOST:PORT (StatusPort of morpheus.conf), or use 'morpheus place' for a dry run");
    std::string text = fetch_status(src, "explain", job);
    if (json) {
        std::fputs(text.c_str(), stdout);
        return kOk;
    }
    json_error_t err;
    json_t *root = json_loads(text.c_str(), 0, &err);
    std::printf("job %ld:", job);
    if (json_t *v = json_object_get(root, "verdict")) std::printf(" %s", json_string_value(v));
    std::printf("\n");
    if (json_t *h = json_object_get(root, "holding")) std::printf("holding: %s\n", json_string_value(h));
    if (json_t *e = json_object_get(root, "explanation")) std::fputs(json_string_value(e), stdout);
    json_decref(root);
    return kOk;
}

int cmd_metrics(int argc, char **argv) {
    StatusSource src;
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src)) continue;
        if (c == 'h') {
            std::printf("usage: morpheus metrics [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n");
            return kOk;
        }
        return kUsage;
    }
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    std::string text = fetch_status(src, "metrics");
    json_error_t err;
    json_t *root = json_loads(text.c_str(), 0, &err);
    std::fputs(json_string_value(json_object_get(root, "metrics")), stdout);
    json_decref(root);
    return kOk;
}

}  // namespace morpheus::cli
