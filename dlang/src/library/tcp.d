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

inline string tcp_state_string[int32_t state] =
	state == TCP_STATE_IDLE ? "state-idle" :
	state == TCP_STATE_ESTABLISHED ? "state-established" :
	state == TCP_STATE_SYN_SENT ? "state-syn-sent" :
	state == TCP_STATE_SYN_RECEIVED ? "state-syn-received" :
	state == TCP_STATE_FIN_WAIT_1 ? "state-fin-wait-1" :
	state == TCP_STATE_FIN_WAIT_2 ? "state-fin-wait-2" :
	state == TCP_STATE_TIME_WAIT ? "state-time-wait" :
	state == TCP_STATE_CLOSED ? "state-closed" :
	state == TCP_STATE_CLOSE_WAIT ? "state-close-wait" :
	state == TCP_STATE_LAST_ACK ? "state-last-ack" :
	state == TCP_STATE_LISTEN ? "state-listen" :
	state == TCP_STATE_CLOSING ? "state-closing" :
	"<unknown>";
