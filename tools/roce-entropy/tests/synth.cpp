// SPDX-License-Identifier: GPL-2.0
#include "synth.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>

#include "capture/capture.h"

namespace roce
{

void put(Buf &b, std::size_t off, std::uint64_t v, std::size_t len)
{
	if (b.size() < off + len)
		b.resize(off + len);
	for (std::size_t i = 0; i < len; i++)
		b[off + i] = static_cast<std::uint8_t>(v >> (8 * (len - 1 - i)));
}

Mad::Mad(std::uint16_t attr)
{
	b[0] = 1;    // base version
	b[1] = 0x07; // CM
	b[2] = 2;    // class version
	b[3] = 0x03; // Send
	put(b, 16, attr, 2);
}

Mad &Mad::at(std::size_t off, std::uint64_t v, std::size_t len)
{
	put(b, 24 + off, v, len);
	return *this;
}

Mad req(std::uint32_t comm_id, std::uint32_t qpn, std::uint16_t sport, std::uint16_t dport)
{
	return Mad(kCmReq)
	    .at(0, comm_id, 4)
	    .at(8, 0x0000000001060000ull | dport, 8) // RDMA_PS_TCP service ID
	    .at(32, qpn, 3)
	    .at(140, 0x00, 1) // cma_hdr: version, IP version, port
	    .at(141, 0x40, 1)
	    .at(142, sport, 2);
}

Mad rep(std::uint32_t comm_id, std::uint32_t remote, std::uint32_t qpn)
{
	return Mad(kCmRep).at(0, comm_id, 4).at(4, remote, 4).at(12, qpn, 3);
}

Mad ids(std::uint16_t attr, std::uint32_t local, std::uint32_t remote)
{
	return Mad(attr).at(0, local, 4).at(4, remote, 4);
}

// Ethernet, IPv4 or IPv6, UDP, BTH, DETH when asked, payload, ICRC.
Buf build(const Frame &f)
{
	Buf udp;
	put(udp, 0, f.sport, 2);
	put(udp, 2, f.dport, 2);
	put(udp, 8, f.opcode, 1);
	put(udp, 10, 0xFFFF, 2); // P_Key
	put(udp, 13, f.dqpn, 3);
	put(udp, 16, 0, 4); // PSN
	if (f.sqpn) {
		put(udp, 20, 0x80010000, 4); // Q_Key
		put(udp, 25, *f.sqpn, 3);
	}
	udp.insert(udp.end(), f.payload.begin(), f.payload.end());
	udp.insert(udp.end(), 4, 0xAA); // ICRC
	put(udp, 4, udp.size(), 2);

	Buf ip;
	if (f.ipv6) {
		put(ip, 0, 0x60000000u | f.fl, 4);
		put(ip, 4, udp.size(), 2);
		ip.push_back(17);
		ip.push_back(64);
		ip.resize(40);
		inet_pton(AF_INET6, f.src.c_str(), ip.data() + 8);
		inet_pton(AF_INET6, f.dst.c_str(), ip.data() + 24);
	} else {
		put(ip, 0, 0x45, 1);
		put(ip, 2, 20 + udp.size(), 2);
		put(ip, 6, 0x4000, 2); // DF
		put(ip, 8, 64, 1);
		put(ip, 9, 17, 1);
		ip.resize(20);
		inet_pton(AF_INET, f.src.c_str(), ip.data() + 12);
		inet_pton(AF_INET, f.dst.c_str(), ip.data() + 16);
	}
	ip.insert(ip.end(), udp.begin(), udp.end());

	Buf eth(12, 0x02);
	put(eth, 12, f.ipv6 ? 0x86DD : 0x0800, 2);
	eth.insert(eth.end(), ip.begin(), ip.end());
	return eth;
}

void write_capture(const std::string &path, const std::vector<Buf> &frames, int linktype,
                   const std::vector<std::size_t> &caplens)
{
	pcap_t *dead = pcap_open_dead(linktype, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, path.c_str());
	for (std::size_t i = 0; i < frames.size(); i++) {
		pcap_pkthdr h{};
		h.len = static_cast<bpf_u_int32>(frames[i].size());
		h.caplen =
		    i < caplens.size() && caplens[i] ? static_cast<bpf_u_int32>(caplens[i]) : h.len;
		pcap_dump(reinterpret_cast<u_char *>(d), &h, frames[i].data());
	}
	pcap_dump_close(d);
	pcap_close(dead);
}

} // namespace roce
