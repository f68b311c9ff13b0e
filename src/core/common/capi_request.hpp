// A morpheus_request_t (the C ABI's request) as the core's Request. Shared by the controller's
// C ABI (capi.cpp) and the request entry points every plugin uses (capi_request.cpp).
#pragma once
#include "morpheus/morpheus.h"
#include "request.hpp"

namespace morpheus::capi {

Request to_request(const morpheus_request_t *r);

}  // namespace morpheus::capi
