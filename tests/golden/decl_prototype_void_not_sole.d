/* options: -xerrtags */
/* void must be the only parameter of a function prototype. */
typedef int fn_t(void, int);
BEGIN { exit(0); }
