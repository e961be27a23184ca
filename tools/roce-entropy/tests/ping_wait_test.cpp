// SPDX-License-Identifier: GPL-2.0
// roce-ping's client waits for completions no longer than until the next
// send of a held connection is due (a longer wait shows up as a gap).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "ping.h"

namespace roce
{
namespace
{

using std::chrono::microseconds;
using std::chrono::milliseconds;
using Due = std::vector<std::chrono::steady_clock::duration>;

struct WaitCase {
	const char *name;
	Due due;
	int max_ms;
	int want;
};

class PingWait : public testing::TestWithParam<WaitCase>
{
};

TEST_P(PingWait, Ms)
{
	EXPECT_EQ(ping_wait_ms(GetParam().due, GetParam().max_ms), GetParam().want);
}

const WaitCase wait_cases[] = {
    {"nothing_held", {}, 50, 50},
    {"due_later_than_max", {milliseconds(80)}, 50, 50},
    {"due_sooner", {milliseconds(20)}, 50, 20},
    {"earliest_of_several", {milliseconds(45), milliseconds(7), milliseconds(30)}, 50, 7},
    {"part_of_a_ms_rounds_up", {microseconds(300)}, 50, 1},
    {"ms_and_a_bit_rounds_up", {microseconds(12001)}, 50, 13},
    {"already_due", {milliseconds(30), milliseconds(-4)}, 50, 0},
    {"exactly_now", {milliseconds(0)}, 50, 0},
    {"other_max", {milliseconds(150)}, 200, 150},
};

INSTANTIATE_TEST_SUITE_P(Cases, PingWait, testing::ValuesIn(wait_cases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

} // namespace
} // namespace roce
