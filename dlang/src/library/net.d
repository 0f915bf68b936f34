/*
 * net.d: address families and link types (for inet_ntop() and link_ntop()) and the
 * direction a network probe reports.
 */

inline int AF_INET = 2;
inline int AF_INET6 = 10;
inline int ARPHRD_ETHER = 1;
inline int ARPHRD_INFINIBAND = 32;
inline int NET_PROBE_OUTBOUND = 0;
inline int NET_PROBE_INBOUND = 1;
