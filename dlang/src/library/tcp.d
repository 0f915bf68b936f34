/*
 * tcp.d: TCP header flags and connection states, numbered as the Linux kernel numbers
 * them (TCP_ESTABLISHED = 1 to TCP_CLOSING = 11) so that sk_state and the tracepoints'
 * states compare directly, and tcp_state_string[] naming a state.
 */

inline int TH_FIN = 0x01;
inline int TH_SYN = 0x02;
inline int TH_RST = 0x04;
inline int TH_PSH = 0x08;
inline int TH_ACK = 0x10;
inline int TH_URG = 0x20;
inline int TH_ECE = 0x40;
inline int TH_CWR = 0x80;

inline int32_t TCP_STATE_IDLE = 0;
inline int32_t TCP_STATE_ESTABLISHED = 1;
inline int32_t TCP_STATE_SYN_SENT = 2;
inline int32_t TCP_STATE_SYN_RECEIVED = 3;
inline int32_t TCP_STATE_FIN_WAIT_1 = 4;
inline int32_t TCP_STATE_FIN_WAIT_2 = 5;
inline int32_t TCP_STATE_TIME_WAIT = 6;
inline int32_t TCP_STATE_CLOSED = 7;
inline int32_t TCP_STATE_CLOSE_WAIT = 8;
inline int32_t TCP_STATE_LAST_ACK = 9;
inline int32_t TCP_STATE_LISTEN = 10;
inline int32_t TCP_STATE_CLOSING = 11;

/*
 * A balanced choice rather than a chain of twelve: the eBPF code generator mishandles
 * string conditionals nested more than nine deep.
 */
inline string tcp_state_string[int32_t state] =
	state < TCP_STATE_IDLE || state > TCP_STATE_CLOSING ? "<unknown>" :
	state < TCP_STATE_TIME_WAIT ?
	    (state < TCP_STATE_SYN_RECEIVED ?
	    (state == TCP_STATE_IDLE ? "state-idle" :
	    state == TCP_STATE_ESTABLISHED ? "state-established" : "state-syn-sent") :
	    (state == TCP_STATE_SYN_RECEIVED ? "state-syn-received" :
	    state == TCP_STATE_FIN_WAIT_1 ? "state-fin-wait-1" : "state-fin-wait-2")) :
	    (state < TCP_STATE_LAST_ACK ?
	    (state == TCP_STATE_TIME_WAIT ? "state-time-wait" :
	    state == TCP_STATE_CLOSED ? "state-closed" : "state-close-wait") :
	    (state == TCP_STATE_LAST_ACK ? "state-last-ack" :
	    state == TCP_STATE_LISTEN ? "state-listen" : "state-closing"));

/*
 * The descriptions of DTrace's tcp.d: a TCP header (tcpinfo_t), a TCP connection
 * (tcpsinfo_t) and the state a state-change left (tcplsinfo_t).
 *
 * The tcp provider's probes pass, beyond their documented arguments, two hidden ones
 * that tcpsinfo_t reads, as Oracle's do: arg6, the connection's TCP state (the new
 * state at state-change, connect-established and accept-established; 0 for the
 * socket's own, a request minisocket's TCP_NEW_SYN_RECV read as SYN_RECEIVED), and
 * arg7, the direction (NET_PROBE_OUTBOUND, NET_PROBE_INBOUND, or 2 for a state
 * change). When a probe has no socket that knows the connection's ends (an incoming
 * SYN refused for want of a listener; a reset sent from the kernel's control socket),
 * they come from the packet's headers, its IP header in arg2 and TCP header in arg4,
 * by direction.
 *
 * Fixed from Oracle's (PROVIDERS-REFERENCE §10.12, §10.13): tcp_offset and tcp_flags
 * read the header's bytes, not memory a header size away; tcps_lport is skc_num, which
 * is in host order already; tcps_local compares all of an IPv6 address; tcps_rto is in
 * milliseconds (icsk_rto is in jiffies, so it is computed the way the kernel computes
 * it, from the smoothed RTT and its variance, before backoff); tcps_irs allows for the
 * SYN's sequence number, which bytes_received does not count. tcp_sock's own members
 * are read only from a full socket: a request or timewait minisocket shares only
 * struct sock_common with it, and reads 0.
 */

#pragma D depends_on library ip.d

typedef struct tcpinfo {
	uint16_t tcp_sport;		/* source port */
	uint16_t tcp_dport;		/* destination port */
	uint32_t tcp_seq;		/* sequence number */
	uint32_t tcp_ack;		/* acknowledgment number */
	uint8_t tcp_offset;		/* data offset, in bytes */
	uint8_t tcp_flags;		/* flags (TH_*) */
	uint16_t tcp_window;		/* window size */
	uint16_t tcp_checksum;		/* checksum */
	uint16_t tcp_urgent;		/* urgent data pointer */
	struct tcphdr *tcp_hdr;		/* the header; NULL when the event has none */
} tcpinfo_t;

typedef struct tcpsinfo {
	uintptr_t tcps_addr;		/* the kernel's socket */
	int tcps_local;			/* both ends have the same address */
	uint16_t tcps_lport;		/* local port */
	uint16_t tcps_rport;		/* remote port */
	string tcps_laddr;		/* local address */
	string tcps_raddr;		/* remote address */
	int32_t tcps_state;		/* TCP state (TCP_STATE_*) */
	uint32_t tcps_iss;		/* initial send sequence number */
	uint32_t tcps_irs;		/* initial receive sequence number */
	uint32_t tcps_suna;		/* oldest unacknowledged sequence number */
	uint32_t tcps_snxt;		/* next sequence number to send */
	uint32_t tcps_rnxt;		/* next sequence number expected */
	uint32_t tcps_swnd;		/* send window */
	int32_t tcps_snd_ws;		/* send window scale */
	uint32_t tcps_rwnd;		/* receive window */
	int32_t tcps_rcv_ws;		/* receive window scale */
	uint32_t tcps_cwnd;		/* congestion window */
	uint32_t tcps_cwnd_ssthresh;	/* slow-start threshold */
	uint32_t tcps_sack_snxt;	/* next sequence number to retransmit with SACK */
	uint32_t tcps_rto;		/* retransmit timeout, milliseconds */
	uint32_t tcps_mss;		/* maximum segment size */
	int tcps_retransmit;		/* this segment is a retransmission */
	uint32_t tcps_rtt;		/* smoothed round-trip time, milliseconds */
	uint32_t tcps_rtt_sd;		/* its mean deviation, milliseconds */
} tcpsinfo_t;

typedef struct tcplsinfo {
	int32_t tcps_state;		/* the previous TCP state */
} tcplsinfo_t;

translator tcpinfo_t < struct tcphdr *T > {
	tcp_sport = T == NULL ? 0 : ntohs(T->source);
	tcp_dport = T == NULL ? 0 : ntohs(T->dest);
	tcp_seq = T == NULL ? 0 : ntohl(T->seq);
	tcp_ack = T == NULL ? 0 : ntohl(T->ack_seq);
	tcp_offset = T == NULL ? 0 : T->doff * 4;
	tcp_flags = T == NULL ? 0 : *((uint8_t *)T + 13);
	tcp_window = T == NULL ? 0 : ntohs(T->window);
	tcp_checksum = T == NULL ? 0 : ntohs(T->check);
	tcp_urgent = T == NULL ? 0 : ntohs(T->urg_ptr);
	tcp_hdr = T;
};

/*
 * The segment a socket has just received, for the probes whose event carries no
 * packet (connect-established, accept-established, connect-refused): its ports are the
 * socket's, remote to local; what only the segment held reads 0.
 */
translator tcpinfo_t < struct sock *S > {
	tcp_sport = ntohs(S->__sk_common.skc_dport);
	tcp_dport = S->__sk_common.skc_num;
	tcp_seq = 0;
	tcp_ack = 0;
	tcp_offset = 0;
	tcp_flags = 0;
	tcp_window = 0;
	tcp_checksum = 0;
	tcp_urgent = 0;
	tcp_hdr = NULL;
};

translator tcpsinfo_t < struct tcp_sock *T > {
	tcps_addr = (uintptr_t)T;
	tcps_local = !__dtrace_tcp_socket_has_ends[T] ?
	    (*(uint8_t *)arg2 >> 4 == 6 ?
	    ((struct ipv6hdr *)arg2)->saddr.in6_u.u6_addr32[0] == ((struct ipv6hdr *)arg2)->daddr.in6_u.u6_addr32[0] &&
	    ((struct ipv6hdr *)arg2)->saddr.in6_u.u6_addr32[1] == ((struct ipv6hdr *)arg2)->daddr.in6_u.u6_addr32[1] &&
	    ((struct ipv6hdr *)arg2)->saddr.in6_u.u6_addr32[2] == ((struct ipv6hdr *)arg2)->daddr.in6_u.u6_addr32[2] &&
	    ((struct ipv6hdr *)arg2)->saddr.in6_u.u6_addr32[3] == ((struct ipv6hdr *)arg2)->daddr.in6_u.u6_addr32[3] :
	    ((struct iphdr *)arg2)->saddr == ((struct iphdr *)arg2)->daddr) :
	    ((struct sock *)T)->__sk_common.skc_family == AF_INET6 ?
	    ((struct sock *)T)->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[0] == ((struct sock *)T)->__sk_common.skc_v6_daddr.in6_u.u6_addr32[0] &&
	    ((struct sock *)T)->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[1] == ((struct sock *)T)->__sk_common.skc_v6_daddr.in6_u.u6_addr32[1] &&
	    ((struct sock *)T)->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[2] == ((struct sock *)T)->__sk_common.skc_v6_daddr.in6_u.u6_addr32[2] &&
	    ((struct sock *)T)->__sk_common.skc_v6_rcv_saddr.in6_u.u6_addr32[3] == ((struct sock *)T)->__sk_common.skc_v6_daddr.in6_u.u6_addr32[3] :
	    ((struct sock *)T)->__sk_common.skc_rcv_saddr == ((struct sock *)T)->__sk_common.skc_daddr;
	tcps_lport = __dtrace_tcp_socket_has_ends[T] ? ((struct sock *)T)->__sk_common.skc_num :
	    arg4 == 0 ? 0 : arg7 == NET_PROBE_INBOUND ?
	    ntohs(((struct tcphdr *)arg4)->dest) : ntohs(((struct tcphdr *)arg4)->source);
	tcps_rport = __dtrace_tcp_socket_has_ends[T] ? ntohs(((struct sock *)T)->__sk_common.skc_dport) :
	    arg4 == 0 ? 0 : arg7 == NET_PROBE_INBOUND ?
	    ntohs(((struct tcphdr *)arg4)->source) : ntohs(((struct tcphdr *)arg4)->dest);
	tcps_laddr = __dtrace_tcp_ipv6[T] ?
	    inet_ntoa6(__dtrace_tcp_socket_has_ends[T] ?
	    &((struct sock *)T)->__sk_common.skc_v6_rcv_saddr : arg7 == NET_PROBE_INBOUND ?
	    &((struct ipv6hdr *)arg2)->daddr : &((struct ipv6hdr *)arg2)->saddr) :
	    inet_ntoa(__dtrace_tcp_socket_has_ends[T] ?
	    &((struct sock *)T)->__sk_common.skc_rcv_saddr : arg7 == NET_PROBE_INBOUND ?
	    &((struct iphdr *)arg2)->daddr : &((struct iphdr *)arg2)->saddr);
	tcps_raddr = __dtrace_tcp_ipv6[T] ?
	    inet_ntoa6(__dtrace_tcp_socket_has_ends[T] ?
	    &((struct sock *)T)->__sk_common.skc_v6_daddr : arg7 == NET_PROBE_INBOUND ?
	    &((struct ipv6hdr *)arg2)->saddr : &((struct ipv6hdr *)arg2)->daddr) :
	    inet_ntoa(__dtrace_tcp_socket_has_ends[T] ?
	    &((struct sock *)T)->__sk_common.skc_daddr : arg7 == NET_PROBE_INBOUND ?
	    &((struct iphdr *)arg2)->saddr : &((struct iphdr *)arg2)->daddr);
	tcps_state = arg6 != 0 ? arg6 : !__dtrace_tcp_socket_has_ends[T] ? 0 :
	    ((struct sock *)T)->__sk_common.skc_state == 12 ? TCP_STATE_SYN_RECEIVED :
	    ((struct sock *)T)->__sk_common.skc_state;
	tcps_iss = __dtrace_tcp_full_socket[T] ? T->snd_una - (uint32_t)T->bytes_acked : 0;
	tcps_irs = __dtrace_tcp_full_socket[T] && T->rcv_nxt != 0 ?
	    T->rcv_nxt - (uint32_t)T->bytes_received - 1 : 0;
	tcps_suna = __dtrace_tcp_full_socket[T] ? T->snd_una : 0;
	tcps_snxt = __dtrace_tcp_full_socket[T] ? T->snd_nxt : 0;
	tcps_rnxt = __dtrace_tcp_full_socket[T] ? T->rcv_nxt : 0;
	tcps_swnd = __dtrace_tcp_full_socket[T] ? T->snd_wnd : 0;
	tcps_snd_ws = __dtrace_tcp_full_socket[T] ? T->rx_opt.snd_wscale : 0;
	tcps_rwnd = __dtrace_tcp_full_socket[T] ? T->rcv_wnd : 0;
	tcps_rcv_ws = __dtrace_tcp_full_socket[T] ? T->rx_opt.rcv_wscale : 0;
	tcps_cwnd = __dtrace_tcp_full_socket[T] ? T->snd_cwnd : 0;
	tcps_cwnd_ssthresh = __dtrace_tcp_full_socket[T] ? T->snd_ssthresh : 0;
	tcps_sack_snxt = !__dtrace_tcp_full_socket[T] ? 0 :
	    T->sacked_out == 0 ? T->snd_una :
	    T->highest_sack == NULL ? T->snd_nxt :
	    ((struct tcp_skb_cb *)&T->highest_sack->cb[0])->seq;
	tcps_rto = !__dtrace_tcp_full_socket[T] ? 0 :
	    T->srtt_us == 0 ? 1000 : ((T->srtt_us >> 3) + T->rttvar_us) / 1000;
	tcps_mss = __dtrace_tcp_full_socket[T] ? T->mss_cache : 0;
	/* A segment going out below snd_nxt was sent before (snd_nxt moves after). */
	tcps_retransmit = __dtrace_tcp_full_socket[T] && arg7 == NET_PROBE_OUTBOUND && arg4 != 0 ?
	    (int32_t)(ntohl(((struct tcphdr *)arg4)->seq) - T->snd_nxt) < 0 : 0;
	tcps_rtt = __dtrace_tcp_full_socket[T] ? (T->srtt_us >> 3) / 1000 : 0;
	tcps_rtt_sd = __dtrace_tcp_full_socket[T] ? (T->mdev_us >> 2) / 1000 : 0;
};

translator tcplsinfo_t < int S > {
	tcps_state = S;
};

/*
 * Whether a socket knows the connection's ends: a full TCP socket (SOCK_STREAM), or a
 * request or timewait minisocket, whose struct sock_common holds them; not the
 * per-namespace control socket the kernel sends resets and timewait ACKs from.
 */
inline int __dtrace_tcp_socket_has_ends[struct tcp_sock *T] = T != NULL &&
	(((struct sock *)T)->__sk_common.skc_state == 12 ||
	((struct sock *)T)->__sk_common.skc_state == TCP_STATE_TIME_WAIT ||
	((struct sock *)T)->sk_type == 1);

/*
 * Whether the connection is IPv6: by the socket's family when it knows the ends, else
 * by the version of the IP header in arg2.
 */
inline int __dtrace_tcp_ipv6[struct tcp_sock *T] = __dtrace_tcp_socket_has_ends[T] ?
	((struct sock *)T)->__sk_common.skc_family == AF_INET6 : *(uint8_t *)arg2 >> 4 == 6;

/*
 * Whether a socket is a full TCP socket, whose struct tcp_sock members exist: not
 * NULL, not a request minisocket (TCP_NEW_SYN_RECV) nor a timewait one.
 */
inline int __dtrace_tcp_full_socket[struct tcp_sock *T] = T != NULL &&
	((struct sock *)T)->__sk_common.skc_state != 12 &&
	((struct sock *)T)->__sk_common.skc_state != TCP_STATE_TIME_WAIT;
