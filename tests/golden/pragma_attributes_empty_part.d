/* options: -x errtags */
/* dtrace_str2attr() refuses an empty part before a later one. */
int x;
#pragma D attributes /Stable x
BEGIN { exit(0); }
