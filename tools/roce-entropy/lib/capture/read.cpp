// SPDX-License-Identifier: GPL-2.0
// Reading a capture file with libpcap, one frame at a time.
#include <memory>
#include <pcap/pcap.h>

#include "capture/capture.h"

namespace roce
{

ReadCounts read_capture(const std::string &file,
                        const std::function<void(const RocePacket &)> &on_packet)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	std::unique_ptr<pcap_t, decltype(&pcap_close)> pc(pcap_open_offline(file.c_str(), errbuf),
	                                                  &pcap_close);
	ReadCounts counts;
	RocePacket pkt;
	pcap_pkthdr *hdr;
	const u_char *data;
	int rc;

	if (!pc)
		throw CaptureError(file + ": " + errbuf);
	const int linktype = pcap_datalink(pc.get());
	if (linktype != DLT_EN10MB && linktype != DLT_LINUX_SLL && linktype != DLT_LINUX_SLL2) {
		const char *name = pcap_datalink_val_to_name(linktype);
		throw CaptureError(file + ": link type " + std::string(name ? name : "?") +
		                   " (Ethernet and Linux cooked captures only)");
	}
	while ((rc = pcap_next_ex(pc.get(), &hdr, &data)) == 1) {
		switch (parse_frame(linktype, data, hdr->caplen, pkt, hdr->len)) {
		case ParseStatus::Roce:
			counts.cut += pkt.cut;
			on_packet(pkt);
			break;
		case ParseStatus::NotRoce:
			counts.not_roce++;
			break;
		case ParseStatus::Malformed:
			counts.malformed++;
			break;
		case ParseStatus::Truncated:
			counts.truncated++;
			break;
		}
	}
	if (rc == PCAP_ERROR)
		counts.malformed++; // a record cut short at the end of the file
	return counts;
}

std::vector<RocePacket> read_capture(const std::string &file, ReadCounts &counts)
{
	std::vector<RocePacket> packets;

	counts = read_capture(file, [&](const RocePacket &p) { packets.push_back(p); });
	return packets;
}

} // namespace roce
