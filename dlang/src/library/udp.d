/*
 * udp.d: the descriptions of DTrace's udp.d: a UDP header (udpinfo_t) and the UDP
 * socket's ends (udpsinfo_t). The udp provider's probes pass a hidden arg5, the
 * direction (NET_PROBE_OUTBOUND or NET_PROBE_INBOUND), by which udpsinfo_t takes the
 * local and remote ends from the packet's IP header (arg2) and UDP header (arg4):
 * Oracle chose by probename, which costs a string comparison per use. Since only the
 * headers are read, udpsinfo_t is complete where the kernel has not yet found the
 * socket (udp:::receive), and then udps_addr is 0.
 */

#pragma D depends_on library ip.d

typedef struct udpinfo {
	uint16_t udp_sport;		/* source port */
	uint16_t udp_dport;		/* destination port */
	uint16_t udp_length;		/* length of header and payload */
	uint16_t udp_checksum;		/* checksum */
	struct udphdr *udp_hdr;		/* the header */
} udpinfo_t;

typedef struct udpsinfo {
	uintptr_t udps_addr;		/* the kernel's socket; 0 when not known */
	uint16_t udps_lport;		/* local port */
	uint16_t udps_rport;		/* remote port */
	string udps_laddr;		/* local address */
	string udps_raddr;		/* remote address */
} udpsinfo_t;

translator udpinfo_t < struct udphdr *U > {
	udp_sport = U == NULL ? 0 : ntohs(U->source);
	udp_dport = U == NULL ? 0 : ntohs(U->dest);
	udp_length = U == NULL ? 0 : ntohs(U->len);
	udp_checksum = U == NULL ? 0 : ntohs(U->check);
	udp_hdr = U;
};

translator udpsinfo_t < struct udp_sock *U > {
	udps_addr = (uintptr_t)U;
	udps_lport = arg4 == 0 ? 0 : arg5 == NET_PROBE_INBOUND ?
	    ntohs(((struct udphdr *)arg4)->dest) : ntohs(((struct udphdr *)arg4)->source);
	udps_rport = arg4 == 0 ? 0 : arg5 == NET_PROBE_INBOUND ?
	    ntohs(((struct udphdr *)arg4)->source) : ntohs(((struct udphdr *)arg4)->dest);
	udps_laddr = *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(arg5 == NET_PROBE_INBOUND ?
	    &((struct ipv6hdr *)arg2)->daddr : &((struct ipv6hdr *)arg2)->saddr) :
	    inet_ntoa(arg5 == NET_PROBE_INBOUND ?
	    &((struct iphdr *)arg2)->daddr : &((struct iphdr *)arg2)->saddr);
	udps_raddr = *(uint8_t *)arg2 >> 4 == 6 ?
	    inet_ntoa6(arg5 == NET_PROBE_INBOUND ?
	    &((struct ipv6hdr *)arg2)->saddr : &((struct ipv6hdr *)arg2)->daddr) :
	    inet_ntoa(arg5 == NET_PROBE_INBOUND ?
	    &((struct iphdr *)arg2)->saddr : &((struct iphdr *)arg2)->daddr);
};
