/* options: -q */
/* Declaring an inline's name with the inline's kind and type declares nothing: the
   name stays the inline. */
inline int limit = 10;
int limit;
BEGIN
{
	printf("%d\n", limit);
	exit(0);
}
