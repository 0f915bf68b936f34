/* options: -xerrtags */
/* An inline may not take the name of one of D's functions: they are identifiers of the
   global scope (dt_idkind_name() names their kind). */
inline int count = 3;
BEGIN { exit(0); }
