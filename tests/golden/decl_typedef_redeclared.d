/* options: -xerrtags */
typedef int count_t;
typedef char count_t;
BEGIN { exit(0); }
