/* options: -xerrtags */
/* DTrace declares a name when it reads the token after it: the error is on the `;` line. */
int count;
char
count
;
BEGIN { exit(0); }
