/* options: -xerrtags */
/* An inline may not take the name of an existing variable; DTrace names both. */
int count;
inline int count = 3;
BEGIN { exit(0); }
