// morpheus ckpt: a job's checkpoint window, for a training loop's shell or launcher. Reads only
// the MORPHEUS_CKPT_* environment select/morpheus gave the job, through morpheus_ckpt.h (the
// same call a C or Python loop makes), so it costs nothing to ask at every step.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include "commands.hpp"
#include "morpheus/morpheus_ckpt.h"

namespace morpheus::cli {
namespace {

void ckpt_usage(FILE *out) {
    std::fprintf(out,
                 "usage: morpheus ckpt [--now UNIX-SECONDS] [--json | --wait | --env]\n"
                 "  Is this job's checkpoint window open? Exit 0: open (stdout: seconds it stays open);\n"
                 "  3: closed (stdout: seconds until it opens); 1: the job has no checkpoint window.\n"
                 "  --wait  sleep until the window opens, then exit 0\n"
                 "  --json  the window, whether it is open, the seconds, and the restore state\n"
                 "  --env   NAME=VALUE lines that put the process writing the checkpoint on the fabric's\n"
                 "          bulk traffic class (NCCL_IB_SL, UCX_IB_SL, NCCL_IB_TC, UCX_IB_TRAFFIC_CLASS), when\n"
                 "          the fabric names one; for the writer, not for the training's collectives\n");
}

const char *env_or(const char *name, const char *fallback) {
    const char *v = std::getenv(name);
    return v ? v : fallback;
}

}  // namespace

int cmd_ckpt(int argc, char **argv) {
    int64_t now = static_cast<int64_t>(std::time(nullptr));
    bool json = false, wait = false, env = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--json")) {
            json = true;
        } else if (!std::strcmp(argv[i], "--wait")) {
            wait = true;
        } else if (!std::strcmp(argv[i], "--env")) {
            env = true;
        } else if (!std::strcmp(argv[i], "--now") && i + 1 < argc) {
            char *end;
            now = std::strtoll(argv[++i], &end, 10);
            if (*end) {
                std::fprintf(stderr, "morpheus ckpt: --now %s: expected unix seconds\n", argv[i]);
                return kUsage;
            }
        } else if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
            ckpt_usage(stdout);
            return kOk;
        } else {
            std::fprintf(stderr, "morpheus ckpt: unknown option '%s'\n", argv[i]);
            ckpt_usage(stderr);
            return kUsage;
        }
    }
    if (env) {
        const char *sl = std::getenv(MORPHEUS_ENV_CKPT_IB_SL), *tc = std::getenv(MORPHEUS_ENV_CKPT_TRAFFIC_CLASS);
        if (sl) std::printf("NCCL_IB_SL=%s\nUCX_IB_SL=%s\n", sl, sl);
        if (tc) std::printf("NCCL_IB_TC=%s\nUCX_IB_TRAFFIC_CLASS=%s\n", tc, tc);
        return kOk;
    }
    morpheus_ckpt_window_spec_t w;
    if (morpheus_ckpt_window_from_env(&w) < 0) {
        std::fprintf(stderr, "morpheus ckpt: %s\n",
                     errno == ENOENT ? "this job has no checkpoint window (no " MORPHEUS_ENV_CKPT_PERIOD
                                       "; submit with --ckpt-size and --ckpt-period under select/morpheus)"
                                     : "MORPHEUS_CKPT_PERIOD, _PHASE or _WINDOW out of range");
        return kInputError;
    }
    int open = 0;
    int64_t seconds = 0;
    morpheus_ckpt_window_at(&w, now, &open, &seconds);
    if (wait && !open) {
        // Sleep in steps: a window is whole seconds, and the clock may be stepped meanwhile.
        while (!open) {
            struct timespec ts = {static_cast<time_t>(seconds > 0 ? seconds : 1), 0};
            nanosleep(&ts, nullptr);
            morpheus_ckpt_window_at(&w, static_cast<int64_t>(std::time(nullptr)), &open, &seconds);
        }
    }
    if (json) {
        std::printf(
            "{\"open\": %s, \"seconds\": %lld, \"period_s\": %lld, \"phase_s\": %lld, \"window_s\": %lld, "
            "\"restore\": %s, \"region\": \"%s\", \"copies\": \"%s\"}\n",
            open ? "true" : "false", static_cast<long long>(seconds), static_cast<long long>(w.period_s),
            static_cast<long long>(w.phase_s), static_cast<long long>(w.length_s),
            morpheus_ckpt_restore() ? "true" : "false", env_or(MORPHEUS_ENV_CKPT_REGION, ""),
            env_or(MORPHEUS_ENV_CKPT_COPIES, ""));
    } else {
        std::printf("%lld\n", static_cast<long long>(seconds));
    }
    return open ? kOk : kPending;
}

}  // namespace morpheus::cli
