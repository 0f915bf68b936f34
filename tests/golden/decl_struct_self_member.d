/* options: -xerrtags */
/* A struct cannot contain itself: while its body is declared its tag names the
   incomplete type being defined, even when the kernel has a struct of that tag. */
struct s {
	int a;
	struct s inner;
};
BEGIN { exit(0); }
