// SPDX-License-Identifier: MIT
#pragma once
// The test kit's side of the NDK verifier (docs/verifier.md): the mode its fixtures give their
// adapters, and a recorder of the reports a test in report mode expects.
//
// The fixtures run every adapter with the verifier in break mode, so a consumer's test stops
// at the first broken NDKPI rule with the report on stderr; a test that checks a rule on
// purpose sets report mode on its fixture and reads the reports through verifier_log.
// NDKSIM_VERIFIER, when set, decides instead (off, report or break).

#include <cstdlib>
#include <initializer_list>
#include <mutex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <ndksim/ndksim.h>

namespace ndksim::testkit {

/// The verifier mode of the kit's adapters: NDKSIM_VERIFIER_DEFAULT (the variable decides)
/// when NDKSIM_VERIFIER is set, otherwise NDKSIM_VERIFIER_BREAK.
inline ndksim_verifier_mode kit_verifier_mode() {
    return std::getenv("NDKSIM_VERIFIER") != nullptr ? NDKSIM_VERIFIER_DEFAULT
                                                     : NDKSIM_VERIFIER_BREAK;
}

/// Marks calls that break a verifier rule on purpose (a negative test of the provider's
/// answer): while it lives, each adapter given runs in report mode instead of break mode, and
/// when it ends it checks that `rule` was reported on one of them, then restores their modes.
/// An adapter whose verifier is off stays off, and then nothing is expected.
class expect_violation {
  public:
    /// Switches each of `nics` whose verifier is on to report mode and notes its count of
    /// `rule` reports.
    expect_violation(ULONG rule, std::initializer_list<ndksim_adapter*> nics) : rule_(rule) {
        for (ndksim_adapter* nic : nics) {
            const ndksim_verifier_mode mode = ndksim_adapter_verifier_mode(nic);
            if (mode == NDKSIM_VERIFIER_OFF) {
                continue;
            }
            saved_.push_back(saved{nic, mode, ndksim_adapter_verifier_rule_reports(nic, rule)});
            ndksim_adapter_set_verifier(nic, NDKSIM_VERIFIER_REPORT);
        }
    }
    /// Expects at least one new report of the rule, then restores each adapter's mode.
    ~expect_violation() {
        ULONG64 reported = 0;
        for (const saved& s : saved_) {
            reported += ndksim_adapter_verifier_rule_reports(s.nic, rule_) - s.reports;
            ndksim_adapter_set_verifier(s.nic, s.mode);
        }
        if (!saved_.empty()) {
            EXPECT_LE(1U, reported) << "the verifier did not report rule " << rule_ << " ("
                                    << ndksim_verifier_rule_key(rule_) << ")";
        }
    }
    expect_violation(const expect_violation&) = delete;
    expect_violation& operator=(const expect_violation&) = delete;

  private:
    struct saved {
        ndksim_adapter* nic;
        ndksim_verifier_mode mode;
        ULONG64 reports;
    };
    ULONG rule_;
    std::vector<saved> saved_;
};

/// With NDKSIM_COVERAGE set (which also keeps every adapter's coverage record), prints the
/// error-path coverage table of all the binary's adapters (ndksim_process_coverage) to stdout
/// when the test binary exits. The fixtures call it; calling it again does nothing.
void print_coverage_at_exit_if_asked();

/// One report as a test keeps it.
struct verifier_record {
    ULONG rule = 0;
    std::string key;
    std::string object;
    std::string call;
    NTSTATUS status = 0;
    std::string detail;
    std::string backtrace;
    std::string text;
};

/// Registers itself as the process's verifier callback while it lives, and keeps every report.
/// Thread-safe (a report arrives on the thread that broke the rule).
class verifier_log {
  public:
    /// Becomes the process's verifier callback.
    verifier_log() { ndksim_verifier_set_callback(&verifier_log::on_report, this); }
    /// Removes the callback.
    ~verifier_log() { ndksim_verifier_set_callback(nullptr, nullptr); }
    verifier_log(const verifier_log&) = delete;
    verifier_log& operator=(const verifier_log&) = delete;

    /// Every report so far.
    std::vector<verifier_record> records() const {
        std::lock_guard lock(mutex_);
        return records_;
    }

    /// Reports of `rule` so far.
    std::size_t count(ULONG rule) const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const verifier_record& r : records_) {
            n += r.rule == rule ? 1 : 0;
        }
        return n;
    }

    /// Number of reports so far.
    std::size_t size() const {
        std::lock_guard lock(mutex_);
        return records_.size();
    }

  private:
    static void on_report(const ndksim_verifier_report* r, void* context) {
        auto* self = static_cast<verifier_log*>(context);
        std::lock_guard lock(self->mutex_);
        self->records_.push_back(verifier_record{r->rule, r->rule_key, r->object, r->call,
                                                 r->status, r->detail, r->backtrace, r->text});
    }

    mutable std::mutex mutex_;
    std::vector<verifier_record> records_;
};

}  // namespace ndksim::testkit
