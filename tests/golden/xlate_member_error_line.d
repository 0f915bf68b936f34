/* options: -xerrtags */
/*
 * DTrace checks a translator's members when its parser reaches the closing "};",
 * so an error in any member reports that line.
 */
struct input_struct { int ii; char ic; };
struct output_struct { int oi; char oc; };

translator struct output_struct < struct input_struct *ivar >
{
	oi = ivar->ii;
	oc = ivar->nosuch;
};

BEGIN { exit(0); }
