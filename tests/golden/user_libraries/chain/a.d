/* a.d needs b.d's inline and type, so b.d must be declared first. */
#pragma D depends_on library b.d

inline int CHAIN_A = CHAIN_B + 1;
inline int CHAIN_PAIR_SIZE = sizeof (chain_pair_t);
