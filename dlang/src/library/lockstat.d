/*
 * lockstat.d: the kinds of reader/writer lock hold the lockstat provider reports.
 */

inline int RW_WRITER = 0;
inline int RW_READER = 1;
