// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include <ndksim/testkit/verifier.hpp>

namespace ndksim::testkit {
namespace {

// At exit every adapter of the binary is destroyed, so the process record is complete.
void print_process_coverage() {
    SIZE_T length = 0;
    if (ndksim_process_coverage(NDKSIM_COVERAGE_TABLE, nullptr, &length) !=
        STATUS_BUFFER_TOO_SMALL) {
        return;
    }
    std::string table(length, '\0');
    if (ndksim_process_coverage(NDKSIM_COVERAGE_TABLE, table.data(), &length) == STATUS_SUCCESS) {
        std::printf("\nndksim error-path coverage of this test binary:\n%s", table.c_str());
        std::fflush(stdout);
    }
}

}  // namespace

void print_coverage_at_exit_if_asked() {
    static std::once_flag once;
    std::call_once(once, [] {
        if (std::getenv("NDKSIM_COVERAGE") != nullptr) {
            std::atexit(print_process_coverage);
        }
    });
}

}  // namespace ndksim::testkit
