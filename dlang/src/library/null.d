/*
 * null.d: NULL, the null pointer constant, as C's <stddef.h> defines it. It compares
 * equal to every null pointer and to a string that is a null pointer (strstr() finding
 * nothing), and converts to any pointer type. Unlike the other files it is part of the
 * language, so `-x nolibs` keeps it; with -C, a header that defines NULL as
 * ((void *)0) replaces it before the compiler sees the name.
 */

inline void *NULL = 0;
