// SPDX-License-Identifier: GPL-2.0
// Reading a capture file with libpcap.
#include <memory>
#include <pcap/pcap.h>

#include "capture/capture.h"

namespace roce
{

std::vector<RocePacket> read_capture(const std::string &file, unsigned &not_roce,
                                     unsigned &malformed)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	std::unique_ptr<pcap_t, decltype(&pcap_close)> pc(pcap_open_offline(file.c_str(), errbuf),
	                                                  &pcap_close);
	std::vector<RocePacket> packets;
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
	not_roce = malformed = 0;
	while ((rc = pcap_next_ex(pc.get(), &hdr, &data)) == 1) {
		RocePacket pkt;
		switch (parse_frame(linktype, data, hdr->caplen, pkt)) {
		case ParseStatus::Roce:
			packets.push_back(std::move(pkt));
			break;
		case ParseStatus::NotRoce:
			not_roce++;
			break;
		case ParseStatus::Malformed:
			malformed++;
			break;
		}
	}
	if (rc == PCAP_ERROR)
		malformed++; // a record cut short at the end of the file
	return packets;
}

} // namespace roce
