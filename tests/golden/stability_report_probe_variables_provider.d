/* options: -q -v */
/* dtrace:::BEGIN names a Stable provider and a Stable probe name, so probename is
   Stable too. */
dtrace:::BEGIN
{
	trace(probename);
	exit(0);
}
