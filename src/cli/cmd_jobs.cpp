// morpheus jobs: the squeue of placements: job, user, pod, hot blades with bytes and latency,
// cold blades, state; filters by user, job, pod and blade.
#include <jansson.h>
#include <pwd.h>
#include <unistd.h>

#include <csignal>
#include <mutex>

#include <cctype>
#include <cstdio>
#include <ctime>

#include "input_error.hpp"
#include "options.hpp"
#include "status_service.hpp"
#include "status_source.hpp"
#include "table.hpp"
#include "units.hpp"
#include "view.hpp"
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
    json_array_foreach(json_object_get(job, "segments"), i,
                       g) if (blade == json_string_value(json_object_get(g, "blade"))) return true;
    return false;
}

// squeue's TIME: [days-]hours:minutes:seconds, or minutes:seconds under an hour.
std::string elapsed(int64_t s) {
    if (s < 0) s = 0;
    char buf[48];
    int64_t d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60, sec = s % 60;
    if (d)
        std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", (long long)d, (long long)h, (long long)m,
                      (long long)sec);
    else if (h)
        std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", (long long)h, (long long)m, (long long)sec);
    else
        std::snprintf(buf, sizeof buf, "%lld:%02lld", (long long)m, (long long)sec);
    return buf;
}

}  // namespace

namespace {

const std::vector<Field> kJobFields = {{"jobid", 'i', "JOBID"},           {"user", 'u', "USER"},
                                       {"state", 't', "STATE"},           {"time", 'M', "TIME"},
                                       {"nodelist", 'N', "NODELIST"},     {"pod", 'P', "POD"},
                                       {"hot_blades", 'h', "HOT_BLADES"}, {"cold_blades", 'c', "COLD_BLADES"},
                                       {"reason", 'r', "REASON"}};

// The default table cuts reasons here, as squeue's default format keeps its columns: the
// whole text is in --json and in morpheus explain.
constexpr size_t kReasonWidth = 72;  // kPendingReasonMax: the core's own reasons are never cut

// squeue -t takes PD and R for PENDING and RUNNING.
std::string job_state_word(std::string s) {
    for (char &ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (s == "pd") return "pending";
    if (s == "r") return "running";
    return s;
}

std::vector<std::string> job_row(json_t *j, int64_t now) {
    json_t *pods = json_object_get(j, "pods"), *reason = json_object_get(j, "reason");
    bool detail = json_object_get(j, "segments") != nullptr;
    json_t *since = json_object_get(j, "since"), *nodes = json_object_get(j, "nodes");
    return {std::to_string(json_integer_value(json_object_get(j, "job_id"))),
            json_string_value(json_object_get(j, "user")),
            json_string_value(json_object_get(j, "state")),
            json_is_integer(since) ? elapsed(now - json_integer_value(since)) : "-",
            json_is_string(nodes) && *json_string_value(nodes) ? json_string_value(nodes) : "-",
            json_is_string(pods) ? json_string_value(pods) : "-",
            detail ? segments(j, "hot", true) : "-",
            detail ? segments(j, "cold", false) : "-",
            json_is_string(reason) ? json_string_value(reason) : "-"};
}

}  // namespace

int cmd_jobs(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    std::string blade;
    enum { kBlade = 1000, kHelp };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"user", required_argument, nullptr, 'u'},
                                      {"users", required_argument, nullptr, 'u'},
                                      {"jobs", required_argument, nullptr, 'j'},
                                      {"blade", required_argument, nullptr, kBlade},
                                      MORPHEUS_VIEW_LONG_OPTIONS,
                                      {"help", no_argument, nullptr, kHelp},
                                      {"usage", no_argument, nullptr, kHelp},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, (std::string("c:u:j:") + kViewShortOptions).c_str(), longopts, nullptr)) !=
           -1) {
        if (take_status_option(c, optarg, src) || take_view_option(c, optarg, v)) continue;
        switch (c) {
        case 'u':
            for (const std::string &u : split_list(optarg)) v.users.push_back(u);
            break;
        case 'j':
            for (const std::string &j : split_list(optarg)) {
                if (j.find_first_not_of("0123456789") != std::string::npos || j.size() > 10 ||
                    std::atol(j.c_str()) <= 0)
                    throw InputError("", "-j", "'" + j + "' is not a job id", "give job ids, e.g. -j 42,43");
                v.jobs.push_back(std::to_string(std::atol(j.c_str())));
            }
            break;
        case kBlade: blade = optarg; break;
        case kHelp:
            std::printf(
                "usage: morpheus jobs [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
                "                     [-u USER,...] [-j JOBID,...] [-p POD,...] [-t STATE,...] [--blade BLADE]\n"
                "                     [-o FORMAT | -O FIELD[:[.]WIDTH],...] [-h|--noheader] [-i SECONDS]\n"
                "                     [--json|--yaml]\n"
                "fields: jobid(%%i) user(%%u) state(%%t) time(%%M) nodelist(%%N) pod(%%P) hot_blades(%%h)\n"
                "        cold_blades(%%c) reason(%%r); states: running, affected, pending (PD), impossible\n");
            return kOk;
        default: return kUsage;
        }
    }
    if (!v.format.empty() && !v.Format.empty()) throw InputError("", "-o", "give -o or -O, not both");
    for (const std::string &u : v.users)
        if (u.find_first_not_of("0123456789") != std::string::npos && !getpwnam(u.c_str()))
            throw InputError("", "-u", "invalid user: " + u);
    std::vector<std::string> states;
    for (const std::string &s : v.states) states.push_back(job_state_word(s));
    require_known(states, {"running", "affected", "pending", "impossible"}, "-t", "job state",
                  "use running (R), affected, pending (PD) or impossible");
    Layout layout = !v.format.empty()   ? parse_format(v.format, kJobFields)
                    : !v.Format.empty() ? parse_Format(v.Format, kJobFields)
                                        : all_fields(kJobFields, {"jobid", "user", "state", "time", "nodelist", "pod",
                                                                  "hot_blades", "cold_blades", "reason"});
    if (v.format.empty() && v.Format.empty()) layout.columns[0].right = layout.columns[3].right = true;  // as squeue
    const bool cut_reasons = v.format.empty() && v.Format.empty();
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    return run_view(v, [&] {
        if (!v.pods.empty()) {
            // An unknown pod is a typo to report, not an empty table (as squeue -p does).
            json_t *s = fetch_document(src, "status");
            std::vector<std::string> known;
            size_t k;
            json_t *p;
            json_array_foreach(json_object_get(s, "pods"), k, p)
                known.push_back(json_string_value(json_object_get(p, "pod")));
            json_decref(s);
            require_known(v.pods, known, "-p", "pod", "see the POD column of morpheus pools");
        }
        json_t *root = fetch_document(src, "jobs");
        // A job id that names no job is an error, as squeue -j says "Invalid job id specified".
        size_t i;
        json_t *j;
        for (const std::string &id : v.jobs) {
            bool seen = false;
            json_array_foreach(json_object_get(root, "jobs"), i, j) seen =
                seen || std::to_string(json_integer_value(json_object_get(j, "job_id"))) == id;
            if (!seen) {
                json_decref(root);
                throw InputError("", "-j", "invalid job id: " + id,
                                 "Morpheus knows the jobs that hold blade memory and those it holds pending");
            }
        }
        json_t *kept = json_array();
        json_array_foreach(json_object_get(root, "jobs"), i, j) {
            uint32_t uid = static_cast<uint32_t>(json_integer_value(json_object_get(j, "uid")));
            bool user_ok = v.users.empty();
            for (const std::string &u : v.users) user_ok = user_ok || u == user_name(uid) || u == std::to_string(uid);
            if (!user_ok) continue;
            if (!v.jobs.empty() && !listed(v.jobs, std::to_string(json_integer_value(json_object_get(j, "job_id")))))
                continue;
            if (!states.empty() && !listed(states, json_string_value(json_object_get(j, "state")))) continue;
            json_t *pods = json_object_get(j, "pods");
            if (!v.pods.empty()) {
                std::string p = json_is_string(pods) ? json_string_value(pods) : "";
                bool any = false;
                for (const std::string &want : v.pods)
                    any = any || ("," + p + ",").find("," + want + ",") != std::string::npos;
                if (!any) continue;
            }
            if (!blade.empty() && !uses_blade(j, blade)) continue;
            json_object_set_new(j, "user", json_string(user_name(uid).c_str()));
            json_array_append(kept, j);
        }
        json_decref(root);
        std::string out;
        if (v.output != ViewOptions::Text) {
            json_t *o = json_object();
            json_object_set_new(o, "jobs", kept);
            out = dump_document(o, v.output);
            json_decref(o);
            return out;
        }
        std::vector<std::vector<std::string>> rows;
        int64_t now = static_cast<int64_t>(std::time(nullptr));
        json_array_foreach(kept, i, j) {
            rows.push_back(job_row(j, now));
            std::string &reason = rows.back().back();
            if (cut_reasons && reason.size() > kReasonWidth) reason = reason.substr(0, kReasonWidth - 3) + "...";
        }
        json_decref(kept);
        return render_layout(layout, kJobFields, rows, v.header);
    });
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
        throw InputError(
            "", "explain", "decisions live inside slurmctld",
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

namespace {

std::string metrics_of(StatusSource &src) {
    json_t *root = fetch_document(src, "metrics");
    std::string out =
        json_is_string(json_object_get(root, "metrics")) ? json_string_value(json_object_get(root, "metrics")) : "";
    json_decref(root);
    return out;
}

volatile sig_atomic_t stop_serving = 0;
void on_stop(int) { stop_serving = 1; }

// --http [ADDRESS:]PORT: the same text over HTTP for Prometheus, from the files (or the live
// service) at each scrape, until SIGINT or SIGTERM. Aggregate figures only: no job, no user.
int serve_metrics(StatusSource &src, const std::string &listen) {
    StatusServiceOptions o;
    o.http = true;
    size_t colon = listen.rfind(':');
    o.address = colon == std::string::npos ? "127.0.0.1" : listen.substr(0, colon);
    std::string port = colon == std::string::npos ? listen : listen.substr(colon + 1);
    char *end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end || p < 0 || p > 65535)
        throw InputError("", "--http", "'" + listen + "' is not [ADDRESS:]PORT",
                         "e.g. --http 127.0.0.1:9820 (0: any free port)");
    o.port = static_cast<uint16_t>(p);
    metrics_of(src);  // a bad source fails now, not at the first scrape
    std::mutex lock;
    StatusService service(std::move(o), [&](uint32_t, bool, const std::string &) {
        std::lock_guard<std::mutex> g(lock);
        return metrics_of(src);
    });
    std::fprintf(stderr, "morpheus: serving http://%s:%u/metrics\n", service.options().address.c_str(), service.port());
    std::signal(SIGINT, on_stop);
    std::signal(SIGTERM, on_stop);
    while (!stop_serving) ::pause();
    return kOk;
}

}  // namespace

int cmd_metrics(int argc, char **argv) {
    StatusSource src;
    std::string http;
    enum { kHttp = 1000 };
    static const option longopts[] = {{"conf", required_argument, nullptr, 'c'},
                                      {"server", required_argument, nullptr, kOptServer},
                                      {"state", required_argument, nullptr, kOptState},
                                      {"http", required_argument, nullptr, kHttp},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "c:h", longopts, nullptr)) != -1) {
        if (take_status_option(c, optarg, src)) continue;
        if (c == kHttp) {
            http = optarg;
            continue;
        }
        if (c == 'h') {
            std::printf(
                "usage: morpheus metrics [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
                "                        [--http [ADDRESS:]PORT]\n");
            return kOk;
        }
        return kUsage;
    }
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    if (!http.empty()) return serve_metrics(src, http);
    std::fputs(metrics_of(src).c_str(), stdout);
    return kOk;
}

}  // namespace morpheus::cli
