// SPDX-License-Identifier: MIT
// Scripted fault injection (docs/fault-injection.md): one test per fault kind, each checking
// what the consumer sees, exactly, and that the same script and seed repeat it; and the
// coverage record of a known sequence of calls.

#include <string>
#include <vector>

#include <ndksim/testkit/rc_pair.hpp>
#include <nlohmann/json.hpp>

namespace ndksim::testkit {
namespace {

class Faults : public RcPair {
  protected:
    /// a writes 64 bytes to b's buffer; returns the completion's status.
    NTSTATUS write_once() {
        NDK_SGE s = a_.buf.sge(0, 64);
        const NTSTATUS posted = a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, b_.buf.address(),
                                                          b_.buf.remote_token, 0);
        if (posted != STATUS_SUCCESS) {
            return posted;
        }
        return next(a_.cq).Status;
    }

    /// `run` on this pair, then on a pair rebuilt from the same settings: both traces must be
    /// equal (the faults are seeded and repeat). Returns the first trace.
    template <class Run>
    std::vector<NTSTATUS> twice(Run run) {
        const std::vector<NTSTATUS> first = run();
        rebuild();
        const std::vector<NTSTATUS> second = run();
        EXPECT_EQ(first, second) << "the same script and seed repeat the same faults";
        return first;
    }

    /// NdkCreateMw on side a's PD `n` times (each window closed again; the pair's own setup
    /// creates none): the statuses, the returned ones and then, for a call that pended, its
    /// completion's. `took` gets each create's simulated time [ps].
    std::vector<NTSTATUS> create_mws(int n, std::vector<ULONG64>* took = nullptr) {
        std::vector<NTSTATUS> out;
        for (int i = 0; i < n; ++i) {
            slot created;
            NDK_MW* mw = nullptr;
            const ULONG64 start = ndksim_loop_now(loop_);
            NTSTATUS r = a_.pd->Dispatch->NdkCreateMw(a_.pd, slot::on_create, &created, &mw);
            out.push_back(r);
            if (r == STATUS_PENDING) {
                EXPECT_TRUE(wait(created, "NdkCreateMw's completion"));
                r = created.status;
                out.push_back(r);
                mw = reinterpret_cast<NDK_MW*>(created.object);
            }
            if (took != nullptr) {
                took->push_back(ndksim_loop_now(loop_) - start);
            }
            if (r == STATUS_SUCCESS) {
                close(&mw->Header);
            }
        }
        return out;
    }
};

class FailNth : public Faults {
  protected:
    // The pair's own setup makes the first NdkCreateMr of side a (its buffer's MR).
    FailNth() {
        a_faults_ = R"(
            [[call]]
            function = "NdkCreateMr"
            nth = 2
            status = "STATUS_INSUFFICIENT_RESOURCES"
        )";
    }
};

TEST_F(FailNth, TheNthCallOfAFunctionFailsWithTheScriptsStatus) {
    const std::vector<NTSTATUS> trace = twice([this] {
        std::vector<NTSTATUS> out;
        for (int i = 0; i < 2; ++i) {
            slot created;
            NDK_MR* mr = nullptr;
            out.push_back(
                a_.pd->Dispatch->NdkCreateMr(a_.pd, TRUE, slot::on_create, &created, &mr));
            EXPECT_EQ(0, created.calls) << "a call that does not pend calls no completion";
            if (out.back() == STATUS_SUCCESS) {
                close(&mr->Header);
            }
        }
        EXPECT_EQ(1U, ndksim_adapter_faults_fired(a_.nic));
        return out;
    });
    // The 2nd call of the adapter is the test's first (the pair registered its buffer first).
    const std::vector<NTSTATUS> expected{STATUS_INSUFFICIENT_RESOURCES, STATUS_SUCCESS};
    EXPECT_EQ(expected, trace);
}

class FailShare : public Faults {
  protected:
    FailShare() {
        a_faults_ = R"(
            seed = 7
            [[call]]
            function = "NdkCreateMw"
            share_percent = 50
            status = "STATUS_INSUFFICIENT_RESOURCES"
        )";
    }
};

TEST_F(FailShare, ASeededShareOfCallsFailsAndTheSameSeedRepeatsIt) {
    const std::vector<NTSTATUS> trace = twice([this] { return create_mws(32); });
    int failed = 0;
    for (NTSTATUS s : trace) {
        ASSERT_TRUE(s == STATUS_SUCCESS || s == STATUS_INSUFFICIENT_RESOURCES) << status_string(s);
        failed += s == STATUS_INSUFFICIENT_RESOURCES ? 1 : 0;
    }
    EXPECT_LT(0, failed) << "some calls fail";
    EXPECT_GT(32, failed) << "some calls succeed";
    EXPECT_EQ(static_cast<ULONG64>(failed), ndksim_adapter_faults_fired(a_.nic));
}

class ForcePend : public Faults {
  protected:
    // The pair runs in the inline style: every create finishes inside its call.
    ForcePend() {
        a_faults_ = R"(
            [[call]]
            function = "NdkCreatePd"
            nth = 2
            action = "pend"
        )";
    }
};

TEST_F(ForcePend, AChosenCallPendsAndCompletesThroughItsCallback) {
    // make_side created side a's PD (call 1); the test's first create is call 2.
    const std::vector<NTSTATUS> trace = twice([this] {
        std::vector<NTSTATUS> out;
        for (int i = 0; i < 2; ++i) {
            slot created;
            NDK_PD* pd = nullptr;
            const NTSTATUS r =
                a_.adapter->Dispatch->NdkCreatePd(a_.adapter, slot::on_create, &created, &pd);
            out.push_back(r);
            if (r == STATUS_PENDING) {
                EXPECT_EQ(nullptr, pd) << "rule 2: a pending create leaves the out-pointer";
                EXPECT_TRUE(wait(created, "the forced pending create's completion"));
                out.push_back(created.status);
                pd = reinterpret_cast<NDK_PD*>(created.object);
            }
            close(&pd->Header);
        }
        return out;
    });
    const std::vector<NTSTATUS> expected{STATUS_PENDING, STATUS_SUCCESS, STATUS_SUCCESS};
    EXPECT_EQ(expected, trace);
}

class DelayCallback : public Faults {
  protected:
    DelayCallback() {
        a_faults_ = R"(
            [[call]]
            function = "NdkCreateMw"
            share_percent = 100
            action = "pend"
            [[call]]
            function = "NdkCreateMw"
            nth = 2
            action = "delay"
            delay_us = 500
        )";
    }
};

TEST_F(DelayCallback, ACallbackIsDelayedByTheScriptsTime) {
    // Both creates pend; the second one's completion comes 500 us of simulated time later
    // than the first one's did.
    std::vector<ULONG64> took;
    const std::vector<NTSTATUS> trace = twice([this, &took] {
        took.clear();
        return create_mws(2, &took);
    });
    const std::vector<NTSTATUS> expected{STATUS_PENDING, STATUS_SUCCESS, STATUS_PENDING,
                                         STATUS_SUCCESS};
    EXPECT_EQ(expected, trace);
    ASSERT_EQ(2U, took.size());
    EXPECT_EQ(took[0] + 500'000'000ULL, took[1]) << "500 us [ps] later";
}

class CompletionError : public Faults {
  protected:
    CompletionError() {
        a_faults_ = R"(
            [[completion]]
            nth = 2
            action = "error"
            status = "STATUS_IO_TIMEOUT"
        )";
    }
};

TEST_F(CompletionError, TheNthRequestCompletesWithTheScriptsStatusAndTheConnectionEnds) {
    const std::vector<NTSTATUS> trace = twice([this] {
        std::vector<NTSTATUS> out{write_once(), write_once()};
        settle();
        out.push_back(write_once());  // the QP failed with the request: refused inline
        EXPECT_EQ(1, a_.disconnect_events) << "the connection was torn down";
        return out;
    });
    const std::vector<NTSTATUS> expected{STATUS_SUCCESS, STATUS_IO_TIMEOUT,
                                         STATUS_CONNECTION_INVALID};
    EXPECT_EQ(expected, trace);
}

class CqOverrun : public Faults {
  protected:
    CqOverrun() {
        a_faults_ = R"(
            [[completion]]
            nth = 1
            action = "overrun_cq"
        )";
    }
};

TEST_F(CqOverrun, TheCqOverrunsAndItsQpsBecomeUnusable) {
    const std::vector<NTSTATUS> trace = twice([this] {
        NDK_SGE s = a_.buf.sge(0, 64);
        std::vector<NTSTATUS> out{a_.qp->Dispatch->NdkWrite(a_.qp, nullptr, &s, 1, b_.buf.address(),
                                                            b_.buf.remote_token, 0)};
        EXPECT_TRUE(cq_empty(a_.cq)) << "rule 15: the overrunning completion is lost";
        out.push_back(write_once());
        return out;
    });
    const std::vector<NTSTATUS> expected{STATUS_SUCCESS, STATUS_CONNECTION_INVALID};
    EXPECT_EQ(expected, trace);
}

class DisconnectAfterBytes : public Faults {
  protected:
    DisconnectAfterBytes() {
        a_faults_ = R"(
            [[completion]]
            after_bytes = 128
            action = "disconnect"
        )";
    }
};

TEST_F(DisconnectAfterBytes, TheConnectionEndsOnceTheBytesAreThrough) {
    const std::vector<NTSTATUS> trace = twice([this] {
        std::vector<NTSTATUS> out{write_once()};
        EXPECT_EQ(0, a_.disconnect_events) << "64 bytes: not yet";
        out.push_back(write_once());
        settle();
        EXPECT_EQ(1, a_.disconnect_events) << "128 bytes: the connection ends";
        out.push_back(write_once());
        return out;
    });
    const std::vector<NTSTATUS> expected{STATUS_SUCCESS, STATUS_SUCCESS, STATUS_CONNECTION_INVALID};
    EXPECT_EQ(expected, trace);
}

class KillPeer : public Faults {
  protected:
    KillPeer() {
        a_faults_ = R"(
            [[call]]
            function = "NdkWrite"
            nth = 2
            action = "kill_peer"
        )";
    }
};

TEST_F(KillPeer, RequestsToADeadPeerTimeOut) {
    const std::vector<NTSTATUS> trace = twice([this] {
        std::vector<NTSTATUS> out{write_once(), write_once()};
        settle();
        EXPECT_EQ(1, a_.disconnect_events) << "retries exhausted: the connection is lost";
        return out;
    });
    const std::vector<NTSTATUS> expected{STATUS_SUCCESS, STATUS_IO_TIMEOUT};
    EXPECT_EQ(expected, trace);
}

class LinkFaultsInTheScript : public Faults {
  protected:
    LinkFaultsInTheScript() {
        a_faults_ = R"(
            seed = 11
            [link]
            duplicate_ppm = 500000
        )";
    }
};

TEST_F(LinkFaultsInTheScript, TheLinkFaultsOfTheScriptApplyAndRepeat) {
    std::vector<ULONG64> duplicated;
    twice([this, &duplicated] {
        std::vector<NTSTATUS> out;
        for (int i = 0; i < 16; ++i) {
            out.push_back(write_once());
        }
        ndksim_adapter_stats st{};
        st.size = sizeof st;
        EXPECT_NT_SUCCESS(ndksim_adapter_get_stats(a_.nic, &st));
        duplicated.push_back(st.fault_duplicated);
        return out;
    });
    ASSERT_EQ(2U, duplicated.size());
    EXPECT_LT(0U, duplicated[0]) << "half of a's frames are sent twice";
    EXPECT_EQ(duplicated[0], duplicated[1]) << "the same seed duplicates the same frames";
}

TEST(FaultScripts, AScriptThatDoesNotParseRefusesTheAdapter) {
    for (const char* bad : {
             "[[call]]\nfunction = \"NdkNoSuchFunction\"\nnth = 1\n",
             "[[call]]\nfunction = \"NdkCreatePd\"\n",  // neither nth nor share
             "[[call]]\nfunction = \"NdkCreatePd\"\nnth = 1\nstatus = \"STATUS_SUCCESS\"\n",
             "[[completion]]\nnth = 1\naction = \"explode\"\n",
             "[link]\ndrop_ppm = 2000000\n",
             "[[call]]\nfunction = \"NdkCreatePd\"\nnth = 1\nspeling = 1\n",
             "not toml at all [",
         }) {
        ndksim_adapter_config c;
        ndksim_adapter_config_init(&c);
        c.fault_script = bad;
        ndksim_loop* loop = nullptr;
        ASSERT_NT_SUCCESS(ndksim_loop_create(&loop));
        c.loop = loop;
        ndksim_adapter* nic = nullptr;
        EXPECT_NT_STATUS(STATUS_INVALID_PARAMETER, ndksim_adapter_create(&c, &nic)) << bad;
        ndksim_loop_destroy(loop);
    }
}

// ---- coverage --------------------------------------------------------------------------------

class Coverage : public Faults {
  protected:
    Coverage() {
        coverage_ = TRUE;
        a_faults_ = R"(
            [[call]]
            function = "NdkCreateCq"
            nth = 2
            status = "STATUS_INSUFFICIENT_RESOURCES"
        )";
    }

    std::string coverage(ndksim_coverage_format format) {
        SIZE_T length = 0;
        EXPECT_NT_STATUS(STATUS_BUFFER_TOO_SMALL,
                         ndksim_adapter_coverage(a_.nic, format, nullptr, &length));
        std::string text(length, '\0');
        EXPECT_NT_SUCCESS(ndksim_adapter_coverage(a_.nic, format, text.data(), &length));
        text.resize(length - 1);
        return text;
    }
};

TEST_F(Coverage, TheRecordMatchesWhatTheTestDid) {
    NDK_CQ* cq = nullptr;
    slot created;
    ASSERT_NT_STATUS(STATUS_INSUFFICIENT_RESOURCES,
                     a_.adapter->Dispatch->NdkCreateCq(a_.adapter, 16, nullptr, nullptr, nullptr,
                                                       slot::on_create, &created, &cq));
    EXPECT_NT_SUCCESS(write_once());
    const nlohmann::json doc = nlohmann::json::parse(coverage(NDKSIM_COVERAGE_JSON));
    // The pair's own setup created one CQ (call 1); the test's create (call 2) was injected.
    const nlohmann::json& create_cq = doc.at("returned").at("NdkCreateCq");
    EXPECT_EQ(1, create_cq.at("STATUS_SUCCESS").at("count"));
    EXPECT_EQ(0, create_cq.at("STATUS_SUCCESS").at("injected"));
    EXPECT_EQ(1, create_cq.at("STATUS_INSUFFICIENT_RESOURCES").at("count"));
    EXPECT_EQ(1, create_cq.at("STATUS_INSUFFICIENT_RESOURCES").at("injected"));
    EXPECT_EQ(1, doc.at("returned").at("NdkWrite").at("STATUS_SUCCESS").at("count"));
    EXPECT_EQ(1, doc.at("completion").at("Write").at("STATUS_SUCCESS").at("count"));
    EXPECT_FALSE(doc.at("completion").contains("Read")) << "no read was made";
    const std::string table = coverage(NDKSIM_COVERAGE_TABLE);
    EXPECT_NE(std::string::npos,
              table.find("STATUS_INSUFFICIENT_RESOURCES x1 [1], STATUS_SUCCESS x1"))
        << table;
}

}  // namespace
}  // namespace ndksim::testkit
