/* options: -xerrtags */
struct undefined_here var;
BEGIN { exit(0); }
