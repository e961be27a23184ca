// SPDX-License-Identifier: GPL-2.0
// The pieces of roce-entropy status: the build record, versions, Secure
// Boot's variable, the DKMS key in the MOK list, and the problems of hosts
// described by hand (status_cli_test.cpp reads them from fake trees).
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "status/status.h"

namespace roce
{
namespace
{

TEST(Status, BuildRecord)
{
	const auto rec =
	    parse_build_record("state=refused\n"
	                       "source=6.12.117\n"
	                       "kabi=held\n"
	                       "package=0.2.0+git20261126.1.gabcdef0\n"
	                       "reason=Secure Boot is on and the key = not enrolled\n");
	EXPECT_EQ(rec.state, "refused");
	EXPECT_EQ(rec.source, "6.12.117");
	EXPECT_EQ(rec.kabi, "held");
	EXPECT_EQ(rec.package, "0.2.0+git20261126.1.gabcdef0");
	// Only the first '=' splits.
	EXPECT_EQ(rec.reason, "Secure Boot is on and the key = not enrolled");
}

TEST(Status, BuildRecordIgnoresBadLinesAndUnknownKeys)
{
	const auto rec = parse_build_record("# written by the package\n"
	                                    "garbage\n"
	                                    "\n"
	                                    "future=1\n"
	                                    " state = installed \r\n"
	                                    "reason=\n"
	                                    "kabi=held");
	EXPECT_EQ(rec.state, "installed");
	EXPECT_EQ(rec.kabi, "held"); // the last line needs no newline
	EXPECT_EQ(rec.reason, "");
	EXPECT_EQ(rec.source, "");
	EXPECT_EQ(rec.package, "");
}

TEST(Status, Versions)
{
	EXPECT_EQ(upstream_version("6.12.117+deb12-amd64"), "6.12.117");
	EXPECT_EQ(upstream_version("6.12.115-cloud-amd64"), "6.12.115");
	EXPECT_EQ(upstream_version("6.12.9"), "6.12.9");
	EXPECT_TRUE(is_612("6.12.117+deb12-amd64"));
	EXPECT_FALSE(is_612("6.1.0-28-amd64"));
	EXPECT_FALSE(is_612("6.120.1"));
	EXPECT_FALSE(is_612("6.12."));
}

TEST(Status, SecureBootVariable)
{
	using namespace std::string_literals;
	EXPECT_EQ(secure_boot_enabled("\x06\x00\x00\x00\x01"s), true);
	EXPECT_EQ(secure_boot_enabled("\x06\x00\x00\x00\x00"s), false);
	EXPECT_EQ(secure_boot_enabled("\x06\x00\x00\x00"s), std::nullopt);
}

TEST(Status, KeyEnrolledIsAnExactSubstring)
{
	using namespace std::string_literals;
	const std::string key = "\x30\x82\x00\x04\xde\xad\x00\xef"s;
	EXPECT_TRUE(key_enrolled(key, "\xa1\x59\xc0\xa5"s + key + "\x00\x00"s));
	EXPECT_FALSE(key_enrolled(key, "\xa1\x59"s + key.substr(0, 7)));
	EXPECT_FALSE(key_enrolled("", "anything"));
}

// A host with our modules for its running kernel, by hand.
HostStatus healthy()
{
	HostStatus s;
	s.running = "6.12.117+deb12-amd64";
	s.ib_core = {true, true, "rfc", "off", std::nullopt};
	KernelStatus k;
	k.release = "6.12.117+deb12-amd64";
	k.running = k.headers = k.installed = true;
	k.record = BuildRecord{"installed", "6.12.117", "held", "0.2.0", "", ""};
	s.kernels.push_back(k);
	s.secure_boot = {true, true, true, KeyState::Enrolled, "", "/var/lib/dkms/mok.pub"};
	return s;
}

TEST(Status, ProblemsOfHostsByHand)
{
	EXPECT_TRUE(status_problems(healthy()).empty());

	auto s = healthy();
	s.ib_core.loaded = false; // nothing loaded yet: not a problem
	s.ib_core.ours = false;
	EXPECT_TRUE(status_problems(s).empty());

	s = healthy();
	s.kernels[0].record->state = "building";
	EXPECT_EQ(
	    status_problems(s),
	    std::vector<std::string>{"6.12.117+deb12-amd64: build record with state 'building'"});

	// Skipped without headers is what the package does: no problem; its
	// modules missing although it says installed is one, headers or not.
	s = healthy();
	s.kernels[0].headers = false;
	s.kernels[0].installed = false;
	s.kernels[0].record = BuildRecord{"skipped", "", "", "0.2.0", "no headers", ""};
	EXPECT_TRUE(status_problems(s).empty());
	s.kernels[0].record = BuildRecord{"installed", "6.12.117", "held", "0.2.0", "", ""};
	EXPECT_EQ(status_problems(s),
	          std::vector<std::string>{"6.12.117+deb12-amd64: the build record says installed, "
	                                   "but there is no ib_core.ko in "
	                                   "/lib/modules/6.12.117+deb12-amd64/updates/dkms"});

	// Secure Boot on and no key at all, or a MOK list that cannot be read.
	s = healthy();
	s.secure_boot.key = KeyState::NoKey;
	EXPECT_EQ(status_problems(s),
	          std::vector<std::string>{"Secure Boot is on and there is no DKMS signing key "
	                                   "(/var/lib/dkms/mok.pub)"});
	s.secure_boot.key = KeyState::Unknown;
	EXPECT_TRUE(status_problems(s).empty());
}

TEST(Status, FrameworkCertificate)
{
	EXPECT_EQ(framework_certificate(""), std::nullopt);
	EXPECT_EQ(framework_certificate("# mok_certificate=/x\nsign_tool=/y\n"), std::nullopt);
	EXPECT_EQ(framework_certificate("mok_certificate=/etc/a.der\n"), "/etc/a.der");
	EXPECT_EQ(framework_certificate("  mok_certificate=\"/etc/b c.der\"  \n"), "/etc/b c.der");
	EXPECT_EQ(framework_certificate("mok_certificate='/etc/c.der'\nmok_certificate=/etc/d.der"),
	          "/etc/d.der"); // the last one, as the shell reads it
	EXPECT_EQ(framework_certificate("mok_certificate=\n"), std::nullopt);
}

// An ELF note as the kernel shows /sys/module/M/notes/*: namesz, descsz,
// type (host order), the name and the descriptor padded to 4 bytes.
std::string elf_note(const std::string &name, const std::string &desc, std::uint32_t type)
{
	std::string n;
	for (const std::uint32_t w : {static_cast<std::uint32_t>(name.size()),
	                              static_cast<std::uint32_t>(desc.size()), type})
		n.append(reinterpret_cast<const char *>(&w), sizeof(w));
	n += name + std::string((4 - name.size() % 4) % 4, '\0');
	n += desc + std::string((4 - desc.size() % 4) % 4, '\0');
	return n;
}

TEST(Status, NoteBuildId)
{
	using namespace std::string_literals;
	const std::string id = "\x02\xb6\xa8\x6d\xeb\x10\x2c\x16\x21\xb1"
	                       "\x19\xaf\xe4\xd5\x05\x37\x82\xb7\x9c\xe1"s;
	const std::string hex = "02b6a86deb102c1621b119afe4d5053782b79ce1";
	const std::string gnu = "GNU\0"s;

	EXPECT_EQ(note_build_id(elf_note(gnu, id, 3)), hex);
	// after another note, of another type or name
	EXPECT_EQ(note_build_id(elf_note(gnu, "abc", 1) + elf_note("Linux\0"s, id, 3) +
	                        elf_note(gnu, id, 3)),
	          hex);
	EXPECT_EQ(note_build_id(elf_note(gnu, id, 1)), std::nullopt);
	EXPECT_EQ(note_build_id(elf_note("GNUX"s, id, 3)), std::nullopt);
	EXPECT_EQ(note_build_id(elf_note(gnu, "", 3)), std::nullopt);
	EXPECT_EQ(note_build_id(""), std::nullopt);
	// cut anywhere: nothing read past the end
	const std::string whole = elf_note(gnu, id, 3);
	for (std::size_t n = 0; n < whole.size(); n++)
		EXPECT_EQ(note_build_id(whole.substr(0, n)), std::nullopt) << n;
	// sizes that point past the end
	std::string huge = whole;
	huge[4] = '\xff';
	huge[5] = '\xff';
	EXPECT_EQ(note_build_id(huge), std::nullopt);
	huge = whole;
	huge[0] = '\xff';
	huge[3] = '\xff';
	EXPECT_EQ(note_build_id(huge), std::nullopt);
}

TEST(Status, BuildRecordBuildId)
{
	EXPECT_EQ(parse_build_record("state=installed\nbuild_id= 02b6a8 \n").build_id, "02b6a8");
	EXPECT_EQ(parse_build_record("state=installed\n").build_id, "");
}

TEST(Status, CmdlineStockHatch)
{
	EXPECT_TRUE(cmdline_stock_hatch("roce_entropy.stock=1"));
	EXPECT_TRUE(cmdline_stock_hatch("ro quiet\troce_entropy.stock=1 splash\n"));
	EXPECT_FALSE(cmdline_stock_hatch(""));
	EXPECT_FALSE(cmdline_stock_hatch("roce_entropy.stock=0"));
	EXPECT_FALSE(cmdline_stock_hatch("roce_entropy.stock=10 ib_core.roce_entropy.stock=1"));
	EXPECT_FALSE(cmdline_stock_hatch("roce_entropy.stock"));
}

TEST(Status, ModprobeOptIn)
{
	EXPECT_EQ(modprobe_opt_in(""), std::nullopt);
	EXPECT_EQ(modprobe_opt_in("options ib_core roce_entropy=rfc\n"), "rfc");
	EXPECT_EQ(modprobe_opt_in("options\tib_core  netns_mode=0 roce_entropy=mix\n"), "mix");
	EXPECT_EQ(modprobe_opt_in("# options ib_core roce_entropy=rfc\n"), std::nullopt);
	EXPECT_EQ(modprobe_opt_in("options ib_uverbs roce_entropy=rfc\n"), std::nullopt);
	EXPECT_EQ(modprobe_opt_in("options ib_core roce_entropy=rfc\noptions ib_core "
	                          "roce_entropy=off\n"),
	          "off");
}

} // namespace
} // namespace roce
