/* options: -q */
BEGIN
{
	s = "hello";
	printf("[%s][%s][%s]\n", substr(s, 0), substr(s, 1), substr(s, 1, 3));
	printf("[%s][%s]\n", substr(s, -3), substr(s, -3, 2));
	printf("[%s][%s]\n", substr(s, 5), substr(s, 10));
	/* A window that ends before the string starts is empty. */
	printf("[%s][%s][%s]\n", substr(s, -7), substr(s, -7, 3), substr(s, -7, 1));
	printf("[%s][%s][%s]\n", substr(s, 1, -1), substr(s, 0, -5), substr(s, 0, -6));
	printf("[%s][%s]\n", substr(s, 2, 0), substr(s, 2, 100));
	exit(0);
}
