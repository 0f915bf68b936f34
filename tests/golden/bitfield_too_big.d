/* options: -xerrtags */
struct flags {
	unsigned int low : 4;
	unsigned short wide : 17;
};
BEGIN { exit(0); }
