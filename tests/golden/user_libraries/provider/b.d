/* Skipped too: it depends on a skipped library. */
#pragma D depends_on library a.d
inline int PROVIDER_B = PROVIDER_A + 1;
