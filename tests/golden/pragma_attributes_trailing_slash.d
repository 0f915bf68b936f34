/* options: -q */
/*
 * Attribute text may stop after a slash, even after the third part, as
 * dtrace_str2attr() reads it.
 */
int x;
int y;
#pragma D attributes Evolving/ x
#pragma D attributes Stable/Stable/Common/ y
BEGIN { x = 3; y = 4; printf("%d %d\n", x, y); exit(0); }
