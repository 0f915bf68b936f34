/*
 * net.d: address families and link types (for inet_ntop() and link_ntop()), the
 * direction a network probe reports, and the descriptions every network provider
 * shares: the packet (pktinfo_t), the connection (csinfo_t) and, for
 * application-protocol providers, conninfo_t.
 */

inline int AF_INET = 2;
inline int AF_INET6 = 10;
inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;
inline int NET_PROBE_OUTBOUND = 0;
inline int NET_PROBE_INBOUND = 1;

typedef struct pktinfo {
	uintptr_t pkt_addr;		/* the kernel's struct sk_buff; 0 when none */
} pktinfo_t;

typedef struct csinfo {
	uintptr_t cs_addr;		/* the kernel's struct sock; 0 when none */
	uint64_t cs_cid;		/* the socket's cookie (0 until first asked for) */
} csinfo_t;

typedef struct conninfo {
	string ci_local;		/* local host address */
	string ci_remote;		/* remote host address */
	string ci_protocol;		/* protocol (ipv4, ipv6, ...) */
} conninfo_t;

translator pktinfo_t < struct sk_buff *S > {
	pkt_addr = (uintptr_t)S;
};

translator csinfo_t < struct sock *S > {
	cs_addr = (uintptr_t)S;
	cs_cid = S == NULL ? 0 : S->__sk_common.skc_cookie.counter;
};
