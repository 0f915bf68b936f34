/* options: -q */
/*
 * The constants of DTrace's other D libraries, declared without an #include:
 * unistd.d's fault codes, procfs.d's data models, pid types, flags, process states and
 * SIGCHLD codes, io.d's buffer, request and open(2) flags (x86_64), net.d's address
 * families, link types and directions, ip.d's protocol numbers, tcp.d's header flags,
 * states and state names (numbered as Linux numbers them), lockstat.d's lock kinds.
 */
BEGIN
{
	printf("unistd %d %d %d %d %d %d %d %d %d %d %d %d %d\n", DTRACEFLT_UNKNOWN,
	    DTRACEFLT_BADADDR, DTRACEFLT_BADALIGN, DTRACEFLT_ILLOP, DTRACEFLT_DIVZERO,
	    DTRACEFLT_NOSCRATCH, DTRACEFLT_KPRIV, DTRACEFLT_UPRIV, DTRACEFLT_TUPOFLOW,
	    DTRACEFLT_BADSTACK, DTRACEFLT_BADSIZE, DTRACEFLT_BADINDEX, DTRACEFLT_LIBRARY);
	printf("procfs %d %d %d %d %d %d %x %x %x %x\n", PR_MODEL_ILP32, PR_MODEL_LP64,
	    PIDTYPE_PID, PIDTYPE_TGID, PIDTYPE_PGID, PIDTYPE_SID, PR_STOPPED, PR_ISTOP,
	    PR_DSTOP, PR_IDLE);
	printf("procfs %d %d %d %d %d %d %d %d %d\n", sizeof (SSLEEP), SSLEEP, SRUN,
	    SZOMB, SSTOP, SIDL, SONPROC, SWAIT, sizeof (PR_MODEL_LP64));
	printf("procfs %d %d %d %d %d %d\n", CLD_EXITED, CLD_KILLED, CLD_DUMPED,
	    CLD_TRAPPED, CLD_STOPPED, CLD_CONTINUED);
	printf("io %x %x %x %x %x %x %x %x %x %x\n", B_BUSY, B_DONE, B_ERROR, B_PAGEIO,
	    B_PHYS, B_READ, B_WRITE, B_ASYNC, REQ_WRITE, REQ_SYNC);
	printf("io %o %o %o %o %o %o %o %o %o %o\n", O_ACCMODE, O_RDONLY, O_WRONLY,
	    O_RDWR, O_CREAT, O_EXCL, O_NOCTTY, O_TRUNC, O_APPEND, O_NONBLOCK);
	printf("io %o %o %o %o %o %o %o %o %o\n", O_NDELAY, O_DSYNC, O_ASYNC,
	    O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_SYNC, O_FSYNC, O_RSYNC);
	printf("net %d %d %d %d %d %d\n", AF_INET, AF_INET6, ARPHRD_ETHER,
	    ARPHRD_INFINIBAND, NET_PROBE_OUTBOUND, NET_PROBE_INBOUND);
	printf("ip %d %d %d %d %d %d %d %d %d %d %d %d\n", IPPROTO_IP, IPPROTO_ICMP,
	    IPPROTO_IGMP, IPPROTO_IPIP, IPPROTO_TCP, IPPROTO_EGP, IPPROTO_PUP,
	    IPPROTO_UDP, IPPROTO_IDP, IPPROTO_TP, IPPROTO_DCCP, IPPROTO_IPV6);
	printf("ip %d %d %d %d %d %d %d %d %d %d %d %d\n", IPPROTO_RSVP, IPPROTO_GRE,
	    IPPROTO_ESP, IPPROTO_AH, IPPROTO_OSPF, IPPROTO_MTP, IPPROTO_BEETPH,
	    IPPROTO_ENCAP, IPPROTO_PIM, IPPROTO_COMP, IPPROTO_SCTP, IPPROTO_UDPLITE);
	printf("ip %d %d %d %d %d %d %d %d %d %d\n", IPPROTO_RAW, IPPROTO_MAX,
	    IPPROTO_HOPOPTS, IPPROTO_ROUTING, IPPROTO_FRAGMENT, IPPROTO_ICMPV6,
	    IPPROTO_NONE, IPPROTO_DSTOPTS, IPPROTO_MH, TCP_MIN_HEADER_LENGTH);
	printf("tcp %x %x %x %x %x %x %x %x\n", TH_FIN, TH_SYN, TH_RST, TH_PSH, TH_ACK,
	    TH_URG, TH_ECE, TH_CWR);
	printf("tcp %d %d %d %d %d %d %d %d %d %d %d %d\n", TCP_STATE_IDLE,
	    TCP_STATE_ESTABLISHED, TCP_STATE_SYN_SENT, TCP_STATE_SYN_RECEIVED,
	    TCP_STATE_FIN_WAIT_1, TCP_STATE_FIN_WAIT_2, TCP_STATE_TIME_WAIT,
	    TCP_STATE_CLOSED, TCP_STATE_CLOSE_WAIT, TCP_STATE_LAST_ACK, TCP_STATE_LISTEN,
	    TCP_STATE_CLOSING);
	printf("tcp %s %s %s %s\n", tcp_state_string[TCP_STATE_IDLE],
	    tcp_state_string[TCP_STATE_SYN_RECEIVED], tcp_state_string[TCP_STATE_FIN_WAIT_2],
	    tcp_state_string[TCP_STATE_CLOSE_WAIT]);
	printf("tcp %s %s %s\n", tcp_state_string[TCP_STATE_CLOSING],
	    tcp_state_string[TCP_STATE_ESTABLISHED], tcp_state_string[12]);
	printf("lockstat %d %d\n", RW_WRITER, RW_READER);
	exit(0);
}
