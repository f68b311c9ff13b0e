// Live or offline status, through the same answer_status_query() either way.
#include "status_source.hpp"

#include <jansson.h>
#include <unistd.h>

#include <cstdlib>

#include "decision_log.hpp"
#include "input_error.hpp"
#include "ledger.hpp"
#include "status_queries.hpp"
#include "status_service.hpp"

namespace morpheus::cli {

bool take_status_option(int c, const char *arg, StatusSource &s) {
    switch (c) {
    case 'c': s.files.conf = arg; return true;
    case kOptServer: s.server = arg; return true;
    case kOptState: s.files.state = arg; return true;
    default: return false;
    }
}

std::string fetch_status(StatusSource &s, const std::string &op, long job) {
    if (s.server.empty()) {
        const char *env = std::getenv("MORPHEUS_SERVER");
        if (env && *env && s.files.fabric.empty()) s.server = env;
    }
    std::string query = "{\"op\": \"" + op + "\", \"job\": " + std::to_string(job) + "}";
    std::string reply;
    if (!s.server.empty()) {
        size_t colon = s.server.rfind(':');
        if (colon == std::string::npos)
            throw InputError("", "--server", "'" + s.server + "' has no port", "write HOST:PORT, e.g. ctl1:6820");
        int port = std::atoi(s.server.c_str() + colon + 1);
        if (port <= 0 || port > 65535) throw InputError("", "--server", "bad port in '" + s.server + "'");
        reply = query_status_service(s.server.substr(0, colon), static_cast<uint16_t>(port), query);
    } else {
        Config conf;
        ClusterModel model = load_model(s.files, &conf);
        std::string state = s.files.state.empty() ? conf.state_file : s.files.state;
        Ledger ledger = state.empty() ? Ledger(model.fabric().blades.size()) : Ledger::load(state, model.fabric());
        DecisionLog none;
        uid_t uid = getuid();
        reply = answer_status_query(model, ledger, none, uid, uid == 0, query);
    }
    json_error_t err;
    json_t *doc = json_loads(reply.c_str(), 0, &err);
    if (!doc) throw InputError(s.server.empty() ? "status" : s.server, "", std::string("unreadable answer: ") + err.text);
    json_t *e = json_object_get(doc, "error");
    std::string message = json_is_string(e) ? json_string_value(e) : "";
    json_decref(doc);
    if (!message.empty()) throw InputError(s.server.empty() ? "" : s.server, "", message);
    return reply;
}

}  // namespace morpheus::cli
