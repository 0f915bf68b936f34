/* options: -xerrtags */
/* An inline may not take the name of an existing variable; DTrace names both. */
int total;
inline int total = 3;
BEGIN { exit(0); }
