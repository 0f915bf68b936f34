/* options: -xerrtags */
/* An enumerator is defined when the parser reads the token after it, so its error
   reports that token's line (the closing brace here). */
enum big {
	LARGE = 0x7fffffff,
	LARGER = 0x80000000
};
BEGIN { exit(0); }
