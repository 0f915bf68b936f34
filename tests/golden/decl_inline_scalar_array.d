/* options: -xerrtags */
inline int table[4] = 1;
BEGIN { exit(0); }
