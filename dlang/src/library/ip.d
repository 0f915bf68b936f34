/*
 * ip.d: IP protocol numbers, for predicates such as `args[4]->ipv4_protocol == IPPROTO_TCP`,
 * and the length of a TCP header without options.
 */

inline int IPPROTO_IP = 0;
inline int IPPROTO_HOPOPTS = 0;
inline int IPPROTO_ICMP = 1;
inline int IPPROTO_IGMP = 2;
inline int IPPROTO_IPIP = 4;
inline int IPPROTO_TCP = 6;
inline int IPPROTO_EGP = 8;
inline int IPPROTO_PUP = 12;
inline int IPPROTO_UDP = 17;
inline int IPPROTO_IDP = 22;
inline int IPPROTO_TP = 29;
inline int IPPROTO_DCCP = 33;
inline int IPPROTO_IPV6 = 41;
inline int IPPROTO_ROUTING = 43;
inline int IPPROTO_FRAGMENT = 44;
inline int IPPROTO_RSVP = 46;
inline int IPPROTO_GRE = 47;
inline int IPPROTO_ESP = 50;
inline int IPPROTO_AH = 51;
inline int IPPROTO_ICMPV6 = 58;
inline int IPPROTO_NONE = 59;
inline int IPPROTO_DSTOPTS = 60;
inline int IPPROTO_OSPF = 89;
inline int IPPROTO_MTP = 92;
inline int IPPROTO_BEETPH = 94;
inline int IPPROTO_ENCAP = 98;
inline int IPPROTO_PIM = 103;
inline int IPPROTO_COMP = 108;
inline int IPPROTO_SCTP = 132;
inline int IPPROTO_MH = 135;
inline int IPPROTO_UDPLITE = 136;
inline int IPPROTO_RAW = 255;
inline int IPPROTO_MAX = 256;
inline int TCP_MIN_HEADER_LENGTH = 20;

/*
 * The descriptions of DTrace's ip.d, translated from the kernel's IP headers, the
 * network device and, for TCP probes whose event carries no packet, the socket. A
 * header pointer of unknown IP version (the ip, tcp and udp providers pass the
 * address of the header they found in the packet) is a void_ip_t; its translators read
 * the version nibble. Oracle's ip_plength, ipv4_flags and ipv4_offset bound or masked
 * wrongly (PROVIDERS-REFERENCE §10.8, §10.10): here they follow the header's layout.
 */

#pragma D depends_on library net.d

typedef uint64_t netstackid_t;
typedef uintptr_t void_ip_t;

typedef struct ipinfo {
	uint8_t ip_ver;			/* IP version, 4 or 6 */
	uint32_t ip_plength;		/* payload length */
	string ip_saddr;		/* source address */
	string ip_daddr;		/* destination address */
} ipinfo_t;

typedef struct ifinfo {
	string if_name;			/* interface name */
	int8_t if_local;		/* no device, or the loopback device */
	netstackid_t if_ipstack;	/* the device's network namespace */
	uintptr_t if_addr;		/* the kernel's struct net_device */
} ifinfo_t;

typedef struct ipv4info {
	uint8_t ipv4_ver;		/* IP version, 4 */
	uint8_t ipv4_ihl;		/* header length in bytes */
	uint8_t ipv4_tos;		/* type of service */
	uint16_t ipv4_length;		/* total length */
	uint16_t ipv4_ident;		/* identification */
	uint8_t ipv4_flags;		/* the 3 flag bits (reserved, DF, MF) */
	uint16_t ipv4_offset;		/* fragment offset, in 8-byte units */
	uint8_t ipv4_ttl;		/* time to live */
	uint8_t ipv4_protocol;		/* next protocol */
	string ipv4_protostr;		/* its name */
	uint16_t ipv4_checksum;		/* header checksum */
	uint32_t ipv4_src;		/* source address (ipaddr_t), network order */
	uint32_t ipv4_dst;		/* destination address (ipaddr_t), network order */
	string ipv4_saddr;		/* source address */
	string ipv4_daddr;		/* destination address */
	struct iphdr *ipv4_hdr;		/* the header */
} ipv4info_t;

typedef struct ipv6info {
	uint8_t ipv6_ver;		/* IP version, 6 */
	uint8_t ipv6_tclass;		/* traffic class */
	uint32_t ipv6_flow;		/* flow label */
	uint16_t ipv6_plen;		/* payload length */
	uint8_t ipv6_nexthdr;		/* next header (extension headers are not walked) */
	string ipv6_nextstr;		/* its name */
	uint8_t ipv6_hlim;		/* hop limit */
	struct in6_addr *ipv6_src;	/* source address (in6_addr_t *) */
	struct in6_addr *ipv6_dst;	/* destination address (in6_addr_t *) */
	string ipv6_saddr;		/* source address */
	string ipv6_daddr;		/* destination address */
	struct ipv6hdr *ipv6_hdr;	/* the header */
} ipv6info_t;

/*
 * The name of an IP protocol number, or the number in decimal; a balanced choice, as
 * tcp_state_string[] in tcp.d is.
 */
inline string __dtrace_ip_protocol_name[int protocol] =
	protocol != IPPROTO_IP && protocol != IPPROTO_ICMP && protocol != IPPROTO_IGMP &&
	protocol != IPPROTO_TCP && protocol != IPPROTO_UDP && protocol != IPPROTO_EGP &&
	protocol != IPPROTO_IPV6 && protocol != IPPROTO_ROUTING && protocol != IPPROTO_ESP &&
	protocol != IPPROTO_AH && protocol != IPPROTO_ICMPV6 && protocol != IPPROTO_OSPF &&
	protocol != IPPROTO_SCTP && protocol != IPPROTO_RAW ? lltostr(protocol) :
	protocol <= IPPROTO_UDP ?
	    (protocol <= IPPROTO_IGMP ?
	    (protocol == IPPROTO_IP ? "IP" : protocol == IPPROTO_ICMP ? "ICMP" : "IGMP") :
	    (protocol == IPPROTO_TCP ? "TCP" : protocol == IPPROTO_UDP ? "UDP" : "EGP")) :
	protocol <= IPPROTO_ICMPV6 ?
	    (protocol == IPPROTO_IPV6 ? "IPv6" : protocol == IPPROTO_ROUTING ? "ROUTE" :
	    protocol == IPPROTO_ESP ? "ESP" : protocol == IPPROTO_AH ? "AH" : "ICMPv6") :
	    (protocol == IPPROTO_OSPF ? "OSPF" : protocol == IPPROTO_SCTP ? "SCTP" : "RAW");

translator ipinfo_t < struct iphdr *I > {
	ip_ver = I == NULL ? 0 : 4;
	ip_plength = I == NULL ? 0 : ntohs(I->tot_len) - I->ihl * 4;
	ip_saddr = I == NULL ? "<unknown>" : inet_ntoa(&I->saddr);
	ip_daddr = I == NULL ? "<unknown>" : inet_ntoa(&I->daddr);
};

translator ipinfo_t < struct ipv6hdr *I > {
	ip_ver = I == NULL ? 0 : 6;
	ip_plength = I == NULL ? 0 : ntohs(I->payload_len);
	ip_saddr = I == NULL ? "<unknown>" : inet_ntoa6(&I->saddr);
	ip_daddr = I == NULL ? "<unknown>" : inet_ntoa6(&I->daddr);
};

translator ipinfo_t < void_ip_t I > {
	ip_ver = I == 0 ? 0 : *(uint8_t *)I >> 4;
	ip_plength = I == 0 ? 0 : *(uint8_t *)I >> 4 == 6 ?
	    xlate <ipinfo_t> ((struct ipv6hdr *)I).ip_plength :
	    xlate <ipinfo_t> ((struct iphdr *)I).ip_plength;
	ip_saddr = I == 0 ? "<unknown>" : *(uint8_t *)I >> 4 == 6 ?
	    inet_ntoa6(&((struct ipv6hdr *)I)->saddr) : inet_ntoa(&((struct iphdr *)I)->saddr);
	ip_daddr = I == 0 ? "<unknown>" : *(uint8_t *)I >> 4 == 6 ?
	    inet_ntoa6(&((struct ipv6hdr *)I)->daddr) : inet_ntoa(&((struct iphdr *)I)->daddr);
};

/*
 * The segment a socket has just received, for the TCP probes whose event carries no
 * packet (connect-established, accept-established, connect-refused): its source is
 * the socket's remote end, its destination the local one. The payload is unknown.
 */
translator ipinfo_t < struct sock *S > {
	ip_ver = S->__sk_common.skc_family == AF_INET6 ? 6 : 4;
	ip_plength = 0;
	ip_saddr = S->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(&S->__sk_common.skc_v6_daddr) :
	    inet_ntoa(&S->__sk_common.skc_daddr);
	ip_daddr = S->__sk_common.skc_family == AF_INET6 ?
	    inet_ntoa6(&S->__sk_common.skc_v6_rcv_saddr) :
	    inet_ntoa(&S->__sk_common.skc_rcv_saddr);
};

/* if_local: Oracle's says only "no device"; the loopback device (IFF_LOOPBACK) is too. */
translator ifinfo_t < struct net_device *N > {
	if_name = N == NULL ? "<unknown>" : stringof(N->name);
	if_local = N == NULL || (N->flags & 0x8) != 0;
	if_ipstack = N == NULL ? 0 : (uint64_t)N->nd_net.net;
	if_addr = (uintptr_t)N;
};

translator ipv4info_t < struct iphdr *I > {
	ipv4_ver = I == NULL ? 0 : 4;
	ipv4_ihl = I == NULL ? 0 : I->ihl * 4;
	ipv4_tos = I == NULL ? 0 : I->tos;
	ipv4_length = I == NULL ? 0 : ntohs(I->tot_len);
	ipv4_ident = I == NULL ? 0 : ntohs(I->id);
	ipv4_flags = I == NULL ? 0 : ntohs(I->frag_off) >> 13;
	ipv4_offset = I == NULL ? 0 : ntohs(I->frag_off) & 0x1fff;
	ipv4_ttl = I == NULL ? 0 : I->ttl;
	ipv4_protocol = I == NULL ? 0 : I->protocol;
	ipv4_protostr = I == NULL ? "<null>" : __dtrace_ip_protocol_name[I->protocol];
	ipv4_checksum = I == NULL ? 0 : ntohs(I->check);
	ipv4_src = I == NULL ? 0 : I->saddr;
	ipv4_dst = I == NULL ? 0 : I->daddr;
	ipv4_saddr = I == NULL ? "<null>" : inet_ntoa(&I->saddr);
	ipv4_daddr = I == NULL ? "<null>" : inet_ntoa(&I->daddr);
	ipv4_hdr = I;
};

translator ipv6info_t < struct ipv6hdr *I > {
	ipv6_ver = I == NULL ? 0 : *(uint8_t *)I >> 4;
	ipv6_tclass = I == NULL ? 0 : (ntohl(*(uint32_t *)I) >> 20) & 0xff;
	ipv6_flow = I == NULL ? 0 : ntohl(*(uint32_t *)I) & 0xfffff;
	ipv6_plen = I == NULL ? 0 : ntohs(I->payload_len);
	ipv6_nexthdr = I == NULL ? 0 : I->nexthdr;
	ipv6_nextstr = I == NULL ? "<null>" : __dtrace_ip_protocol_name[I->nexthdr];
	ipv6_hlim = I == NULL ? 0 : I->hop_limit;
	ipv6_src = I == NULL ? NULL : &I->saddr;
	ipv6_dst = I == NULL ? NULL : &I->daddr;
	ipv6_saddr = I == NULL ? "<null>" : inet_ntoa6(&I->saddr);
	ipv6_daddr = I == NULL ? "<null>" : inet_ntoa6(&I->daddr);
	ipv6_hdr = I;
};
