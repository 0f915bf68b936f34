/* options: -xerrtags */
/*
 * dt_decl_prototype() checks each parameter first (a void parameter may not have a
 * name, which it names), then that void is the only parameter.
 */
typedef int fn_t(int count, void unused);
BEGIN { exit(0); }
