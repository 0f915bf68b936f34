/* options: -xerrtags */
/* A global variable may not take an enumerator's name: DTrace names both kinds. */
enum colour { RED, GREEN };
int GREEN;
BEGIN { exit(0); }
