// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include "mem/access.hpp"

namespace ndksim::mem {
namespace {

constexpr access lr = access::local_read;
constexpr access lw = access::local_write;
constexpr access rr = access::remote_read;
constexpr access rw = access::remote_write;
constexpr access sink = access::read_sink;

TEST(MrFlags, LocalReadIsAlwaysGranted) {
    EXPECT_EQ(access_from_mr_flags(ndk_flags::mr_allow_local_read), lr);
}

TEST(MrFlags, RemoteWriteValueIncludesLocalWrite) {
    EXPECT_EQ(access_from_mr_flags(ndk_flags::mr_allow_remote_write), lr | lw | rw);
}

TEST(MrFlags, DistinctRemoteWriteBitStillImpliesLocalWrite) {
    EXPECT_EQ(access_from_mr_flags(0x4), lr | lw | rw);
}

TEST(MrFlags, EachFlagGrantsItsRight) {
    EXPECT_EQ(access_from_mr_flags(ndk_flags::mr_allow_local_write), lr | lw);
    EXPECT_EQ(access_from_mr_flags(ndk_flags::mr_allow_remote_read), lr | rr);
    EXPECT_EQ(access_from_mr_flags(ndk_flags::mr_rdma_read_sink), lr | sink);
    EXPECT_EQ(access_from_mr_flags(0xF), lr | lw | rr | rw | sink);
}

TEST(MrFlags, UnknownBitsGrantNothing) {
    EXPECT_EQ(access_from_mr_flags(0xFFFFFFF0u), lr);
}

TEST(OpFlags, RemoteWriteValueIncludesLocalWrite) {
    EXPECT_EQ(access_from_op_flags(ndk_flags::op_allow_remote_write), lr | lw | rw);
    EXPECT_EQ(access_from_op_flags(0x20), lr | lw | rw);
}

TEST(OpFlags, EachFlagGrantsItsRight) {
    EXPECT_EQ(access_from_op_flags(ndk_flags::op_allow_remote_read), lr | rr);
    EXPECT_EQ(access_from_op_flags(ndk_flags::op_allow_local_write), lr | lw);
    EXPECT_EQ(access_from_op_flags(ndk_flags::op_rdma_read_sink), lr | sink);
}

TEST(OpFlags, NonAccessFlagsAreIgnored) {
    // SILENT_SUCCESS, READ_FENCE, SEND_AND_SOLICIT_EVENT, INLINE, READ_LOCAL_INVALIDATE, DEFER.
    EXPECT_EQ(access_from_op_flags(0x1 | 0x2 | 0x4 | 0x40 | 0x100 | 0x200), lr);
}

TEST(Rights, EachOperationNeedsItsRight) {
    EXPECT_TRUE(rights_allow(lr, access_op::local_read, false));
    EXPECT_FALSE(rights_allow(lr, access_op::local_write, false));
    EXPECT_TRUE(rights_allow(lr | lw, access_op::local_write, false));
    EXPECT_FALSE(rights_allow(lr | lw, access_op::remote_read, false));
    EXPECT_TRUE(rights_allow(rr, access_op::remote_read, false));
    EXPECT_FALSE(rights_allow(rr, access_op::remote_write, false));
    EXPECT_TRUE(rights_allow(rw, access_op::remote_write, false));
}

TEST(Rights, ReadSinkNeedsTheReadSinkRightWhenTheAdapterRequiresIt) {
    EXPECT_FALSE(rights_allow(lr | lw, access_op::read_sink, false));
    EXPECT_TRUE(rights_allow(lr | lw | sink, access_op::read_sink, false));
    EXPECT_FALSE(rights_allow(lr | sink, access_op::read_sink, false));
}

TEST(Rights, ReadSinkNeedsOnlyLocalWriteWhenNotRequired) {
    EXPECT_TRUE(rights_allow(lr | lw, access_op::read_sink, true));
    EXPECT_FALSE(rights_allow(lr | sink, access_op::read_sink, true));
}

TEST(Rights, PrivilegedRightsNeverIncludeRemoteAccess) {
    EXPECT_EQ(privileged_rights & remote_rights, access::none);
    EXPECT_FALSE(rights_allow(privileged_rights, access_op::remote_read, true));
    EXPECT_FALSE(rights_allow(privileged_rights, access_op::remote_write, true));
    EXPECT_TRUE(rights_allow(privileged_rights, access_op::local_write, true));
}

TEST(OpTable, DescribesDirectionAndRemoteness) {
    EXPECT_EQ(op_traits(access_op::read_sink).name, "read_sink");
    EXPECT_TRUE(op_traits(access_op::remote_write).writes_host);
    EXPECT_TRUE(op_traits(access_op::remote_write).remote);
    EXPECT_FALSE(op_traits(access_op::local_read).writes_host);
    EXPECT_FALSE(op_traits(access_op::read_sink).remote);
}

}  // namespace
}  // namespace ndksim::mem
