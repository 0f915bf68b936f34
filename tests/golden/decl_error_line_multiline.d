/* options: -xerrtags */
/* DTrace declares a name when it reads the token after it: the error is on the `;` line. */
int total;
char
total
;
BEGIN { exit(0); }
