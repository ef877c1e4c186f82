// A consumer's unit test written with the installed test kit (ndksim::testkit).
#include <ndksim/testkit/ndk_fixture.hpp>

namespace {

using namespace ndksim::testkit;

class ConsumerPd : public NdkStyleTest {};

TEST_P(ConsumerPd, CreatesAndClosesInEveryCompletionStyle) {
    auto pd = create_pd();
    ASSERT_NT(STATUS_SUCCESS, pd.status);
    EXPECT_NT(STATUS_SUCCESS, close(pd.object).status);
}

NDKSIM_TEST_INSTANTIATE_STYLES(ConsumerPd);

}  // namespace
