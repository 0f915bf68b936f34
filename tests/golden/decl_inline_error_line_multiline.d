/* options: -xerrtags */
inline int limit =
    "not a number";
BEGIN { exit(0); }
