// SPDX-License-Identifier: GPL-2.0
// roce-entropy status on fake roots: a temporary tree with the files of a
// Debian host that the command reads (/proc, /sys, /lib/modules, the build
// records, the DKMS key), one host per case.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "args/args.h"
#include "cli_run.h"
#include "commands.h"

namespace roce
{
namespace
{

namespace fs = std::filesystem;
using namespace std::string_literals;

constexpr const char *kRunning = "6.12.117+deb12-amd64";
// A DER certificate's start, with the bytes a text reader would trip on.
const std::string kKey = "\x30\x82\x03\x1a\x30\x82\x02\x02\xa0\x03\x02\x01\x02\x02\x14\x00"
                         "\x0a\x1a\xff\x7f roce-entropy DKMS module signing key"s;
const std::string kRecord = "state=installed\n"
                            "source=6.12.117\n"
                            "kabi=held\n"
                            "package=0.2.0+git20261126.1.gabcdef0\n"
                            "reason=\n";

// MokListRT: one EFI signature list (type EFI_CERT_X509_GUID, list size,
// header size, signature size), each signature an owner GUID and CERT.
std::string mok_list(const std::string &cert)
{
	std::string s = "\xa1\x59\xc0\xa5\xe4\x94\xa7\x4a\x87\xb5\xab\x15\x5c\x2b\xf0\x72"s;
	s += "\x00\x04\x00\x00\x00\x00\x00\x00\x38\x03\x00\x00"s;
	s += "\x0d\x00\xdb\x48\xba\x66\x51\x4c\xab\x46\xa2\x8b\x6a\xd3\x5a\xb8"s;
	return s + cert;
}

class StatusCli : public testing::Test
{
protected:
	void SetUp() override
	{
		root_ = testing::TempDir() + "roce-status-" +
		        testing::UnitTest::GetInstance()->current_test_info()->name();
		fs::remove_all(root_);
		fs::create_directories(root_);
	}

	void TearDown() override
	{
		fs::remove_all(root_);
	}

	// The host's file PATH (absolute on the host) holding TEXT.
	void write(const std::string &path, const std::string &text)
	{
		const fs::path p = root_ + path;
		fs::create_directories(p.parent_path());
		std::ofstream(p, std::ios::binary) << text;
	}

	void dir(const std::string &path)
	{
		fs::create_directories(root_ + path);
	}

	void running(const std::string &release = kRunning)
	{
		write("/proc/sys/kernel/osrelease", release + "\n");
	}

	// ib_core with the series' parameters.
	void ours_loaded(const std::string &policy = "mix", const std::string &repath = "off")
	{
		write("/sys/module/ib_core/parameters/roce_entropy", policy + "\n");
		write("/sys/module/ib_core/parameters/roce_repath", repath + "\n");
		write("/sys/module/ib_core/parameters/netns_mode", "Y\n");
	}

	// Debian's ib_core: its own parameters only.
	void stock_loaded()
	{
		write("/sys/module/ib_core/parameters/netns_mode", "Y\n");
	}

	// Port N of DEV; an empty POLICY or REPATH: no such knob.
	void port(const std::string &dev, unsigned n, const std::string &policy,
	          const std::string &repath, const std::string &link_layer = "Ethernet")
	{
		const std::string p =
		    "/sys/class/infiniband/" + dev + "/ports/" + std::to_string(n);
		write(p + "/link_layer", link_layer + "\n");
		write(p + "/state", "4: ACTIVE\n");
		if (!policy.empty())
			write(p + "/roce_entropy", policy + "\n");
		if (!repath.empty())
			write(p + "/roce_repath", repath + "\n");
	}

	// /lib/modules/RELEASE, with its headers and our modules (MODULE, the
	// file name under updates/dkms; empty: none) when asked.
	void kernel(const std::string &release, bool headers,
	            const std::string &module = "ib_core.ko.xz")
	{
		const std::string d = "/lib/modules/" + release;
		write(d + "/modules.dep", "kernel/drivers/infiniband/core/ib_core.ko.xz:\n");
		write(d + "/kernel/drivers/infiniband/core/ib_core.ko.xz", "stock");
		if (headers)
			write(d + "/build/Makefile", "# headers\n");
		if (!module.empty())
			write(d + "/updates/dkms/" + module, "ours");
	}

	// The host booted at BOOT and DKMS wrote our ib_core for RELEASE at
	// WRITTEN (seconds since the epoch).
	void times(long long boot, long long written, const std::string &release = kRunning)
	{
		write("/proc/stat",
		      "cpu  1 2 3 4\nbtime " + std::to_string(boot) + "\nprocesses 9\n");
		const std::string m =
		    root_ + "/lib/modules/" + release + "/updates/dkms/ib_core.ko.xz";
		const struct timespec ts[2] = {{written, 0}, {written, 0}};
		ASSERT_EQ(utimensat(AT_FDCWD, m.c_str(), ts, 0), 0) << m;
	}

	void record(const std::string &release, const std::string &text = kRecord)
	{
		write("/var/lib/roce-entropy/" + release, text);
	}

	void secure_boot(bool on)
	{
		write("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		      "\x06\x00\x00\x00"s + (on ? "\x01"s : "\x00"s));
	}

	void mok(const std::string &key, const std::string &list)
	{
		write("/var/lib/dkms/mok.pub", key);
		write("/sys/firmware/efi/mok-variables/MokListRT", list);
	}

	// Ours running its 6.12 kernel: two RoCE ports (mix with re-path, and
	// one set back to builtin), an InfiniBand port, which is no RoCE port,
	// Secure Boot on with the DKMS key enrolled.
	void healthy()
	{
		running();
		ours_loaded();
		port("rxe0", 1, "builtin", "off");
		port("mlx5_0", 1, "mix", "on");
		port("mlx5_1", 1, "", "", "InfiniBand");
		kernel(kRunning, true);
		record(kRunning);
		secure_boot(true);
		mok(kKey, mok_list("a Debian CA") + mok_list(kKey));
	}

	test::CliRun status(std::vector<std::string> args = {})
	{
		args.insert(args.begin(), {"status", "--root", root_});
		return test::run_roce_entropy(args);
	}

	// Every file under the root, with its contents.
	std::map<std::string, std::string> tree() const
	{
		std::map<std::string, std::string> m;
		for (const auto &e : fs::recursive_directory_iterator(root_)) {
			std::ostringstream s;
			if (e.is_regular_file())
				s << std::ifstream(e.path(), std::ios::binary).rdbuf();
			m[e.path().string()] = s.str();
		}
		return m;
	}

	std::string root_;
};

TEST_F(StatusCli, HealthyHost)
{
	healthy();
	const auto before = tree();
	const auto r = status();
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(r.out, "kernel:      6.12.117+deb12-amd64 (upstream 6.12.117)\n"
	                 "ib_core:     ours, default: policy mix, re-path off\n"
	                 "ports:       mlx5_0/1  mix    re-path on\n"
	                 "             rxe0/1    builtin  re-path off\n"
	                 "kernels:     6.12.117+deb12-amd64 (running): headers, our modules\n"
	                 "               record: installed from 6.12.117, kABI held, package "
	                 "0.2.0+git20261126.1.gabcdef0\n"
	                 "secure boot: on; DKMS key: enrolled\n"
	                 "status: ok\n");
	EXPECT_TRUE(r.err.empty()) << r.err;
	EXPECT_EQ(tree(), before); // read only
}

TEST_F(StatusCli, HealthyHostJson)
{
	healthy();
	const auto r = status({"--json"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	const auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["running"], kRunning);
	EXPECT_EQ(j["ib_core"], nlohmann::json::parse(R"({"loaded": true, "ours": true,
		"roce_entropy": "mix", "roce_repath": "off", "build_id": null})"));
	ASSERT_EQ(j["ports"].size(), 2u);
	EXPECT_EQ(j["ports"][0], nlohmann::json::parse(R"({"dev": "mlx5_0", "port": 1,
		"policy": "mix", "repath": "on"})"));
	EXPECT_EQ(j["ports"][1]["dev"], "rxe0");
	EXPECT_EQ(j["ports"][1]["policy"], "builtin");
	ASSERT_EQ(j["kernels"].size(), 1u);
	const auto &k = j["kernels"][0];
	EXPECT_EQ(k["release"], kRunning);
	EXPECT_EQ(k["running"], true);
	EXPECT_EQ(k["headers"], true);
	EXPECT_EQ(k["installed"], true);
	EXPECT_EQ(k["record"], nlohmann::json::parse(R"({"state": "installed",
		"source": "6.12.117", "kabi": "held",
		"package": "0.2.0+git20261126.1.gabcdef0", "reason": "", "build_id": ""})"));
	EXPECT_EQ(j["secure_boot"], nlohmann::json::parse(R"({"efi": true, "enabled": true,
		"key": "enrolled", "key_path": "/var/lib/dkms/mok.pub"})"));
	EXPECT_EQ(j["opt_in"], nullptr);
	EXPECT_EQ(j["warnings"], nlohmann::json::array());
	EXPECT_EQ(j["problems"], nlohmann::json::array());
	EXPECT_EQ(j["reboot_pending"], nullptr);
	EXPECT_EQ(j["ok"], true);
}

// An update's new kernel booted before DKMS built for it is the next
// case; here the record says installed, yet the distribution's ib_core
// (depmod put kernel/ before updates/, say) is the one loaded.
TEST_F(StatusCli, BootedStockAfterUpdate)
{
	healthy();
	fs::remove_all(root_ + "/sys/module/ib_core");
	stock_loaded();
	fs::remove(root_ + "/sys/class/infiniband/rxe0/ports/1/roce_entropy");
	fs::remove(root_ + "/sys/class/infiniband/rxe0/ports/1/roce_repath");
	const auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("ib_core:     stock (no roce_entropy parameter)\n"), std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("             rxe0/1    stock\n"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("status: off\n"
	                     "  6.12.117+deb12-amd64 (running): the loaded ib_core is the stock "
	                     "one, although ours is installed for it\n"),
	          std::string::npos)
	    << r.out;
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["ib_core"]["loaded"], true);
	EXPECT_EQ(j["ib_core"]["ours"], false);
	EXPECT_EQ(j["ib_core"]["roce_entropy"], nullptr);
	EXPECT_EQ(j["ports"][1]["policy"], "stock");
	EXPECT_EQ(j["ports"][1]["repath"], nullptr);
	EXPECT_EQ(j["ok"], false);
	EXPECT_EQ(j["problems"].size(), 1u);
}

// Right after apt install on a host whose RDMA stack was already loaded:
// nothing is wrong, ours runs after a reboot (exit 3).  Ours installed
// before the boot and stock loaded is a problem (exit 1); without the boot
// time, status cannot tell, and says so as a problem.
TEST_F(StatusCli, RebootPendingAfterInstall)
{
	healthy();
	fs::remove_all(root_ + "/sys/module/ib_core");
	stock_loaded();
	times(1'800'000'000, 1'800'000'600);
	auto r = status();
	EXPECT_EQ(r.status, 3) << r.out << r.err;
	EXPECT_NE(r.out.find("status: reboot pending\n"
	                     "  6.12.117+deb12-amd64 (running): ours was installed after this "
	                     "boot, while the distribution's ib_core was loaded: reboot (or "
	                     "unload the RDMA modules and load them again)\n"),
	          std::string::npos)
	    << r.out;
	auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["ok"], false);
	EXPECT_EQ(j["problems"], nlohmann::json::array());
	EXPECT_NE(j["reboot_pending"].get<std::string>().find("installed after this boot"),
	          std::string::npos);

	times(1'800'000'000, 1'799'999'000); // written before the boot
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("the loaded ib_core is the stock one, although ours is installed"),
	          std::string::npos)
	    << r.out;
	fs::remove(root_ + "/proc/stat");
	EXPECT_EQ(status().status, 1);

	// Another problem beside the pending reboot: off, exit 1.
	times(1'800'000'000, 1'800'000'600);
	kernel("6.12.119+deb12-amd64", true, "");
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("status: off\n"), std::string::npos) << r.out;
}

// The loaded ib_core's build ID note, as the kernel shows it: namesz 4,
// descsz 4, type 3 (host order), "GNU", the ID.
std::string build_id_note(const std::string &id4)
{
	return "\x04\x00\x00\x00\x04\x00\x00\x00\x03\x00\x00\x00GNU\0"s + id4;
}

// Ours loaded, another build installed since the boot (an upgrade): a
// reboot pending (exit 3), and the commands that read the loaded modules
// over netlink refuse.  The same build, or a record or module without a
// build ID (an older package, the stock module): nothing to say.
TEST_F(StatusCli, StaleModules)
{
	healthy();
	const std::string rec =
	    "state=installed\nsource=6.12.117\nkabi=held\npackage=" + std::string(version()) +
	    "\nreason=\n";
	write("/sys/module/ib_core/notes/.note.gnu.build-id", build_id_note("\x12\x34\xab\xcd"));
	record(kRunning, rec + "build_id=1234abcd\n");
	EXPECT_EQ(status().status, 0) << status().out;
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["ib_core"]["build_id"], "1234abcd");
	EXPECT_EQ(j["kernels"][0]["record"]["build_id"], "1234abcd");
	EXPECT_NO_THROW(refuse_stale_modules(root_));

	record(kRunning, rec + "build_id=1234abce\n");
	auto r = status();
	EXPECT_EQ(r.status, 3) << r.out;
	EXPECT_NE(r.out.find("the loaded RDMA modules are ours, but not the build installed "
	                     "for it since (package " +
	                     std::string(version()) + "): reboot"),
	          std::string::npos)
	    << r.out;
	const auto refused = [&](const std::string &what) {
		try {
			refuse_stale_modules(root_);
			ADD_FAILURE() << "no refusal: " << what;
		} catch (const UsageError &e) {
			EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
		}
	};
	refused("reboot");

	// Another package's build (the tools upgraded alone): refused, though
	// the build IDs agree.
	record(kRunning, kRecord + "build_id=1234abcd\n");
	EXPECT_EQ(status().status, 0);
	refused("the modules are package 0.2.0+git20261126.1.gabcdef0's");
	// This package's build refused for the kernel (an upgrade kept the old
	// modules): the loaded ones are an older build.
	record(kRunning,
	       "state=refused\nreason=Secure Boot is on\npackage=" + std::string(version()) + "\n");
	refused("did not install its build for it (refused: Secure Boot is on)");

	record(kRunning, rec); // a record of a package before build IDs
	EXPECT_EQ(status().status, 0);
	EXPECT_NO_THROW(refuse_stale_modules(root_));
	record(kRunning, rec + "build_id=1234abce\n");
	fs::remove(root_ + "/sys/module/ib_core/notes/.note.gnu.build-id");
	EXPECT_EQ(status().status, 0);
	EXPECT_NO_THROW(refuse_stale_modules(root_));
	// The stock ib_core: nothing of ours to misread.
	fs::remove_all(root_ + "/sys/module/ib_core");
	stock_loaded();
	record(kRunning, kRecord + "build_id=1234abce\n");
	EXPECT_NO_THROW(refuse_stale_modules(root_));
}

// Booted with the escape hatch, roce_entropy.stock=1: the distribution's
// stack runs by the operator's choice.  Not ok, and not a pending reboot
// either (a reboot with the same command line changes nothing), however
// recently ours was installed.
TEST_F(StatusCli, EscapeHatch)
{
	healthy();
	write("/proc/cmdline", "BOOT_IMAGE=/vmlinuz ro quiet roce_entropy.stock=1\n");
	auto r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("roce_entropy.stock=1 on the kernel command line loads the "
	                     "distribution's RDMA modules instead of ours"),
	          std::string::npos)
	    << r.out;
	fs::remove_all(root_ + "/sys/module/ib_core");
	stock_loaded();
	times(1'800'000'000, 1'800'000'600); // installed after the boot
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_EQ(nlohmann::json::parse(status({"--json"}).out)["reboot_pending"], nullptr);
	EXPECT_EQ(r.out.find("although ours is installed"), std::string::npos) << r.out;
	// Another word that only looks like it is not the hatch.
	write("/proc/cmdline", "ro roce_entropy.stock=0 xroce_entropy.stock=1\n");
	EXPECT_EQ(status().status, 3);
}

// Rebooted into a 6.12 kernel without its headers (an update that brought
// the image only): the distribution's modules run and the opt-in is
// ignored.  That is off, not ok.  Without the dkms package, it is nobody's
// business here.
TEST_F(StatusCli, RunningKernelWithoutHeaders)
{
	running("6.12.119+deb12-amd64");
	stock_loaded();
	kernel(kRunning, true);
	record(kRunning);
	kernel("6.12.119+deb12-amd64", false, "");
	record("6.12.119+deb12-amd64", "state=skipped\nreason=no headers (apt install "
	                               "linux-headers-6.12.119+deb12-amd64)\npackage=0.5.0\n");
	write("/etc/modprobe.d/roce-entropy.conf", "# opt in\noptions ib_core roce_entropy=rfc\n");
	write("/usr/sbin/roce-entropy-dkms", "#!/bin/bash\n");
	auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("status: off\n"
	                     "  6.12.119+deb12-amd64 (running): no headers, so ours is not built "
	                     "for it and the distribution's ib_core runs (the opt-in "
	                     "roce_entropy=rfc has no effect): apt install "
	                     "linux-headers-6.12.119+deb12-amd64, then reboot\n"),
	          std::string::npos)
	    << r.out;
	EXPECT_EQ(nlohmann::json::parse(status({"--json"}).out)["opt_in"], "rfc");

	// No opt-in: still off (ours does not run), without the note.
	fs::remove(root_ + "/etc/modprobe.d/roce-entropy.conf");
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("and the distribution's ib_core runs: apt install"), std::string::npos)
	    << r.out;

	// The package removed (only its records left): nothing to say.
	fs::remove(root_ + "/usr/sbin/roce-entropy-dkms");
	EXPECT_EQ(status().status, 0);
}

// An organisation's signing key, set for DKMS in framework.conf.d: status
// checks that certificate, not DKMS's default one.
TEST_F(StatusCli, OrganisationKey)
{
	healthy();
	fs::remove(root_ + "/var/lib/dkms/mok.pub");
	write("/etc/dkms/framework.conf", "# mok_certificate=/nowhere\n"
	                                  "mok_certificate=/var/lib/dkms/mok.pub\n");
	write("/etc/dkms/framework.conf.d/10-org.conf",
	      "mok_signing_key=\"/etc/org/db.key\"\nmok_certificate=\"/etc/org/db.der\"\n");
	write("/etc/org/db.der", kKey);
	auto r = status();
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_NE(r.out.find("secure boot: on; DKMS key: enrolled (/etc/org/db.der)\n"),
	          std::string::npos)
	    << r.out;
	EXPECT_EQ(nlohmann::json::parse(status({"--json"}).out)["secure_boot"]["key_path"],
	          "/etc/org/db.der");

	write("/sys/firmware/efi/mok-variables/MokListRT", mok_list("a Debian CA"));
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("Secure Boot is on and the DKMS signing key is not enrolled "
	                     "(mokutil --import /etc/org/db.der, then reboot)\n"),
	          std::string::npos)
	    << r.out;

	// Only framework.conf's: the default path, which has no key now.
	fs::remove_all(root_ + "/etc/dkms/framework.conf.d");
	r = status();
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("there is no DKMS signing key (/var/lib/dkms/mok.pub)"),
	          std::string::npos)
	    << r.out;
}

TEST_F(StatusCli, SecondKernelWithoutRecord)
{
	healthy();
	kernel("6.12.119+deb12-amd64", true, "");
	auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("             6.12.119+deb12-amd64: headers, no modules of ours\n"
	                     "               record: none\n"),
	          std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("status: off\n"
	                     "  6.12.119+deb12-amd64: its headers are installed but it has no "
	                     "build record (/var/lib/roce-entropy/6.12.119+deb12-amd64)\n"),
	          std::string::npos)
	    << r.out;
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	ASSERT_EQ(j["kernels"].size(), 2u);
	EXPECT_EQ(j["kernels"][1]["release"], "6.12.119+deb12-amd64");
	EXPECT_EQ(j["kernels"][1]["running"], false);
	EXPECT_EQ(j["kernels"][1]["installed"], false);
	EXPECT_EQ(j["kernels"][1]["record"], nullptr);

	// Without its headers DKMS cannot build for it: nothing to say.
	fs::remove_all(root_ + "/lib/modules/6.12.119+deb12-amd64/build");
	r = status();
	EXPECT_EQ(r.status, 0) << r.out;
	EXPECT_NE(r.out.find("6.12.119+deb12-amd64: no headers, no modules of ours\n"),
	          std::string::npos)
	    << r.out;
}

TEST_F(StatusCli, RefusedBuild)
{
	healthy();
	kernel("6.12.119+deb12-amd64", true, "");
	record("6.12.119+deb12-amd64",
	       "state=refused\nsource=6.12.119\nkabi=held\npackage=0.2.0\n"
	       "reason=Secure Boot is on and the DKMS signing key is not enrolled\n");
	const auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("  6.12.119+deb12-amd64: build refused: Secure Boot is on and the "
	                     "DKMS signing key is not enrolled\n"),
	          std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("               record: refused: Secure Boot is on"),
	          std::string::npos)
	    << r.out;
}

TEST_F(StatusCli, SourceMismatch)
{
	healthy();
	kernel("6.12.115+deb12-amd64", true);
	record("6.12.115+deb12-amd64"); // source=6.12.117
	const auto r = status({"--json"});
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	const auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["kernels"][0]["release"], "6.12.115+deb12-amd64"); // by version
	EXPECT_EQ(j["problems"], nlohmann::json({"6.12.115+deb12-amd64: built from 6.12.117, not "
	                                         "its upstream 6.12.115"}));
	EXPECT_EQ(j["ok"], false);
}

TEST_F(StatusCli, KabiChanged)
{
	healthy();
	record(kRunning, "state=installed\nsource=6.12.117\nkabi=changed\npackage=0.2.0\n");
	const auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("status: off\n  6.12.117+deb12-amd64: kABI 'changed', not held\n"),
	          std::string::npos)
	    << r.out;
}

TEST_F(StatusCli, ModulesMissingAlthoughInstalled)
{
	healthy();
	fs::remove_all(root_ + "/lib/modules/" + kRunning + "/updates");
	auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(
	    r.out.find("  6.12.117+deb12-amd64: the build record says installed, but there "
	               "is no ib_core.ko in /lib/modules/6.12.117+deb12-amd64/updates/dkms\n"),
	    std::string::npos)
	    << r.out;
	// Any of the module's compressions is ours.
	for (const char *m : {"ib_core.ko", "ib_core.ko.zst", "ib_core.ko.gz"}) {
		fs::remove_all(root_ + "/lib/modules/" + kRunning + "/updates");
		kernel(kRunning, true, m);
		r = status();
		EXPECT_EQ(r.status, 0) << m << "\n" << r.out;
	}
}

TEST_F(StatusCli, SecureBootKeyNotEnrolled)
{
	healthy();
	// The MOK list holds another certificate, and ours but its last byte.
	mok(kKey, mok_list("a Debian CA") + mok_list(kKey.substr(0, kKey.size() - 1)));
	auto r = status();
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	EXPECT_NE(r.out.find("secure boot: on; DKMS key: not enrolled\n"), std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("status: off\n  Secure Boot is on and the DKMS signing key is not "
	                     "enrolled (mokutil --import /var/lib/dkms/mok.pub, then reboot)\n"),
	          std::string::npos)
	    << r.out;
	EXPECT_EQ(nlohmann::json::parse(status({"--json"}).out)["secure_boot"]["key"],
	          "not enrolled");

	// Enrolled: fine; Secure Boot off: the key does not matter.
	mok(kKey, mok_list(kKey));
	EXPECT_EQ(status().status, 0);
	// Secure Boot off and the key not enrolled: works, with a warning of
	// what turning Secure Boot on would do.
	mok(kKey, mok_list("a Debian CA"));
	secure_boot(false);
	r = status();
	EXPECT_EQ(r.status, 0) << r.out;
	EXPECT_NE(r.out.find("secure boot: off; DKMS key: not enrolled\n"
	                     "warning: the DKMS signing key (/var/lib/dkms/mok.pub) is not "
	                     "enrolled: with Secure Boot turned on, the kernel would refuse our "
	                     "modules (mokutil --import /var/lib/dkms/mok.pub, then reboot)\n"
	                     "status: ok\n"),
	          std::string::npos)
	    << r.out;
	auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["warnings"].size(), 1u);
	EXPECT_EQ(j["ok"], true);
	// Enrolled, Secure Boot off: no warning.
	mok(kKey, mok_list(kKey));
	j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["warnings"], nlohmann::json::array());
}

TEST_F(StatusCli, NoEfi)
{
	healthy();
	fs::remove_all(root_ + "/sys/firmware/efi");
	fs::remove_all(root_ + "/var/lib/dkms");
	const auto r = status();
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_NE(r.out.find("secure boot: off (no EFI variable), not an EFI system; DKMS key: no "
	                     "key (/var/lib/dkms/mok.pub)\n"),
	          std::string::npos)
	    << r.out;
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["secure_boot"], nlohmann::json::parse(R"({"efi": false, "enabled": false,
		"key": "no key", "key_path": "/var/lib/dkms/mok.pub"})"));
}

TEST_F(StatusCli, NoKernel612)
{
	running("6.1.0-28-amd64");
	stock_loaded();
	kernel("6.1.0-28-amd64", true, "");
	dir("/lib/modules/6.12.117+deb12-amd64"); // left behind: no modules.dep
	auto r = status();
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(r.out, "kernel:      6.1.0-28-amd64 (upstream 6.1.0)\n"
	                 "ib_core:     stock (no roce_entropy parameter)\n"
	                 "ports:       no RoCE port\n"
	                 "kernels:     no 6.12 kernel installed: nothing to do on this host\n"
	                 "secure boot: off (no EFI variable), not an EFI system; DKMS key: no key "
	                 "(/var/lib/dkms/mok.pub)\n"
	                 "status: ok\n");
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	EXPECT_EQ(j["kernels"], nlohmann::json::array());
	EXPECT_EQ(j["ok"], true);

	// An empty root: nothing can be read, nothing is wrong.
	fs::remove_all(root_);
	fs::create_directories(root_);
	r = status();
	EXPECT_EQ(r.status, 0) << r.out;
	EXPECT_NE(r.out.find("kernel:      unknown (cannot read /proc/sys/kernel/osrelease)\n"
	                     "ib_core:     not loaded\n"),
	          std::string::npos)
	    << r.out;
}

TEST_F(StatusCli, PortsByDeviceThenNumber)
{
	healthy();
	port("mlx5_0", 10, "rfc", "off");
	port("mlx5_0", 2, "off", "");
	const auto j = nlohmann::json::parse(status({"--json"}).out);
	std::vector<std::string> got;
	for (const auto &p : j["ports"])
		got.push_back(p["dev"].get<std::string>() + "/" +
		              std::to_string(p["port"].get<int>()) + " " +
		              p["policy"].get<std::string>());
	EXPECT_EQ(got, (std::vector<std::string>{"mlx5_0/1 mix", "mlx5_0/2 off", "mlx5_0/10 rfc",
	                                         "rxe0/1 builtin"}));
}

TEST_F(StatusCli, BadOptions)
{
	auto r = status({"--frobnicate"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("The following argument was not expected: --frobnicate"),
	          std::string::npos)
	    << r.err;
	EXPECT_TRUE(r.out.empty());
	r = test::run_roce_entropy({"status", "--root", root_ + "/no-such-dir"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("roce-entropy: error: --root " + root_ +
	                     "/no-such-dir: not a "
	                     "directory"),
	          std::string::npos)
	    << r.err;
	r = test::run_roce_entropy({"status", "--root"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
}

} // namespace
} // namespace roce
