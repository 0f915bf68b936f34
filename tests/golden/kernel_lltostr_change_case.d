/* options: -q */
/* lltostr() in every base and sign and toupper()/tolower() at the letters' edges. */
BEGIN
{
	printf("%s %s %s %s %s\n", lltostr(0), lltostr(-123), lltostr(9223372036854775807), lltostr(-9223372036854775807 - 1), lltostr(255, 16));
	printf("%s %s %s %s\n", lltostr(8, 8), lltostr(0, 16), lltostr(5, 2), lltostr(-1, 36));
	printf("%s %s %s %s\n", toupper("hello World 123"), tolower("HeLLo WORLD_z"), toupper(""), tolower("@[`{"));
	exit(0);
}
