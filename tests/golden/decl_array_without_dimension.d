/* options: -xerrtags */
int values[];
BEGIN { exit(0); }
