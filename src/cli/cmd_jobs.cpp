// morpheus jobs: the squeue of placements: job, user, pod, hot blades with bytes and latency,
// cold blades, state; filters by user, job, pod and blade.
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
#include "request.hpp"
#include "units.hpp"
#include "view.hpp"
#include "morpheus/morpheus_env.h"

namespace morpheus::cli {

namespace {

std::string user_name(uint32_t uid) {
    struct passwd *pw = getpwuid(uid);
    return pw ? pw->pw_name : std::to_string(uid);
}

std::string segments(const JobStatus &job, const char *use, bool with_latency) {
    std::string s;
    for (const SegmentStatus &g : job.detail->segments) {
        if (g.use != use) continue;
        s += (s.empty() ? "" : ",") + g.blade + ":" + format_size(g.bytes);
        if (with_latency) s += "@" + format_latency(g.latency_ns);
    }
    return s.empty() ? "-" : s;
}

bool uses_blade(const JobStatus &job, const std::string &blade) {
    if (job.detail)
        for (const SegmentStatus &g : job.detail->segments)
            if (g.blade == blade) return true;
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
                                       {"checkpoint", 'k', "CHECKPOINT"}, {"reason", 'r', "REASON"}};

// "blade1:600G@80ns window=+30s:26s/1m", with the copies left when a blade failed.
std::string checkpoint_words(const JobDetail &d) {
    if (!d.checkpoint) return "-";
    const CheckpointStatus &c = *d.checkpoint;
    std::string s = c.region + " window=+" + format_hot_wait(c.phase_s) + ":" + format_hot_wait(c.window_s) + "/" +
                    format_hot_wait(c.period_s);
    if (c.intact < c.copies)
        s += c.intact ? " copies=" + std::to_string(c.intact) + "/" + std::to_string(c.copies) : " LOST";
    if (c.waiting) s += " kept-for-restart";
    return s;
}

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

std::vector<std::string> job_row(const JobStatus &j, int64_t now) {
    const JobDetail *d = j.detail ? &*j.detail : nullptr;
    return {std::to_string(j.job_id),
            j.user.value_or(""),
            j.state.value_or(""),
            d ? elapsed(now - d->since) : "-",
            d && !d->nodes.empty() ? d->nodes : "-",
            d ? d->pods : "-",
            d ? segments(j, "hot", true) : "-",
            d ? segments(j, "cold", false) : "-",
            d ? checkpoint_words(*d) : "-",
            j.reason.value_or("-")};
}

// The filters of morpheus jobs, as squeue's: each list keeps what any of its entries names.
bool wanted(const JobStatus &j, const ViewOptions &v, const std::vector<std::string> &states,
            const std::string &blade) {
    bool user_ok = v.users.empty();
    for (const std::string &u : v.users) user_ok = user_ok || u == user_name(j.uid) || u == std::to_string(j.uid);
    if (!user_ok) return false;
    if (!v.jobs.empty() && !listed(v.jobs, std::to_string(j.job_id))) return false;
    if (!states.empty() && !listed(states, j.state.value_or(""))) return false;
    if (!v.pods.empty()) {
        std::string p = j.detail ? j.detail->pods : "";
        bool any = false;
        for (const std::string &want : v.pods) any = any || ("," + p + ",").find("," + want + ",") != std::string::npos;
        if (!any) return false;
    }
    return blade.empty() || uses_blade(j, blade);
}

}  // namespace

int cmd_jobs(int argc, char **argv) {
    StatusSource src;
    ViewOptions v;
    std::string blade;
    enum { kBlade = 1000 };
    if (int rc = parse_view_command(
            argc, argv,
            "usage: morpheus jobs [FABRIC INVENTORY | --conf FILE] [--state LEDGER] [--server HOST:PORT]\n"
            "                     [-u USER,...] [-j JOBID,...] [-p POD,...] [-t STATE,...] [--blade BLADE]\n"
            "                     [-o FORMAT | -O FIELD[:[.]WIDTH],...] [-h|--noheader] [-i SECONDS]\n"
            "                     [--json|--yaml]\n"
            "fields: jobid(%i) user(%u) state(%t) time(%M) nodelist(%N) pod(%P) hot_blades(%h)\n"
            "        cold_blades(%c) checkpoint(%k) reason(%r); states: running, affected, moving,\n"
            "        beyond-bound, requeued, pending (PD), impossible\n",
            src, v, "u:j:",
            {{"user", required_argument, nullptr, 'u'},
             {"users", required_argument, nullptr, 'u'},
             {"jobs", required_argument, nullptr, 'j'},
             {"blade", required_argument, nullptr, kBlade}},
            [&](int c, const char *arg) {
                switch (c) {
                case 'u':
                    for (const std::string &u : split_list(arg)) v.users.push_back(u);
                    return kGoOn;
                case 'j': take_job_ids(arg, "-j", v.jobs); return kGoOn;
                case kBlade: blade = arg; return kGoOn;
                default: return static_cast<int>(kUsage);
                }
            });
        rc != kGoOn)
        return rc;
    for (const std::string &u : v.users)
        if (u.find_first_not_of("0123456789") != std::string::npos && !getpwnam(u.c_str()))
            throw InputError("", "-u", "invalid user: " + u);
    std::vector<std::string> states;
    for (const std::string &s : v.states) states.push_back(job_state_word(s));
    require_known(states, {"running", "affected", "moving", "beyond-bound", "requeued", "pending", "impossible"}, "-t",
                  "job state", "use running (R), affected, moving, beyond-bound, requeued, pending (PD) or impossible");
    Layout layout = !v.format.empty()   ? parse_format(v.format, kJobFields)
                    : !v.Format.empty() ? parse_Format(v.Format, kJobFields)
                                        : all_fields(kJobFields, {"jobid", "user", "state", "time", "nodelist", "pod",
                                                                  "hot_blades", "cold_blades", "checkpoint", "reason"});
    if (v.format.empty() && v.Format.empty()) layout.columns[0].right = layout.columns[3].right = true;  // as squeue
    const bool cut_reasons = v.format.empty() && v.Format.empty();
    return run_view(v, [&] {
        if (!v.pods.empty()) {
            // An unknown pod is a typo to report, not an empty table (as squeue -p does).
            std::vector<std::string> known;
            for (const PodStatus &p : fetch<StatusSnapshot>(src, "status").pods) known.push_back(p.pod);
            require_known(v.pods, known, "-p", "pod", "see the POD column of morpheus pools");
        }
        JobList all = fetch<JobList>(src, "jobs");
        // A job id that names no job is an error, as squeue -j says "Invalid job id specified".
        for (const std::string &id : v.jobs) {
            bool seen = false;
            for (const JobStatus &j : all.jobs) seen = seen || std::to_string(j.job_id) == id;
            if (!seen)
                throw InputError("", "-j", "invalid job id: " + id,
                                 "Morpheus knows the jobs that hold blade memory and those it holds pending");
        }
        JobList kept;
        for (JobStatus &j : all.jobs) {
            if (!wanted(j, v, states, blade)) continue;
            j.user = user_name(j.uid);
            kept.jobs.push_back(std::move(j));
        }
        if (v.output != ViewOptions::Text) return dump_value(kept, v.output);
        std::vector<std::vector<std::string>> rows;
        int64_t now = static_cast<int64_t>(std::time(nullptr));
        for (const JobStatus &j : kept.jobs) {
            rows.push_back(job_row(j, now));
            std::string &reason = rows.back().back();
            if (cut_reasons && reason.size() > kReasonWidth) reason = reason.substr(0, kReasonWidth - 3) + "...";
        }
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
    if (int rc = parse_options(argc, argv, "c:h", longopts,
                               [&](int c, const char *arg) {
                                   if (take_status_option(c, arg, src)) return kGoOn;
                                   switch (c) {
                                   case kJson: json = true; return kGoOn;
                                   case 'h':
                                       std::printf("usage: morpheus explain JOBID [--server HOST:PORT] [--json]\n");
                                       return static_cast<int>(kOk);
                                   default: return static_cast<int>(kUsage);
                                   }
                               });
        rc != kGoOn)
        return rc;
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
    ExplainAnswer answer = from_json<ExplainAnswer>(text, src.server.empty() ? "status" : src.server);
    std::printf("job %ld:", job);
    if (answer.decision) std::printf(" %s", answer.decision->verdict.c_str());
    std::printf("\n");
    if (answer.holding) std::printf("holding: %s\n", answer.holding->c_str());
    if (answer.decision) std::fputs(answer.decision->explanation.c_str(), stdout);
    return kOk;
}

namespace {

std::string metrics_of(StatusSource &src) { return fetch<MetricsAnswer>(src, "metrics").text; }

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
    StatusService service(std::move(o), [&](const Credential &, bool) {
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
    if (int rc = parse_options(argc, argv, "c:h", longopts,
                               [&](int c, const char *arg) {
                                   if (take_status_option(c, arg, src)) return kGoOn;
                                   if (c == kHttp) {
                                       http = arg;
                                       return kGoOn;
                                   }
                                   if (c != 'h') return static_cast<int>(kUsage);
                                   std::printf(
                                       "usage: morpheus metrics [FABRIC INVENTORY | --conf FILE] [--state LEDGER] "
                                       "[--server HOST:PORT]\n"
                                       "                        [--http [ADDRESS:]PORT]\n");
                                   return static_cast<int>(kOk);
                               });
        rc != kGoOn)
        return rc;
    take_positional_sources(src.files, std::vector<std::string>(argv + optind, argv + argc));
    if (!http.empty()) return serve_metrics(src, http);
    std::fputs(metrics_of(src).c_str(), stdout);
    return kOk;
}

}  // namespace morpheus::cli
