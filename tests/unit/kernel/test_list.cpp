// SPDX-License-Identifier: MIT
#include <gtest/gtest.h>

#include <vector>

#include "kernel_test.hpp"
#include "wdm.h"

namespace ndksim::kernel::test {
namespace {

using List = KernelTest;

struct Item {
    int value;
    LIST_ENTRY link;
    SINGLE_LIST_ENTRY single;
};

// The values from head to tail, checking every back link on the way.
std::vector<int> values(const LIST_ENTRY& head) {
    std::vector<int> out;
    for (const LIST_ENTRY* e = head.Flink; e != &head; e = e->Flink) {
        EXPECT_EQ(e->Flink->Blink, e);
        out.push_back(CONTAINING_RECORD(e, Item, link)->value);
    }
    return out;
}

TEST_F(List, InsertAndRemoveAtBothEnds) {
    LIST_ENTRY head;
    InitializeListHead(&head);
    EXPECT_TRUE(IsListEmpty(&head));
    Item a{1, {}, {}};
    Item b{2, {}, {}};
    Item c{3, {}, {}};
    InsertTailList(&head, &b.link);
    InsertHeadList(&head, &a.link);
    InsertTailList(&head, &c.link);
    EXPECT_FALSE(IsListEmpty(&head));
    EXPECT_EQ(values(head), (std::vector<int>{1, 2, 3}));
    EXPECT_EQ(RemoveHeadList(&head), &a.link);
    EXPECT_EQ(RemoveTailList(&head), &c.link);
    EXPECT_EQ(values(head), (std::vector<int>{2}));
    EXPECT_TRUE(RemoveEntryList(&b.link)) << "the list is empty afterwards";
    EXPECT_TRUE(IsListEmpty(&head));
    EXPECT_EQ(RemoveHeadList(&head), &head) << "an empty list returns its head";
}

TEST_F(List, RemoveEntryFromTheMiddle) {
    LIST_ENTRY head;
    InitializeListHead(&head);
    Item items[3] = {{1, {}, {}}, {2, {}, {}}, {3, {}, {}}};
    for (Item& item : items) {
        InsertTailList(&head, &item.link);
    }
    EXPECT_FALSE(RemoveEntryList(&items[1].link));
    EXPECT_EQ(values(head), (std::vector<int>{1, 3}));
}

TEST_F(List, CorruptLinksAreAViolation) {
    LIST_ENTRY head;
    InitializeListHead(&head);
    Item a{1, {}, {}};
    Item b{2, {}, {}};
    InsertTailList(&head, &a.link);
    InsertTailList(&head, &b.link);
    a.link.Flink = &head;  // b's back link still points at a: the list is corrupt
    EXPECT_EQ(violations_of([&] { RemoveEntryList(&a.link); }), 1U);
    EXPECT_EQ(violations_of([&] { InsertHeadList(&head, &b.link); }), 0U);
    LIST_ENTRY broken;
    InitializeListHead(&broken);
    LIST_ENTRY stray;
    InitializeListHead(&stray);
    broken.Blink = &stray;  // the tail does not point back at the head
    Item c{3, {}, {}};
    EXPECT_EQ(violations_of([&] { InsertTailList(&broken, &c.link); }), 1U);
}

TEST_F(List, SinglyLinkedListIsLastInFirstOut) {
    SINGLE_LIST_ENTRY head;
    head.Next = nullptr;
    EXPECT_EQ(PopEntryList(&head), nullptr);
    Item a{1, {}, {}};
    Item b{2, {}, {}};
    PushEntryList(&head, &a.single);
    PushEntryList(&head, &b.single);
    EXPECT_EQ(CONTAINING_RECORD(PopEntryList(&head), Item, single)->value, 2);
    EXPECT_EQ(CONTAINING_RECORD(PopEntryList(&head), Item, single)->value, 1);
    EXPECT_EQ(PopEntryList(&head), nullptr);
}

}  // namespace
}  // namespace ndksim::kernel::test
