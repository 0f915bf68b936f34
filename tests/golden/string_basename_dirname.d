/* options: -q */
BEGIN
{
	printf("[%s][%s]\n", basename("/usr/lib/libc.so"), dirname("/usr/lib/libc.so"));
	printf("[%s][%s]\n", basename("/usr/lib/"), dirname("/usr/lib/"));
	printf("[%s][%s]\n", basename(""), dirname(""));
	printf("[%s][%s]\n", basename("/"), dirname("/"));
	printf("[%s][%s]\n", basename("foo"), dirname("foo"));
	printf("[%s][%s]\n", basename("/foo"), dirname("/foo"));
	printf("[%s][%s]\n", basename("a//b"), dirname("a//b"));
	printf("[%s][%s]\n", basename("//"), dirname("//usr"));
	exit(0);
}
