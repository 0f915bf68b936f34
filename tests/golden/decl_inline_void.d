/* options: -xerrtags */
inline void nothing = 1;
BEGIN { exit(0); }
