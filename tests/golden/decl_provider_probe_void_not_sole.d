/* options: -xerrtags */
/* A provider's probe prototype is checked as a function's: void must be alone. */
provider voidprov {
	probe work(void, int);
};
BEGIN { exit(0); }
