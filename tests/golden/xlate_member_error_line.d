/* options: -xerrtags */
/*
 * DTrace checks a translator when its parser reaches the closing "};", so the
 * translator's own errors (here a member of an incompatible type) report that line.
 */
struct input_struct { int ii; char ic; };
struct output_struct { int oi; char oc; };

translator struct output_struct < struct input_struct *ivar >
{
	oi = ivar->ii;
	oc = "not a char";
};

BEGIN { exit(0); }
