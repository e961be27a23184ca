// SPDX-License-Identifier: GPL-2.0
#include "synth.h"

#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdexcept>

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

Mad sidr_req(std::uint32_t req_id, std::uint16_t sport, std::uint16_t dport)
{
	return Mad(kCmSidrReq)
	    .at(0, req_id, 4)
	    .at(8, 0x0000000001110000ull | dport, 8) // RDMA_PS_UDP service ID
	    .at(16, 0, 2)                            // cma_hdr: version, IP version
	    .at(18, sport, 2);
}

Mad sidr_rep(std::uint32_t req_id, std::uint32_t qpn)
{
	return Mad(kCmSidrRep).at(0, req_id, 4).at(8, qpn, 3);
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

std::vector<Buf> read_frames(const std::string &path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *pc = pcap_open_offline(path.c_str(), errbuf);
	std::vector<Buf> frames;
	pcap_pkthdr *h;
	const u_char *data;

	if (!pc)
		throw std::runtime_error(errbuf);
	while (pcap_next_ex(pc, &h, &data) == 1)
		frames.emplace_back(data, data + h->caplen);
	pcap_close(pc);
	return frames;
}

Buf with_vlans(const Buf &eth, const std::vector<std::uint16_t> &tpids)
{
	Buf f(eth.begin(), eth.begin() + 12);
	std::uint16_t vid = 100;
	for (auto tpid : tpids) {
		put(f, f.size(), tpid, 2);
		put(f, f.size(), vid++, 2);
	}
	f.insert(f.end(), eth.begin() + 12, eth.end());
	return f;
}

Buf with_ipv6_ext(const Buf &eth, const std::vector<std::uint8_t> &next)
{
	constexpr std::size_t ip = 14;
	Buf ext;
	std::uint8_t proto = eth[ip + 6];

	// Built from the innermost out: each header names the one after it.
	for (auto it = next.rbegin(); it != next.rend(); ++it) {
		Buf h;
		if (*it == 44) {
			h = {proto, 0, 0, 0, 0x12, 0x34, 0x56, 0x78}; // offset 0, no more
		} else if (*it == 51) {
			h = Buf(16, 0xA5); // AH: 16 bytes, length (16 / 4) - 2
			h[0] = proto;
			h[1] = 2;
		} else {
			h = Buf(16, 0); // 16 bytes: length (16 / 8) - 1, padding
			h[0] = proto;
			h[1] = 1;
			h[2] = 1; // a PadN option
			h[3] = 12;
		}
		ext.insert(ext.begin(), h.begin(), h.end());
		proto = *it;
	}
	Buf f(eth.begin(), eth.begin() + ip + 40);
	f[ip + 6] = proto;
	put(f, ip + 4, ((eth[ip + 4] << 8) | eth[ip + 5]) + ext.size(), 2);
	f.insert(f.end(), ext.begin(), ext.end());
	f.insert(f.end(), eth.begin() + ip + 40, eth.end());
	return f;
}

namespace
{

// An outer IPv4 or IPv6 header of protocol PROTO around PAYLOAD, in
// Ethernet, between two mirror endpoints.
Buf outer_ip(bool ipv6, std::uint8_t proto, const Buf &payload)
{
	Buf ip;
	if (ipv6) {
		put(ip, 0, 0x60000000u, 4);
		put(ip, 4, payload.size(), 2);
		ip.push_back(proto);
		ip.push_back(64);
		ip.resize(40);
		inet_pton(AF_INET6, "2001:db8::1", ip.data() + 8);
		inet_pton(AF_INET6, "2001:db8::2", ip.data() + 24);
	} else {
		put(ip, 0, 0x45, 1);
		put(ip, 2, 20 + payload.size(), 2);
		put(ip, 8, 64, 1);
		put(ip, 9, proto, 1);
		ip.resize(20);
		inet_pton(AF_INET, "192.0.2.1", ip.data() + 12);
		inet_pton(AF_INET, "192.0.2.2", ip.data() + 16);
	}
	ip.insert(ip.end(), payload.begin(), payload.end());
	Buf eth(12, 0x0E);
	put(eth, 12, ipv6 ? 0x86DD : 0x0800, 2);
	eth.insert(eth.end(), ip.begin(), ip.end());
	return eth;
}

} // namespace

Buf mirrored(const Buf &eth, Mirror how, bool outer_ipv6, bool subheader)
{
	Buf p;
	if (how == Mirror::Vxlan) {
		put(p, 0, 49152, 2);
		put(p, 2, 4789, 2);
		put(p, 8, 0x08000000, 4); // VNI valid
		put(p, 12, 0x001234 << 8, 4);
		p.insert(p.end(), eth.begin(), eth.end());
		put(p, 4, p.size(), 2);
		return outer_ip(outer_ipv6, 17, p);
	}
	switch (how) {
	case Mirror::Erspan1:
		put(p, 0, 0x000088BE, 4); // no sequence number
		break;
	case Mirror::Erspan2:
		put(p, 0, 0x100088BE, 4);
		put(p, 4, 7, 4);           // sequence number
		put(p, 8, 0x10640001, 4);  // version 1, VLAN 100, session 1
		put(p, 12, 0x00000000, 4); // index
		break;
	default:
		put(p, 0, 0x100022EB, 4);
		put(p, 4, 7, 4);
		put(p, 8, 0x20640001, 4);         // version 2, VLAN 100, session 1
		put(p, 12, 0x01020304, 4);        // timestamp
		put(p, 16, subheader ? 1 : 0, 4); // SGT, P, FT 0 (Ethernet), ..., O
		if (subheader)
			put(p, 20, 0x0123456789ABCDEFull, 8);
		break;
	}
	p.insert(p.end(), eth.begin(), eth.end());
	return outer_ip(outer_ipv6, 47, p);
}

} // namespace roce
