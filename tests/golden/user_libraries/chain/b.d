#pragma D depends_on library c.d

typedef struct chain_pair {
	int cp_first;
	int cp_second;
} chain_pair_t;

inline int CHAIN_B = CHAIN_C * 2;
