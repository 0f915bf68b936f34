/* options: -x errtags */
int x;
#pragma D attributes Solid/Stable/Common x
BEGIN { exit(0); }
