/* options: -q */
/* strchr() and strrchr(): first, last, missing and the empty string (bpf_loop callbacks on the kernel engine). */
BEGIN
{
	s = "hello world";
	printf("[%s] [%s] [%s] [%s]\n", strchr(s, 'o'), strrchr(s, 'o'), strchr(s, 'h'), strrchr(s, 'd'));
	printf("[%d] [%d]\n", strchr(s, 'z') == NULL, strrchr(s, 'z') == NULL);
	printf("[%s] [%s]\n", strchr(s, 'l'), strrchr(s, 'l'));
	printf("[%d] [%d]\n", strchr("", 'a') == NULL, strrchr("a", 'a') == NULL);
	exit(0);
}
