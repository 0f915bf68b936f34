#pragma D depends_on library absent.d
inline int MISSING_A = 1;
