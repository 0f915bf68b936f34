/* options: -xerrtags */
struct input_struct { int ii; };

translator int < struct input_struct *ivar >
{
	oi = ivar->ii;
};

BEGIN { exit(0); }
