/* options: -xerrtags */
/*
 * An associative array redeclared with its value type but another key type: DTrace
 * names the first key that differs.
 */
int counts[int, string];
int counts[int, int];
BEGIN { exit(0); }
