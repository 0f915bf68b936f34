/* options: -xerrtags */
/*
 * An associative array redeclared with its value type and the same first keys but
 * another number of keys: DTrace names both tuple lengths.
 */
int counts[int];
int counts[int, int];
BEGIN { exit(0); }
