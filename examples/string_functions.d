/*
 * string_functions.d - a tour of D's string subroutines on a fixed path,
 * printed once; the output is the same on every machine except for the
 * execname line.
 *
 * Shows: basename, dirname, strlen, substr (with negative start and with
 * length), index, rindex, strstr, strchr, strrchr, toupper, tolower,
 * strjoin, lltostr (bases 10, 16, 8, 2), cleanpath, string comparison.
 * Run:   dtrace -s string_functions.d
 */

#pragma D option quiet

BEGIN
{
	path = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	printf("%-22s %s\n", "path", path);
	printf("%-22s %s\n", "basename(path)", basename(path));
	printf("%-22s %s\n", "dirname(path)", dirname(path));
	printf("%-22s %d\n", "strlen(path)", strlen(path));
	printf("%-22s %s\n", "substr(path, 5)", substr(path, 5));
	printf("%-22s %s\n", "substr(path, 0, 4)", substr(path, 0, 4));
	printf("%-22s %s\n", "substr(path, -9)", substr(path, -9));
	printf("%-22s %d\n", "index(path, \"lib\")", index(path, "lib"));
	printf("%-22s %d\n", "rindex(path, \"lib\")", rindex(path, "lib"));
	printf("%-22s %d\n", "index(path, \"zzz\")", index(path, "zzz"));
	printf("%-22s %s\n", "strstr(path, \".so\")", strstr(path, ".so"));
	printf("%-22s %s\n", "strchr(path, '-')", strchr(path, '-'));
	printf("%-22s %s\n", "strrchr(path, '/')", strrchr(path, '/'));
	printf("%-22s %s\n", "toupper(basename)", toupper(basename(path)));
	printf("%-22s %s\n", "tolower(\"MiXeD\")", tolower("MiXeD"));
	printf("%-22s %s\n", "strjoin(dir, file)",
	    strjoin(dirname(path), "/libm.so.6"));
	printf("%-22s %s\n", "lltostr(-42)", lltostr(-42));
	printf("%-22s %s\n", "lltostr(255, 16)", lltostr(255, 16));
	printf("%-22s %s\n", "lltostr(8, 8)", lltostr(8, 8));
	printf("%-22s %s\n", "lltostr(5, 2)", lltostr(5, 2));
	printf("%-22s %s\n", "cleanpath(...)", cleanpath("/usr//lib/./x/../libc.so.6"));
	printf("%-22s %d %d\n", "compare == and <", path == "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "abc" < "abd");
	printf("%-22s %s (%d characters)\n", "execname", execname, strlen(execname));
	exit(0);
}
