/*
 * printf_conversions.d - what each printf conversion, flag and width does,
 * printed once between [brackets] so padding is visible.
 *
 * Shows: %d %i %u %x %X %o with # + space 0 - flags and widths, %*d
 * dynamic widths, %s with width and precision, %c, %S escaping, %p, %%,
 * %Y for wall-clock time.
 * Run:   dtrace -s printf_conversions.d
 */

#pragma D option quiet

BEGIN
{
	n = 48879;
	printf("decimal     [%d] [%i] [%u]\n", n, n, n);
	printf("hex, octal  [%x] [%X] [%#x] [%o] [%#o]\n", n, n, n, n, n);
	printf("widths      [%8d] [%-8d] [%08d] [%+d] [% d]\n", n, n, n, n, n);
	printf("dynamic     [%*d] [%-*d]\n", 6, 42, 6, 42);
	printf("negative    [%d] [%u] [%x]\n", -1, -1, -1);
	printf("strings     [%s] [%12s] [%-12s] [%.5s]\n", "plain", "right", "left",
	    "truncated");
	printf("characters  [%c%c%c]\n", 'D', 'I', 'F');
	printf("escaped     [%S]\n", "tab\there \"quoted\"\n");
	printf("pointer     [%p]\n", 4096);
	printf("percent     [%%] [100%%]\n");
	printf("wall clock  [%Y]\n", walltimestamp);
	printf("wide clock  [%-24Y] [%24Y]\n", walltimestamp, walltimestamp);
	exit(0);
}
