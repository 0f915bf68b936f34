/* options: -q */
int x;
#pragma D attributes Evolving/Evolving/Common x
BEGIN { x = 3; printf("%d\n", x); exit(0); }
