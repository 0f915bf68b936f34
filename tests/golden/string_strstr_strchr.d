/* options: -q */
BEGIN
{
	s = "hello world";
	printf("[%s][%s]\n", strstr(s, "o w"), strstr(s, "xyz"));
	printf("[%s][%s]\n", strstr(s, ""), strstr(s, "hello world"));
	printf("[%s][%s][%s]\n", strchr(s, 'o'), strrchr(s, 'o'), strchr(s, 'z'));
	printf("[%s][%s]\n", strchr(s, 'h'), strrchr(s, 'd'));
	exit(0);
}
