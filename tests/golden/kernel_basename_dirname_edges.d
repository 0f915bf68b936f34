/* options: -q */
/* basename() and dirname() of trailing, repeated and lone slashes, empty and bare names. */
BEGIN
{
	printf("[%s] [%s]\n", basename("/foo/bar/baz"), dirname("/foo/bar/baz"));
	printf("[%s] [%s]\n", basename("/foo/bar///"), dirname("/foo/bar///"));
	printf("[%s] [%s]\n", basename("///"), dirname("///"));
	printf("[%s] [%s]\n", basename(""), dirname(""));
	printf("[%s] [%s]\n", basename("foo"), dirname("foo"));
	printf("[%s] [%s]\n", basename("/"), dirname("/"));
	printf("[%s] [%s]\n", basename("a//b"), dirname("a//b"));
	printf("[%s] [%s]\n", basename("//a"), dirname("//a"));
	exit(0);
}
